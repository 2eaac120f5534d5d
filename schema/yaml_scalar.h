/* SPDX-License-Identifier: Apache-2.0 */
/* Plain YAML scalars resolved as go-yaml v3 does; shared by loader and emitter (internal). */
#ifndef CDIKIT_YAML_SCALAR_H
#define CDIKIT_YAML_SCALAR_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

enum cdi_scalar_kind {
	CDI_SCALAR_STRING,
	CDI_SCALAR_NULL,
	CDI_SCALAR_BOOL,
	CDI_SCALAR_INT,
	CDI_SCALAR_UINT,	  /* above INT64_MAX, up to UINT64_MAX */
	CDI_SCALAR_FLOAT,	  /* finite */
	CDI_SCALAR_FLOAT_SPECIAL, /* .inf, -.inf, .nan: s holds that canonical spelling */
};

struct cdi_scalar {
	enum cdi_scalar_kind kind;
	const char *s; /* STRING: the text; FLOAT_SPECIAL: the canonical form */
	size_t len;
	bool b;
	long long i;
	unsigned long long u;
	double d;
};

/* Resolve an untagged plain scalar (text is NUL-terminated at len). */
void cdi_scalar_resolve(const char *text, size_t len, struct cdi_scalar *ret);

/* A resolved scalar as a JSON node (both loaders build scalars with this). NULL: out of memory. */
json_t *cdi_scalar_to_json(const struct cdi_scalar *sc);

/* A float mapping key as the reference's YAML-to-JSON step writes it: Go's FormatFloat(32),
 * with .inf, -.inf and .nan for the special values. */
void cdi_scalar_key_float(char *buf, size_t size, double d);

#endif
