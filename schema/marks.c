/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Node positions recorded while loading YAML. Every node of every spec gets
 * one entry, so appending to a flat array is all loading pays. The validator
 * looks a position up for every node it visits, so the first lookup builds a
 * hash index (pointer -> newest entry); entries added after that (nodes
 * replaced while coercing: a handful) are scanned linearly until they are
 * many enough to be worth a rebuild.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "array.h"
#include "macro.h"
#include "marks.h"

struct mark {
	const json_t *node;
	unsigned line; /* 0: a note without a position */
	unsigned column;
	unsigned flags;
};

struct cdi_marks {
	bool positions;
	struct mark *v;
	size_t n;
	size_t cap;
	/* Lazily built index: slots hold entry index + 1, 0 = empty. A lookup cache, so
	 * cdi_marks_find() updates it through a const pointer. */
	size_t *slots;
	size_t n_slots; /* a power of two, > 2 * n_indexed */
	size_t n_indexed;
};

#define MARKS_UNINDEXED_MAX 32

struct cdi_marks *cdi_marks_new(bool positions)
{
	struct cdi_marks *marks = calloc(1, sizeof(struct cdi_marks));

	if (marks)
		marks->positions = positions;
	return marks;
}

bool cdi_marks_positions(const struct cdi_marks *marks)
{
	return marks && marks->positions;
}

void cdi_marks_free(struct cdi_marks *marks)
{
	if (!marks)
		return;
	free(marks->v);
	free(marks->slots);
	free(marks);
}

static int append(struct cdi_marks *marks, const json_t *node, unsigned line, unsigned column,
		  unsigned flags)
{
	/*
	 * true, false and null are singletons in jansson: every one of them in
	 * every tree has the same address, so a position for them would be
	 * some other node's. Callers fall back to the parent's position.
	 */
	if (json_is_boolean(node) || json_is_null(node))
		return 0;
	if (ARRAY_RESERVE(marks->v, marks->cap, marks->n + 1) < 0)
		return -ENOMEM;
	marks->v[marks->n++] =
		(struct mark){ .node = node, .line = line, .column = column, .flags = flags };
	return 0;
}

int cdi_marks_add(struct cdi_marks *marks, const json_t *node, unsigned line, unsigned column)
{
	if (!marks->positions)
		return 0;
	return append(marks, node, line, column, 0);
}

static struct mark *marks_lookup(struct cdi_marks *marks, const json_t *node);

int cdi_marks_note(struct cdi_marks *marks, const json_t *node, unsigned flags)
{
	struct mark *m;

	if (!marks || !flags)
		return 0;
	/* On the node's own entry when it has one, so its position stays found. */
	m = marks->n > 0 && marks->v[marks->n - 1].node == node ? &marks->v[marks->n - 1]
								: marks_lookup(marks, node);
	if (m) {
		m->flags |= flags;
		return 0;
	}
	return append(marks, node, 0, 0, flags);
}

static size_t slot_of(const json_t *node, size_t n_slots)
{
	uint64_t h = (uint64_t)(uintptr_t)node;

	h ^= h >> 33;
	h *= UINT64_C(0xff51afd7ed558ccd);
	h ^= h >> 33;
	return (size_t)h & (n_slots - 1);
}

/* Index every entry; a later entry for the same node replaces an earlier one. */
static int marks_index(struct cdi_marks *marks)
{
	size_t n_slots = 64;
	size_t *slots;

	while (n_slots < 2 * marks->n + 2)
		n_slots *= 2;
	slots = calloc(n_slots, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < marks->n; i++) {
		size_t k = slot_of(marks->v[i].node, n_slots);

		while (slots[k] && marks->v[slots[k] - 1].node != marks->v[i].node)
			k = (k + 1) & (n_slots - 1);
		slots[k] = i + 1;
	}
	free(marks->slots);
	marks->slots = slots;
	marks->n_slots = n_slots;
	marks->n_indexed = marks->n;
	return 0;
}

static struct mark *marks_lookup(struct cdi_marks *marks, const json_t *node)
{
	/*
	 * Newest first: a node freed during loading (a merge source, a replaced
	 * value) may have its address reused by a later node, whose own entry
	 * is then the later one.
	 */
	if (marks->n - marks->n_indexed > MARKS_UNINDEXED_MAX)
		(void)marks_index(marks); /* on failure, the linear scan below still answers */
	for (size_t i = marks->n; i-- > marks->n_indexed;)
		if (marks->v[i].node == node)
			return &marks->v[i];
	if (!marks->slots)
		return NULL;
	for (size_t k = slot_of(node, marks->n_slots); marks->slots[k];
	     k = (k + 1) & (marks->n_slots - 1))
		if (marks->v[marks->slots[k] - 1].node == node)
			return &marks->v[marks->slots[k] - 1];
	return NULL;
}

bool cdi_marks_find(const struct cdi_marks *marks, const json_t *node, unsigned *ret_line,
		    unsigned *ret_column)
{
	const struct mark *m;

	if (!marks || !node)
		return false;
	m = marks_lookup((struct cdi_marks *)marks, node);
	if (!m || m->line == 0)
		return false;
	if (ret_line)
		*ret_line = m->line;
	if (ret_column)
		*ret_column = m->column;
	return true;
}

unsigned cdi_marks_flags(const struct cdi_marks *marks, const json_t *node)
{
	const struct mark *m;

	if (!marks || !node)
		return 0;
	m = marks_lookup((struct cdi_marks *)marks, node);
	return m ? m->flags : 0;
}
