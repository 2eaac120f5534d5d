/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The spec cache (internal): NAME.yaml.cdikit-cache beside a spec cdi-generate wrote, holding
 * the spec's tree already parsed and checked (strictly), and the tree of one JSON companion
 * file the generator wrote beside it (cdi-generate's facts file, NAME.yaml.cdikit; the library
 * knows only that it is JSON), packed (tree_pack.h), each with the identity of the file it was
 * made from: device, inode, size, mtime and ctime. A reader that opens the spec (or the companion)
 * and finds a cache naming that very file (ctime cannot be set back, so any change shows) takes
 * the tree from the cache instead of parsing and checking 60 KB of YAML and 20 KB of JSON at
 * every container start. Anything else (no cache, another identity, another format, a cache
 * others could write, a damaged one) means reading the file as usual.
 */
#ifndef CDIKIT_SPEC_CACHE_H
#define CDIKIT_SPEC_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <jansson.h>

#include <cdi/spec.h>

#define CDI_SPEC_CACHE_SUFFIX ".cdikit-cache"

/*
 * The cache file's bytes: spec (a tree that passed the strict check) read from the file whose
 * fstat is spec_st, and companion (NULL: none) from the file whose fstat is companion_st. *ret is
 * the caller's to free. 0 or -ENOMEM, -EINVAL.
 */
int spec_cache_encode(const json_t *spec, const struct stat *spec_st, const json_t *companion,
		      const struct stat *companion_st, char **ret, size_t *ret_len);

/* Bytes of the header, all that spec_cache_describes() reads. */
#define SPEC_CACHE_HEADER_BYTES 144

/* Whether buf (a cache file's first len bytes) is a cache of the current format for the spec
 * file whose fstat is spec_st and the companion file whose fstat is companion_st (NULL: none). */
bool spec_cache_describes(const void *buf, size_t len, const struct stat *spec_st,
			  const struct stat *companion_st);

/*
 * The spec tree cached for the spec spec_name in the directory dirfd, whose fstat is spec_st,
 * if the cache there may stand for it under load_flags (CDI_LOAD_*); -ENOENT (or another
 * -errno) when it may not, and then the spec is to be read. A cache stands only if it is a
 * regular file owned by the spec's owner that no one else can write.
 */
int spec_cache_load_at(int dirfd, const char *spec_name, const struct stat *spec_st,
		       unsigned load_flags, json_t **ret);

/*
 * The companion tree cached beside spec_path for the file companion_path, under the same rules
 * (the companion must be a regular file, the cache owned by its owner); -errno when the
 * companion is to be read instead.
 */
int spec_cache_load_companion(const char *spec_path, const char *companion_path, json_t **ret);

/* A spec object for a tree that passed the check (spec.c); takes a reference to root. */
int cdi_spec_new_checked(const char *name, json_t *root, cdi_spec **ret);

#endif
