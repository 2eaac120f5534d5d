/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cdi_apply_edits(): the reference's ContainerEdits.Apply and Append vectors
 * (pkg/cdi/container-edits_test.go TestApplyContainerEdits, TestAppend), plus what the
 * reference does not promise: unknown fields and key order survive, failures leave the config
 * untouched.
 *
 * JSON in this file is written with single quotes for readability; load() swaps them.
 * The host is simulated by fake_lstat: /dev/null is c 1:3 mode 0666 as on Linux.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <criterion/criterion.h>

#include <cdi/registry.h>

#include "../lib/testlib.h"
#include "libcdi/edits.h"
#include "libcdi/json_dump.h"
#include "path_clean.h"
#include "strmap.h"

struct fake_node {
	const char *path;
	mode_t mode;
	unsigned major, minor;
};

static const struct fake_node fake_host[] = {
	{ "/dev/null", S_IFCHR | 0666, 1, 3 },	{ "/dev/zero", S_IFCHR | 0666, 1, 5 },
	{ "/dev/loop8", S_IFBLK | 0660, 7, 8 }, { "/dev/dev1", S_IFCHR | 0600, 10, 1 },
	{ "/dev/dev2", S_IFCHR | 0600, 10, 2 }, { "/dev/dev3", S_IFCHR | 0600, 10, 3 },
	{ "/dev/dev4", S_IFCHR | 0600, 10, 4 }, { "/dev/setuid", S_IFCHR | 04640, 10, 9 },
	{ "/run/fifo", S_IFIFO | 0620, 0, 0 },	{ "/etc/passwd", S_IFREG | 0644, 0, 0 },
};

static unsigned fake_calls;

static int fake_lstat(const char *path, struct stat *st, void *userdata)
{
	(void)userdata;
	fake_calls++;
	for (size_t i = 0; i < sizeof(fake_host) / sizeof(fake_host[0]); i++) {
		if (strcmp(path, fake_host[i].path) != 0)
			continue;
		memset(st, 0, sizeof(*st));
		st->st_mode = fake_host[i].mode;
		st->st_rdev = makedev(fake_host[i].major, fake_host[i].minor);
		return 0;
	}
	errno = ENOENT;
	return -1;
}

/* The other convention a stand-in may use: return -errno. */
static int fake_lstat_negerrno(const char *path, struct stat *st, void *userdata)
{
	(void)path;
	(void)st;
	(void)userdata;
	errno = 0;
	return -EACCES;
}

static const struct cdi_inject_options fake = { .lstat_fn = fake_lstat };

/* Apply edits (NULL: none) to oci and compare with want. */
static void check_apply(const char *oci, const char *edits, const char *want)
{
	json_t *o = load(oci), *e = edits ? load(edits) : NULL, *w = load(want);
	json_t *e_before = edits ? load(edits) : NULL;
	struct cdi_error err = { 0 };
	int r;

	r = cdi_apply_edits(o, e, &fake, &err);
	cr_assert_eq(r, 0, "apply failed (%d): %s", r, cdi_error_message(&err));
	cr_assert_eq(cdi_error_count(&err), 0);
	assert_json_eq(o, w);
	/* The result may share values with the edits, but never changes them (ID-map options). */
	if (e)
		assert_json_eq(e, e_before);
	json_decref(o);
	json_decref(e);
	json_decref(e_before);
	json_decref(w);
}

/* Apply edits that must fail: the problem text contains want_msg, oci is byte-identical. */
static void check_fail(const char *oci, const char *edits, const char *want_msg)
{
	json_t *o = load(oci), *e = load(edits);
	char *before = json_dumps(o, JSON_COMPACT), *after;
	struct cdi_error err = { 0 };
	int r;

	r = cdi_apply_edits(o, e, &fake, &err);
	cr_assert_lt(r, 0, "apply should fail for %s", edits);
	cr_assert_geq(cdi_error_count(&err), 1);
	cr_assert_not_null(strstr(cdi_error_message(&err), want_msg), "message \"%s\" lacks \"%s\"",
			   cdi_error_message(&err), want_msg);
	after = json_dumps(o, JSON_COMPACT);
	cr_assert_str_eq(after, before, "config changed by a failed apply");
	free(before);
	free(after);
	cdi_error_reset(&err);
	json_decref(o);
	json_decref(e);
}

#define PROCESS(env) "'process':{'user':{'uid':0,'gid':0},'env':" env ",'cwd':''}"

/* ---- TestApplyContainerEdits: env ---- */

Test(edits_env, empty_spec_nil_edits)
{
	check_apply("{}", NULL, "{}");
	check_apply("{}", "{}", "{}");
	check_apply("{}", "{'env':[]}", "{}");
}

Test(edits_env, add_to_empty_spec)
{
	check_apply("{}", "{'env':['BAR=BARVALUE1']}", "{" PROCESS("['BAR=BARVALUE1']") "}");
}

Test(edits_env, duplicate_in_edits_last_wins)
{
	check_apply("{}", "{'env':['FOO=old','FOO=new']}", "{" PROCESS("['FOO=new']") "}");
}

Test(edits_env, existing_key_replaced_in_place)
{
	check_apply("{'process':{'env':['FOO=old','BAR=old']}}", "{'env':['FOO=new']}",
		    "{'process':{'env':['FOO=new','BAR=old']}}");
}

Test(edits_env, existing_duplicate_key_last_index_wins)
{
	/* runtime-tools indexes process.env; a later duplicate key overwrites the index. */
	check_apply("{'process':{'env':['A=1','B=1','A=2']}}", "{'env':['A=3','C=1']}",
		    "{'process':{'env':['A=1','B=1','A=3','C=1']}}");
}

Test(edits_env, key_is_text_before_first_equals)
{
	check_apply("{'process':{'env':['X=a=b','NOEQ']}}", "{'env':['X=c=d','NOEQ=1']}",
		    "{'process':{'env':['X=c=d','NOEQ=1']}}");
}

/* ---- TestApplyContainerEdits: device nodes ---- */

Test(edits_nodes, dev_null_filled_from_host)
{
	check_apply("{}", "{'deviceNodes':[{'path':'/dev/null'}]}",
		    "{'linux':{'devices':[{'path':'/dev/null','type':'c','major':1,'minor':3,"
		    "'fileMode':438}],'resources':{'devices':[{'allow':true,'type':'c','major':1,"
		    "'minor':3,'access':'rwm'}]}}}");
}

