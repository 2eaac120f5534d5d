/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Device requests of an OCI config, in nvidia-container-runtime's order (internal/config/image/
 * cuda_image.go VisibleDevices): cdi.k8s.io/ annotations, else what env_requests.h reads (volume
 * mounts, swarm-resource variables, NVIDIA_VISIBLE_DEVICES, and the IMEX channels and gated
 * modes beside a GPU list). Its legacy hook
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
#include "strv.h"

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
	env_requests_done(&r->env);
	*r = (struct device_requests){ 0 };
}

/* The devices beside the GPUs, then the GPUs: env_inject() takes exact names first. */
static int env_devices(struct device_requests *r)
{
	struct strv_set names = { 0 };

	for (size_t i = 0; i < r->env.modes.n; i++)
		if (strv_set_add(&names, r->env.modes.v[i].name) < 0)
			goto oom;
	r->n_named = names.b.n;
	for (size_t i = 0; i < r->env.n_gpus; i++)
		if (strv_set_add(&names, r->env.gpus[i]) < 0)
			goto oom;
	r->devices = strv_set_steal(&names, &r->n);
	if (r->devices)
		return 0;
oom:
	strv_set_clear(&names);
	return -ENOMEM;
}

int device_requests_take(json_t *oci, const struct container_env *env,
			 const struct env_request_options *opts, struct device_requests *ret,
			 struct cdi_error *err)
{
	struct device_requests r = { 0 };
	int code;

	code = cdi_annotations_parse(json_object_get(oci, "annotations"), &r.devices, &r.n, err);
	if (code < 0)
		return code;
	if (r.n) {
		r.source = DEVICE_REQUEST_ANNOTATIONS;
		r.n_named = r.n;
	} else {
		cdi_strv_free(TAKE_PTR(r.devices));
		code = env_requests_read(oci, env, opts, &r.env, err);
		if (code == 0 && env_devices(&r) < 0)
			code = cdi_fail(err, -ENOMEM, "out of memory");
		if (code < 0) {
			device_requests_done(&r);
			return code;
		}
		r.source = r.n ? DEVICE_REQUEST_ENV : DEVICE_REQUEST_NONE;
	}
	r.n_legacy_hooks = legacy_hooks_remove(oci);
	*ret = r;
	return 0;
}
