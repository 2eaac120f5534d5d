/* SPDX-License-Identifier: Apache-2.0 */
/*
 * update-application-profile: the mask of the container's /dev/nvidia<minor> nodes as NVIDIA's
 * v1.20 hook computes it, and the file it writes, byte for byte.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bundle/app_profile.h"
#include "hook/hook_profile.h"
#include "macro.h"
#include "../lib/testlib.h"

static struct scratch tmp;
static char root[96];

static void setup(void)
{
	scratch_make(&tmp, "hook-prof");
	snprintf(root, sizeof(root), "%s/root", tmp.path);
	sh("mkdir -p '%s/dev' '%s/etc'", root, root);
}

static void teardown(void)
{
	scratch_remove(&tmp);
}

TestSuite(hook_profile, .init = setup, .fini = teardown, .timeout = 30);

static int run(struct cdi_error *err)
{
	struct cdi_error warnings = { 0 };
	_cleanup_close_ int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r;

	cr_assert(fd >= 0);
	r = hook_update_application_profile(fd, &warnings, err);
	cdi_error_reset(&warnings);
	return r;
}

Test(hook_profile, gpus_of_the_container)
{
	struct cdi_error err = { 0 };

	if (geteuid() != 0)
		cr_skip_test("needs root (device nodes)");
	/* GPUs 0 and 15, and what is not a GPU: control nodes, a link, a file, a minor >= 64 */
	sh("set -e; cd '%s/dev'; mknod nvidia0 c 195 0; mknod nvidia15 c 195 15; "
	   "mknod nvidiactl c 195 255; mknod nvidia-uvm c 508 0; mknod nvidia70 c 195 70; "
	   "ln -s nvidia0 nvidia3; touch nvidia4; mkdir nvidia-caps",
	   root);
	cr_assert_eq(run(&err), 0, "%s", cdi_error_message(&err));
	sh("printf '%%s' '{\"profiles\":[{\"name\":\"_container_\",\"settings\":[\"EGLVisibleDGPUDevices\",0x8001]}],"
	   "\"rules\":[{\"pattern\":[],\"profile\":\"_container_\"}]}' | cmp - '%s%s'",
	   root, APP_PROFILE_CONTAINER_PATH);
	sh("test \"$(stat -c %%a '%s%s')\" = 444", root, APP_PROFILE_CONTAINER_PATH);
	sh("test \"$(stat -c %%a '%s/etc/nvidia')\" = 555", root);
}

Test(hook_profile, no_gpu_no_file)
{
	struct cdi_error err = { 0 };

	cr_assert_eq(run(&err), 0);
	sh("test ! -e '%s/etc/nvidia'", root);
	sh("rm -rf '%s/dev'", root);
	cr_assert_eq(run(&err), 0, "no /dev at all");
}
