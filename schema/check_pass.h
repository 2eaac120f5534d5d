/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the two passes of the spec check share (internal to check*.c, check_pass.c under both):
 * where a problem is (line and column from the marks, the field path built on the stack as the
 * walk descends) and how problems are counted and reported.
 */
#ifndef CDIKIT_CHECK_PASS_H
#define CDIKIT_CHECK_PASS_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include <cdi/error.h>
#include <cdi/spec.h>

#include "macro.h"
#include "marks.h"
#include "rules.h"

#define PATH_SIZE 256

struct loc {
	unsigned line;
	unsigned column;
};

/*
 * A field path, built on the stack as the walk descends and rendered only when a problem is
 * reported. NULL is the top of the spec.
 */
struct path {
	const struct path *up;
	const char *key;     /* a field name, or */
	const char *map_key; /* a map key (annotations), or else */
	size_t map_key_len;
	size_t index; /* an array index */
};

#define AT(up_, key_) (&(const struct path){ .up = (up_), .key = (key_) })
#define INDEX(up_, i_) (&(const struct path){ .up = (up_), .index = (i_) })
#define MAP_KEY(up_, k_, len_)                                                                     \
	(&(const struct path){ .up = (up_), .map_key = (k_), .map_key_len = (len_) })

struct check {
	const char *file;
	struct cdi_marks *marks;
	unsigned flags;
	bool coerce;
	struct cdi_error *err;
	int r;
	size_t max_problems; /* beyond them only their number is reported */
	size_t n_problems;
	size_t n_dropped;
	/* CDI_LOAD_FIRST_PROBLEM and it is found: the decoding walks no further (a registry skips
	 * the file whatever else is wrong with it, and a directory may hold thousands). */
	bool done;
	/* Nodes replaced while coercing, kept alive until the end so that no new node takes
	 * an address the marks still name. */
	json_t *replaced;
	/* The number cdiVersion held before it became a string ("" if it was a string). */
	char version_number[64];
	bool version_was_real;
};

static inline bool strict(const struct check *c)
{
	return c->flags & CDI_LOAD_STRICT;
}

/* The position of node, or parent's when it has none. */
struct loc loc_of(const struct check *c, const json_t *node, struct loc parent);

/* Render a path: devices[1].containerEdits.env[0], annotations["key"]. */
size_t render_path(const struct path *p, char *buf, size_t size);

/* snprintf that may cut: paths and hints are bounded, a cut one is still useful. */
char *bprintf(char *buf, size_t size, const char *fmt, ...) _printf_(3, 4);

/* Report one problem at loc and path (NULL: the top of the spec); the check fails. */
void problem(struct check *c, struct loc loc, const struct path *path, const char *fmt, ...)
	_printf_(4, 5);
void oom(struct check *c);

/* A string node quoted for a message, as Go's %q would. */
const char *quote_json(char buf[static CDI_QUOTE_MAX], const json_t *s);

/* True when p is the top-level field name. */
bool is_top_field(const struct path *p, const char *name);

#endif
