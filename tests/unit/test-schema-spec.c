/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The spec object (schema/spec.c): loading files and buffers through the YAML and JSON
 * loaders, validation with positions, accessors. Reference vectors from pkg/cdi/spec_test.go
 * and the schema testdata of the Debian-packaged reference.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include <cdi/spec.h>

#include "check.h"

#define REF_TESTDATA                                                                               \
	"/usr/share/gocode/src/github.com/container-orchestrated-devices/container-device-interface/schema/testdata"

/* Load text as a spec named name; compare the problems (NULL-terminated) in order. */
static int load_expect(const char *name, const char *text, unsigned flags, cdi_spec **ret, ...)
{
	struct cdi_error err = { 0 };
	cdi_spec *spec = NULL;
	const char *want;
	size_t i = 0;
	va_list ap;
	int r;

	r = cdi_spec_load_buffer(name, text, strlen(text), flags, &spec, &err);
	va_start(ap, ret);
	while ((want = va_arg(ap, const char *))) {
		cr_expect_lt(i, cdi_error_count(&err), "missing problem %zu: %s\n  in %s", i, want,
			     text);
		if (i < cdi_error_count(&err))
			cr_expect_str_eq(cdi_problem_text(cdi_error_problem(&err, i)), want,
					 "problem %zu:\n  got  %s\n  want %s", i,
					 cdi_problem_text(cdi_error_problem(&err, i)), want);
		i++;
	}
	va_end(ap);
	for (; i < cdi_error_count(&err); i++)
		cr_expect_fail("unexpected problem: %s\n  in %s",
			       cdi_problem_text(cdi_error_problem(&err, i)), text);
	if (r == 0) {
		cr_expect_not_null(spec);
		cr_expect_eq(cdi_error_count(&err), 0);
	} else {
		cr_expect_null(spec, "no spec on failure");
		cr_expect_eq(cdi_error_code(&err), r);
	}
	cdi_error_reset(&err);
	if (ret)
		*ret = spec;
	else
		cdi_spec_free(spec);
	return r;
}

#define BASE_YAML                                                                                  \
	"cdiVersion: \"0.3.0\"\n"                                                                  \
	"kind: vendor.com/device\n"

#define DEV1_YAML                                                                                  \
	"  - name: dev1\n"                                                                         \
	"    containerEdits:\n"                                                                    \
	"      env:\n"                                                                             \
	"        - FOO=BAR\n"

/* Reference: pkg/cdi/spec_test.go TestReadSpec. */
Test(spec, spec_test_read_spec)
{
	cdi_spec *spec;

	cr_expect_eq(load_expect("g.yaml", "xyzzy: garbled\n", 0, NULL,
				 "g.yaml:1:8: unknown field \"xyzzy\"",
				 "g.yaml:1:1: missing required field \"cdiVersion\"",
				 "g.yaml:1:1: missing required field \"kind\"",
				 "g.yaml:1:1: missing required field \"devices\"", NULL),
		     -EINVAL);
	cr_expect_eq(load_expect("nv.yaml", "kind: vendor.com/device\ndevices:\n" DEV1_YAML, 0,
				 NULL, "nv.yaml:1:1: missing required field \"cdiVersion\"", NULL),
		     -EINVAL);
	cr_expect_eq(
		load_expect("e.yaml", "", 0, NULL, "e.yaml: no spec data (empty document)", NULL),
		-ENODATA);
	cr_expect_eq(load_expect("b.yaml", BASE_YAML "devices:\n" DEV1_YAML, 0, &spec, NULL), 0);
	cr_expect_str_eq(cdi_spec_version(spec), "0.3.0");
	cdi_spec_free(spec);
}

