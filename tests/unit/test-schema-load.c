/* SPDX-License-Identifier: Apache-2.0 */
/*
 * YAML and JSON loading: scalar resolution as go-yaml v3 (resolve.go),
 * mapping keys as sigs.k8s.io/yaml stringifies them, bounds, positions,
 * messages. Expected values come from go-yaml v3 as packaged in Debian
 * (/usr/share/gocode/src/gopkg.in/yaml.v3), checked with a Go program.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cdi/spec.h>

#include "load.h"
#include "marks.h"
#include "problem.h"

static int load(const char *text, json_t **ret, struct cdi_error *err, struct cdi_marks *marks)
{
	return cdi_yaml_load("t.yaml", text, strlen(text), ret, marks, err);
}

/* The value of v in "v: <scalar>"; the test fails if it does not load. */
static json_t *value(const char *scalar)
{
	struct cdi_error err = { 0 };
	char doc[512];
	json_t *root = NULL, *v;
	int r;

	snprintf(doc, sizeof(doc), "v: %s\n", scalar);
	r = load(doc, &root, &err, NULL);
	cr_assert_eq(r, 0, "%s: %s", scalar, cdi_error_message(&err));
	v = json_incref(json_object_get(root, "v"));
	cr_assert_not_null(v, "%s", scalar);
	json_decref(root);
	return v;
}

static void expect_int(const char *scalar, long long want)
{
	json_t *v = value(scalar);

	cr_expect(json_is_integer(v), "%s: not an integer (type %d)", scalar, json_typeof(v));
	cr_expect_eq(json_integer_value(v), want, "%s: %lld, want %lld", scalar,
		     (long long)json_integer_value(v), want);
	json_decref(v);
}

static void expect_real(const char *scalar, double want)
{
	json_t *v = value(scalar);

	cr_expect(json_is_real(v), "%s: not a float (type %d)", scalar, json_typeof(v));
	cr_expect_eq(json_real_value(v), want, "%s: %g, want %g", scalar, json_real_value(v), want);
	json_decref(v);
}

static void expect_string(const char *scalar, const char *want)
{
	json_t *v = value(scalar);

	cr_expect(json_is_string(v), "%s: not a string (type %d)", scalar, json_typeof(v));
	if (json_is_string(v))
		cr_expect_str_eq(json_string_value(v), want, "%s", scalar);
	json_decref(v);
}

static void expect_bool(const char *scalar, bool want)
{
	json_t *v = value(scalar);

	cr_expect(json_is_boolean(v), "%s: not a boolean (type %d)", scalar, json_typeof(v));
	cr_expect_eq(json_is_true(v), want, "%s", scalar);
	json_decref(v);
}

static void expect_null(const char *scalar)
{
	json_t *v = value(scalar);

	cr_expect(json_is_null(v), "%s: not null (type %d)", scalar, json_typeof(v));
	json_decref(v);
}

/* The load must fail with code and the first problem's text must be text. */
static void expect_error(const char *doc, int code, const char *text)
{
	struct cdi_error err = { 0 };
	json_t *root = NULL;
	int r = load(doc, &root, &err, NULL);

	cr_expect_eq(r, code, "%s: returned %d, want %d (%s)", doc, r, code,
		     cdi_error_message(&err));
	cr_expect_null(root);
	if (text)
		cr_expect_str_eq(cdi_error_message(&err), text, "%s\n got: %s\nwant: %s", doc,
				 cdi_error_message(&err), text);
	else
		cr_expect_gt(cdi_error_count(&err), 0);
	json_decref(root);
	cdi_error_reset(&err);
}

static void expect_enodata(const char *doc, size_t len)
{
	struct cdi_error err = { 0 };
	json_t *root = NULL;
	int r = cdi_yaml_load("t.yaml", doc, len, &root, NULL, &err);

	cr_expect_eq(r, -ENODATA, "\"%s\": %d (%s)", doc, r, cdi_error_message(&err));
	cr_expect_null(root);
	cr_expect_eq(cdi_error_count(&err), 0, "\"%s\": %s", doc, cdi_error_message(&err));
	cdi_error_reset(&err);
}

/* The key the document's single mapping entry got. */
static void expect_key(const char *key_text, const char *want)
{
	struct cdi_error err = { 0 };
	json_t *root = NULL;
	char doc[256];
	const char *key;
	json_t *v;

	snprintf(doc, sizeof(doc), "%s: x\n", key_text);
	cr_assert_eq(load(doc, &root, &err, NULL), 0, "%s: %s", key_text, cdi_error_message(&err));
	cr_assert_eq(json_object_size(root), 1);
	json_object_foreach (root, key, v)
		cr_expect_str_eq(key, want, "key %s", key_text);
	json_decref(root);
}

