/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The cache file: a fixed header, then the packed trees.
 *   magic      8 bytes "cdikit\0c"
 *   version    u32, CACHE_VERSION: another one is ignored (and rewritten by cdi-generate)
 *   flags      u32, CACHE_STRICT: the spec's tree passed the strict check
 *   spec id    7 x u64 of the spec file: st_dev, st_ino, st_size, st_mtim (s, ns), st_ctim (s, ns)
 *   companion id  the same of the companion file; all zero: no companion tree
 *   spec len   u64, the packed spec tree's bytes, right after the header
 *   companion len u64, the packed companion tree's, after the spec's, to the end of the file
 * Numbers are little endian.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "le.h"
#include "load.h"
#include "macro.h"
#include "spec_cache.h"
#include "tree_pack.h"

#define CACHE_MAGIC "cdikit\0c"
#define CACHE_VERSION 2u
#define CACHE_STRICT 1u
#define ID_WORDS 7
#define OFF_FLAGS 12
#define OFF_SPEC_ID 16
#define OFF_COMPANION_ID (OFF_SPEC_ID + 8 * ID_WORDS)
#define OFF_SPEC_LEN (OFF_COMPANION_ID + 8 * ID_WORDS)
#define OFF_COMPANION_LEN (OFF_SPEC_LEN + 8)
#define HEADER_BYTES (OFF_COMPANION_LEN + 8)
_Static_assert(HEADER_BYTES == SPEC_CACHE_HEADER_BYTES, "the header's size");

static void identity_of(const struct stat *st, uint64_t id[ID_WORDS])
{
	memset(id, 0, ID_WORDS * sizeof(*id));
	if (!st)
		return;
	id[0] = (uint64_t)st->st_dev;
	id[1] = (uint64_t)st->st_ino;
	id[2] = (uint64_t)st->st_size;
	id[3] = (uint64_t)st->st_mtim.tv_sec;
	id[4] = (uint64_t)st->st_mtim.tv_nsec;
	id[5] = (uint64_t)st->st_ctim.tv_sec;
	id[6] = (uint64_t)st->st_ctim.tv_nsec;
}

static void put_identity(unsigned char *p, const struct stat *st)
{
	uint64_t id[ID_WORDS];

	identity_of(st, id);
	for (int i = 0; i < ID_WORDS; i++)
		le_put(p + 8 * i, id[i], 8);
}

static bool same_identity(const unsigned char *p, const struct stat *st)
{
	uint64_t id[ID_WORDS];

	identity_of(st, id);
	for (int i = 0; i < ID_WORDS; i++)
		if (le_get(p + 8 * i, 8) != id[i])
			return false;
	return true;
}

int spec_cache_encode(const json_t *spec, const struct stat *spec_st, const json_t *companion,
		      const struct stat *companion_st, char **ret, size_t *ret_len)
{
	_cleanup_free_ char *buf = malloc(HEADER_BYTES);
	size_t len = HEADER_BYTES, cap = HEADER_BYTES, spec_end;
	unsigned char *h;
	int r;

	if (!buf)
		return -ENOMEM;
	r = tree_pack(spec, &buf, &len, &cap);
	spec_end = len;
	if (r >= 0 && companion)
		r = tree_pack(companion, &buf, &len, &cap);
	if (r < 0)
		return r;
	h = (unsigned char *)buf;
	memcpy(h, CACHE_MAGIC, 8);
	le_put(h + 8, CACHE_VERSION, 4);
	le_put(h + OFF_FLAGS, CACHE_STRICT, 4);
	put_identity(h + OFF_SPEC_ID, spec_st);
	put_identity(h + OFF_COMPANION_ID, companion ? companion_st : NULL);
	le_put(h + OFF_SPEC_LEN, spec_end - HEADER_BYTES, 8);
	le_put(h + OFF_COMPANION_LEN, len - spec_end, 8);
	*ret = TAKE_PTR(buf);
	*ret_len = len;
	return 0;
}

static bool header_ok(const unsigned char *h, size_t len)
{
	return len >= HEADER_BYTES && memcmp(h, CACHE_MAGIC, 8) == 0 &&
	       le_get(h + 8, 4) == CACHE_VERSION;
}

bool spec_cache_describes(const void *buf, size_t len, const struct stat *spec_st,
			  const struct stat *companion_st)
{
	const unsigned char *h = buf;

	return header_ok(h, len) && same_identity(h + OFF_SPEC_ID, spec_st) &&
	       same_identity(h + OFF_COMPANION_ID, companion_st);
}

