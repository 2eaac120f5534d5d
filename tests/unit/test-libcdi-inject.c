/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cdi_registry_inject(): the reference's cache_test.go TestInjectDevice and
 * regressions_test.go vectors, the merge order (spec edits once, before the spec's first
 * requested device), and all or nothing.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include <cdi/annotations.h>
#include <cdi/registry.h>

#include "../lib/testlib.h"

static char root[64];

static void setup(void)
{
	snprintf(root, sizeof(root), "/tmp/cdikit-inject.XXXXXX");
	cr_assert_not_null(mkdtemp(root));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(inject, .init = setup, .fini = teardown);

static int fake_lstat(const char *path, struct stat *st, void *userdata)
{
	(void)userdata;
	memset(st, 0, sizeof(*st));
	if (strcmp(path, "/dev/null") == 0) {
		st->st_mode = S_IFCHR | 0666;
		st->st_rdev = makedev(1, 3);
		return 0;
	}
	errno = ENOENT;
	return -1;
}

static const struct cdi_inject_options fake = { .lstat_fn = fake_lstat };

static const char *at(const char *rel)
{
	static char bufs[4][256];
	static int next;
	char *b = bufs[next++ % 4];

	snprintf(b, 256, "%s/%s", root, rel);
	return b;
}

static void write_at(const char *rel, const char *text)
{
	FILE *f;

	mkdir(at("etc"), 0755);
	mkdir(at("run"), 0755);
	f = fopen(at(rel), "w");
	cr_assert_not_null(f, "%s: %s", rel, strerror(errno));
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

static cdi_registry *open_registry(void)
{
	const char *dirs[] = { strdup(at("etc")), strdup(at("run")) };
	struct cdi_error err = { 0 };
	cdi_registry *reg = NULL;

	cr_assert_eq(cdi_registry_new(dirs, 2, 0, &reg, &err), 0, "%s", cdi_error_message(&err));
	cr_assert_eq(cdi_error_count(cdi_registry_errors(reg)), 0, "spec problem: %s",
		     cdi_error_message(cdi_registry_errors(reg)));
	free((char *)dirs[0]);
	free((char *)dirs[1]);
	return reg;
}

static void inject_ok(cdi_registry *reg, json_t *oci, const char *const *devs, size_t n)
{
	struct cdi_error err = { 0 };

	cr_assert_eq(cdi_registry_inject(reg, oci, devs, n, &fake, &err), 0, "%s",
		     cdi_error_message(&err));
	cr_assert_eq(cdi_error_count(&err), 0);
}

/* cache_test.go TestInjectDevice */
static const char vendor1[] = "cdiVersion: \"0.3.0\"\n"
			      "kind: \"vendor1.com/device\"\n"
			      "containerEdits:\n"
			      "  env:\n"
			      "    - VENDOR1_SPEC_VAR1=VAL1\n"
			      "devices:\n"
			      "  - name: \"dev1\"\n"
			      "    containerEdits:\n"
			      "      env:\n"
			      "        - \"VENDOR1_VAR1=VAL1\"\n"
			      "      deviceNodes:\n"
			      "        - path: \"/dev/vendor1-dev1\"\n"
			      "          type: b\n"
			      "          major: 10\n"
			      "          minor: 1\n"
			      "  - name: \"dev2\"\n"
			      "    containerEdits:\n"
			      "      env:\n"
			      "        - \"VENDOR1_VAR2=VAL2\"\n"
			      "      deviceNodes:\n"
			      "        - path: \"/dev/vendor1-dev2\"\n"
			      "          type: b\n"
			      "          major: 10\n"
			      "          minor: 2\n"
			      "      hooks:\n"
			      "        - hookName: prestart\n"
			      "          path: \"/usr/local/bin/prestart-vendor-hook\"\n"
			      "          args:\n"
			      "            - \"--verbose\"\n"
			      "          env:\n"
			      "            - \"HOOK_ENV1=PRESTART_VAL1\"\n"
			      "        - hookName: createRuntime\n"
			      "          path: \"/usr/local/bin/cr-vendor-hook\"\n"
			      "          args:\n"
			      "            - \"--debug\"\n"
			      "          env:\n"
			      "            - \"HOOK_ENV1=CREATE_RUNTIME_VAL1\"\n"
			      "  - name: \"dev3\"\n"
			      "    containerEdits:\n"
			      "      env:\n"
			      "        - \"VENDOR1_VAR3=VAL3\"\n"
			      "      deviceNodes:\n"
			      "        - path: \"/dev/vendor1-dev3\"\n"
			      "          type: b\n"
			      "          major: 10\n"
			      "          minor: 3\n";

#define RULE(min) "{'allow':true,'type':'b','major':10,'minor':" #min ",'access':'rwm'}"
#define DEV(min) "{'path':'/dev/vendor1-dev" #min "','type':'b','major':10,'minor':" #min "}"

Test(inject, one_device_empty_spec)
{
	cdi_registry *reg;
	json_t *oci = load("{}"), *want;

	write_at("etc/vendor1.yaml", vendor1);
	reg = open_registry();
	inject_ok(reg, oci, (const char *[]){ "vendor1.com/device=dev1" }, 1);
	want = load("{'process':{'user':{'uid':0,'gid':0},'env':['VENDOR1_SPEC_VAR1=VAL1',"
		    "'VENDOR1_VAR1=VAL1'],'cwd':''},'linux':{'devices':[" DEV(
			    1) "],"
			       "'resources':{'devices':[" RULE(1) "]}}}");
	assert_json_eq(oci, want);
	json_decref(want);
	json_decref(oci);
	cdi_registry_free(reg);
}

Test(inject, appended_after_existing)
{
	cdi_registry *reg;
	json_t *oci, *want;

	write_at("etc/vendor1.yaml", vendor1);
	reg = open_registry();
	oci = load("{'process':{'env':['ORIG_VAR1=VAL1','ORIG_VAR2=VAL2']},'linux':{'devices':["
		   "{'path':'/dev/null','type':'c','major':1,'minor':3},"
		   "{'path':'/dev/zero','type':'c','major':1,'minor':5}]}}");
	inject_ok(reg, oci, (const char *[]){ "vendor1.com/device=dev1" }, 1);
	want = load("{'process':{'env':['ORIG_VAR1=VAL1','ORIG_VAR2=VAL2','VENDOR1_SPEC_VAR1=VAL1',"
		    "'VENDOR1_VAR1=VAL1']},'linux':{'devices':["
		    "{'path':'/dev/null','type':'c','major':1,'minor':3},"
		    "{'path':'/dev/zero','type':'c','major':1,'minor':5}," DEV(
			    1) "],"
			       "'resources':{'devices':[" RULE(1) "]}}}");
	assert_json_eq(oci, want);
	json_decref(want);
	json_decref(oci);
	cdi_registry_free(reg);
}

Test(inject, three_devices_spec_edits_once)
{
	cdi_registry *reg;
	json_t *oci, *want;

	write_at("etc/vendor1.yaml", vendor1);
	reg = open_registry();
	oci = load("{'process':{'env':['ORIG_VAR1=VAL1','ORIG_VAR2=VAL2']},'linux':{'devices':["
		   "{'path':'/dev/null','type':'c','major':1,'minor':3}]}}");
	inject_ok(reg, oci,
		  (const char *[]){ "vendor1.com/device=dev1", "vendor1.com/device=dev2",
				    "vendor1.com/device=dev3" },
		  3);
	want = load("{'process':{'env':['ORIG_VAR1=VAL1','ORIG_VAR2=VAL2','VENDOR1_SPEC_VAR1=VAL1',"
		    "'VENDOR1_VAR1=VAL1','VENDOR1_VAR2=VAL2','VENDOR1_VAR3=VAL3']},"
		    "'hooks':{'prestart':[{'path':'/usr/local/bin/prestart-vendor-hook',"
		    "'args':['--verbose'],'env':['HOOK_ENV1=PRESTART_VAL1']}],"
		    "'createRuntime':[{'path':'/usr/local/bin/cr-vendor-hook','args':['--debug'],"
		    "'env':['HOOK_ENV1=CREATE_RUNTIME_VAL1']}]},"
		    "'linux':{'devices':[{'path':'/dev/null','type':'c','major':1,'minor':3}," DEV(
			    1) "," DEV(2) "," DEV(3) "],"
						     "'resources':{'devices':[" RULE(1) "," RULE(
							     2) "," RULE(3) "]}}}");
	assert_json_eq(oci, want);
	json_decref(want);
	json_decref(oci);
	cdi_registry_free(reg);
}

Test(inject, unresolvable_leaves_spec_untouched)
{
	cdi_registry *reg;
	json_t *oci = load("{'process':{'env':['A=1']}}");
	char *before = json_dumps(oci, JSON_COMPACT), *after, want[512];
	struct cdi_error err = { 0 };

	write_at("etc/vendor1.yaml",
		 "cdiVersion: \"0.3.0\"\nkind: \"vendor1.com/device\"\ndevices:\n  - name: dev1\n"
		 "    containerEdits:\n      env: [\"D=1\"]\n");
	reg = open_registry();
	cr_assert_eq(
		cdi_registry_inject(reg, oci,
				    (const char *[]){ "vendor1.com/device=dev1",
						      "vendor1.com/device=dev2", "not-a-name" },
				    3, &fake, &err),
		-ENOENT);
	cr_assert_eq(cdi_error_count(&err), 2);
	/* Only the names that failed, and where we looked; then a hint for the name that is no
	 * qualified name. */
	snprintf(
		want, sizeof(want),
		"unresolvable CDI devices vendor1.com/device=dev2, not-a-name (searched %s/etc, %s/run)",
		root, root);
	cr_assert_str_eq(cdi_problem_text(cdi_error_problem(&err, 0)), want);
	cr_assert_str_eq(
		cdi_problem_text(cdi_error_problem(&err, 1)),
		"not-a-name is not a qualified name (vendor/class=name, such as nvidia.com/gpu=0)");
	after = json_dumps(oci, JSON_COMPACT);
	cr_assert_str_eq(after, before);
	free(before);
	free(after);
	cdi_error_reset(&err);
	json_decref(oci);
	cdi_registry_free(reg);
}

Test(inject, order_across_specs_and_repeats)
{
	cdi_registry *reg;
	json_t *oci = load("{}"), *want;

	write_at("etc/a.yaml",
		 "cdiVersion: \"0.3.0\"\nkind: a.com/x\ncontainerEdits:\n  env: [SPEC_A=1]\n"
		 "devices:\n  - name: d1\n    containerEdits:\n      env: [A1=1]\n"
		 "  - name: d2\n    containerEdits:\n      env: [A2=1]\n      deviceNodes:\n"
		 "        - {path: /dev/a2, type: c, major: 5, minor: 2}\n");
	write_at("run/b.yaml",
		 "cdiVersion: \"0.3.0\"\nkind: b.com/y\ncontainerEdits:\n  env: [SPEC_B=1]\n"
		 "devices:\n  - name: d1\n    containerEdits:\n      env: [B1=1]\n");
	reg = open_registry();
	/* [specA, a.d1, specB, b.d1, a.d2, a.d2]: a device asked twice is applied twice. */
	inject_ok(reg, oci,
		  (const char *[]){ "a.com/x=d1", "b.com/y=d1", "a.com/x=d2", "a.com/x=d2" }, 4);
	want = load(
		"{'process':{'user':{'uid':0,'gid':0},'env':['SPEC_A=1','A1=1','SPEC_B=1','B1=1',"
		"'A2=1'],'cwd':''},'linux':{'devices':[{'path':'/dev/a2','type':'c','major':5,"
		"'minor':2}],'resources':{'devices':[{'allow':true,'type':'c','major':5,'minor':2,"
		"'access':'rwm'},{'allow':true,'type':'c','major':5,'minor':2,'access':'rwm'}]}}}");
	assert_json_eq(oci, want);
	json_decref(want);
	json_decref(oci);
	cdi_registry_free(reg);
}

Test(inject, spec_edits_only_with_a_requested_device)
{
	cdi_registry *reg;
	json_t *oci = load("{}"), *want;

	write_at("etc/a.yaml",
		 "cdiVersion: \"0.3.0\"\nkind: a.com/x\ncontainerEdits:\n  env: [SPEC_A=1]\n"
		 "devices:\n  - name: d1\n    containerEdits:\n      env: [A1=1]\n");
	write_at("etc/b.yaml",
		 "cdiVersion: \"0.3.0\"\nkind: b.com/y\ncontainerEdits:\n  env: [SPEC_B=1]\n"
		 "devices:\n  - name: d1\n    containerEdits:\n      env: [B1=1]\n");
	reg = open_registry();
	inject_ok(reg, oci, (const char *[]){ "b.com/y=d1" }, 1);
	want = load("{'process':{'user':{'uid':0,'gid':0},'env':['SPEC_B=1','B1=1'],'cwd':''}}");
	assert_json_eq(oci, want);
	json_decref(want);
	json_decref(oci);
	cdi_registry_free(reg);
}

Test(inject, failure_is_all_or_nothing_and_named)
{
	cdi_registry *reg;
	json_t *oci = load("{'ociVersion':'1.0.2','process':{'env':['A=1']},'mounts':[]}");
	char *before = json_dumps(oci, JSON_COMPACT), *after;
	struct cdi_error err = { 0 };

	write_at("etc/a.yaml",
		 "cdiVersion: \"0.3.0\"\nkind: a.com/x\ncontainerEdits:\n  env: [SPEC_A=1]\n"
		 "  mounts: [{hostPath: /h, containerPath: /c}]\n"
		 "devices:\n  - name: ok\n    containerEdits:\n      env: [OK=1]\n"
		 "      deviceNodes: [{path: /dev/null}]\n"
		 "  - name: bad\n    containerEdits:\n      env: [BAD=1]\n"
		 "      deviceNodes: [{path: /dev/null}, {path: /dev/gone}]\n");
	reg = open_registry();
	cr_assert_eq(cdi_registry_inject(reg, oci, (const char *[]){ "a.com/x=ok", "a.com/x=bad" },
					 2, &fake, &err),
		     -ENOENT);
	cr_assert_eq(cdi_error_count(&err), 1);
	cr_assert_str_eq(cdi_problem_file(cdi_error_problem(&err, 0)), at("etc/a.yaml"));
	cr_assert_str_eq(cdi_problem_field(cdi_error_problem(&err, 0)),
			 "devices[1].containerEdits.deviceNodes[1]");
	cr_assert_not_null(strstr(cdi_problem_message(cdi_error_problem(&err, 0)),
				  "failed to stat CDI host device \"/dev/gone\""));
	after = json_dumps(oci, JSON_COMPACT);
	cr_assert_str_eq(after, before, "config changed by a failed injection");
	free(before);
	free(after);
	cdi_error_reset(&err);
	json_decref(oci);
	cdi_registry_free(reg);
}

Test(inject, nothing_requested_and_bad_arguments)
{
	cdi_registry *reg;
	json_t *oci = load("{'a':1}"), *arr = json_array();
	struct cdi_error err = { 0 };

	write_at("etc/vendor1.yaml", vendor1);
	reg = open_registry();
	cr_assert_eq(cdi_registry_inject(reg, oci, NULL, 0, NULL, &err), 0);
	cr_assert_eq(json_object_size(oci), 1);
	cr_assert_eq(cdi_registry_inject(reg, NULL, NULL, 0, NULL, &err), -EINVAL);
	cr_assert_eq(cdi_registry_inject(reg, arr, (const char *[]){ "vendor1.com/device=dev1" }, 1,
					 &fake, &err),
		     -EINVAL);
	cr_assert_eq(cdi_registry_inject(NULL, oci, (const char *[]){ "x" }, 1, NULL, &err),
		     -EINVAL);
	cdi_error_reset(&err);
	json_decref(arr);
	json_decref(oci);
	cdi_registry_free(reg);
}

/* regressions_test.go TestInjectDevicesFromAnnotations */
static const char vendor1_loop[] =
	"cdiVersion: \"0.3.0\"\nkind: \"vendor1.com/device\"\n"
	"containerEdits:\n  env:\n    - VENDOR1=present\n"
	"devices:\n  - name: foo\n    containerEdits:\n      env:\n"
	"        - FOO=injected\n      deviceNodes:\n"
	"        - path: /dev/loop8\n          type: b\n          major: 7\n"
	"          minor: 8\n";
static const char vendor2_loop[] =
	"cdiVersion: \"0.3.0\"\nkind: \"vendor2.com/device\"\n"
	"containerEdits:\n  env:\n    - VENDOR2=present\n"
	"devices:\n  - name: bar\n    containerEdits:\n      env:\n"
	"        - BAR=injected\n      deviceNodes:\n"
	"        - path: /dev/loop9\n          type: b\n          major: 7\n"
	"          minor: 9\n";

static int inject_from_annotations(cdi_registry *reg, json_t *oci, struct cdi_error *err)
{
	char **devs = NULL;
	size_t n = 0;
	int r;

	r = cdi_annotations_parse(json_object_get(oci, "annotations"), &devs, &n, err);
	if (r == 0)
		r = cdi_registry_inject(reg, oci, (const char *const *)devs, n, &fake, err);
	cdi_strv_free(devs);
	return r;
}

Test(inject, regression_annotations)
{
	struct cdi_error err = { 0 };
	cdi_registry *reg;
	json_t *oci, *env, *devs;

	write_at("etc/vendor1.yaml", vendor1_loop);
	write_at("etc/vendor2.yaml", vendor2_loop);
	reg = open_registry();

	/* nil and empty annotations: no devices, no error. */
	oci = load("{}");
	cr_assert_eq(inject_from_annotations(reg, oci, &err), 0);
	cr_assert_eq(json_object_size(oci), 0);
	json_decref(oci);
	oci = load("{'annotations':{}}");
	cr_assert_eq(inject_from_annotations(reg, oci, &err), 0);
	json_decref(oci);

	/* Not a qualified name. */
	oci = load("{'annotations':{'cdi.k8s.io/devices':'foobar'}}");
	cr_assert_lt(inject_from_annotations(reg, oci, &err), 0);
	cr_assert_not_null(strstr(cdi_error_message(&err), "invalid CDI device name \"foobar\""));
	cdi_error_reset(&err);
	json_decref(oci);

	/* Unknown device. */
	oci = load("{'annotations':{'cdi.k8s.io/devices':'vendor1.com/device=unknown'}}");
	cr_assert_eq(inject_from_annotations(reg, oci, &err), -ENOENT);
	cr_assert_not_null(strstr(cdi_error_message(&err),
				  "unresolvable CDI devices vendor1.com/device=unknown"));
	cdi_error_reset(&err);
	json_decref(oci);

	/* Two vendors. */
	oci = load(
		"{'annotations':{'cdi.k8s.io/devices':'vendor1.com/device=foo,vendor2.com/device=bar'}}");
	cr_assert_eq(inject_from_annotations(reg, oci, &err), 0, "%s", cdi_error_message(&err));
	devs = json_object_get(json_object_get(oci, "linux"), "devices");
	cr_assert_eq(json_array_size(devs), 2);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(devs, 0), "path")),
			 "/dev/loop8");
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(devs, 1), "path")),
			 "/dev/loop9");
	env = json_object_get(json_object_get(oci, "process"), "env");
	{
		json_t *want =
			load("['VENDOR1=present','FOO=injected','VENDOR2=present','BAR=injected']");

		assert_json_eq(env, want);
		json_decref(want);
	}
	json_decref(oci);
	cdi_registry_free(reg);
}

