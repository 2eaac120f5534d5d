/* SPDX-License-Identifier: Apache-2.0 */
/* The libyaml event path behind cdi_yaml_load(), exposed for differential tests (internal). */
#ifndef CDIKIT_YAML_EVENTS_H
#define CDIKIT_YAML_EVENTS_H

#include <stddef.h>
#include <jansson.h>

#include <cdi/error.h>

#include "marks.h"

/* Every YAML feature, every error message; the rules of cdi_yaml_load() (load.h). */
int cdi_yaml_load_events(const char *name, const char *buf, size_t len, json_t **ret_root,
			 struct cdi_marks *marks, struct cdi_error *err);

#endif
