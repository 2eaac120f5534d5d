/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Deterministic emission: key order, quoting, number forms, and that what we
 * write reads back (through our own go-yaml v3 style loader) as what we had.
 * The quoting list was also checked by hand against PyYAML 6 (YAML 1.1),
 * go-yaml v2 (podman 4) and go-yaml v3: all read every string back as itself.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cdi/spec.h>

#include "load.h"
#include "problem.h"

static char *emit(const json_t *spec, enum cdi_format format, size_t *ret_len)
{
	struct cdi_error err = { 0 };
	char *buf = NULL;
	size_t len = 0;

	cr_assert_eq(cdi_spec_emit(spec, format, &buf, &len, &err), 0, "%s",
		     cdi_error_message(&err));
	cr_assert_not_null(buf);
	cr_assert_eq(strlen(buf), len);
	if (ret_len)
		*ret_len = len;
	return buf;
}

static json_t *parse(const char *text)
{
	struct cdi_error err = { 0 };
	json_t *root = NULL;

	cr_assert_eq(cdi_yaml_load("emitted.yaml", text, strlen(text), &root, NULL, &err), 0,
		     "%s\n%s", cdi_error_message(&err), text);
	return root;
}

/* Every object's keys deliberately in the wrong order, plus unknown keys. */
static json_t *shuffled_spec(void)
{
	json_t *spec = json_pack(
		"{s:{s:[s], s:[{s:s, s:s}], s:[i, i], s:{s:b, s:[s], s:s, s:s, s:s}, "
		"s:[{s:[s], s:s, s:s, s:s}], s:[{s:i, s:i, s:s, s:i, s:i, s:i, s:s, s:s, s:s}], "
		"s:[s, s]}, "
		"s:[{s:{s:[s]}, s:{s:s, s:s}, s:s}], s:{s:s, s:s, s:s}, s:s, s:s, s:s, s:i}",
		"containerEdits", "env", "B=2", "netDevices", "name", "eth1", "hostInterfaceName",
		"eth0", "additionalGids", 5, 6, "intelRdt", "enableMonitoring", 1, "schemata",
		"L3:0=f", "memBwSchema", "MB:0=50", "l3CacheSchema", "L3:0=ff", "closID", "c1",
		"mounts", "options", "ro", "type", "bind", "containerPath", "/c", "hostPath", "/h",
		"deviceNodes", "gid", 44, "uid", 0, "permissions", "rw", "fileMode", 438, "minor",
		1, "major", 195, "type", "c", "hostPath", "/dev/h", "path", "/dev/p", "hooks",
		"x-unknown", "y", /* an unknown element type is emitted as it is */
		"devices", "containerEdits", "env", "A=1", "annotations", "zeta", "1", "alpha", "2",
		"name", "gpu0", "annotations", "b", "2", "a", "1", "B", "3", "kind",
		"nvidia.com/gpu", "cdiVersion", "0.7.0", "zz-unknown", "u", "aa-unknown", 7);

	cr_assert_not_null(spec);
	/* hooks: replace the placeholder array by a real hook. */
	json_object_set_new(json_object_get(spec, "containerEdits"), "hooks",
			    json_pack("[{s:i, s:[s], s:[s, s], s:s, s:s}]", "timeout", 5, "env",
				      "E=1", "args", "ctk", "hook", "path", "/usr/bin/ctk",
				      "hookName", "createContainer"));
	return spec;
}

