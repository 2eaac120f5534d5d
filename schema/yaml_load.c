/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Which YAML loader reads a text. Specs as generators write them take the fast path, which
 * gives the same tree and marks at a fraction of libyaml's cost; anything else, and every
 * error, takes the libyaml event path.
 */
#include <errno.h>

#include <cdi/spec.h>

#include "load.h"
#include "yaml_events.h"
#include "yaml_fast.h"

int cdi_yaml_load(const char *name, const char *buf, size_t len, json_t **ret_root,
		  struct cdi_marks *marks, struct cdi_error *err)
{
	int r;

	if (len <= CDI_SPEC_MAX_BYTES) {
		r = cdi_yaml_load_fast(buf, len, ret_root, marks);
		if (r != -EOPNOTSUPP)
			return r;
	}
	return cdi_yaml_load_events(name, buf, len, ret_root, marks, err);
}
