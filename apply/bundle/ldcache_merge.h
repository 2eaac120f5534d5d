/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A container's linker cache being put together from ranked sources (internal to apply/):
 * CUDA forward-compatibility libraries, the driver's injected libraries, the image's own cache.
 * The written cache is in ldconfig's order except that, among entries of one soname and flags,
 * a lower rank comes first: the loader takes the first usable entry of a name.
 */
#ifndef CDIKIT_APPLY_LDCACHE_MERGE_H
#define CDIKIT_APPLY_LDCACHE_MERGE_H

#include <stddef.h>

#include <cdi/error.h>

#include "ldcache.h"

enum ldcache_rank {
	LDCACHE_RANK_COMPAT, /* the image's newer CUDA compat libraries */
	LDCACHE_RANK_DRIVER, /* the libraries the CDI devices mounted */
	LDCACHE_RANK_IMAGE,  /* what the image's /etc/ld.so.cache had */
};

struct ldcache_merge_entry {
	struct ldcache_entry e; /* key, value and hwcaps point into strings owned by the merge */
	enum ldcache_rank rank;
	size_t seq; /* order of addition: the last tie-break, so the result is deterministic */
};

struct ldcache_merge {
	struct ldcache_merge_entry *v;
	size_t n, cap;
	char **strings; /* every string the entries point to */
	size_t n_strings, cap_strings;
};

/* Add one entry with copies of key, value and hwcaps (NULL unless a glibc-hwcaps entry). */
int ldcache_merge_add(struct ldcache_merge *m, const struct ldcache_entry *e,
		      enum ldcache_rank rank);

/*
 * Add the image's entries at LDCACHE_RANK_IMAGE, leaving out those the loader could not use
 * after a rewrite (a glibc-hwcaps entry whose name the cache lacks) and those already present
 * with the same key, flags and path (a cache this merge wrote before).
 */
int ldcache_merge_add_cache(struct ldcache_merge *m, const struct ldcache *image);

/* Whether an entry of this rank or better has this key and flags. */
int ldcache_merge_has(const struct ldcache_merge *m, const char *key, int32_t flags,
		      enum ldcache_rank rank);

/* Sort and serialise (ldcache_build). */
int ldcache_merge_build(struct ldcache_merge *m, char **ret_data, size_t *ret_size,
			struct cdi_error *err);

void ldcache_merge_clear(struct ldcache_merge *m);

#endif
