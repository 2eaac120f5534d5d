/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CSV files of Jetson's host-files-for-container.d (internal): one "kind, /path" row a line,
 * kind dev (a device node; the last name may be a glob), lib (a file), sym (a link) or dir.
 */
#ifndef CDIKIT_CSV_ROWS_H
#define CDIKIT_CSV_ROWS_H

#include <stddef.h>

#include <cdi/error.h>

#define CSV_MAX_ROWS 65536u
#define CSV_MAX_LINE 4096u

enum csv_kind {
	CSV_DEV,
	CSV_LIB,
	CSV_SYM,
	CSV_DIR,
};

struct csv_row {
	enum csv_kind kind;
	char *path;	  /* absolute and clean ("//lib/x" is "/lib/x") */
	const char *file; /* the name given to csv_rows_parse() (borrowed) */
	unsigned line;
};

struct csv_rows {
	struct csv_row *v;
	size_t n, cap;
};

/*
 * Append the rows of the CSV content buf (len bytes) to rows. Blank lines and lines starting
 * with '#' are skipped; spaces around kind and path are not part of them; a '\r' before the
 * newline is ignored. Every malformed line (no comma, an unknown kind, an empty or relative
 * path, a NUL byte, a line over CSV_MAX_LINE) is a problem "name:line: ..." and the result is
 * -EINVAL after the whole content was read; the rows of the good lines are kept. name must
 * outlive rows.
 */
int csv_rows_parse(const char *name, const char *buf, size_t len, struct csv_rows *rows,
		   struct cdi_error *err);
void csv_rows_clear(struct csv_rows *rows);

#endif
