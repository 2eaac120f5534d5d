/* SPDX-License-Identifier: Apache-2.0 */
/*
 * create-symlinks (internal to apply/hook/): the links nvidia-ctk's spec asks for, made in the
 * rootfs as `ln -sf` would, with every directory of the link's path resolved inside the
 * rootfs, so a link the image planted in that path never leads out of it.
 */
#ifndef CDIKIT_APPLY_HOOK_SYMLINKS_H
#define CDIKIT_APPLY_HOOK_SYMLINKS_H

#include <stddef.h>

#include <cdi/error.h>

/*
 * Make each "TARGET::LINK" of specs (duplicates once) under the rootfs at root_fd: LINK is a
 * container path, TARGET the link's text, written as given. The link's directories are made
 * (0755) where missing; a link already saying TARGET is left; anything else at LINK (a file,
 * a link, an empty directory) is replaced. Stops at the first spec that fails, with a problem
 * naming it: a spec without exactly one "::", or a link that cannot be made.
 */
int hook_create_symlinks(int root_fd, char *const *specs, size_t n, struct cdi_error *err);

/*
 * Make name in the directory dir_fd a symbolic link to target, atomically: a new link beside
 * it, renamed over whatever is there (an empty directory is removed first). 0 or -errno.
 */
int symlink_replace_at(int dir_fd, const char *name, const char *target);

#endif
