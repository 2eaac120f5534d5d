/* SPDX-License-Identifier: Apache-2.0 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "dir_list.h"
#include "macro.h"
#include "strv.h"

int dir_list_fd(int dirfd, dir_keep_fn keep, void *userdata, char ***ret_names, size_t *ret_n)
{
	struct strv_builder names __attribute__((cleanup(strv_builder_clear))) = { 0 };
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;
	int fd, r;

	fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return negative_errno();
	d = fdopendir(fd);
	if (!d) {
		r = negative_errno();
		close(fd);
		return r;
	}
	/* The duplicate shares the file offset: start from the top whatever the caller read. */
	rewinddir(d);
	while ((errno = 0, de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (keep && !keep(de->d_name, de->d_type, userdata))
			continue;
		if (names.n >= DIR_LIST_MAX_ENTRIES)
			return -E2BIG;
		r = strv_builder_add(&names, de->d_name);
		if (r < 0)
			return r;
	}
	if (errno)
		return negative_errno();
	strv_sort(names.v, names.n);
	*ret_names = strv_builder_steal(&names, ret_n);
	return *ret_names ? 0 : -ENOMEM;
}

int dir_list_at(int atfd, const char *path, int open_flags, dir_keep_fn keep, void *userdata,
		char ***ret_names, size_t *ret_n)
{
	_cleanup_close_ int fd = -1;

	fd = openat(atfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | open_flags);
	if (fd < 0)
		return negative_errno();
	return dir_list_fd(fd, keep, userdata, ret_names, ret_n);
}
