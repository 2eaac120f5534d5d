/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The layer under both passes of the spec check (check_pass.h): positions, field paths and
 * problems. check.c runs the passes; the passes call only this, never each other or check.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "check.h" /* CDI_LOAD_FIRST_PROBLEM */
#include "check_pass.h"
#include "problem.h"

/* true, false and null are shared singletons in jansson: their marks mean nothing. */
struct loc loc_of(const struct check *c, const json_t *node, struct loc parent)
{
	struct loc l;

	if (!node || json_is_boolean(node) || json_is_null(node) ||
	    !cdi_marks_find(c->marks, node, &l.line, &l.column))
		return parent;
	return l;
}

char *bprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return buf;
}

size_t render_path(const struct path *p, char *buf, size_t size)
{
	size_t n = p->up ? render_path(p->up, buf, size) : 0;
	char q[CDI_QUOTE_MAX];

	if (n >= size)
		return n;
	if (p->key)
		bprintf(buf + n, size - n, "%s%s", n ? "." : "", p->key);
	else if (p->map_key)
		bprintf(buf + n, size - n, "[%s]",
			cdi_quote(q, sizeof(q), p->map_key, p->map_key_len));
	else
		bprintf(buf + n, size - n, "[%zu]", p->index);
	return n + strlen(buf + n);
}

bool is_top_field(const struct path *p, const char *name)
{
	return p && !p->up && p->key && strcmp(p->key, name) == 0;
}

void problem(struct check *c, struct loc loc, const struct path *path, const char *fmt, ...)
{
	char field[PATH_SIZE] = "";
	va_list ap;

	if (c->r == 0)
		c->r = -EINVAL;
	if (c->n_problems >= c->max_problems) {
		c->n_dropped++;
		return;
	}
	c->n_problems++;
	c->done = c->flags & CDI_LOAD_FIRST_PROBLEM;
	if (path)
		render_path(path, field, sizeof(field));
	va_start(ap, fmt);
	cdi_problem_addv(c->err, -EINVAL, c->file, loc.line, loc.column, field, fmt, ap);
	va_end(ap);
}

void oom(struct check *c)
{
	if (c->r != -ENOMEM)
		cdi_problem_add(c->err, -ENOMEM, c->file, 0, 0, NULL, "out of memory");
	c->r = -ENOMEM;
}

const char *quote_json(char buf[static CDI_QUOTE_MAX], const json_t *s)
{
	return cdi_quote(buf, CDI_QUOTE_MAX, json_string_value(s), json_string_length(s));
}
