/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Which devices a config asks cdi-runtime for (apply/nvidia/device_requests.c), in
 * nvidia-container-runtime's order: cdi.k8s.io/ annotations, else NVIDIA_VISIBLE_DEVICES; and
 * the legacy nvidia-container-runtime-hook Docker adds for --gpus, removed whatever is asked.
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include <criterion/criterion.h>

#include "nvidia/device_requests.h"
#include "nvidia/visible_devices.h"
#include "../lib/testlib.h"

/* The runtime's defaults: no volume mounts, no swarm-resource, the variables trusted. */
static const struct env_request_options defaults = { .accept_env_unprivileged = true };

/* Take the requests; want: the expected names, NULL-terminated. */
static struct device_requests take(json_t *oci, enum device_request_source source, ...)
{
	struct container_env env = { 0 };
	struct device_requests r;
	struct cdi_error err = { 0 };
	const char *want;
	size_t i = 0;
	va_list ap;

	cr_assert_eq(container_env_read(oci, &env, &err), 0);
	cr_assert_eq(device_requests_take(oci, &env, &defaults, &r, &err), 0, "%s",
		     cdi_error_message(&err));
	container_env_done(&env);
	cr_assert_eq(r.source, source, "source %d, want %d", r.source, source);
	va_start(ap, source);
	while ((want = va_arg(ap, const char *))) {
		cr_assert_lt(i, r.n, "missing %s", want);
		cr_assert_str_eq(r.devices[i], want, "item %zu", i);
		i++;
	}
	va_end(ap);
	cr_assert_eq(r.n, i, "%zu devices, want %zu", r.n, i);
	cr_assert_null(r.devices ? r.devices[r.n] : NULL);
	return r;
}

static void assert_json_text(const json_t *got, const char *want_text)
{
	json_t *want = load(want_text);

	assert_json_eq(got, want);
	json_decref(want);
}

static void env_case(const char *value, enum device_request_source source, const char *first,
		     const char *second)
{
	char *text;
	json_t *oci;
	struct device_requests r;

	cr_assert(asprintf(&text,
			   "{'process': {'env': ['PATH=/bin', 'NVIDIA_VISIBLE_DEVICES=%s']}}",
			   value) > 0);
	oci = load(text);
	r = take(oci, source, first, second, NULL);
	device_requests_done(&r);
	json_decref(oci);
	free(text);
}

Test(requests, visible_devices_values)
{
	env_case("0,1", DEVICE_REQUEST_ENV, "nvidia.com/gpu=0", "nvidia.com/gpu=1");
	env_case("all", DEVICE_REQUEST_ENV, "nvidia.com/gpu=all", NULL);
	env_case("2:0", DEVICE_REQUEST_ENV, "nvidia.com/gpu=2:0", NULL);
	env_case(
		"GPU-54e67eb0-c6b5-d687-008a-2323a63630c7,MIG-e8055dbf-d998-89d6-179d-90049a49fa6b",
		DEVICE_REQUEST_ENV, "nvidia.com/gpu=GPU-54e67eb0-c6b5-d687-008a-2323a63630c7",
		"nvidia.com/gpu=MIG-e8055dbf-d998-89d6-179d-90049a49fa6b");
	/* A qualified name passes as it is (unqualified ones mean nvidia.com/gpu). */
	env_case("vendor.com/fpga=x,0", DEVICE_REQUEST_ENV, "vendor.com/fpga=x",
		 "nvidia.com/gpu=0");
	/* "none": the driver without a GPU, which the generator provides as a device. */
	env_case("none", DEVICE_REQUEST_ENV, "nvidia.com/gpu=none", NULL);
	env_case("void", DEVICE_REQUEST_NONE, NULL, NULL);
	env_case("", DEVICE_REQUEST_NONE, NULL, NULL);
}

Test(requests, unset_and_last_assignment)
{
	json_t *oci = load("{'process': {'env': ['PATH=/bin']}}");
	struct device_requests r = take(oci, DEVICE_REQUEST_NONE, NULL);

	device_requests_done(&r);
	json_decref(oci);
	oci = load("{}");
	r = take(oci, DEVICE_REQUEST_NONE, NULL);
	device_requests_done(&r);
	json_decref(oci);
	/* The runtime reads env into a map: the last assignment counts. */
	oci = load(
		"{'process': {'env': ['NVIDIA_VISIBLE_DEVICES=0', 'NVIDIA_VISIBLE_DEVICES=void']}}");
	r = take(oci, DEVICE_REQUEST_NONE, NULL);
	device_requests_done(&r);
	json_decref(oci);
}

Test(requests, annotations_win_over_the_environment)
{
	json_t *oci = load("{'annotations': {'cdi.k8s.io/b': 'vendor.com/x=1',"
			   "  'cdi.k8s.io/a': 'nvidia.com/gpu=3,nvidia.com/gpu=3', 'other': 'y'},"
			   " 'process': {'env': ['NVIDIA_VISIBLE_DEVICES=0']}}");
	/* Keys in byte order; repeats are dropped later, with the MIG expansion. */
	struct device_requests r = take(oci, DEVICE_REQUEST_ANNOTATIONS, "nvidia.com/gpu=3",
					"nvidia.com/gpu=3", "vendor.com/x=1", NULL);

	device_requests_done(&r);
	json_decref(oci);
	/* Annotations that name nothing leave the environment in charge. */
	oci = load(
		"{'annotations': {'foo': 'bar'}, 'process': {'env': ['NVIDIA_VISIBLE_DEVICES=1']}}");
	r = take(oci, DEVICE_REQUEST_ENV, "nvidia.com/gpu=1", NULL);
	device_requests_done(&r);
	json_decref(oci);
}

