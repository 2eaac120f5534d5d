/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bundle_config.h"
#include "macro.h"
#include "problem.h"
#include "rootfs.h"

int rootfs_open(int root_fd, const char *path, int flags)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};

	while (*path == '/')
		path++;
	if (!*path)
		path = ".";
	/* EAGAIN: a rename raced the lookup (the kernel refuses to guess); try again. */
	for (int i = 0; i < 8; i++) {
		long fd = syscall(SYS_openat2, root_fd, path, &how, sizeof(how));

		if (fd >= 0)
			return (int)fd;
		if (errno != EAGAIN)
			break;
	}
	return negative_errno();
}

static int make_dir(int root_fd, const char *path)
{
	_cleanup_free_ char *parent = strdup(path);
	_cleanup_close_ int pfd = -1;
	struct stat st;
	char *slash;
	int r;

	if (!parent)
		return -ENOMEM;
	slash = strrchr(parent, '/');
	if (slash)
		*slash = '\0';
	pfd = slash ? rootfs_open_dir(root_fd, parent, 1) : rootfs_open(root_fd, ".", O_DIRECTORY);
	if (pfd < 0)
		return pfd;
	/* mkdirat never follows a last component that is a link: a dangling one is EEXIST. */
	if (mkdirat(pfd, slash ? slash + 1 : parent, 0755) < 0 && errno != EEXIST)
		return negative_errno();
	if (fstat(pfd, &st) == 0) {
		_cleanup_close_ int fd = openat(pfd, slash ? slash + 1 : parent,
						O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		if (fd >= 0 && fchown(fd, st.st_uid, st.st_gid) < 0 && errno != EPERM) {
			r = negative_errno();
			return r;
		}
	}
	return 0;
}

int rootfs_open_dir(int root_fd, const char *path, int create)
{
	int fd, r;

	while (*path == '/')
		path++;
	fd = rootfs_open(root_fd, path, O_RDONLY | O_DIRECTORY);
	if (fd != -ENOENT || !create || !*path)
		return fd;
	r = make_dir(root_fd, path);
	if (r < 0)
		return r;
	return rootfs_open(root_fd, path, O_RDONLY | O_DIRECTORY);
}

int rootfs_replace_file(int dir_fd, const char *name, const void *buf, size_t len, mode_t mode,
			const char *label, struct cdi_error *err)
{
	struct stat st;
	int r;

	/* The owner: that of the file replaced (not of a link's target), else the directory's. */
	if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 && fstat(dir_fd, &st) < 0) {
		r = negative_errno();
		return cdi_fail(err, r, "%s: cannot stat its directory: %s", label, strerror(-r));
	}
	st.st_mode = mode;
	/* No fsync: this runs on every container start, for files of a container that does not
	 * survive a crash of the machine anyway; rename alone keeps readers from a partial file. */
	return bundle_replace_at(dir_fd, name, label, buf, len, &st, 0, err);
}
