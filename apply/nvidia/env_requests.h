/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a container asks nvidia-container-runtime for by its own configuration, after CDI
 * annotations (internal to apply/): the GPU list (volume mounts when accepted, else the first
 * swarm-resource variable it has, else NVIDIA_VISIBLE_DEVICES, the variables under the trust
 * rule of env_trust.h) and, for a container that asks for GPUs, the IMEX channels and gated
 * modes' devices beside them (mode_devices.h). internal/config/image/cuda_image.go
 * VisibleDevices and ImexChannelRequests, in that order.
 */
#ifndef CDIKIT_APPLY_ENV_REQUESTS_H
#define CDIKIT_APPLY_ENV_REQUESTS_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include <cdi/error.h>

#include "container_env.h"
#include "mode_devices.h"

/* The runtime.conf key (nvidia-container-toolkit's config.toml name): variable names that
 * replace NVIDIA_VISIBLE_DEVICES, comma-separated (Docker Swarm's DOCKER_RESOURCE_GPU). */
#define SWARM_RESOURCE_SETTING "swarm-resource"

struct env_request_options {
	bool accept_mounts;	      /* VOLUME_MOUNTS_SETTING (mount_requests.h) */
	bool accept_env_unprivileged; /* ENV_TRUST_SETTING (env_trust.h) */
	const char *swarm_resource;   /* SWARM_RESOURCE_SETTING; NULL or "": none */
	bool none_asks_nothing;	      /* "none" asks for no device (cdi-apply --from-env), not for
				       * the none device (cdi-runtime, as the runtime does) */
};

struct env_requests {
	char **gpus; /* qualified names, request order, no repeats; NULL-terminated */
	size_t n_gpus;
	struct mode_devices modes; /* beside GPUs only */
	bool from_mounts;	   /* the GPUs came from volume mounts */
	/* The variable the GPU list was read from (NULL for mounts) and its value (borrowed
	 * from the config; a legacy image's unset NVIDIA_VISIBLE_DEVICES reads "all"). */
	char *var;
	const char *value;
	/* What an unprivileged container asked for by its own variables and was not given
	 * (ENV_TRUST_SETTING false): the list (var, value) and NVIDIA_IMEX_CHANNELS's value. */
	bool ignored;
	const char *ignored_imex;
};

/* env: oci's environment (container_env_read()). Problems name the variable or mount. */
int env_requests_read(const json_t *oci, const struct container_env *env,
		      const struct env_request_options *opts, struct env_requests *ret,
		      struct cdi_error *err);

void env_requests_done(struct env_requests *r);

#endif
