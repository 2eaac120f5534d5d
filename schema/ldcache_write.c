/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Writing glibc's ld.so.cache in the format glibc >= 2.32 writes by default (elf/cache.c,
 * save_cache with opt_format_new), and the order its loader binary-searches (elf/dl-cache.c,
 * search_cache): a 48-byte header, 24-byte entries, the string table, and at a 4-byte aligned
 * offset the extension directory, followed by the glibc-hwcaps name table and the generator
 * string, as ldconfig lays them out. Every string offset counts from the start of the file.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ldcache.h"
#include "macro.h"
#include "problem.h"
#include "strv.h"

#define MAGIC "glibc-ld.so.cache1.1"
#define HEADER_SIZE 48
#define ENTRY_SIZE 24
#define EXT_MAGIC 0xeaa42174u
#define EXT_TAG_GENERATOR 0
#define EXT_TAG_HWCAPS 1
#define ENDIAN_CURRENT (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? 2 : 3)

int ldcache_libcmp(const char *p1, const char *p2)
{
	while (*p1) {
		if (*p1 >= '0' && *p1 <= '9') {
			unsigned long v1, v2;

			if (!(*p2 >= '0' && *p2 <= '9'))
				return 1;
			/* glibc sums into an int; digit runs that long do not occur in sonames */
			for (v1 = 0; *p1 >= '0' && *p1 <= '9'; p1++)
				v1 = v1 * 10 + (unsigned long)(*p1 - '0');
			for (v2 = 0; *p2 >= '0' && *p2 <= '9'; p2++)
				v2 = v2 * 10 + (unsigned long)(*p2 - '0');
			if (v1 != v2)
				return v1 < v2 ? -1 : 1;
		} else if (*p2 >= '0' && *p2 <= '9') {
			return -1;
		} else if (*p1 != *p2) {
			return *p1 -
			       *p2; /* plain char, as glibc: the order of bytes >= 0x80 follows */
		} else {
			p1++;
			p2++;
		}
	}
	return -*p2;
}

int ldcache_compare_key_flags(const struct ldcache_entry *a, const struct ldcache_entry *b)
{
	int r = ldcache_libcmp(b->key, a->key);

	if (r != 0)
		return r;
	if (a->flags != b->flags)
		return a->flags > b->flags ? -1 : 1;
	return 0;
}

/* The legacy hwcap ldconfig sorts by: glibc-hwcaps entries have none (their field is an index). */
static uint64_t legacy_hwcap(const struct ldcache_entry *e)
{
	return ldcache_entry_is_hwcaps(e) ? 0 : e->hwcap;
}

int ldcache_compare(const struct ldcache_entry *a, const struct ldcache_entry *b)
{
	bool ha = ldcache_entry_is_hwcaps(a), hb = ldcache_entry_is_hwcaps(b);
	uint64_t ca = legacy_hwcap(a), cb = legacy_hwcap(b);
	int bits_a = __builtin_popcountll(ca), bits_b = __builtin_popcountll(cb);
	int r = ldcache_compare_key_flags(a, b);

	if (r != 0)
		return r;
	/* The loader stops at the first entry that is not a glibc-hwcaps one: those come first. */
	if (ha != hb)
		return ha ? -1 : 1;
	if (ha) {
		r = strcmp(a->hwcaps ? a->hwcaps : "", b->hwcaps ? b->hwcaps : "");
		if (r != 0)
			return r;
	}
	if (bits_a != bits_b)
		return bits_a > bits_b ? -1 : 1;
	if (ca != cb)
		return ca > cb ? -1 : 1;
	if (a->osversion != b->osversion)
		return a->osversion > b->osversion ? -1 : 1;
	return 0;
}

