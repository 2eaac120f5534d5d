/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A JSON tree as a flat byte string and back (internal): how the spec cache stores a spec
 * that was already parsed and checked, so that loading it is building the tree and nothing
 * else (no text to scan, no scalars to resolve, no rules to run).
 */
#ifndef CDIKIT_TREE_PACK_H
#define CDIKIT_TREE_PACK_H

#include <stddef.h>
#include <jansson.h>

/*
 * Append the packed form of tree to *buf (*len bytes used, *cap allocated; all three start
 * zeroed, *buf is the caller's to free). Object members keep their order. 0 or -ENOMEM;
 * -EINVAL for a tree deeper than CDI_SPEC_MAX_DEPTH or with a NUL in a key.
 */
int tree_pack(const json_t *tree, char **buf, size_t *len, size_t *cap);

/*
 * The tree packed in the len bytes at buf, which must be exactly one packed value. Anything
 * malformed (truncated, a bad tag, invalid UTF-8, deeper than CDI_SPEC_MAX_DEPTH, more than
 * CDI_SPEC_MAX_NODES nodes, bytes left over) is -EINVAL with nothing allocated; -ENOMEM.
 */
int tree_unpack(const void *buf, size_t len, json_t **ret);

#endif
