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

#include "strmap.h"
#include "macro.h"
#include "problem.h"
#include "visible_devices.h"

static void strv_freep(char ***strv)
{
	cdi_strv_free(*strv);
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

int cdi_visible_devices_parse(const char *value, char ***ret_devices, size_t *ret_n,
			      struct cdi_error *err)
{
	__attribute__((cleanup(strv_freep))) char **devs = NULL;
	struct cdi_strmap seen __attribute__((cleanup(cdi_strmap_free))) = { 0 };
	size_t n = 0, cap;
	const char *s = value;

	if (!ret_devices)
		return cdi_fail(err, -EINVAL, "no place for the devices");
	/* Items are at most one per byte plus one; that bounds the array up front. */
	cap = (value ? strlen(value) / 2 + 2 : 1);
	devs = calloc(cap, sizeof(*devs));
	if (!devs)
		return cdi_fail(err, -ENOMEM, "out of memory");

	if (!value || !*value || strcmp(value, "void") == 0 || strcmp(value, "none") == 0)
		goto done;

	for (;;) {
		const char *comma = strchr(s, ','), *end = comma ? comma : s + strlen(s);
		_cleanup_free_ char *item = NULL, *name = NULL;
		bool dup = false;

		while (s < end && is_space(*s))
			s++;
		while (end > s && is_space(end[-1]))
			end--;
		if (end > s) {
			item = strndup(s, end - s);
			if (!item)
				return cdi_fail(err, -ENOMEM, "out of memory");
			if (cdi_is_qualified_name(item)) {
				name = TAKE_PTR(item);
			} else if (asprintf(&name, "%s=%s", CDI_VISIBLE_DEVICES_KIND, item) < 0) {
				name = NULL;
				return cdi_fail(err, -ENOMEM, "out of memory");
			}
			dup = cdi_strmap_get(&seen, name, strlen(name)) != NULL;
			if (!dup) {
				if (n + 1 >= cap)
					return cdi_fail(err, -E2BIG, "too many devices");
				devs[n] = TAKE_PTR(name);
				if (cdi_strmap_put(&seen, devs[n], strlen(devs[n]), n) < 0)
					return cdi_fail(err, -ENOMEM, "out of memory");
				n++;
			}
		}
		if (!comma)
			break;
		s = comma + 1;
	}
done:
	*ret_devices = TAKE_PTR(devs);
	if (ret_n)
		*ret_n = n;
	return 0;
}

const char *cdi_visible_devices_value(const json_t *oci)
{
	const json_t *env = json_object_get(json_object_get(oci, "process"), "env"), *v;
	size_t len = strlen(CDI_VISIBLE_DEVICES_ENV), i;
	const char *value = NULL;

	/* The runtime reads the environment into a map, so the last assignment wins. */
	json_array_foreach (env, i, v) {
		const char *s = json_string_value(v);

		if (s && strncmp(s, CDI_VISIBLE_DEVICES_ENV, len) == 0 && s[len] == '=')
			value = s + len + 1;
	}
	return value;
}

int cdi_visible_devices(const json_t *oci, char ***ret_devices, size_t *ret_n,
			struct cdi_error *err)
{
	return cdi_visible_devices_parse(cdi_visible_devices_value(oci), ret_devices, ret_n, err);
}
