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

char *read_file_all(const char *path, size_t *ret_len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	cr_assert_geq(n, 0);
	cr_assert_eq(fseek(f, 0, SEEK_SET), 0);
	buf = malloc((size_t)n + 1);
	cr_assert_not_null(buf);
	cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n, "%s", path);
	buf[n] = '\0';
	fclose(f);
	*ret_len = (size_t)n;
	return buf;
}
