/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Whether a container's own NVIDIA_VISIBLE_DEVICES is trusted (internal to apply/). Anyone who
 * can start a container can set its environment; under Kubernetes that is every pod author,
 * while GPUs are allocated by the device plugin. nvidia-container-toolkit trusts the variable by
 * default; a runtime.conf setting turns that off for unprivileged containers.
 */
#ifndef CDIKIT_APPLY_ENV_TRUST_H
#define CDIKIT_APPLY_ENV_TRUST_H

#include <stdbool.h>
#include <jansson.h>

#include <cdi/error.h>

/* The runtime.conf key (nvidia-container-toolkit's config.toml name) and its default. */
#define ENV_TRUST_SETTING "accept-nvidia-visible-devices-envvar-when-unprivileged"
#define ENV_TRUST_DEFAULT true

/*
 * A privileged container as nvidia-container-toolkit decides it (image.IsPrivileged):
 * CAP_SYS_ADMIN in process.capabilities.bounding. The bounding set, not the effective one, so
 * a non-root user in a container started --privileged still counts. A pre-1.0.0-rc5 config
 * whose capabilities are one flat list is searched as that list.
 */
bool oci_privileged(const json_t *oci);

/* Whether NVIDIA_VISIBLE_DEVICES from oci's process.env is honoured. */
bool env_trust_visible_devices(const json_t *oci, bool accept_unprivileged);

/* A value of the setting: "true" or "false"; anything else is -EINVAL naming the key. */
int env_trust_setting_parse(const char *value, bool *ret, struct cdi_error *err);

#endif
