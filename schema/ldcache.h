/* SPDX-License-Identifier: Apache-2.0 */
/* glibc's ld.so.cache, read and bounds-checked (internal). */
#ifndef CDIKIT_LDCACHE_H
#define CDIKIT_LDCACHE_H

#include <stddef.h>
#include <stdint.h>

#include <cdi/error.h>

/* A cache bigger than this is refused (a real one is well under 1 MiB). */
#define LDCACHE_MAX_SIZE (64u << 20)

/* Entry flags, as glibc's ldconfig writes them (sysdeps/generic/ldconfig.h). */
#define LDCACHE_FLAG_TYPE_MASK 0x00ff
#define LDCACHE_FLAG_ELF 0x0001 /* any ELF; libc6 objects are 0x0003 */
#define LDCACHE_FLAG_ARCH_MASK 0xff00
#define LDCACHE_ARCH_I386 0x0000 /* also every other "no special ABI" entry */
#define LDCACHE_ARCH_X86_64 0x0300
#define LDCACHE_ARCH_PPC64 0x0500
#define LDCACHE_ARCH_X32 0x0800
#define LDCACHE_ARCH_ARM_HF 0x0900
#define LDCACHE_ARCH_AARCH64 0x0a00

struct ldcache_entry {
	int32_t flags;
	uint64_t hwcap;
	const char *key;   /* the soname or file name ("libcuda.so.1"), inside the cache's data */
	const char *value; /* the full path ("/usr/lib/x86_64-linux-gnu/libcuda.so.1") */
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

void ldcache_free(struct ldcache *cache);

static inline unsigned ldcache_entry_arch(const struct ldcache_entry *e)
{
	return (unsigned)e->flags & LDCACHE_FLAG_ARCH_MASK;
}

static inline int ldcache_entry_is_elf(const struct ldcache_entry *e)
{
	return ((unsigned)e->flags & LDCACHE_FLAG_ELF) != 0;
}

/* "x86-64", "i386", "aarch64", ... for the arch bits of flags, or NULL. */
const char *ldcache_arch_name(unsigned arch);

static inline void ldcache_freep(struct ldcache **c)
{
	ldcache_free(*c);
}
#define _cleanup_ldcache_ __attribute__((cleanup(ldcache_freep)))

#endif
