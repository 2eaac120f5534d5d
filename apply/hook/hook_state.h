/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Where a createContainer hook finds the container (internal to apply/hook/): the runtime's
 * state on stdin (or the file --container-spec names) gives the bundle, the bundle's
 * config.json gives root.path, relative to the bundle unless absolute, as NVIDIA's hook reads it.
 */
#ifndef CDIKIT_APPLY_HOOK_STATE_H
#define CDIKIT_APPLY_HOOK_STATE_H

#include <cdi/error.h>

/* The OCI state runtimes pass is a few hundred bytes (annotations may add some). */
#define HOOK_STATE_MAX_BYTES (1u << 20)

struct hook_root {
	char *path; /* the rootfs as a host path, cleaned */
	int fd;	    /* the rootfs directory, opened once: every container path is resolved in it */
};

/*
 * Load the state from state_file (NULL, "" or "-": stdin), read its bundle's config.json and
 * open the rootfs. A root of "/" is refused: a hook writes into the rootfs, and that would be
 * the host's. Problems name the file that failed.
 */
int hook_root_load(const char *state_file, struct hook_root *ret, struct cdi_error *err);

void hook_root_done(struct hook_root *root);

#endif
