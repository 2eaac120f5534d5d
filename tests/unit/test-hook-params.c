/* SPDX-License-Identifier: Apache-2.0 */
/*
 * disable-device-node-modification: the params text as NVIDIA's hook rewrites it, and the
 * mount that shows it to the container, made in a mount namespace of the test's own.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hook/hook_params.h"
#include "macro.h"
#include "../lib/testlib.h"

static const char params[] = "ResmanDebugLevel: 4294967295\n"
			     "ModifyDeviceFiles: 1\n"
			     "DeviceFileUID: 0\n"
			     "EnableGpuFirmware: 18";

Test(hook_params, rewrite)
{
	_cleanup_free_ char *out = NULL;
	char *none = NULL;
	size_t len = 0;

	cr_assert_eq(params_disable_modification(params, strlen(params), &out, &len), 1);
	cr_assert_str_eq(out, "ResmanDebugLevel: 4294967295\nModifyDeviceFiles: 0\n"
			      "DeviceFileUID: 0\nEnableGpuFirmware: 18\n");
	cr_assert_eq(len, strlen(out));
	cr_assert_eq(params_disable_modification("ModifyDeviceFiles: 0\n", 21, &none, &len), 0);
	cr_assert_eq(params_disable_modification("DeviceFileUID: 0\n", 17, &none, &len), 0);
	cr_assert_eq(params_disable_modification("ModifyDeviceFiles: 1\r\n", 22, &none, &len), 1,
		     "a CR before the newline is dropped, as bufio.Scanner does");
	cr_assert_str_eq(none, "ModifyDeviceFiles: 0\n");
	free(none);
	cr_assert_eq(params_disable_modification("ModifyDeviceFiles: 2\n", 21, &none, &len), 0);
}

Test(hook_params, mounted_over_the_containers_file)
{
	struct scratch tmp;
	int status = -1;
	pid_t pid;

	if (geteuid() != 0)
		cr_skip_test("needs root (mounts)");
	scratch_make(&tmp, "hook-params");
	sh("mkdir -p '%s/root/proc/driver/nvidia' && printf '%%s' '%s' > '%s/root/proc/driver/nvidia/params'",
	   tmp.path, params, tmp.path);
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		char p[160], buf[256] = "";
		_cleanup_free_ char *text = NULL;
		struct cdi_error err = { 0 };
		size_t len = 0;
		FILE *f;
		int fd;

		if (unshare(CLONE_NEWNS) < 0 ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
			_exit(2);
		snprintf(p, sizeof(p), "%s/root", tmp.path);
		fd = open(p, O_RDONLY | O_DIRECTORY);
		if (params_disable_modification(params, strlen(params), &text, &len) != 1 ||
		    hook_params_mount(fd, text, len, &err) < 0) {
			fprintf(stderr, "%s\n", cdi_error_message(&err));
			_exit(3);
		}
		snprintf(p, sizeof(p), "%s/root/proc/driver/nvidia/params", tmp.path);
		f = fopen(p, "r");
		if (!f || fread(buf, 1, sizeof(buf) - 1, f) == 0 ||
		    !strstr(buf, "ModifyDeviceFiles: 0"))
			_exit(4);
		fclose(f);
		/* read-only, and the scratch tmpfs where NVIDIA's hook puts it */
		if (open(p, O_WRONLY) >= 0 || errno != EROFS)
			_exit(5);
		snprintf(p, sizeof(p), "%s/root" PARAMS_SCRATCH_DIR, tmp.path);
		_exit(access(p, F_OK) == 0 ? 0 : 6);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
	/* outside that namespace the file is untouched */
	sh("grep -q 'ModifyDeviceFiles: 1' '%s/root/proc/driver/nvidia/params'", tmp.path);
	scratch_remove(&tmp);
}
