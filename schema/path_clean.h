/* SPDX-License-Identifier: Apache-2.0 */
/* Go's filepath.Clean() (internal; shared by apply/ and generate/). */
#ifndef CDIKIT_PATH_CLEAN_H
#define CDIKIT_PATH_CLEAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Go's filepath.Clean() of path: the number of '/' in the result, which is the depth the
 * reference sorts mounts by. len bytes of path are read.
 */
size_t cdi_path_clean_depth(const char *path, size_t len);

/* Go's filepath.Clean(): a malloc'd string, NULL on ENOMEM. */
char *cdi_path_clean(const char *path);

#endif
