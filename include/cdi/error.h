/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CDI_ERROR_H
#define CDI_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One problem found in one place. Every string is owned by the enclosing
 * struct cdi_error; any of file, field may be NULL, line/column are 0 when
 * unknown (1-based otherwise).
 */
struct cdi_problem {
	char *file;    /* the file the problem is in, as the caller named it */
	unsigned line; /* 1-based, 0 = unknown */
	unsigned column;
	char *field;   /* field path: devices[1].containerEdits.env[0] */
	char *message; /* the problem, without location */
	char *text;    /* "file:line:col: field: message", ready to print */
};

/*
 * Caller-owned error report, passed last to every library call that can fail.
 * Zero-initialise it ({0}); cdi_error_reset() frees what calls put in it.
 * code is the first negative errno reported; problems accumulate in order,
 * so a validator can report every problem of a file in one call.
 */
struct cdi_error {
	int code;
	size_t n_problems;
	struct cdi_problem *problems;
};

void cdi_error_reset(struct cdi_error *err);

/* The text of the first problem, or "" when there is none. */
const char *cdi_error_message(const struct cdi_error *err);

#ifdef __cplusplus
}
#endif

#endif