Test(yaml_scalars, integers)
{
	expect_int("0", 0);
	expect_int("00", 0);
	expect_int("42", 42);
	expect_int("-42", -42);
	expect_int("+42", 42);
	expect_int("0666", 438); /* fileMode: 0666 is YAML 1.1 octal */
	expect_int("017", 15);
	expect_int("0x1F", 31);
	expect_int("0X1f", 31);
	expect_int("-0x1F", -31);
	expect_int("0o17", 15);
	expect_int("0O17", 15);
	expect_int("+0o17", 15);
	expect_int("0b101", 5);
	expect_int("-0b101", -5);
	expect_int("0B11", 3);
	expect_int("1_000", 1000);
	expect_int("0x_1F", 31);
	expect_int("1__0", 10);
	expect_int("9223372036854775807", INT64_MAX);
	expect_int("-9223372036854775808", INT64_MIN);
	/* go-yaml's retry of "0b"/"0o" hands the sign to ParseInt. */
	expect_int("0b+1", 1);
	expect_int("0o-7", -7);
}

Test(yaml_scalars, beyond_int64)
{
	/* uint64 in go-yaml: kept as its digits (a string field gets what the reference gives). */
	expect_string("9223372036854775808", "9223372036854775808");
	expect_string("0xffffffffffffffff", "18446744073709551615");
	/* Beyond uint64: the float regexp takes it. */
	expect_real("18446744073709551616", 18446744073709551616.0);
	expect_real("-9223372036854775809", -9223372036854775809.0);
}

Test(yaml_scalars, floats)
{
	expect_real("1.5", 1.5);
	expect_real("-1.5", -1.5);
	expect_real("1e3", 1000.0);
	expect_real("1E+3", 1000.0);
	expect_real("1.", 1.0);
	expect_real(".5", 0.5);
	expect_real("+.5", 0.5);
	expect_real(".5_0", 0.5);
	expect_real("1_0.5", 10.5);
	expect_real("0999", 999.0); /* not octal, so the float regexp */
	expect_real("08", 8.0);
	expect_real("1e-400", 0.0);
	expect_string("1e400", "1e400"); /* overflows: stays a string */
	expect_string("._5", "._5");
	expect_string("1.2.3", "1.2.3");
	expect_string("0.5.0", "0.5.0");
	expect_string("1e", "1e");
	expect_string("0x", "0x");
	expect_string("0b", "0b");
	expect_string("+", "+");
	expect_string("1:20", "1:20"); /* no sexagesimal in v3 */
}

Test(yaml_scalars, special_floats)
{
	/* jansson has no inf/nan: kept as the canonical YAML spelling. */
	expect_string(".inf", ".inf");
	expect_string(".Inf", ".inf");
	expect_string(".INF", ".inf");
	expect_string("+.inf", ".inf");
	expect_string("-.inf", "-.inf");
	expect_string("-.Inf", "-.inf");
	expect_string(".nan", ".nan");
	expect_string(".NaN", ".nan");
	expect_string(".iNf", ".iNf");
	expect_string("-.nan", "-.nan");
	expect_string("inf", "inf");
	expect_string("NaN", "NaN");
}

Test(yaml_scalars, booleans)
{
	expect_bool("true", true);
	expect_bool("True", true);
	expect_bool("TRUE", true);
	expect_bool("false", false);
	expect_bool("False", false);
	expect_bool("FALSE", false);
	/* YAML 1.1 booleans are strings for go-yaml v3. */
	const char *strings[] = { "yes", "Yes", "no", "on", "off", "y", "n", "Y", "N", "tRue" };
	for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
		expect_string(strings[i], strings[i]);
}

Test(yaml_scalars, nulls)
{
	expect_null("~");
	expect_null("null");
	expect_null("Null");
	expect_null("NULL");
	expect_null("");
	expect_string("nULL", "nULL");
	expect_string("~x", "~x");
	expect_string("\"\"", "");
	expect_string("''", "");
}

Test(yaml_scalars, quoted_and_block_are_strings)
{
	expect_string("\"123\"", "123");
	expect_string("'0666'", "0666");
	expect_string("\"true\"", "true");
	expect_string("'~'", "~");
	expect_string("\"a\\tb\"", "a\tb");
	expect_string("\"\\u00e9\"", "\xc3\xa9");
	expect_string("|-\n  5", "5");
	expect_string(">-\n  a\n  b", "a b");
	expect_string("2001-12-14", "2001-12-14"); /* timestamps stay strings */
	expect_string("/dev/nvidia0", "/dev/nvidia0");
	expect_string("a b", "a b");
	expect_string("<<", "<<"); /* only a key can merge */
}

