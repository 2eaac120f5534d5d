/* SPDX-License-Identifier: Apache-2.0 */
/* Parsing host-files-for-container.d CSV files (nvidia-container-toolkit's MountSpec lines). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "csv_rows.h"
#include "macro.h"
#include "path_clean.h"
#include "problem.h"

static const char *const kind_names[] = {
	[CSV_DEV] = "dev",
	[CSV_LIB] = "lib",
	[CSV_SYM] = "sym",
	[CSV_DIR] = "dir",
};

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* [*s, *e) without the blanks around it. */
static void trim(const char **s, const char **e)
{
	while (*s < *e && blank(**s))
		(*s)++;
	while (*e > *s && blank((*e)[-1]))
		(*e)--;
}

/* One line [s, e) (without its newline): a row appended, 0 for nothing, or a problem. */
static int parse_line(const char *name, unsigned line, const char *s, const char *e,
		      struct csv_rows *rows, struct cdi_error *err)
{
	const char *comma, *k, *ke, *p;
	_cleanup_free_ char *raw = NULL;
	size_t klen;

	if ((size_t)(e - s) > CSV_MAX_LINE)
		return cdi_problem_add(err, -EINVAL, name, line, 0, NULL,
				       "line longer than %u bytes", CSV_MAX_LINE);
	if (memchr(s, '\0', (size_t)(e - s)))
		return cdi_problem_add(err, -EINVAL, name, line, 0, NULL, "NUL byte in the line");
	trim(&s, &e);
	if (s == e || *s == '#')
		return 0;
	comma = memchr(s, ',', (size_t)(e - s));
	if (!comma)
		return cdi_problem_add(err, -EINVAL, name, line, 0, NULL,
				       "not \"<kind>, <path>\": no comma");
	k = s;
	ke = comma;
	trim(&k, &ke);
	klen = (size_t)(ke - k);
	p = comma + 1;
	trim(&p, &e);
	for (size_t i = 0; i < ELEMENTSOF(kind_names); i++) {
		if (klen != strlen(kind_names[i]) || memcmp(k, kind_names[i], klen) != 0)
			continue;
		if (p == e || *p != '/')
			return cdi_problem_add(err, -EINVAL, name, line, 0, NULL,
					       "%s row: the path \"%.*s\" is not absolute",
					       kind_names[i], (int)(e - p), p);
		raw = strndup(p, (size_t)(e - p));
		if (!raw || ARRAY_RESERVE(rows->v, rows->cap, rows->n + 1) < 0)
			return cdi_fail(err, -ENOMEM, "out of memory");
		rows->v[rows->n] = (struct csv_row){ .kind = (enum csv_kind)i,
						     .path = cdi_path_clean(raw),
						     .file = name,
						     .line = line };
		if (!rows->v[rows->n].path)
			return cdi_fail(err, -ENOMEM, "out of memory");
		rows->n++;
		return 0;
	}
	return cdi_problem_add(err, -EINVAL, name, line, 0, NULL,
			       "unknown kind \"%.*s\" (dev, lib, sym or dir)", (int)klen, k);
}

int csv_rows_parse(const char *name, const char *buf, size_t len, struct csv_rows *rows,
		   struct cdi_error *err)
{
	const char *s = buf, *end = buf + len;
	unsigned line = 0;
	int first = 0;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s)), *e = nl ? nl : end;
		int r;

		line++;
		if (rows->n >= CSV_MAX_ROWS)
			return cdi_problem_add(err, -E2BIG, name, line, 0, NULL,
					       "more than %u rows", CSV_MAX_ROWS);
		r = parse_line(name, line, s, e, rows, err);
		if (r == -ENOMEM)
			return r;
		if (r < 0 && first == 0)
			first = r;
		s = e + 1;
	}
	return first;
}

void csv_rows_clear(struct csv_rows *rows)
{
	for (size_t i = 0; i < rows->n; i++)
		free(rows->v[i].path);
	free(rows->v);
	*rows = (struct csv_rows){ 0 };
}
