/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ld.so.cache writer, differentially against glibc 2.36's ldconfig: trees of tiny real
 * shared objects (64- and 32-bit, libc6 or plain ELF, sonames that exercise the numeric
 * comparison, the same soname in several directories, glibc-hwcaps subdirectories) are
 * cached by `ldconfig -X -r`; the entries it wrote, shuffled and sorted by ldcache_compare,
 * must come back in ldconfig's order, and the cache ldcache_build writes from them must list
 * exactly as ldconfig's under `ldconfig -p -C` (glibc itself reading it).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ldcache.h"
#include "../lib/ldtree.h"
#include "../lib/testlib.h"

static char tmp[] = "/tmp/cdikit-ldw.XXXXXX";

static void setup(void)
{
	cr_assert(mkdtemp(tmp));
}

static void teardown(void)
{
	sh("rm -rf '%s'", tmp);
	ldtree_cleanup();
}

TestSuite(ldcache_writer, .init = setup, .fini = teardown);

/* An entry and its position in ldconfig's file: the tie-break for one soname and flags. */
struct ranked {
	struct ldcache_entry e;
	size_t pos;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	int r = ldcache_compare(&x->e, &y->e);

	return r ? r : (x->pos > y->pos) - (x->pos < y->pos);
}

static void write_file(const char *path, const char *data, size_t size)
{
	FILE *f = fopen(path, "wb");

	cr_assert(f);
	cr_assert_eq(fwrite(data, 1, size, f), size);
	cr_assert_eq(fclose(f), 0);
}

/* Sort ldconfig's entries from a shuffled copy, rebuild, and compare with glibc's eyes. */
static void check_against_ldconfig(const char *root, unsigned seed)
{
	struct cdi_error err = { 0 };
	struct ldcache *c = NULL, *back = NULL;
	struct ranked *v;
	struct ldcache_entry *flat;
	char *cache, *ours, *data, *theirs_list, *ours_list;
	size_t size;

	cr_assert(asprintf(&cache, "%s/etc/ld.so.cache", root) >= 0);
	cr_assert(asprintf(&ours, "%s/ours.cache", tmp) >= 0);
	sh("ldconfig -X -r '%s'", root);
	cr_assert_eq(ldcache_load(cache, &c, &err), 0, "%s", cdi_error_message(&err));
	cr_assert_gt(c->n_entries, 1);

	v = calloc(c->n_entries, sizeof(*v));
	flat = calloc(c->n_entries, sizeof(*flat));
	for (size_t i = 0; i < c->n_entries; i++)
		v[i] = (struct ranked){ .e = c->entries[i], .pos = i };
	srand(seed);
	for (size_t i = c->n_entries - 1; i > 0; i--) {
		size_t j = (size_t)rand() % (i + 1);
		struct ranked t = v[i];

		v[i] = v[j];
		v[j] = t;
	}
	qsort(v, c->n_entries, sizeof(*v), cmp_ranked);
	for (size_t i = 0; i < c->n_entries; i++) {
		cr_assert_eq(v[i].pos, i, "seed %u: entry %zu (%s => %s) sorts to %zu", seed,
			     v[i].pos, v[i].e.key, v[i].e.value, i);
		flat[i] = v[i].e;
	}

	cr_assert_eq(ldcache_build(flat, c->n_entries, "cdikit test", &data, &size, &err), 0, "%s",
		     cdi_error_message(&err));
	write_file(ours, data, size);
	theirs_list = ldtree_listing(cache);
	ours_list = ldtree_listing(ours);
	cr_assert_str_eq(ours_list, theirs_list);

	/* And our reader reads back what we wrote. */
	cr_assert_eq(ldcache_parse(data, size, "ours", &back, &err), 0, "%s",
		     cdi_error_message(&err));
	cr_assert_eq(back->n_entries, c->n_entries);
	cr_assert(back->generator && back->generator_len == strlen("cdikit test"));
	for (size_t i = 0; i < c->n_entries; i++) {
		cr_assert_str_eq(back->entries[i].key, c->entries[i].key);
		cr_assert_str_eq(back->entries[i].value, c->entries[i].value);
		cr_assert_eq(back->entries[i].flags, c->entries[i].flags);
		cr_assert_eq(back->entries[i].hwcap, c->entries[i].hwcap);
	}
	ldcache_free(back);
	ldcache_free(c);
	free(theirs_list);
	free(ours_list);
	free(data);
	free(v);
	free(flat);
	free(ours);
	free(cache);
}

/* Names that exercise _dl_cache_libcmp: digit runs compared as numbers, letters by byte. */
static const char *const stems[] = { "libfoo", "libFoo", "libfoo2", "libfoo-bar",   "liba",
				     "libz",   "libx_y", "libcuda", "libnvidia-ml", "libGL" };
static const char *const versions[] = { "0", "1", "2", "9", "10", "11", "100", "1.2", "12.0.1" };
static const char *const dirs64[] = { "usr/lib/x86_64-linux-gnu", "opt/a/lib", "usr/local/lib" };

