/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NVIDIA_MIG_CONFIG_DEVICES and NVIDIA_MIG_MONITOR_DEVICES (internal to apply/): the capability
 * nodes that let a container reconfigure MIG on its GPUs (mig/config) or see all their MIG
 * devices (mig/monitor). libnvidia-container's rules (cli/common.c, nvc_mount.c): only for a
 * privileged container, only on MIG-capable GPUs the container sees, never with MIG devices
 * chosen one by one; the global cap node plus every existing GPU- and compute-instance cap node
 * of each GPU chosen.
 */
#ifndef CDIKIT_APPLY_MIG_ADMIN_H
#define CDIKIT_APPLY_MIG_ADMIN_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include <cdi/error.h>

#define MIG_CONFIG_ENV "NVIDIA_MIG_CONFIG_DEVICES"
#define MIG_MONITOR_ENV "NVIDIA_MIG_MONITOR_DEVICES"

/* A GPU the container sees: one selected whole, or the parent of a selected MIG device. */
struct mig_admin_gpu {
	unsigned minor;	   /* /dev/nvidia<minor>, capabilities/gpu<minor> */
	const char *index; /* "2": how the variables may name it */
	const char *uuid;  /* "GPU-...", also accepted (any case); NULL when unknown */
};

struct mig_admin_request {
	const char *config_devices;	  /* NVIDIA_MIG_CONFIG_DEVICES; NULL or "": not asked */
	const char *monitor_devices;	  /* NVIDIA_MIG_MONITOR_DEVICES */
	bool privileged;		  /* oci_privileged() of the config */
	const struct mig_admin_gpu *gpus; /* the visible GPUs, no repeats */
	size_t n_gpus;
	bool all_selected;    /* the GPUs came from "all" */
	size_t n_mig_devices; /* MIG devices selected one by one */
	const char *root;     /* the host root: NULL for "/" */
};

/*
 * The containerEdits to add, as a new object: {"deviceNodes": [{"path":
 * "/dev/nvidia-caps/nvidia-cap<M>"}, ...]} in ascending minor order (with "hostPath" when root is
 * not "/"), {} when nothing is asked or needed. Each variable is "all" (any case: every visible
 * MIG-capable GPU) or comma-separated indices or UUIDs of visible GPUs (an extension: NVIDIA
 * accepts only "all"). Minors come from the DeviceFileMinor of
 * /proc/driver/nvidia/capabilities/mig/{config,monitor} and of each chosen GPU's
 * capabilities/gpu<minor>/mig/gi<G>[/ci<C>]/access. Without /dev/nvidia-caps (the driver's
 * procfs style) the proc files alone grant access and no node is added.
 * Errors, each naming the variable: -EPERM when the container is not privileged; -EINVAL for
 * MIG devices chosen one by one, an item that is no visible GPU, a GPU that cannot do MIG;
 * -ENOENT for a cap node missing on the host; a cap file that cannot be read.
 */
int mig_admin_edits(const struct mig_admin_request *req, json_t **ret_edits, struct cdi_error *err);

#endif
