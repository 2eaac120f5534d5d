/* SPDX-License-Identifier: Apache-2.0 */
/* Applying CDI container edits to an OCI config held as JSON (internal to apply/). */
#ifndef CDIKIT_APPLY_EDITS_H
#define CDIKIT_APPLY_EDITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include <cdi/error.h>
#include <cdi/registry.h>

/*
 * One containerEdits object and where it came from, so a problem can name the spec file and
 * the field ("devices[3].containerEdits"). file and field may be NULL.
 */
struct cdi_edit_source {
	const json_t *edits;
	const char *file;
	const char *field;
};

/*
 * Apply the concatenation of n edit sets to oci as the reference applies the merged
 * ContainerEdits of an injection (Append, then one Apply): each step (env, device nodes,
 * netDevices, mounts, hooks, intelRdt, additionalGids) runs over every source in order.
 * All or nothing: oci is only changed when every step succeeded.
 */
int cdi_apply_edit_sources(json_t *oci, const struct cdi_edit_source *src, size_t n,
			   const struct cdi_inject_options *opts, struct cdi_error *err);

/*
 * Go's filepath.Clean() of path: the number of '/' in the result, which is the depth the
 * reference sorts mounts by. len bytes of path are read.
 */
size_t cdi_path_clean_depth(const char *path, size_t len);

/* Go's filepath.Clean(): a malloc'd string, NULL on ENOMEM. */
char *cdi_path_clean(const char *path);

/*
 * A small open-addressing hash map from borrowed byte strings to a value, for the places
 * where the reference uses a Go map (env index, device and mount paths, qualified names).
 */
struct cdi_strmap_slot {
	const char *key; /* NULL: free slot */
	size_t len;
	uint64_t hash;
	size_t value;
};

struct cdi_strmap {
	struct cdi_strmap_slot *slots;
	size_t cap; /* a power of two, or 0 */
	size_t n;
};

/* The value stored for key, or NULL. */
size_t *cdi_strmap_get(const struct cdi_strmap *m, const char *key, size_t len);
/* Insert or overwrite; key must outlive the map. 0 or -ENOMEM. */
int cdi_strmap_put(struct cdi_strmap *m, const char *key, size_t len, size_t value);
void cdi_strmap_free(struct cdi_strmap *m);

/*
 * Serialise a JSON tree exactly as jansson's json_dumps() does with JSON_COMPACT (indent 0)
 * or JSON_INDENT(indent), keys in their stored order, but several times faster (no loop
 * detection, one buffer). With tab, every level is one tab instead of indent spaces.
 * Returns a malloc'd NUL-terminated string and its length, or NULL on ENOMEM.
 */
char *cdi_json_dump(const json_t *json, unsigned indent, bool tab, size_t *ret_len);

#endif
