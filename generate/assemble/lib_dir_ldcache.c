/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The library directory's cache files (lib_dir.h, LIB_DIR_LDCACHE): what the container's linker
 * cache must list for a directory of libraries, so that cdi-runtime and cdi-apply --ldcache need
 * not open a library at container start. One file in each directory that may be mounted on its
 * own: the top, each group, each group's lib64/ and lib/. Its paths are relative to the
 * directory holding it (the runtime puts the mount's destination in front); its generator string
 * names libcuda's version, which the CUDA compat choice needs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "ldcache.h"
#include "lib_dir.h"
#include "macro.h"
#include "problem.h"

/* The names of the links a cache file in scope lists, and the entries it makes of them. */
struct scope_entries {
	struct ldcache_entry *v;
	char **values;
	size_t n, cap, cap_values;
};

static void scope_entries_clear(struct scope_entries *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->values[i]);
	free(s->values);
	free(s->v);
	*s = (struct scope_entries){ 0 };
}

static int cmp_entry(const void *a, const void *b)
{
	return ldcache_compare(a, b);
}

/* The entries of the links under scope ("" the top, "caps/compute", "caps/compute/lib64"). */
static int collect(const struct lib_dir *ld, const char *scope, struct scope_entries *out)
{
	size_t sl = strlen(scope);

	for (size_t i = 0; i < ld->n_links; i++) {
		const struct lib_link *l = &ld->links[i];
		const char *rel = l->rel, *name;
		char *value;

		if (l->ldflags < 0 || (sl && (strncmp(rel, scope, sl) != 0 || rel[sl] != '/')))
			continue;
		/* the top's own names only: a group's are under caps/ */
		if (!sl && strncmp(rel, LIB_DIR_GROUPS "/", strlen(LIB_DIR_GROUPS) + 1) == 0)
			continue;
		value = strdup(sl ? rel + sl + 1 : rel);
		if (!value || ARRAY_RESERVE(out->v, out->cap, out->n + 1) < 0 ||
		    ARRAY_RESERVE(out->values, out->cap_values, out->n + 1) < 0) {
			free(value);
			return -ENOMEM;
		}
		name = strrchr(value, '/');
		out->values[out->n] = value;
		out->v[out->n++] = (struct ldcache_entry){ .flags = l->ldflags,
							   .key = name ? name + 1 : value,
							   .value = value };
	}
	return 0;
}

/* scope/LIB_DIR_LDCACHE for the libraries under scope, when it has any. */
static int add_cache(struct lib_dir *ld, const char *scope, const char *generator,
		     struct cdi_error *err)
{
	struct scope_entries s = { 0 };
	struct lib_link l = { .ldflags = -1 };
	int r;

	r = collect(ld, scope, &s);
	if (r < 0 || s.n == 0) {
		scope_entries_clear(&s);
		return r < 0 ? cdi_fail(err, r, "out of memory") : 0;
	}
	qsort(s.v, s.n, sizeof(*s.v), cmp_entry);
	r = ldcache_build(s.v, s.n, generator, &l.content, &l.content_len, err);
	scope_entries_clear(&s);
	if (r < 0)
		return r;
	if (asprintf(&l.rel, "%s%s" LIB_DIR_LDCACHE, scope, *scope ? "/" : "") < 0 ||
	    ARRAY_RESERVE(ld->links, ld->cap_links, ld->n_links + 1) < 0) {
		free(l.content);
		return cdi_fail(err, -ENOMEM, "out of memory");
	}
	ld->links[ld->n_links++] = l;
	return 0;
}

int lib_dir_plan_ldcaches(struct lib_dir *ld, const char *driver_version, struct cdi_error *err)
{
	_cleanup_free_ char *generator = NULL;
	size_t n = ld->n_links;
	int r;

	if (asprintf(&generator, "cdikit libcuda.so.%s", driver_version) < 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	r = add_cache(ld, "", generator, err);
	/* Each group seen once: by its first name at the top (links are grouped, not sorted). */
	for (size_t i = 0; r >= 0 && i < n; i++) {
		const char *g = ld->links[i].group;
		char scope[128];
		bool seen = false;

		for (size_t k = 0; g && !seen && k < i; k++)
			seen = ld->links[k].group && strcmp(ld->links[k].group, g) == 0;
		if (!g || seen)
			continue;
		snprintf(scope, sizeof(scope), LIB_DIR_GROUPS "/%s", g);
		r = add_cache(ld, scope, generator, err);
		snprintf(scope, sizeof(scope), LIB_DIR_GROUPS "/%s/lib64", g);
		if (r >= 0)
			r = add_cache(ld, scope, generator, err);
		snprintf(scope, sizeof(scope), LIB_DIR_GROUPS "/%s/lib", g);
		if (r >= 0)
			r = add_cache(ld, scope, generator, err);
	}
	return r;
}