static const char golden_yaml[] = "---\n"
				  "cdiVersion: \"0.7.0\"\n"
				  "kind: nvidia.com/gpu\n"
				  "annotations:\n"
				  "  B: \"3\"\n"
				  "  a: \"1\"\n"
				  "  b: \"2\"\n"
				  "devices:\n"
				  "- name: gpu0\n"
				  "  annotations:\n"
				  "    alpha: \"2\"\n"
				  "    zeta: \"1\"\n"
				  "  containerEdits:\n"
				  "    env:\n"
				  "    - A=1\n"
				  "containerEdits:\n"
				  "  env:\n"
				  "  - B=2\n"
				  "  deviceNodes:\n"
				  "  - path: /dev/p\n"
				  "    hostPath: /dev/h\n"
				  "    type: c\n"
				  "    major: 195\n"
				  "    minor: 1\n"
				  "    fileMode: 438\n"
				  "    permissions: rw\n"
				  "    uid: 0\n"
				  "    gid: 44\n"
				  "  hooks:\n"
				  "  - hookName: createContainer\n"
				  "    path: /usr/bin/ctk\n"
				  "    args:\n"
				  "    - ctk\n"
				  "    - hook\n"
				  "    env:\n"
				  "    - E=1\n"
				  "    timeout: 5\n"
				  "  mounts:\n"
				  "  - hostPath: /h\n"
				  "    containerPath: /c\n"
				  "    type: bind\n"
				  "    options:\n"
				  "    - ro\n"
				  "  intelRdt:\n"
				  "    closID: c1\n"
				  "    l3CacheSchema: L3:0=ff\n"
				  "    memBwSchema: MB:0=50\n"
				  "    schemata:\n"
				  "    - L3:0=f\n"
				  "    enableMonitoring: true\n"
				  "  additionalGids:\n"
				  "  - 5\n"
				  "  - 6\n"
				  "  netDevices:\n"
				  "  - hostInterfaceName: eth0\n"
				  "    name: eth1\n"
				  "aa-unknown: 7\n"
				  "zz-unknown: u\n";

Test(emit, yaml_key_order)
{
	json_t *spec = shuffled_spec();
	char *yaml = emit(spec, CDI_FORMAT_YAML, NULL);

	cr_expect_str_eq(yaml, golden_yaml, "got:\n%s", yaml);
	free(yaml);
	json_decref(spec);
}

Test(emit, json_key_order)
{
	json_t *spec = shuffled_spec();
	size_t len;
	char *json = emit(spec, CDI_FORMAT_JSON, &len);
	const char *keys[] = { "\"cdiVersion\"",
			       "\"kind\"",
			       "\"annotations\"",
			       "\"B\"",
			       "\"a\"",
			       "\"b\"",
			       "\"devices\"",
			       "\"name\"",
			       "\"alpha\"",
			       "\"zeta\"",
			       "\"env\"",
			       "\"deviceNodes\"",
			       "\"path\"",
			       "\"hostPath\"",
			       "\"type\"",
			       "\"major\"",
			       "\"minor\"",
			       "\"fileMode\"",
			       "\"permissions\"",
			       "\"uid\"",
			       "\"gid\"",
			       "\"hooks\"",
			       "\"hookName\"",
			       "\"args\"",
			       "\"timeout\"",
			       "\"mounts\"",
			       "\"containerPath\"",
			       "\"options\"",
			       "\"intelRdt\"",
			       "\"closID\"",
			       "\"l3CacheSchema\"",
			       "\"memBwSchema\"",
			       "\"schemata\"",
			       "\"enableMonitoring\"",
			       "\"additionalGids\"",
			       "\"netDevices\"",
			       "\"hostInterfaceName\"",
			       "\"aa-unknown\"",
			       "\"zz-unknown\"" };
	const char *at = json;
	json_t *back;
	json_error_t jerr;

	cr_assert(strncmp(json, "{\n  \"cdiVersion\": \"0.7.0\",\n  \"kind\": ", 36) == 0, "%s",
		  json);
	cr_expect_eq(json[len - 1], '\n');
	cr_expect_eq(json[len - 2], '}');
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *p = strstr(at, keys[i]);

		cr_assert_not_null(p, "%s missing or out of order in\n%s", keys[i], json);
		at = p;
	}
	back = json_loads(json, 0, &jerr);
	cr_assert_not_null(back, "%s", jerr.text);
	cr_expect(json_equal(back, spec));
	json_decref(back);
	free(json);
	json_decref(spec);
}

