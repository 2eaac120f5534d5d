/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ld.so.cache parsing against caches written by the real ldconfig (glibc
 * 2.36, `ldconfig -r <root>`) over tiny real shared objects, 64- and 32-bit;
 * the old combined format (ld.so-1.7.0 + libc5 entries, then the new header)
 * built by hand around such a cache; and truncated or corrupted caches, which
 * must give a clean error (run under ASan with make check SANITIZE=1).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/testlib.h"
#include "ldcache.h"

static char tmp[] = "/tmp/cdikit-ldcache.XXXXXX";
static bool have_tmp;

static void setup(void)
{
	cr_assert(mkdtemp(tmp));
	have_tmp = true;
}

static void teardown(void)
{
	if (have_tmp)
		sh("rm -rf '%s'", tmp);
}

static char *slurp(const char *path, size_t *ret_size)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	cr_assert(f, "open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	cr_assert(buf);
	cr_assert(fread(buf, 1, (size_t)n, f) == (size_t)n);
	fclose(f);
	*ret_size = (size_t)n;
	return buf;
}

/*
 * <tmp>/root with libfoo (x86-64, soname libfoo.so.1), libbar (i386, soname
 * libbar.so.1) and libbaz (x86-64 in a configured extra dir), then
 * `ldconfig -r` over it. Returns the cache path.
 */
static char *make_real_cache(void)
{
	char *path;

	sh("set -e; cd '%s'; mkdir -p root/usr/lib/x86_64-linux-gnu root/usr/lib/i386-linux-gnu root/opt/x/lib root/etc; "
	   "printf '.text\\n.globl f\\nf: ret\\n' > f.s; as --64 -o f64.o f.s; as --32 -o f32.o f.s; "
	   "ld -m elf_x86_64 -shared -soname libfoo.so.1 -o root/usr/lib/x86_64-linux-gnu/libfoo.so.1.2.3 f64.o; "
	   "ld -m elf_x86_64 -shared -soname libbaz.so.2 -o root/opt/x/lib/libbaz.so.2.0 f64.o; "
	   "ld -m elf_i386 -shared -soname libbar.so.1 -o root/usr/lib/i386-linux-gnu/libbar.so.1.0 f32.o; "
	   "printf '/usr/lib/i386-linux-gnu\\n/opt/x/lib\\n' > root/etc/ld.so.conf; "
	   "ldconfig -r root",
	   tmp);
	cr_assert(asprintf(&path, "%s/root/etc/ld.so.cache", tmp) >= 0);
	return path;
}

static const struct ldcache_entry *find_key(const struct ldcache *c, const char *key)
{
	for (size_t i = 0; i < c->n_entries; i++)
		if (strcmp(c->entries[i].key, key) == 0)
			return &c->entries[i];
	return NULL;
}

static void check_real_entries(const struct ldcache *c)
{
	const struct ldcache_entry *foo = find_key(c, "libfoo.so.1");
	const struct ldcache_entry *bar = find_key(c, "libbar.so.1");
	const struct ldcache_entry *baz = find_key(c, "libbaz.so.2");

	cr_assert_eq(c->n_entries, 3);
	cr_assert(foo && bar && baz);
	cr_assert_str_eq(foo->value, "/usr/lib/x86_64-linux-gnu/libfoo.so.1");
	cr_assert_eq(ldcache_entry_arch(foo), LDCACHE_ARCH_X86_64);
	cr_assert(ldcache_entry_is_elf(foo));
	cr_assert_str_eq(ldcache_arch_name(ldcache_entry_arch(foo)), "x86-64");
	cr_assert_str_eq(bar->value, "/usr/lib/i386-linux-gnu/libbar.so.1");
	cr_assert_eq(ldcache_entry_arch(bar), LDCACHE_ARCH_I386);
	cr_assert(ldcache_entry_is_elf(bar));
	cr_assert_str_eq(baz->value, "/opt/x/lib/libbaz.so.2");
	cr_assert_eq(ldcache_entry_arch(baz), LDCACHE_ARCH_X86_64);
}

TestSuite(ldcache, .init = setup, .fini = teardown);

Test(ldcache, real_ldconfig_both_arches)
{
	struct cdi_error err = { 0 };
	struct ldcache *c = NULL;
	char *path = make_real_cache();

	cr_assert_eq(ldcache_load(path, &c, &err), 0, "%s", cdi_error_message(&err));
	check_real_entries(c);
	cr_assert_eq(c->old_format, 0);
	/* glibc >= 2.33 names itself in an extension section */
	cr_assert(c->generator && c->generator_len > 8);
	cr_assert(strncmp(c->generator, "ldconfig", 8) == 0);
	ldcache_free(c);
	free(path);
}

