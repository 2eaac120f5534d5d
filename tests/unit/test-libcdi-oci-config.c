/* SPDX-License-Identifier: Apache-2.0 */
/*
 * config.json read and written back: numbers as written (RLIM_INFINITY, 0.1, 1e2, 2.5E-3),
 * everything else as jansson reads and writes it (checked against jansson on every JSON file in
 * the tree and on generated ones), and errors with the config's line:column.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cdi/cdi.h>

#include "libcdi/json_dump.h"
#include "../lib/testlib.h"
#include "libcdi/oci_config.h"

static json_t *parse_ok(const char *text)
{
	struct cdi_error err = CDI_ERROR_INIT;
	json_t *j = NULL;

	cr_assert_eq(oci_config_parse("c.json", text, strlen(text), &j, &err), 0, "%s: %s", text,
		     cdi_error_message(&err));
	cr_assert_not_null(j);
	return j;
}

/* Parse and dump compact: the text comes back as given. */
static void round_trip(const char *text)
{
	json_t *j = parse_ok(text);
	char *out = cdi_json_dump(j, 0, false, NULL);

	cr_assert_not_null(out);
	cr_expect_str_eq(out, text);
	free(out);
	json_decref(j);
}

static void parse_fails(const char *text, const char *want)
{
	struct cdi_error err = CDI_ERROR_INIT;
	json_t *j = NULL;

	cr_expect_eq(oci_config_parse("c.json", text, strlen(text), &j, &err), -EINVAL, "%s", text);
	cr_expect_null(j);
	cr_expect_str_eq(cdi_error_message(&err), want, "%s", text);
	cdi_error_reset(&err);
}

Test(oci_config, numbers_keep_their_text)
{
	round_trip("{\"process\":{\"rlimits\":[{\"type\":\"RLIMIT_NOFILE\",\"hard\":"
		   "18446744073709551615,\"soft\":18446744073709551615}]}}");
	round_trip("{\"x\":{\"a\":0.1,\"b\":1e2,\"c\":2.5E-3,\"d\":-0,\"e\":1.0,\"f\":1E+2}}");
	round_trip("{\"min\":-9223372036854775808,\"max\":9223372036854775807,"
		   "\"past\":9223372036854775808,\"neg\":-9223372036854775809}");
	round_trip("{\"huge\":123456789012345678901234567890,\"inf\":1e400,\"tiny\":1e-400}");
	round_trip("{\"plain\":[0,1,-1,42,1000000]}");
}

/* An integer beyond int64 is a number to anyone reading the tree, and the nearest double. */
Test(oci_config, big_numbers_are_numbers)
{
	json_t *j = parse_ok("{\"a\":18446744073709551615,\"b\":0.5,\"c\":7}");

	cr_expect(json_is_real(json_object_get(j, "a")));
	cr_expect_eq(json_real_value(json_object_get(j, "a")), 18446744073709551615.0);
	cr_expect_eq(json_real_value(json_object_get(j, "b")), 0.5);
	cr_expect_eq(json_integer_value(json_object_get(j, "c")), 7);
	json_decref(j);
}

/* The edits change what they change; the numbers around them keep their text. */
Test(oci_config, edits_keep_numbers_they_do_not_touch)
{
	const char *text = "{\"process\":{\"env\":[],\"rlimits\":[{\"type\":\"RLIMIT_NOFILE\","
			   "\"hard\":18446744073709551615,\"soft\":1024}]},\"x-ratio\":0.1}";
	json_t *oci = parse_ok(text), *edits = load("{'env':['A=1']}");
	struct cdi_error err = CDI_ERROR_INIT;
	char *out;

	cr_assert_eq(cdi_apply_edits(oci, edits, NULL, &err), 0, "%s", cdi_error_message(&err));
	out = cdi_json_dump(oci, 0, false, NULL);
	cr_expect_str_eq(out, "{\"process\":{\"env\":[\"A=1\"],\"rlimits\":[{\"type\":"
			      "\"RLIMIT_NOFILE\",\"hard\":18446744073709551615,\"soft\":1024}]},"
			      "\"x-ratio\":0.1}");
	free(out);
	json_decref(edits);
	json_decref(oci);
}

/* A number set since parsing is written as it is now, not as it was. */
Test(oci_config, changed_number_is_written_as_it_is)
{
	json_t *j = parse_ok("{\"a\":0.10,\"b\":1e2}");
	char *out;

	json_real_set(json_object_get(j, "a"), 0.25);
	out = cdi_json_dump(j, 0, false, NULL);
	cr_expect_str_eq(out, "{\"a\":0.25,\"b\":1e2}");
	free(out);
	json_decref(j);
}

