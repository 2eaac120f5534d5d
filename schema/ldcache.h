/* SPDX-License-Identifier: Apache-2.0 */
/* glibc's ld.so.cache: read and bounds-checked, written as ldconfig writes it (internal). */
#ifndef CDIKIT_LDCACHE_H
#define CDIKIT_LDCACHE_H

#include <stddef.h>
#include <stdint.h>

#include <cdi/error.h>

/* A cache bigger than this is refused (a real one is well under 1 MiB). */
#define LDCACHE_MAX_SIZE (64u << 20)

/* Entry flags, as glibc's ldconfig writes them (sysdeps/generic/ldconfig.h). */
#define LDCACHE_FLAG_TYPE_MASK 0x00ff
#define LDCACHE_FLAG_ELF 0x0001 /* any ELF */
#define LDCACHE_FLAG_LIBC6 0x0003
#define LDCACHE_FLAG_ARCH_MASK 0xff00
#define LDCACHE_ARCH_I386 0x0000 /* also every other "no special ABI" entry */
#define LDCACHE_ARCH_X86_64 0x0300
#define LDCACHE_ARCH_PPC64 0x0500
#define LDCACHE_ARCH_X32 0x0800
#define LDCACHE_ARCH_ARM_HF 0x0900
#define LDCACHE_ARCH_AARCH64 0x0a00

/* hwcap of an entry in a glibc-hwcaps subdirectory (glibc >= 2.33, sysdeps/generic/dl-cache.h):
 * this bit, the ISA level in bits 32..41 and the index of the subdirectory's name in the
 * extension section in the low 32 bits. */
#define LDCACHE_HWCAP_EXTENSION (UINT64_C(1) << 62)
#define LDCACHE_HWCAP_ISA_LEVEL_MASK 0x3ffu

struct ldcache_entry {
	int32_t flags;
	uint32_t osversion; /* the library's ABI tag (os << 24 | 2.3.99), 0 for most */
	uint64_t hwcap;
	const char *key;    /* the soname or file name ("libcuda.so.1"), inside the cache's data */
	const char *value;  /* the full path ("/usr/lib/x86_64-linux-gnu/libcuda.so.1") */
	const char *hwcaps; /* glibc-hwcaps subdirectory ("x86-64-v3") of an extension entry whose
			     * name the cache holds, else NULL */
};

struct ldcache {
	char *data; /* the whole file; every entry string points into it */
	size_t size;
	struct ldcache_entry *entries; /* in cache order (the order the linker searches) */
	size_t n_entries;
	int old_format;	       /* 1 when the file started with the ld.so-1.7.0 (libc5) header */
	const char *generator; /* ldconfig's self-description (extension section), or NULL */
	size_t generator_len;  /* not NUL-terminated in the file */
};

/*
 * Parse a cache held in memory. data is copied. name is only used in
 * messages. Every offset is checked against size: a truncated or corrupt
 * cache is an -EINVAL problem, never a read out of bounds.
 */
int ldcache_parse(const void *data, size_t size, const char *name, struct ldcache **ret,
		  struct cdi_error *err);

/* Read path (at most LDCACHE_MAX_SIZE bytes) and parse it. -ENOENT when missing. */
int ldcache_load(const char *path, struct ldcache **ret, struct cdi_error *err);
/* The same from an open fd (path names it in messages): a regular file only, never blocking on
 * one opened with O_NONBLOCK. */
int ldcache_load_fd(int fd, const char *path, struct ldcache **ret, struct cdi_error *err);

void ldcache_free(struct ldcache *cache);

static inline unsigned ldcache_entry_arch(const struct ldcache_entry *e)
{
	return (unsigned)e->flags & LDCACHE_FLAG_ARCH_MASK;
}

static inline int ldcache_entry_is_elf(const struct ldcache_entry *e)
{
	return ((unsigned)e->flags & LDCACHE_FLAG_ELF) != 0;
}

/* An entry of a glibc-hwcaps subdirectory (the hwcap field indexes the extension section). */
static inline int ldcache_entry_is_hwcaps(const struct ldcache_entry *e)
{
	return ((e->hwcap >> 32) & ~(uint64_t)LDCACHE_HWCAP_ISA_LEVEL_MASK) ==
	       (LDCACHE_HWCAP_EXTENSION >> 32);
}

/* "x86-64", "i386", "aarch64", ... for the arch bits of flags, or NULL. */
const char *ldcache_arch_name(unsigned arch);

/*
 * The flags ldconfig files an ELF shared object under on this machine's glibc
 * (sysdeps/unix/sysv/linux/<arch>/readelflib.c), from its class, machine and
 * whether it needs libc.so.6; -1 for an ABI the arch table does not know (x32).
 */
int ldcache_flags_for_elf(unsigned char elf_class, uint16_t machine, int needs_libc6);

/* glibc's _dl_cache_libcmp: names compared with digit runs as numbers ("so.10" > "so.9"). */
int ldcache_libcmp(const char *a, const char *b);

/*
 * The order ldconfig writes entries in and the loader's binary search expects (glibc elf/cache.c,
 * compare()): key by ldcache_libcmp descending, then flags descending; then, among one key and
 * flags, glibc-hwcaps entries first by subdirectory name, legacy hwcap entries by most bits set
 * and largest value, larger osversion first. Negative when a comes first.
 * ldcache_compare_key_flags is its first two steps: callers that rank entries of one soname
 * and flags themselves (the loader takes the first usable one) rank between the two.
 */
int ldcache_compare_key_flags(const struct ldcache_entry *a, const struct ldcache_entry *b);
int ldcache_compare(const struct ldcache_entry *a, const struct ldcache_entry *b);

/*
 * Serialise entries, in the order given, in glibc's current format ("glibc-ld.so.cache1.1",
 * no libc5 table, this machine's byte order): header, entries, string table, and the extension
 * directory with the glibc-hwcaps subdirectory names and generator as the generator string.
 * A glibc-hwcaps entry keeps its ISA level and gets the index of its hwcaps name. ret_data is
 * malloc'ed. -EFBIG past LDCACHE_MAX_SIZE, -EINVAL for a glibc-hwcaps entry without a name.
 */
int ldcache_build(const struct ldcache_entry *entries, size_t n, const char *generator,
		  char **ret_data, size_t *ret_size, struct cdi_error *err);

static inline void ldcache_freep(struct ldcache **c)
{
	ldcache_free(*c);
}
#define _cleanup_ldcache_ __attribute__((cleanup(ldcache_freep)))

#endif