Test(edits_nodes, missing_host_minimal_permissions_none)
{
	/* /dev/nil does not exist; type+major make it minimal, so no stat error and no fileMode;
	 * "none" is the explicit empty access, omitted from the rule (omitempty). */
	check_apply("{}",
		    "{'deviceNodes':[{'path':'/dev/nil','type':'c','major':1,'minor':3,"
		    "'permissions':'none'}]}",
		    "{'linux':{'devices':[{'path':'/dev/nil','type':'c','major':1,'minor':3}],"
		    "'resources':{'devices':[{'allow':true,'type':'c','major':1,'minor':3}]}}}");
}

Test(edits_nodes, missing_host_minimal_empty_permissions_is_rwm)
{
	check_apply("{}", "{'deviceNodes':[{'path':'/dev/nil','type':'c','major':1,'minor':3}]}",
		    "{'linux':{'devices':[{'path':'/dev/nil','type':'c','major':1,'minor':3}],"
		    "'resources':{'devices':[{'allow':true,'type':'c','major':1,'minor':3,"
		    "'access':'rwm'}]}}}");
}

Test(edits_nodes, env_and_typed_node)
{
	check_apply(
		"{}", "{'env':['FOO=BAR'],'deviceNodes':[{'path':'/dev/null','type':'c'}]}",
		"{" PROCESS(
			"['FOO=BAR']") ",'linux':{'devices':[{'path':'/dev/null','type':'c',"
				       "'major':1,'minor':3,'fileMode':438}],'resources':{'devices':[{'allow':true,"
				       "'type':'c','major':1,'minor':3,'access':'rwm'}]}}}");
}

Test(edits_nodes, minimal_node_still_gets_host_file_mode)
{
	/* NVIDIA/nvidia-container-toolkit#960: fileMode is taken from the host even when type
	 * and major are given; the given major/minor stay. */
	check_apply("{}", "{'deviceNodes':[{'path':'/dev/null','type':'c','major':9,'minor':9}]}",
		    "{'linux':{'devices':[{'path':'/dev/null','type':'c','major':9,'minor':9,"
		    "'fileMode':438}],'resources':{'devices':[{'allow':true,'type':'c','major':9,"
		    "'minor':9,'access':'rwm'}]}}}");
}

Test(edits_nodes, host_path_and_explicit_mode)
{
	check_apply("{}",
		    "{'deviceNodes':[{'path':'/dev/x','hostPath':'/dev/loop8','fileMode':384,"
		    "'permissions':'rw'}]}",
		    "{'linux':{'devices':[{'path':'/dev/x','type':'b','major':7,'minor':8,"
		    "'fileMode':384}],'resources':{'devices':[{'allow':true,'type':'b','major':7,"
		    "'minor':8,'access':'rw'}]}}}");
}

Test(edits_nodes, file_mode_keeps_setuid_bits)
{
	check_apply("{}", "{'deviceNodes':[{'path':'/dev/setuid'}]}",
		    "{'linux':{'devices':[{'path':'/dev/setuid','type':'c','major':10,'minor':9,"
		    "'fileMode':2464}],'resources':{'devices':[{'allow':true,'type':'c','major':10,"
		    "'minor':9,'access':'rwm'}]}}}");
}

Test(edits_nodes, fifo_has_no_cgroup_rule)
{
	check_apply("{}", "{'deviceNodes':[{'path':'/run/fifo'}]}",
		    "{'linux':{'devices':[{'path':'/run/fifo','type':'p','major':0,'minor':0,"
		    "'fileMode':400}]}}");
	/* "p" without a host is minimal (no major needed). */
	check_apply("{}", "{'deviceNodes':[{'path':'/run/none','type':'p'}]}",
		    "{'linux':{'devices':[{'path':'/run/none','type':'p','major':0,'minor':0}]}}");
}

Test(edits_nodes, uid_gid_from_process_user)
{
	check_apply("{'process':{'user':{'uid':1000,'gid':100}}}",
		    "{'deviceNodes':[{'path':'/dev/null'},{'path':'/dev/zero','uid':5,'gid':0}]}",
		    "{'process':{'user':{'uid':1000,'gid':100}},'linux':{'devices':["
		    "{'path':'/dev/null','type':'c','major':1,'minor':3,'fileMode':438,'uid':1000,"
		    "'gid':100},{'path':'/dev/zero','type':'c','major':1,'minor':5,'fileMode':438,"
		    "'uid':5,'gid':0}],'resources':{'devices':[{'allow':true,'type':'c','major':1,"
		    "'minor':3,'access':'rwm'},{'allow':true,'type':'c','major':1,'minor':5,"
		    "'access':'rwm'}]}}}");
	/* uid 0 is not copied. */
	check_apply(
		"{'process':{'user':{'uid':0,'gid':7}}}", "{'deviceNodes':[{'path':'/dev/null'}]}",
		"{'process':{'user':{'uid':0,'gid':7}},'linux':{'devices':[{'path':'/dev/null',"
		"'type':'c','major':1,'minor':3,'fileMode':438,'gid':7}],'resources':{'devices':"
		"[{'allow':true,'type':'c','major':1,'minor':3,'access':'rwm'}]}}}");
}

Test(edits_nodes, same_path_replaced_and_moved_to_end)
{
	check_apply(
		"{'linux':{'devices':[{'path':'/dev/null','type':'c','major':1,'minor':7},"
		"{'path':'/dev/zero','type':'c','major':1,'minor':5}]}}",
		"{'deviceNodes':[{'path':'/dev/null','type':'c','major':1,'minor':3,'permissions':'r'}]}",
		"{'linux':{'devices':[{'path':'/dev/zero','type':'c','major':1,'minor':5},"
		"{'path':'/dev/null','type':'c','major':1,'minor':3,'fileMode':438}],"
		"'resources':{'devices':[{'allow':true,'type':'c','major':1,'minor':3,'access':'r'}]}}}");
}

Test(edits_nodes, duplicate_existing_paths_as_runtime_tools)
{
	/* RemoveDevice drops the first entry with the path, AddDevice then replaces the second
	 * one in place. */
	check_apply(
		"{'linux':{'devices':[{'path':'/dev/a','type':'c','major':1,'minor':1},"
		"{'path':'/dev/b','type':'c','major':1,'minor':2},"
		"{'path':'/dev/a','type':'c','major':1,'minor':3}]}}",
		"{'deviceNodes':[{'path':'/dev/a','type':'c','major':9,'minor':9}]}",
		"{'linux':{'devices':[{'path':'/dev/b','type':'c','major':1,'minor':2},"
		"{'path':'/dev/a','type':'c','major':9,'minor':9}],"
		"'resources':{'devices':[{'allow':true,'type':'c','major':9,'minor':9,'access':'rwm'}]}}}");
}

