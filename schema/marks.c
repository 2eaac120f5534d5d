/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Node positions recorded while loading YAML. Every node of every spec gets
 * one entry, lookups only happen when a problem is reported: so appending to
 * a flat array is all the hot path pays, and find scans linearly.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "macro.h"
#include "marks.h"

struct mark {
	const json_t *node;
	unsigned line;
	unsigned column;
};

struct cdi_marks {
	struct mark *v;
	size_t n;
	size_t cap;
};

struct cdi_marks *cdi_marks_new(void)
{
	return calloc(1, sizeof(struct cdi_marks));
}

void cdi_marks_free(struct cdi_marks *marks)
{
	if (!marks)
		return;
	free(marks->v);
	free(marks);
}

int cdi_marks_add(struct cdi_marks *marks, const json_t *node, unsigned line, unsigned column)
{
	/*
	 * true, false and null are singletons in jansson: every one of them in
	 * every tree has the same address, so a position for them would be
	 * some other node's. Callers fall back to the parent's position.
	 */
	if (json_is_boolean(node) || json_is_null(node))
		return 0;
	if (marks->n == marks->cap) {
		size_t cap = marks->cap ? marks->cap * 2 : 256;
		struct mark *v;

		if (cap > SIZE_MAX / sizeof(*v))
			return -ENOMEM;
		v = realloc(marks->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		marks->v = v;
		marks->cap = cap;
	}
	marks->v[marks->n++] = (struct mark){.node = node, .line = line, .column = column};
	return 0;
}

bool cdi_marks_find(const struct cdi_marks *marks, const json_t *node, unsigned *ret_line,
		    unsigned *ret_column)
{
	if (!marks || !node)
		return false;
	/*
	 * Newest first: a node freed during loading (a merge source, a replaced
	 * value) may have its address reused by a later node, whose own entry
	 * is then the later one.
	 */
	for (size_t i = marks->n; i-- > 0;) {
		if (marks->v[i].node != node)
			continue;
		if (ret_line)
			*ret_line = marks->v[i].line;
		if (ret_column)
			*ret_column = marks->v[i].column;
		return true;
	}
	return false;
}
