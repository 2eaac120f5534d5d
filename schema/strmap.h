/* SPDX-License-Identifier: Apache-2.0 */
/* A string-keyed hash map (internal). */
#ifndef CDIKIT_STRMAP_H
#define CDIKIT_STRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A small open-addressing hash map from borrowed byte strings to a value, for the places
 * where the reference uses a Go map (env index, device and mount paths, qualified names).
 */
struct cdi_strmap_slot {
	const char *key; /* NULL: free slot */
	size_t len;
	uint64_t hash;
	size_t value;
};

struct cdi_strmap {
	struct cdi_strmap_slot *slots;
	size_t cap; /* a power of two, or 0 */
	size_t n;
};

/* The value stored for key, or NULL. */
size_t *cdi_strmap_get(const struct cdi_strmap *m, const char *key, size_t len);
/* Room for n keys without growing (a caller that knows how many saves the rehashing). */
int cdi_strmap_reserve(struct cdi_strmap *m, size_t n);
/* Insert or overwrite; key must outlive the map. 0 or -ENOMEM. */
int cdi_strmap_put(struct cdi_strmap *m, const char *key, size_t len, size_t value);
void cdi_strmap_free(struct cdi_strmap *m);

#endif
