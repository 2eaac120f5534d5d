/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The container's EGL application profile: the mask of its GPUs, in the text the generator's
 * per-GPU files have (the same bytes for one GPU), written into the bundle for the mount.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/app_profile.h"
#include "../lib/testlib.h"

static struct scratch dir;

static void setup(void)
{
	scratch_make(&dir, "app-profile");
}

static void teardown(void)
{
	scratch_remove(&dir);
}

TestSuite(app_profile, .init = setup, .fini = teardown);

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n;

	cr_assert(f, "cannot open %s", path);
	n = getdelim(&buf, &cap, '\0', f);
	fclose(f);
	cr_assert(n > 0, "%s is empty", path);
	return buf;
}

Test(app_profile, mask_counts_only_gpu_nodes)
{
	json_t *oci = load("{'linux': {'devices': ["
			   "{'path': '/dev/nvidia0', 'type': 'c', 'major': 195, 'minor': 0},"
			   "{'path': '/dev/nvidia5', 'type': 'c', 'major': 195, 'minor': 5},"
			   "{'path': '/dev/nvidia63', 'type': 'c'},"
			   "{'path': '/dev/nvidiactl', 'type': 'c', 'major': 195, 'minor': 255},"
			   "{'path': '/dev/nvidia-uvm', 'type': 'c', 'major': 508, 'minor': 0},"
			   "{'path': '/dev/nvidia64', 'type': 'c', 'major': 195},"
			   "{'path': '/dev/nvidia7', 'type': 'c', 'major': 10},"
			   "{'path': '/dev/nvidia3x', 'type': 'c', 'major': 195}]}}");

	cr_assert_eq(app_profile_gpu_mask(oci), (1ull << 0) | (1ull << 5) | (1ull << 63));
	json_decref(oci);
}

/* One GPU: byte for byte the file the generator installs for that minor (mk/app_profiles.mk). */
Test(app_profile, one_gpu_is_the_generators_file)
{
	const char *b = getenv("B") ? getenv("B") : "build";
	char text[APP_PROFILE_MAX], path[512];

	for (unsigned minor = 0; minor < 64; minor += 7) {
		_cleanup_free_ char *want = NULL;

		snprintf(path, sizeof(path), "%s/share/cdikit/application-profiles/gpu%u.conf", b,
			 minor);
		want = slurp(path);
		cr_assert_gt(app_profile_format(1ull << minor, text), 0);
		cr_expect_str_eq(text, want, "minor %u", minor);
	}
}

Test(app_profile, bundle_gets_the_mask_of_all_gpus)
{
	_cleanup_free_ char *file = NULL, *got = NULL;
	struct cdi_error err = CDI_ERROR_INIT;
	json_t *oci =
		load("{'mounts': ["
		     "{'destination': '" APP_PROFILE_CONTAINER_PATH "', 'source': '/p/gpu0.conf'},"
		     "{'destination': '" APP_PROFILE_CONTAINER_PATH "', 'source': '/p/gpu2.conf'}],"
		     "'linux': {'devices': ["
		     "{'path': '/dev/nvidia0', 'type': 'c', 'major': 195, 'minor': 0},"
		     "{'path': '/dev/nvidia2', 'type': 'c', 'major': 195, 'minor': 2}]}}");
	const json_t *last = json_array_get(json_object_get(oci, "mounts"), 1);

	cr_assert_eq(bundle_app_profile(oci, dir.path, &err), 0, "%s", cdi_error_message(&err));
	if (asprintf(&file, "%s/%s", dir.path, APP_PROFILE_BUNDLE_NAME) < 0)
		cr_assert_fail("asprintf");
	cr_expect_str_eq(json_string_value(json_object_get(last, "source")), file);
	got = slurp(file);
	cr_expect(strstr(got, "[\"EGLVisibleDGPUDevices\",0x5]"), "%s", got);
	json_decref(oci);
}

Test(app_profile, nothing_to_do_leaves_all_as_it_was)
{
	struct cdi_error err = CDI_ERROR_INIT;
	json_t *no_mount = load("{'linux': {'devices': [{'path': '/dev/nvidia0', 'type': 'c'}]}}");
	json_t *no_gpu = load("{'mounts': [{'destination': '" APP_PROFILE_CONTAINER_PATH
			      "', 'source': '/p/gpu0.conf'}]}");
	json_t *want_no_gpu = json_deep_copy(no_gpu);

	cr_assert_eq(bundle_app_profile(no_mount, dir.path, &err), 0);
	cr_assert_eq(bundle_app_profile(no_gpu, dir.path, &err), 0);
	assert_json_eq(no_gpu, want_no_gpu);
	sh("test ! -e %s/%s", dir.path, APP_PROFILE_BUNDLE_NAME);
	json_decref(no_mount);
	json_decref(no_gpu);
	json_decref(want_no_gpu);
}
