/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The NVIDIA_* variables of a container's own environment (process.env of its OCI config) and
 * what they mean together, as nvidia-container-toolkit reads an image (internal to apply/):
 * the last assignment of a variable counts, a "legacy" image (CUDA_VERSION set, no
 * NVIDIA_REQUIRE_CUDA) gets all GPUs and all capabilities when it does not say, and a
 * cuda>= requirement from its CUDA_VERSION.
 */
#ifndef CDIKIT_APPLY_CONTAINER_ENV_H
#define CDIKIT_APPLY_CONTAINER_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include <cdi/error.h>

#include "mode_devices.h"
#include "require.h"

struct container_env {
	/* The value of each variable, NULL when unset. They point into the OCI config read and
	 * live as long as it does, unchanged. */
	const char *visible_devices;	 /* NVIDIA_VISIBLE_DEVICES */
	const char *driver_capabilities; /* NVIDIA_DRIVER_CAPABILITIES */
	const char *mig_config_devices;	 /* NVIDIA_MIG_CONFIG_DEVICES */
	const char *mig_monitor_devices; /* NVIDIA_MIG_MONITOR_DEVICES */
	const char *disable_require;	 /* NVIDIA_DISABLE_REQUIRE */
	const char *require_cuda;	 /* NVIDIA_REQUIRE_CUDA */
	const char *cuda_version;	 /* CUDA_VERSION */
	const char *imex_channels;	 /* NVIDIA_IMEX_CHANNELS */
	const char *gated[GATED_N]; /* NVIDIA_GDS, _MOFED, _GDRCOPY, _NVSWITCH (mode_devices.h) */

	/* Private: every NVIDIA_REQUIRE_* but NVIDIA_REQUIRE_JETPACK*, in the order first set,
	 * then the legacy image's; use container_env_requirements(). */
	struct requirement *reqs;
	size_t n_reqs;
	char **owned; /* names of reqs and the legacy expression */
	size_t n_owned, owned_cap;
	int legacy_problem; /* 0, or why the legacy requirement could not be made */
};

/* The value of the last name= in oci's process.env (borrowed), or NULL when it is not set. */
const char *oci_env_value(const json_t *oci, const char *name);

/* Read the variables from oci's process.env (missing: all unset). Only -ENOMEM fails. */
int container_env_read(const json_t *oci, struct container_env *ret, struct cdi_error *err);

void container_env_done(struct container_env *env);

/* CUDA_VERSION non-empty and NVIDIA_REQUIRE_CUDA unset or empty. */
bool container_env_legacy(const struct container_env *env);

/* NVIDIA_VISIBLE_DEVICES as it counts: "all" for a legacy image that leaves it unset. */
const char *container_env_visible_devices(const struct container_env *env);

/* cdi_visible_devices_parse() of that value (ownership as there). */
int container_env_visible_device_names(const struct container_env *env, char ***ret_devices,
				       size_t *ret_n, struct cdi_error *err);

/* The capabilities asked for: all for a legacy image that leaves the variable unset, else
 * driver_caps_parse() of it. */
int container_env_driver_caps(const struct container_env *env, unsigned *ret_caps,
			      struct cdi_error *err);

/* NVIDIA_DISABLE_REQUIRE is true as Go's strconv.ParseBool reads it (1, t, T, TRUE, true, True). */
bool container_env_require_disabled(const struct container_env *env);

/*
 * The requirements to check: none when disabled; else every NVIDIA_REQUIRE_* but
 * NVIDIA_REQUIRE_JETPACK* (first-set order, last value), then for a legacy image
 * "cuda>=<major>.<minor>" of CUDA_VERSION (named CUDA_VERSION). A CUDA_VERSION that is not a
 * semantic version (Go's x/mod/semver, an optional leading v) is -EINVAL with a problem naming
 * it, as the toolkit fails such an image. *ret points into env.
 */
int container_env_requirements(const struct container_env *env, const struct requirement **ret,
			       size_t *ret_n, struct cdi_error *err);

#endif
