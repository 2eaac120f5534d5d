/* SPDX-License-Identifier: Apache-2.0 */
/* The library directory's names, its capability groups and cache files (lib_dir.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "array.h"
#include "lib_dir.h"
#include "macro.h"
#include "problem.h"

void lib_dir_clear(struct lib_dir *ld)
{
	for (size_t i = 0; i < ld->n_links; i++) {
		free(ld->links[i].rel);
		free(ld->links[i].host);
		free(ld->links[i].content);
		free(ld->links[i].group);
	}
	free(ld->links);
	free(ld->path);
	*ld = (struct lib_dir){ 0 };
}

int lib_dir_default_path(const char *spec_path, char **ret, struct cdi_error *err)
{
	size_t n = strlen(spec_path);

	if (n > 5 &&
	    (strcmp(spec_path + n - 5, ".yaml") == 0 || strcmp(spec_path + n - 5, ".json") == 0))
		n -= 5;
	if (asprintf(ret, "%.*s.lib", (int)n, spec_path) < 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	return 0;
}

/* The Debian multiarch directory of a file's ABI: its names are laid out under it. */
static void multiarch_dir(bool is32, char *buf, size_t size)
{
	const struct arch_abi *abi = is32 ? arch_compat32 : &arch_native;

	snprintf(buf, size, "/usr/lib/%s", abi ? abi->multiarch : "");
}

/* An X server module: a library that is no linker's, kept at its own place (files/). */
static bool is_x_module(const struct inv_file *f)
{
	const char *own = f->container_paths[0];

	return strstr(own, "/xorg/") || strstr(own, "/X11R6/");
}

/* One file wanting one name; on a clash the lowest (prio, rank, host) wins. */
struct want {
	char *rel;
	const struct inv_file *file;
	unsigned prio; /* 0 its own name, 1 another name */
};

static int cmp_want(const void *a, const void *b)
{
	const struct want *x = a, *y = b;
	int c = strcmp(x->rel, y->rel);

	return c ? c : inv_file_standing_cmp(x->file, x->prio, y->file, y->prio);
}

struct wants {
	struct want *v;
	size_t n, cap;
};

static void wants_clear(struct wants *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->v[i].rel);
	free(w->v);
}

/* A name that stays inside the directory (a soname is the library's to choose). */
static bool contained(const char *name)
{
	return *name && !strstr(name, "..") && !strstr(name, "//");
}

static int want_add(struct wants *w, const struct inv_file *f, const char *top, const char *sub,
		    const char *name, unsigned prio)
{
	char *rel;

	if (!contained(name) || (*top && *name == '/') || (!*top && *name != '/'))
		return 0;
	if (ARRAY_RESERVE(w->v, w->cap, w->n + 1) < 0)
		return -ENOMEM;
	if (asprintf(&rel, "%s%s%s%s", top, *top && *name != '/' ? "/" : "", sub, name) < 0)
		return -ENOMEM;
	w->v[w->n++] = (struct want){ rel, f, prio };
	return 0;
}

/* A library's names relative to its ABI's directory: its own, then those under multiarch. */
static int library_wants(struct wants *w, const struct inv_file *f)
{
	const char *own = f->container_paths[0], *slash = strrchr(own, '/');
	const char *top = f->is32 ? "lib" : "lib64";
	char dir[96];
	size_t n;
	int r;

	if (!slash)
		return 0;
	/* libvdpau looks for its drivers in <libdir>/vdpau: they keep that subdirectory. */
	n = (size_t)(slash - own);
	r = want_add(w, f, top, n >= 6 && strncmp(slash - 6, "/vdpau", 6) == 0 ? "vdpau/" : "",
		     slash + 1, 0);
	multiarch_dir(f->is32, dir, sizeof(dir));
	n = strlen(dir);
	for (size_t k = 1; r >= 0 && k < f->n_container_paths; k++) {
		const char *p = f->container_paths[k];

		if (strncmp(p, dir, n) == 0 && p[n] == '/')
			r = want_add(w, f, top, "", p + n + 1, 1);
	}
	return r;
}

/* A file kept at its own place: files/<container path>, each of its paths. */
static int file_wants(struct wants *w, const struct inv_file *f)
{
	int r = 0;

	for (size_t k = 0; r >= 0 && k < f->n_container_paths; k++)
		r = want_add(w, f, "", "files", f->container_paths[k], k == 0 ? 0 : 1);
	return r;
}

static int wants_of(struct wants *w, const struct inv_file *f)
{
	const char *own, *slash;

	if (f->n_container_paths == 0)
		return 0;
	switch (f->kind) {
	case INV_LIBRARY:
		return is_x_module(f) ? file_wants(w, f) : library_wants(w, f);
	case INV_BINARY:
		own = f->container_paths[0];
		slash = strrchr(own, '/');
		return slash ? want_add(w, f, "bin", "", slash + 1, 0) : 0;
	case INV_FIRMWARE:
	case INV_CONFIG:
		return file_wants(w, f);
	case INV_IPC:
		break;
	}
	return 0;
}

