/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Which CDI devices an OCI config asks for, as nvidia-container-runtime reads them in cdi mode
 * (internal to apply/), and the legacy hook Docker adds for --gpus, which is always removed.
 */
#ifndef CDIKIT_APPLY_DEVICE_REQUESTS_H
#define CDIKIT_APPLY_DEVICE_REQUESTS_H

#include <stddef.h>
#include <jansson.h>

#include <cdi/error.h>

#include "container_env.h"
#include "env_requests.h"

/* Docker (before 29) adds a prestart hook of this name for --gpus; NVIDIA's toolkit installs
 * the same program under the second name. */
#define LEGACY_HOOK_NAME "nvidia-container-runtime-hook"
#define LEGACY_HOOK_TOOLKIT_NAME "nvidia-container-toolkit"

enum device_request_source {
	DEVICE_REQUEST_NONE,	    /* nothing asked for */
	DEVICE_REQUEST_ANNOTATIONS, /* cdi.k8s.io/ annotations: exact CDI names */
	DEVICE_REQUEST_ENV,	    /* a GPU list (NVIDIA_VISIBLE_DEVICES, a swarm-resource
				     * variable, volume mounts): GPU indices and UUIDs too */
};

struct device_requests {
	/* Qualified names, no repeats, NULL-terminated: first n_named exact names (annotations,
	 * or the IMEX channels and gated modes beside a GPU list), then the GPU list. */
	char **devices;
	size_t n, n_named;
	enum device_request_source source;
	size_t n_legacy_hooks; /* legacy prestart hooks taken out of the config */
	/* DEVICE_REQUEST_ENV: where the GPU list came from (env_requests.h), its names as asked
	 * (before mig_expand()), and the devices beside it (a copy of devices[0..n_named)). */
	struct env_requests env;
};

/*
 * Take the requests out of oci: the cdi.k8s.io/ annotations if they name any device, else what
 * env_requests_read() finds with opts (env: oci's environment; both must outlive ret). Every
 * legacy hook is removed from oci whatever is asked for (with --gpus Docker sets the variable,
 * which this reads; without cdi-runtime the hook would fail the container, as it should). On
 * error nothing is removed.
 */
int device_requests_take(json_t *oci, const struct container_env *env,
			 const struct env_request_options *opts, struct device_requests *ret,
			 struct cdi_error *err);

void device_requests_done(struct device_requests *r);

/* Remove the legacy prestart hooks from oci (an emptied list and hooks object go too). */
size_t legacy_hooks_remove(json_t *oci);

#endif