Test(requests, bad_annotation_is_an_error_and_changes_nothing)
{
	json_t *oci = load(
		"{'annotations': {'cdi.k8s.io/x': 'not-qualified'},"
		" 'hooks': {'prestart': [{'path': '/usr/bin/nvidia-container-runtime-hook'}]}}");
	json_t *before = json_deep_copy(oci);
	struct device_requests r;
	struct cdi_error err = { 0 };

	cr_assert_eq(device_requests_take(oci, &(struct container_env){ 0 }, &defaults, &r, &err),
		     -EINVAL);
	cr_assert_str_eq(cdi_error_message(&err), "invalid CDI device name \"not-qualified\"");
	assert_json_eq(oci, before);
	cdi_error_reset(&err);
	json_decref(oci);
	json_decref(before);
}

/* What dockerd 20.10 writes for --gpus (engines.md): the hook, the variable. */
Test(requests, docker_gpus_hook_removed)
{
	json_t *oci = load(
		"{'process': {'env': ['NVIDIA_VISIBLE_DEVICES=1',"
		"  'NVIDIA_DRIVER_CAPABILITIES=compute,utility']},"
		" 'hooks': {'prestart': [{'path': '/usr/libexec/cdikit/nvidia-container-runtime-hook',"
		"  'args': ['/usr/libexec/cdikit/nvidia-container-runtime-hook', 'prestart']}]}}");
	struct device_requests r = take(oci, DEVICE_REQUEST_ENV, "nvidia.com/gpu=1", NULL);

	cr_assert_eq(r.n_legacy_hooks, 1);
	assert_json_text(oci, "{'process': {'env': ['NVIDIA_VISIBLE_DEVICES=1',"
			      "  'NVIDIA_DRIVER_CAPABILITIES=compute,utility']}}");
	device_requests_done(&r);
	json_decref(oci);
}

/* Docker adds the hook even when --gpus selects nothing; it goes all the same. */
Test(requests, hook_removed_when_nothing_is_asked)
{
	json_t *oci = load("{'process': {'env': ['NVIDIA_VISIBLE_DEVICES=void']},"
			   " 'hooks': {'prestart': [{'path': 'nvidia-container-runtime-hook'}]}}");
	struct device_requests r = take(oci, DEVICE_REQUEST_NONE, NULL);

	cr_assert_eq(r.n_legacy_hooks, 1);
	cr_assert_null(json_object_get(oci, "hooks"));
	device_requests_done(&r);
	json_decref(oci);
}

Test(requests, only_legacy_hooks_go)
{
	json_t *oci =
		load("{'hooks': {'prestart': ["
		     "   {'path': '/usr/bin/nvidia-container-toolkit', 'args': ['x', 'prestart']},"
		     "   {'path': '/usr/bin/other-hook'},"
		     "   {'path': '/usr/bin/nvidia-container-runtime-hook'},"
		     "   {'path': '/usr/bin/nvidia-container-runtime-hook-not'},"
		     "   {'args': ['no path']}],"
		     "  'poststop': [{'path': '/usr/bin/nvidia-container-runtime-hook'}]}}");
	struct device_requests r = take(oci, DEVICE_REQUEST_NONE, NULL);

	cr_assert_eq(r.n_legacy_hooks, 2);
	/* Only prestart hooks are the legacy ones (isNVIDIAContainerRuntimeHook looks there). */
	assert_json_text(oci,
			 "{'hooks': {'prestart': ["
			 "   {'path': '/usr/bin/other-hook'},"
			 "   {'path': '/usr/bin/nvidia-container-runtime-hook-not'},"
			 "   {'args': ['no path']}],"
			 "  'poststop': [{'path': '/usr/bin/nvidia-container-runtime-hook'}]}}");
	device_requests_done(&r);
	json_decref(oci);
}

Test(requests, hooks_emptied_by_removal_go_others_stay)
{
	json_t *oci = load("{'hooks': {'prestart': [{'path': '/x/nvidia-container-runtime-hook'}],"
			   "  'poststart': [{'path': '/bin/true'}]}}");

	cr_assert_eq(legacy_hooks_remove(oci), 1);
	assert_json_text(oci, "{'hooks': {'poststart': [{'path': '/bin/true'}]}}");
	json_decref(oci);
	/* Lists that were already empty are not ours to remove. */
	oci = load("{'hooks': {'prestart': []}}");
	cr_assert_eq(legacy_hooks_remove(oci), 0);
	assert_json_text(oci, "{'hooks': {'prestart': []}}");
	json_decref(oci);
	oci = load("{'hooks': 'not an object'}");
	cr_assert_eq(legacy_hooks_remove(oci), 0);
	json_decref(oci);
}