static void wr32(char *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

static void wr64(char *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* The distinct glibc-hwcaps names of the entries, sorted (their index is their position). */
static int collect_hwcaps(const struct ldcache_entry *entries, size_t n, const char ***ret,
			  size_t *ret_n, struct cdi_error *err)
{
	_cleanup_free_ const char **names = NULL;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (!ldcache_entry_is_hwcaps(&entries[i]))
			continue;
		if (!entries[i].hwcaps)
			return cdi_fail(err, -EINVAL,
					"ld.so.cache entry %s: glibc-hwcaps entry without a name",
					entries[i].value);
		if (!names) {
			names = malloc(n * sizeof(*names));
			if (!names)
				return cdi_fail(err, -ENOMEM, "out of memory");
		}
		names[k++] = entries[i].hwcaps;
	}
	if (k > 1) {
		size_t u = 1;

		qsort(names, k, sizeof(*names), strv_cmp);
		for (size_t i = 1; i < k; i++)
			if (strcmp(names[i], names[u - 1]) != 0)
				names[u++] = names[i];
		k = u;
	}
	*ret = TAKE_PTR(names);
	*ret_n = k;
	return 0;
}

static uint32_t hwcaps_index(const char *const *names, size_t n, const char *name)
{
	const char *const *hit = bsearch(&name, names, n, sizeof(*names), strv_cmp);

	return (uint32_t)(hit - names);
}

/* A key that is the value's last path component shares its bytes, as ldconfig's table does. */
static bool key_is_tail(const struct ldcache_entry *e, size_t *ret_skip)
{
	size_t kl = strlen(e->key), vl = strlen(e->value);

	if (vl <= kl || e->value[vl - kl - 1] != '/' || strcmp(e->value + vl - kl, e->key) != 0)
		return false;
	*ret_skip = vl - kl;
	return true;
}

int ldcache_build(const struct ldcache_entry *entries, size_t n, const char *generator,
		  char **ret_data, size_t *ret_size, struct cdi_error *err)
{
	_cleanup_free_ const char **names = NULL;
	_cleanup_free_ char *out = NULL;
	size_t n_names = 0, strings = HEADER_SIZE + n * ENTRY_SIZE, len_strings = 0;
	size_t gen_len = generator ? strlen(generator) : 0, ext_off, pos, n_sections, size, skip;
	int r;

	if (n > (LDCACHE_MAX_SIZE - HEADER_SIZE) / ENTRY_SIZE)
		return cdi_fail(err, -EFBIG, "ld.so.cache: %zu entries, too many", n);
	r = collect_hwcaps(entries, n, &names, &n_names, err);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		len_strings += strlen(entries[i].value) + 1;
		if (!key_is_tail(&entries[i], &skip))
			len_strings += strlen(entries[i].key) + 1;
		if (len_strings > LDCACHE_MAX_SIZE)
			return cdi_fail(err, -EFBIG, "ld.so.cache: strings exceed %u bytes",
					LDCACHE_MAX_SIZE);
	}
	for (size_t i = 0; i < n_names; i++)
		len_strings += strlen(names[i]) + 1;
	n_sections = n_names ? 2 : 1;
	ext_off = (strings + len_strings + 3) & ~(size_t)3;
	size = ext_off + 8 + 16 * n_sections + 4 * n_names + gen_len;
	if (size > LDCACHE_MAX_SIZE)
		return cdi_fail(err, -EFBIG, "ld.so.cache: %zu bytes, more than the %u-byte limit",
				size, LDCACHE_MAX_SIZE);
	out = calloc(1, size);
	if (!out)
		return cdi_fail(err, -ENOMEM, "out of memory");

	memcpy(out, MAGIC, strlen(MAGIC));
	wr32(out + 20, (uint32_t)n);
	wr32(out + 24, (uint32_t)len_strings);
	out[28] = ENDIAN_CURRENT;
	wr32(out + 32, (uint32_t)ext_off);

	pos = strings;
	for (size_t i = 0; i < n; i++) {
		const struct ldcache_entry *e = &entries[i];
		char *rec = out + HEADER_SIZE + i * ENTRY_SIZE;
		size_t value = pos, key, vl = strlen(e->value) + 1;
		uint64_t hwcap = e->hwcap;

		memcpy(out + pos, e->value, vl);
		pos += vl;
		if (key_is_tail(e, &skip)) {
			key = value + skip;
		} else {
			key = pos;
			memcpy(out + pos, e->key, strlen(e->key) + 1);
			pos += strlen(e->key) + 1;
		}
		if (ldcache_entry_is_hwcaps(e))
			hwcap = LDCACHE_HWCAP_EXTENSION |
				(hwcap & ((uint64_t)LDCACHE_HWCAP_ISA_LEVEL_MASK << 32)) |
				hwcaps_index(names, n_names, e->hwcaps);
		wr32(rec, (uint32_t)e->flags);
		wr32(rec + 4, (uint32_t)key);
		wr32(rec + 8, (uint32_t)value);
		wr32(rec + 12, e->osversion);
		wr64(rec + 16, hwcap);
	}

	/* Extension directory: the generator first, then the hwcaps table, as ldconfig orders. */
	{
		char *dir = out + ext_off;
		size_t table = ext_off + 8 + 16 * n_sections, gen = table + 4 * n_names;

		wr32(dir, EXT_MAGIC);
		wr32(dir + 4, (uint32_t)n_sections);
		wr32(dir + 8, EXT_TAG_GENERATOR);
		wr32(dir + 16, (uint32_t)gen);
		wr32(dir + 20, (uint32_t)gen_len);
		if (n_names) {
			wr32(dir + 24, EXT_TAG_HWCAPS);
			wr32(dir + 32, (uint32_t)table);
			wr32(dir + 36, (uint32_t)(4 * n_names));
		}
		for (size_t i = 0; i < n_names; i++) {
			size_t l = strlen(names[i]) + 1;

			wr32(out + table + 4 * i, (uint32_t)pos);
			memcpy(out + pos, names[i], l);
			pos += l;
		}
		if (gen_len)
			memcpy(out + gen, generator, gen_len);
	}
	*ret_size = size;
	*ret_data = TAKE_PTR(out);
	return 0;
}