Test(edits_nodes, same_path_twice_in_edits)
{
	check_apply("{}",
		    "{'deviceNodes':[{'path':'/dev/a','type':'c','major':1,'minor':1},"
		    "{'path':'/dev/b','type':'c','major':1,'minor':2},"
		    "{'path':'/dev/a','type':'c','major':1,'minor':3}]}",
		    "{'linux':{'devices':[{'path':'/dev/b','type':'c','major':1,'minor':2},"
		    "{'path':'/dev/a','type':'c','major':1,'minor':3}],'resources':{'devices':["
		    "{'allow':true,'type':'c','major':1,'minor':1,'access':'rwm'},"
		    "{'allow':true,'type':'c','major':1,'minor':2,'access':'rwm'},"
		    "{'allow':true,'type':'c','major':1,'minor':3,'access':'rwm'}]}}}");
}

Test(edits_nodes, minimal_u_type)
{
	check_apply("{}", "{'deviceNodes':[{'path':'/dev/u','type':'u','major':4,'minor':1}]}",
		    "{'linux':{'devices':[{'path':'/dev/u','type':'u','major':4,'minor':1}]}}");
}

Test(edits_nodes, stat_failure)
{
	check_fail("{'process':{'env':['A=1']}}",
		   "{'env':['B=2'],'deviceNodes':[{'path':'/dev/nope'}]}",
		   "failed to stat CDI host device \"/dev/nope\": No such file or directory");
	/* The hostPath is what is stat'ed. */
	check_fail("{}", "{'deviceNodes':[{'path':'/dev/null','hostPath':'/dev/gone','type':'c'}]}",
		   "failed to stat CDI host device \"/dev/gone\"");
}

Test(edits_nodes, not_a_device_node)
{
	check_fail("{}", "{'deviceNodes':[{'path':'/etc/passwd'}]}",
		   "failed to stat CDI host device \"/etc/passwd\": not a device node");
	/* minimal: the host file is not looked at beyond fileMode, so it passes. */
	check_apply(
		"{}", "{'deviceNodes':[{'path':'/etc/passwd','type':'c','major':1}]}",
		"{'linux':{'devices':[{'path':'/etc/passwd','type':'c','major':1,'minor':0}],"
		"'resources':{'devices':[{'allow':true,'type':'c','major':1,'minor':0,'access':'rwm'}]}}}");
}

Test(edits_nodes, host_type_mismatch)
{
	check_fail("{}", "{'deviceNodes':[{'path':'/dev/null','type':'b'}]}",
		   "CDI device (\"/dev/null\", \"/dev/null\"), host type mismatch (b, c)");
	check_fail("{}", "{'deviceNodes':[{'path':'/dev/null','type':'u'}]}",
		   "host type mismatch (u, c)");
}

Test(edits_nodes, every_bad_node_reported)
{
	json_t *o = load("{}");
	json_t *e = load(
		"{'deviceNodes':[{'path':'/dev/x1'},{'path':'/dev/null'},{'path':'/dev/x2'}]}");
	struct cdi_error err = { 0 };

	cr_assert_lt(cdi_apply_edits(o, e, &fake, &err), 0);
	cr_assert_eq(cdi_error_count(&err), 2);
	cr_assert_str_eq(cdi_problem_field(cdi_error_problem(&err, 0)),
			 "containerEdits.deviceNodes[0]");
	cr_assert_str_eq(cdi_problem_field(cdi_error_problem(&err, 1)),
			 "containerEdits.deviceNodes[2]");
	cr_assert_eq(json_object_size(o), 0);
	cdi_error_reset(&err);
	json_decref(o);
	json_decref(e);
}

Test(edits_nodes, lstat_stand_in_returning_negative_errno)
{
	const struct cdi_inject_options opts = { .lstat_fn = fake_lstat_negerrno };
	json_t *o = load("{}"), *e = load("{'deviceNodes':[{'path':'/dev/null'}]}");
	struct cdi_error err = { 0 };

	cr_assert_eq(cdi_apply_edits(o, e, &opts, &err), -EACCES);
	cr_assert_not_null(strstr(cdi_error_message(&err), "Permission denied"));
	cdi_error_reset(&err);
	json_decref(o);
	json_decref(e);
}

Test(edits_nodes, default_lstat_is_the_real_one)
{
	struct stat st;
	json_t *o, *e;
	struct cdi_error err = { 0 };

	if (lstat("/dev/null", &st) < 0 || !S_ISCHR(st.st_mode))
		cr_skip_test("no /dev/null character device here");
	o = load("{}");
	e = load("{'deviceNodes':[{'path':'/dev/null'}]}");
	cr_assert_eq(cdi_apply_edits(o, e, NULL, &err), 0, "%s", cdi_error_message(&err));
	cr_assert_eq(
		json_integer_value(json_object_get(
			json_array_get(json_object_get(json_object_get(o, "linux"), "devices"), 0),
			"major")),
		major(st.st_rdev));
	json_decref(o);
	json_decref(e);
}

/* ---- TestApplyContainerEdits: mounts ---- */

Test(edits_mounts, add_to_empty_spec)
{
	check_apply(
		"{}",
		"{'mounts':[{'hostPath':'/dev/host-vendorctl','containerPath':'/dev/cntr-vendorctl'}]}",
		"{'mounts':[{'source':'/dev/host-vendorctl','destination':'/dev/cntr-vendorctl'}]}");
}

Test(edits_mounts, sorted_by_depth_new_before_deeper)
{
	check_apply("{'mounts':[{'source':'/some/host/path1','destination':'/dest/path/b'},"
		    "{'source':'/some/host/path2','destination':'/dest/path/a'}]}",
		    "{'mounts':[{'hostPath':'/some/host/path3','containerPath':'/dest/edit'}]}",
		    "{'mounts':[{'source':'/some/host/path3','destination':'/dest/edit'},"
		    "{'source':'/some/host/path1','destination':'/dest/path/b'},"
		    "{'source':'/some/host/path2','destination':'/dest/path/a'}]}");
}

Test(edits_mounts, stable_for_equal_depth)
{
	/* PR #241: no alphabetical tie-break; a new mount goes after existing ones of its depth. */
	check_apply("{'mounts':[{'source':'/some/host/path1','destination':'/dest/path/c'},"
		    "{'source':'/some/host/path2','destination':'/dest/path/b'}]}",
		    "{'mounts':[{'hostPath':'/some/host/path3','containerPath':'/dest/path/a'}]}",
		    "{'mounts':[{'source':'/some/host/path1','destination':'/dest/path/c'},"
		    "{'source':'/some/host/path2','destination':'/dest/path/b'},"
		    "{'source':'/some/host/path3','destination':'/dest/path/a'}]}");
}

