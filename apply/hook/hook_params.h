/* SPDX-License-Identifier: Apache-2.0 */
/*
 * disable-device-node-modification (internal to apply/hook/): the container reads a copy of
 * the driver's /proc/driver/nvidia/params that says ModifyDeviceFiles: 0, so the CUDA driver
 * inside never creates or changes /dev/nvidia* nodes. As NVIDIA's hook: the copy lives in a
 * tmpfs at /run/nvidia-ctk-hook/<uuid> in the rootfs and is bind-mounted read-only over the
 * container's /proc/driver/nvidia/params, in the container's mount namespace, where runtimes
 * run createContainer hooks (after the mounts, before pivot_root).
 */
#ifndef CDIKIT_APPLY_HOOK_PARAMS_H
#define CDIKIT_APPLY_HOOK_PARAMS_H

#include <stddef.h>

#include <cdi/error.h>

#define NVIDIA_PARAMS "/proc/driver/nvidia/params"
#define PARAMS_SCRATCH_DIR "/run/nvidia-ctk-hook"
#define PARAMS_FILE "nvct-params"

/*
 * The params text with its "ModifyDeviceFiles: 1" line made 0, line by line as Go's
 * bufio.Scanner reads it: 1 and the new text (malloc'd) when it changed, 0 when there is
 * nothing to do (no such line, or it is 0 already), -ENOMEM.
 */
int params_disable_modification(const char *text, size_t len, char **ret, size_t *ret_len);

/*
 * Read the driver's params (path, the host's /proc/driver/nvidia/params): 1 with the text the
 * container should see, 0 when nothing is to be done (no driver loaded, or modification off).
 */
int hook_params_read(const char *path, char **ret, size_t *ret_len, struct cdi_error *err);

/* Mount text over the container's /proc/driver/nvidia/params (rootfs at root_fd). */
int hook_params_mount(int root_fd, const char *text, size_t len, struct cdi_error *err);

#endif