Test(yaml_scalars, tags)
{
	expect_string("!!str 5", "5");
	expect_string("!!str true", "true");
	expect_string("!!str ~", "~");
	expect_string("!!str", "");
	expect_int("!!int \"5\"", 5);
	expect_int("!!int 0x10", 16);
	expect_real("!!float 5", 5.0);
	expect_real("!!float \"1e3\"", 1000.0);
	expect_string("!!float .inf", ".inf");
	expect_bool("!!bool \"true\"", true);
	expect_null("!!null \"\"");
	expect_null("!!null ~");
	expect_string("!<tag:yaml.org,2002:str> 7", "7");
	/* go-yaml v3 gives the non-specific tag on a plain scalar no meaning. */
	expect_int("! 5", 5);
	expect_string("! \"5\"", "5");

	expect_error("v: !!bool yes\n", -EINVAL, "t.yaml:1:4: cannot decode \"yes\" as !!bool");
	expect_error("v: !!int 1e3\n", -EINVAL, "t.yaml:1:4: cannot decode \"1e3\" as !!int");
	expect_error("v: !!int .inf\n", -EINVAL, "t.yaml:1:4: cannot decode \".inf\" as !!int");
	expect_error("v: !!null x\n", -EINVAL, "t.yaml:1:4: cannot decode \"x\" as !!null");
	expect_error("v: !!timestamp 2001-12-14\n", -EINVAL,
		     "t.yaml:1:4: unsupported tag !!timestamp");
	expect_error("v: !!binary aGk=\n", -EINVAL, "t.yaml:1:4: unsupported tag !!binary");
	expect_error("v: !custom x\n", -EINVAL, "t.yaml:1:4: unsupported tag !custom");
	expect_error("v: !!map [a]\n", -EINVAL, "t.yaml:1:4: unsupported tag !!map");
	expect_error("v: !!seq {a: b}\n", -EINVAL, "t.yaml:1:4: unsupported tag !!seq");
}

Test(yaml_scalars, nul_is_rejected)
{
	expect_error("v: \"a\\0b\"\n", -EINVAL, "t.yaml:1:4: string contains a NUL character");
	expect_error("\"a\\0b\": 1\n", -EINVAL, "t.yaml:1:1: string contains a NUL character");
}

Test(yaml_keys, stringified_as_the_reference)
{
	expect_key("a", "a");
	expect_key("\"a b\"", "a b");
	expect_key("1", "1");
	expect_key("0x10", "16");
	expect_key("0666", "438");
	expect_key("-5", "-5");
	expect_key("9223372036854775808", "9223372036854775808");
	expect_key("1.5", "1.5");
	expect_key("1e3", "1000");
	expect_key("1e6", "1e+06");
	expect_key("0.1", "0.1");
	expect_key("0.0001", "0.0001");
	expect_key("0.00001", "1e-05");
	expect_key("123456789.0", "1.2345679e+08"); /* float32, as FormatFloat(v, 'g', -1, 32) */
	expect_key("1e39", ".inf");
	expect_key(".inf", ".inf");
	expect_key("-.Inf", "-.inf");
	expect_key(".NaN", ".nan");
	expect_key("true", "true");
	expect_key("FALSE", "false");
	expect_key("yes", "yes");
	expect_key("~", "null");
	expect_key("null", "null");
	expect_key("\"1\"", "1");
	expect_key("!!str 1.50", "1.50");
	expect_key("2001-12-14", "2001-12-14");
}

Test(yaml_keys, duplicates)
{
	expect_error("a: 1\nb: 2\na: 3\n", -EINVAL, "t.yaml:3:1: duplicate key \"a\"");
	expect_error("x:\n  y: 1\n  y: 2\n", -EINVAL, "t.yaml:3:3: duplicate key \"y\"");
	expect_error("{a: 1, a: 2}\n", -EINVAL, "t.yaml:1:8: duplicate key \"a\"");
	/* After stringification: 1, "1" and 0x1 are one key. */
	expect_error("1: a\n\"1\": b\n", -EINVAL, "t.yaml:2:1: duplicate key \"1\"");
	expect_error("0x1: a\n01: b\n", -EINVAL, "t.yaml:2:1: duplicate key \"1\"");
	expect_error("~: a\nnull: b\n", -EINVAL, "t.yaml:2:1: duplicate key \"null\"");
	expect_error("true: a\nTrue: b\n", -EINVAL, "t.yaml:2:1: duplicate key \"true\"");
	expect_error("\"a\\\"b\": 1\n'a\"b': 2\n", -EINVAL, "t.yaml:2:1: duplicate key \"a\\\"b\"");
	expect_error("<<: {a: 1}\n<<: {b: 1}\n", -EINVAL, "t.yaml:2:1: duplicate key \"<<\"");
}

Test(yaml_keys, must_be_scalars)
{
	expect_error("? [a]\n: b\n", -EINVAL, "t.yaml:1:3: mapping keys must be scalars");
	expect_error("? {a: 1}\n: b\n", -EINVAL, "t.yaml:1:3: mapping keys must be scalars");
	expect_error("x: &s [1]\n*s : 2\n", -EINVAL, "t.yaml:2:1: mapping keys must be scalars");
}

