/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The parser of Jetson's host-files-for-container.d CSV files. Good lines as L4T writes them
 * (nvidia-container-toolkit's testdata and internal/discover/csv/mount_spec.go accept them);
 * every line nvidia-ctk would skip with a debug message is an error here, naming file and line.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "discover/csv_rows.h"
#include "macro.h"

static int parse(const char *text, struct csv_rows *rows, struct cdi_error *e)
{
	return csv_rows_parse("/etc/x/drivers.csv", text, strlen(text), rows, e);
}

Test(csv, l4t_rows)
{
	struct cdi_error e = { 0 };
	struct csv_rows rows = { 0 };
	const char *text = "dev, /dev/nvhost-ctrl-gpu\n"
			   "lib, /usr/lib/aarch64-linux-gnu/nvidia/libcuda.so.1.1\n"
			   "sym, /usr/lib/aarch64-linux-gnu/libcuda.so\n"
			   "dir, /usr/lib/aarch64-linux-gnu/tegra\n"
			   "dev, /dev/dri/renderD*\n";

	cr_assert_eq(parse(text, &rows, &e), 0, "%s", cdi_error_message(&e));
	cr_assert_eq(rows.n, 5);
	cr_assert_eq(rows.v[0].kind, CSV_DEV);
	cr_assert_str_eq(rows.v[0].path, "/dev/nvhost-ctrl-gpu");
	cr_assert_eq(rows.v[1].kind, CSV_LIB);
	cr_assert_eq(rows.v[2].kind, CSV_SYM);
	cr_assert_eq(rows.v[3].kind, CSV_DIR);
	cr_assert_str_eq(rows.v[4].path, "/dev/dri/renderD*");
	cr_assert_eq(rows.v[4].line, 5);
	cr_assert_str_eq(rows.v[4].file, "/etc/x/drivers.csv");
	csv_rows_clear(&rows);
}

/* Blanks around kind and path, CRLF, comments, blank lines, a last line without newline, and
 * L4T's own "//lib/firmware/..." row, cleaned. */
Test(csv, layout_tolerated)
{
	struct cdi_error e = { 0 };
	struct csv_rows rows = { 0 };
	const char *text = "# comment\r\n"
			   "\n"
			   "   \t\n"
			   "  lib ,\t/usr/lib/a.so  \r\n"
			   "lib, //lib/firmware/tegra19x/nvhost_nvdec040_ns.fw\n"
			   "sym, /usr/lib/x/../y/libz.so";

	cr_assert_eq(parse(text, &rows, &e), 0, "%s", cdi_error_message(&e));
	cr_assert_eq(rows.n, 3);
	cr_assert_str_eq(rows.v[0].path, "/usr/lib/a.so");
	cr_assert_eq(rows.v[0].line, 4);
	cr_assert_str_eq(rows.v[1].path, "/lib/firmware/tegra19x/nvhost_nvdec040_ns.fw");
	cr_assert_str_eq(rows.v[2].path, "/usr/lib/y/libz.so");
	cr_assert_eq(rows.v[2].line, 6);
	csv_rows_clear(&rows);
}

Test(csv, empty_content)
{
	struct cdi_error e = { 0 };
	struct csv_rows rows = { 0 };

	cr_assert_eq(parse("", &rows, &e), 0);
	cr_assert_eq(rows.n, 0);
}

/* Each bad line alone: the problem names file and line and says what is wrong. */
Test(csv, bad_lines)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "lib /usr/lib/a.so\n", "/etc/x/drivers.csv:1: not \"<kind>, <path>\": no comma" },
		{ "\nbin, /usr/bin/true\n", "/etc/x/drivers.csv:2: unknown kind \"bin\"" },
		{ "LIB, /usr/lib/a.so\n", "unknown kind \"LIB\"" },
		{ ", /usr/lib/a.so\n", "unknown kind \"\"" },
		{ "lib,\n", "lib row: the path \"\" is not absolute" },
		{ "dev, dev/nvmap\n", "dev row: the path \"dev/nvmap\" is not absolute" },
		{ "# ok\n\n\nsym, \t \n", "/etc/x/drivers.csv:4: sym row" },
	};

	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		struct cdi_error e = { 0 };
		struct csv_rows rows = { 0 };

		cr_assert_eq(parse(bad[i].text, &rows, &e), -EINVAL, "%s", bad[i].text);
		cr_assert_eq(rows.n, 0);
		cr_assert(strstr(cdi_error_message(&e), bad[i].want), "%s: got \"%s\"", bad[i].text,
			  cdi_error_message(&e));
		cdi_error_reset(&e);
		csv_rows_clear(&rows);
	}
}

/* A bad line does not stop the reading: the good rows around it are kept, the first problem
 * is the first bad line. */
Test(csv, bad_line_among_good)
{
	struct cdi_error e = { 0 };
	struct csv_rows rows = { 0 };
	const char *text = "lib, /a.so\nnonsense\nlib, /b.so\nfoo, /c\n";

	cr_assert_eq(parse(text, &rows, &e), -EINVAL);
	cr_assert_eq(rows.n, 2);
	cr_assert_str_eq(rows.v[1].path, "/b.so");
	cr_assert(strstr(cdi_error_message(&e), "drivers.csv:2:"), "%s", cdi_error_message(&e));
	cdi_error_reset(&e);
	csv_rows_clear(&rows);
}

Test(csv, nul_byte_and_long_line)
{
	struct cdi_error e = { 0 };
	struct csv_rows rows = { 0 };
	static const char nul[] = "lib, /a\0b.so\n";
	char *line = malloc(CSV_MAX_LINE + 16);

	cr_assert_eq(csv_rows_parse("f.csv", nul, sizeof(nul) - 1, &rows, &e), -EINVAL);
	cr_assert(strstr(cdi_error_message(&e), "f.csv:1: NUL byte"), "%s", cdi_error_message(&e));
	cdi_error_reset(&e);
	cr_assert_not_null(line);
	memcpy(line, "lib, /", 6);
	memset(line + 6, 'a', CSV_MAX_LINE);
	line[CSV_MAX_LINE + 6] = '\0';
	cr_assert_eq(parse(line, &rows, &e), -EINVAL);
	cr_assert(strstr(cdi_error_message(&e), "longer than"), "%s", cdi_error_message(&e));
	cdi_error_reset(&e);
	free(line);
	csv_rows_clear(&rows);
}

/* The row cap holds against a file of nothing but rows. */
Test(csv, row_cap)
{
	struct cdi_error e = { 0 };
	struct csv_rows rows = { 0 };
	size_t n = CSV_MAX_ROWS + 1, len = n * 8;
	char *text = malloc(len + 1);

	cr_assert_not_null(text);
	for (size_t i = 0; i < n; i++)
		memcpy(text + i * 8, "lib, /a\n", 8);
	cr_assert_eq(csv_rows_parse("big.csv", text, len, &rows, &e), -E2BIG);
	cr_assert_eq(rows.n, CSV_MAX_ROWS);
	cr_assert(strstr(cdi_error_message(&e), "more than"), "%s", cdi_error_message(&e));
	cdi_error_reset(&e);
	csv_rows_clear(&rows);
	free(text);
}
