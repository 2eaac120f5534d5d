/* SPDX-License-Identifier: Apache-2.0 */
/* Which NVIDIA device nodes the loaded driver calls for, from what it publishes under /proc
 * (internal). */
#ifndef CDIKIT_NODE_PLAN_H
#define CDIKIT_NODE_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include <cdi/error.h>

#include "driver_params.h"

#define NODE_CAPS_DIR "nvidia-caps"

/* One node to have under /dev. */
struct node_plan_entry {
	char *name;   /* "nvidiactl", "nvidia0", ..., or "nvidia-cap12" in NODE_CAPS_DIR */
	bool in_caps; /* under /dev/nvidia-caps */
	unsigned major, minor;
	struct dev_file_params perms; /* owner, mode and whether to touch it at all */
	char *perms_from;	      /* the file perms came from, NULL for the defaults */
};

struct node_plan {
	struct node_plan_entry *entries;
	size_t n, cap;
};

/*
 * The nodes of the driver loaded on the host under root ("" for "/"), in this order: nvidiactl,
 * nvidia<minor> by minor, nvidia-modeset, nvidia-uvm, nvidia-uvm-tools, the MIG capability nodes
 * (by their files' names). See node_create_nvidia() for where each number and mode comes from.
 * A part of the driver that is not loaded is a warning naming the nodes it leaves out; an
 * unreadable or malformed file is an error naming it. *ret is written on success only.
 */
int node_plan_nvidia(const char *root, struct node_plan *ret, struct cdi_error *warn,
		     struct cdi_error *err);

void node_plan_clear(struct node_plan *plan);

#endif