Test(yaml_aliases, deep_copies)
{
	struct cdi_error err = { 0 };
	json_t *root = NULL, *a, *b;

	cr_assert_eq(load("a: &x {k: [1, 2], s: v}\nb: *x\n", &root, &err, NULL), 0, "%s",
		     cdi_error_message(&err));
	a = json_object_get(root, "a");
	b = json_object_get(root, "b");
	cr_assert(json_equal(a, b));
	/* Separate nodes: editing one must not change the other. */
	cr_assert_neq(a, b);
	cr_assert_neq(json_object_get(a, "k"), json_object_get(b, "k"));
	json_array_append_new(json_object_get(b, "k"), json_integer(3));
	cr_assert_eq(json_array_size(json_object_get(a, "k")), 2);
	json_decref(root);
}

Test(yaml_aliases, scalars_keys_and_redefinition)
{
	struct cdi_error err = { 0 };
	json_t *root = NULL;

	cr_assert_eq(load("a: &x 0666\nb: *x\n&k c: 1\nd: {*k : 2}\ne: &x two\nf: *x\n", &root,
			  &err, NULL),
		     0, "%s", cdi_error_message(&err));
	cr_expect_eq(json_integer_value(json_object_get(root, "b")), 438);
	cr_expect_eq(json_integer_value(json_object_get(json_object_get(root, "d"), "c")), 2);
	cr_expect_str_eq(json_string_value(json_object_get(root, "f")), "two");
	json_decref(root);
}

Test(yaml_aliases, errors)
{
	expect_error("a: *nope\n", -EINVAL, "t.yaml:1:4: unknown anchor \"nope\"");
	expect_error("a: &x [1, *x]\n", -EINVAL,
		     "t.yaml:1:11: alias \"x\" refers to a node that contains it");
	expect_error("&k a: 1\nb: 2\n*k : 3\n", -EINVAL, "t.yaml:3:1: duplicate key \"a\"");
}

Test(yaml_aliases, billion_laughs_fails_fast)
{
	static const char doc[] = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
				  "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
				  "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
				  "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
				  "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
				  "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
				  "g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\n"
				  "h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]\n"
				  "i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h]\n";
	struct cdi_error err = { 0 };
	json_t *root = NULL;
	int r;

	r = load(doc, &root, &err, NULL);
	cr_assert_eq(r, -EINVAL);
	cr_assert_null(root);
	cr_expect(strstr(cdi_error_message(&err),
			 "more than 1048576 nodes after alias expansion (the limit)"),
		  "%s", cdi_error_message(&err));
	/* Fast: the budget is checked as aliases are met, so loading stops at line 7 of 9, before
	 * the copies (no timing here: make bench measures speed). */
	cr_expect(strncmp(cdi_error_message(&err), "t.yaml:7:", 9) == 0, "%s",
		  cdi_error_message(&err));
	cdi_error_reset(&err);
}

Test(yaml_aliases, expansion_just_under_the_budget)
{
	/* 8^6 = 262144 leaves: well under 1 Mi nodes, must load. */
	static const char doc[] = "a: &a [x, x, x, x, x, x, x, x]\n"
				  "b: &b [*a, *a, *a, *a, *a, *a, *a, *a]\n"
				  "c: &c [*b, *b, *b, *b, *b, *b, *b, *b]\n"
				  "d: &d [*c, *c, *c, *c, *c, *c, *c, *c]\n"
				  "e: &e [*d, *d, *d, *d, *d, *d, *d, *d]\n"
				  "f: &f [*e, *e, *e, *e, *e, *e, *e, *e]\n";
	struct cdi_error err = { 0 };
	json_t *root = NULL;

	cr_assert_eq(load(doc, &root, &err, NULL), 0, "%s", cdi_error_message(&err));
	cr_expect_eq(json_array_size(json_object_get(root, "f")), 8);
	json_decref(root);
}

Test(yaml_aliases, depth_through_alias)
{
	/* 40 levels anchored, used 30 levels down: 70 > 64. */
	char doc[1024] = "a: &x ";
	size_t n = strlen(doc);

	for (int i = 0; i < 40; i++)
		doc[n++] = '[';
	for (int i = 0; i < 40; i++)
		doc[n++] = ']';
	memcpy(doc + n, "\nb: ", 4);
	n += 4;
	for (int i = 0; i < 30; i++)
		doc[n++] = '[';
	memcpy(doc + n, "*x", 2);
	n += 2;
	for (int i = 0; i < 30; i++)
		doc[n++] = ']';
	doc[n++] = '\n';
	doc[n] = '\0';
	expect_error(doc, -EINVAL, "t.yaml:2:34: nested deeper than 64 levels");
}