Test(ldcache_writer, random_trees_sort_and_list_as_ldconfig)
{
	for (unsigned seed = 1; seed <= 4; seed++) {
		char *root;

		cr_assert(asprintf(&root, "%s/tree%u", tmp, seed) >= 0);
		sh("mkdir -p '%s/etc' && printf '/opt/a/lib\\n/usr/lib/i386-linux-gnu\\n/usr/local/lib\\n' > '%s/etc/ld.so.conf'",
		   root, root);
		srand(seed * 7919);
		for (int i = 0; i < 14; i++) {
			char soname[64], path[160];
			int bits = rand() % 4 == 0 ? 32 : 64;
			const char *dir = bits == 32 ? "usr/lib/i386-linux-gnu"
						     : dirs64[rand() % (int)ELEMENTSOF(dirs64)];

			snprintf(soname, sizeof(soname), "%s.so.%s",
				 stems[rand() % (int)ELEMENTSOF(stems)],
				 versions[rand() % (int)ELEMENTSOF(versions)]);
			snprintf(path, sizeof(path), "%s/%s", dir, soname);
			/* ldconfig files a repeated soname once per directory: skip same-path
			 * repeats */
			ldtree_lib(root, path, soname, bits, rand() % 2, NULL);
		}
		check_against_ldconfig(root, seed);
		free(root);
	}
}

/* The same soname in several directories: ldconfig keeps them in scan order, which is what
 * the loader's first match depends on; the sort must not reorder them. */
Test(ldcache_writer, duplicates_keep_scan_order)
{
	char *root;

	cr_assert(asprintf(&root, "%s/dups", tmp) >= 0);
	sh("mkdir -p '%s/etc' && printf '/opt/b\\n/opt/a\\n' > '%s/etc/ld.so.conf'", root, root);
	ldtree_lib(root, "opt/a/libcuda.so.1", "libcuda.so.1", 64, true, NULL);
	ldtree_lib(root, "opt/b/libcuda.so.1", "libcuda.so.1", 64, true, NULL);
	ldtree_lib(root, "usr/lib/x86_64-linux-gnu/libcuda.so.1", "libcuda.so.1", 64, true, NULL);
	ldtree_lib(root, "usr/lib/libcuda.so.1", "libcuda.so.1", 32, true, NULL);
	check_against_ldconfig(root, 99);
	free(root);
}

/* glibc-hwcaps subdirectories: extension entries first, named through the extension section. */
Test(ldcache_writer, glibc_hwcaps_entries)
{
	char *root;

	cr_assert(asprintf(&root, "%s/hwcaps", tmp) >= 0);
	sh("mkdir -p '%s/etc'", root);
	ldtree_lib(root, "usr/lib/x86_64-linux-gnu/libfoo.so.1", "libfoo.so.1", 64, true, NULL);
	ldtree_lib(root, "usr/lib/x86_64-linux-gnu/glibc-hwcaps/x86-64-v3/libfoo.so.1",
		   "libfoo.so.1", 64, true, NULL);
	ldtree_lib(root, "usr/lib/x86_64-linux-gnu/glibc-hwcaps/x86-64-v2/libfoo.so.1",
		   "libfoo.so.1", 64, true, NULL);
	ldtree_lib(root, "usr/lib/x86_64-linux-gnu/glibc-hwcaps/x86-64-v2/libbar.so.2",
		   "libbar.so.2", 64, true, NULL);
	ldtree_lib(root, "usr/lib/x86_64-linux-gnu/libbar.so.2", "libbar.so.2", 64, true, NULL);
	check_against_ldconfig(root, 5);
	free(root);
}

/* What ldconfig -p prints for flags the writer gets from ldcache_flags_for_elf. */
Test(ldcache_writer, flags_for_elf)
{
	cr_assert_eq(ldcache_flags_for_elf(2 /* ELFCLASS64 */, 62 /* EM_X86_64 */, 0), 0x0303);
	cr_assert_eq(ldcache_flags_for_elf(1 /* ELFCLASS32 */, 3 /* EM_386 */, 1), 0x0003);
	cr_assert_eq(ldcache_flags_for_elf(1, 3, 0), 0x0001);
	cr_assert_eq(ldcache_flags_for_elf(2, 183 /* EM_AARCH64 */, 1), -1);
}

Test(ldcache_writer, libcmp_is_glibcs)
{
	cr_assert_gt(ldcache_libcmp("libfoo.so.10", "libfoo.so.9"), 0);
	cr_assert_lt(ldcache_libcmp("libfoo.so.1", "libfoo.so.1.2"), 0);
	cr_assert_eq(ldcache_libcmp("libfoo.so.01", "libfoo.so.1"), 0);
	cr_assert_gt(ldcache_libcmp("libfoo2.so", "libfoo.so"), 0); /* a digit beats a letter */
	cr_assert_lt(ldcache_libcmp("libFoo.so", "libfoo.so"), 0);
}

Test(ldcache_writer, refuses_unnamed_hwcaps_entry)
{
	struct ldcache_entry e = { .flags = 0x303,
				   .hwcap = LDCACHE_HWCAP_EXTENSION,
				   .key = "libx.so.1",
				   .value = "/x/libx.so.1" };
	struct cdi_error err = { 0 };
	char *data = NULL;
	size_t size;

	cr_assert_eq(ldcache_build(&e, 1, NULL, &data, &size, &err), -EINVAL);
	cr_assert(strstr(cdi_error_message(&err), "/x/libx.so.1"));
	cdi_error_reset(&err);
	e.hwcaps = "x86-64-v2";
	cr_assert_eq(ldcache_build(&e, 1, NULL, &data, &size, &err), 0);
	free(data);
}
