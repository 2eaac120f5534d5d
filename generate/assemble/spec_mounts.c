/* SPDX-License-Identifier: Apache-2.0 */
/* Assembly: the inventory's files as the spec's mounts. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "macro.h"
#include "problem.h"
#include "spec_build.h"
#include "utf8.h"

/* One file wanting one container path; on a clash the lowest (prio, rank, host) wins. */
struct claim {
	const char *container;
	const struct inv_file *file;
	unsigned prio; /* 0 own place, 1 own place of a 32-bit file, 2 a name, 3 a 32-bit name */
};

static int cmp_claim(const void *a, const void *b)
{
	const struct claim *x = a, *y = b;
	int c = strcmp(x->container, y->container);

	return c ? c : inv_file_standing_cmp(x->file, x->prio, y->file, y->prio);
}

/* JSON strings are UTF-8: a path that is not cannot be in a spec (and is not NVIDIA's). */
static bool utf8_path(const char *s)
{
	return utf8_valid(s, strlen(s));
}

static int collect_claims(const struct inventory *inv, struct claim **ret, size_t *ret_n,
			  struct cdi_error *err)
{
	struct claim *v = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < inv->n_files; i++) {
		const struct inv_file *f = &inv->files[i];

		if (!utf8_path(f->host_path))
			continue;
		for (size_t k = 0; k < f->n_container_paths; k++) {
			if (!utf8_path(f->container_paths[k]))
				continue;
			if (ARRAY_RESERVE(v, cap, n + 1) < 0) {
				free(v);
				return cdi_fail(err, -ENOMEM, "out of memory");
			}
			v[n++] = (struct claim){ f->container_paths[k], f,
						 (k == 0 ? 0u : 2u) + (f->is32 ? 1u : 0u) };
		}
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

/*
 * The two option lists. Every mount object holds a reference to one of these arrays (jansson
 * counts references), built once per call: 200 mounts share two arrays instead of owning 1000
 * strings. Callers must treat options as read-only (json_deep_copy() before editing one).
 */
json_t *spec_mount_options(bool ipc)
{
	static const char *const file_opts[] = { "ro", "nosuid", "nodev", "rbind", "rprivate" };
	static const char *const ipc_opts[] = { "nosuid", "nodev", "rbind", "rprivate", "noexec" };
	const char *const *opts = ipc ? ipc_opts : file_opts;
	json_t *a = json_array();

	if (!a)
		return NULL;
	for (size_t i = 0; i < 5; i++)
		if (json_array_append_new(a, json_string_nocheck(opts[i])) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

/* "compute", "compute/32" (also needs compat32), or NULL for a file of every capability. */
static json_t *cap_json(const struct inv_file *f)
{
	const char *name = drv_cap_name(f->cap);
	char buf[32];

	if (!name)
		return NULL;
	if (!f->is32)
		return json_string_nocheck(name);
	snprintf(buf, sizeof(buf), "%s/32", name);
	return json_string_nocheck(buf);
}

static int mount_json(const struct claim *c, json_t *file_opts, json_t *ipc_opts, json_t *out,
		      json_t *caps)
{
	json_t *o = json_object(), *cap;

	/* both paths passed utf8_path() */
	if (!o || json_array_append_new(out, o) < 0 ||
	    json_object_set_new_nocheck(o, "hostPath", json_string_nocheck(c->file->host_path)) <
		    0 ||
	    json_object_set_new_nocheck(o, "containerPath", json_string_nocheck(c->container)) <
		    0 ||
	    json_object_set_nocheck(o, "options", c->file->kind == INV_IPC ? ipc_opts : file_opts) <
		    0)
		return -ENOMEM;
	cap = caps ? cap_json(c->file) : NULL;
	if (cap && json_object_set_new(caps, c->container, cap) < 0)
		return -ENOMEM;
	return 0;
}

int spec_mounts(const struct inventory *inv, json_t **ret_mounts, json_t *caps,
		struct cdi_error *err)
{
	_cleanup_json_ json_t *out = json_array(), *file_opts = spec_mount_options(false),
			      *ipc_opts = spec_mount_options(true);
	_cleanup_free_ struct claim *claims = NULL;
	size_t n = 0;
	int r;

	if (!out || !file_opts || !ipc_opts)
		return cdi_fail(err, -ENOMEM, "out of memory");
	r = collect_claims(inv, &claims, &n, err);
	if (r < 0)
		return r;
	if (n)
		qsort(claims, n, sizeof(*claims), cmp_claim);
	for (size_t i = 0; i < n; i++) {
		/* Sorted by containerPath, then standing: the first of a run wins. */
		if (i > 0 && strcmp(claims[i].container, claims[i - 1].container) == 0)
			continue;
		if (mount_json(&claims[i], file_opts, ipc_opts, out, caps) < 0)
			return cdi_fail(err, -ENOMEM, "out of memory");
	}
	*ret_mounts = TAKE_PTR(out);
	return 0;
}
