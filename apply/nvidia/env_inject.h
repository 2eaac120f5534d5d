/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Injecting the GPUs a container selected through its NVIDIA_* environment (internal to apply/):
 * the decisions of container_env, require, driver_caps, mig_admin and mps put together, as
 * nvidia-container-toolkit's hook and libnvidia-container make them at container start, but
 * taken before the runtime runs, from the facts cdi-generate recorded beside the spec.
 */
#ifndef CDIKIT_APPLY_ENV_INJECT_H
#define CDIKIT_APPLY_ENV_INJECT_H

#include <stddef.h>
#include <jansson.h>

#include <cdi/error.h>
#include <cdi/registry.h>

#include "container_env.h"
#include "facts.h"

/* The host side of the decisions. */
struct env_inject_options {
	const char *host_root;	  /* where host files are read: NULL for "/" */
	const char *mps_pipe_dir; /* the host's MPS pipe directory: NULL for /tmp/nvidia-mps */
	/* Facts the caller has read already, which the injection adds to (NULL: its own). */
	struct cdi_facts_memo *facts;
	/* The GPU list as the container asked for it, before MIG-mode GPUs were expanded into
	 * their MIG devices (env_requests.h); NULL: what NVIDIA_VISIBLE_DEVICES asks for. */
	const char *const *asked;
};

/*
 * Merge devices into oci, all or nothing. The first n_named are exact CDI names (annotations,
 * command-line arguments): every file of theirs goes in, as a native CDI consumer gives it. The
 * rest came from the container's GPU list (NVIDIA_VISIBLE_DEVICES, a swarm-resource variable,
 * volume mounts), and for them env (oci's environment) decides:
 *   1. the NVIDIA_REQUIRE_* (and legacy CUDA_VERSION) requirements are checked against the
 *      facts file beside the spec of the selected devices, once per selected GPU and MIG device;
 *      no facts file, facts of another driver than the running one, or a device the facts do
 *      not describe fail the check, naming what is missing (NVIDIA_DISABLE_REQUIRE skips it);
 *   2. NVIDIA_DRIVER_CAPABILITIES filters their edits (and their spec's own edits, unless a named
 *      device comes from the same spec) by the capabilities the facts record;
 *   3. NVIDIA_MIG_CONFIG_DEVICES / NVIDIA_MIG_MONITOR_DEVICES add the MIG capability nodes;
 *   4. the MPS pipe directory is mounted when the container gets compute.
 * With no device from the environment (n_named == n_devices) this is cdi_registry_inject().
 * Problems name the variable, the device or the facts file.
 */
int env_inject(const cdi_registry *reg, json_t *oci, const struct container_env *env,
	       const char *const *devices, size_t n_devices, size_t n_named,
	       const struct env_inject_options *opts, struct cdi_error *err);

#endif