/* The capability group of a file: its capability, "32" after it for a 32-bit library. */
static char *group_of(const struct inv_file *f)
{
	const char *cap = drv_cap_name(f->cap);
	char *g;

	if (asprintf(&g, "%s%s", cap ? cap : "any", f->is32 ? "32" : "") < 0)
		return NULL;
	return g;
}

/* Whether rel is the name a cache lists the library by: its soname (else its own name), right
 * in lib64/ or lib/ (ldconfig scans no subdirectory). */
static bool cache_name(const struct want *w)
{
	const char *rel = w->rel, *slash = strchr(rel, '/'), *name = slash ? slash + 1 : rel;
	const struct inv_file *f = w->file;

	if (f->kind != INV_LIBRARY || f->ldflags < 0 || strchr(name, '/') || is_x_module(f))
		return false;
	if (f->soname)
		return strcmp(name, f->soname) == 0;
	return w->prio == 0;
}

/* The winner of each name, moved into ld->links. */
static int take_winners(struct wants *w, struct lib_dir *ld)
{
	if (w->n)
		qsort(w->v, w->n, sizeof(*w->v), cmp_want);
	for (size_t i = 0; i < w->n; i++) {
		const struct inv_file *f = w->v[i].file;
		struct lib_link *l;

		/* Sorted by name, then standing: the first of a run wins. */
		if (ld->n_links > 0 && strcmp(w->v[i].rel, ld->links[ld->n_links - 1].rel) == 0)
			continue;
		if (ARRAY_RESERVE(ld->links, ld->cap_links, ld->n_links + 1) < 0)
			return -ENOMEM;
		l = &ld->links[ld->n_links];
		*l = (struct lib_link){ .ldflags = cache_name(&w->v[i]) ? f->ldflags : -1 };
		l->host = strdup(f->host_path);
		l->group = group_of(f);
		l->rel = TAKE_PTR(w->v[i].rel);
		ld->n_links++;
		if (!l->host || !l->group)
			return -ENOMEM;
		if (f->kind == INV_LIBRARY && !is_x_module(f)) {
			ld->has32 |= f->is32;
			ld->has64 |= !f->is32;
		}
	}
	return 0;
}

static int cmp_link(const void *a, const void *b)
{
	return strcmp(((const struct lib_link *)a)->rel, ((const struct lib_link *)b)->rel);
}

/* Each name at the top again as caps/<group>/<name>: the same file, or a loader config's copy
 * that names the groups' paths. */
static int add_groups(struct lib_dir *ld)
{
	size_t n = ld->n_links;
	int r;

	for (size_t i = 0; i < n; i++) {
		const struct lib_link *top = &ld->links[i];
		struct lib_link copy = { .ldflags = top->ldflags };

		if (!top->group)
			continue;
		if (asprintf(&copy.rel, LIB_DIR_GROUPS "/%s/%s", top->group, top->rel) < 0)
			return -ENOMEM;
		if (top->content)
			r = lib_dir_config_for_group(ld, top, &copy.content, &copy.content_len);
		else
			r = (copy.host = strdup(top->host)) ? 0 : -ENOMEM;
		if (r >= 0 && ARRAY_RESERVE(ld->links, ld->cap_links, ld->n_links + 1) < 0)
			r = -ENOMEM;
		if (r < 0) {
			free(copy.rel);
			free(copy.host);
			free(copy.content);
			return r;
		}
		ld->links[ld->n_links++] = copy;
		top = NULL; /* the array may have moved */
	}
	return 0;
}

int lib_dir_plan(const struct inventory *inv, const char *path, struct lib_dir *ret,
		 struct cdi_error *err)
{
	struct lib_dir ld = { .path = strdup(path) };
	struct wants w = { 0 };
	int r = ld.path ? 0 : -ENOMEM;

	for (size_t i = 0; r >= 0 && i < inv->n_files; i++)
		r = wants_of(&w, &inv->files[i]);
	if (r >= 0)
		r = take_winners(&w, &ld);
	wants_clear(&w);
	if (r < 0) {
		lib_dir_clear(&ld);
		return cdi_fail(err, -ENOMEM, "out of memory");
	}
	r = lib_dir_plan_configs(inv, &ld, err);
	if (r >= 0 && add_groups(&ld) < 0)
		r = cdi_fail(err, -ENOMEM, "out of memory");
	if (r >= 0)
		r = lib_dir_plan_ldcaches(&ld, inv->driver_version, err);
	if (r < 0) {
		lib_dir_clear(&ld);
		return r;
	}
	qsort(ld.links, ld.n_links, sizeof(*ld.links), cmp_link);
	*ret = ld;
	return 0;
}
