/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CUDA MPS for containers (internal to apply/): when the host runs an MPS control daemon, its
 * pipe directory is how clients reach it. libnvidia-container mounts that directory into every
 * container given compute's libraries; a static spec can only name /tmp/nvidia-mps, and cannot
 * know whether the daemon's directory exists when a container starts.
 */
#ifndef CDIKIT_APPLY_MPS_H
#define CDIKIT_APPLY_MPS_H

#include <jansson.h>

#include <cdi/error.h>

#define MPS_PIPE_DIR_ENV "CUDA_MPS_PIPE_DIRECTORY"
#define MPS_PIPE_DIR_DEFAULT "/tmp/nvidia-mps"

/*
 * The containerEdits to add, as a new object: when caps (enum driver_cap) bring compute's
 * libraries (compute or video) and pipe_dir (NULL: /tmp/nvidia-mps; the host's
 * CUDA_MPS_PIPE_DIRECTORY from cdi-runtime's configuration) is a directory on the host under
 * root (NULL: "/"; a symlink is not followed), a mount of it at the same path (rw, nosuid,
 * nodev, noexec) and CUDA_MPS_PIPE_DIRECTORY=<pipe_dir>; otherwise {}. A relative pipe_dir is
 * -EINVAL.
 */
int mps_edits(const char *root, const char *pipe_dir, unsigned caps, json_t **ret_edits,
	      struct cdi_error *err);

#endif