/* The order of entries is the cache's, the order the linker searches: the same as a re-read. */
Test(ldcache, cache_order_is_file_order)
{
	struct cdi_error err = { 0 };
	struct ldcache *c = NULL;
	char *path = make_real_cache();
	size_t size;
	char *data = slurp(path, &size);
	uint32_t key0;

	cr_assert_eq(ldcache_load(path, &c, &err), 0);
	memcpy(&key0, data + 48 + 4, 4);
	cr_assert_str_eq(c->entries[0].key, data + key0);
	ldcache_free(c);
	free(data);
	free(path);
}

/* ld.so-1.7.0 header, n libc5 entries, padding to align, then the new cache as ldconfig wrote it.
 */
static char *make_old_format(const char *new_data, size_t new_size, uint32_t n_old, size_t align,
			     size_t *ret_size)
{
	size_t off = 16 + (size_t)n_old * 12, pad = (off + align - 1) / align * align - off;
	size_t size = off + pad + new_size;
	char *buf = calloc(1, size);

	cr_assert(buf);
	memcpy(buf, "ld.so-1.7.0", 11);
	memcpy(buf + 12, &n_old, 4);
	for (uint32_t i = 0; i < n_old; i++) {
		int32_t flags = 1;
		uint32_t key = i * 7, value = i * 7 + 3;

		memcpy(buf + 16 + i * 12, &flags, 4);
		memcpy(buf + 16 + i * 12 + 4, &key, 4);
		memcpy(buf + 16 + i * 12 + 8, &value, 4);
	}
	memcpy(buf + off + pad, new_data, new_size);
	/* Extension offsets count from the start of the file (ldconfig -c compat, dl-cache.c). */
	{
		char *hdr = buf + off + pad;
		uint32_t ext, count, shift = (uint32_t)(off + pad);

		memcpy(&ext, hdr + 32, 4);
		if (ext) {
			memcpy(&count, hdr + ext + 4, 4);
			for (uint32_t i = 0; i < count; i++) {
				uint32_t so;

				memcpy(&so, hdr + ext + 8 + 16 * i + 8, 4);
				so += shift;
				memcpy(hdr + ext + 8 + 16 * i + 8, &so, 4);
			}
			ext += shift;
			memcpy(hdr + 32, &ext, 4);
		}
	}
	*ret_size = size;
	return buf;
}

/* What ldconfig itself writes with -c compat: libc5 table, then the new cache. */
Test(ldcache, real_compat_format)
{
	struct cdi_error err = { 0 };
	struct ldcache *c = NULL;
	char *path = make_real_cache();

	sh("ldconfig -c compat -r '%s/root'", tmp);
	cr_assert_eq(ldcache_load(path, &c, &err), 0, "%s", cdi_error_message(&err));
	cr_assert_eq(c->old_format, 1);
	check_real_entries(c);
	cr_assert(c->generator && strncmp(c->generator, "ldconfig", 8) == 0);
	ldcache_free(c);
	free(path);
}

Test(ldcache, old_combined_format)
{
	char *path = make_real_cache();
	size_t new_size;
	char *new_data = slurp(path, &new_size);

	/* odd and even libc5 counts (the new header needs padding or not), 8- and 4-byte alignment
	 */
	for (uint32_t n_old = 0; n_old < 6; n_old++)
		for (size_t align = 4; align <= 8; align += 4) {
			struct cdi_error err = { 0 };
			struct ldcache *c = NULL;
			size_t size;
			char *old = make_old_format(new_data, new_size, n_old, align, &size);

			cr_assert_eq(ldcache_parse(old, size, "old", &c, &err), 0,
				     "n_old %u align %zu: %s", n_old, align,
				     cdi_error_message(&err));
			cr_assert_eq(c->old_format, 1);
			check_real_entries(c);
			ldcache_free(c);
			free(old);
		}
	free(new_data);
	free(path);
}

/* Every proper prefix of a valid cache is an error with a message, never a crash. */
static void truncate_everywhere(const char *data, size_t size)
{
	for (size_t len = 0; len < size; len++) {
		struct cdi_error err = { 0 };
		struct ldcache *c = NULL;
		/* a fresh allocation of exactly len bytes, so ASan sees any read past it */
		char *copy = malloc(len ? len : 1);
		int r;

		memcpy(copy, data, len);
		r = ldcache_parse(copy, len, "truncated", &c, &err);
		cr_assert_lt(r, 0, "a cache truncated to %zu of %zu bytes was accepted", len, size);
		cr_assert_eq(c, NULL);
		cr_assert_gt(cdi_error_count(&err), 0);
		cr_assert(strstr(cdi_error_message(&err), "truncated:"), "%s",
			  cdi_error_message(&err));
		cdi_error_reset(&err);
		free(copy);
	}
}

