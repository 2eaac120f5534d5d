/* SPDX-License-Identifier: Apache-2.0 */
/* NULL-terminated vectors of malloc'd strings (internal; cdi_strv_free is public). */
#ifndef CDIKIT_STRV_H
#define CDIKIT_STRV_H

#include <stdbool.h>
#include <stddef.h>

#include "strmap.h"

/* qsort/bsearch comparator for an array of char * (bytewise, as Go's sort.Strings). */
int strv_cmp(const void *a, const void *b);

/* Sort n strings of v in place, bytewise. */
void strv_sort(char **v, size_t n);

/* The number of strings before the NULL (0 for NULL). */
size_t strv_length(char *const *v);

/* Free n strings of v and v itself (for vectors that are not NULL-terminated). */
void strv_free_n(char **v, size_t n);

/* Free every string up to the NULL, then v; NULL is fine. Same as the public cdi_strv_free. */
void strv_free(char **v);
static inline void strv_freep(char ***v)
{
	strv_free(*v);
}
#define _cleanup_strv_free_ __attribute__((cleanup(strv_freep)))

/*
 * A vector being built: v[0..n) are owned strings and v[n] is NULL whenever n > 0, so v can
 * be handed on as a NULL-terminated vector. Zero-initialise; strv_builder_clear() frees.
 */
struct strv_builder {
	char **v;
	size_t n, cap;
};

/* Append s and take ownership of it (also on failure, when s is freed): 0 or -ENOMEM. */
int strv_builder_take(struct strv_builder *b, char *s);
/* Append a copy of len bytes of s. */
int strv_builder_addn(struct strv_builder *b, const char *s, size_t len);
int strv_builder_add(struct strv_builder *b, const char *s);
/* The vector, NULL-terminated even when empty (NULL only on ENOMEM); the builder is reset. */
char **strv_builder_steal(struct strv_builder *b, size_t *ret_n);
void strv_builder_clear(struct strv_builder *b);

/*
 * A builder that drops repeats, the first kept (the order requests are made in). Zero-initialise;
 * strv_set_clear() frees, strv_set_steal() hands the vector on.
 */
struct strv_set {
	struct strv_builder b;
	struct cdi_strmap seen; /* keys are the builder's strings */
};

/* Add a copy of s unless it is there: 1 added, 0 already there, -ENOMEM. */
int strv_set_add(struct strv_set *s, const char *str);
/* The vector as strv_builder_steal() gives it (NULL on ENOMEM); s is empty after, either way. */
char **strv_set_steal(struct strv_set *s, size_t *ret_n);
void strv_set_clear(struct strv_set *s);

/* True when some string of v equals s. */
bool strv_contains(char *const *v, const char *s);

#endif
