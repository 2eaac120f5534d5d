/* SPDX-License-Identifier: Apache-2.0 */
/*
 * chmod (internal to apply/hook/): NVIDIA's deprecated hook (off in nvidia-ctk's specs since
 * v1.18, `--enable-hook chmod` brings it back) that opens up /dev/dri or /dev/nvidia-caps.
 */
#ifndef CDIKIT_APPLY_HOOK_CHMOD_H
#define CDIKIT_APPLY_HOOK_CHMOD_H

#include <stddef.h>
#include <sys/types.h>

#include <cdi/error.h>

/* --mode: an octal mode, at most 07777. 0 or -EINVAL with the problem NVIDIA's hook names. */
int chmod_mode_parse(const char *text, mode_t *ret, struct cdi_error *err);

/*
 * Give each container path of paths (resolved inside the rootfs, links followed there) the
 * mode, unless it has it already; a missing path is skipped, and a permission error ignored
 * (a whole /dev bind-mounted read-only from the host). Other failures are problems naming
 * the path, after every path was tried.
 */
int hook_chmod(int root_fd, mode_t mode, char *const *paths, size_t n, struct cdi_error *err);

#endif
