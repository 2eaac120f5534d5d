/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CDI_REGISTRY_H
#define CDI_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <jansson.h>

#include <cdi/error.h>
#include <cdi/spec.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The set of specs found in a list of spec directories, with the reference
 * library's rules: a later directory has higher priority; only *.json and
 * *.yaml, no recursion; a missing directory is skipped; an invalid spec is
 * skipped with its error kept; the same device defined twice at the same
 * priority is a conflict recorded on both files and the device is dropped.
 */
typedef struct cdi_registry cdi_registry;

#define CDI_DEFAULT_SPEC_DIRS                                                                      \
	{                                                                                          \
		"/etc/cdi", "/var/run/cdi"                                                         \
	}

/* Per directory, at most this many spec files and bytes of them are read; past a cap the rest
 * of the directory is skipped with one problem, and what loaded still resolves. */
#define CDI_REGISTRY_MAX_DIR_SPECS 10000u
#define CDI_REGISTRY_MAX_DIR_BYTES (256u * 1024 * 1024)

/* dirs == NULL (or n == 0) means the defaults. Scans once. */
int cdi_registry_new(const char *const *dirs, size_t n_dirs, unsigned load_flags,
		     cdi_registry **ret, struct cdi_error *err);
void cdi_registry_free(cdi_registry *reg);

/* Rescan every directory (the whole registry is rebuilt). */
int cdi_registry_refresh(cdi_registry *reg, struct cdi_error *err);

size_t cdi_registry_dir_count(const cdi_registry *reg);
const char *cdi_registry_dir(const cdi_registry *reg, size_t i);

/* Every problem of the last scan (spec files and directories), in scan order: one per file
 * that could not be used (its first problem), one per pair of files that define the same
 * devices at the same priority, one per cap reached. */
const struct cdi_error *cdi_registry_errors(const cdi_registry *reg);
/* What the last scan used but found suspicious: spec files and directories that users other
 * than root and the caller could write (refused instead with CDI_LOAD_SECURE). */
const struct cdi_error *cdi_registry_warnings(const cdi_registry *reg);
/* The problems recorded against one spec file path (NULL when none). */
const struct cdi_error *cdi_registry_file_errors(const cdi_registry *reg, const char *path);

/* Sorted, NULL-terminated lists owned by the registry, valid until refresh/free. */
const char *const *cdi_registry_devices(const cdi_registry *reg); /* qualified names */
const char *const *cdi_registry_vendors(const cdi_registry *reg);
const char *const *cdi_registry_classes(const cdi_registry *reg);

/* The spec a qualified device name resolves to, and the device's JSON. */
const cdi_spec *cdi_registry_lookup(const cdi_registry *reg, const char *qualified_name,
				    const json_t **ret_device);
/* The lower-priority spec that also defines the device and is overridden by the one it
 * resolves to (a /var/run/cdi spec over an /etc/cdi one), or NULL. */
const cdi_spec *cdi_registry_overridden(const cdi_registry *reg, const char *qualified_name);

/* lstat(2) stand-in, so tests can simulate host device nodes. */
typedef int (*cdi_lstat_fn)(const char *path, struct stat *st, void *userdata);

struct cdi_inject_options {
	cdi_lstat_fn lstat_fn; /* NULL: lstat(2) */
	void *userdata;
};

/*
 * Resolve the devices and merge their edits into oci (an OCI runtime spec,
 * config.json as JSON): spec edits once per spec, before its first requested
 * device, then each device's edits, in request order. All or nothing: on
 * any error oci is left exactly as it was. Unresolvable names are reported as
 * one problem "unresolvable CDI devices a, b" plus the directories searched.
 * As jansson's json_object_set() does, the edited oci may share values (mount
 * paths and option lists) with the registry's specs: copy a value before
 * changing it in place.
 */
int cdi_registry_inject(cdi_registry *reg, json_t *oci, const char *const *devices,
			size_t n_devices, const struct cdi_inject_options *opts,
			struct cdi_error *err);

/*
 * Apply one set of container edits (a CDI containerEdits object) to oci, in
 * place, with the reference's rules. Used by inject on a copy; exposed for
 * tools that build edits themselves.
 */
int cdi_apply_edits(json_t *oci, const json_t *edits, const struct cdi_inject_options *opts,
		    struct cdi_error *err);

#ifdef __cplusplus
}
#endif

#endif