Test(ldcache, truncated_at_every_offset)
{
	char *path = make_real_cache();
	size_t size, old_size;
	char *data = slurp(path, &size);
	char *old = make_old_format(data, size, 3, 8, &old_size);

	truncate_everywhere(data, size);
	truncate_everywhere(old, old_size);
	free(old);
	free(data);
	free(path);
}

/* Random corruption: any outcome but a crash or an out-of-bounds string. */
Test(ldcache, corrupt_bytes)
{
	char *path = make_real_cache();
	size_t size;
	char *data = slurp(path, &size);
	unsigned seed = 12345;
	size_t accepted = 0;

	for (int iter = 0; iter < 20000; iter++) {
		struct cdi_error err = { 0 };
		struct ldcache *c = NULL;
		char *copy = malloc(size);
		int flips = 1 + (int)(rand_r(&seed) % 4);

		memcpy(copy, data, size);
		for (int k = 0; k < flips; k++) {
			/* bias towards the header and entries, where offsets live */
			size_t at = rand_r(&seed) % (iter % 2 ? size : 128 < size ? 128 : size);

			copy[at] = (char)rand_r(&seed);
		}
		if (ldcache_parse(copy, size, "corrupt", &c, &err) == 0) {
			accepted++;
			for (size_t i = 0; i < c->n_entries; i++) {
				const char *k = c->entries[i].key, *v = c->entries[i].value;

				cr_assert(k >= c->data && k < c->data + c->size);
				cr_assert(v >= c->data && v < c->data + c->size);
				cr_assert(memchr(k, 0, (size_t)(c->data + c->size - k)));
				cr_assert(memchr(v, 0, (size_t)(c->data + c->size - v)));
			}
			ldcache_free(c);
		} else
			cr_assert_gt(cdi_error_count(&err), 0);
		cdi_error_reset(&err);
		free(copy);
	}
	/* flips inside strings keep the cache valid: both outcomes must have happened */
	cr_assert_gt(accepted, 0);
	cr_assert_lt(accepted, 20000);
	free(data);
	free(path);
}

static void put32(char *buf, size_t off, uint32_t v)
{
	memcpy(buf + off, &v, 4);
}

/* A hand-made one-entry cache: header, entry, "libx.so.1\0/l/libx.so.1\0". */
static size_t make_tiny(char *buf)
{
	const char strings[] = "libx.so.1\0/l/libx.so.1";
	size_t lo = 48 + 24;

	memset(buf, 0, 256);
	memcpy(buf, "glibc-ld.so.cache1.1", 20);
	put32(buf, 20, 1);
	put32(buf, 24, sizeof(strings));
	buf[28] = 2; /* little endian */
	put32(buf, 48, 0x0303);
	put32(buf, 52, (uint32_t)lo);
	put32(buf, 56, (uint32_t)lo + 10);
	memcpy(buf + lo, strings, sizeof(strings));
	return lo + sizeof(strings);
}

