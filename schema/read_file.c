/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "load.h"
#include "macro.h"
#include "problem.h"
#include "read_file.h"

int cdi_open_regular_at(int dirfd, const char *path, int open_flags, struct stat *ret_st)
{
	_cleanup_close_ int fd = -1;
	struct stat st;

	/*
	 * O_NONBLOCK: opening a FIFO with no writer would wait for one (a spec file swapped for a
	 * FIFO would hang a registry scan), and reading one with a silent writer would wait
	 * forever. Only regular files are read, where O_NONBLOCK changes nothing.
	 */
	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | open_flags);
	if (fd < 0)
		return negative_errno();
	if (fstat(fd, &st) < 0)
		return negative_errno();
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if (ret_st)
		*ret_st = st;
	return TAKE_FD(fd);
}

int cdi_read_fd(int fd, size_t size_hint, size_t max, char **ret_buf, size_t *ret_len)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, cap = 0;

	if (max >= SIZE_MAX / 2)
		return -EINVAL;
	if (size_hint > max)
		return -EFBIG;
	/*
	 * Room for the whole file, its NUL and one byte more, so the read that sees EOF needs no
	 * growth; files that do not know their size (procfs) grow the buffer as they go.
	 */
	if (ARRAY_RESERVE(buf, cap, size_hint > 0 ? size_hint + 2 : 4096) < 0)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		if (len + 1 == cap && ARRAY_RESERVE(buf, cap, cap + 1) < 0)
			return -ENOMEM;
		n = read(fd, buf + len, cap - 1 - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return negative_errno();
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > max)
			return -EFBIG;
	}
	buf[len] = '\0';
	*ret_buf = TAKE_PTR(buf);
	if (ret_len)
		*ret_len = len;
	return 0;
}

int cdi_read_file_at(int dirfd, const char *path, int open_flags, size_t max, char **ret_buf,
		     size_t *ret_len, struct stat *ret_st)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r;

	fd = cdi_open_regular_at(dirfd, path, open_flags, &st);
	if (fd < 0)
		return fd;
	r = cdi_read_fd(fd, (size_t)st.st_size, max, ret_buf, ret_len);
	if (r >= 0 && ret_st)
		*ret_st = st;
	return r;
}

int cdi_read_file(const char *path, size_t max, char **ret_buf, size_t *ret_len)
{
	return cdi_read_file_at(AT_FDCWD, path, 0, max, ret_buf, ret_len, NULL);
}

/* The problem for a read of label that failed with r (from cdi_open_regular_at, cdi_read_fd). */
static int read_problem(const char *label, size_t max, int r, struct cdi_error *err)
{
	switch (r) {
	case -EFBIG:
		return cdi_problem_add(err, r, label, 0, 0, NULL, "larger than %zu bytes", max);
	case -ENOMEM:
		return cdi_fail(err, r, "out of memory");
	case -EISDIR:
	case -EINVAL:
		return cdi_problem_add(err, r, label, 0, 0, NULL, "not a regular file");
	default:
		return cdi_problem_add(err, r, label, 0, 0, NULL, "%s", strerror(-r));
	}
}

int read_fd_all(int fd, const char *label, size_t max, char **ret_buf, size_t *ret_len,
		struct cdi_error *err)
{
	struct stat st;
	size_t hint = 0;
	int r;

	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
		hint = (size_t)st.st_size;
	r = cdi_read_fd(fd, hint, max, ret_buf, ret_len);
	return r < 0 ? read_problem(label, max, r, err) : 0;
}

int read_regular_at(int dir_fd, const char *name, const char *label, size_t max, unsigned flags,
		    char **ret_buf, size_t *ret_len, struct stat *ret_st, struct cdi_error *err)
{
	bool nofollow = flags & READ_NOFOLLOW;
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r;

	fd = cdi_open_regular_at(dir_fd, name, nofollow ? O_NOFOLLOW : 0, &st);
	if (fd == -ENOENT && (flags & READ_MISSING_OK))
		return -ENOENT;
	if (fd == -ELOOP && nofollow)
		return -ELOOP;
	if (fd < 0)
		return read_problem(label, max, fd, err);
	r = cdi_read_fd(fd, (size_t)st.st_size, max, ret_buf, ret_len);
	if (r < 0)
		return read_problem(label, max, r, err);
	if (ret_st)
		*ret_st = st;
	return 0;
}
