/* SPDX-License-Identifier: Apache-2.0 */
/* Making the NVIDIA device nodes the driver does not make itself, as nvidia-modprobe does
 * (internal). */
#ifndef CDIKIT_NODE_CREATE_H
#define CDIKIT_NODE_CREATE_H

#include <stdbool.h>
#include <stddef.h>

#include <cdi/error.h>

#include "driver_params.h"
#include "host/host.h"

enum node_change {
	NODE_PRESENT,	 /* the right node with the right mode and owner: untouched */
	NODE_CREATED,	 /* was missing */
	NODE_REPLACED,	 /* was of another type or device number: removed, made again */
	NODE_PERMS_SET,	 /* the right node: its mode or owner set */
	NODE_LEFT_ALONE, /* ModifyDeviceFiles / DeviceFileModify 0: not touched (may be missing) */
	NODE_FAILED,	 /* a problem in err names it */
};

/*
 * Make the node name (one file name: open a subdirectory such as nvidia-caps with O_NOFOLLOW
 * and pass its fd) inside the directory open at dirfd, as nvidia-modprobe's mknod helper does:
 * with p->modify false nothing is touched; a missing node is made (S_IFCHR, major:minor,
 * p->mode); a node of another type or device number (a regular file, a symlink, a FIFO, a block
 * device) is removed and made again, a directory is an error; then its owner and mode are set
 * when they differ, and a node made here is removed again if that fails. Nothing follows a
 * link: fstatat(AT_SYMLINK_NOFOLLOW), mknodat, unlinkat, and owner and mode set on an O_PATH |
 * O_NOFOLLOW descriptor checked by fstat to be that node. label names the node in problems
 * ("/dev/nvidia-uvm"). *ret_change says what was done (NODE_FAILED with an error).
 */
int node_ensure_at(int dirfd, const char *name, const char *label, unsigned major, unsigned minor,
		   const struct dev_file_params *p, enum node_change *ret_change,
		   struct cdi_error *err);

/* One node looked at by node_create_nvidia. */
struct node_outcome {
	char *path; /* as on the host: <dev root>/dev/nvidia-uvm */
	unsigned major, minor;
	struct dev_file_params perms;
	enum node_change change;
};

struct node_create_result {
	struct node_outcome *nodes;
	size_t n, cap;
};

/*
 * Make the NVIDIA device nodes that are missing under <dev root>/dev, from what the driver
 * publishes under <root>/proc:
 * - nvidiactl (255), nvidia<minor> for each GPU of /proc/driver/nvidia/gpus (GPU Excluded ones
 *   left out), nvidia-modeset (254) when nvidia_modeset is loaded: the nvidia major of
 *   /proc/devices (nvidiactl, nvidia or nvidia-frontend; 195), owner and mode from
 *   /proc/driver/nvidia/params (defaults root:root 0666 when absent);
 * - nvidia-uvm (0) and nvidia-uvm-tools (1): the nvidia-uvm major, always root:root 0666 (the
 *   uvm module has no such parameters);
 * - nvidia-caps/nvidia-cap<M> (directory 0755) for each MIG capability whose file exists
 *   (capabilities/mig/{config,monitor}, capabilities/gpu<N>/mig/gi<G>/access and
 *   .../ci<C>/access): the nvidia-caps major, minor and mode from the capability file.
 * A /dev/char/<major>:<minor> link to each node is added when <dev root>/dev/char exists (the
 * systemd device cgroup finds nodes through it). A driver part that is not loaded (no major in
 * /proc/devices) is one warning naming the nodes it leaves out. Every node is tried; a failure is
 * a problem naming the node. Not root: an error; in a user namespace: a warning and nothing done.
 * ret is always filled (free with node_create_result_clear); 0 or the first error.
 */
int node_create_nvidia(const struct gen_host *host, struct node_create_result *ret,
		       struct cdi_error *warn, struct cdi_error *err);

/*
 * What node_create_nvidia would do, done by nobody: the same plan and the same outcomes
 * (NODE_CREATED for a node it would make, ...), found by looking only; needs no root. An entry
 * in the way that node_create_nvidia would refuse (a directory) is NODE_FAILED and a problem.
 * ret is always filled (free with node_create_result_clear); 0 or the first error.
 */
int node_preview_nvidia(const struct gen_host *host, struct node_create_result *ret,
			struct cdi_error *warn, struct cdi_error *err);

void node_create_result_clear(struct node_create_result *res);

/* "created", "replaced", ... for messages; dry_run: "would be created", ... */
const char *node_change_str(enum node_change change, bool dry_run);

#endif