/* Reference: spec_test.go TestNewSpec, the same cases through YAML, now with positions. */
Test(spec, spec_test_new_spec)
{
	load_expect("s.yaml",
		    "cdiVersion: \"0.0.0\"\nkind: vendor.com/device\ndevices:\n" DEV1_YAML, 0, NULL,
		    "s.yaml:1:13: cdiVersion: invalid version \"0.0.0\"", NULL);
	load_expect("s.yaml", "cdiVersion: \"0.3.0\"\ndevices:\n" DEV1_YAML, 0, NULL,
		    "s.yaml:1:1: missing required field \"kind\"", NULL);
	load_expect(
		"s.yaml", "cdiVersion: \"0.3.0\"\nkind: vendor.com-/device\ndevices:\n" DEV1_YAML,
		0, NULL,
		"s.yaml:2:7: kind: invalid vendor \"vendor.com-\": must end with a letter or digit",
		NULL);
	load_expect("s.yaml",
		    "cdiVersion: \"0.3.0\"\nkind: vendor.com/device=\ndevices:\n" DEV1_YAML, 0,
		    NULL,
		    "s.yaml:2:7: kind: invalid class \"device=\": must end with a letter or digit",
		    NULL);
	load_expect("s.yaml", BASE_YAML "devices:\n  - name: dev1\n", 0, NULL,
		    "s.yaml:4:5: devices[0].containerEdits: device \"dev1\" has no container edits",
		    NULL);
	load_expect(
		"s.yaml",
		BASE_YAML "devices:\n" DEV1_YAML
			  "  - name: dev2\n    containerEdits:\n      env: [BAR=FOO]\n" DEV1_YAML,
		0, NULL,
		"s.yaml:11:11: devices[2].name: duplicate device name \"dev1\" (first at line 4)",
		NULL);
	load_expect("s.yaml",
		    BASE_YAML "devices:\n" DEV1_YAML
			      "  - name: dev2\n    containerEdits:\n      env: [BAR=FOO]\n"
			      "  - name: dev3\n    containerEdits:\n      env: [SPACE=BAR]\n",
		    0, NULL, NULL);
}

/* Reference: spec_test.go TestGetters (vendor, class, devices) and the v0.4.0 tmpfs spec. */
Test(spec, spec_test_getters)
{
	cdi_spec *spec = NULL;
	const char *text = "cdiVersion: \"v0.4.0\"\n"
			   "kind: vendor.com/device\n"
			   "devices:\n"
			   "  - name: dev1\n"
			   "    containerEdits:\n"
			   "      env: [FOO=BAR]\n"
			   "      mounts:\n"
			   "        - hostPath: tmpfs\n"
			   "          containerPath: /usr/local/container\n"
			   "          type: tmpfs\n"
			   "          options: [ro, mode=755, size=65536k]\n"
			   "  - name: dev2\n"
			   "    containerEdits:\n"
			   "      env: [BAR=FOO]\n";

	cr_assert_eq(load_expect("/etc/cdi/vendor.yaml", text, 0, &spec, NULL), 0);
	cr_expect_str_eq(cdi_spec_vendor(spec), "vendor.com");
	cr_expect_str_eq(cdi_spec_class(spec), "device");
	cr_expect_str_eq(cdi_spec_path(spec), "/etc/cdi/vendor.yaml");
	cr_expect_str_eq(cdi_spec_version(spec), "0.4.0", "the leading v is stripped");
	cr_assert_eq(cdi_spec_device_count(spec), 2);
	cr_expect_str_eq(cdi_spec_device_name(spec, 0), "dev1");
	cr_expect_str_eq(cdi_spec_device_name(spec, 1), "dev2");
	cr_expect_eq(cdi_spec_device(spec, 1),
		     json_array_get(json_object_get(cdi_spec_json(spec), "devices"), 1));
	cr_expect_null(cdi_spec_device(spec, 2));
	cr_expect_null(cdi_spec_device_name(spec, 2));
	cr_expect_str_eq(json_string_value(json_object_get(cdi_spec_json(spec), "cdiVersion")),
			 "v0.4.0", "the tree keeps what the file says");
	cdi_spec_free(spec);
}

Test(spec, accessors_null)
{
	cdi_spec_free(NULL);
	cr_expect_null(cdi_spec_json(NULL));
	cr_expect_null(cdi_spec_path(NULL));
	cr_expect_null(cdi_spec_vendor(NULL));
	cr_expect_null(cdi_spec_class(NULL));
	cr_expect_null(cdi_spec_version(NULL));
	cr_expect_eq(cdi_spec_device_count(NULL), 0);
	cr_expect_null(cdi_spec_device(NULL, 0));
	cr_expect_null(cdi_spec_device_name(NULL, 0));
}

