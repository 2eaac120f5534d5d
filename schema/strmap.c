/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A small open-addressing hash map from borrowed byte strings to a value: the places where the
 * reference uses a Go map (env index, device and mount paths, qualified names).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "macro.h"
#include "strmap.h"

static struct cdi_strmap_slot *strmap_find(const struct cdi_strmap *m, const char *key, size_t len,
					   uint64_t h)
{
	size_t mask = m->cap - 1;

	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct cdi_strmap_slot *s = &m->slots[i];

		if (!s->key || (s->hash == h && s->len == len && memcmp(s->key, key, len) == 0))
			return s;
	}
}

size_t *cdi_strmap_get(const struct cdi_strmap *m, const char *key, size_t len)
{
	struct cdi_strmap_slot *s;

	if (m->cap == 0)
		return NULL;
	s = strmap_find(m, key, len, hash_fnv1a64(key, len));
	return s->key ? &s->value : NULL;
}

/* Room for n keys at a load of at most 1/2, so probes stay short. */
int cdi_strmap_reserve(struct cdi_strmap *m, size_t n)
{
	struct cdi_strmap grown = { .cap = m->cap ? m->cap : 16, .n = m->n };

	while (n * 2 > grown.cap)
		grown.cap *= 2;
	if (grown.cap == m->cap)
		return 0;
	grown.slots = calloc(grown.cap, sizeof(*grown.slots));
	if (!grown.slots)
		return -ENOMEM;
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].key)
			*strmap_find(&grown, m->slots[i].key, m->slots[i].len, m->slots[i].hash) =
				m->slots[i];
	free(m->slots);
	*m = grown;
	return 0;
}

int cdi_strmap_put(struct cdi_strmap *m, const char *key, size_t len, size_t value)
{
	uint64_t h = hash_fnv1a64(key, len);
	struct cdi_strmap_slot *s;

	if ((m->n + 1) * 2 > m->cap && cdi_strmap_reserve(m, m->cap ? m->cap : 8) < 0)
		return -ENOMEM;
	s = strmap_find(m, key, len, h);
	if (!s->key) {
		*s = (struct cdi_strmap_slot){ .key = key, .len = len, .hash = h };
		m->n++;
	}
	s->value = value;
	return 0;
}

void cdi_strmap_free(struct cdi_strmap *m)
{
	free(m->slots);
	*m = (struct cdi_strmap){ 0 };
}
