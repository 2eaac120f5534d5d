/* SPDX-License-Identifier: Apache-2.0 */
/* Validation of a spec tree against the CDI schema and the reference's rules (internal). */
#ifndef CDIKIT_CHECK_H
#define CDIKIT_CHECK_H

#include <stdbool.h>
#include <jansson.h>

#include <cdi/error.h>

#include "marks.h"

/*
 * An internal load flag beside enum cdi_load_flags: keep the first problem only, and do not
 * read a failing spec again for positions. For the registry, which skips an invalid spec with
 * one line, so a directory of bad specs costs what reading them costs.
 */
#define CDI_LOAD_FIRST_PROBLEM (1u << 31)

/*
 * Check root (a whole spec) and add one problem per finding to err, each
 * with file, line:col (from marks, may be NULL) and field path. A node
 * replaced while coercing is added to marks under the old node's position.
 * With coerce, numbers and booleans found where a string belongs are
 * replaced by strings as the reference does (int: decimal; float: Go's
 * FormatFloat(v, 'g', -1, 32); bool: "true"/"false") and null values are
 * dropped as absent; without coerce they are type errors.
 * flags: enum cdi_load_flags. Returns 0 or -EINVAL.
 */
int cdi_spec_check(json_t *root, const char *file, struct cdi_marks *marks, unsigned flags,
		   bool coerce, struct cdi_error *err);

#endif
