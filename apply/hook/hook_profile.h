/* SPDX-License-Identifier: Apache-2.0 */
/*
 * update-application-profile (internal to apply/hook/): NVIDIA's EGL and Vulkan drivers
 * enumerate every GPU of the host and fail on those whose /dev/nvidia<minor> the container
 * lacks; the profile NVIDIA's v1.20 hook writes names the container's GPUs
 * (EGLVisibleDGPUDevices, a bit per minor), from the nodes the runtime has made by then.
 */
#ifndef CDIKIT_APPLY_HOOK_PROFILE_H
#define CDIKIT_APPLY_HOOK_PROFILE_H

#include <stdint.h>

#include <cdi/error.h>

/* The GPU minors of the rootfs's /dev/nvidia<N> character devices (N < 64; others are a
 * warning). 0 when there is no /dev. */
uint64_t profile_gpu_mask(int root_fd, struct cdi_error *warnings);

/*
 * Write the profile of the container's GPUs to APP_PROFILE_CONTAINER_PATH in the rootfs, as
 * NVIDIA's hook writes it (no newline at the end; a new file 0444, its new directories 0555;
 * an existing file keeps its mode). No GPU node: nothing is written.
 */
int hook_update_application_profile(int root_fd, struct cdi_error *warnings, struct cdi_error *err);

#endif
