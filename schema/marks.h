/* SPDX-License-Identifier: Apache-2.0 */
/* Source positions of JSON nodes, recorded by the YAML loader (internal). */
#ifndef CDIKIT_MARKS_H
#define CDIKIT_MARKS_H

#include <stdbool.h>
#include <jansson.h>

struct cdi_marks;

struct cdi_marks *cdi_marks_new(void);
void cdi_marks_free(struct cdi_marks *marks);

/* Remember that node starts at line:column (1-based). -ENOMEM on failure. */
int cdi_marks_add(struct cdi_marks *marks, const json_t *node, unsigned line, unsigned column);

/* Look node up; marks may be NULL. False when unknown. */
bool cdi_marks_find(const struct cdi_marks *marks, const json_t *node, unsigned *ret_line,
		    unsigned *ret_column);

#endif
