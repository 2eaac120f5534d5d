/* SPDX-License-Identifier: Apache-2.0 */
/* Adding problems to a caller's struct cdi_error (internal). */
#ifndef CDIKIT_PROBLEM_H
#define CDIKIT_PROBLEM_H

#include <stdarg.h>

#include <cdi/error.h>

#include "macro.h"

/*
 * Append a problem and return code (a negative errno), so callers can write
 * `return cdi_problem_add(err, -EINVAL, file, 0, 0, "kind", "bad %s", x);`.
 * err may be NULL. file/field may be NULL; line/column 0 = unknown.
 * Out of memory while recording only loses the text, never the code.
 */
int cdi_problem_add(struct cdi_error *err, int code, const char *file, unsigned line,
		    unsigned column, const char *field, const char *fmt, ...) _printf_(7, 8);
int cdi_problem_addv(struct cdi_error *err, int code, const char *file, unsigned line,
		     unsigned column, const char *field, const char *fmt, va_list ap);

/* Shorthand for problems with no location: "message" or "file: message". */
#define cdi_fail(err, code, ...) cdi_problem_add((err), (code), NULL, 0, 0, NULL, __VA_ARGS__)

/* Append a copy of p (a problem of another report), with code. */
int cdi_problem_copy(struct cdi_error *err, int code, const cdi_problem *p);

/* Move every problem of src to the end of dst (src is left empty). */
void cdi_error_move(struct cdi_error *dst, struct cdi_error *src);

#endif
