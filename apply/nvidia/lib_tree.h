/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The library directory of a spec cdi-generate wrote (internal to apply/): one mount of every
 * driver file at /usr/local/nvidia, and each capability group's files again under caps/<group>/
 * of it (the facts' "libraryTree" records them). NVIDIA_DRIVER_CAPABILITIES then costs a mount
 * per group a container asks for, not a mount per file: the choice is made at start, from one
 * spec.
 */
#ifndef CDIKIT_APPLY_LIB_TREE_H
#define CDIKIT_APPLY_LIB_TREE_H

#include <jansson.h>

#include <cdi/error.h>

/*
 * In edits (a containerEdits object the caller owns, already filtered by driver_caps_filter_edits,
 * its mounts array its own), the directory's mount when the container does not get every group
 * whole: replaced by a mount of each group caps asks for (containerPath/caps/<group>, or each kept
 * part of a group that is only partly kept: video brings compute's libraries, not its binaries),
 * and the sources of the other mounts of its files moved to their group's copy (the same file),
 * so that a runtime that sees the bundle can still make them links into a mounted directory.
 * tree is the facts' record (NULL: nothing to do), tags their "capabilities". Mount objects are
 * never changed in place (they may be the spec's): a rewritten one is a new object.
 */
int lib_tree_select(json_t *edits, const json_t *tree, const json_t *tags, unsigned caps,
		    struct cdi_error *err);

#endif
