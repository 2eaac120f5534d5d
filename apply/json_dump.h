/* SPDX-License-Identifier: Apache-2.0 */
/* Fast serialisation of JSON trees (internal to apply/). */
#ifndef CDIKIT_APPLY_JSON_DUMP_H
#define CDIKIT_APPLY_JSON_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

/*
 * Serialise a JSON tree exactly as jansson's json_dumps() does with JSON_COMPACT (indent 0)
 * or JSON_INDENT(indent), keys in their stored order, but several times faster (no loop
 * detection, one buffer). With tab, every level is one tab instead of indent spaces.
 * Returns a malloc'd NUL-terminated string and its length, or NULL on ENOMEM.
 */
char *cdi_json_dump(const json_t *json, unsigned indent, bool tab, size_t *ret_len);

#endif
