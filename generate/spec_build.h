/* SPDX-License-Identifier: Apache-2.0 */
/* Assembling the CDI spec of a host from its GPUs and driver mounts (internal). */
#ifndef CDIKIT_SPEC_BUILD_H
#define CDIKIT_SPEC_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include <cdi/error.h>

#include "gpus.h"
#include "host.h"

/* Device name strategies (nvidia-ctk's --device-name-strategy). */
enum name_strategy {
	NAME_INDEX = 1u << 0,      /* "0", "0:1" */
	NAME_UUID = 1u << 1,       /* "GPU-<uuid>", "MIG-<uuid>" */
	NAME_TYPE_INDEX = 1u << 2, /* "gpu0", "mig0:1" */
};
#define NAME_DEFAULT (NAME_INDEX | NAME_UUID)

struct spec_options {
	const char *vendor;     /* NULL: "nvidia.com" */
	const char *class_name; /* NULL: "gpu" */
	unsigned name_strategies; /* enum name_strategy bits; 0: NAME_DEFAULT */
	/* Devices to describe: index, "g:m", gpuN, migG:M, GPU-/MIG- UUID, PCI bus id,
	 * "all". None given: every device. */
	const char *const *device_ids;
	size_t n_device_ids;
	bool no_all_device;
	/* A GPU or MIG cap node missing under dev-root is written anyway (the
	 * runtime resolves it at container start) with a warning, instead of an
	 * error. nvidia-ctk drops such nodes silently (dra-driver#787). */
	bool allow_missing_nodes;
	/* Add type, major, minor and fileMode as stat() reports them now. */
	bool with_device_numbers;
};

/* Add the strategies named in a comma list ("index,uuid") to *strategies. */
int name_strategies_parse(const char *list, unsigned *strategies, struct cdi_error *err);

/*
 * The spec of a GPU host: one entry per selected full GPU (none for a GPU in
 * MIG mode) and per MIG device, under every name strategy, sorted (see
 * device_name_cmp), then "all" (the union of their edits) unless
 * opts->no_all_device. Common edits: the control nodes that exist as char
 * devices under dev-root, NVIDIA_VISIBLE_DEVICES=void, and mounts (borrowed,
 * may be NULL). MIG cap minors come from <root>/proc/driver/nvidia-caps/mig-minors.
 * No hooks. cdiVersion is the minimum the content needs; the result has
 * passed cdi_spec_validate_json. Warnings (may be NULL) collect what is
 * worth telling but not fatal.
 */
int spec_build_gpus(const struct gen_host *host, const struct gpu_topology *topo, json_t *mounts,
		    const struct spec_options *opts, json_t **ret_spec, struct cdi_error *warn,
		    struct cdi_error *err);

/*
 * nvidia-ctk's management spec: one "all" device holding every NVIDIA char
 * device under <dev_root>/dev (nvidia*, nvidia-caps/nvidia-cap*,
 * nvidia-caps-imex-channels/channel*; without nvidia-fs*, nvidia-nvswitch*,
 * nvidia-nvlink*), and the common env and mounts.
 */
int spec_build_management(const struct gen_host *host, json_t *mounts,
			  const struct spec_options *opts, json_t **ret_spec,
			  struct cdi_error *warn, struct cdi_error *err);

/*
 * Device order: index and type-index names compare digit runs as numbers
 * ("2" < "10", "1:0" < "1:1" < "2", "gpu2" < "gpu10"); UUID names
 * ("GPU-…", "MIG-…") compare bytewise. So: index names, GPU UUIDs, MIG
 * UUIDs, gpuN, migN:M; the caller puts "all" last.
 */
int device_name_cmp(const char *a, const char *b);

#endif