/* The cache beside name (relative to dirfd), if it is as trusted as a file of owner uid: its fd
 * and its header, or -errno. */
static int open_cache(int dirfd, const char *name, uid_t uid, unsigned char header[HEADER_BYTES],
		      struct stat *ret_st)
{
	_cleanup_free_ char *cache = NULL;
	_cleanup_close_ int fd = -1;

	if (asprintf(&cache, "%s" CDI_SPEC_CACHE_SUFFIX, name) < 0)
		return -ENOMEM;
	fd = cdi_open_regular_at(dirfd, cache, O_NOFOLLOW, ret_st);
	if (fd < 0)
		return fd;
	/* As trusted as the file it stands for, or not used: a user who may write the cache but not
	 * the spec must not be able to change what the spec says. */
	if (ret_st->st_uid != uid || (ret_st->st_mode & 022))
		return -EPERM;
	if (pread(fd, header, HEADER_BYTES, 0) != HEADER_BYTES || !header_ok(header, HEADER_BYTES))
		return -ESTALE;
	return TAKE_FD(fd);
}

/* The lengths of the two packed trees, which with the header must make the file's size. */
static bool sections(const unsigned char *h, const struct stat *st, uint64_t *spec_len,
		     uint64_t *companion_len)
{
	*spec_len = le_get(h + OFF_SPEC_LEN, 8);
	*companion_len = le_get(h + OFF_COMPANION_LEN, 8);
	return *spec_len <= (uint64_t)st->st_size && *companion_len <= (uint64_t)st->st_size &&
	       HEADER_BYTES + *spec_len + *companion_len == (uint64_t)st->st_size;
}

/* The packed tree of len bytes at off in the cache fd. */
static int unpack_at(int fd, uint64_t off, uint64_t len, json_t **ret)
{
	_cleanup_free_ char *buf = NULL;

	/* The packed tree is about as long as the file's text; a cache far beyond is not one. */
	if (len > 2 * CDI_SPEC_MAX_BYTES)
		return -EINVAL;
	buf = malloc(len ? len : 1);
	if (!buf)
		return -ENOMEM;
	if (pread(fd, buf, len, (off_t)off) != (ssize_t)len)
		return -EINVAL;
	return tree_unpack(buf, len, ret);
}

/* The spec's tree (companion: the companion file's) of the cache fd with header h and fstat
 * cache_st, if the header names that file as file_st shows it. */
static int unpack_tree(int fd, const unsigned char *h, const struct stat *cache_st, bool companion,
		       const struct stat *file_st, json_t **ret)
{
	uint64_t spec_len, companion_len;

	if (!same_identity(h + (companion ? OFF_COMPANION_ID : OFF_SPEC_ID), file_st))
		return -ESTALE;
	if (!sections(h, cache_st, &spec_len, &companion_len))
		return -EINVAL;
	return companion ? unpack_at(fd, HEADER_BYTES + spec_len, companion_len, ret)
			 : unpack_at(fd, HEADER_BYTES, spec_len, ret);
}

int spec_cache_load_at(int dirfd, const char *spec_name, const struct stat *spec_st,
		       unsigned load_flags, json_t **ret)
{
	unsigned char h[HEADER_BYTES];
	_cleanup_close_ int fd = -1;
	struct stat st;

	*ret = NULL;
	fd = open_cache(dirfd, spec_name, spec_st->st_uid, h, &st);
	if (fd < 0)
		return fd;
	if ((load_flags & CDI_LOAD_STRICT) && !(le_get(h + OFF_FLAGS, 4) & CACHE_STRICT))
		return -ESTALE;
	return unpack_tree(fd, h, &st, false, spec_st, ret);
}

int spec_cache_load_companion(const char *spec_path, const char *companion_path, json_t **ret)
{
	unsigned char h[HEADER_BYTES];
	_cleanup_close_ int fd = -1;
	struct stat fst, st;

	*ret = NULL;
	if (lstat(companion_path, &fst) < 0)
		return -errno;
	if (!S_ISREG(fst.st_mode))
		return -EINVAL;
	fd = open_cache(AT_FDCWD, spec_path, fst.st_uid, h, &st);
	if (fd < 0)
		return fd;
	return unpack_tree(fd, h, &st, true, &fst, ret);
}