Test(ldcache, hostile_fields)
{
	char buf[256];
	size_t size;
	struct {
		const char *what;
		size_t off;
		uint32_t value;
		const char *message;
	} cases[] = {
		{ "nlibs", 20, 0xffffffffu, "entries" },
		{ "nlibs", 20, 2, "entries" },
		{ "len_strings", 24, 0xfffffff0u, "string table" },
		{ "key past strings", 52, 200, "outside the string table" },
		{ "key into header", 52, 4, "outside the string table" },
		{ "value past end", 56, 0xffffffffu, "outside the string table" },
		{ "extension offset", 32, 0x7ffffff0u, "extension" },
		{ "extension unaligned", 32, 49, "extension" },
	};
	struct cdi_error err = { 0 };
	struct ldcache *c = NULL;

	size = make_tiny(buf);
	cr_assert_eq(ldcache_parse(buf, size, "tiny", &c, &err), 0, "%s", cdi_error_message(&err));
	cr_assert_eq(c->n_entries, 1);
	cr_assert_str_eq(c->entries[0].key, "libx.so.1");
	cr_assert_str_eq(c->entries[0].value, "/l/libx.so.1");
	ldcache_free(c);

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size = make_tiny(buf);
		put32(buf, cases[i].off, cases[i].value);
		c = NULL;
		cr_assert_lt(ldcache_parse(buf, size, "tiny", &c, &err), 0, "%s accepted",
			     cases[i].what);
		cr_assert(strstr(cdi_error_message(&err), cases[i].message), "%s: %s",
			  cases[i].what, cdi_error_message(&err));
		cdi_error_reset(&err);
	}

	/* strings not terminated inside the table */
	size = make_tiny(buf);
	put32(buf, 24, 5);
	cr_assert_lt(ldcache_parse(buf, size, "tiny", &c, &err), 0);
	cdi_error_reset(&err);

	/* byte order of another machine */
	size = make_tiny(buf);
	buf[28] = 3;
	cr_assert_lt(ldcache_parse(buf, size, "tiny", &c, &err), 0);
	cr_assert(strstr(cdi_error_message(&err), "byte order"));
	cdi_error_reset(&err);

	/* extension directory with a bad magic, and one whose section runs past the end */
	size = make_tiny(buf);
	put32(buf, 32, 96);
	put32(buf, 96, 0x12345678);
	put32(buf, 100, 0);
	cr_assert_lt(ldcache_parse(buf, 104, "tiny", &c, &err), 0);
	cr_assert(strstr(cdi_error_message(&err), "magic"));
	cdi_error_reset(&err);
	put32(buf, 96, 0xeaa42174u);
	put32(buf, 100, 1);
	put32(buf, 104, 0);
	put32(buf, 108, 0);
	put32(buf, 112, 120);
	put32(buf, 116, 100);
	cr_assert_lt(ldcache_parse(buf, 120, "tiny", &c, &err), 0);
	cdi_error_reset(&err);
	put32(buf, 116, 0);
	cr_assert_eq(ldcache_parse(buf, 120, "tiny", &c, &err), 0, "%s", cdi_error_message(&err));
	ldcache_free(c);

	/* old header whose libc5 table runs past the file, or with nothing after it */
	memset(buf, 0, sizeof(buf));
	memcpy(buf, "ld.so-1.7.0", 11);
	put32(buf, 12, 1000);
	cr_assert_lt(ldcache_parse(buf, 64, "old", &c, &err), 0);
	cdi_error_reset(&err);
	put32(buf, 12, 2);
	cr_assert_lt(ldcache_parse(buf, 64, "old", &c, &err), 0);
	cr_assert(strstr(cdi_error_message(&err), "libc5-only"));
	cdi_error_reset(&err);

	/* not a cache at all */
	cr_assert_lt(ldcache_parse("hello world, this is not a cache at all......", 44, "text", &c,
				   &err),
		     0);
	cr_assert(strstr(cdi_error_message(&err), "not an ld.so.cache"));
	cdi_error_reset(&err);
	cr_assert_lt(ldcache_parse("", 0, "empty", &c, &err), 0);
	cdi_error_reset(&err);
}

/* This machine's own cache: large, written by the distribution's ldconfig. */
Test(ldcache, host_cache)
{
	struct cdi_error err = { 0 };
	struct ldcache *c = NULL;
	bool libc = false;

	if (access("/etc/ld.so.cache", R_OK) != 0)
		cr_skip_test("no /etc/ld.so.cache on this machine");
	cr_assert_eq(ldcache_load("/etc/ld.so.cache", &c, &err), 0, "%s", cdi_error_message(&err));
	cr_assert_gt(c->n_entries, 10);
	for (size_t i = 0; i < c->n_entries; i++)
		if (strcmp(c->entries[i].key, "libc.so.6") == 0 && c->entries[i].value[0] == '/')
			libc = true;
	cr_assert(libc);
	ldcache_free(c);
}

Test(ldcache, load_errors)
{
	struct cdi_error err = { 0 };
	struct ldcache *c = NULL;
	char *path;
	int fd;

	cr_assert(asprintf(&path, "%s/missing", tmp) >= 0);
	cr_assert_eq(ldcache_load(path, &c, &err), -ENOENT);
	cr_assert_eq(cdi_error_count(&err),
		     0); /* the caller decides whether a missing cache matters */
	free(path);

	cr_assert_lt(ldcache_load(tmp, &c, &err), 0); /* a directory */
	cr_assert(strstr(cdi_error_message(&err), "not a regular file"));
	cdi_error_reset(&err);

	/* bigger than the cap (a sparse file) */
	cr_assert(asprintf(&path, "%s/huge", tmp) >= 0);
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	cr_assert(fd >= 0);
	cr_assert_eq(ftruncate(fd, (off_t)LDCACHE_MAX_SIZE + 1), 0);
	close(fd);
	cr_assert_eq(ldcache_load(path, &c, &err), -EFBIG);
	cr_assert(strstr(cdi_error_message(&err), path));
	cdi_error_reset(&err);
	free(path);
}