Test(edits_mounts, user_namespace_idmap)
{
	const char *ns = "'linux':{'namespaces':[{'type':'user','path':'/foo/bar'}],"
			 "'uidMappings':[{'hostID':1000,'containerID':0,'size':999}],"
			 "'gidMappings':[{'hostID':2000,'containerID':0,'size':777}]}";
	char oci[1024], want[2048];

	snprintf(oci, sizeof(oci),
		 "{%s,'mounts':[{'source':'/some/host/path1','destination':'/dest/path/c'},"
		 "{'source':'/some/host/path2','destination':'/dest/path/b'}]}",
		 ns);
	snprintf(want, sizeof(want),
		 "{%s,'mounts':[{'source':'/some/host/path1','destination':'/dest/path/c'},"
		 "{'source':'/some/host/path2','destination':'/dest/path/b'},"
		 "{'source':'/some/host/path3','destination':'/dest/path/a','type':'bind',"
		 "'options':['idmap']},"
		 "{'source':'/some/host/path4','destination':'/dest/path/d','type':'bind',"
		 "'options':['rbind','ridmap']}]}",
		 ns);
	check_apply(
		oci,
		"{'mounts':[{'hostPath':'/some/host/path3','containerPath':'/dest/path/a','type':'bind'},"
		"{'hostPath':'/some/host/path4','containerPath':'/dest/path/d','type':'bind',"
		"'options':['rbind']}]}",
		want);
}

Test(edits_mounts, idmap_option_rules)
{
	const char *ns = "{'linux':{'namespaces':[{'type':'user'}]}}";

	/* Already ID-mapped: nothing added. */
	check_apply(
		ns,
		"{'mounts':[{'hostPath':'/h','containerPath':'/c','type':'bind','options':['ridmap']}]}",
		"{'linux':{'namespaces':[{'type':'user'}]},'mounts':[{'source':'/h','destination':'/c',"
		"'type':'bind','options':['ridmap']}]}");
	/* Not a bind type, but a bind option: idmap; the last of bind/rbind wins. */
	check_apply(
		ns,
		"{'mounts':[{'hostPath':'/h','containerPath':'/c','options':['rbind','ro','bind']}]}",
		"{'linux':{'namespaces':[{'type':'user'}]},'mounts':[{'source':'/h','destination':'/c',"
		"'options':['rbind','ro','bind','idmap']}]}");
	/* Neither: nothing. */
	check_apply(
		ns,
		"{'mounts':[{'hostPath':'tmpfs','containerPath':'/c','type':'tmpfs','options':['ro']}]}",
		"{'linux':{'namespaces':[{'type':'user'}]},'mounts':[{'source':'tmpfs','destination':'/c',"
		"'type':'tmpfs','options':['ro']}]}");
	/* No user namespace: never. */
	check_apply("{}", "{'mounts':[{'hostPath':'/h','containerPath':'/c','type':'bind'}]}",
		    "{'mounts':[{'source':'/h','destination':'/c','type':'bind'}]}");
}

Test(edits_mounts, replace_by_exact_destination)
{
	/* RemoveMount compares destinations as strings, so "/a/" does not replace "/a". */
	check_apply(
		"{'mounts':[{'destination':'/a','source':'x'},{'destination':'/b','source':'y'}]}",
		"{'mounts':[{'hostPath':'/n','containerPath':'/a'},{'hostPath':'/m','containerPath':'/b/'}]}",
		"{'mounts':[{'destination':'/b','source':'y'},{'destination':'/a','source':'/n'},"
		"{'destination':'/b/','source':'/m'}]}");
}

Test(edits_mounts, depth_uses_clean_path)
{
	/* "/x//y/../z/" cleans to "/x/z" (depth 2) and sorts after "/q" (depth 1). */
	check_apply("{'mounts':[{'destination':'/x//y/../z/'},{'destination':'/q'}]}",
		    "{'mounts':[{'hostPath':'/h','containerPath':'relative'}]}",
		    "{'mounts':[{'destination':'relative','source':'/h'},{'destination':'/q'},"
		    "{'destination':'/x//y/../z/'}]}");
}

Test(edits_mounts, empty_options_omitted)
{
	check_apply("{}",
		    "{'mounts':[{'hostPath':'/h','containerPath':'/c','type':'','options':[]}]}",
		    "{'mounts':[{'source':'/h','destination':'/c'}]}");
}

/* ---- TestApplyContainerEdits: hooks ---- */

Test(edits_hooks, every_stage)
{
	check_apply(
		"{}",
		"{'hooks':["
		"{'hookName':'prestart','path':'/usr/local/bin/prestart-vendor-hook','args':['--verbose'],'env':['VENDOR_ENV1=value1']},"
		"{'hookName':'createRuntime','path':'/usr/local/bin/cr-vendor-hook','args':['--debug'],'env':['VENDOR_ENV2=value2']},"
		"{'hookName':'createContainer','path':'/usr/local/bin/cc-vendor-hook','args':['--create'],'env':['VENDOR_ENV3=value3']},"
		"{'hookName':'startContainer','path':'/usr/local/bin/sc-vendor-hook','args':['--start'],'env':['VENDOR_ENV4=value4']},"
		"{'hookName':'poststart','path':'/usr/local/bin/poststart-vendor-hook','env':['VENDOR_ENV5=value5']},"
		"{'hookName':'poststop','path':'/usr/local/bin/poststop-vendor-hook'}]}",
		"{'hooks':{"
		"'prestart':[{'path':'/usr/local/bin/prestart-vendor-hook','args':['--verbose'],'env':['VENDOR_ENV1=value1']}],"
		"'createRuntime':[{'path':'/usr/local/bin/cr-vendor-hook','args':['--debug'],'env':['VENDOR_ENV2=value2']}],"
		"'createContainer':[{'path':'/usr/local/bin/cc-vendor-hook','args':['--create'],'env':['VENDOR_ENV3=value3']}],"
		"'startContainer':[{'path':'/usr/local/bin/sc-vendor-hook','args':['--start'],'env':['VENDOR_ENV4=value4']}],"
		"'poststart':[{'path':'/usr/local/bin/poststart-vendor-hook','env':['VENDOR_ENV5=value5']}],"
		"'poststop':[{'path':'/usr/local/bin/poststop-vendor-hook'}]}}");
}