/* The reference's own schema testdata, read from the Debian package. */
Test(spec, reference_schema_testdata)
{
	static const char *const good[] = { REF_TESTDATA "/good/minimal.json",
					    REF_TESTDATA "/good/spec-example.json" };
	struct cdi_error err = { 0 };
	cdi_spec *spec = NULL;

	if (access(REF_TESTDATA, F_OK) < 0)
		cr_skip_test("the Debian CNCF reference package is not installed");
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		cr_expect_eq(cdi_spec_load_file(good[i], 0, &spec, &err), 0, "%s: %s", good[i],
			     cdi_error_message(&err));
		cr_expect_str_eq(cdi_spec_device_name(spec, 0), "myDevice");
		cdi_spec_free(spec);
		spec = NULL;
		cdi_error_reset(&err);
	}
	/* bad/explicit-empty.json is "{}": three missing fields, with positions from the
	 * YAML re-read */
	cr_expect_eq(cdi_spec_load_file(REF_TESTDATA "/bad/explicit-empty.json", 0, &spec, &err),
		     -EINVAL);
	cr_expect_eq(cdi_error_count(&err), 3);
	cr_expect_str_eq(cdi_problem_text(cdi_error_problem(&err, 0)), REF_TESTDATA
			 "/bad/explicit-empty.json:1:1: missing required field \"cdiVersion\"");
	cdi_error_reset(&err);
	/* bad/empty.json has no bytes */
	cr_expect_eq(cdi_spec_load_file(REF_TESTDATA "/bad/empty.json", 0, &spec, &err), -ENODATA);
	cr_expect_str_eq(cdi_error_message(&err),
			 REF_TESTDATA "/bad/empty.json: no spec data (empty document)");
	cdi_error_reset(&err);
}

/* The example: file:line:col: field path: problem, every problem of the file. */
Test(spec, positions_yaml)
{
	const char *text =
		"---\n"
		"cdiVersion: 0.6.0\n"
		"kind: nvidia.com/gpu\n"
		"devices:\n"
		"- name: gpu0\n"
		"  containerEdits:\n"
		"    deviceNodes:\n"
		"    - path: /dev/nvidia0\n"
		"      type: f\n"
		"- name: gpu1\n"
		"  containerEdits:\n"
		"    env:\n"
		"    - FOO\n"
		"    - A=B\n"
		"    additionalGids: [1000]\n"
		"    hooks:\n"
		"    - {hookName: createContainer, path: /usr/bin/nvidia-cdi-hook, timout: 5}\n";

	load_expect(
		"nvidia.yaml", text, 0, NULL,
		"nvidia.yaml:17:75: devices[1].containerEdits.hooks[0]: unknown field \"timout\"",
		"nvidia.yaml:2:13: cdiVersion: the spec version must be at least v0.7.0 (devices[1].containerEdits.additionalGids needs it), got 0.6.0",
		"nvidia.yaml:9:13: devices[0].containerEdits.deviceNodes[0].type: invalid device node type \"f\" (want b, c, u or p)",
		"nvidia.yaml:13:7: devices[1].containerEdits.env[0]: \"FOO\" is not NAME=VALUE",
		NULL);
}

/* A missing field is reported at its parent; under strict, an unquoted number where a string
 * belongs (by default it converts, as in the reference). */
Test(spec, positions_missing_and_coerced)
{
	load_expect(
		"m.yaml",
		"cdiVersion: 1.0\n"
		"kind: vendor.com/device\n"
		"devices:\n"
		"  - name: 7\n"
		"    containerEdits:\n"
		"      mounts:\n"
		"        - containerPath: /x\n"
		"          options: [ro, 5]\n",
		CDI_LOAD_STRICT, NULL,
		"m.yaml:4:11: devices[0].name: expected a string, got the number 7 (write \"7\" in quotes)",
		"m.yaml:8:25: devices[0].containerEdits.mounts[0].options[1]: expected a string, got the number 5 (write \"5\" in quotes)",
		"m.yaml:7:11: devices[0].containerEdits.mounts[0]: missing required field \"hostPath\"",
		"m.yaml:1:13: cdiVersion: invalid version \"1\" (an unquoted 1.0 reads as the number 1; write \"1.0.0\")",
		NULL);
	/* a boolean has no mark of its own: its object's is used */
	load_expect(
		"b.yaml",
		BASE_YAML "devices:\n"
			  "  - name: d\n"
			  "    containerEdits:\n"
			  "      deviceNodes:\n"
			  "        - path: /dev/x\n"
			  "          uid: true\n",
		0, NULL,
		"b.yaml:7:11: devices[0].containerEdits.deviceNodes[0].uid: expected an integer, got a boolean",
		NULL);
}

