/* SPDX-License-Identifier: Apache-2.0 */
/* The inventory's mounts rewritten for the library directory, and its facts (lib_dir.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
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

/* The binary images without /usr/local/nvidia/bin on PATH still find in /usr/bin. */
#define PATH_BINARY "/usr/bin/nvidia-smi"

static int oom(struct cdi_error *err)
{
	return cdi_fail(err, -ENOMEM, "out of memory");
}

static int cmp_rel(const void *key, const void *link)
{
	return strcmp(key, ((const struct lib_link *)link)->rel);
}

/* ld's name rel when it is the file host (the directory holds the same file), else NULL. */
static const struct lib_link *name_of(const struct lib_dir *ld, const char *rel, const char *host)
{
	const struct lib_link *l =
		bsearch(rel, ld->links, ld->n_links, sizeof(*ld->links), cmp_rel);

	return l && l->host && strcmp(l->host, host) == 0 ? l : NULL;
}

/* The host path of ld's name rel. */
static int source_of(const struct lib_dir *ld, const char *rel, char **ret)
{
	return asprintf(ret, "%s/%s", ld->path, rel) < 0 ? -ENOMEM : 0;
}

/* A core soname in the Debian multiarch directory of its ABI, or (64-bit) in /usr/lib64: the
 * directories glibc searches without a cache. Not /usr/lib: that one only musl searches first,
 * and musl cannot load the driver's glibc libraries. */
static bool core_mount(const struct inv_file *f, const char *path)
{
	const struct arch_abi *abi = f->is32 ? arch_compat32 : &arch_native;
	const char *slash = strrchr(path, '/');
	char dir[96];
	bool core = false;

	if (!slash || !abi)
		return false;
	for (size_t i = 0; i < ELEMENTSOF(core_names); i++)
		core |= strcmp(slash + 1, core_names[i]) == 0;
	if (!core)
		return false;
	snprintf(dir, sizeof(dir), "/usr/lib/%s", abi->multiarch);
	if (strlen(dir) == (size_t)(slash - path) && strncmp(path, dir, strlen(dir)) == 0)
		return true;
	return !f->is32 && slash - path == 10 && strncmp(path, "/usr/lib64", 10) == 0;
}

/* Keep the container paths keep() accepts; the file is then mounted from rel in ld. */
static int keep_paths(struct inv_file *f, const struct lib_dir *ld, const char *rel,
		      bool (*keep)(const struct inv_file *f, const char *path))
{
	size_t kept = 0;
	char *source;

	for (size_t k = 0; k < f->n_container_paths; k++) {
		if (rel && keep(f, f->container_paths[k]))
			f->container_paths[kept++] = f->container_paths[k];
		else
			free(f->container_paths[k]);
	}
	f->n_container_paths = kept;
	if (!kept)
		return 0;
	if (source_of(ld, rel, &source) < 0)
		return -ENOMEM;
	free(f->host_path);
	f->host_path = source;
	return 0;
}

static bool keep_any(const struct inv_file *f, const char *path)
{
	(void)f, (void)path;
	return true;
}

static bool keep_path_binary(const struct inv_file *f, const char *path)
{
	(void)f;
	return strcmp(path, PATH_BINARY) == 0;
}

/* A library: its core sonames, mounted from the directory's name of that soname. */
static int layout_library(struct inv_file *f, const struct lib_dir *ld)
{
	char rel[256] = "";

	for (size_t k = 0; k < f->n_container_paths; k++) {
		const char *p = f->container_paths[k], *slash = strrchr(p, '/');

		if (!core_mount(f, p))
			continue;
		snprintf(rel, sizeof(rel), "%s/%s", f->is32 ? "lib" : "lib64", slash + 1);
		if (!name_of(ld, rel, f->host_path))
			rel[0] = '\0';
		break;
	}
	return keep_paths(f, ld, rel[0] ? rel : NULL, core_mount);
}

