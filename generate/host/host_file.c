/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Host files as the generator reads them: ld.so.cache, /proc files, ELF libraries. A FIFO or a
 * device where a file should be would block a read (and the boot with it), a link could point
 * anywhere: neither is read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "host.h"
#include "host_file.h"
#include "macro.h"
#include "problem.h"
#include "root_fs.h"

const char *host_file_type(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:
		return "regular file";
	case S_IFIFO:
		return "FIFO";
	case S_IFCHR:
		return "character device";
	case S_IFBLK:
		return "block device";
	case S_IFSOCK:
		return "socket";
	case S_IFDIR:
		return "directory";
	case S_IFLNK:
		return "symbolic link";
	default:
		return "special file";
	}
}

int host_file_open(const char *full_path, unsigned flags, int *ret_fd, struct cdi_error *err)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r;

	fd = open(full_path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0) {
		r = negative_errno();
		if (r == -ENOENT && (flags & HOST_FILE_OPTIONAL))
			return r;
		if (r == -ELOOP)
			return cdi_problem_add(err, r, full_path, 0, 0, NULL,
					       "is a symbolic link; not read");
		return cdi_problem_add(err, r, full_path, 0, 0, NULL, "cannot open: %s",
				       strerror(-r));
	}
	if (fstat(fd, &st) < 0) {
		r = negative_errno();
		return cdi_problem_add(err, r, full_path, 0, 0, NULL, "cannot stat: %s",
				       strerror(-r));
	}
	if (!S_ISREG(st.st_mode))
		return cdi_problem_add(err, S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL, full_path, 0,
				       0, NULL, "is a %s, not a regular file; not read",
				       host_file_type(st.st_mode));
	if (fcntl(fd, F_SETFL, O_RDONLY) < 0) {
		r = negative_errno();
		return cdi_problem_add(err, r, full_path, 0, 0, NULL, "fcntl: %s", strerror(-r));
	}
	*ret_fd = TAKE_FD(fd);
	return 0;
}

int host_file_read_fd(int fd, const char *name, size_t max, char **ret_buf, size_t *ret_len,
		      struct cdi_error *err)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, cap = 0;
	struct stat st;

	if (max >= SIZE_MAX / 2)
		return cdi_problem_add(err, -EINVAL, name, 0, 0, NULL, "size limit too large");
	/* A file that knows its size is read in one go (the read past it sees the end). */
	if (fstat(fd, &st) == 0 && st.st_size > 0 && (uintmax_t)st.st_size <= max &&
	    ARRAY_RESERVE(buf, cap, (size_t)st.st_size + 2) < 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	for (;;) {
		size_t room;
		ssize_t n;

		/* /proc files say size 0: grow as they go, a byte past max tells "too big". */
		if (cap - len < 2 && ARRAY_RESERVE(buf, cap, len + 4096) < 0)
			return cdi_fail(err, -ENOMEM, "out of memory");
		room = cap - 1 - len;
		if (room > max + 1 - len)
			room = max + 1 - len;
		n = read(fd, buf + len, room);
		if (n < 0) {
			int r = negative_errno();

			if (r == -EINTR)
				continue;
			return cdi_problem_add(err, r, name, 0, 0, NULL, "read error: %s",
					       strerror(-r));
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > max)
			return cdi_problem_add(err, -EFBIG, name, 0, 0, NULL, "more than %zu bytes",
					       max);
	}
	buf[len] = '\0';
	*ret_buf = TAKE_PTR(buf);
	if (ret_len)
		*ret_len = len;
	return 0;
}

int host_file_read(const char *root, const char *path, size_t max, unsigned flags, char **ret_buf,
		   size_t *ret_len, struct cdi_error *err)
{
	_cleanup_free_ char *given = host_path(root, path), *real = NULL, *full = NULL;
	_cleanup_close_ int fd = -1;
	int r;

	if (!given)
		return cdi_fail(err, -ENOMEM, "out of memory");
	/* Links inside the root are followed there; the file found is opened without following. */
	r = root_resolve(root, path, &real, NULL);
	if (r == -ENOENT && (flags & HOST_FILE_OPTIONAL))
		return r;
	if (r < 0)
		return cdi_problem_add(err, r, given, 0, 0, NULL, "cannot open: %s", strerror(-r));
	full = host_path(root, real);
	if (!full)
		return cdi_fail(err, -ENOMEM, "out of memory");
	r = host_file_open(full, flags, &fd, err);
	if (r < 0)
		return r;
	return host_file_read_fd(fd, given, max, ret_buf, ret_len, err);
}