Test(emit, unknown_and_annotation_keys_sort_bytewise)
{
	json_t *spec = json_pack("{s:{s:s, s:s, s:s, s:s}, s:s, s:{s:i, s:i}, s:i}", "annotations",
				 "b", "x", "B", "x", "a.b/c", "x", "a", "x", "kind", "v/c", "zz",
				 "y", 1, "Y", 2, "Z", 1);
	char *yaml = emit(spec, CDI_FORMAT_YAML, NULL);

	cr_expect_str_eq(yaml,
			 "---\nkind: v/c\nannotations:\n  B: x\n  a: x\n  a.b/c: x\n  b: x\n"
			 "Z: 1\nzz:\n  \"Y\": 2\n  \"y\": 1\n",
			 "got:\n%s", yaml);
	free(yaml);
	json_decref(spec);
}

/* Strings a YAML 1.1 or 1.2 reader could take for something else, or that break the syntax. */
static const char *const risky[] = {
	"",
	" ",
	"a ",
	" a",
	"yes",
	"Yes",
	"YES",
	"no",
	"No",
	"on",
	"On",
	"ON",
	"off",
	"Off",
	"y",
	"Y",
	"n",
	"N",
	"true",
	"True",
	"TRUE",
	"false",
	"False",
	"null",
	"Null",
	"NULL",
	"~",
	"0",
	"1",
	"-1",
	"+1",
	"0x1F",
	"0o17",
	"0b101",
	"1_000",
	"1:20",
	"190:20:30.15",
	"-1:20",
	".5",
	"1e3",
	"1.5",
	"0.5.0",
	"1.2.3",
	"2001-12-14",
	"2001-12-14T21:59:43.10-05:00",
	"2001-12-14 21:59:43.10 -5",
	".inf",
	"-.inf",
	"+.inf",
	".nan",
	".NaN",
	"<<",
	"=",
	"-",
	"--",
	"---",
	"...",
	"?",
	"? x",
	"- x",
	":",
	"a:",
	"a: b",
	"a #b",
	"#a",
	"&a",
	"*a",
	"!a",
	"|",
	"|x",
	">",
	"%x",
	"@x",
	"`x",
	"'x",
	"\"x",
	"[a]",
	"{a}",
	"tab\t",
	"line\nbreak",
	"\x01",
	"\xc3\xa9",
	"\xe2\x80\xa8",
	"\xc2\x85",
	"nan",
	"inf",
	"infinity",
	"NaN",
	"Inf",
	"-.5",
	"+.5",
	"0.",
	"1.",
	"1e+3",
	"0777",
	"0999",
	"08",
	"12:30:00",
	"1_0",
	"on: x",
	"true:",
	"k=v # c",
	"a\xc2\xa0"
	"b",
	"ab\xef\xbb\xbf",
	"a\rb",
	"a\\b",
	"a'b",
	"a\"b",
	"x: ",
	"-x:",
	"--- x",
	"... x",
};

/* Strings that must stay plain (what specs are made of). */
static const char *const plain[] = {
	"/dev/nvidia0",
	"nvidia.com/gpu",
	"NVIDIA_VISIBLE_DEVICES=void",
	"--link",
	"libcuda.so.1::/usr/lib/x86_64-linux-gnu/libcuda.so.1",
	"compute,utility",
	"createContainer",
	"a b",
	"x:y",
	"_x",
	"-x",
	"gpu0",
	"MIG-1c2d",
	"cdi.k8s.io/x_y",
	"a, b",
	"-inf",
	"_1",
};

static json_t *env_spec(const char *const *strings, size_t n)
{
	json_t *env = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(env, json_string(strings[i]));
	return json_pack("{s:s, s:s, s:[{s:s, s:{s:o}}]}", "cdiVersion", "0.5.0", "kind", "v/c",
			 "devices", "name", "d", "containerEdits", "env", env);
}

