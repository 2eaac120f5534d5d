/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The spec cache (schema/spec_cache.c, schema/tree_pack.c): the packed tree is the tree, a
 * damaged one is refused whole, and the registry takes a spec's tree from its cache only when
 * the cache was made from that very file and is as trusted as the spec, and the facts reader
 * the same for the facts file. To tell which was used, the cache holds trees that differ from
 * the files' text (device "cached" instead of "real", driver "from-cache").
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include <cdi/registry.h>
#include <cdi/spec.h>

#include "nvidia/facts.h"
#include "spec_cache.h"
#include "tree_pack.h"

static char root[64];

static void setup(void)
{
	snprintf(root, sizeof(root), "/tmp/cdikit-spec-cache.XXXXXX");
	cr_assert_not_null(mkdtemp(root));
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(spec_cache, .init = setup, .fini = teardown);

static json_t *sample(void)
{
	json_error_t e;
	json_t *t = json_loads(
		"{\"z\": 1, \"a\": [true, false, null, -9223372036854775807, 0.5,"
		" \"caf\\u00e9\", \"nul\\u0000in\", [], {}], \"m\": {\"k\": [[[\"deep\"]]]},"
		" \"\": \"empty key\", \"big\": 18446744073709551615e0}",
		JSON_ALLOW_NUL, &e);

	cr_assert_not_null(t, "%s", e.text);
	return t;
}

static void pack(const json_t *t, char **buf, size_t *len)
{
	size_t cap = 0;

	*buf = NULL;
	*len = 0;
	cr_assert_eq(tree_pack(t, buf, len, &cap), 0);
}

Test(spec_cache, packed_tree_is_the_tree_with_its_member_order)
{
	json_t *t = sample(), *back = NULL;
	const char *k1, *k2;
	void *i1, *i2;
	char *buf;
	size_t len;

	pack(t, &buf, &len);
	cr_assert_eq(tree_unpack(buf, len, &back), 0);
	cr_assert(json_equal(t, back));
	for (i1 = json_object_iter(t), i2 = json_object_iter(back); i1 && i2;
	     i1 = json_object_iter_next(t, i1), i2 = json_object_iter_next(back, i2)) {
		k1 = json_object_iter_key(i1);
		k2 = json_object_iter_key(i2);
		cr_assert_str_eq(k1, k2);
	}
	cr_assert(!i1 && !i2);
	cr_assert_eq(json_string_length(json_array_get(json_object_get(back, "a"), 6)), 6);
	json_decref(back);
	json_decref(t);
	free(buf);
}

Test(spec_cache, every_truncation_and_any_trailing_byte_is_refused)
{
	json_t *t = sample(), *back = (json_t *)1;
	char *buf;
	size_t len;

	pack(t, &buf, &len);
	for (size_t n = 0; n < len; n++) {
		cr_assert_eq(tree_unpack(buf, n, &back), -EINVAL, "prefix of %zu bytes", n);
		cr_assert_null(back);
	}
	buf = realloc(buf, len + 1);
	buf[len] = 'n';
	cr_assert_eq(tree_unpack(buf, len + 1, &back), -EINVAL);
	json_decref(t);
	free(buf);
}

static int unpack_bytes(const char *bytes, size_t len)
{
	json_t *back = NULL;
	int r = tree_unpack(bytes, len, &back);

	json_decref(back);
	return r;
}

Test(spec_cache, damaged_bytes_are_refused)
{
	static const char bad_tag[] = "x";
	static const char bad_utf8[] = "s\x02\0\0\0\xc3\x28";
	static const char bad_key[] = "o\x01\0\0\0\x01\0\0\0\xffn";
	static const char count_lies[] = "a\xff\xff\xff\x0fn";
	static const char short_int[] = "i\1\2\3";
	char deep[2 * 5 * 100 + 1];
	size_t n = 0;

	cr_assert_eq(unpack_bytes(bad_tag, 1), -EINVAL);
	cr_assert_eq(unpack_bytes(bad_utf8, sizeof(bad_utf8) - 1), -EINVAL);
	cr_assert_eq(unpack_bytes(bad_key, sizeof(bad_key) - 1), -EINVAL);
	cr_assert_eq(unpack_bytes(count_lies, sizeof(count_lies) - 1), -EINVAL);
	cr_assert_eq(unpack_bytes(short_int, sizeof(short_int) - 1), -EINVAL);
	/* 100 nested one-element arrays: deeper than a spec may be. */
	for (int i = 0; i < 100; i++) {
		memcpy(deep + n, "a\1\0\0\0", 5);
		n += 5;
	}
	deep[n++] = 'n';
	cr_assert_eq(unpack_bytes(deep, n), -EINVAL);
	/* 60 deep is fine. */
	cr_assert_eq(unpack_bytes(deep + 5 * 40, n - 5 * 40), 0);
}

Test(spec_cache, repeated_strings_and_scalar_lists_are_packed_once_and_shared)
{
	json_t *t = json_pack("{s:[s,s], s:[s,s], s:s, s:s, s:[{s:i}], s:[{s:i}]}", "a", "ro",
			      "nosuid", "b", "ro", "nosuid", "c", "/usr/lib/libcuda.so", "d",
			      "/usr/lib/libcuda.so", "e", "k", 1, "f", "k", 1),
	       *back = NULL;
	char *buf;
	size_t len;

	pack(t, &buf, &len);
	cr_assert_not_null(memchr(buf, 'R', len));
	cr_assert_eq(tree_unpack(buf, len, &back), 0);
	cr_assert(json_equal(t, back));
	cr_assert_eq(json_object_get(back, "a"), json_object_get(back, "b"),
		     "one node for both lists");
	cr_assert_eq(json_object_get(back, "c"), json_object_get(back, "d"),
		     "one node for both strings");
	/* Objects are not shared (their members are). */
	cr_assert_neq(json_array_get(json_object_get(back, "e"), 0),
		      json_array_get(json_object_get(back, "f"), 0));
	json_decref(back);
	json_decref(t);
	free(buf);
}

Test(spec_cache, references_must_name_a_finished_definition)
{
	static const char ok[] = "a\2\0\0\0Ds\1\0\0\0xR\0\0\0\0";
	static const char no_def[] = "R\0\0\0\0";
	static const char beyond[] = "a\2\0\0\0Ds\1\0\0\0xR\1\0\0\0";
	static const char itself[] = "Da\1\0\0\0R\0\0\0\0";
	static const char twice[] = "DDn";
	json_t *back = NULL;

	cr_assert_eq(tree_unpack(ok, sizeof(ok) - 1, &back), 0);
	cr_assert_eq(json_array_get(back, 0), json_array_get(back, 1));
	json_decref(back);
	cr_assert_eq(unpack_bytes(no_def, sizeof(no_def) - 1), -EINVAL);
	cr_assert_eq(unpack_bytes(beyond, sizeof(beyond) - 1), -EINVAL);
	cr_assert_eq(unpack_bytes(itself, sizeof(itself) - 1), -EINVAL);
	cr_assert_eq(unpack_bytes(twice, sizeof(twice) - 1), -EINVAL);
	cr_assert_eq(unpack_bytes("D", 1), -EINVAL);
}

/* A list of two references to the list before it, 40 deep: 2^40 nodes to whoever walks it,
 * from a few hundred bytes. Refused as YAML alias bombs are, at CDI_SPEC_MAX_NODES. */
Test(spec_cache, references_count_as_what_they_stand_for)
{
	char buf[2048];
	size_t n = 0;
	json_t *back = NULL;

	memcpy(buf + n, "Ds\1\0\0\0x", 7); /* definition 0 */
	n += 7;
	for (unsigned k = 0; k < 40; k++) {
		/* definition k + 1: [R k, R k] (wrapped in the outer array's elements) */
		memcpy(buf + n, "Da\2\0\0\0R", 7);
		n += 7;
		buf[n++] = (char)k, buf[n++] = 0, buf[n++] = 0, buf[n++] = 0;
		buf[n++] = 'R';
		buf[n++] = (char)k, buf[n++] = 0, buf[n++] = 0, buf[n++] = 0;
	}
	/* All of that inside one array, so that it is one value. */
	{
		char whole[sizeof(buf) + 8];

		memcpy(whole, "a\x29\0\0\0", 5); /* 41 elements: the string and 40 lists */
		memcpy(whole + 5, buf, n);
		cr_assert_eq(tree_unpack(whole, n + 5, &back), -EINVAL);
		cr_assert_null(back);
		/* The first 15 levels (2^15 nodes) are fine. */
		memcpy(whole, "a\x10\0\0\0", 5);
		cr_assert_eq(tree_unpack(whole, 5 + 7 + 15 * 16, &back), 0);
		cr_assert_eq(json_array_size(json_array_get(back, 15)), 2);
		json_decref(back);
	}
}

/* Definitions inside definitions: the inner one ends first and is number 0, as the packer
 * numbers them (many of them, past any first allocation). */
Test(spec_cache, nested_definitions_are_numbered_as_they_end)
{
	static const char nested[] = "a\3\0\0\0Da\1\0\0\0Ds\1\0\0\0xR\1\0\0\0R\0\0\0\0";
	json_t *t = json_array(), *back = NULL;
	char *buf;
	size_t len;

	cr_assert_eq(tree_unpack(nested, sizeof(nested) - 1, &back), 0);
	cr_assert_eq(json_array_get(back, 0), json_array_get(back, 1), "R1: the list");
	cr_assert_eq(json_array_get(back, 2), json_array_get(json_array_get(back, 0), 0), "R0: x");
	json_decref(back);
	/* 1,000 lists of one repeated string each, every list twice. */
	for (int i = 0; i < 2000; i++) {
		char s[16];

		snprintf(s, sizeof(s), "s%d", i / 2);
		json_array_append_new(t, json_pack("[s]", s));
	}
	pack(t, &buf, &len);
	cr_assert_eq(tree_unpack(buf, len, &back), 0);
	cr_assert(json_equal(t, back));
	cr_assert_eq(json_array_get(back, 1998), json_array_get(back, 1999));
	json_decref(back);
	json_decref(t);
	free(buf);
}

/* ---- the registry and the cache ---------------------------------------------------------- */

static const char *at(const char *rel)
{
	static char bufs[4][PATH_MAX];
	static int next;
	char *b = bufs[next++ % 4];

	snprintf(b, PATH_MAX, "%s/%s", root, rel);
	return b;
}

static const char spec_text[] = "cdiVersion: \"0.5.0\"\nkind: \"vendor.com/dev\"\ndevices:\n"
				"  - name: \"real\"\n    containerEdits:\n"
				"      env: [\"FROM=spec\"]\n";

static void write_file(const char *rel, const void *buf, size_t len, mode_t mode)
{
	int fd = open(at(rel), O_WRONLY | O_CREAT | O_TRUNC, mode);

	cr_assert_geq(fd, 0, "%s: %s", rel, strerror(errno));
	cr_assert_eq(write(fd, buf, len), (ssize_t)len);
	cr_assert_eq(fchmod(fd, mode), 0);
	cr_assert_eq(close(fd), 0);
}

/* The spec (device "real") and a cache made from its file holding device "cached". */
static void spec_and_cache(const char *alt_name)
{
	json_t *alt = json_pack("{s:s, s:s, s:[{s:s, s:{s:[s]}}]}", "cdiVersion", "0.5.0", "kind",
				"vendor.com/dev", "devices", "name", alt_name, "containerEdits",
				"env", "FROM=cache");
	struct stat st;
	char *buf;
	size_t len;

	cr_assert_eq(mkdir(at("cdi"), 0755), 0);
	write_file("cdi/dev.yaml", spec_text, strlen(spec_text), 0644);
	cr_assert_eq(stat(at("cdi/dev.yaml"), &st), 0);
	cr_assert_eq(spec_cache_encode(alt, &st, NULL, NULL, &buf, &len), 0);
	write_file("cdi/dev.yaml" CDI_SPEC_CACHE_SUFFIX, buf, len, 0644);
	json_decref(alt);
	free(buf);
}

/* Which device the registry over cdi/ sees: "cached", "real", or "" (both, neither: a bug). */
static const char *seen(unsigned flags)
{
	const char *dirs[] = { at("cdi") };
	struct cdi_error err = { 0 };
	cdi_registry *reg = NULL;
	bool real, cached;

	cr_assert_eq(cdi_registry_new(dirs, 1, flags, &reg, &err), 0, "%s",
		     cdi_error_message(&err));
	cr_assert_eq(cdi_error_count(cdi_registry_errors(reg)), 0);
	real = cdi_registry_lookup(reg, "vendor.com/dev=real", NULL) != NULL;
	cached = cdi_registry_lookup(reg, "vendor.com/dev=cached", NULL) != NULL;
	cdi_registry_free(reg);
	return real && !cached ? "real" : cached && !real ? "cached" : "";
}

Test(spec_cache, a_cache_of_the_very_file_stands_for_it)
{
	spec_and_cache("cached");
	cr_assert_str_eq(seen(0), "cached");
	cr_assert_str_eq(seen(CDI_LOAD_STRICT), "cached");
}

/* rel rewritten in place with text (the same size), its times put back as they were. */
static void rewrite_keeping_times(const char *rel, const char *text)
{
	struct timespec times[2];
	struct stat st;

	cr_assert_eq(stat(at(rel), &st), 0);
	/* File times tick with the kernel's coarse clock (a few ms): a change made within the same
	 * tick as the cache would not show (docs/security.md). */
	usleep(20 * 1000);
	write_file(rel, text, strlen(text), 0644);
	times[0] = st.st_atim;
	times[1] = st.st_mtim;
	cr_assert_eq(utimensat(AT_FDCWD, at(rel), times, 0), 0);
}

Test(spec_cache, a_changed_spec_is_read_even_with_size_and_mtime_put_back)
{
	spec_and_cache("cached");
	rewrite_keeping_times("cdi/dev.yaml", spec_text);
	cr_assert_str_eq(seen(0), "real");
}

Test(spec_cache, a_cache_others_may_write_is_not_used)
{
	spec_and_cache("cached");
	cr_assert_eq(chmod(at("cdi/dev.yaml" CDI_SPEC_CACHE_SUFFIX), 0664), 0);
	cr_assert_str_eq(seen(0), "real");
	cr_assert_eq(chmod(at("cdi/dev.yaml" CDI_SPEC_CACHE_SUFFIX), 0644), 0);
	cr_assert_str_eq(seen(0), "cached");
	if (geteuid() == 0) {
		cr_assert_eq(chown(at("cdi/dev.yaml" CDI_SPEC_CACHE_SUFFIX), 65534, 65534), 0);
		cr_assert_str_eq(seen(0), "real");
	}
}

Test(spec_cache, a_linked_or_damaged_cache_is_not_used)
{
	char link_name[PATH_MAX];
	char *buf;
	size_t len;
	FILE *f;

	spec_and_cache("cached");
	/* Damaged: the last byte gone. The spec is read, and nothing is reported. */
	f = fopen(at("cdi/dev.yaml" CDI_SPEC_CACHE_SUFFIX), "r");
	cr_assert_not_null(f);
	buf = malloc(1 << 16);
	len = fread(buf, 1, 1 << 16, f);
	fclose(f);
	write_file("cdi/dev.yaml" CDI_SPEC_CACHE_SUFFIX, buf, len - 1, 0644);
	cr_assert_str_eq(seen(0), "real");
	/* A link to a good cache. */
	write_file("good-cache", buf, len, 0644);
	snprintf(link_name, sizeof(link_name), "%s", at("cdi/dev.yaml" CDI_SPEC_CACHE_SUFFIX));
	cr_assert_eq(unlink(link_name), 0);
	cr_assert_eq(symlink(at("good-cache"), link_name), 0);
	cr_assert_str_eq(seen(0), "real");
	free(buf);
}

Test(spec_cache, a_cache_checked_only_leniently_is_not_used_under_strict)
{
	char buf[1 << 16];
	size_t len;
	FILE *f;

	spec_and_cache("cached");
	f = fopen(at("cdi/dev.yaml" CDI_SPEC_CACHE_SUFFIX), "r");
	cr_assert_not_null(f);
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	buf[12] = 0; /* the flags: not checked strictly */
	write_file("cdi/dev.yaml" CDI_SPEC_CACHE_SUFFIX, buf, len, 0644);
	cr_assert_str_eq(seen(0), "cached");
	cr_assert_str_eq(seen(CDI_LOAD_STRICT), "real");
}

/* ---- the facts file and the cache -------------------------------------------------------- */

static const char facts_text[] = "{\"cdikitFacts\": 1, \"kind\": \"vendor.com/dev\", "
				 "\"driver\": {\"version\": \"from-file\"}, \"gpus\": []}\n";

/* dev.yaml and dev.yaml.cdikit, and a cache of both whose facts say driver "from-cache". */
static void facts_and_cache(void)
{
	json_t *spec = json_pack("{s:s, s:s, s:[{s:s, s:{s:[s]}}]}", "cdiVersion", "0.5.0", "kind",
				 "vendor.com/dev", "devices", "name", "real", "containerEdits",
				 "env", "FROM=spec");
	json_t *facts = json_pack("{s:i, s:s, s:{s:s}, s:[]}", "cdikitFacts", 1, "kind",
				  "vendor.com/dev", "driver", "version", "from-cache", "gpus");
	struct stat st, fst;
	char *buf;
	size_t len;

	cr_assert_eq(mkdir(at("cdi"), 0755), 0);
	write_file("cdi/dev.yaml", spec_text, strlen(spec_text), 0644);
	write_file("cdi/dev.yaml.cdikit", facts_text, strlen(facts_text), 0644);
	cr_assert_eq(stat(at("cdi/dev.yaml"), &st), 0);
	cr_assert_eq(stat(at("cdi/dev.yaml.cdikit"), &fst), 0);
	cr_assert_eq(spec_cache_encode(spec, &st, facts, &fst, &buf, &len), 0);
	write_file("cdi/dev.yaml" CDI_SPEC_CACHE_SUFFIX, buf, len, 0644);
	json_decref(spec);
	json_decref(facts);
	free(buf);
}

/* The driver version the facts of cdi/dev.yaml say. */
static char *facts_driver(void)
{
	struct cdi_error err = { 0 };
	struct cdi_facts *f = NULL;
	char *v;

	cr_assert_eq(cdi_facts_load_for_spec(at("cdi/dev.yaml"), &f, &err), 0, "%s",
		     cdi_error_message(&err));
	v = strdup(f->driver_version);
	cdi_facts_free(f);
	return v;
}

static void assert_facts_from(const char *want)
{
	char *got = facts_driver();

	cr_assert_str_eq(got, want);
	free(got);
}

Test(spec_cache, facts_come_from_the_cache_of_that_very_facts_file)
{
	facts_and_cache();
	assert_facts_from("from-cache");
	rewrite_keeping_times("cdi/dev.yaml.cdikit", facts_text);
	assert_facts_from("from-file");
}

Test(spec_cache, facts_of_a_cache_others_may_write_are_not_used)
{
	facts_and_cache();
	cr_assert_eq(chmod(at("cdi/dev.yaml" CDI_SPEC_CACHE_SUFFIX), 0646), 0);
	assert_facts_from("from-file");
}

Test(spec_cache, a_linked_facts_file_is_read_by_its_own_rules)
{
	facts_and_cache();
	cr_assert_eq(rename(at("cdi/dev.yaml.cdikit"), at("facts")), 0);
	cr_assert_eq(symlink(at("facts"), at("cdi/dev.yaml.cdikit")), 0);
	assert_facts_from("from-file");
}
