/* SPDX-License-Identifier: Apache-2.0 */
/* The library directory's names, and the inventory's mounts rewritten for it (lib_dir.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "array.h"
#include "lib_dir.h"
#include "macro.h"
#include "problem.h"

/* Loaded by these names from images without the CUDA LD_LIBRARY_PATH: libcuda and NVML by
 * applications, the JIT compiler and NVVM by libcuda itself. */
static const char *const core_names[] = {
	"libcuda.so.1",
	"libnvidia-ml.so.1",
	"libnvidia-ptxjitcompiler.so.1",
	"libnvidia-nvvm.so.4",
};

void lib_dir_clear(struct lib_dir *ld)
{
	for (size_t i = 0; i < ld->n_links; i++) {
		free(ld->links[i].rel);
		free(ld->links[i].host);
		free(ld->links[i].content);
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

static int want_add(struct wants *w, const struct inv_file *f, const char *sub, const char *name,
		    unsigned prio)
{
	char *rel;

	/* Never a name that leaves the directory (a soname is the library's to choose). */
	if (!*name || *name == '/' || strstr(name, "..") || strstr(name, "//"))
		return 0;
	if (ARRAY_RESERVE(w->v, w->cap, w->n + 1) < 0)
		return -ENOMEM;
	if (asprintf(&rel, "%s/%s%s", f->is32 ? "lib" : "lib64", sub, name) < 0)
		return -ENOMEM;
	w->v[w->n++] = (struct want){ rel, f, prio };
	return 0;
}

/* A library's names relative to its ABI's directory: its own, then those under multiarch. */
static int file_wants(struct wants *w, const struct inv_file *f)
{
	const char *own = f->container_paths[0], *slash = strrchr(own, '/');
	char dir[96];
	size_t n;
	int r;

	if (!slash)
		return 0;
	/* libvdpau looks for its drivers in <libdir>/vdpau: they keep that subdirectory. */
	n = (size_t)(slash - own);
	r = want_add(w, f, n >= 6 && strncmp(slash - 6, "/vdpau", 6) == 0 ? "vdpau/" : "",
		     slash + 1, 0);
	multiarch_dir(f->is32, dir, sizeof(dir));
	n = strlen(dir);
	for (size_t k = 1; r >= 0 && k < f->n_container_paths; k++) {
		const char *p = f->container_paths[k];

		if (strncmp(p, dir, n) == 0 && p[n] == '/')
			r = want_add(w, f, "", p + n + 1, 1);
	}
	return r;
}

/* The winner of each name, moved into ld->links. */
static int take_winners(struct wants *w, struct lib_dir *ld)
{
	if (w->n)
		qsort(w->v, w->n, sizeof(*w->v), cmp_want);
	for (size_t i = 0; i < w->n; i++) {
		struct lib_link *l;

		/* Sorted by name, then standing: the first of a run wins. */
		if (ld->n_links > 0 && strcmp(w->v[i].rel, ld->links[ld->n_links - 1].rel) == 0)
			continue;
		if (ARRAY_RESERVE(ld->links, ld->cap_links, ld->n_links + 1) < 0)
			return -ENOMEM;
		l = &ld->links[ld->n_links];
		*l = (struct lib_link){ 0 };
		l->host = strdup(w->v[i].file->host_path);
		if (!l->host)
			return -ENOMEM;
		l->rel = TAKE_PTR(w->v[i].rel);
		ld->n_links++;
		ld->has32 |= w->v[i].file->is32;
		ld->has64 |= !w->v[i].file->is32;
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
		if (inv->files[i].kind == INV_LIBRARY && inv->files[i].n_container_paths > 0)
			r = file_wants(&w, &inv->files[i]);
	if (r >= 0)
		r = take_winners(&w, &ld);
	wants_clear(&w);
	if (r < 0) {
		lib_dir_clear(&ld);
		return cdi_fail(err, -ENOMEM, "out of memory");
	}
	r = lib_dir_plan_configs(inv, &ld, err);
	if (r < 0) {
		lib_dir_clear(&ld);
		return r;
	}
	*ret = ld;
	return 0;
}

/* A per-file mount that stays: a core soname in a directory the linkers search uncached. */
static bool keeps_mount(const struct inv_file *f, const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[96];
	size_t n;
	bool core = false;

	if (!slash)
		return false;
	for (size_t i = 0; i < ELEMENTSOF(core_names); i++)
		core |= strcmp(slash + 1, core_names[i]) == 0;
	if (!core)
		return false;
	n = (size_t)(slash - path);
	multiarch_dir(f->is32, dir, sizeof(dir));
	if (strlen(dir) == n && strncmp(path, dir, n) == 0)
		return true;
	return !f->is32 && ((n == 10 && strncmp(path, "/usr/lib64", n) == 0) ||
			    (n == 8 && strncmp(path, "/usr/lib", n) == 0));
}

static int add_dir_mount(struct inventory *inv, const struct lib_dir *ld, bool is32,
			 struct cdi_error *err)
{
	_cleanup_free_ char *host = NULL;
	struct inv_file *f;
	int r;

	if (asprintf(&host, "%s/%s", ld->path, is32 ? "lib" : "lib64") < 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	r = inventory_add_file(inv, INV_LIBRARY, DRV_CAP_UNKNOWN, is32, host, 0, &f, err);
	if (r < 0)
		return r;
	return inv_file_add_path(f, is32 ? LIB_DIR_CONTAINER32 : LIB_DIR_CONTAINER64, "", "", err);
}

/* A configuration file with a copy in the directory: mounted from the copy. */
static int use_copy(struct inv_file *f, const struct lib_dir *ld, struct cdi_error *err)
{
	_cleanup_free_ char *rel = NULL;
	char *host;

	if (f->n_container_paths == 0)
		return 0;
	if (lib_dir_config_rel(f, &rel) < 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < ld->n_links; i++) {
		if (!ld->links[i].content || strcmp(ld->links[i].rel, rel) != 0)
			continue;
		if (asprintf(&host, "%s/%s", ld->path, rel) < 0)
			return cdi_fail(err, -ENOMEM, "out of memory");
		free(f->host_path);
		f->host_path = host;
		break;
	}
	return 0;
}

int lib_dir_layout(struct inventory *inv, const struct lib_dir *ld, struct cdi_error *err)
{
	int r = 0;

	for (size_t i = 0; i < inv->n_files; i++) {
		struct inv_file *f = &inv->files[i];
		size_t kept = 0;

		if (f->kind == INV_CONFIG && (r = use_copy(f, ld, err)) < 0)
			return r;
		if (f->kind != INV_LIBRARY)
			continue;
		for (size_t k = 0; k < f->n_container_paths; k++) {
			if (keeps_mount(f, f->container_paths[k]))
				f->container_paths[kept++] = f->container_paths[k];
			else
				free(f->container_paths[k]);
		}
		f->n_container_paths = kept;
	}
	if (ld->has64)
		r = add_dir_mount(inv, ld, false, err);
	if (r >= 0 && ld->has32)
		r = add_dir_mount(inv, ld, true, err);
	return r;
}
