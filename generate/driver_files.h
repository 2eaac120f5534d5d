/* SPDX-License-Identifier: Apache-2.0 */
/* The driver's files a container needs, as CDI mounts (internal). */
#ifndef CDIKIT_DRIVER_FILES_H
#define CDIKIT_DRIVER_FILES_H

#include <jansson.h>

#include <cdi/error.h>

#include "host.h"

/*
 * Discover the driver's libraries (64- and 32-bit, through the host's
 * ld.so.cache and the standard library dirs; only files whose name ends in
 * the driver version), binaries, GSP firmware, IPC sockets and
 * Vulkan/EGL/GLVND/OpenCL config files, and return them as a JSON array of
 * CDI mount objects {hostPath, containerPath, options}, sorted by
 * containerPath, no duplicates. Libraries are also mounted under their
 * soname and link names in the linker's default directories (see
 * docs/hookless.md), so no ldconfig or symlink hook is needed.
 */
int driver_mounts(const struct gen_host *host, const char *driver_version, json_t **ret_mounts,
		  struct cdi_error *err);

#endif