static json_t *env_of(json_t *spec)
{
	return json_object_get(json_object_get(json_array_get(json_object_get(spec, "devices"), 0),
					       "containerEdits"),
			       "env");
}

Test(emit, risky_strings_are_quoted_and_read_back)
{
	size_t n = sizeof(risky) / sizeof(risky[0]);
	json_t *spec = env_spec(risky, n), *back;
	char *yaml = emit(spec, CDI_FORMAT_YAML, NULL);
	char *line = yaml;

	/* One "    - ..." line per item; every one of them double-quoted. */
	for (size_t i = 0; i < n; i++) {
		line = strstr(line, "\n    - ");
		cr_assert_not_null(line, "item %zu missing", i);
		line += 7;
		cr_expect_eq(line[0], '"', "not quoted: [%s] -> %.20s", risky[i], line);
	}
	back = parse(yaml);
	cr_assert_eq(json_array_size(env_of(back)), n);
	for (size_t i = 0; i < n; i++) {
		json_t *v = json_array_get(env_of(back), i);

		cr_expect(json_is_string(v) && strcmp(json_string_value(v), risky[i]) == 0,
			  "[%s] read back as type %d [%s]", risky[i], json_typeof(v),
			  json_is_string(v) ? json_string_value(v) : "");
	}
	json_decref(back);
	free(yaml);
	json_decref(spec);
}

Test(emit, ordinary_strings_stay_plain)
{
	size_t n = sizeof(plain) / sizeof(plain[0]);
	json_t *spec = env_spec(plain, n), *back;
	char *yaml = emit(spec, CDI_FORMAT_YAML, NULL);
	char want[256];

	for (size_t i = 0; i < n; i++) {
		snprintf(want, sizeof(want), "\n    - %s\n", plain[i]);
		cr_expect(strstr(yaml, want), "not plain: %s\n%s", plain[i], yaml);
	}
	back = parse(yaml);
	cr_expect(json_equal(back, spec));
	json_decref(back);
	free(yaml);
	json_decref(spec);
}

Test(emit, long_strings_are_not_folded)
{
	char s[2001];
	json_t *spec;
	char *yaml;

	for (size_t i = 0; i < 2000; i++)
		s[i] = i % 10 == 9 && i != 1999 ? ' ' : 'a';
	s[2000] = '\0';
	spec = json_pack("{s:s}", "kind", s);
	yaml = emit(spec, CDI_FORMAT_YAML, NULL);
	cr_expect_eq(strlen(yaml), 4 + 6 + 2000 + 1, "%s", yaml);
	free(yaml);
	json_decref(spec);
}

Test(emit, scalars)
{
	json_t *spec =
		json_pack("{s:i, s:I, s:b, s:b, s:n, s:f, s:f, s:f, s:f, s:f, s:[], s:{}}", "i", 42,
			  "neg", -9223372036854775807LL - 1, "t", 1, "f", 0, "z", "r1", 1.5, "r2",
			  1.0, "r3", 1e20, "r4", 0.1, "r5", -0.0, "ea", "eo");
	char *yaml = emit(spec, CDI_FORMAT_YAML, NULL);
	json_t *back;

	cr_expect_str_eq(yaml,
			 "---\nea: []\neo: {}\nf: false\ni: 42\nneg: -9223372036854775808\n"
			 "r1: 1.5\nr2: 1.0\nr3: 1.0e+20\nr4: 0.1\nr5: -0.0\nt: true\nz: null\n",
			 "got:\n%s", yaml);
	/* Types survive: 1.0 stays a float, integers stay integers. */
	back = parse(yaml);
	cr_expect(json_equal(back, spec), "%s", json_dumps(back, JSON_COMPACT));
	json_decref(back);
	free(yaml);
	json_decref(spec);
}

