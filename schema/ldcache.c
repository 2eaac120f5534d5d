/* SPDX-License-Identifier: Apache-2.0 */
/*
 * glibc's ld.so.cache. Layout (glibc elf/cache.c, sysdeps/generic/dl-cache.h):
 *
 *   old combined format: "ld.so-1.7.0", pad to 12, uint32 nlibs, nlibs libc5
 *   entries {int32 flags, uint32 key, uint32 value}; then, aligned, the new format.
 *   new format: "glibc-ld.so.cache" "1.1", uint32 nlibs, uint32 len_strings,
 *   uint8 flags (endianness), 3 pad, uint32 extension_offset, 3 x uint32 unused
 *   (48 bytes); nlibs entries {int32 flags, uint32 key, uint32 value,
 *   uint32 osversion, uint64 hwcap} (24 bytes); then len_strings bytes of
 *   strings. key/value are offsets from the new header into those strings.
 *   glibc >= 2.33 appends an extension directory at extension_offset:
 *   uint32 magic 0xeaa42174, uint32 count, count x {uint32 tag, flags, offset, size}:
 *   tag 0 the generator string, tag 1 the glibc-hwcaps subdirectory names (uint32 string
 *   offsets). Those offsets, like extension_offset, count from the start of the file, as the
 *   loader reads them (dl-cache.c); ldconfig -c compat writes them so.
 *
 * Only the new-format entries are read (the libc5 ones are for a linker no
 * one runs). Every offset is checked against the file before it is followed,
 * so a truncated or hostile cache is an error rather than a wild read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch.h"
#include "ldcache.h"
#include "macro.h"
#include "problem.h"

#define OLD_MAGIC "ld.so-1.7.0"
#define OLD_MAGIC_LEN (sizeof(OLD_MAGIC) - 1)
#define OLD_HEADER_SIZE 16 /* magic[11], pad, uint32 nlibs */
#define OLD_ENTRY_SIZE 12

#define NEW_MAGIC "glibc-ld.so.cache1.1"
#define NEW_MAGIC_LEN (sizeof(NEW_MAGIC) - 1)
#define NEW_HEADER_SIZE 48
#define NEW_ENTRY_SIZE 24
#define NEW_OFF_NLIBS 20
#define NEW_OFF_LEN_STRINGS 24
#define NEW_OFF_FLAGS 28
#define NEW_OFF_EXTENSION 32

/* Header flags byte: cache_file_new_flags_endian_* in glibc. */
#define ENDIAN_UNSET 0
#define ENDIAN_LITTLE 2
#define ENDIAN_BIG 3

#define EXT_MAGIC 0xeaa42174u
#define EXT_HEADER_SIZE 8
#define EXT_SECTION_SIZE 16
#define EXT_TAG_GENERATOR 0
#define EXT_TAG_HWCAPS 1

