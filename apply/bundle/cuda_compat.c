/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuda_compat.h"
#include "lib_ident.h"
#include "dir_list.h"
#include "injected_libs.h"
#include "macro.h"
#include "rootfs.h"
#include "strv.h"

static bool keep_lib(const char *name, unsigned char d_type, void *userdata)
{
	size_t *seen = userdata;

	(void)d_type;
	/* An image's directory: a cap on what it can make us read. */
	if (strncmp(name, "lib", 3) != 0 || !strstr(name, ".so.") ||
	    *seen >= ROOTFS_MAX_DIR_ENTRIES)
		return false;
	(*seen)++;
	return true;
}

/* Whether name in the compat directory is the file open at fd (the soname link the image has). */
static bool names_file(int root_fd, const char *name, int fd)
{
	_cleanup_free_ char *path = NULL;
	_cleanup_close_ int other = -1;
	struct stat a, b;

	if (asprintf(&path, "%s/%s", CUDA_COMPAT_DIR, name) < 0) {
		path = NULL;
		return false;
	}
	other = rootfs_open(root_fd, path, O_PATH);
	return other >= 0 && fstat(other, &a) == 0 && fstat(fd, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/* One compat library: its cache entry points to the soname where the image links it so. */
static int add_lib(int root_fd, int dir_fd, const char *name, struct ldcache_merge *m)
{
	_cleanup_free_ char *value = NULL, *soname = NULL;
	_cleanup_close_ int fd = -1;
	struct lib_ident id = { 0 };
	struct stat st;

	/* Links are skipped (O_NOFOLLOW): the real files are what the libraries are. */
	fd = openat(dir_fd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || lib_ident(fd, name, &id) <= 0)
		return 0;
	soname = id.soname;
	if (asprintf(&value, "%s/%s", CUDA_COMPAT_DIR,
		     soname && names_file(root_fd, soname, fd) ? soname : name) < 0) {
		value = NULL;
		return -ENOMEM;
	}
	return ldcache_merge_add(m,
				 &(struct ldcache_entry){ .flags = id.flags,
							  .key = soname ? soname : name,
							  .value = value },
				 LDCACHE_RANK_COMPAT);
}

int cuda_compat_add(int root_fd, unsigned host_major, struct ldcache_merge *m, int *ret_used)
{
	_cleanup_strv_free_ char **names = NULL;
	_cleanup_close_ int dir_fd = -1;
	unsigned newest = 0;
	size_t n = 0, seen = 0;
	int r;

	*ret_used = 0;
	if (host_major == 0)
		return 0;
	dir_fd = rootfs_open_dir(root_fd, CUDA_COMPAT_DIR, 0);
	if (dir_fd < 0 || dir_list_fd(dir_fd, keep_lib, &seen, &names, &n) < 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned major = libcuda_major(names[i]);

		newest = major > newest ? major : newest;
	}
	if (newest <= host_major)
		return 0;
	for (size_t i = 0; i < n; i++) {
		r = add_lib(root_fd, dir_fd, names[i], m);
		if (r < 0)
			return r;
	}
	*ret_used = 1;
	return 0;
}
