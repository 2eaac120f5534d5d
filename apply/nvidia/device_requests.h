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

/* Docker (before 29) adds a prestart hook of this name for --gpus; NVIDIA's toolkit installs
 * the same program under the second name. */
#define LEGACY_HOOK_NAME "nvidia-container-runtime-hook"
#define LEGACY_HOOK_TOOLKIT_NAME "nvidia-container-toolkit"

/* What NVIDIA_VISIBLE_DEVICES=none asks for: the driver without any GPU. */
#define VISIBLE_DEVICES_NONE_DEVICE "nvidia.com/gpu=none"

enum device_request_source {
	DEVICE_REQUEST_NONE,	    /* nothing asked for */
	DEVICE_REQUEST_ANNOTATIONS, /* cdi.k8s.io/ annotations: exact CDI names */
	DEVICE_REQUEST_ENV,	    /* NVIDIA_VISIBLE_DEVICES: GPU indices and UUIDs too */
};

struct device_requests {
	char **devices; /* qualified names, request order, no repeats; NULL-terminated */
	size_t n;
	enum device_request_source source;
	size_t n_legacy_hooks;	     /* legacy prestart hooks taken out of the config */
	const char *visible_devices; /* DEVICE_REQUEST_ENV: the value they came from (borrowed) */
};

/*
 * Take the requests out of oci: the cdi.k8s.io/ annotations if they name any device, else
 * visible_devices, the value NVIDIA_VISIBLE_DEVICES of process.env counts as
 * (container_env_visible_devices(); NULL when unset or not trusted, env_trust.h): NULL, "",
 * "void": nothing; "none": the none device; other items as cdi_visible_devices_parse() reads
 * them. It must outlive ret. Every legacy hook is removed from
 * oci whatever is asked for (with --gpus Docker sets the variable, which this reads; without
 * cdi-runtime the hook would fail the container, as it should). On error nothing is removed.
 */
int device_requests_take(json_t *oci, const char *visible_devices, struct device_requests *ret,
			 struct cdi_error *err);

void device_requests_done(struct device_requests *r);

/* Remove the legacy prestart hooks from oci (an emptied list and hooks object go too). */
size_t legacy_hooks_remove(json_t *oci);

#endif