/* JSON is read by jansson; its problems get positions from a YAML re-read. */
Test(spec, positions_json)
{
	const char *text =
		"{\n"
		"  \"cdiVersion\": \"0.3.0\",\n"
		"  \"kind\": \"vendor.com/device\",\n"
		"  \"devices\": [\n"
		"    {\n"
		"      \"name\": \"dev1\",\n"
		"      \"containerEdits\": {\"env\": [\"FOO\"], \"deviceNodes\": [{\"path\": \"/dev/x\", \"major\": \"7\"}]}\n"
		"    }\n"
		"  ]\n"
		"}\n";

	load_expect(
		"p.json", text, 0, NULL,
		"p.json:7:86: devices[0].containerEdits.deviceNodes[0].major: expected an integer, got the string \"7\"",
		"p.json:7:34: devices[0].containerEdits.env[0]: \"FOO\" is not NAME=VALUE", NULL);
}

/* The content decides the format, not the name; YAML flow style where JSON is stricter. */
Test(spec, formats)
{
	cdi_spec *spec = NULL;

	/* JSON in a .yaml file, YAML in a .json file */
	cr_expect_eq(
		load_expect(
			"j.yaml",
			"  \n{\"cdiVersion\":\"0.3.0\",\"kind\":\"v.com/c\",\"devices\":[{\"name\":\"d\",\"containerEdits\":{\"env\":[\"A=B\"]}}]}",
			0, NULL, NULL),
		0);
	cr_expect_eq(load_expect("y.json", BASE_YAML "devices:\n" DEV1_YAML, 0, NULL, NULL), 0);
	/* a trailing comma: not JSON, but YAML flow style, which the reference reads */
	cr_expect_eq(
		load_expect(
			"t.json",
			"{\"cdiVersion\":\"0.3.0\",\"kind\":\"vendor.com/device\",\"devices\":[{\"name\":\"dev1\",\"containerEdits\":{\"env\":[\"FOO=BAR\",]}}],}",
			0, &spec, NULL),
		0);
	cr_expect_str_eq(cdi_spec_device_name(spec, 0), "dev1");
	cdi_spec_free(spec);
	/* neither JSON nor YAML: jansson's complaint */
	{
		struct cdi_error err = { 0 };
		const char *bad = "{\"cdiVersion\": \"0.3.0\", \"kind\": ";

		cr_expect_eq(cdi_spec_load_buffer("x.json", bad, strlen(bad), 0, &spec, &err),
			     -EINVAL);
		cr_expect_geq(cdi_error_count(&err), 1);
		cr_expect_str_eq(cdi_problem_file(cdi_error_problem(&err, 0)), "x.json");
		cdi_error_reset(&err);
	}
	/* the root must be a mapping */
	load_expect("l.yaml", "- a\n- b\n", 0, NULL, "l.yaml:1:1: expected an object, got an array",
		    NULL);
	/* comments only, a lone document marker: no spec data */
	cr_expect_eq(load_expect("c.yaml", "# nothing here\n", 0, NULL,
				 "c.yaml: no spec data (empty document)", NULL),
		     -ENODATA);
	cr_expect_eq(load_expect("d.yaml", "---\n", 0, NULL,
				 "d.yaml: no spec data (empty document)", NULL),
		     -ENODATA);
}

Test(spec, strict_flag)
{
	const char *text = BASE_YAML "devices:\n"
				     "  - name: d\n"
				     "    containerEdits:\n"
				     "      hooks:\n"
				     "        - {hookName: poststop, path: bin/true, timeout: 0}\n";

	cr_expect_eq(load_expect("h.yaml", text, 0, NULL, NULL), 0);
	cr_expect_eq(
		load_expect(
			"h.yaml", text, CDI_LOAD_STRICT, NULL,
			"h.yaml:7:38: devices[0].containerEdits.hooks[0].path: \"bin/true\" is not an absolute path",
			"h.yaml:7:57: devices[0].containerEdits.hooks[0].timeout: timeout 0 is not positive",
			NULL),
		-EINVAL);
}

