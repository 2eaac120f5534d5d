/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "ldcache_merge.h"
#include "macro.h"

#ifndef CDIKIT_VERSION
#define CDIKIT_VERSION "0.1.0"
#endif

static const char *keep_string(struct ldcache_merge *m, const char *s)
{
	char *copy;

	if (!s)
		return NULL;
	if (ARRAY_RESERVE(m->strings, m->cap_strings, m->n_strings + 1) < 0)
		return NULL;
	copy = strdup(s);
	if (copy)
		m->strings[m->n_strings++] = copy;
	return copy;
}

int ldcache_merge_add(struct ldcache_merge *m, const struct ldcache_entry *e,
		      enum ldcache_rank rank)
{
	struct ldcache_merge_entry *out;

	if (ARRAY_RESERVE(m->v, m->cap, m->n + 1) < 0)
		return -ENOMEM;
	out = &m->v[m->n];
	*out = (struct ldcache_merge_entry){ .e = *e, .rank = rank, .seq = m->n };
	out->e.key = keep_string(m, e->key);
	out->e.value = keep_string(m, e->value);
	out->e.hwcaps = keep_string(m, e->hwcaps);
	if (!out->e.key || !out->e.value || (e->hwcaps && !out->e.hwcaps))
		return -ENOMEM;
	m->n++;
	return 0;
}

static int same_entry(const struct ldcache_entry *a, const struct ldcache_entry *b)
{
	return a->flags == b->flags && strcmp(a->key, b->key) == 0 &&
	       strcmp(a->value, b->value) == 0;
}

int ldcache_merge_add_cache(struct ldcache_merge *m, const struct ldcache *image)
{
	size_t before = m->n;

	for (size_t i = 0; i < image->n_entries; i++) {
		const struct ldcache_entry *e = &image->entries[i];
		int dup = 0;
		int r;

		if (ldcache_entry_is_hwcaps(e) && !e->hwcaps)
			continue;
		/* Only against what the other sources added: the image's own entries stay as is. */
		for (size_t j = 0; j < before && !dup; j++)
			dup = same_entry(&m->v[j].e, e);
		if (dup)
			continue;
		r = ldcache_merge_add(m, e, LDCACHE_RANK_IMAGE);
		if (r < 0)
			return r;
	}
	return 0;
}

int ldcache_merge_has(const struct ldcache_merge *m, const char *key, int32_t flags,
		      enum ldcache_rank rank)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->v[i].rank <= rank && m->v[i].e.flags == flags &&
		    strcmp(m->v[i].e.key, key) == 0)
			return 1;
	return 0;
}

/* ldconfig's order, with the rank deciding among one soname and flags (see the header). */
static int cmp_merge(const void *pa, const void *pb)
{
	const struct ldcache_merge_entry *a = pa, *b = pb;
	int r = ldcache_compare_key_flags(&a->e, &b->e);

	if (r != 0)
		return r;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	r = ldcache_compare(&a->e, &b->e);
	if (r != 0)
		return r;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

int ldcache_merge_build(struct ldcache_merge *m, char **ret_data, size_t *ret_size,
			struct cdi_error *err)
{
	_cleanup_free_ struct ldcache_entry *flat = NULL;

	qsort(m->v, m->n, sizeof(*m->v), cmp_merge);
	flat = calloc(m->n ? m->n : 1, sizeof(*flat));
	if (!flat)
		return -ENOMEM;
	for (size_t i = 0; i < m->n; i++)
		flat[i] = m->v[i].e;
	return ldcache_build(flat, m->n, "cdikit " CDIKIT_VERSION, ret_data, ret_size, err);
}

void ldcache_merge_clear(struct ldcache_merge *m)
{
	for (size_t i = 0; i < m->n_strings; i++)
		free(m->strings[i]);
	free(m->strings);
	free(m->v);
	*m = (struct ldcache_merge){ 0 };
}
