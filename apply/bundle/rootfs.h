/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A container's rootfs, reached from its directory fd (internal to apply/). The image is the
 * container user's: every path is resolved with openat2(RESOLVE_IN_ROOT), so an absolute or
 * ".." link stays inside the rootfs, and files are opened without blocking (a FIFO or a device
 * in the image never stalls the runtime).
 */
#ifndef CDIKIT_APPLY_ROOTFS_H
#define CDIKIT_APPLY_ROOTFS_H

#include <stddef.h>
#include <sys/types.h>

#include <cdi/error.h>

/* Cap on the names read from one directory of an image. */
#define ROOTFS_MAX_DIR_ENTRIES 4096

/*
 * openat2(root_fd, path, flags | O_CLOEXEC, RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS); path is
 * taken relative to the rootfs whether or not it starts with '/'. An fd, or -errno (-ENOSYS
 * before Linux 5.6).
 */
int rootfs_open(int root_fd, const char *path, int flags);

/* The directory path inside the rootfs; with create, made (0755, owned as its parent) where
 * missing, one component at a time. An fd or -errno. */
int rootfs_open_dir(int root_fd, const char *path, int create);

/*
 * Replace name in the directory dir_fd with len bytes of buf, atomically for readers, as
 * bundle_replace_at() does (the old file may be a link: the link is replaced, never followed;
 * not synced, as the files are a container's). The new file gets mode and the owner of the
 * file it replaces, or the directory's owner when there was none: in the image, files belong
 * to the image's users. label names the file in problems. 0 or -errno (-EROFS on a read-only
 * filesystem).
 */
int rootfs_replace_file(int dir_fd, const char *name, const void *buf, size_t len, mode_t mode,
			const char *label, struct cdi_error *err);

#endif