/* Loader problems (duplicate keys) come through with their positions. */
Test(spec, loader_problems)
{
	struct cdi_error err = { 0 };
	cdi_spec *spec = NULL;
	const char *text = BASE_YAML "kind: again\ndevices: []\n";

	cr_expect_eq(cdi_spec_load_buffer("k.yaml", text, strlen(text), 0, &spec, &err), -EINVAL);
	cr_expect_null(spec);
	cr_expect_eq(cdi_error_count(&err), 1);
	cr_expect_eq(strncmp(cdi_error_message(&err), "k.yaml:3:", 9), 0, "%s",
		     cdi_error_message(&err));
	cdi_error_reset(&err);

	text = "{\"cdiVersion\":\"0.3.0\",\"cdiVersion\":\"0.3.0\"}";
	cr_expect_eq(cdi_spec_load_buffer("k.json", text, strlen(text), 0, &spec, &err), -EINVAL);
	cr_expect_eq(cdi_error_count(&err), 1);
	cr_expect_str_eq(cdi_problem_file(cdi_error_problem(&err, 0)), "k.json");
	cdi_error_reset(&err);
}

static char *write_temp(const char *text, size_t len)
{
	char *path = strdup("/tmp/cdikit-test-spec-XXXXXX.yaml");
	int fd = mkstemps(path, 5);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, len), (ssize_t)len);
	close(fd);
	return path;
}

Test(spec, load_file)
{
	struct cdi_error err = { 0 };
	cdi_spec *spec = NULL;
	const char *text = BASE_YAML "devices:\n" DEV1_YAML;
	char *path = write_temp(text, strlen(text));

	cr_expect_eq(cdi_spec_load_file(path, 0, &spec, &err), 0, "%s", cdi_error_message(&err));
	cr_expect_str_eq(cdi_spec_path(spec), path);
	cr_expect_str_eq(cdi_spec_device_name(spec, 0), "dev1");
	cdi_spec_free(spec);
	spec = NULL;
	unlink(path);

	cr_expect_eq(cdi_spec_load_file(path, 0, &spec, &err), -ENOENT);
	cr_expect_null(spec);
	{
		char want[256];

		snprintf(want, sizeof(want), "%s: cannot read: No such file or directory", path);
		cr_expect_str_eq(cdi_error_message(&err), want);
	}
	cdi_error_reset(&err);
	free(path);

	cr_expect_eq(cdi_spec_load_file("/", 0, &spec, &err), -EISDIR);
	cr_expect_str_eq(cdi_error_message(&err), "/: is a directory");
	cdi_error_reset(&err);
	/* Only regular files: a device (or a FIFO) is refused before anything is read. */
	cr_expect_eq(cdi_spec_load_file("/dev/null", 0, &spec, &err), -EINVAL);
	cr_expect_str_eq(cdi_error_message(&err),
			 "/dev/null: not a regular file (a spec must be one)");
	cdi_error_reset(&err);
	cr_expect_eq(cdi_spec_load_file(NULL, 0, &spec, &err), -EINVAL);
	cdi_error_reset(&err);
}

/* Bounded: a file beyond CDI_SPEC_MAX_BYTES is not read (a sparse file costs nothing). */
Test(spec, too_large)
{
	struct cdi_error err = { 0 };
	cdi_spec *spec = NULL;
	char path[] = "/tmp/cdikit-test-big-XXXXXX";
	int fd = mkstemp(path);
	char want[256];

	cr_assert_geq(fd, 0);
	cr_assert_eq(ftruncate(fd, CDI_SPEC_MAX_BYTES + 1), 0);
	close(fd);
	cr_expect_eq(cdi_spec_load_file(path, 0, &spec, &err), -EFBIG);
	snprintf(want, sizeof(want), "%s: the spec is larger than the limit of 16777216 bytes",
		 path);
	cr_expect_str_eq(cdi_error_message(&err), want);
	cdi_error_reset(&err);
	unlink(path);

	cr_expect_eq(
		cdi_spec_load_buffer("big", "x", (size_t)CDI_SPEC_MAX_BYTES + 1, 0, &spec, &err),
		-EFBIG);
	cr_expect_str_eq(cdi_error_message(&err),
			 "big: the spec is 16777217 bytes, more than the limit of 16777216 bytes");
	cdi_error_reset(&err);
}

