/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <string.h>

#include "env_trust.h"
#include "problem.h"

#define CAP_SYS_ADMIN_NAME "CAP_SYS_ADMIN"

static bool list_has(const json_t *list, const char *name)
{
	const json_t *v;
	size_t i;

	json_array_foreach (list, i, v) {
		const char *s = json_string_value(v);

		if (s && !strcmp(s, name))
			return true;
	}
	return false;
}

bool oci_privileged(const json_t *oci)
{
	const json_t *caps = json_object_get(json_object_get(oci, "process"), "capabilities");

	if (json_is_array(caps))
		return list_has(caps, CAP_SYS_ADMIN_NAME);
	return list_has(json_object_get(caps, "bounding"), CAP_SYS_ADMIN_NAME);
}

bool env_trust_visible_devices(const json_t *oci, bool accept_unprivileged)
{
	return accept_unprivileged || oci_privileged(oci);
}

int env_trust_setting_parse(const char *value, bool *ret, struct cdi_error *err)
{
	if (value && !strcmp(value, "true"))
		*ret = true;
	else if (value && !strcmp(value, "false"))
		*ret = false;
	else
		return cdi_problem_add(err, -EINVAL, NULL, 0, 0, ENV_TRUST_SETTING,
				       "\"%.64s\" is not true or false", value ? value : "");
	return 0;
}
