/* SPDX-License-Identifier: Apache-2.0 */
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "simhost.h"
#include "testlib.h"

void simhost_make(const char *root, const char *fmt, ...)
{
	const char *b = getenv("B");
	char mock[PATH_MAX], *opts = NULL;
	va_list ap;
	int r;

	snprintf(mock, sizeof(mock), "%s/tests/mock-nvml/libnvidia-ml.so.1", b ? b : "build");
	if (access("tests/simhost/make-host", X_OK) != 0 || access(mock, R_OK) != 0)
		cr_skip_test(
			"no simulated host: run from the repo root after make (mock NVML in $B)");
	va_start(ap, fmt);
	r = vasprintf(&opts, fmt, ap);
	va_end(ap);
	cr_assert_geq(r, 0);
	sh("tests/simhost/make-host %s --mock-dir '%s/tests/mock-nvml' --out '%s' >/dev/null", opts,
	   b ? b : "build", root);
	free(opts);
}

bool simhost_has(const char *root, const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", root, name);
	return access(path, F_OK) == 0;
}