Test(yaml_merge, merges)
{
	struct cdi_error err = { 0 };
	json_t *root = NULL, *want = NULL;

	cr_assert_eq(load("base: &b {a: 1, b: 2}\n"
			  "m1:\n  <<: *b\n  c: 3\n"
			  "m2:\n  c: 3\n  <<: *b\n"
			  "m3: {<<: {x: 1}, y: 2}\n"
			  "m4:\n  <<: [*b, {x: 1}]\n  y: 2\n",
			  &root, &err, NULL),
		     0, "%s", cdi_error_message(&err));
	want = json_pack("{s:{s:i,s:i}, s:{s:i,s:i,s:i}, s:{s:i,s:i,s:i}, s:{s:i,s:i}, "
			 "s:{s:i,s:i,s:i,s:i}}",
			 "base", "a", 1, "b", 2, "m1", "a", 1, "b", 2, "c", 3, "m2", "a", 1, "b", 2,
			 "c", 3, "m3", "x", 1, "y", 2, "m4", "a", 1, "b", 2, "x", 1, "y", 2);
	cr_assert(json_equal(root, want), "%s", json_dumps(root, JSON_COMPACT));
	json_decref(root);
	json_decref(want);
}

/*
 * sigs.k8s.io/yaml reads with go-yaml v2 in strict mode: a key set by a merge
 * and again (explicitly or by another merged mapping) is "already set in
 * map" (tests/corpus/specs/invalid/anchors-merge-override.yaml).
 */
Test(yaml_merge, overlaps_are_duplicates)
{
	expect_error("b: &b {a: 1, c: 2}\nm:\n  <<: *b\n  a: 3\n", -EINVAL,
		     "t.yaml:4:3: duplicate key \"a\"");
	expect_error("b: &b {a: 1, c: 2}\nm:\n  a: 3\n  <<: *b\n", -EINVAL,
		     "t.yaml:4:7: duplicate key \"a\" (merged by <<)");
	expect_error("x: &x {a: 1}\ny: &y {a: 2}\nm:\n  <<: [*x, *y]\n", -EINVAL,
		     "t.yaml:4:7: duplicate key \"a\" (merged by <<)");
	expect_error("x: &x {a: 1}\nm:\n  <<: *x\n  <<: *x\n", -EINVAL,
		     "t.yaml:4:3: duplicate key \"<<\"");
}

Test(yaml_merge, quoted_key_is_not_a_merge_and_errors)
{
	struct cdi_error err = { 0 };
	json_t *root = NULL;

	cr_assert_eq(load("\"<<\": {a: 1}\n", &root, &err, NULL), 0);
	cr_expect(json_is_object(json_object_get(root, "<<")));
	json_decref(root);

	expect_error("<<: 5\n", -EINVAL,
		     "t.yaml:1:5: merge key << needs a mapping or a sequence of mappings");
	expect_error("<<: [{a: 1}, 5]\n", -EINVAL,
		     "t.yaml:1:5: merge key << needs a mapping or a sequence of mappings");
}

Test(yaml_positions, nested_nodes)
{
	static const char doc[] = "cdiVersion: 0.5.0\n"
				  "kind: nvidia.com/gpu\n"
				  "devices:\n"
				  "- name: gpu0\n"
				  "  containerEdits:\n"
				  "    env:\n"
				  "    - A=1\n"
				  "    deviceNodes: [{path: /dev/x, major: 195}]\n"
				  "alias: &n {q: 1}\n"
				  "copy:   *n\n";
	struct cdi_marks *marks = cdi_marks_new(true);
	struct cdi_error err = { 0 };
	json_t *root = NULL, *dev, *edits, *node;
	unsigned line = 0, col = 0;

	cr_assert_not_null(marks);
	cr_assert_eq(load(doc, &root, &err, marks), 0, "%s", cdi_error_message(&err));
	dev = json_array_get(json_object_get(root, "devices"), 0);
	edits = json_object_get(dev, "containerEdits");
	node = json_array_get(json_object_get(edits, "deviceNodes"), 0);

#define AT(n, l, c)                                                                                \
	do {                                                                                       \
		cr_assert(cdi_marks_find(marks, (n), &line, &col), "no mark for " #n);             \
		cr_expect(line == (l) && col == (c), #n " at %u:%u, want %u:%u", line, col,        \
			  (unsigned)(l), (unsigned)(c));                                           \
	} while (0)
	AT(root, 1, 1);
	AT(json_object_get(root, "cdiVersion"), 1, 13);
	AT(json_object_get(root, "kind"), 2, 7);
	AT(json_object_get(root, "devices"), 4, 1);
	AT(dev, 4, 3);
	AT(json_object_get(dev, "name"), 4, 9);
	AT(edits, 6, 5);
	AT(json_object_get(edits, "env"), 7, 5);
	AT(json_array_get(json_object_get(edits, "env"), 0), 7, 7);
	AT(json_object_get(edits, "deviceNodes"), 8, 18);
	AT(node, 8, 19);
	AT(json_object_get(node, "path"), 8, 26);
	AT(json_object_get(node, "major"), 8, 41);
	AT(json_object_get(root, "alias"), 9, 8); /* a node starts with its properties */
	/* A copy made for an alias is placed where the alias is. */
	AT(json_object_get(root, "copy"), 10, 9);
	AT(json_object_get(json_object_get(root, "copy"), "q"), 10, 9);
#undef AT
	json_decref(root);
	cdi_marks_free(marks);
}

Test(yaml_positions, marks_api)
{
	struct cdi_marks *marks = cdi_marks_new(true);
	json_t *a = json_string("a"), *b = json_string("b"), *c = json_string("c");
	unsigned line = 0, col = 0;

	cr_assert_not_null(marks);
	cr_expect_not(cdi_marks_find(NULL, a, &line, &col));
	cr_expect_not(cdi_marks_find(marks, a, &line, &col));
	for (unsigned i = 0; i < 10000; i++)
		cr_assert_eq(cdi_marks_add(marks, i % 2 ? a : b, i + 1, i + 2), 0);
	/* The newest entry of a node wins (an address can be reused after a free). */
	cr_expect(cdi_marks_find(marks, a, &line, &col));
	cr_expect(line == 10000 && col == 10001, "%u:%u", line, col);
	cr_expect(cdi_marks_find(marks, b, NULL, NULL));
	cr_expect_not(cdi_marks_find(marks, c, &line, &col));
	/* Booleans and null are jansson singletons: no position is better than a wrong one. */
	cr_assert_eq(cdi_marks_add(marks, json_true(), 1, 1), 0);
	cr_expect_not(cdi_marks_find(marks, json_true(), &line, &col));
	cdi_marks_free(marks);
	cdi_marks_free(NULL);
	json_decref(a);
	json_decref(b);
	json_decref(c);
}

Test(yaml_documents, empty_is_enodata)
{
	const char *docs[] = { "",
			       "\n",
			       "   \n\n",
			       "# only a comment\n",
			       "---\n",
			       "---\n...\n",
			       "~\n",
			       "null\n",
			       "--- ~\n",
			       "!!null\n",
			       "NULL",
			       "--- # c\n",
			       "\xef\xbb\xbf" };
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++)
		expect_enodata(docs[i], strlen(docs[i]));
}