/* A file kept at its own places, mounted from the directory's files/<its own place>. */
static int layout_file(struct inv_file *f, const struct lib_dir *ld)
{
	_cleanup_free_ char *rel = NULL;

	if (asprintf(&rel, "files%s", f->container_paths[0]) < 0)
		return -ENOMEM;
	/* A loader config's name is a copy: no host file to compare. */
	if (!name_of(ld, rel, f->host_path)) {
		const struct lib_link *l =
			bsearch(rel, ld->links, ld->n_links, sizeof(*ld->links), cmp_rel);

		if (!l || !l->content)
			return 0; /* another file won the name: mounted as it was */
	}
	return keep_paths(f, ld, rel, keep_any);
}

static int layout_binary(struct inv_file *f, const struct lib_dir *ld)
{
	const char *own = f->container_paths[0], *slash = strrchr(own, '/');
	_cleanup_free_ char *rel = NULL;

	if (!slash || asprintf(&rel, "bin/%s", slash + 1) < 0)
		return slash ? -ENOMEM : 0;
	return keep_paths(f, ld, name_of(ld, rel, f->host_path) ? rel : NULL, keep_path_binary);
}

static int layout_one(struct inv_file *f, const struct lib_dir *ld)
{
	if (f->n_container_paths == 0)
		return 0;
	switch (f->kind) {
	case INV_LIBRARY:
		if (strstr(f->container_paths[0], "/xorg/") ||
		    strstr(f->container_paths[0], "/X11R6/"))
			return layout_file(f, ld);
		return layout_library(f, ld);
	case INV_BINARY:
		return layout_binary(f, ld);
	case INV_FIRMWARE:
	case INV_CONFIG:
		return layout_file(f, ld);
	case INV_IPC:
		break;
	}
	return 0;
}

int lib_dir_layout(struct inventory *inv, const struct lib_dir *ld, struct cdi_error *err)
{
	struct inv_file *tree;
	int r;

	for (size_t i = 0; i < inv->n_files; i++)
		if (layout_one(&inv->files[i], ld) < 0)
			return oom(err);
	r = inventory_add_file(inv, INV_LIBRARY, DRV_CAP_UNKNOWN, false, ld->path, 0, &tree, err);
	if (r < 0)
		return r;
	return inv_file_add_path(tree, LIB_DIR_CONTAINER, "", "", err);
}

/* ---- the facts' record ---- */

/* The tag "capabilities" gives a file of group g ("compute32" → "compute/32"; "any" → null). */
static json_t *group_tag(const char *g)
{
	size_t n = strlen(g);
	char buf[64];

	if (strcmp(g, "any") == 0 || strcmp(g, "any32") == 0)
		return json_null();
	if (n > 2 && strcmp(g + n - 2, "32") == 0) {
		snprintf(buf, sizeof(buf), "%.*s/32", (int)(n - 2), g);
		return json_string(buf);
	}
	return json_string(g);
}

/* The group's record, made on first sight. */
static json_t *group_record(json_t *groups, const char *g)
{
	json_t *rec = json_object_get(groups, g);

	if (rec)
		return rec;
	rec = json_pack("{s:o, s:[]}", "tag", group_tag(g), "parts");
	if (!rec || json_object_set_new(groups, g, rec) < 0)
		return NULL;
	return rec;
}

/* Add part (the first component of a top name: lib64, lib, bin, files) to the group's parts. */
static int add_part(json_t *rec, const char *rel)
{
	size_t n = strcspn(rel, "/");
	json_t *parts = json_object_get(rec, "parts"), *p;
	size_t i;

	json_array_foreach (parts, i, p)
		if (strlen(json_string_value(p)) == n && !strncmp(json_string_value(p), rel, n))
			return 0;
	return json_array_append_new(parts, json_stringn(rel, n));
}

int lib_dir_facts(const struct lib_dir *ld, json_t **ret, struct cdi_error *err)
{
	_cleanup_json_ json_t *groups = json_object(), *rec = NULL;

	if (!groups)
		return oom(err);
	for (size_t i = 0; i < ld->n_links; i++) {
		const struct lib_link *l = &ld->links[i];
		json_t *g;

		if (!l->group)
			continue;
		g = group_record(groups, l->group);
		if (!g || add_part(g, l->rel) < 0)
			return oom(err);
	}
	rec = json_pack("{s:s, s:s, s:O}", "containerPath", LIB_DIR_CONTAINER, "hostPath", ld->path,
			"groups", groups);
	if (!rec)
		return oom(err);
	*ret = TAKE_PTR(rec);
	return 0;
}