Test(edits_hooks, appended_after_existing_timeout_kept)
{
	check_apply("{'hooks':{'createContainer':[{'path':'/old'}]}}",
		    "{'hooks':[{'hookName':'createContainer','path':'/new','args':[],'timeout':0},"
		    "{'hookName':'createContainer','path':'/new2','timeout':7}]}",
		    "{'hooks':{'createContainer':[{'path':'/old'},{'path':'/new','timeout':0},"
		    "{'path':'/new2','timeout':7}]}}");
}

Test(edits_hooks, unknown_hook_name)
{
	check_fail("{}", "{'env':['A=1'],'hooks':[{'hookName':'misCreateRuntime','path':'/x'}]}",
		   "unknown hook name \"misCreateRuntime\"");
}

/* ---- TestApplyContainerEdits: intelRdt ---- */

Test(edits_rdt, set)
{
	check_apply(
		"{}",
		"{'intelRdt':{'closID':'clos-1','l3CacheSchema':'L3:0=ff;1=ff','memBwSchema':'MB:0=50;1=50',"
		"'schemata':['L2:0=ffff'],'enableMonitoring':true}}",
		"{'linux':{'intelRdt':{'closID':'clos-1','l3CacheSchema':'L3:0=ff;1=ff',"
		"'memBwSchema':'MB:0=50;1=50','schemata':['L2:0=ffff'],'enableMonitoring':true}}}");
}

Test(edits_rdt, replaced_whole)
{
	check_apply(
		"{'linux':{'intelRdt':{'closID':'clos-1','l3CacheSchema':'L3:0=ff','memBwSchema':'MB:0=100',"
		"'schemata':['L2:0=ffff'],'enableMonitoring':true}}}",
		"{'intelRdt':{'closID':'clos-2','l3CacheSchema':'L3:0=f','enableMonitoring':false}}",
		"{'linux':{'intelRdt':{'closID':'clos-2','l3CacheSchema':'L3:0=f'}}}");
}

Test(edits_rdt, empty_object_still_set)
{
	check_apply("{}", "{'intelRdt':{}}", "{'linux':{'intelRdt':{}}}");
}

/* ---- TestApplyContainerEdits: netDevices ---- */

Test(edits_net, add)
{
	check_apply(
		"{}",
		"{'netDevices':[{'hostInterfaceName':'eno1','name':'netdev0'},"
		"{'hostInterfaceName':'eno2','name':'netdev1'}]}",
		"{'linux':{'netDevices':{'eno1':{'name':'netdev0'},'eno2':{'name':'netdev1'}}}}");
}

Test(edits_net, overwrite)
{
	check_apply(
		"{'linux':{'netDevices':{'eno1':{'name':'netdev1'}}}}",
		"{'netDevices':[{'hostInterfaceName':'eno1','name':'netdev2'},"
		"{'hostInterfaceName':'eno2','name':'netdev1'}]}",
		"{'linux':{'netDevices':{'eno1':{'name':'netdev2'},'eno2':{'name':'netdev1'}}}}");
}

/* ---- TestApplyContainerEdits: additionalGids ---- */

#define GIDS(list) "{'process':{'user':{'uid':0,'gid':0,'additionalGids':" list "},'cwd':''}}"

Test(edits_gids, add)
{
	check_apply("{}", "{'additionalGids':[4,5,6]}", GIDS("[4,5,6]"));
}

Test(edits_gids, existing_not_duplicated)
{
	check_apply(GIDS("[4]"), "{'additionalGids':[4,5]}", GIDS("[4,5]"));
}

Test(edits_gids, dedup_within_edits)
{
	check_apply("{}", "{'additionalGids':[4,5,6,5,6,4]}", GIDS("[4,5,6]"));
}

Test(edits_gids, zero_ignored_no_process_created)
{
	check_apply("{}", "{'additionalGids':[0]}", "{}");
}

Test(edits_gids, process_without_user)
{
	check_apply("{'process':{'cwd':'/'}}", "{'additionalGids':[9]}",
		    "{'process':{'cwd':'/','user':{'uid':0,'gid':0,'additionalGids':[9]}}}");
}

/* ---- TestAppend: merged edit sets (inject applies them as one) ---- */

static void check_sources(const char *oci, const char *const *edits, size_t n, const char *want)
{
	struct cdi_edit_source src[8] = { 0 };
	json_t *o = load(oci), *w = load(want);
	struct cdi_error err = { 0 };

	cr_assert_leq(n, 8);
	for (size_t i = 0; i < n; i++)
		src[i].edits = edits[i] ? load(edits[i]) : NULL;
	cr_assert_eq(cdi_apply_edit_sources(o, src, n, &fake, &err), 0, "%s",
		     cdi_error_message(&err));
	assert_json_eq(o, w);
	for (size_t i = 0; i < n; i++)
		json_decref((json_t *)src[i].edits);
	json_decref(o);
	json_decref(w);
}

Test(edits_append, nil_and_nil)
{
	const char *e[] = { NULL, NULL };

	check_sources("{}", e, 2, "{}");
}

Test(edits_append, nil_plus_env)
{
	const char *e[] = { NULL, "{'env':['var1=val1']}" };

	check_sources("{}", e, 2, "{" PROCESS("['var1=val1']") "}");
}

Test(edits_append, env_plus_nil)
{
	const char *e[] = { "{'env':['var1=val1']}", NULL };

	check_sources("{}", e, 2, "{" PROCESS("['var1=val1']") "}");
}

Test(edits_append, four_sets_concatenate_rdt_last_wins)
{
	const char *e[] = {
		"{'env':['var0=val0']}",
		"{'env':['var1=val1'],'deviceNodes':[{'path':'/dev/dev1'}],"
		"'intelRdt':{'closID':'clos-1','l3CacheSchema':'L3:0=ff','schemata':['L2: 0xFFFF']}}",
		"{'env':['var2=val2','var3=val3'],'deviceNodes':[{'path':'/dev/dev2'},{'path':'/dev/dev3'}]}",
		"{'env':['var4=val4'],'deviceNodes':[{'path':'/dev/dev4'}],'intelRdt':{'closID':'clos-2'}}",
	};
	json_t *o = load("{}");
	struct cdi_edit_source src[4];
	struct cdi_error err = { 0 };
	json_t *devs, *want_env;

	for (size_t i = 0; i < 4; i++)
		src[i] = (struct cdi_edit_source){ .edits = load(e[i]) };
	cr_assert_eq(cdi_apply_edit_sources(o, src, 4, &fake, &err), 0, "%s",
		     cdi_error_message(&err));
	want_env = load("['var0=val0','var1=val1','var2=val2','var3=val3','var4=val4']");
	assert_json_eq(json_object_get(json_object_get(o, "process"), "env"), want_env);
	devs = json_object_get(json_object_get(o, "linux"), "devices");
	cr_assert_eq(json_array_size(devs), 4);
	for (size_t i = 0; i < 4; i++) {
		char path[16];

		snprintf(path, sizeof(path), "/dev/dev%zu", i + 1);
		cr_assert_str_eq(
			json_string_value(json_object_get(json_array_get(devs, i), "path")), path);
	}
	json_decref(want_env);
	want_env = load("{'closID':'clos-2'}");
	assert_json_eq(json_object_get(json_object_get(o, "linux"), "intelRdt"), want_env);
	for (size_t i = 0; i < 4; i++)
		json_decref((json_t *)src[i].edits);
	json_decref(want_env);
	json_decref(o);
}

