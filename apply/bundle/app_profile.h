/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The EGL application profile of a container that sees some of the GPUs (internal), what
 * nvidia-ctk's update-application-profile hook writes at container start, settled in the bundle.
 */
#ifndef CDIKIT_APPLY_APP_PROFILE_H
#define CDIKIT_APPLY_APP_PROFILE_H

#include <stdint.h>
#include <jansson.h>

#include <cdi/error.h>

/* Where the generator's GPU devices mount their profile (generate/inventory.h says the same). */
#define APP_PROFILE_CONTAINER_PATH "/etc/nvidia/nvidia-application-profiles-rc.d/10-container.conf"
/* The file in the bundle that holds the container's own profile. */
#define APP_PROFILE_BUNDLE_NAME "cdikit-app-profile.conf"

/* The mask of GPU minors the config's linux.devices give the container (/dev/nvidiaN, N < 64,
 * character devices of major 195 where a major is stated). */
uint64_t app_profile_gpu_mask(const json_t *oci);

/* The profile's text for a mask, as the hook writes it. ret must hold APP_PROFILE_MAX bytes. */
#define APP_PROFILE_MAX 192
int app_profile_format(uint64_t mask, char ret[APP_PROFILE_MAX]);

/*
 * Each GPU device mounts its own profile (mask 1 << minor) at the one path, and CDI keeps the
 * last mount, so a container with several GPUs would see one of them in EGL. When the config
 * mounts a profile there and has GPU nodes, write the profile of all of them into the bundle
 * directory and point the mount at it. 0 when there is nothing to do or it is done.
 */
int bundle_app_profile(json_t *oci, const char *bundle, struct cdi_error *err);

#endif
