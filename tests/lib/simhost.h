/* SPDX-License-Identifier: Apache-2.0 */
/* Simulated GPU hosts for the criterion suites (tests/simhost/make-host). */
#ifndef CDIKIT_TEST_SIMHOST_H
#define CDIKIT_TEST_SIMHOST_H

#include <stdbool.h>

#include "macro.h"

/*
 * Lay out a host at root (a path that does not exist yet) with make-host and the mock NVML of
 * $B (default build), the options given after --topology etc. as one printf-formatted string.
 * Skips the test when make-host or the mock is missing (run from the repo root after make);
 * fails it when make-host fails.
 */
void simhost_make(const char *root, const char *fmt, ...) _printf_(2, 3);

/* Whether make-host left the marker file root/name (".simhost-no-devnodes", ...). */
bool simhost_has(const char *root, const char *name);

#endif