Test(oci_config, strings_keys_and_nul)
{
	round_trip("{\"a\":\"\\u0000z\",\"\u00e9\":\"\U0001F600\",\"t\":\"\\t\\n\\\"\\\\\"}");
	/* Escapes jansson does not write come back as jansson writes them. */
	{
		json_t *j = parse_ok("{\"a\":\"\\/\\u0041\\u00e9\\ud83d\\ude00\"}");
		char *out = cdi_json_dump(j, 0, false, NULL);

		cr_expect_str_eq(out, "{\"a\":\"/A\u00e9\U0001F600\"}");
		free(out);
		json_decref(j);
	}
}

/* A repeated key keeps its first place and its last value, as jansson (flags 0) and Go do. */
Test(oci_config, repeated_key)
{
	json_t *j = parse_ok("{\"a\":1,\"b\":2,\"a\":3}");
	char *out = cdi_json_dump(j, 0, false, NULL);

	cr_expect_str_eq(out, "{\"a\":3,\"b\":2}");
	free(out);
	json_decref(j);
}

Test(oci_config, errors_name_the_place)
{
	parse_fails("", "c.json:1:1: unexpected end of file");
	parse_fails("[]", "c.json:1:1: an OCI runtime spec is a JSON object");
	parse_fails("{\"a\": 1,}", "c.json:1:9: expected a key in quotes, found '}'");
	parse_fails("{\"process\": {\"env\": [1,}\n", "c.json:1:24: expected a value, found '}'");
	parse_fails("{\"a\":\n  01}", "c.json:2:4: expected ',' or '}', found '1'");
	parse_fails("{\"a\": 1} x", "c.json:1:10: end of file expected, found 'x'");
	parse_fails("{\"a\": tru}", "c.json:1:7: invalid token");
	parse_fails("{\"a\": -}", "c.json:1:7: invalid number");
	parse_fails("{\"a\": 1.}", "c.json:1:7: invalid number");
	parse_fails("{\"a\": \"x\ty\"}", "c.json:1:9: control character 0x09 in a string");
	parse_fails("{\"a\": \"\\ud800\"}",
		    "c.json:1:8: invalid Unicode escape (a lone high surrogate)");
	parse_fails("{\"a\": \"\\q\"}", "c.json:1:8: invalid escape");
	parse_fails("{\"a\": \"\xff\"}", "c.json:1:7: string is not valid UTF-8");
	parse_fails("{\"a\": \"x", "c.json:1:7: unterminated string");
	parse_fails("{\"//cdikit:number-text\": []}",
		    "c.json:1:2: the key \"//cdikit:number-text\" is reserved");
}

Test(oci_config, depth_is_bounded)
{
	size_t n = JSON_PARSER_MAX_DEPTH + 10;
	char *text = malloc(2 * n + 8);
	struct cdi_error err = CDI_ERROR_INIT;
	json_t *j = NULL;
	size_t o = 0;

	text[o++] = '{';
	text[o++] = '"';
	text[o++] = 'a';
	text[o++] = '"';
	text[o++] = ':';
	for (size_t i = 0; i < n; i++)
		text[o++] = '[';
	text[o] = '\0';
	cr_expect_eq(oci_config_parse("c.json", text, o, &j, &err), -EINVAL);
	cr_expect(strstr(cdi_error_message(&err), "nested deeper than 2048 levels"), "%s",
		  cdi_error_message(&err));
	cdi_error_reset(&err);
	free(text);
}

/* The same tree jansson reads, and the same bytes it writes, for every JSON text here. */
static void same_as_jansson(const char *what, const char *text, size_t len)
{
	struct cdi_error err = CDI_ERROR_INIT;
	json_error_t jerr;
	json_t *ours = NULL, *theirs = json_loadb(text, len, 0, &jerr);
	int r = oci_config_parse(what, text, len, &ours, &err);

	if (!theirs || !json_is_object(theirs)) {
		cr_expect_lt(r, 0, "%s: jansson refuses it, we accept it", what);
		json_decref(theirs);
		cdi_error_reset(&err);
		return;
	}
	cr_assert_eq(r, 0, "%s: %s", what, cdi_error_message(&err));
	if (!json_object_get(ours, JSON_DUMP_NUMBER_TEXT)) {
		for (unsigned indent = 0; indent <= 4; indent += 2) {
			char *a = cdi_json_dump(ours, indent, false, NULL);
			char *b = json_dumps(theirs, indent ? JSON_INDENT(indent) : JSON_COMPACT);

			cr_expect(json_equal(ours, theirs), "%s: trees differ", what);
			cr_expect_str_eq(a, b, "%s", what);
			free(a);
			free(b);
		}
	}
	json_decref(ours);
	json_decref(theirs);
}

