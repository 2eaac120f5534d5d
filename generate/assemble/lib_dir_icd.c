/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Loader configuration for the library directory (lib_dir.h): the driver's ICD files name their
 * library by a bare soname ("library_path": "libGLX_nvidia.so.0"), which the Vulkan loader,
 * GLVND's EGL and the OpenCL ICD loader dlopen. With the directory layout the graphics and
 * OpenCL libraries are only in /usr/local/nvidia/lib64, which an image without the CUDA
 * LD_LIBRARY_PATH does not search; a copy of each file naming the library by that absolute path
 * goes into the directory and is mounted in the host file's place. A group's copy names the
 * library where its own group is mounted (/usr/local/nvidia/caps/<group>/lib64/NAME).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "host/host_file.h"
#include "lib_dir.h"
#include "macro.h"
#include "problem.h"

#define ICD_MAX (64u << 10) /* an ICD file is a few hundred bytes */
#define FILES_SUB "files"

/* The directory's lib64/name, or NULL: only a library it holds is named by absolute path. */
static const struct lib_link *lib64_link(const struct lib_dir *ld, const char *name, size_t len)
{
	for (size_t i = 0; i < ld->n_links; i++)
		if (ld->links[i].host && ld->links[i].group &&
		    strncmp(ld->links[i].rel, "lib64/", 6) == 0 &&
		    strlen(ld->links[i].rel + 6) == len &&
		    strncmp(ld->links[i].rel + 6, name, len) == 0)
			return &ld->links[i];
	return NULL;
}

static bool have_lib(const struct lib_dir *ld, const char *name, size_t len)
{
	return lib64_link(ld, name, len) != NULL;
}

/* Append s[0..n) to a growing buffer. */
static int put(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (array_reserve(buf, cap, *len + n + 1, 1) < 0)
		return -ENOMEM;
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
	return 0;
}

/* The bare name [*ret_at, +*ret_n) that a "library_path" at p names, or false. */
static bool json_library_name(const char *p, const char **ret_at, size_t *ret_n)
{
	p += strlen("\"library_path\"");
	p += strspn(p, " \t\r\n");
	if (*p++ != ':')
		return false;
	p += strspn(p, " \t\r\n");
	if (*p++ != '"')
		return false;
	*ret_n = strcspn(p, "\"\\/\n");
	*ret_at = p;
	return *ret_n > 0 && p[*ret_n] == '"';
}

/* text with each bare "library_path" the directory holds made absolute; *ret NULL: no change. */
static int rewrite_json(const struct lib_dir *ld, const char *text, char **ret, size_t *ret_len)
{
	_cleanup_free_ char *out = NULL;
	size_t len = 0, cap = 0, n;
	const char *p = text, *key, *name;
	bool changed = false;

	while ((key = strstr(p, "\"library_path\""))) {
		if (!json_library_name(key, &name, &n) || !have_lib(ld, name, n)) {
			if (put(&out, &len, &cap, p, (size_t)(key + 1 - p)) < 0)
				return -ENOMEM;
			p = key + 1;
			continue;
		}
		if (put(&out, &len, &cap, p, (size_t)(name - p)) < 0 ||
		    put(&out, &len, &cap, LIB_DIR_CONTAINER64 "/",
			strlen(LIB_DIR_CONTAINER64) + 1) < 0)
			return -ENOMEM;
		p = name;
		changed = true;
	}
	if (put(&out, &len, &cap, p, strlen(p)) < 0)
		return -ENOMEM;
	*ret = changed ? TAKE_PTR(out) : NULL;
	*ret_len = len;
	return 0;
}

/* An OpenCL .icd file is the library's name on one line. */
static int rewrite_icd(const struct lib_dir *ld, const char *text, char **ret, size_t *ret_len)
{
	size_t n = strcspn(text, "\r\n");

	*ret = NULL;
	if (n == 0 || memchr(text, '/', n) || text[n + strspn(text + n, "\r\n")] != '\0' ||
	    !have_lib(ld, text, n))
		return 0;
	if (asprintf(ret, "%s/%.*s\n", LIB_DIR_CONTAINER64, (int)n, text) < 0)
		return -ENOMEM;
	*ret_len = strlen(*ret);
	return 0;
}

