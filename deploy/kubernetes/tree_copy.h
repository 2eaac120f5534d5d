/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CDIKIT_TREE_COPY_H
#define CDIKIT_TREE_COPY_H

#include <cdi/error.h>

/* Caps on what tree_copy() walks: the payload is a handful of programs and libraries. */
#define TREE_COPY_MAX_DEPTH 8
#define TREE_COPY_MAX_ENTRIES 1024
#define TREE_COPY_MAX_FILE (256u * 1024 * 1024)

/*
 * Copy the tree src (directories, regular files, symlinks) into dst, creating dst and
 * every directory on the way. Each file and link replaces its old copy by rename, so a
 * program running from the old copy keeps its file. Anything else (a device, a FIFO) is an
 * error. Returns 0 or -errno with the problem, naming the path, in err.
 */
int tree_copy(const char *src, const char *dst, struct cdi_error *err);

#endif