Test(inject, real_lstat_by_default)
{
	struct cdi_error err = { 0 };
	cdi_registry *reg;
	struct stat st;
	json_t *oci = load("{}"), *dev;

	if (lstat("/dev/null", &st) < 0 || !S_ISCHR(st.st_mode))
		cr_skip_test("no /dev/null here");
	write_at("etc/n.yaml", "cdiVersion: \"0.3.0\"\nkind: v.com/n\ndevices:\n  - name: nul\n"
			       "    containerEdits:\n      deviceNodes: [{path: /dev/null}]\n");
	reg = open_registry();
	cr_assert_eq(
		cdi_registry_inject(reg, oci, (const char *[]){ "v.com/n=nul" }, 1, NULL, &err), 0,
		"%s", cdi_error_message(&err));
	dev = json_array_get(json_object_get(json_object_get(oci, "linux"), "devices"), 0);
	cr_assert_str_eq(json_string_value(json_object_get(dev, "type")), "c");
	cr_assert_eq(json_integer_value(json_object_get(dev, "major")), major(st.st_rdev));
	cr_assert_eq(json_integer_value(json_object_get(dev, "fileMode")), st.st_mode & 07777);
	json_decref(oci);
	cdi_registry_free(reg);
}

/* The hints where users stumble: a name without vendor and class, and a GPU in MIG mode
 * asked for as a whole. */
