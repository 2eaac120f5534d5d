/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers shared by the criterion suites (built into build/libcdi-testlib.a). */
#ifndef CDIKIT_TESTLIB_H
#define CDIKIT_TESTLIB_H

#include <stddef.h>
#include <jansson.h>
#include <stdbool.h>

#include "macro.h"

/* Run a shell command built from fmt; the test fails unless it exits 0. */
void sh(const char *fmt, ...) _printf_(1, 2);

/* A test's scratch directory under /tmp, made by scratch_make, removed (if made) by
 * scratch_remove: for a suite's .init and .fini. */
struct scratch {
	char path[64];
	bool made;
};
void scratch_make(struct scratch *s, const char *name);
void scratch_remove(struct scratch *s);
/* DIR/rel under the scratch directory, in one of four buffers used in turn: valid until the
 * fourth call after. */
char *scratch_at(const struct scratch *s, const char *rel);

/* JSON from text written with ' for " (readable in C strings); the test fails if it is bad. */
json_t *load(const char *text);

/* Fail the test, showing both (keys sorted), unless got and want are equal JSON. */
void assert_json_eq(const json_t *got, const json_t *want);

/* Write text to DIR/NAME (the test fails if it cannot); the path, to free. */
char *write_file_in(const char *dir, const char *name, const char *text);

#endif