static void same_in_dir(const char *dir, unsigned *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	cr_assert_not_null(d, "%s", dir);
	while ((de = readdir(d))) {
		char path[512];
		FILE *f;
		char *text;
		size_t len;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (de->d_type == DT_DIR) {
			same_in_dir(path, n);
			continue;
		}
		if (!strstr(de->d_name, ".json"))
			continue;
		f = fopen(path, "r");
		cr_assert_not_null(f);
		text = malloc(1 << 20);
		len = fread(text, 1, 1 << 20, f);
		fclose(f);
		same_as_jansson(path, text, len);
		free(text);
		(*n)++;
	}
	closedir(d);
}

Test(oci_config, same_as_jansson_on_every_json_file)
{
	unsigned n = 0;

	same_in_dir("examples", &n);
	same_in_dir("tests/corpus", &n);
	cr_expect_gt(n, 20);
}

Test(oci_config, same_as_jansson_on_random_trees)
{
	static const char *const atoms[] = { "0",     "-1",   "12",    "true",
					     "false", "null", "\"s\"", "\"\\u00e9\\n\"",
					     "\"\"",  "{}",   "[]" };
	char text[4096];

	srand(7);
	for (int round = 0; round < 500; round++) {
		size_t o = 0;
		int depth = 0;

		o += (size_t)snprintf(text + o, sizeof(text) - o, "{\"k\":[");
		for (int i = 0; i < 40 && o < sizeof(text) - 64; i++) {
			int c = rand() % 5;

			if (i)
				text[o++] = ',';
			if (c == 0 && depth < 8) {
				o += (size_t)snprintf(text + o, sizeof(text) - o, "{\"k%d\":[", i);
				depth++;
				text[o++] = '1';
			} else {
				o += (size_t)snprintf(
					text + o, sizeof(text) - o, "%s",
					atoms[rand() % (int)(sizeof(atoms) / sizeof(atoms[0]))]);
			}
			if (c == 1 && depth > 0) {
				o += (size_t)snprintf(text + o, sizeof(text) - o, "]}");
				depth--;
			}
		}
		while (depth-- > 0)
			o += (size_t)snprintf(text + o, sizeof(text) - o, "]}");
		o += (size_t)snprintf(text + o, sizeof(text) - o, "]}");
		same_as_jansson("random", text, o);
	}
}

/*
 * OCI_CONFIG_GO_DECODER: runc's reading (Go's json.Decoder.Decode into the runtime-spec
 * structs). Each vector was checked against Go 1.19 with tests/reference/runc-decode.go;
 * tests/runtime-go-decoder.sh checks cdi-runtime's edited configs against it.
 */
static void go_reads(const char *text, size_t len, const char *want)
{
	struct cdi_error err = CDI_ERROR_INIT;
	json_t *j = NULL;
	char *out;

	cr_assert_eq(oci_config_parse_flags("c.json", text, len, OCI_CONFIG_GO_DECODER, &j, &err),
		     0, "%s: %s", text, cdi_error_message(&err));
	out = cdi_json_dump(j, 0, false, NULL);
	cr_expect_str_eq(out, want, "%s", text);
	free(out);
	json_decref(j);
	/* The strict reading refuses what Go forgives here. */
	j = NULL;
	cr_expect_eq(oci_config_parse("c.json", text, len, &j, &err), -EINVAL, "%s", text);
	cdi_error_reset(&err);
	json_decref(j);
}

#define GO_READS(text, want) go_reads(text, sizeof(text) - 1, want)
#define FFFD "\xef\xbf\xbd"

Test(oci_config, go_reads_the_first_value_only)
{
	GO_READS("{\"a\":1} garbage", "{\"a\":1}");
	GO_READS("{\"a\":1}{\"a\":2}", "{\"a\":1}");
	GO_READS("{\"a\":1}\n\xff\x00 {", "{\"a\":1}");
	GO_READS("{}]", "{}");
}

Test(oci_config, go_replaces_bytes_that_are_not_utf8)
{
	/* One U+FFFD per byte, as utf8.DecodeRune steps over a bad one. */
	GO_READS("{\"a\":\"\xe2\x82x\"}", "{\"a\":\"" FFFD FFFD "x\"}");
	GO_READS("{\"a\":\"\xed\xa0\x80\"}", "{\"a\":\"" FFFD FFFD FFFD "\"}");
	GO_READS("{\"a\":\"\xc0\xaf\"}", "{\"a\":\"" FFFD FFFD "\"}");
	GO_READS("{\"a\":\"\xf4\x90\x80\x80\"}", "{\"a\":\"" FFFD FFFD FFFD FFFD "\"}");
	GO_READS("{\"a\":\"\xff\\n\xc3\"}", "{\"a\":\"" FFFD "\\n" FFFD "\"}");
	/* Keys too; valid sequences stay. */
	GO_READS("{\"k\xff\":\"\xc3\xa9\xf0\x9f\x98\x80\x80\"}",
		 "{\"k" FFFD "\":\"\xc3\xa9\xf0\x9f\x98\x80" FFFD "\"}");
}

