/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Expanding requests for MIG-mode GPUs into their MIG devices. The index case needs only the
 * spec's names (N:M without N); a GPU UUID appears nowhere in a spec of a MIG-mode GPU, so
 * that case reads the facts file the generator wrote beside the spec.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <cdi/annotations.h>
#include <cdi/spec.h>

#include "array.h"
#include "facts.h"
#include "macro.h"
#include "mig_expand.h"
#include "problem.h"
#include "strmap.h"
#include "strv.h"
#include "visible_devices.h"

#define KIND_PREFIX CDI_VISIBLE_DEVICES_KIND "="

static int list_add(struct strv_set *l, const char *name)
{
	return strv_set_add(l, name) < 0 ? -ENOMEM : 0;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

struct mig_name {
	const char *name;
	unsigned long minor_index;
};

static int cmp_mig_name(const void *a, const void *b)
{
	unsigned long x = ((const struct mig_name *)a)->minor_index;
	unsigned long y = ((const struct mig_name *)b)->minor_index;

	return x < y ? -1 : x > y;
}

/* nvidia.com/gpu=N:M for every M the registry has, M ascending. Adds nothing if none. */
static int expand_index(const cdi_registry *reg, const char *index, struct strv_set *l)
{
	const char *const *devs = cdi_registry_devices(reg);
	_cleanup_free_ struct mig_name *found = NULL;
	_cleanup_free_ char *prefix = NULL;
	size_t n = 0, cap = 0, plen;

	if (asprintf(&prefix, KIND_PREFIX "%s:", index) < 0)
		return -ENOMEM;
	plen = strlen(prefix);
	for (; *devs; devs++) {
		if (strncmp(*devs, prefix, plen) != 0 || !all_digits(*devs + plen))
			continue;
		if (ARRAY_RESERVE(found, cap, n + 1) < 0)
			return -ENOMEM;
		found[n++] = (struct mig_name){ *devs, strtoul(*devs + plen, NULL, 10) };
	}
	if (n > 1)
		qsort(found, n, sizeof(*found), cmp_mig_name);
	for (size_t i = 0; i < n; i++)
		if (list_add(l, found[i].name) < 0)
			return -ENOMEM;
	return 0;
}

/* The facts of every spec that defines the kind, each read once, on first need. */
struct facts_cache {
	const char *spec_path[8];
	struct cdi_facts *facts[8];
	size_t n;
	bool loaded;
};

static void facts_cache_free(struct facts_cache *c)
{
	for (size_t i = 0; i < c->n; i++)
		cdi_facts_free(c->facts[i]);
}

static int facts_cache_load(struct facts_cache *c, const cdi_registry *reg, struct cdi_error *err)
{
	size_t plen = strlen(KIND_PREFIX);

	if (c->loaded)
		return 0;
	c->loaded = true;
	for (const char *const *devs = cdi_registry_devices(reg); *devs; devs++) {
		const cdi_spec *spec;
		const char *path;
		size_t i;
		int r;

		if (strncmp(*devs, KIND_PREFIX, plen) != 0)
			continue;
		spec = cdi_registry_lookup(reg, *devs, NULL);
		path = spec ? cdi_spec_path(spec) : NULL;
		for (i = 0; path && i < c->n; i++)
			if (strcmp(c->spec_path[i], path) == 0)
				break;
		if (!path || i < c->n || c->n == ELEMENTSOF(c->spec_path))
			continue;
		c->spec_path[c->n] = path;
		r = cdi_facts_load_for_spec(path, &c->facts[c->n], err);
		if (r < 0 && r != -ENOENT)
			return r;
		c->n++;
	}
	return 0;
}

/* The MIG devices of the MIG-mode GPU with this UUID, each by a name the registry knows.
 * -ENOMEM comes without a problem (the caller adds it). */
static int expand_uuid(const cdi_registry *reg, const char *uuid, struct facts_cache *c,
		       struct strv_set *l, struct cdi_error *err)
{
	int r = facts_cache_load(c, reg, err);

	for (size_t i = 0; r == 0 && i < c->n; i++) {
		const struct cdi_facts_gpu *gpu = cdi_facts_gpu_by_uuid(c->facts[i], uuid);

		for (size_t m = 0; gpu && gpu->mig && m < gpu->n_mig_devices; m++) {
			const struct cdi_facts_mig *mig = &gpu->mig_devices[m];

			for (size_t k = 0; k < mig->n_devices; k++) {
				_cleanup_free_ char *name = NULL;

				if (asprintf(&name, KIND_PREFIX "%s", mig->devices[k]) < 0)
					return -ENOMEM;
				if (cdi_registry_lookup(reg, name, NULL)) {
					if (list_add(l, name) < 0)
						return -ENOMEM;
					break;
				}
			}
		}
	}
	return r;
}

int mig_expand(const cdi_registry *reg, struct device_requests *r, struct cdi_error *err)
{
	struct facts_cache facts __attribute__((cleanup(facts_cache_free))) = { 0 };
	struct strv_set l = { 0 };
	size_t plen = strlen(KIND_PREFIX), n;
	char **devices;
	int code = 0;

	for (size_t i = 0; i < r->n && code == 0; i++) {
		const char *dev = r->devices[i], *id = dev + plen;
		size_t before = l.b.n;

		if (r->source == DEVICE_REQUEST_ENV && strncmp(dev, KIND_PREFIX, plen) == 0 &&
		    !cdi_registry_lookup(reg, dev, NULL)) {
			if (all_digits(id))
				code = expand_index(reg, id, &l) < 0 ? -ENOMEM : 0;
			else if (strncmp(id, "GPU-", 4) == 0)
				code = expand_uuid(reg, id, &facts, &l, err);
			if (code < 0)
				break;
			if (l.b.n > before)
				continue;
		}
		/* Resolvable, not a MIG GPU, or not ours to expand: as asked. */
		if (list_add(&l, dev) < 0)
			code = -ENOMEM;
	}
	if (code == -ENOMEM)
		cdi_fail(err, code, "out of memory");
	if (code < 0) {
		strv_set_clear(&l);
		return code;
	}
	devices = strv_set_steal(&l, &n);
	if (!devices)
		return cdi_fail(err, -ENOMEM, "out of memory");
	cdi_strv_free(r->devices);
	r->devices = devices;
	r->n = n;
	return 0;
}
