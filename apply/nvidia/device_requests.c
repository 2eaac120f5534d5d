/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Device requests of an OCI config, in nvidia-container-runtime's order (internal/modifier/
 * cdi.go): cdi.k8s.io/ annotations, else NVIDIA_VISIBLE_DEVICES. Its legacy hook
 * (isNVIDIAContainerRuntimeHook: the base name of a prestart hook's path) is removed in every
 * mode, so no hook runs at container start.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <cdi/annotations.h>

#include "device_requests.h"
#include "macro.h"
#include "problem.h"
#include "visible_devices.h"

static bool is_legacy_hook(const json_t *hook)
{
	const char *path = json_string_value(json_object_get(hook, "path")), *base;

	if (!path)
		return false;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	return strcmp(base, LEGACY_HOOK_NAME) == 0 || strcmp(base, LEGACY_HOOK_TOOLKIT_NAME) == 0;
}

size_t legacy_hooks_remove(json_t *oci)
{
	json_t *hooks = json_object_get(oci, "hooks");
	json_t *prestart = json_object_get(hooks, "prestart");
	size_t n = 0;

	if (!json_is_array(prestart))
		return 0;
	for (size_t i = 0; i < json_array_size(prestart);) {
		if (is_legacy_hook(json_array_get(prestart, i)) &&
		    json_array_remove(prestart, i) == 0)
			n++;
		else
			i++;
	}
	/* Leave no empty lists behind that the config did not have before. */
	if (n && json_array_size(prestart) == 0)
		json_object_del(hooks, "prestart");
	if (n && json_object_size(hooks) == 0)
		json_object_del(oci, "hooks");
	return n;
}

void device_requests_done(struct device_requests *r)
{
	if (!r)
		return;
	cdi_strv_free(r->devices);
	*r = (struct device_requests){ 0 };
}

static int none_request(struct device_requests *r)
{
	r->devices = calloc(2, sizeof(*r->devices));
	if (!r->devices || !(r->devices[0] = strdup(VISIBLE_DEVICES_NONE_DEVICE)))
		return -ENOMEM;
	r->n = 1;
	return 0;
}

int device_requests_take(json_t *oci, const char *env, struct device_requests *ret,
			 struct cdi_error *err)
{
	struct device_requests r = { 0 };
	int code;

	code = cdi_annotations_parse(json_object_get(oci, "annotations"), &r.devices, &r.n, err);
	if (code < 0)
		return code;
	if (r.n) {
		r.source = DEVICE_REQUEST_ANNOTATIONS;
	} else {
		cdi_strv_free(TAKE_PTR(r.devices));
		if (env && strcmp(env, "none") == 0)
			code = none_request(&r) < 0 ? cdi_fail(err, -ENOMEM, "out of memory") : 0;
		else
			code = cdi_visible_devices_parse(env, &r.devices, &r.n, err);
		if (code < 0) {
			device_requests_done(&r);
			return code;
		}
		r.source = r.n ? DEVICE_REQUEST_ENV : DEVICE_REQUEST_NONE;
		r.visible_devices = env;
	}
	r.n_legacy_hooks = legacy_hooks_remove(oci);
	*ret = r;
	return 0;
}
