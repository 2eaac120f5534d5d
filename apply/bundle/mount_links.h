/* SPDX-License-Identifier: Apache-2.0 */
/*
 * File mounts made symlinks (internal to apply/): a bind mount of a file that the library
 * directory's bind mount in the same config already brings into the container (it holds every
 * driver file) becomes a symlink in the rootfs to the file's place under that mount, made before
 * the container starts. nvidia-ctk's create-symlinks hook makes such links at every start; a
 * bind mount costs the runtime about 0.3 ms at every start; a link made beforehand costs nothing
 * then.
 */
#ifndef CDIKIT_APPLY_MOUNT_LINKS_H
#define CDIKIT_APPLY_MOUNT_LINKS_H

#include <stdbool.h>
#include <jansson.h>

#include <cdi/error.h>

/*
 * In oci's mounts, each bind mount of a file whose source lies under the source of a library
 * directory's bind mount with the same options (a directory cdi-generate built: it holds its
 * cache file, INJECTED_LIBS_DIR_CACHE, of root or ours and writable by no one else), and whose
 * place is not inside that mount's nor the other way, is replaced by a symlink in the rootfs
 * (root_fd) at its destination naming the directory mount's destination plus the rest of the
 * source: /usr/bin/nvidia-smi -> /usr/local/nvidia/bin/nvidia-smi. Paths are resolved inside the
 * rootfs, missing directories made (0755); what the image has at the place is replaced unless it is
 * a directory, and then the mount stays, as it does for any link that cannot be made. A read-only
 * rootfs (EROFS) keeps every mount. *ret_made counts the links. 0, or -errno (out of memory) with a
 * problem.
 */
/* How the rootfs is reached: *fd, opened by open(ctx, err) (an fd, or -errno with a problem)
 * when the first link is to be made and *fd is still -1. */
struct mount_links_root {
	int *fd;
	int (*open)(void *ctx, struct cdi_error *err);
	void *ctx;
};

int mount_links_make(json_t *oci, const struct mount_links_root *root, size_t *ret_made,
		     struct cdi_error *err);

#endif
