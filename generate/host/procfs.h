/* SPDX-License-Identifier: Apache-2.0 */
/* What the NVIDIA kernel modules publish under /proc, read and parsed (internal). */
#ifndef CDIKIT_PROCFS_H
#define CDIKIT_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cdi/error.h>

#include "inventory.h"

#define PROCFS_DRIVER_DIR "/proc/driver/nvidia"
#define PROCFS_VERSION "/proc/driver/nvidia/version"
#define PROCFS_GPUS "/proc/driver/nvidia/gpus"
#define PROCFS_DEVICES "/proc/devices"
#define PROCFS_MIG_MINORS "/proc/driver/nvidia-caps/mig-minors"

/* Bounds on what we read from /proc (the kernel's files are far smaller). */
#define PROCFS_MAX_FILE (4u * 1024 * 1024)
#define PROCFS_MAX_LINE 256u
#define PROCFS_MAX_MIG_MINORS (1u << 16)
#define PROCFS_MAX_DEVICE_MINOR 254u	      /* 255 is nvidiactl */
#define PROCFS_MAX_CAP_MINOR ((1u << 20) - 1) /* the kernel's MINORMASK */

/*
 * The driver version from /proc/driver/nvidia/version content: the first
 * dotted number on the "NVRM version:" line, for the proprietary
 * ("NVIDIA UNIX x86_64 Kernel Module  550.54.15  <date>") and the open
 * ("NVIDIA UNIX Open Kernel Module for x86_64  550.54.15  Release Build ...")
 * variants. name labels problems.
 */
int procfs_parse_driver_version(const char *name, const char *buf, char ret[GPU_VERSION_MAX],
				struct cdi_error *err);
/* The same, read from <root>/proc/driver/nvidia/version. */
int procfs_driver_version(const char *root, char ret[GPU_VERSION_MAX], struct cdi_error *err);

/*
 * The major of the character device named dev in /proc/devices content
 * (exact name, "Character devices:" section only). -ENOENT when not listed
 * (no problem added), -EINVAL when malformed.
 */
int procfs_parse_char_major(const char *name, const char *buf, const char *dev, unsigned *ret_major,
			    struct cdi_error *err);

/*
 * One /proc/driver/nvidia/gpus/<bus>/information file: Model, GPU UUID,
 * Bus Location (normalised to a 4-digit lower-case domain), Device Minor,
 * GPU Excluded. Fills name, uuid, bus_id, minor of ret (index is left alone).
 */
int procfs_parse_gpu_information(const char *name, const char *buf, struct gpu_device *ret,
				 bool *ret_excluded, struct cdi_error *err);

/*
 * Normalise a PCI bus id to "dddd:bb:dd.f" lower case (NVML's 8-digit domain
 * is trimmed when its high digits are 0). -EINVAL when it is not a bus id.
 */
int pci_bus_id_normalize(const char *in, char out[GPU_BUSID_MAX]);

/*
 * /proc/driver/nvidia-caps/mig-minors: "<name> <minor>" lines, names
 * "config", "monitor", "gpu<N>/gi<G>/access", "gpu<N>/gi<G>/ci<C>/access".
 * Lookup is by binary search over entries sorted by key.
 */
struct mig_minor_entry {
	uint32_t key; /* gpu << 16 | gi << 8 | (ci + 1), ci + 1 = 0 for the GI itself */
	uint32_t minor;
};

struct mig_minors {
	struct mig_minor_entry *entries;
	size_t n;
	bool has_config, has_monitor;
	unsigned config, monitor;
};

int mig_minors_parse(const char *name, const char *buf, size_t len, struct mig_minors *ret,
		     struct cdi_error *err);
int mig_minors_read(const char *root, struct mig_minors *ret, struct cdi_error *err);
void mig_minors_clear(struct mig_minors *mm);

/* The cap minor of gpu<gpu_minor>/gi<gi>/access (ci < 0) or .../ci<ci>/access. -ENOENT. */
int mig_minors_lookup(const struct mig_minors *mm, unsigned gpu_minor, unsigned gi, int ci,
		      unsigned *ret_minor);

#endif