/* The directory's name for a config file: files/etc/vulkan/icd.d/nvidia_icd.json. */
static int config_rel(const struct inv_file *f, char **ret)
{
	return asprintf(ret, FILES_SUB "%s", f->container_paths[0]) < 0 ? -ENOMEM : 0;
}

static int cmp_rel(const void *key, const void *link)
{
	return strcmp(key, ((const struct lib_link *)link)->rel);
}

static bool is_loader_config(const struct inv_file *f)
{
	const char *p = f->n_container_paths ? f->container_paths[0] : "";
	size_t n = strlen(p);

	return f->kind == INV_CONFIG && !strstr(p, "..") &&
	       ((n > 5 && strcmp(p + n - 5, ".json") == 0) ||
		(n > 4 && strcmp(p + n - 4, ".icd") == 0));
}

/* One config file: its name in ld made a copy when it names a library of the directory. */
static int plan_config(const struct inv_file *f, struct lib_dir *ld, struct cdi_error *err)
{
	_cleanup_free_ char *text = NULL, *out = NULL, *rel = NULL;
	_cleanup_close_ int fd = -1;
	size_t len = 0, out_len = 0;
	const char *p = f->container_paths[0];
	struct lib_link *l;
	int r;

	if (config_rel(f, &rel) < 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	/* The file's own name (sorted by take_winners): another file may have won it. */
	l = bsearch(rel, ld->links, ld->n_links, sizeof(*ld->links), cmp_rel);
	if (!l || !l->host || strcmp(l->host, f->host_path) != 0)
		return 0;
	r = host_file_open(f->host_path, 0, &fd, err);
	if (r >= 0)
		r = host_file_read_fd(fd, f->host_path, ICD_MAX, &text, &len, err);
	if (r < 0)
		return r;
	if (strlen(text) != len) /* a NUL inside: not a text file of ours */
		return 0;
	r = strcmp(p + strlen(p) - 4, ".icd") == 0 ? rewrite_icd(ld, text, &out, &out_len)
						   : rewrite_json(ld, text, &out, &out_len);
	if (r < 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	if (!out)
		return 0;
	free(l->host);
	l->host = NULL;
	l->content = TAKE_PTR(out);
	l->content_len = out_len;
	return 0;
}

int lib_dir_plan_configs(const struct inventory *inv, struct lib_dir *ld, struct cdi_error *err)
{
	int r;

	for (size_t i = 0; i < inv->n_files; i++) {
		if (!is_loader_config(&inv->files[i]))
			continue;
		r = plan_config(&inv->files[i], ld, err);
		if (r < 0)
			return r;
	}
	return 0;
}

int lib_dir_config_for_group(const struct lib_dir *ld, const struct lib_link *top, char **ret,
			     size_t *ret_len)
{
	static const char prefix[] = LIB_DIR_CONTAINER64 "/";
	_cleanup_free_ char *out = NULL;
	size_t len = 0, cap = 0, n;
	const char *p = top->content, *at;

	/* The top copy is ours: each library it names is prefix + a name the directory holds. */
	while ((at = strstr(p, prefix))) {
		const struct lib_link *lib;
		char dir[128];

		n = strcspn(at + strlen(prefix), "\"\n");
		lib = lib64_link(ld, at + strlen(prefix), n);
		if (lib)
			snprintf(dir, sizeof(dir),
				 LIB_DIR_CONTAINER "/" LIB_DIR_GROUPS "/%s/lib64/", lib->group);
		else /* not a name of ours: as it was */
			snprintf(dir, sizeof(dir), "%s", prefix);
		if (put(&out, &len, &cap, p, (size_t)(at - p)) < 0 ||
		    put(&out, &len, &cap, dir, strlen(dir)) < 0)
			return -ENOMEM;
		p = at + strlen(prefix);
	}
	if (put(&out, &len, &cap, p, strlen(p)) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(out);
	*ret_len = len;
	return 0;
}
