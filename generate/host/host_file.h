/* SPDX-License-Identifier: Apache-2.0 */
/* Reading the files of a host that others may control: never blocking, regular files only. */
#ifndef CDIKIT_HOST_FILE_H
#define CDIKIT_HOST_FILE_H

#include <stddef.h>
#include <sys/types.h>

#include <cdi/error.h>

/* A missing file returns -ENOENT without a problem (the caller has a fallback). */
#define HOST_FILE_OPTIONAL 1u

/*
 * Open full_path (a host path, its directories already resolved) for reading: O_NOFOLLOW, so
 * the file itself is never a link; O_NONBLOCK, so a FIFO cannot hang the open; accepted only
 * when fstat says it is a regular file, and then the flag is cleared. Every failure is a
 * problem naming full_path.
 */
int host_file_open(const char *full_path, unsigned flags, int *ret_fd, struct cdi_error *err);

/* Read an open file to its end: at most max bytes (more is -EFBIG), NUL-terminated; name labels
 * problems. */
int host_file_read_fd(int fd, const char *name, size_t max, char **ret_buf, size_t *ret_len,
		      struct cdi_error *err);

/*
 * Read path (absolute, inside root; "" is "/"), resolved inside the root (root_fs.h), opened by
 * host_file_open() and read whole: at most max bytes (more is a problem), NUL-terminated. /proc
 * files report size 0 and are read to their end. ret_len may be NULL.
 */
int host_file_read(const char *root, const char *path, size_t max, unsigned flags, char **ret_buf,
		   size_t *ret_len, struct cdi_error *err);

/* "regular file", "FIFO", "symbolic link", ... for messages ("is a %s"). */
const char *host_file_type(mode_t mode);

#endif
