/* SPDX-License-Identifier: Apache-2.0 */
/* chmod: the mode NVIDIA's hook accepts, and paths changed inside the rootfs only. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hook/hook_chmod.h"
#include "macro.h"
#include "../lib/testlib.h"

Test(hook_chmod, modes)
{
	struct cdi_error err = { 0 };
	mode_t m = 0;

	cr_assert_eq(chmod_mode_parse("755", &m, &err), 0);
	cr_assert_eq(m, 0755);
	cr_assert_lt(chmod_mode_parse("", &m, &err), 0);
	cr_assert(strstr(cdi_error_message(&err), "non-empty mode"));
	cdi_error_reset(&err);
	cr_assert_lt(chmod_mode_parse("9", &m, &err), 0);
	cr_assert(strstr(cdi_error_message(&err), "octal"));
	cdi_error_reset(&err);
}

Test(hook_chmod, inside_the_root)
{
	struct scratch tmp;
	struct cdi_error err = { 0 };
	char root[96];
	static const char *const paths[] = { "/dev/dri", "/dev/nvidia-caps", "/missing",
					     "/dev/out" };
	int fd;

	scratch_make(&tmp, "hook-chmod");
	snprintf(root, sizeof(root), "%s/root", tmp.path);
	sh("set -e; mkdir -p '%s/dev/dri' '%s/dev/nvidia-caps' '%s/outside'; chmod 700 '%s/dev/dri' "
	   "'%s/outside' '%s/dev/nvidia-caps'; ln -s '%s/outside' '%s/dev/out'",
	   root, root, tmp.path, root, tmp.path, root, tmp.path, root);
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_eq(hook_chmod(fd, 0755, (char *const *)paths, 4, &err), 0, "%s",
		     cdi_error_message(&err));
	close(fd);
	sh("test \"$(stat -c %%a '%s/dev/dri') $(stat -c %%a '%s/dev/nvidia-caps')\" = '755 755'",
	   root, root);
	sh("test \"$(stat -c %%a '%s/outside')\" = 700", tmp.path);
	scratch_remove(&tmp);
}