Test(emit, deterministic_and_stable)
{
	static const char doc[] =
		"kind: nvidia.com/gpu\ncdiVersion: 0.5.0\n"
		"devices:\n- containerEdits:\n    deviceNodes:\n    - {path: /dev/nvidia0, "
		"fileMode: 0666, major: 195}\n  name: \"0\"\n  annotations: {z: 1, a: yes}\n"
		"containerEdits:\n  mounts:\n  - options: [ro, nosuid]\n    containerPath: /a\n"
		"    hostPath: /a\n  env: [\"X=a: b\", \"on\", 1:20, .5, '']\n  intelRdt: {}\n"
		"extra: {b: [1, {y: 2, x: 1}], a: ~}\n";
	json_t *spec = parse(doc), *again;
	enum cdi_format formats[] = { CDI_FORMAT_YAML, CDI_FORMAT_JSON };

	for (size_t f = 0; f < 2; f++) {
		char *first = emit(spec, formats[f], NULL);
		char *second = emit(spec, formats[f], NULL);
		char *third;

		cr_expect_str_eq(first, second);
		/* emit(parse(emit(x))) == emit(x) */
		again = parse(first);
		cr_expect(json_equal(again, spec));
		third = emit(again, formats[f], NULL);
		cr_expect_str_eq(third, first);
		json_decref(again);
		free(first);
		free(second);
		free(third);
	}
	json_decref(spec);
}

Test(emit, same_tree_in_another_insertion_order)
{
	json_t *a = json_pack("{s:s, s:s, s:{s:s, s:s}}", "kind", "v/c", "cdiVersion", "0.5.0", "x",
			      "q", "1", "p", "2");
	json_t *b = json_pack("{s:{s:s, s:s}, s:s, s:s}", "x", "p", "2", "q", "1", "cdiVersion",
			      "0.5.0", "kind", "v/c");
	char *ya = emit(a, CDI_FORMAT_YAML, NULL), *yb = emit(b, CDI_FORMAT_YAML, NULL);
	char *ja = emit(a, CDI_FORMAT_JSON, NULL), *jb = emit(b, CDI_FORMAT_JSON, NULL);

	cr_expect_str_eq(ya, yb);
	cr_expect_str_eq(ja, jb);
	free(ya);
	free(yb);
	free(ja);
	free(jb);
	json_decref(a);
	json_decref(b);
}

Test(emit, errors)
{
	struct cdi_error err = { 0 };
	char *buf = NULL;
	json_t *deep = json_array(), *spec = json_pack("{s:s}", "kind", "v/c");

	for (int i = 0; i < 70; i++)
		deep = json_pack("[o]", deep);
	cr_expect_eq(cdi_spec_emit(deep, CDI_FORMAT_YAML, &buf, NULL, &err), -EINVAL);
	cr_expect_str_eq(cdi_error_message(&err), "nested deeper than 64 levels");
	cdi_error_reset(&err);
	cr_expect_eq(cdi_spec_emit(deep, CDI_FORMAT_JSON, &buf, NULL, &err), -EINVAL);
	cdi_error_reset(&err);
	json_object_set_new(spec, "bad", json_stringn_nocheck("a\xff", 2));
	cr_expect_eq(cdi_spec_emit(spec, CDI_FORMAT_YAML, &buf, NULL, &err), -EINVAL);
	cr_expect_str_eq(cdi_error_message(&err), "string is not valid UTF-8");
	cdi_error_reset(&err);
	cr_expect_eq(cdi_spec_emit(spec, CDI_FORMAT_JSON, &buf, NULL, &err), -EINVAL);
	cdi_error_reset(&err);
	cr_expect_eq(cdi_spec_emit(spec, (enum cdi_format)7, &buf, NULL, &err), -EINVAL);
	cr_expect_eq(cdi_spec_emit(NULL, CDI_FORMAT_YAML, &buf, NULL, &err), -EINVAL);
	cr_expect_null(buf);
	cdi_error_reset(&err);
	json_decref(deep);
	json_decref(spec);
}
