/* SPDX-License-Identifier: Apache-2.0 */
#include <stdio.h>
#include <stdlib.h>

#include <criterion/criterion.h>

#include "testlib.h"

char *write_file_in(const char *dir, const char *name, const char *text)
{
	char *path;
	FILE *f;

	cr_assert(asprintf(&path, "%s/%s", dir, name) > 0);
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0, "%s", path);
	return path;
}
