/* SPDX-License-Identifier: Apache-2.0 */
/* The fast YAML path behind cdi_yaml_load(), exposed for differential tests (internal). */
#ifndef CDIKIT_YAML_FAST_H
#define CDIKIT_YAML_FAST_H

#include <stddef.h>
#include <jansson.h>

#include "marks.h"

/*
 * The fast path: plain block-style YAML as CDI generators write it. Returns 0 with the same tree
 * and marks the libyaml path gives, -ENODATA for an empty document, or -EOPNOTSUPP when the
 * text is anything else (or on any error): then nothing was changed, no problem was added, and
 * the caller runs the libyaml path.
 */
int cdi_yaml_load_fast(const char *buf, size_t len, json_t **ret_root, struct cdi_marks *marks);

#endif