/* No place for the spec is a caller's mistake to report, not a crash. */
Test(spec, load_without_ret)
{
	static const char text[] = BASE_YAML "devices:\n" DEV1_YAML;
	struct cdi_error err = { 0 };

	cr_expect_eq(cdi_spec_load_buffer("r.yaml", text, strlen(text), 0, NULL, &err), -EINVAL);
	cr_expect_eq(cdi_error_count(&err), 1);
	cdi_error_reset(&err);
	cr_expect_eq(cdi_spec_load_file("/nonexistent/r.yaml", 0, NULL, &err), -EINVAL);
	cdi_error_reset(&err);
}

/* Messages that used to mislead. An unquoted integer beyond int64 where an integer belongs is
 * out of range (it is a number, not "the string"); quoted, it is a string. */
Test(spec, huge_integer_is_out_of_range)
{
	static const char text[] = BASE_YAML "devices:\n"
					     "  - name: dev1\n"
					     "    containerEdits:\n"
					     "      deviceNodes:\n"
					     "        - path: /dev/x\n"
					     "          major: 18446744073709551615\n"
					     "          minor: \"18446744073709551615\"\n";
	static const char json[] =
		"{\"cdiVersion\": \"0.3.0\", \"kind\": \"vendor.com/device\", \"devices\": [{\"name\": "
		"\"dev1\", \"containerEdits\": {\"deviceNodes\": [{\"path\": \"/dev/x\", \"major\": "
		"18446744073709551615}]}}]}";

	load_expect("h.yaml", text, 0, NULL,
		    "h.yaml:8:18: devices[0].containerEdits.deviceNodes[0].major: "
		    "18446744073709551615 is out of range for an int64",
		    "h.yaml:9:18: devices[0].containerEdits.deviceNodes[0].minor: expected an "
		    "integer, got the string \"18446744073709551615\"",
		    NULL);
	/* JSON too: jansson refuses it, the YAML reading of the JSON does not. */
	load_expect("h.json", json, 0, NULL,
		    "h.json:1:146: devices[0].containerEdits.deviceNodes[0].major: "
		    "18446744073709551615 is out of range for an int64",
		    NULL);
	/* In the registry's brief mode, with no second reading for positions. */
	load_expect("h.yaml", text, CDI_LOAD_FIRST_PROBLEM, NULL,
		    "h.yaml: devices[0].containerEdits.deviceNodes[0].major: 18446744073709551615 "
		    "is out of range for an int64",
		    NULL);
}

/* A NUL in a JSON string: say so, without jansson's flag name. */
Test(spec, json_nul_character)
{
	static const char json[] = "{\"cdiVersion\": \"0.3.0\", \"kind\": \"vendor.com/device\", "
				   "\"devices\": [{\"name\": \"a\\u0000b\"}]}";
	struct cdi_error err = CDI_ERROR_INIT;
	cdi_spec *spec = NULL;

	cr_expect_eq(cdi_spec_load_buffer("n.json", json, strlen(json), 0, &spec, &err), -EINVAL);
	cr_expect(strstr(cdi_error_message(&err), "string contains a NUL character (\\u0000)"),
		  "%s", cdi_error_message(&err));
	cr_expect_null(strstr(cdi_error_message(&err), "JSON_ALLOW_NUL"), "%s",
		       cdi_error_message(&err));
	cdi_error_reset(&err);
}

/* A 15 MB spec with more nodes than the limit and no alias is too large, not an alias bomb. */
Test(spec, many_nodes_without_alias_is_too_large, .timeout = 120)
{
	static const char head[] = BASE_YAML "devices:\n  - name: d\n    containerEdits:\n"
					     "      env:\n";
	size_t cap = 15u * 1024 * 1024, n;
	char *text = malloc(cap + 1);
	struct cdi_error err = CDI_ERROR_INIT;
	cdi_spec *spec = NULL;

	cr_assert_not_null(text);
	n = (size_t)snprintf(text, cap, "%s", head);
	while (n + 16 < cap)
		n += (size_t)snprintf(text + n, cap - n, "        - A=1\n");
	cr_expect_eq(cdi_spec_load_buffer("big.yaml", text, n, 0, &spec, &err), -EINVAL);
	cr_expect(strstr(cdi_error_message(&err), "too large: more than 1048576 nodes (the limit)"),
		  "%s", cdi_error_message(&err));
	cr_expect_null(strstr(cdi_error_message(&err), "alias"), "%s", cdi_error_message(&err));
	cdi_error_reset(&err);
	free(text);
}