Test(yaml_documents, only_the_first_counts)
{
	struct cdi_error err = { 0 };
	json_t *root = NULL;

	cr_assert_eq(load("a: 1\n---\nb: 2\n--- [\n", &root, &err, NULL), 0, "%s",
		     cdi_error_message(&err));
	cr_expect_eq(json_object_size(root), 1);
	cr_expect_eq(json_integer_value(json_object_get(root, "a")), 1);
	json_decref(root);
}

Test(yaml_documents, any_root_is_returned)
{
	struct cdi_error err = { 0 };
	json_t *root = NULL;

	cr_assert_eq(load("just a string\n", &root, &err, NULL), 0);
	cr_expect_str_eq(json_string_value(root), "just a string");
	json_decref(root);
	cr_assert_eq(load("- 1\n- 2\n", &root, &err, NULL), 0);
	cr_expect_eq(json_array_size(root), 2);
	json_decref(root);
	cr_assert_eq(load("5", &root, &err, NULL), 0);
	cr_expect_eq(json_integer_value(root), 5);
	json_decref(root);
}

Test(yaml_documents, json_is_yaml)
{
	static const char doc[] = "{\"cdiVersion\": \"0.5.0\", \"devices\": [{\"name\": \"0\", "
				  "\"containerEdits\": {\"env\": [\"A=1\"]}}], \"n\": 1.5, "
				  "\"b\": true, \"z\": null}";
	struct cdi_error err = { 0 };
	json_t *y = NULL, *j = NULL;

	cr_assert_eq(load(doc, &y, &err, NULL), 0, "%s", cdi_error_message(&err));
	cr_assert_eq(cdi_json_load("t.json", doc, strlen(doc), &j, &err), 0);
	cr_expect(json_equal(y, j));
	json_decref(y);
	json_decref(j);
}

Test(yaml_bounds, depth)
{
	char doc[200000];
	struct cdi_error err = { 0 };
	json_t *root = NULL;
	size_t n = 0;

	/* 64 levels load. */
	for (int i = 0; i < 64; i++)
		doc[n++] = '[';
	for (int i = 0; i < 64; i++)
		doc[n++] = ']';
	doc[n] = '\0';
	cr_assert_eq(load(doc, &root, &err, NULL), 0, "%s", cdi_error_message(&err));
	json_decref(root);
	root = NULL;

	/* 65 do not; neither does a deep bomb, which must fail where it crosses the line. */
	memset(doc, '[', 100000);
	doc[100000] = '\0';
	expect_error(doc, -EINVAL, "t.yaml:1:65: nested deeper than 64 levels");

	n = 0;
	for (int i = 0; i < 70; i++) {
		for (int s = 0; s < 2 * i; s++)
			doc[n++] = ' ';
		n += (size_t)sprintf(doc + n, "k%d:\n", i);
	}
	doc[n] = '\0';
	expect_error(doc, -EINVAL, "t.yaml:65:129: nested deeper than 64 levels");
}

