/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Whole files read for the library and the tools (internal), with a problem naming the file on
 * failure: config.json, the facts file, runtime.conf. The bare readers are in load.h.
 */
#ifndef CDIKIT_READ_FILE_H
#define CDIKIT_READ_FILE_H

#include <stddef.h>
#include <sys/stat.h>

#include <cdi/error.h>

/* Read all of fd (at most max bytes), NUL-terminated; label names it. */
int read_fd_all(int fd, const char *label, size_t max, char **ret_buf, size_t *ret_len,
		struct cdi_error *err);

enum {
	READ_NOFOLLOW = 1u << 0,   /* O_NOFOLLOW: a link is -ELOOP, with no problem added */
	READ_MISSING_OK = 1u << 1, /* a missing file is -ENOENT without a problem */
};

/*
 * Read the regular file name in dir_fd (AT_FDCWD for a path), at most max bytes, opened with
 * O_NONBLOCK (a FIFO must not hang us); anything but a regular file is refused. flags:
 * READ_*. ret_st (may be NULL) gets its fstat. Problems name the file by label.
 */
int read_regular_at(int dir_fd, const char *name, const char *label, size_t max, unsigned flags,
		    char **ret_buf, size_t *ret_len, struct stat *ret_st, struct cdi_error *err);

#endif
