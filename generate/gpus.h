/* SPDX-License-Identifier: Apache-2.0 */
/* The GPUs and MIG devices of a host, as NVML or procfs report them (internal). */
#ifndef CDIKIT_GPUS_H
#define CDIKIT_GPUS_H

#include <stdbool.h>
#include <stddef.h>

#include <cdi/error.h>

#include "host.h"

#define GPU_UUID_MAX 96
#define GPU_NAME_MAX 96
#define GPU_BUSID_MAX 32
#define GPU_VERSION_MAX 80
#define GPU_MAX_COUNT 64
#define GPU_MAX_MIGS 8

struct mig_device {
	unsigned index; /* position in nvmlDeviceGetMigDeviceHandleByIndex order */
	unsigned gi;    /* nvmlDeviceGetGpuInstanceId */
	unsigned ci;    /* nvmlDeviceGetComputeInstanceId */
	char uuid[GPU_UUID_MAX]; /* MIG-... */
};

struct gpu_device {
	unsigned index; /* NVML index */
	unsigned minor; /* /dev/nvidia<minor> */
	char uuid[GPU_UUID_MAX]; /* GPU-... */
	char name[GPU_NAME_MAX];
	char bus_id[GPU_BUSID_MAX]; /* 0000:07:00.0 (4-digit domain, lower case) */
	bool mig_enabled;
	struct mig_device *migs;
	size_t n_migs;
};

struct gpu_topology {
	char driver_version[GPU_VERSION_MAX]; /* "550.54.15" */
	int cuda_version;                     /* 12040, 0 = unknown */
	struct gpu_device *gpus;              /* sorted by index */
	size_t n_gpus;
};

void gpu_topology_clear(struct gpu_topology *topo);

/* Enumerate with NVML loaded from lib_path by dlopen (every symbol by dlsym;
 * MIG symbols optional). */
int nvml_enumerate(const char *lib_path, struct gpu_topology *ret, struct cdi_error *err);

/* Enumerate full GPUs from <root>/proc/driver/nvidia/gpus/ * /information,
 * the driver version from <root>/proc/driver/nvidia/version. MIG devices cannot be
 * named from /proc: a GPU with GPU instances published under capabilities/ comes back
 * mig_enabled with no MIG devices (so it gets no full-GPU entry either). */
int procfs_enumerate(const struct gen_host *host, struct gpu_topology *ret,
		     struct cdi_error *err);

#endif
