/* SPDX-License-Identifier: Apache-2.0 */
/* The spec's device names, their order, and which devices --device-id selects (internal). */
#ifndef CDIKIT_DEVICE_NAMES_H
#define CDIKIT_DEVICE_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include <cdi/error.h>

#include "inventory.h"

/* Device name strategies (nvidia-ctk's --device-name-strategy). */
enum name_strategy {
	NAME_INDEX = 1u << 0,	   /* "0", "0:1" */
	NAME_UUID = 1u << 1,	   /* "GPU-<uuid>", "MIG-<uuid>" */
	NAME_TYPE_INDEX = 1u << 2, /* "gpu0", "mig0:1" */
};
#define NAME_DEFAULT (NAME_INDEX | NAME_UUID)
#define NAME_MAX_STRATEGIES 3
#define DEVICE_NAME_MAX (GPU_UUID_MAX + 16)

/* The device that brings the spec's common edits and no GPU (NVIDIA_VISIBLE_DEVICES=none). */
#define DEVICE_NONE "none"

/* Add the strategies named in a comma list ("index,uuid") to *strategies. */
int name_strategies_parse(const char *list, unsigned *strategies, struct cdi_error *err);

/*
 * The names of a full GPU (mig NULL) or MIG device under strategies (0: NAME_DEFAULT), in the
 * order index, uuid, type-index; the count. Names CDI does not allow (R450's
 * "MIG-GPU-<uuid>/<gi>/<ci>") are included: callers check them.
 */
size_t device_names(unsigned strategies, const struct gpu_device *gpu, const struct mig_device *mig,
		    char names[NAME_MAX_STRATEGIES][DEVICE_NAME_MAX]);

/*
 * Device order: index and type-index names compare digit runs as numbers ("2" < "10",
 * "1:0" < "1:1" < "2", "gpu2" < "gpu10"); UUID names ("GPU-…", "MIG-…") compare bytewise. So:
 * index names, GPU UUIDs, MIG UUIDs, gpuN, migN:M; the caller puts "all" last.
 */
int device_name_cmp(const char *a, const char *b);

/* What --device-id selects, by position: gpus[i], migs[i * GPU_MAX_MIGS + j]. */
struct device_selection {
	bool *gpus;
	bool *migs;
	bool none; /* "none" was asked for */
};

/*
 * Mark what ids select: index, "g:m", gpuN, migG:M, GPU-/MIG- UUID, PCI bus id, "all" (every
 * full GPU not in MIG mode and every MIG device; also when ids is empty), "none" (no GPU).
 * An id that matches nothing, or a GPU in MIG mode asked for as a whole, is an error naming
 * --device-id.
 */
int device_select(const struct inventory *inv, const char *const *ids, size_t n_ids,
		  struct device_selection *ret, struct cdi_error *err);
void device_selection_clear(struct device_selection *sel);

#endif
