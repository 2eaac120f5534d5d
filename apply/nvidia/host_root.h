/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The host a container starts on, as a root directory (internal to apply/): "/" in production,
 * a simulated host in tests. Host files are reached relative to the root's fd; edits name them
 * by their real path.
 */
#ifndef CDIKIT_APPLY_HOST_ROOT_H
#define CDIKIT_APPLY_HOST_ROOT_H

#include <stdbool.h>
#include <stddef.h>

#include <cdi/error.h>

/* NULL, "" and "/" (any number of slashes) are the real root. */
bool host_root_is_real(const char *root);

/* Open root (NULL: "/") as a directory to reach host files from: an O_PATH fd. */
int host_root_open(const char *root, int *ret_fd, struct cdi_error *err);

/* The real path of the host's abs_path ("/dev/x" under "/tmp/h" is "/tmp/h/dev/x"); malloc'd,
 * NULL on ENOMEM. */
char *host_root_join(const char *root, const char *abs_path);

/* abs_path relative to the root's fd ("dev/x"; "." for "/"). */
const char *host_root_relative(const char *abs_path);

/*
 * Read a small host file (a procfs one: its size is unknown until read) at abs_path into buf,
 * NUL-terminated: a symlink, anything but a regular file, or more than size - 1 bytes is
 * refused. 0 or -errno; problems name the file.
 */
int host_root_read_small(int root_fd, const char *abs_path, char *buf, size_t size,
			 struct cdi_error *err);

#endif