Test(inject, hints_for_names_that_do_not_resolve)
{
	cdi_registry *reg;
	json_t *oci = load("{'process':{'env':[]}}");
	struct cdi_error err = CDI_ERROR_INIT;

	write_at("etc/nvidia.yaml", "cdiVersion: \"0.5.0\"\nkind: \"nvidia.com/gpu\"\ndevices:\n"
				    "  - {name: \"0\", containerEdits: {env: [\"G=0\"]}}\n"
				    "  - {name: \"1:0\", containerEdits: {env: [\"G=1:0\"]}}\n"
				    "  - {name: \"1:1\", containerEdits: {env: [\"G=1:1\"]}}\n");
	reg = open_registry();
	cr_assert_eq(cdi_registry_inject(reg, oci,
					 (const char *[]){ "gpu=0", "1:1", "nvidia.com/gpu=1" }, 3,
					 &fake, &err),
		     -ENOENT);
	cr_assert_eq(cdi_error_count(&err), 4, "%s", cdi_error_message(&err));
	cr_expect_str_eq(cdi_problem_text(cdi_error_problem(&err, 1)),
			 "gpu=0 is not a qualified name: did you mean nvidia.com/gpu=0?");
	cr_expect_str_eq(cdi_problem_text(cdi_error_problem(&err, 2)),
			 "1:1 is not a qualified name: did you mean nvidia.com/gpu=1:1?");
	cr_expect_str_eq(
		cdi_problem_text(cdi_error_problem(&err, 3)),
		"nvidia.com/gpu=1: GPU 1 is in MIG mode, and the spec has only its MIG devices: "
		"nvidia.com/gpu=1:0, nvidia.com/gpu=1:1 (ask for one of those)");
	cdi_error_reset(&err);
	json_decref(oci);
	cdi_registry_free(reg);
}
