/* SPDX-License-Identifier: Apache-2.0 */
/* Text to JSON tree: YAML via libyaml events, JSON via jansson (internal). */
#ifndef CDIKIT_LOAD_H
#define CDIKIT_LOAD_H

#include <stddef.h>
#include <jansson.h>

#include <cdi/error.h>

#include "marks.h"

/*
 * Parse YAML into a JSON tree. Plain scalars resolve as go-yaml v3 does:
 * true/True/TRUE, false/False/FALSE are booleans (yes/no/y/n/on/off stay
 * strings); null/Null/NULL/~/empty are null; integers in decimal, 0x hex,
 * 0o and leading-0 octal, 0b binary, '_' separators, optional sign;
 * floats (incl. .inf/.nan); anything else is a string. Quoted scalars and
 * scalars tagged !!str are strings. Mapping keys become strings (numbers
 * and booleans formatted as the reference's YAML-to-JSON step formats them).
 * Duplicate keys, non-scalar keys, a document deeper than
 * CDI_SPEC_MAX_DEPTH and alias expansion beyond CDI_SPEC_MAX_NODES are
 * errors. Anchors/aliases and merge keys (<<) work. Only the first document
 * is read. An empty document (or only null) returns -ENODATA with
 * *ret_root = NULL and no problem added.
 * marks (may be NULL) receives the position of every node.
 * Problems: "name:line:col: message".
 */
int cdi_yaml_load(const char *name, const char *buf, size_t len, json_t **ret_root,
		  struct cdi_marks *marks, struct cdi_error *err);

/* Parse JSON with jansson, rejecting duplicate keys. Same return rules. */
int cdi_json_load(const char *name, const char *buf, size_t len, json_t **ret_root,
		  struct cdi_error *err);

/* Read a whole file, at most max bytes (-EFBIG beyond). NUL-terminated. */
int cdi_read_file(const char *path, size_t max, char **ret_buf, size_t *ret_len);

#endif
