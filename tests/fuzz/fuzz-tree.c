/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The spec cache's packed trees (tree_unpack) on any bytes: a refusal leaves nothing; an
 * accepted tree packs again into bytes that unpack to the same tree (ASan sees every byte
 * read, the replay every leak).
 */
#include <stdlib.h>

#include "fuzz.h"
#include "tree_pack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *tree = (json_t *)1, *again = NULL;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int r;

	r = tree_unpack(data, size, &tree);
	if (r < 0) {
		fuzz_assert(!tree, "refused (%d) but a tree came back", r);
		return 0;
	}
	fuzz_assert(tree_pack(tree, &buf, &len, &cap) == 0, "an unpacked tree does not pack");
	fuzz_assert(tree_unpack(buf, len, &again) == 0, "a packed tree does not unpack");
	fuzz_assert(json_equal(tree, again), "packed and unpacked, the tree changed");
	json_decref(again);
	json_decref(tree);
	free(buf);
	return 0;
}