Test(edits_append, gids_concatenated_then_deduplicated)
{
	/* Append gives [5,0,5,6,7,6]; Apply skips 0 and duplicates. */
	const char *e[] = { "{'additionalGids':[5]}", "{'additionalGids':[0]}",
			    "{'additionalGids':[5]}", "{'additionalGids':[6,7,6]}" };

	check_sources("{}", e, 4, GIDS("[5,6,7]"));
}

Test(edits_append, env_step_runs_over_all_sets_before_devices)
{
	/* One Apply over the merged edits: a later set's env overrides an earlier one in place. */
	const char *e[] = { "{'env':['A=1','B=1']}", "{'env':['A=2']}" };

	check_sources("{}", e, 2, "{" PROCESS("['A=2','B=1']") "}");
}

Test(edits_append, problem_names_source_file_and_field)
{
	struct cdi_edit_source src[2] = {
		{ .edits = load("{'env':['A=1']}"),
		  .file = "/etc/cdi/a.yaml",
		  .field = "containerEdits" },
		{ .edits = load("{'deviceNodes':[{'path':'/dev/null'},{'path':'/dev/gone'}]}"),
		  .file = "/etc/cdi/a.yaml",
		  .field = "devices[3].containerEdits" },
	};
	json_t *o = load("{}");
	struct cdi_error err = { 0 };

	cr_assert_lt(cdi_apply_edit_sources(o, src, 2, &fake, &err), 0);
	cr_assert_eq(cdi_error_count(&err), 1);
	cr_assert_str_eq(cdi_problem_file(cdi_error_problem(&err, 0)), "/etc/cdi/a.yaml");
	cr_assert_str_eq(cdi_problem_field(cdi_error_problem(&err, 0)),
			 "devices[3].containerEdits.deviceNodes[1]");
	cr_assert_str_eq(
		cdi_problem_text(cdi_error_problem(&err, 0)),
		"/etc/cdi/a.yaml: devices[3].containerEdits.deviceNodes[1]: failed to stat CDI "
		"host device \"/dev/gone\": No such file or directory");
	cr_assert_eq(json_object_size(o), 0);
	cdi_error_reset(&err);
	json_decref((json_t *)src[0].edits);
	json_decref((json_t *)src[1].edits);
	json_decref(o);
}

/* ---- beyond the reference: preservation, all or nothing, robustness ---- */

Test(edits_preserve, unknown_fields_and_key_order_survive)
{
	const char *in =
		"{'ociVersion':'1.2.0','x-vendor':{'keep':[1,2.5,null,true]},"
		"'process':{'terminal':false,'user':{'uid':0,'gid':0,'umask':18},"
		"'env':['PATH=/bin'],'cwd':'/','ioPriority':{'class':'IOPRIO_CLASS_RT'}},"
		"'linux':{'seccomp':{'defaultAction':'SCMP_ACT_ERRNO'},'devices':[],"
		"'resources':{'memory':{'limit':1024},'devices':[{'allow':false,'access':'rwm'}]},"
		"'personality':{'domain':'LINUX'}},"
		"'mounts':[{'destination':'/proc','type':'proc','source':'proc','uidMappings':[]}],"
		"'annotations':{'a':'b'}}";
	const char *want =
		"{'ociVersion':'1.2.0','x-vendor':{'keep':[1,2.5,null,true]},"
		"'process':{'terminal':false,'user':{'uid':0,'gid':0,'umask':18},"
		"'env':['PATH=/bin','X=1'],'cwd':'/','ioPriority':{'class':'IOPRIO_CLASS_RT'}},"
		"'linux':{'seccomp':{'defaultAction':'SCMP_ACT_ERRNO'},'devices':["
		"{'path':'/dev/null','type':'c','major':1,'minor':3,'fileMode':438}],"
		"'resources':{'memory':{'limit':1024},'devices':[{'allow':false,'access':'rwm'},"
		"{'allow':true,'type':'c','major':1,'minor':3,'access':'rwm'}]},"
		"'personality':{'domain':'LINUX'}},"
		"'mounts':[{'destination':'/proc','type':'proc','source':'proc','uidMappings':[]},"
		"{'destination':'/x/y','source':'/h'}],"
		"'annotations':{'a':'b'}}";
	json_t *o = load(in), *w = load(want);
	json_t *e = load("{'env':['X=1'],'deviceNodes':[{'path':'/dev/null'}],"
			 "'mounts':[{'hostPath':'/h','containerPath':'/x/y'}]}");
	struct cdi_error err = { 0 };
	char *got, *exp;

	cr_assert_eq(cdi_apply_edits(o, e, &fake, &err), 0, "%s", cdi_error_message(&err));
	got = json_dumps(o, JSON_COMPACT);
	exp = json_dumps(w, JSON_COMPACT);
	/* Byte comparison: the same keys in the same order. */
	cr_assert_str_eq(got, exp);
	free(got);
	free(exp);
	json_decref(o);
	json_decref(w);
	json_decref(e);
}

Test(edits_preserve, caller_subtrees_not_mutated)
{
	/* The caller may hold references into its tree; applying replaces, never edits, them. */
	json_t *o = load(
		"{'process':{'env':['A=1']},'linux':{'devices':[{'path':'/dev/zero','type':'c','major':1,'minor':5}]}}");
	json_t *old_env = json_incref(json_object_get(json_object_get(o, "process"), "env"));
	json_t *old_devs = json_incref(json_object_get(json_object_get(o, "linux"), "devices"));
	json_t *e = load("{'env':['A=2','B=1'],'deviceNodes':[{'path':'/dev/zero'}]}");
	struct cdi_error err = { 0 };
	json_t *want_env = load("['A=1']");

	cr_assert_eq(cdi_apply_edits(o, e, &fake, &err), 0, "%s", cdi_error_message(&err));
	assert_json_eq(old_env, want_env);
	cr_assert_eq(json_array_size(old_devs), 1);
	cr_assert_null(json_object_get(json_array_get(old_devs, 0), "fileMode"));
	cr_assert_eq(json_array_size(json_object_get(json_object_get(o, "process"), "env")), 2);
	json_decref(old_env);
	json_decref(old_devs);
	json_decref(want_env);
	json_decref(o);
	json_decref(e);
}

