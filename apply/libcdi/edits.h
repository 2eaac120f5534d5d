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
 * The edit sources of an injection of devices, in the order cdi_registry_inject() merges them:
 * a spec's own containerEdits once, before its first requested device, then each device's.
 * device[i] is the index of the request that brought v[i]. Room is left for
 * CDI_EDIT_SOURCES_EXTRA more sources (cap), for edits a caller adds after them.
 * Unresolvable names: -ENOENT, reported as cdi_registry_inject() reports them.
 */
#define CDI_EDIT_SOURCES_EXTRA 4
struct cdi_edit_sources {
	struct cdi_edit_source *v;
	size_t *device;
	size_t n, cap;
	char *fields; /* the field labels the sources point to */
};

int cdi_registry_edit_sources(const cdi_registry *reg, const char *const *devices, size_t n_devices,
			      struct cdi_edit_sources *ret, struct cdi_error *err);

void cdi_edit_sources_done(struct cdi_edit_sources *s);

#endif
