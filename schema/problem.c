/* SPDX-License-Identifier: Apache-2.0 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problem.h"

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

int cdi_problem_addv(struct cdi_error *err, int code, const char *file, unsigned line,
		     unsigned column, const char *field, const char *fmt, va_list ap)
{
	struct cdi_problem *grown, *p;

	if (!err)
		return code;
	if (err->code == 0)
		err->code = code;

	grown = realloc(err->problems, (err->n_problems + 1) * sizeof(*grown));
	if (!grown)
		return code;
	err->problems = grown;
	p = &err->problems[err->n_problems];
	*p = (struct cdi_problem){ .line = line, .column = column };
	if (vasprintf(&p->message, fmt, ap) < 0) {
		p->message = NULL;
		return code;
	}
	p->file = file ? strdup(file) : NULL;
	p->field = field && *field ? strdup(field) : NULL;
	p->text = format_text(p);
	if ((file && !p->file) || (field && *field && !p->field) || !p->text) {
		free(p->file);
		free(p->field);
		free(p->message);
		free(p->text);
		return code;
	}
	err->n_problems++;
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

void cdi_error_move(struct cdi_error *dst, struct cdi_error *src)
{
	struct cdi_problem *grown;

	if (!dst || !src)
		return;
	if (dst->code == 0)
		dst->code = src->code;
	if (src->n_problems) {
		grown = realloc(dst->problems,
				(dst->n_problems + src->n_problems) * sizeof(*grown));
		if (!grown) {
			cdi_error_reset(src);
			return;
		}
		dst->problems = grown;
		memcpy(dst->problems + dst->n_problems, src->problems,
		       src->n_problems * sizeof(*grown));
		dst->n_problems += src->n_problems;
	}
	free(src->problems);
	*src = (struct cdi_error){ 0 };
}

_public_ void cdi_error_reset(struct cdi_error *err)
{
	if (!err)
		return;
	for (size_t i = 0; i < err->n_problems; i++) {
		free(err->problems[i].file);
		free(err->problems[i].field);
		free(err->problems[i].message);
		free(err->problems[i].text);
	}
	free(err->problems);
	*err = (struct cdi_error){ 0 };
}

_public_ const char *cdi_error_message(const struct cdi_error *err)
{
	if (!err || err->n_problems == 0)
		return "";
	return err->problems[0].text;
}
