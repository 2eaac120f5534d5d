/* SPDX-License-Identifier: Apache-2.0 */
/* Plain YAML scalars resolved as go-yaml v3 does; shared by loader and emitter (internal). */
#ifndef CDIKIT_YAML_SCALAR_H
#define CDIKIT_YAML_SCALAR_H

#include <locale.h>
#include <stdbool.h>
#include <stddef.h>

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

/* Go's strconv.FormatFloat(d, 'g', -1, 32), with +Inf/-Inf/NaN as .inf/-.inf/.nan. */
void cdi_format_float32(double d, char *buf, size_t size);

/* A "C" locale for number conversions whatever the process locale is. NULL if none. */
locale_t cdi_c_locale(void);

#endif
