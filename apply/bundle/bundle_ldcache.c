/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bundle_ldcache.h"
#include "cuda_compat.h"
#include "injected_libs.h"
#include "ldcache.h"
#include "ldcache_merge.h"
#include "macro.h"
#include "mount_links.h"
#include "problem.h"
#include "rootfs.h"

#define IMAGE_CACHE "/etc/ld.so.cache"
#define LD_SO_CONF_INCLUDE "include /etc/ld.so.conf.d/*.conf\n"

static void ldcache_merge_clearp(struct ldcache_merge *m)
{
	ldcache_merge_clear(m);
}

static void injected_libs_clearp(struct injected_libs *l)
{
	injected_libs_clear(l);
}

/* The rootfs: given, or root.path of the config, relative to the bundle. */
static int rootfs_path(const json_t *oci, const char *bundle_dir, const char *rootfs, char **ret,
		       struct cdi_error *err)
{
	const char *root = rootfs;

	if (!root)
		root = json_string_value(json_object_get(json_object_get(oci, "root"), "path"));
	if (!root || !*root)
		return cdi_problem_add(err, -EINVAL, NULL, 0, 0, "root.path",
				       "no rootfs: the config has no root.path");
	if (root[0] == '/' || rootfs)
		*ret = strdup(root);
	else if (asprintf(ret, "%s/%s", bundle_dir, root) < 0)
		*ret = NULL;
	return *ret ? 0 : cdi_fail(err, -ENOMEM, "out of memory");
}

