/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers shared by the criterion suites (built into build/libcdi-testlib.a). */
#ifndef CDIKIT_TESTLIB_H
#define CDIKIT_TESTLIB_H

#include "macro.h"

/* Run a shell command built from fmt; the test fails unless it exits 0. */
void sh(const char *fmt, ...) _printf_(1, 2);

#endif
