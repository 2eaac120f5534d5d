/* SPDX-License-Identifier: Apache-2.0 */
/* Growable arrays: one place for the grow-by-doubling loop, and sorting them (internal). */
#ifndef CDIKIT_ARRAY_H
#define CDIKIT_ARRAY_H

#include <stddef.h>

/*
 * Make room for at least need elements of elem bytes in the array *pp whose capacity is *cap
 * (both 0/NULL at first). The capacity at least doubles, so n appends cost O(n). On failure
 * (-ENOMEM, also when the size would overflow) *pp and *cap are unchanged.
 */
int array_reserve(void *pp, size_t *cap, size_t need, size_t elem);

/* ARRAY_RESERVE(v, cap, n + 1) before v[n++] = x. */
#define ARRAY_RESERVE(v, cap, need) array_reserve(&(v), &(cap), (need), sizeof(*(v)))

/* qsort/bsearch comparator for an array of unsigned (device minors). Strings: strv_cmp. */
int cmp_unsigned(const void *a, const void *b);

#endif
