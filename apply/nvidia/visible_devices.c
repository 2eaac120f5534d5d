/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NVIDIA_VISIBLE_DEVICES to CDI device names, as nvidia-container-runtime does in cdi mode
 * (internal/modifier/cdi.go getDevicesFromSpec, image.VisibleDevicesFromEnvVar): unqualified
 * requests get the default kind nvidia.com/gpu, requests are deduplicated in order.
 *
 * One deliberate difference: nvidia-container-runtime turns "none" into the device
 * nvidia.com/gpu=none, which no generated spec defines, so the container fails to start with
 * "unresolvable CDI devices". "none" means "no GPU" everywhere else in the NVIDIA stack, so it
 * asks for nothing here.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cdi/annotations.h>
#include <cdi/names.h>

#include "container_env.h"
#include "macro.h"
#include "problem.h"
#include "strv.h"
#include "visible_devices.h"

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

int nvidia_list_split(const char *value, char ***ret, size_t *ret_n)
{
	struct strv_builder b = { 0 };

	for (const char *s = value; s && *s;) {
		const char *comma = strchr(s, ','), *end = comma ? comma : s + strlen(s);
		const char *next = comma ? comma + 1 : end;

		while (s < end && is_space(*s))
			s++;
		while (end > s && is_space(end[-1]))
			end--;
		if (end > s && strv_builder_addn(&b, s, (size_t)(end - s)) < 0) {
			strv_builder_clear(&b);
			return -ENOMEM;
		}
		s = next;
	}
	*ret = strv_builder_steal(&b, ret_n);
	return *ret ? 0 : -ENOMEM;
}

char *visible_device_name(const char *item)
{
	char *name;

	if (cdi_is_qualified_name(item))
		return strdup(item);
	if (asprintf(&name, "%s=%s", CDI_VISIBLE_DEVICES_KIND, item) < 0)
		return NULL;
	return name;
}

int cdi_visible_devices_parse(const char *value, char ***ret_devices, size_t *ret_n,
			      struct cdi_error *err)
{
	struct strv_set names = { 0 };
	_cleanup_strv_free_ char **items = NULL;
	size_t n;

	if (!ret_devices)
		return cdi_fail(err, -EINVAL, "no place for the devices");
	if (value && strcmp(value, "void") != 0 && strcmp(value, "none") != 0 &&
	    nvidia_list_split(value, &items, NULL) < 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	for (char **item = items; item && *item; item++) {
		_cleanup_free_ char *name = visible_device_name(*item);

		if (!name || strv_set_add(&names, name) < 0) {
			strv_set_clear(&names);
			return cdi_fail(err, -ENOMEM, "out of memory");
		}
	}
	*ret_devices = strv_set_steal(&names, &n);
	if (!*ret_devices)
		return cdi_fail(err, -ENOMEM, "out of memory");
	if (ret_n)
		*ret_n = n;
	return 0;
}

const char *cdi_visible_devices_value(const json_t *oci)
{
	return oci_env_value(oci, CDI_VISIBLE_DEVICES_ENV);
}

int cdi_visible_devices(const json_t *oci, char ***ret_devices, size_t *ret_n,
			struct cdi_error *err)
{
	return cdi_visible_devices_parse(cdi_visible_devices_value(oci), ret_devices, ret_n, err);
}