Test(yaml_bounds, size)
{
	struct cdi_error err = { 0 };
	json_t *root = NULL;

	cr_assert_eq(cdi_yaml_load("big.yaml", "a: 1", (size_t)CDI_SPEC_MAX_BYTES + 1, &root, NULL,
				   &err),
		     -EFBIG);
	cr_expect_str_eq(cdi_error_message(&err), "big.yaml: larger than 16777216 bytes");
	cdi_error_reset(&err);
}

Test(yaml_bounds, node_budget_without_aliases)
{
	/* 1 Mi + 1 scalars in one flow sequence. */
	size_t items = CDI_SPEC_MAX_NODES + 1, len = 2 + items * 2;
	char *doc = malloc(len + 1);
	struct cdi_error err = { 0 };
	json_t *root = NULL;

	cr_assert_not_null(doc);
	doc[0] = '[';
	for (size_t i = 0; i < items; i++) {
		doc[1 + 2 * i] = '0';
		doc[2 + 2 * i] = ',';
	}
	doc[len - 1] = ']';
	doc[len] = '\0';
	cr_assert_eq(cdi_yaml_load("t.yaml", doc, len, &root, NULL, &err), -EINVAL);
	/* No alias in it: it is too large, not an alias bomb. */
	cr_expect(strstr(cdi_error_message(&err), "too large: more than 1048576 nodes (the limit)"),
		  "%s", cdi_error_message(&err));
	cdi_error_reset(&err);
	free(doc);
}

Test(yaml_errors, messages_with_positions)
{
	expect_error("a: b: c\n", -EINVAL,
		     "t.yaml:1:5: mapping values are not allowed in this context");
	expect_error(
		"v: [1, 2\n", -EINVAL,
		"t.yaml:2:1: did not find expected ',' or ']' (while parsing a flow sequence)");
	expect_error("a:\n  - b\n - c\n", -EINVAL,
		     "t.yaml:3:2: did not find expected key (while parsing a block mapping)");
	expect_error("a: \"x\n", -EINVAL,
		     "t.yaml:2:1: found unexpected end of stream (while scanning a quoted scalar)");
	expect_error("a: 'x\tb\x01'\n", -EINVAL,
		     "t.yaml:1:8: control characters are not allowed (0x01)");
}

Test(yaml_errors, invalid_utf8)
{
	expect_error("a: 1\nb: \xff\n", -EINVAL, "t.yaml:2:4: invalid leading UTF-8 octet (0xff)");
	expect_error("a: \xc3\n", -EINVAL, "t.yaml:1:5: invalid trailing UTF-8 octet (0x0a)");
	expect_error("\xc3\xa9: \xe2\x82\n", -EINVAL, NULL);
	/* Overlong encoding of '/'. */
	expect_error("a: \xc0\xaf\n", -EINVAL, NULL);
}

static void expect_json_error(const char *doc, const char *text)
{
	struct cdi_error err = { 0 };
	json_t *root = NULL;

	cr_expect_eq(cdi_json_load("t.json", doc, strlen(doc), &root, &err), -EINVAL, "%s", doc);
	cr_expect_null(root);
	cr_expect_str_eq(cdi_error_message(&err), text, "%s\n got: %s\nwant: %s", doc,
			 cdi_error_message(&err), text);
	cdi_error_reset(&err);
}

Test(json, loads_any_root)
{
	struct cdi_error err = { 0 };
	json_t *root = NULL;

	cr_assert_eq(cdi_json_load("t.json", "{\"a\": [1, 2.5, \"x\", true]}", 26, &root, &err), 0,
		     "%s", cdi_error_message(&err));
	cr_expect_eq(json_integer_value(json_array_get(json_object_get(root, "a"), 0)), 1);
	json_decref(root);
	cr_assert_eq(cdi_json_load("t.json", "[1]", 3, &root, &err), 0);
	json_decref(root);
	cr_assert_eq(cdi_json_load("t.json", "\"s\"", 3, &root, &err), 0);
	json_decref(root);
	/* Not NUL-terminated at len. */
	cr_assert_eq(cdi_json_load("t.json", "{}garbage", 2, &root, &err), 0);
	json_decref(root);
}

Test(json, errors)
{
	expect_json_error("{\"a\": 1, \"a\": 2}", "t.json:1:12: duplicate object key near '\"a\"'");
	expect_json_error("{\n  \"a\": 1,\n}", "t.json:3:1: string or '}' expected near '}'");
	expect_json_error("{} x", "t.json:1:4: end of file expected near 'x'");
	expect_json_error("{\"a\": \"\\u0000\"}",
			  "t.json:1:14: string contains a NUL character (\\u0000)");
	expect_json_error("{\"a\": \"\xff\"}", "t.json:1:7: unable to decode byte 0xff near '\"'");
}

