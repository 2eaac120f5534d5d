/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Assembly (internal): a host inventory turned into a CDI spec. Never looks at the host: every
 * fact comes from the inventory, so a test can build one by hand.
 */
#ifndef CDIKIT_SPEC_BUILD_H
#define CDIKIT_SPEC_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include <cdi/error.h>

#include "device_names.h"
#include "inventory.h"

struct spec_options {
	const char *vendor;	  /* NULL: "nvidia.com" */
	const char *class_name;	  /* NULL: "gpu" */
	unsigned name_strategies; /* enum name_strategy bits; 0: NAME_DEFAULT */
	/* Devices to describe (device_select()); none given: every device. */
	const char *const *device_ids;
	size_t n_device_ids;
	/* Leave out "all" (and "none", unless --device-id none asks for it). */
	bool no_all_device;
	/* A node the spec uses that is missing under dev-root is written anyway (the runtime
	 * resolves it at container start) with a warning, instead of an error. nvidia-ctk drops
	 * such nodes silently (dra-driver#787). */
	bool allow_missing_nodes;
	/* Add type, major, minor and fileMode as discovery saw them. */
	bool with_device_numbers;
	/* Leave out the gid of nodes only a group may use and the additionalGids they need: the
	 * spec stays at cdiVersion 0.5.0, which podman before 5 can load (it cannot load 0.7.0). */
	bool no_additional_gids;
	/* nvidia-ctk's management spec: one "all" device with every node of the inventory. */
	bool management;
	/* Fill spec_result.capabilities (for the facts file; not needed for the spec alone). */
	bool capabilities;
};

struct spec_result {
	json_t *spec;
	/* Path → capability ("compute", "compute/32", ...) of every mount containerPath and device
	 * node path of the spec whose capability is known (the facts file's "capabilities"); NULL
	 * unless spec_options.capabilities. */
	json_t *capabilities;
	size_t n_devices, n_nodes, n_mounts; /* device entries, distinct node paths, mounts */
};

/*
 * The spec of the inventory. GPU specs: one entry per selected full GPU (none for a GPU in MIG
 * mode) and MIG device under every name strategy, "none" (the common edits only: for
 * NVIDIA_VISIBLE_DEVICES=none), sorted by device_name_cmp(), then "all" (the union of their
 * nodes), unless opts->no_all_device. Common edits: the control nodes,
 * NVIDIA_VISIBLE_DEVICES=void and the driver's files as mounts. No hooks. A full GPU has its
 * DRM nodes too. Edits whose nodes only a group may use get additionalGids (unless
 * opts->no_additional_gids). cdiVersion is the
 * minimum the content needs; the result has passed cdi_spec_validate_json(). A node the spec
 * uses that discovery found wrong is an error (missing ones: see allow_missing_nodes), every
 * such node reported. Warnings (may be NULL) collect what is worth telling but not fatal.
 */
int spec_build(const struct inventory *inv, const struct spec_options *opts,
	       struct spec_result *ret, struct cdi_error *warn, struct cdi_error *err);
void spec_result_clear(struct spec_result *res);

/* The spec of an inventory with devices (the modes that do not enumerate GPUs: spec_modes.c;
 * spec_build() hands such an inventory on): its devices sorted by name, "all" unless one is
 * or opts->no_all_device, the files as common mounts, NVIDIA_VISIBLE_DEVICES=void when the
 * class is gpu. No capabilities (no facts file). */
int spec_build_devices(const struct inventory *inv, const struct spec_options *opts,
		       struct spec_result *ret, struct cdi_error *err);

/* The inventory's files as mounts, sorted by containerPath, one per path (spec_mounts.c);
 * caps (may be NULL) gets the capability of each. */
int spec_mounts(const struct inventory *inv, json_t **ret_mounts, json_t *caps,
		struct cdi_error *err);

/* A mount's options: a file's (read-only) or an IPC socket's (writable, noexec); NULL on OOM. */
json_t *spec_mount_options(bool ipc);

#endif