static uint32_t rd32(const char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t rd64(const char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

int ldcache_flags_for_elf(unsigned char elf_class, uint16_t machine, int needs_libc6)
{
	const struct arch_abi *abi = arch_by_elf(elf_class, machine);

	if (!abi)
		return -1;
	/* 64-bit objects are always libc6 to ldconfig; 32-bit ones only when they need libc.so.6
	 * (readelflib.c), else plain ELF, which the loader accepts as well. */
	if (abi == &arch_native)
		return (int)(abi->cache_flags | LDCACHE_FLAG_LIBC6);
	return (int)(abi->cache_flags | (needs_libc6 ? LDCACHE_FLAG_LIBC6 : LDCACHE_FLAG_ELF));
}

const char *ldcache_arch_name(unsigned arch)
{
	switch (arch & LDCACHE_FLAG_ARCH_MASK) {
	case LDCACHE_ARCH_I386:
		return "i386";
	case 0x0100:
		return "sparc64";
	case 0x0200:
		return "ia64";
	case LDCACHE_ARCH_X86_64:
		return "x86-64";
	case 0x0400:
		return "s390x";
	case LDCACHE_ARCH_PPC64:
		return "ppc64";
	case LDCACHE_ARCH_X32:
		return "x32";
	case LDCACHE_ARCH_ARM_HF:
		return "arm-hf";
	case LDCACHE_ARCH_AARCH64:
		return "aarch64";
	case 0x0b00:
		return "arm-sf";
	case 0x1000:
		return "riscv64-double";
	}
	return NULL;
}

void ldcache_free(struct ldcache *cache)
{
	if (!cache)
		return;
	free(cache->entries);
	free(cache->data);
	free(cache);
}

/* The header of the new format starts at *ret_off: right at 0, or after the libc5 table. */
static int find_new_header(const char *d, size_t size, const char *name, size_t *ret_off,
			   int *ret_old, struct cdi_error *err)
{
	size_t off, aligned;
	uint32_t nlibs;

	if (size >= NEW_MAGIC_LEN && memcmp(d, NEW_MAGIC, NEW_MAGIC_LEN) == 0) {
		*ret_off = 0;
		*ret_old = 0;
		return 0;
	}
	if (size < OLD_MAGIC_LEN || memcmp(d, OLD_MAGIC, OLD_MAGIC_LEN) != 0)
		return cdi_fail(
			err, -EINVAL,
			"%s: not an ld.so.cache (no glibc-ld.so.cache1.1 or ld.so-1.7.0 magic)",
			name);
	if (size < OLD_HEADER_SIZE)
		return cdi_fail(err, -EINVAL, "%s: truncated in the ld.so-1.7.0 header (%zu bytes)",
				name, size);
	nlibs = rd32(d + 12);
	if (nlibs > (size - OLD_HEADER_SIZE) / OLD_ENTRY_SIZE)
		return cdi_fail(
			err, -EINVAL,
			"%s: ld.so-1.7.0 header lists %u entries, more than the %zu-byte file holds",
			name, nlibs, size);
	off = OLD_HEADER_SIZE + (size_t)nlibs * OLD_ENTRY_SIZE;
	/*
	 * ldconfig aligns the new header to the alignment of its entries
	 * (8 where uint64_t is 8-aligned, 4 on i386); accept either.
	 */
	aligned = (off + 7) & ~(size_t)7;
	if (aligned <= size && size - aligned >= NEW_MAGIC_LEN &&
	    memcmp(d + aligned, NEW_MAGIC, NEW_MAGIC_LEN) == 0)
		off = aligned;
	else if (!(size - off >= NEW_MAGIC_LEN && memcmp(d + off, NEW_MAGIC, NEW_MAGIC_LEN) == 0))
		return cdi_fail(
			err, -EINVAL,
			"%s: no glibc-ld.so.cache1.1 header after the %u ld.so-1.7.0 entries (libc5-only caches are not supported)",
			name, nlibs);
	*ret_off = off;
	*ret_old = 1;
	return 0;
}

/* A string at offset rel from the new header, inside [lo, hi), NUL-terminated there. */
static const char *string_at(const char *base, uint32_t rel, size_t lo, size_t hi)
{
	if (rel < lo || rel >= hi)
		return NULL;
	if (!memchr(base + rel, '\0', hi - rel))
		return NULL;
	return base + rel;
}

/* The extension sections, offsets from the start of the file. ret_hwcaps: the glibc-hwcaps
 * name table, left empty when the loader would ignore it (empty, unaligned, size % 4). */
static int parse_extensions(struct ldcache *c, uint32_t ext_off, const char *name,
			    const char **ret_hwcaps, size_t *ret_n_hwcaps, struct cdi_error *err)
{
	const char *base = c->data;
	size_t avail = c->size;
	uint32_t count;

	if (ext_off % 4 != 0 || ext_off > avail || avail - ext_off < EXT_HEADER_SIZE)
		return cdi_fail(err, -EINVAL,
				"%s: extension directory at offset %u is outside the file", name,
				ext_off);
	if (rd32(base + ext_off) != EXT_MAGIC)
		return cdi_fail(err, -EINVAL, "%s: bad extension directory magic at offset %u",
				name, ext_off);
	count = rd32(base + ext_off + 4);
	if (count > (avail - ext_off - EXT_HEADER_SIZE) / EXT_SECTION_SIZE)
		return cdi_fail(
			err, -EINVAL,
			"%s: extension directory lists %u sections, more than the file holds", name,
			count);
	for (uint32_t i = 0; i < count; i++) {
		const char *s = base + ext_off + EXT_HEADER_SIZE + (size_t)i * EXT_SECTION_SIZE;
		uint32_t tag = rd32(s), off = rd32(s + 8), len = rd32(s + 12);

		if (off > avail || len > avail - off)
			return cdi_fail(
				err, -EINVAL,
				"%s: extension section %u (tag %u) at offset %u, %u bytes, is outside the file",
				name, i, tag, off, len);
		if (tag == EXT_TAG_GENERATOR) {
			c->generator = base + off;
			c->generator_len = len;
		} else if (tag == EXT_TAG_HWCAPS && len > 0 && off % 4 == 0 && len % 4 == 0) {
			*ret_hwcaps = base + off;
			*ret_n_hwcaps = len / 4;
		}
	}
	return 0;
}

/* Each glibc-hwcaps entry gets its subdirectory's name where the table and string are sound (the
 * loader skips the others, as it finds no priority for them). */
static void name_hwcaps_entries(struct ldcache *c, const char *table, size_t n)
{
	for (size_t i = 0; i < c->n_entries; i++) {
		struct ldcache_entry *e = &c->entries[i];
		uint32_t idx = (uint32_t)e->hwcap;

		if (ldcache_entry_is_hwcaps(e) && idx < n)
			e->hwcaps = string_at(c->data, rd32(table + (size_t)idx * 4), 0, c->size);
	}
}

/* Parse data (owned by c already). */
static int parse(struct ldcache *c, const char *name, struct cdi_error *err)
{
	const char *base;
	size_t off = 0, avail, strings_lo, strings_hi;
	uint32_t nlibs, len_strings, ext_off;
	unsigned char endian;
	int r;

	r = find_new_header(c->data, c->size, name, &off, &c->old_format, err);
	if (r < 0)
		return r;
	base = c->data + off;
	avail = c->size - off;
	if (avail < NEW_HEADER_SIZE)
		return cdi_fail(err, -EINVAL,
				"%s: truncated in the glibc-ld.so.cache header at offset %zu", name,
				off);

	endian = (unsigned char)base[NEW_OFF_FLAGS];
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (endian != ENDIAN_UNSET && endian != ENDIAN_LITTLE)
#else
	if (endian != ENDIAN_UNSET && endian != ENDIAN_BIG)
#endif
		return cdi_fail(err, -EINVAL,
				"%s: written for the other byte order or corrupt (flags %u)", name,
				endian);

	nlibs = rd32(base + NEW_OFF_NLIBS);
	len_strings = rd32(base + NEW_OFF_LEN_STRINGS);
	ext_off = rd32(base + NEW_OFF_EXTENSION);
	if (nlibs > (avail - NEW_HEADER_SIZE) / NEW_ENTRY_SIZE)
		return cdi_fail(err, -EINVAL,
				"%s: header lists %u entries, more than the %zu-byte file holds",
				name, nlibs, c->size);
	strings_lo = NEW_HEADER_SIZE + (size_t)nlibs * NEW_ENTRY_SIZE;
	if (len_strings > avail - strings_lo)
		return cdi_fail(
			err, -EINVAL,
			"%s: string table of %u bytes at offset %zu runs past the end of the file (%zu bytes)",
			name, len_strings, off + strings_lo, c->size);
	strings_hi = strings_lo + len_strings;

	c->entries = calloc(nlibs ? nlibs : 1, sizeof(*c->entries));
	if (!c->entries)
		return cdi_fail(err, -ENOMEM, "%s: out of memory", name);
	for (uint32_t i = 0; i < nlibs; i++) {
		const char *e = base + NEW_HEADER_SIZE + (size_t)i * NEW_ENTRY_SIZE;
		struct ldcache_entry *out = &c->entries[i];
		uint32_t key = rd32(e + 4), value = rd32(e + 8);

		memcpy(&out->flags, e, sizeof(out->flags));
		out->osversion = rd32(e + 12);
		out->hwcap = rd64(e + 16);
		out->key = string_at(base, key, strings_lo, strings_hi);
		out->value = string_at(base, value, strings_lo, strings_hi);
		if (!out->key || !out->value)
			return cdi_fail(
				err, -EINVAL,
				"%s: entry %u: %s offset %u is outside the string table [%zu, %zu) or not terminated",
				name, i, out->key ? "value" : "key", out->key ? value : key,
				strings_lo, strings_hi);
	}
	c->n_entries = nlibs;

	if (ext_off != 0) {
		const char *hwcaps = NULL;
		size_t n_hwcaps = 0;

		r = parse_extensions(c, ext_off, name, &hwcaps, &n_hwcaps, err);
		if (r < 0)
			return r;
		name_hwcaps_entries(c, hwcaps, n_hwcaps);
	}
	return 0;
}

static int parse_owned(char *data, size_t size, const char *name, struct ldcache **ret,
		       struct cdi_error *err)
{
	_cleanup_ldcache_ struct ldcache *c = NULL;
	int r;

	c = calloc(1, sizeof(*c));
	if (!c) {
		free(data);
		return cdi_fail(err, -ENOMEM, "%s: out of memory", name);
	}
	c->data = data;
	c->size = size;
	r = parse(c, name, err);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(c);
	return 0;
}

int ldcache_parse(const void *data, size_t size, const char *name, struct ldcache **ret,
		  struct cdi_error *err)
{
	char *copy;

	if (!name)
		name = "ld.so.cache";
	if (size > LDCACHE_MAX_SIZE)
		return cdi_fail(err, -EFBIG, "%s: %zu bytes, more than the %u-byte limit", name,
				size, LDCACHE_MAX_SIZE);
	/* At least one byte, so an empty cache is still a valid allocation. */
	copy = malloc(size ? size : 1);
	if (!copy)
		return cdi_fail(err, -ENOMEM, "%s: out of memory", name);
	if (size)
		memcpy(copy, data, size);
	return parse_owned(copy, size, name, ret, err);
}

int ldcache_load(const char *path, struct ldcache **ret, struct cdi_error *err)
{
	_cleanup_close_ int fd = -1;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		int r = negative_errno();

		if (r == -ENOENT)
			return r; /* a host without a cache is the caller's call */
		return cdi_fail(err, r, "%s: cannot open: %s", path, strerror(-r));
	}
	return ldcache_load_fd(fd, path, ret, err);
}

int ldcache_load_fd(int fd, const char *path, struct ldcache **ret, struct cdi_error *err)
{
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	size_t got = 0;

	if (fstat(fd, &st) < 0) {
		int r = negative_errno();

		return cdi_fail(err, r, "%s: cannot stat: %s", path, strerror(-r));
	}
	if (!S_ISREG(st.st_mode))
		return cdi_fail(err, -EINVAL, "%s: not a regular file", path);
	if (st.st_size < 0 || (uint64_t)st.st_size > LDCACHE_MAX_SIZE)
		return cdi_fail(err, -EFBIG, "%s: %lld bytes, more than the %u-byte limit", path,
				(long long)st.st_size, LDCACHE_MAX_SIZE);
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return cdi_fail(err, -ENOMEM, "%s: out of memory", path);
	/* Read what the file holds now, up to the size seen; a file that shrank is just shorter. */
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n < 0) {
			int r = negative_errno();

			if (r == -EINTR)
				continue;
			return cdi_fail(err, r, "%s: read error: %s", path, strerror(-r));
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return parse_owned(TAKE_PTR(buf), got, path, ret, err);
}
