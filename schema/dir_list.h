/* SPDX-License-Identifier: Apache-2.0 */
/* Read a directory, keep some names, sort them: the one directory scan (internal). */
#ifndef CDIKIT_DIR_LIST_H
#define CDIKIT_DIR_LIST_H

#include <stdbool.h>
#include <stddef.h>

/* Whether to keep an entry; d_type is DT_UNKNOWN on filesystems that do not report it. */
typedef bool (*dir_keep_fn)(const char *name, unsigned char d_type, void *userdata);

/* More entries than any directory cdikit reads legitimately holds. */
#define DIR_LIST_MAX_ENTRIES (1u << 20)

/*
 * The names of the directory open at dirfd (not consumed: it is duplicated), without "." and
 * "..", that keep() accepts (NULL: all), sorted bytewise so the same directory always gives
 * the same order. *ret_names is NULL-terminated (free with strv_free), *ret_n the count.
 * -E2BIG beyond DIR_LIST_MAX_ENTRIES kept names, -ENOMEM, or the -errno of reading.
 */
int dir_list_fd(int dirfd, dir_keep_fn keep, void *userdata, char ***ret_names, size_t *ret_n);

/*
 * The same for path, opened relative to atfd (AT_FDCWD for the working directory) with
 * O_DIRECTORY plus open_flags (e.g. O_NOFOLLOW). -ENOENT / -ENOTDIR as open(2) gives them.
 */
int dir_list_at(int atfd, const char *path, int open_flags, dir_keep_fn keep, void *userdata,
		char ***ret_names, size_t *ret_n);

#endif
