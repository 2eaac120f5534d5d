/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The cache file: a fixed header, then the packed tree.
 *   magic     8 bytes "cdikit\0c"
 *   version   u32, CACHE_VERSION: another one is ignored (and rewritten by cdi-generate)
 *   flags     u32, CACHE_STRICT: the tree passed the strict check
 *   identity  7 x u64 of the spec file: st_dev, st_ino, st_size, st_mtim (s, ns), st_ctim (s, ns)
 *   length    u64, of the packed tree that follows, to the end of the file
 * Numbers are little endian.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "load.h"
#include "macro.h"
#include "spec_cache.h"
#include "tree_pack.h"

#define CACHE_MAGIC "cdikit\0c"
#define CACHE_VERSION 1u
#define CACHE_STRICT 1u
#define IDENTITY_WORDS 7
#define HEADER_BYTES (8 + 4 + 4 + 8 * IDENTITY_WORDS + 8)

static void identity_of(const struct stat *st, uint64_t id[IDENTITY_WORDS])
{
	id[0] = (uint64_t)st->st_dev;
	id[1] = (uint64_t)st->st_ino;
	id[2] = (uint64_t)st->st_size;
	id[3] = (uint64_t)st->st_mtim.tv_sec;
	id[4] = (uint64_t)st->st_mtim.tv_nsec;
	id[5] = (uint64_t)st->st_ctim.tv_sec;
	id[6] = (uint64_t)st->st_ctim.tv_nsec;
}

static void le_put(unsigned char *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t le_get(const unsigned char *p, int bytes)
{
	uint64_t v = 0;

	for (int i = bytes - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

int spec_cache_encode(const json_t *spec, const struct stat *spec_st, char **ret, size_t *ret_len)
{
	_cleanup_free_ char *buf = malloc(HEADER_BYTES);
	size_t len = HEADER_BYTES, cap = HEADER_BYTES;
	uint64_t id[IDENTITY_WORDS];
	unsigned char *h;
	int r;

	if (!buf)
		return -ENOMEM;
	r = tree_pack(spec, &buf, &len, &cap);
	if (r < 0)
		return r;
	h = (unsigned char *)buf;
	memcpy(h, CACHE_MAGIC, 8);
	le_put(h + 8, CACHE_VERSION, 4);
	le_put(h + 12, CACHE_STRICT, 4);
	identity_of(spec_st, id);
	for (int i = 0; i < IDENTITY_WORDS; i++)
		le_put(h + 16 + 8 * i, id[i], 8);
	le_put(h + 16 + 8 * IDENTITY_WORDS, len - HEADER_BYTES, 8);
	*ret = TAKE_PTR(buf);
	*ret_len = len;
	return 0;
}

bool spec_cache_describes(const void *buf, size_t len, const struct stat *spec_st)
{
	const unsigned char *h = buf;
	uint64_t id[IDENTITY_WORDS];

	if (len < HEADER_BYTES || memcmp(h, CACHE_MAGIC, 8) != 0 ||
	    le_get(h + 8, 4) != CACHE_VERSION)
		return false;
	identity_of(spec_st, id);
	for (int i = 0; i < IDENTITY_WORDS; i++)
		if (le_get(h + 16 + 8 * i, 8) != id[i])
			return false;
	return true;
}

int spec_cache_load_at(int dirfd, const char *spec_name, const struct stat *spec_st,
		       unsigned load_flags, json_t **ret)
{
	_cleanup_free_ char *name = NULL, *buf = NULL;
	_cleanup_close_ int fd = -1;
	const unsigned char *h;
	struct stat st;
	size_t len;
	int r;

	*ret = NULL;
	if (asprintf(&name, "%s" CDI_SPEC_CACHE_SUFFIX, spec_name) < 0)
		return -ENOMEM;
	fd = cdi_open_regular_at(dirfd, name, O_NOFOLLOW, &st);
	if (fd < 0)
		return fd;
	/* As trusted as the spec, or not used: a user who may write the cache but not the spec
	 * must not be able to change what the spec says. */
	if (st.st_uid != spec_st->st_uid || (st.st_mode & 022))
		return -EPERM;
	/* The packed tree is about as long as the spec's text; a cache far beyond is not one. */
	r = cdi_read_fd(fd, (size_t)st.st_size, 2 * CDI_SPEC_MAX_BYTES, &buf, &len);
	if (r < 0)
		return r;
	if (!spec_cache_describes(buf, len, spec_st))
		return -ESTALE;
	h = (const unsigned char *)buf;
	if ((load_flags & CDI_LOAD_STRICT) && !(le_get(h + 12, 4) & CACHE_STRICT))
		return -ESTALE;
	if (le_get(h + 16 + 8 * IDENTITY_WORDS, 8) != len - HEADER_BYTES)
		return -EINVAL;
	return tree_unpack(buf + HEADER_BYTES, len - HEADER_BYTES, ret);
}
