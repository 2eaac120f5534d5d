/* SPDX-License-Identifier: Apache-2.0 */
/* Why a spec on disk is stale: one line a person can act on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"
#include "macro.h"
#include "spec_write.h"

/* Names of the devices of a spec tree, as a set (object name → device). */
static json_t *device_set(const json_t *spec)
{
	json_t *set = json_object(), *dev;
	size_t i;

	if (!set)
		return NULL;
	json_array_foreach (json_object_get(spec, "devices"), i, dev) {
		const char *name = json_string_value(json_object_get(dev, "name"));

		if (name)
			json_object_set(set, name, dev);
	}
	return set;
}

/* The names of a that are not in b: their count, the first three in list (", " between). */
static size_t set_minus(json_t *a, json_t *b, char *list, size_t size)
{
	size_t n = 0, len = 0;
	const char *name;
	json_t *v;

	list[0] = '\0';
	json_object_foreach (a, name, v) {
		if (json_object_get(b, name))
			continue;
		if (n++ < 3 && len < size)
			len += (size_t)snprintf(list + len, size - len, "%s%s", len ? ", " : "",
						name);
	}
	return n;
}

/* One line on why the spec on disk differs from the one generated now. */
void spec_stale_reason(const char *path, const char *old_buf, size_t old_len, const json_t *spec,
		       char *out, size_t size)
{
	_cleanup_json_ json_t *old = NULL, *old_set = NULL, *new_set = NULL;
	char added[300], removed[300];
	struct cdi_error e = { 0 };
	size_t n_added = 0, n_removed = 0;
	const char *name;
	json_t *dev;

	if (cdi_yaml_load(path, old_buf, old_len, &old, NULL, &e) < 0 || !json_is_object(old)) {
		snprintf(out, size, "it does not parse (%s)",
			 cdi_error_count(&e) ? cdi_error_message(&e) : "empty");
		cdi_error_reset(&e);
		return;
	}
	if (!json_equal(json_object_get(old, "kind"), json_object_get(spec, "kind"))) {
		snprintf(out, size, "kind %s, now %s",
			 json_string_value(json_object_get(old, "kind")) ?: "(none)",
			 json_string_value(json_object_get(spec, "kind")));
		return;
	}
	old_set = device_set(old);
	new_set = device_set(spec);
	if (!old_set || !new_set) {
		snprintf(out, size, "content differs");
		return;
	}
	n_added = set_minus(new_set, old_set, added, sizeof(added));
	n_removed = set_minus(old_set, new_set, removed, sizeof(removed));
	if (n_added || n_removed) {
		snprintf(out, size, "devices added: %zu%s%s%s, removed: %zu%s%s%s", n_added,
			 n_added ? " (" : "", added,
			 n_added > 3 ? ", ...)"
			 : n_added   ? ")"
				     : "",
			 n_removed, n_removed ? " (" : "", removed,
			 n_removed > 3 ? ", ...)"
			 : n_removed   ? ")"
				       : "");
		return;
	}
	json_object_foreach (new_set, name, dev) {
		if (!json_equal(dev, json_object_get(old_set, name))) {
			snprintf(out, size, "device %s changed", name);
			return;
		}
	}
	if (!json_equal(json_object_get(old, "containerEdits"),
			json_object_get(spec, "containerEdits"))) {
		snprintf(out, size,
			 "common containerEdits changed (driver files, control nodes or env)");
		return;
	}
	snprintf(out, size, "content differs (cdiVersion or formatting)");
}