Test(oci_config, go_replaces_lone_surrogates)
{
	GO_READS("{\"a\":\"\\ud800\"}", "{\"a\":\"" FFFD "\"}");
	GO_READS("{\"a\":\"\\udc00x\"}", "{\"a\":\"" FFFD "x\"}");
	GO_READS("{\"a\":\"\\ud800\\u0041\"}", "{\"a\":\"" FFFD "A\"}");
	GO_READS("{\"a\":\"\\ud800\\ud800\\udc00\"}", "{\"a\":\"" FFFD "\xf0\x90\x80\x80\"}");
	GO_READS("{\"a\":\"\\ud83d\\n\"}", "{\"a\":\"" FFFD "\\n\"}");
}

/* Strict and Go readings agree on these. */
Test(oci_config, go_reads_like_the_strict_reader_otherwise)
{
	static const char *const same[] = {
		"{\"a\":\"\\ud83d\\ude00 \\u0000 \\u00e9\"}",
		"{\"a\":[1,2.5,18446744073709551615],\"b\":{\"c\":null}}",
		"{\"a\":\"x\",\"a\":\"y\",\"l\":[1],\"l\":[2]}",
	};
	struct cdi_error err = CDI_ERROR_INIT;

	for (size_t i = 0; i < sizeof(same) / sizeof(*same); i++) {
		json_t *a = NULL, *b = NULL;
		char *x, *y;

		cr_assert_eq(oci_config_parse("c.json", same[i], strlen(same[i]), &a, &err), 0);
		cr_assert_eq(oci_config_parse_flags("c.json", same[i], strlen(same[i]),
						    OCI_CONFIG_GO_DECODER, &b, &err),
			     0);
		x = cdi_json_dump(a, 0, false, NULL);
		y = cdi_json_dump(b, 0, false, NULL);
		cr_expect_str_eq(x, y);
		free(x);
		free(y);
		json_decref(a);
		json_decref(b);
	}
	/* What Go refuses, both refuse: a bad escape, a control character, a truncated value. */
	static const char *const bad[] = { "{\"a\":\"\\x\"}", "{\"a\":\"\x01\"}", "{\"a\":", "",
					   "\xef\xbb\xbf{}" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		json_t *j = NULL;

		cr_expect_eq(oci_config_parse_flags("c.json", bad[i], strlen(bad[i]),
						    OCI_CONFIG_GO_DECODER, &j, &err),
			     -EINVAL, "%s", bad[i]);
		cdi_error_reset(&err);
	}
}

Test(oci_config, go_merges_repeated_objects)
{
	struct cdi_error err = CDI_ERROR_INIT;
	static const struct {
		const char *text, *want;
	} v[] = {
		/* A struct decoded twice keeps what the second does not set. */
		{ "{\"process\":{\"env\":[\"A=1\"],\"user\":{\"uid\":5}},"
		  "\"process\":{\"args\":[\"sh\"],\"user\":{\"gid\":7}}}",
		  "{\"process\":{\"env\":[\"A=1\"],\"user\":{\"uid\":5,\"gid\":7},\"args\":[\"sh\"]}}" },
		/* A map too (annotations); lists are replaced. */
		{ "{\"annotations\":{\"a\":\"1\"},\"l\":[1],\"annotations\":{\"b\":\"2\"},\"l\":[2]}",
		  "{\"annotations\":{\"a\":\"1\",\"b\":\"2\"},\"l\":[2]}" },
		/* A null resets pointers, lists and maps; scalars and process.user stay. */
		{ "{\"hostname\":\"a\",\"hostname\":null,\"process\":{\"user\":{\"uid\":3},"
		  "\"user\":null,\"env\":[\"A\"],\"env\":null,\"terminal\":true,\"terminal\":null},"
		  "\"linux\":{},\"linux\":null}",
		  "{\"hostname\":\"a\",\"process\":{\"user\":{\"uid\":3},\"env\":null,\"terminal\":true},"
		  "\"linux\":null}" },
	};

	for (size_t i = 0; i < sizeof(v) / sizeof(*v); i++) {
		json_t *j = NULL;
		char *out;

		cr_assert_eq(oci_config_parse_flags("c.json", v[i].text, strlen(v[i].text),
						    OCI_CONFIG_GO_DECODER, &j, &err),
			     0, "%s", cdi_error_message(&err));
		out = cdi_json_dump(j, 0, false, NULL);
		cr_expect_str_eq(out, v[i].want);
		free(out);
		json_decref(j);
	}
}
