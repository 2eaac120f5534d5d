/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CDI_SPEC_H
#define CDI_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <jansson.h>

#include <cdi/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A parsed and validated CDI spec. The JSON tree is the model: every field
 * of the file is in it with its JSON type (YAML scalars resolved and coerced
 * as the reference library does). */
typedef struct cdi_spec cdi_spec;

enum cdi_load_flags {
	/* Also reject what the reference accepts but SPEC.md forbids:
	 * relative paths, hook timeout <= 0. */
	CDI_LOAD_STRICT = 1u << 0,
	/* Refuse spec files and spec directories that users other than root and the caller
	 * could write (by mode or ownership), instead of warning about them. */
	CDI_LOAD_SECURE = 1u << 1,
};

enum cdi_format {
	CDI_FORMAT_YAML = 0,
	CDI_FORMAT_JSON = 1,
};

/* Bounds on what we read from outside. */
#define CDI_SPEC_MAX_BYTES (16u * 1024 * 1024)
#define CDI_SPEC_MAX_DEPTH 64u
#define CDI_SPEC_MAX_NODES (1u << 20)

/*
 * Read, parse and validate a spec file. The content decides the format
 * (JSON if it starts with '{', YAML otherwise), as in the reference where
 * JSON is read as YAML. Every problem found is added to err.
 * Returns 0, or -EINVAL (invalid), -ENODATA (empty document: "no spec data"),
 * -EFBIG, -ENOMEM, or the -errno of the read.
 */
int cdi_spec_load_file(const char *path, unsigned flags, cdi_spec **ret, struct cdi_error *err);

/* The same for a buffer; name is used in messages. */
int cdi_spec_load_buffer(const char *name, const char *buf, size_t len, unsigned flags,
			 cdi_spec **ret, struct cdi_error *err);

/*
 * Validate a spec held as JSON (e.g. one the generator built): structure,
 * types, names and every rule. Values are not coerced: a string field must
 * hold a string. name labels messages.
 */
int cdi_spec_validate_json(const json_t *spec, const char *name, unsigned flags,
			   struct cdi_error *err);

void cdi_spec_free(cdi_spec *spec);

const json_t *cdi_spec_json(const cdi_spec *spec);
const char *cdi_spec_path(const cdi_spec *spec);    /* as given to load */
const char *cdi_spec_vendor(const cdi_spec *spec);  /* kind up to '/' */
const char *cdi_spec_class(const cdi_spec *spec);   /* kind after '/' */
const char *cdi_spec_version(const cdi_spec *spec); /* as declared, leading v stripped */

/* Devices in file order. */
size_t cdi_spec_device_count(const cdi_spec *spec);
const json_t *cdi_spec_device(const cdi_spec *spec, size_t i);
const char *cdi_spec_device_name(const cdi_spec *spec, size_t i);

/*
 * The lowest cdiVersion that can express the spec, as the reference's
 * MinimumRequiredVersion computes it ("0.3.0" ... "1.1.0"). Static string.
 */
const char *cdi_minimum_version(const json_t *spec);

/* True for a version string the reference knows (a leading "v" is allowed). */
bool cdi_version_known(const char *version);

/* Compare two known versions; returns <0, 0, >0. */
int cdi_version_compare(const char *a, const char *b);

/*
 * Serialise a spec deterministically: keys in the schema's order
 * (cdiVersion, kind, annotations, devices, containerEdits; fields of every
 * object in SPEC order), arrays as given. YAML starts with "---\n".
 * JSON is indented by 2 and ends with a newline.
 * *ret_buf (NUL-terminated) is the caller's, to free with cdi_free().
 */
int cdi_spec_emit(const json_t *spec, enum cdi_format format, char **ret_buf, size_t *ret_len,
		  struct cdi_error *err);

/*
 * Replace path atomically: temp file in the same directory (a name that
 * ends neither in .yaml nor .json), fchmod(mode), write, fsync, rename,
 * fsync the directory. The temp file is removed on any error.
 */
int cdi_write_file_atomic(const char *path, const void *buf, size_t len, mode_t mode,
			  struct cdi_error *err);

#ifdef __cplusplus
}
#endif

#endif