Test(edits_fail, wrong_oci_types_untouched)
{
	check_fail("{'process':{'env':'PATH=/bin'}}", "{'env':['A=1']}",
		   "process.env: OCI spec field is not an array");
	check_fail("{'process':[]}", "{'env':['A=1']}", "process: OCI spec field is not an object");
	check_fail("{'linux':{'devices':{}}}",
		   "{'env':['A=1'],'deviceNodes':[{'path':'/dev/null'}]}",
		   "linux.devices: OCI spec field is not an array");
	check_fail("{'mounts':{}}", "{'mounts':[{'hostPath':'/a','containerPath':'/b'}]}",
		   "mounts: OCI spec field is not an array");
	check_fail("{'hooks':{'poststop':{}}}", "{'hooks':[{'hookName':'poststop','path':'/x'}]}",
		   "hooks.poststop: OCI spec field is not an array");
	check_fail("{'process':{'env':[1]}}", "{'env':['A=1']}",
		   "process.env: OCI spec entry 0 is not a string");
}

Test(edits_fail, wrong_edit_types)
{
	check_fail("{}", "{'env':'A=1'}", "containerEdits.env: is not an array");
	check_fail("{}", "{'env':[3]}", "entry 0 is not a string");
	check_fail("{}", "{'deviceNodes':[{'path':'/dev/null','major':'1'}]}",
		   "containerEdits.deviceNodes[0]: major is not an integer");
	check_fail("{}", "{'deviceNodes':[{'type':'c','major':1}]}", "invalid (empty) device path");
	check_fail("{}", "{'mounts':[{'hostPath':'/a'}]}",
		   "hostPath and containerPath must be strings");
	check_fail("{}", "{'additionalGids':[-1]}", "entry 0 is not a uint32");
	check_fail("{}", "{'intelRdt':{'closID':5}}", "closID is not a string");
	check_fail("{}", "{'netDevices':[{'name':'x'}]}",
		   "hostInterfaceName and name must be strings");
}

Test(edits_fail, not_an_object)
{
	json_t *a = json_array(), *e = load("{'env':['A=1']}");
	struct cdi_error err = { 0 };

	cr_assert_eq(cdi_apply_edits(a, e, &fake, &err), -EINVAL);
	cr_assert_eq(cdi_apply_edits(a, NULL, &fake, &err), -EINVAL);
	cdi_error_reset(&err);
	json_decref(a);
	json_decref(e);
}

Test(edits_fail, null_values_are_absent)
{
	/* Go decodes null into a nil pointer or slice: the field is created as if missing. */
	check_apply("{'process':null,'linux':null}",
		    "{'env':['A=1'],'deviceNodes':null,'intelRdt':null}",
		    "{" PROCESS("['A=1']") ",'linux':null}");
}

/* ---- filepath.Clean, which orders mounts ---- */

