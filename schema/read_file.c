/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "load.h"
#include "macro.h"

int cdi_read_file(const char *path, size_t max, char **ret_buf, size_t *ret_len)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, cap;
	struct stat st;

	if (max >= SIZE_MAX / 2)
		return -EINVAL;
	/*
	 * O_NONBLOCK: opening a FIFO with no writer would wait for one (a spec file swapped for a
	 * FIFO would hang a registry scan). Reads block again as usual, and a FIFO without a
	 * writer then reads as empty.
	 */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return negative_errno();
	if (fstat(fd, &st) < 0)
		return negative_errno();
	if (!S_ISREG(st.st_mode) && fcntl(fd, F_SETFL, O_RDONLY) < 0)
		return negative_errno();
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (S_ISREG(st.st_mode) && (uintmax_t)st.st_size > max)
		return -EFBIG;

	/*
	 * Room for the whole regular file, its NUL and one byte more, so the
	 * read that sees EOF needs no growth; files that do not know their
	 * size (procfs, pipes) grow the buffer as they go.
	 */
	cap = S_ISREG(st.st_mode) && st.st_size > 0 ? (size_t)st.st_size + 2 : 4096;
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;

	for (;;) {
		ssize_t n;

		if (len + 1 == cap) {
			size_t grown = cap * 2 > max + 2 ? max + 2 : cap * 2;
			char *p;

			if (grown <= cap)
				return -EFBIG;
			p = realloc(buf, grown);
			if (!p)
				return -ENOMEM;
			buf = p;
			cap = grown;
		}
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
