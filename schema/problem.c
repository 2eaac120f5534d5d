/* SPDX-License-Identifier: Apache-2.0 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "problem.h"

struct cdi_problem {
	char *file; /* as the caller named it */
	unsigned line;
	unsigned column;
	char *field;   /* devices[1].containerEdits.env[0] */
	char *message; /* the problem, without its place */
	char *text;    /* "file:line:col: field: message" */
};

struct cdi_problem_list {
	struct cdi_problem *v;
	size_t n, cap;
};

static char *format_text(const struct cdi_problem *p)
{
	char loc[64] = "";
	char *text = NULL;

	if (p->line && p->column)
		snprintf(loc, sizeof(loc), ":%u:%u", p->line, p->column);
	else if (p->line)
		snprintf(loc, sizeof(loc), ":%u", p->line);

	if (asprintf(&text, "%s%s%s%s%s%s", p->file ? p->file : "", p->file ? loc : "",
		     p->file ? ": " : "", p->field ? p->field : "", p->field ? ": " : "",
		     p->message) < 0)
		return NULL;
	return text;
}

static void problem_free(struct cdi_problem *p)
{
	free(p->file);
	free(p->field);
	free(p->message);
	free(p->text);
}

/* Room for n more problems; false when there is none. */
static bool reserve(struct cdi_error *err, size_t n)
{
	if (!err->_list) {
		err->_list = calloc(1, sizeof(*err->_list));
		if (!err->_list)
			return false;
	}
	return ARRAY_RESERVE(err->_list->v, err->_list->cap, err->_list->n + n) == 0;
}

int cdi_problem_addv(struct cdi_error *err, int code, const char *file, unsigned line,
		     unsigned column, const char *field, const char *fmt, va_list ap)
{
	struct cdi_problem p = { .line = line, .column = column };

	if (!err)
		return code;
	if (err->_code == 0)
		err->_code = code;
	if (vasprintf(&p.message, fmt, ap) < 0)
		return code;
	p.file = file ? strdup(file) : NULL;
	p.field = field && *field ? strdup(field) : NULL;
	p.text = format_text(&p);
	if ((file && !p.file) || (field && *field && !p.field) || !p.text || !reserve(err, 1)) {
		problem_free(&p);
		return code;
	}
	err->_list->v[err->_list->n++] = p;
	return code;
}

int cdi_problem_add(struct cdi_error *err, int code, const char *file, unsigned line,
		    unsigned column, const char *field, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	code = cdi_problem_addv(err, code, file, line, column, field, fmt, ap);
	va_end(ap);
	return code;
}

int cdi_problem_copy(struct cdi_error *err, int code, const cdi_problem *p)
{
	return cdi_problem_add(err, code, p->file, p->line, p->column, p->field, "%s", p->message);
}

void cdi_error_move(struct cdi_error *dst, struct cdi_error *src)
{
	size_t n = cdi_error_count(src);

	if (!dst || !src)
		return;
	if (dst->_code == 0)
		dst->_code = src->_code;
	if (n > 0 && reserve(dst, n)) {
		memcpy(dst->_list->v + dst->_list->n, src->_list->v, n * sizeof(*src->_list->v));
		dst->_list->n += n;
		src->_list->n = 0;
	}
	cdi_error_reset(src);
}

_public_ void cdi_error_reset(struct cdi_error *err)
{
	if (!err)
		return;
	if (err->_list) {
		for (size_t i = 0; i < err->_list->n; i++)
			problem_free(&err->_list->v[i]);
		free(err->_list->v);
		free(err->_list);
	}
	*err = (struct cdi_error){ 0 };
}

_public_ int cdi_error_code(const struct cdi_error *err)
{
	return err ? err->_code : 0;
}

_public_ size_t cdi_error_count(const struct cdi_error *err)
{
	return err && err->_list ? err->_list->n : 0;
}

_public_ const cdi_problem *cdi_error_problem(const struct cdi_error *err, size_t i)
{
	return i < cdi_error_count(err) ? &err->_list->v[i] : NULL;
}

_public_ const char *cdi_error_message(const struct cdi_error *err)
{
	return cdi_error_count(err) ? err->_list->v[0].text : "";
}

PUBLIC_GETTER(const char *, cdi_problem_text, cdi_problem, text, NULL)
PUBLIC_GETTER(const char *, cdi_problem_message, cdi_problem, message, NULL)
PUBLIC_GETTER(const char *, cdi_problem_file, cdi_problem, file, NULL)
PUBLIC_GETTER(const char *, cdi_problem_field, cdi_problem, field, NULL)
PUBLIC_GETTER(unsigned, cdi_problem_line, cdi_problem, line, 0)
PUBLIC_GETTER(unsigned, cdi_problem_column, cdi_problem, column, 0)