Test(edits_path, go_clean_vectors)
{
	/* path/filepath TestClean (unix). */
	static const char *const cases[][2] = {
		{ "", "." },
		{ "abc", "abc" },
		{ "abc/def", "abc/def" },
		{ "a/b/c", "a/b/c" },
		{ ".", "." },
		{ "..", ".." },
		{ "../..", "../.." },
		{ "../../abc", "../../abc" },
		{ "/abc", "/abc" },
		{ "/", "/" },
		{ "abc/", "abc" },
		{ "abc/def/", "abc/def" },
		{ "/abc/", "/abc" },
		{ "//abc", "/abc" },
		{ "///abc", "/abc" },
		{ "//abc//", "/abc" },
		{ "abc//def//ghi", "abc/def/ghi" },
		{ "abc/./def", "abc/def" },
		{ "/./abc/def", "/abc/def" },
		{ "abc/.", "abc" },
		{ "abc/def/ghi/../jkl", "abc/def/jkl" },
		{ "abc/def/../ghi/../jkl", "abc/jkl" },
		{ "abc/def/..", "abc" },
		{ "abc/def/../..", "." },
		{ "/abc/def/../..", "/" },
		{ "abc/def/../../..", ".." },
		{ "/abc/def/../../..", "/" },
		{ "abc/def/../../../ghi/jkl/../../../mno", "../../mno" },
		{ "/../abc", "/abc" },
		{ "abc/./../def", "def" },
		{ "abc//./../def", "def" },
		{ "abc/../../././../def", "../../def" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *c = cdi_path_clean(cases[i][0]);
		size_t slashes = 0;

		cr_assert_str_eq(c, cases[i][1], "Clean(%s)", cases[i][0]);
		for (const char *p = c; *p; p++)
			slashes += *p == '/';
		cr_assert_eq(cdi_path_clean_depth(cases[i][0], strlen(cases[i][0])), slashes);
		free(c);
	}
}

/* The depth of paths already clean is counted without cleaning them: against Clean() on every
 * path of up to five components from "", ".", "..", "a" and "bc", relative and absolute, with
 * and without a trailing slash. */
Test(edits_path, depth_agrees_with_clean_on_every_small_path)
{
	static const char *const parts[] = { "", ".", "..", "a", "bc" };
	char buf[64];

	for (unsigned n = 0; n <= 5; n++) {
		unsigned total = 1;

		for (unsigned k = 0; k < n; k++)
			total *= ELEMENTSOF(parts);
		for (unsigned code = 0; code < total; code++)
			for (unsigned form = 0; form < 4; form++) {
				size_t len = 0, slashes = 0;
				unsigned c = code;
				char *clean;

				if (form & 1)
					buf[len++] = '/';
				for (unsigned k = 0; k < n; k++, c /= ELEMENTSOF(parts)) {
					const char *p = parts[c % ELEMENTSOF(parts)];

					if (k)
						buf[len++] = '/';
					memcpy(buf + len, p, strlen(p));
					len += strlen(p);
				}
				if (form & 2)
					buf[len++] = '/';
				buf[len] = '\0';
				clean = cdi_path_clean(buf);
				for (const char *q = clean; *q; q++)
					slashes += *q == '/';
				cr_assert_eq(cdi_path_clean_depth(buf, len), slashes, "\"%s\" (%s)",
					     buf, clean);
				free(clean);
			}
	}
}

Test(edits_path, long_path_depth)
{
	char buf[1200];
	size_t n = 0;

	for (int i = 0; i < 300; i++)
		n += snprintf(buf + n, sizeof(buf) - n, "/a");
	cr_assert_eq(cdi_path_clean_depth(buf, n), 300);
}

/* ---- the string map behind the env index and path look-ups ---- */

Test(edits_strmap, grows_and_overwrites)
{
	struct cdi_strmap m = { 0 };
	char keys[1000][8];

	for (size_t i = 0; i < 1000; i++) {
		snprintf(keys[i], sizeof(keys[i]), "k%zu", i);
		cr_assert_eq(cdi_strmap_put(&m, keys[i], strlen(keys[i]), i), 0);
	}
	cr_assert_eq(m.n, 1000);
	for (size_t i = 0; i < 1000; i++)
		cr_assert_eq(*cdi_strmap_get(&m, keys[i], strlen(keys[i])), i);
	cr_assert_eq(cdi_strmap_put(&m, keys[7], strlen(keys[7]), 42), 0);
	cr_assert_eq(*cdi_strmap_get(&m, "k7", 2), 42);
	cr_assert_eq(m.n, 1000);
	cr_assert_null(cdi_strmap_get(&m, "k1000", 5));
	cr_assert_null(cdi_strmap_get(&m, "k1", 1)); /* length counts */
	cdi_strmap_free(&m);
	cr_assert_null(cdi_strmap_get(&m, "k1", 2));
}

Test(edits_scale, many_nodes_and_mounts_linear)
{
	/* 4000 devices and mounts replacing each other: finishes fast, right result. */
	json_t *o = json_object(), *e = json_object(), *nodes = json_array(),
	       *mounts = json_array();
	struct cdi_error err = { 0 };

	for (int i = 0; i < 4000; i++) {
		char p[32];

		snprintf(p, sizeof(p), "/dev/n%d", i % 2000);
		json_array_append_new(nodes, json_pack("{s:s,s:s,s:i,s:i}", "path", p, "type", "c",
						       "major", 1, "minor", i));
		snprintf(p, sizeof(p), "/m/%d", i % 2000);
		json_array_append_new(mounts,
				      json_pack("{s:s,s:s}", "hostPath", "/h", "containerPath", p));
	}
	json_object_set_new(e, "deviceNodes", nodes);
	json_object_set_new(e, "mounts", mounts);
	cr_assert_eq(cdi_apply_edits(o, e, &fake, &err), 0, "%s", cdi_error_message(&err));
	cr_assert_eq(json_array_size(json_object_get(json_object_get(o, "linux"), "devices")),
		     2000);
	cr_assert_eq(json_array_size(json_object_get(o, "mounts")), 2000);
	cr_assert_eq(
		json_integer_value(json_object_get(
			json_array_get(json_object_get(json_object_get(o, "linux"), "devices"), 0),
			"minor")),
		2000);
	json_decref(o);
	json_decref(e);
}

/* ---- the serialiser cdi-apply writes with: byte-identical to json_dumps ---- */

static void check_dump(const json_t *j)
{
	static const unsigned indents[] = { 0, 1, 2, 4, 8 };

	for (size_t i = 0; i < sizeof(indents) / sizeof(indents[0]); i++) {
		size_t flags = indents[i] ? JSON_INDENT(indents[i]) : JSON_COMPACT, len = 0;
		char *want = json_dumps(j, flags), *got = cdi_json_dump(j, indents[i], false, &len);

		cr_assert_not_null(got);
		cr_assert_str_eq(got, want, "indent %u", indents[i]);
		cr_assert_eq(len, strlen(want));
		free(want);
		free(got);
	}
}

/* The word-at-a-time scan: every special byte at every offset of strings long enough to
 * cross several 8-byte words, and bytes next to the special ones (0x1f/0x20, '!'/'#', '['/']',
 * '~'/0x7f). */
Test(edits_dump, escapes_at_every_offset)
{
	static const char specials[] = { '"', '\\', '\n', '\x01', '\x1f', '\x7f',
					 ' ', '!',  '#',  '[',	  ']',	  '~' };

	for (size_t k = 0; k < sizeof(specials); k++) {
		for (size_t len = 1; len <= 27; len++) {
			for (size_t at = 0; at < len; at++) {
				char str[32];
				json_t *j;

				memset(str, 'a', len);
				str[at] = specials[k];
				str[len] = 0;
				j = json_pack("[s]", str);
				cr_assert_not_null(j);
				check_dump(j);
				json_decref(j);
			}
		}
	}
}

Test(edits_dump, same_bytes_as_jansson)
{
	json_t *j = load("{'a':{},'b':[],'c':[{},[],[[]],{'x':{}}],'d':null,'e':true,'f':false,"
			 "'g':-9223372036854775807,'h':0,'i':1.5,'j':1e300,'k':-0.000001,'l':3.0,"
			 "'m':'plain','n':'\\u00e9\\u4e2d\\ud83d\\ude00','o':'q\\\"b\\\\s/',"
			 "'p':'\\b\\f\\n\\r\\t\\u0001\\u001f\\u007f','':''}");

	check_dump(j);
	/* Keys are written in their stored order, escaped like values. */
	json_object_set_new(j, "z\n\"key\"", json_string("v"));
	json_object_set_new(j, "a", json_integer(1));
	check_dump(j);
	json_decref(j);
	j = load("[1,'two',[3,[4,{'five':5}]]]");
	check_dump(j);
	json_decref(j);
	j = load("{}");
	check_dump(j);
	json_decref(j);
}

Test(edits_dump, example_config_and_tabs)
{
	json_error_t jerr;
	json_t *j = json_load_file("examples/config.json", 0, &jerr);
	char *want, *got;

	if (!j)
		cr_skip_test("examples/config.json: %s", jerr.text);
	check_dump(j);
	/* Tabs: jansson's indent 1 with every leading blank a tab. */
	want = json_dumps(j, JSON_INDENT(1));
	for (char *p = want, bol = 1; *p; p++) {
		if (*p == '\n')
			bol = 1;
		else if (bol && *p == ' ')
			*p = '\t';
		else
			bol = 0;
	}
	got = cdi_json_dump(j, 1, true, NULL);
	cr_assert_str_eq(got, want);
	free(want);
	free(got);
	json_decref(j);
}
