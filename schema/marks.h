/* SPDX-License-Identifier: Apache-2.0 */
/* Source positions of JSON nodes, recorded by the YAML loader (internal). */
#ifndef CDIKIT_MARKS_H
#define CDIKIT_MARKS_H

#include <stdbool.h>
#include <jansson.h>

struct cdi_marks;

/* What a loader knows of a node beyond its value. */
enum cdi_mark_flags {
	/* A string node holding an unquoted integer beyond int64 (jansson has no such number):
	 * where an integer belongs it is out of range, not a string. */
	CDI_MARK_BIG_INTEGER = 1u << 0,
};

/*
 * A table of marks. With positions, loaders record where every node starts (what messages
 * need, at a cost per node); without, only the rare nodes with flags are recorded.
 */
struct cdi_marks *cdi_marks_new(bool positions);
void cdi_marks_free(struct cdi_marks *marks);
static inline void cdi_marks_freep(struct cdi_marks **m)
{
	cdi_marks_free(*m);
}
#define _cleanup_marks_ __attribute__((cleanup(cdi_marks_freep)))

/* Whether loaders should record positions (false for NULL). */
bool cdi_marks_positions(const struct cdi_marks *marks);

/* Remember that node starts at line:column (1-based); nothing without positions. -ENOMEM on
 * failure. */
int cdi_marks_add(struct cdi_marks *marks, const json_t *node, unsigned line, unsigned column);

/* Add flags to node (after its position, if any, was added). marks may be NULL. */
int cdi_marks_note(struct cdi_marks *marks, const json_t *node, unsigned flags);

/* Look node's position up; marks may be NULL. False when unknown. */
bool cdi_marks_find(const struct cdi_marks *marks, const json_t *node, unsigned *ret_line,
		    unsigned *ret_column);

/* The flags noted for node (0 when none or marks is NULL). */
unsigned cdi_marks_flags(const struct cdi_marks *marks, const json_t *node);

#endif
