/* SPDX-License-Identifier: Apache-2.0 */
/*
 * glibc's ld.so.cache parser (ldcache_parse) on any bytes: a refusal comes with a problem; an
 * accepted cache has every key and value a NUL-terminated string inside its data, and the
 * generator text inside it too (ASan sees every byte read).
 */
#include <errno.h>
#include <string.h>

#include <cdi/error.h>

#include "fuzz.h"
#include "ldcache.h"

static void inside(const struct ldcache *c, const char *s, size_t len, const char *what, size_t i)
{
	fuzz_assert(s >= c->data && s <= c->data + c->size &&
			    len <= c->size - (size_t)(s - c->data),
		    "entry %zu: %s outside the cache", i, what);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_ldcache_ struct ldcache *cache = NULL;
	_cleanup_free_ char *buf = fuzz_memdup(data, size);
	struct cdi_error err = { 0 };
	int r;

	r = ldcache_parse(buf, size, "ld.so.cache", &cache, &err);
	fuzz_assert(r == 0 || cdi_error_count(&err) > 0, "refused (%d) without a problem", r);
	cdi_error_reset(&err);
	if (r < 0)
		return 0;
	for (size_t i = 0; i < cache->n_entries; i++) {
		const struct ldcache_entry *e = &cache->entries[i];

		inside(cache, e->key, strlen(e->key) + 1, "key", i);
		inside(cache, e->value, strlen(e->value) + 1, "value", i);
		(void)ldcache_arch_name(ldcache_entry_arch(e));
	}
	if (cache->generator)
		inside(cache, cache->generator, cache->generator_len, "generator", 0);
	return 0;
}
