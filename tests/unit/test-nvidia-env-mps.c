/* SPDX-License-Identifier: Apache-2.0 */
/*
 * MPS: the host's pipe directory for containers given compute's libraries, as
 * libnvidia-container mounts its IPC paths (nvc_mount.c: compute or video, rw, nodev, nosuid,
 * noexec), applied to an OCI config with the library's own edits code.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include <cdi/registry.h>

#include "nvidia/driver_caps.h"
#include "nvidia/mps.h"
#include "../lib/testlib.h"

static char tmp[] = "/tmp/cdikit-mps.XXXXXX";

static void setup(void)
{
	cr_assert_not_null(mkdtemp(tmp));
	sh("mkdir -p '%s/tmp/nvidia-mps' '%s/run' && touch '%s/run/file' && ln -s /tmp/nvidia-mps '%s/run/link'",
	   tmp, tmp, tmp, tmp);
}

static void teardown(void)
{
	sh("rm -rf '%s'", tmp);
}

TestSuite(mps, .init = setup, .fini = teardown);

static json_t *edits_for(const char *dir, unsigned caps)
{
	struct cdi_error err = { 0 };
	json_t *edits = NULL;

	cr_assert_eq(mps_edits(tmp, dir, caps, &edits, &err), 0, "%s", cdi_error_message(&err));
	return edits;
}

static json_t *want_for(const char *dir)
{
	char host[PATH_MAX + 64], env[PATH_MAX];

	snprintf(host, sizeof(host), "%s%s", tmp, dir);
	snprintf(env, sizeof(env), "CUDA_MPS_PIPE_DIRECTORY=%s", dir);
	return json_pack("{s[{ss ss s[ssssss]}] s[s]}", "mounts", "hostPath", host, "containerPath",
			 dir, "options", "rw", "nosuid", "nodev", "noexec", "rbind", "rprivate",
			 "env", env);
}

Test(mps, compute_gets_the_pipe_directory)
{
	_cleanup_json_ json_t *want = want_for("/tmp/nvidia-mps");
	static const unsigned with[] = { DRIVER_CAP_COMPUTE, DRIVER_CAP_VIDEO, DRIVER_CAPS_DEFAULT,
					 DRIVER_CAPS_ALL };
	static const unsigned without[] = { 0, DRIVER_CAP_UTILITY, DRIVER_CAP_GRAPHICS,
					    DRIVER_CAP_DISPLAY | DRIVER_CAP_COMPAT32 };

	for (size_t i = 0; i < sizeof(with) / sizeof(with[0]); i++) {
		_cleanup_json_ json_t *got = edits_for(NULL, with[i]);

		assert_json_eq(got, want);
	}
	for (size_t i = 0; i < sizeof(without) / sizeof(without[0]); i++) {
		_cleanup_json_ json_t *got = edits_for("/tmp/nvidia-mps", without[i]);

		cr_assert_eq(json_object_size(got), 0, "caps %#x", without[i]);
	}
}

Test(mps, configured_directory)
{
	_cleanup_json_ json_t *missing = edits_for("/run/nvidia-mps", DRIVER_CAP_COMPUTE);
	_cleanup_json_ json_t *file = edits_for("/run/file", DRIVER_CAP_COMPUTE);
	_cleanup_json_ json_t *link = edits_for("/run/link", DRIVER_CAP_COMPUTE);
	_cleanup_json_ json_t *present = NULL, *want = want_for("/run/nvidia-mps");
	struct cdi_error err = { 0 };
	json_t *edits;

	cr_assert_eq(json_object_size(missing), 0);
	cr_assert_eq(json_object_size(file), 0);
	cr_assert_eq(json_object_size(link), 0);
	sh("mkdir '%s/run/nvidia-mps'", tmp);
	present = edits_for("/run/nvidia-mps", DRIVER_CAP_COMPUTE);
	assert_json_eq(present, want);
	cr_assert_eq(mps_edits(tmp, "run/nvidia-mps", DRIVER_CAP_COMPUTE, &edits, &err), -EINVAL);
	cr_assert_str_eq(cdi_error_message(&err),
			 "CUDA_MPS_PIPE_DIRECTORY: \"run/nvidia-mps\" is not an absolute path");
	cdi_error_reset(&err);
}

Test(mps, injected_into_a_config)
{
	_cleanup_json_ json_t *edits = edits_for(NULL, DRIVER_CAP_COMPUTE);
	_cleanup_json_ json_t *oci = load(
		"{'process': {'env': ['PATH=/bin', 'CUDA_MPS_PIPE_DIRECTORY=/elsewhere']}, 'mounts': [{'destination': '/proc', 'type': 'proc', 'source': 'proc'}]}");
	struct cdi_error err = { 0 };
	char host[PATH_MAX];
	json_t *want;

	cr_assert_eq(cdi_apply_edits(oci, edits, NULL, &err), 0, "%s", cdi_error_message(&err));
	snprintf(host, sizeof(host), "%s/tmp/nvidia-mps", tmp);
	/* the image's own CUDA_MPS_PIPE_DIRECTORY is replaced: the mount is where the spec says */
	want = json_pack("{s{s[ss]} s[{ssssss}{ssss s[ssssss]}]}", "process", "env", "PATH=/bin",
			 "CUDA_MPS_PIPE_DIRECTORY=/tmp/nvidia-mps", "mounts", "destination",
			 "/proc", "type", "proc", "source", "proc", "destination",
			 "/tmp/nvidia-mps", "source", host, "options", "rw", "nosuid", "nodev",
			 "noexec", "rbind", "rprivate");
	cr_assert_not_null(want);
	assert_json_eq(oci, want);
	json_decref(want);
}