/* The image's own cache, or none: whatever the image holds there is no reason to fail. */
static int add_image_cache(int root_fd, struct ldcache_merge *m)
{
	_cleanup_ldcache_ struct ldcache *image = NULL;
	_cleanup_close_ int fd = -1;
	struct cdi_error ignored = { 0 };
	int r;

	fd = rootfs_open(root_fd, IMAGE_CACHE, O_RDONLY | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return 0;
	r = ldcache_load_fd(fd, IMAGE_CACHE, &image, &ignored);
	cdi_error_reset(&ignored);
	return r < 0 ? 0 : ldcache_merge_add_cache(m, image);
}

static int build_cache(int root_fd, const struct injected_libs *libs, char **ret_data,
		       size_t *ret_size, int *ret_compat, struct cdi_error *err)
{
	struct ldcache_merge m __attribute__((cleanup(ldcache_merge_clearp))) = { 0 };
	int r;

	r = cuda_compat_add(root_fd, libs->cuda_major, &m, ret_compat);
	for (size_t i = 0; r >= 0 && i < libs->n; i++)
		r = ldcache_merge_add(&m,
				      &(struct ldcache_entry){ .flags = libs->v[i].flags,
							       .key = libs->v[i].soname,
							       .value = libs->v[i].path },
				      LDCACHE_RANK_DRIVER);
	if (r >= 0)
		r = add_image_cache(root_fd, &m);
	if (r < 0)
		return cdi_fail(err, r, "building the linker cache: %s", strerror(-r));
	return ldcache_merge_build(&m, ret_data, ret_size, err);
}

/* The ld.so.conf.d file: compat first, then the driver's directories, as the cache has them. */
static char *conf_text(const struct injected_libs *libs, int compat)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	fputs("# Written by cdikit for this container: the GPU driver's libraries (and a newer CUDA\n"
	      "# forward-compatibility driver from the image) come before the image's own.\n",
	      f);
	if (compat)
		fprintf(f, "%s\n", CUDA_COMPAT_DIR);
	for (size_t i = 0; i < libs->n_dirs; i++)
		fprintf(f, "%s\n", libs->dirs[i]);
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

/* /etc/ld.so.conf only when the image has none (ldconfig reads nothing else). */
static int ensure_ld_so_conf(int root_fd, int etc_fd, struct cdi_error *err)
{
	_cleanup_close_ int fd = rootfs_open(root_fd, "/etc/ld.so.conf", O_PATH);

	if (fd != -ENOENT)
		return 0;
	return rootfs_replace_file(etc_fd, "ld.so.conf", LD_SO_CONF_INCLUDE,
				   strlen(LD_SO_CONF_INCLUDE), 0644, "/etc/ld.so.conf", err);
}

/* A directory of the rootfs, made where missing; -EROFS without a problem recorded. */
static int open_etc_dir(int root_fd, const char *path, struct cdi_error *err)
{
	int fd = rootfs_open_dir(root_fd, path, 1);

	if (fd < 0 && fd != -EROFS)
		return cdi_fail(err, fd, "rootfs %s: %s", path, strerror(-fd));
	return fd;
}

/* Into the rootfs; -EROFS (with no problem recorded) when it is read-only. Both directories
 * are reached first, so a rootfs that cannot take the files gets none of them. */
static int write_rootfs(int root_fd, const char *data, size_t size,
			const struct injected_libs *libs, int compat, struct cdi_error *err)
{
	_cleanup_close_ int etc_fd = -1, confd_fd = -1;
	_cleanup_free_ char *conf = NULL;
	struct cdi_error local = { 0 };
	int r;

	etc_fd = open_etc_dir(root_fd, "/etc", err);
	if (etc_fd < 0)
		return etc_fd;
	confd_fd = open_etc_dir(root_fd, "/etc/ld.so.conf.d", err);
	if (confd_fd < 0)
		return confd_fd;
	conf = conf_text(libs, compat);
	if (!conf)
		return cdi_fail(err, -ENOMEM, "out of memory");
	r = rootfs_replace_file(etc_fd, "ld.so.cache", data, size, 0644, IMAGE_CACHE, &local);
	if (r < 0) {
		if (r != -EROFS)
			cdi_error_move(err, &local);
		cdi_error_reset(&local);
		return r;
	}
	r = rootfs_replace_file(confd_fd, BUNDLE_LDCACHE_CONF, conf, strlen(conf), 0644,
				"/etc/ld.so.conf.d/" BUNDLE_LDCACHE_CONF, err);
	if (r < 0)
		return r;
	return ensure_ld_so_conf(root_fd, etc_fd, err);
}

/* Replace any mount on /etc/ld.so.cache by a read-only bind of the bundle's copy. */
static int mount_cache(json_t *oci, const char *source)
{
	json_t *mounts = json_object_get(oci, "mounts"), *m;
	size_t i;

	if (!json_is_array(mounts)) {
		mounts = json_array();
		if (!mounts || json_object_set_new(oci, "mounts", mounts) < 0)
			return -ENOMEM;
	}
	for (i = 0; i < json_array_size(mounts); i++) {
		const char *dest = json_string_value(
			json_object_get(json_array_get(mounts, i), "destination"));

		if (dest && strcmp(dest, IMAGE_CACHE) == 0 && json_array_remove(mounts, i) == 0)
			i--;
	}
	m = json_pack("{s:s, s:s, s:s, s:[s, s, s, s]}", "destination", IMAGE_CACHE, "type", "bind",
		      "source", source, "options", "bind", "ro", "nosuid", "nodev");
	return m && json_array_append_new(mounts, m) == 0 ? 0 : -ENOMEM;
}

/* A read-only rootfs: the cache goes into the bundle and is mounted over the image's. */
static int write_bundle(json_t *oci, const char *bundle_dir, int root_fd, const char *data,
			size_t size, bool erofs, struct cdi_error *err)
{
	_cleanup_free_ char *real = NULL, *source = NULL;
	_cleanup_close_ int bundle_fd = -1, image_fd = -1;
	int r;

	/* On a read-only filesystem the runtime cannot create a missing mount point. */
	image_fd = rootfs_open(root_fd, IMAGE_CACHE, O_PATH);
	if (erofs && image_fd < 0)
		return 0;
	real = realpath(bundle_dir, NULL);
	if (!real) {
		r = negative_errno();
		return cdi_fail(err, r, "%s: %s", bundle_dir, strerror(-r));
	}
	bundle_fd = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (bundle_fd < 0) {
		r = negative_errno();
		return cdi_fail(err, r, "%s: %s", real, strerror(-r));
	}
	if (asprintf(&source, "%s/%s", strcmp(real, "/") == 0 ? "" : real, BUNDLE_LDCACHE_FILE) <
	    0) {
		source = NULL;
		return cdi_fail(err, -ENOMEM, "out of memory");
	}
	r = rootfs_replace_file(bundle_fd, BUNDLE_LDCACHE_FILE, data, size, 0644, source, err);
	if (r < 0)
		return r;
	r = mount_cache(oci, source);
	return r < 0 ? cdi_fail(err, r, "out of memory") : 0;
}

/* Whether the colon-separated list names dir (a trailing slash allowed); first: as its head. */
static bool path_list_has(const char *list, const char *dir, bool first)
{
	size_t l = strlen(dir);

	for (const char *q = list;; q++) {
		const char *end = strchrnul(q, ':');
		size_t n = (size_t)(end - q);

		if (n > 1 && q[n - 1] == '/')
			n--;
		if (n == l && memcmp(q, dir, l) == 0)
			return true;
		if (!*end || first)
			return false;
		q = end;
	}
}

/* LD_LIBRARY_PATH is searched before the cache: where it names the driver, compat goes first. */
static int compat_on_library_path(json_t *oci, const struct injected_libs *libs)
{
	json_t *env = json_object_get(json_object_get(oci, "process"), "env"), *v;
	size_t i;

	json_array_foreach (env, i, v) {
		const char *s = json_string_value(v), *list;
		_cleanup_free_ char *grown = NULL;
		bool names_driver = false;

		if (!s || strncmp(s, "LD_LIBRARY_PATH=", 16) != 0)
			continue;
		list = s + 16;
		for (size_t d = 0; d < libs->n_dirs; d++)
			names_driver = names_driver || path_list_has(list, libs->dirs[d], false);
		if (!names_driver || path_list_has(list, CUDA_COMPAT_DIR, true))
			continue;
		if (asprintf(&grown, "LD_LIBRARY_PATH=%s:%s", CUDA_COMPAT_DIR, list) < 0) {
			grown = NULL;
			return -ENOMEM;
		}
		if (json_array_set_new(env, i, json_string(grown)) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* The rootfs directory, open. */
static int open_rootfs(const json_t *oci, const char *bundle_dir, const char *rootfs,
		       struct cdi_error *err)
{
	_cleanup_free_ char *root = NULL;
	int fd, r;

	r = rootfs_path(oci, bundle_dir, rootfs, &root, err);
	if (r < 0)
		return r;
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		r = negative_errno();
		return cdi_fail(err, r, "rootfs %s: %s", root, strerror(-r));
	}
	return fd;
}

/* What open_rootfs() needs, for mount_links_make() to open the rootfs when it must. */
struct rootfs_ref {
	const json_t *oci;
	const char *bundle_dir, *rootfs;
};

static int open_rootfs_ref(void *ctx, struct cdi_error *err)
{
	const struct rootfs_ref *ref = ctx;

	return open_rootfs(ref->oci, ref->bundle_dir, ref->rootfs, err);
}

int cdi_bundle_ldcache(json_t *oci, const char *bundle_dir, const char *rootfs,
		       struct cdi_error *err)
{
	struct injected_libs libs __attribute__((cleanup(injected_libs_clearp))) = { 0 };
	_cleanup_free_ char *data = NULL;
	_cleanup_close_ int root_fd = -1;
	size_t size = 0, links = 0;
	int compat = 0, r;
	bool readonly = json_is_true(json_object_get(json_object_get(oci, "root"), "readonly"));

	/* Links first: a file mount made a link is no mount of a library any more. */
	if (!readonly) {
		struct rootfs_ref ref = { oci, bundle_dir, rootfs };
		struct mount_links_root root = { &root_fd, open_rootfs_ref, &ref };

		r = mount_links_make(oci, &root, &links, err);
		if (r < 0)
			return r;
	}
	r = injected_libs_collect(oci, &libs, err);
	if (r < 0 || libs.n == 0)
		return r;
	if (root_fd < 0)
		root_fd = open_rootfs(oci, bundle_dir, rootfs, err);
	if (root_fd < 0)
		return root_fd;
	r = build_cache(root_fd, &libs, &data, &size, &compat, err);
	if (r < 0)
		return r;
	r = readonly ? -EROFS : write_rootfs(root_fd, data, size, &libs, compat, err);
	if (r == -EROFS)
		r = write_bundle(oci, bundle_dir, root_fd, data, size, !readonly, err);
	if (r < 0)
		return r;
	if (compat && compat_on_library_path(oci, &libs) < 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	return 0;
}

int cdi_bundle_ldcache_config(json_t *oci, const char *config_file, const char *rootfs,
			      struct cdi_error *err)
{
	_cleanup_free_ char *dir = NULL;
	const char *slash = strrchr(config_file, '/');

	if (strcmp(config_file, "-") == 0 || !slash)
		dir = strdup(".");
	else
		dir = strndup(config_file,
			      slash == config_file ? 1 : (size_t)(slash - config_file));
	if (!dir)
		return cdi_fail(err, -ENOMEM, "out of memory");
	return cdi_bundle_ldcache(oci, dir, rootfs, err);
}
