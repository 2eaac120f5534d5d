/* SPDX-License-Identifier: Apache-2.0 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <criterion/criterion.h>

#include "testlib.h"

void sh(const char *fmt, ...)
{
	char *cmd;
	va_list ap;
	int r;

	va_start(ap, fmt);
	cr_assert(vasprintf(&cmd, fmt, ap) >= 0);
	va_end(ap);
	r = system(cmd);
	cr_assert(r == 0, "command failed (%d): %s", r, cmd);
	free(cmd);
}

void scratch_make(struct scratch *s, const char *name)
{
	snprintf(s->path, sizeof(s->path), "/tmp/cdikit-%s.XXXXXX", name);
	cr_assert(mkdtemp(s->path), "mkdtemp %s", s->path);
	s->made = true;
}

char *scratch_at(const struct scratch *s, const char *rel)
{
	static char buf[4][PATH_MAX];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", s->path, rel);
	return buf[k];
}

void scratch_remove(struct scratch *s)
{
	if (s->made)
		sh("rm -rf '%s'", s->path);
	s->made = false;
}