Test(json, empty_is_enodata)
{
	const char *docs[] = { "", " ", "\n\t\r\n", "null", " null\n" };

	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		struct cdi_error err = { 0 };
		json_t *root = NULL;

		cr_expect_eq(cdi_json_load("t.json", docs[i], strlen(docs[i]), &root, &err),
			     -ENODATA, "\"%s\"", docs[i]);
		cr_expect_null(root);
		cr_expect_eq(cdi_error_count(&err), 0);
		cdi_error_reset(&err);
	}
}

Test(json, depth)
{
	char doc[3000];
	struct cdi_error err = { 0 };
	json_t *root = NULL;

	memset(doc, '[', 64);
	memset(doc + 64, ']', 64);
	cr_assert_eq(cdi_json_load("t.json", doc, 128, &root, &err), 0, "%s",
		     cdi_error_message(&err));
	json_decref(root);

	memset(doc, '[', 65);
	memset(doc + 65, ']', 65);
	cr_assert_eq(cdi_json_load("t.json", doc, 130, &root, &err), -EINVAL);
	cr_expect_str_eq(cdi_error_message(&err), "t.json: nested deeper than 64 levels");
	cdi_error_reset(&err);

	/* Beyond jansson's own bound. */
	memset(doc, '[', 2500);
	memset(doc + 2500, ']', 400);
	cr_assert_eq(cdi_json_load("t.json", doc, 2900, &root, &err), -EINVAL);
	cdi_error_reset(&err);
}

static char tmpdir[] = "/tmp/cdikit-load-XXXXXX";

static void make_tmpdir(void)
{
	cr_assert_not_null(mkdtemp(tmpdir));
}

static void remove_tmpdir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	cr_expect_eq(system(cmd), 0);
}

static void write_text(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	cr_assert_eq(fwrite(text, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
}

Test(read_file, bounded_and_terminated, .init = make_tmpdir, .fini = remove_tmpdir)
{
	char path[256];
	char *buf = NULL;
	size_t len = 0;

	snprintf(path, sizeof(path), "%s/spec.yaml", tmpdir);
	write_text(path, "a: 1\n", 5);
	cr_assert_eq(cdi_read_file(path, 100, &buf, &len), 0);
	cr_expect_eq(len, 5);
	cr_expect_str_eq(buf, "a: 1\n");
	free(buf);

	/* Exactly max is fine, one more is not. */
	cr_assert_eq(cdi_read_file(path, 5, &buf, &len), 0);
	free(buf);
	buf = NULL;
	cr_expect_eq(cdi_read_file(path, 4, &buf, &len), -EFBIG);
	cr_expect_null(buf);

	write_text(path, "", 0);
	cr_assert_eq(cdi_read_file(path, 100, &buf, &len), 0);
	cr_expect_eq(len, 0);
	cr_expect_eq(buf[0], '\0');
	free(buf);

	snprintf(path, sizeof(path), "%s/missing.yaml", tmpdir);
	cr_expect_eq(cdi_read_file(path, 100, &buf, &len), -ENOENT);
	cr_expect_eq(cdi_read_file(tmpdir, 100, &buf, &len), -EISDIR);
}

/* A FIFO where a spec should be, with no writer or with a writer that never writes: opening it
 * must not wait, nor reading it (either would hang a registry scan or cdi-apply --validate):
 * only regular files are read. */
Test(read_file, fifo_is_refused_without_hanging, .init = make_tmpdir, .fini = remove_tmpdir,
     .timeout = 10)
{
	char path[256];
	char *buf = NULL;
	size_t len = 1;
	int wfd;

	snprintf(path, sizeof(path), "%s/spec.yaml", tmpdir);
	cr_assert_eq(mkfifo(path, 0600), 0);
	cr_expect_eq(cdi_read_file(path, 100, &buf, &len), -EINVAL);
	/* A silent writer: a read would block forever. */
	wfd = open(path, O_RDWR | O_NONBLOCK);
	cr_assert_geq(wfd, 0);
	cr_expect_eq(cdi_read_file(path, 100, &buf, &len), -EINVAL);
	cr_expect_null(buf);
	close(wfd);
	cr_expect_eq(cdi_read_file("/dev/null", 100, &buf, &len), -EINVAL);
}

Test(read_file, files_without_a_size)
{
	char *buf = NULL;
	size_t len = 0;

	/* procfs reports size 0: the buffer must grow, and the bound still hold. */
	cr_assert_eq(cdi_read_file("/proc/self/status", 1 << 20, &buf, &len), 0);
	cr_expect_gt(len, 100);
	cr_expect_eq(strlen(buf), len);
	cr_expect(strstr(buf, "Name:"));
	free(buf);
	buf = NULL;
	cr_expect_eq(cdi_read_file("/proc/self/status", 50, &buf, &len), -EFBIG);
	cr_expect_null(buf);
}
