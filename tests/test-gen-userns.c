/* SPDX-License-Identifier: Apache-2.0 */
/* User namespace maps as libnvidia-container's init_within_userns() judges them, and the live
 * process inside and outside a new user namespace. */
#include <criterion/criterion.h>
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../generate/userns.h"

static bool map_initial(const char *buf)
{
	bool initial = true;

	cr_assert_eq(userns_parse_map(buf, strlen(buf), &initial), 0, "%s", buf);
	return initial;
}

Test(userns, maps)
{
	cr_assert(map_initial("         0          0 4294967295\n"));
	cr_assert(!map_initial("         0       1000          1\n"));
	cr_assert(!map_initial("0 100000 65536\n"));
	cr_assert(!map_initial("0 0 4294967294\n"));
	cr_assert(!map_initial("")); /* a namespace whose map is not written yet */
	bool x;
	cr_assert_eq(userns_parse_map("0 0\n", 4, &x), -EINVAL);
	cr_assert_eq(userns_parse_map("a b c\n", 6, &x), -EINVAL);
	cr_assert_eq(userns_parse_map("0 0 1 2\n", 8, &x), -EINVAL);
}

/* This process: as the suite runs (CI: root on the host), then in a new user namespace. */
Test(userns, detect_live)
{
	struct cdi_error e = { 0 };
	bool in = true;
	int status;
	pid_t pid;

	cr_assert_eq(userns_detect("/proc", &in, &e), 0, "%s", cdi_error_message(&e));
	if (in)
		cr_skip_test("the suite itself runs in a user namespace");
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		bool child_in = false;

		if (unshare(CLONE_NEWUSER) < 0)
			_exit(77);
		_exit(userns_detect("/proc", &child_in, NULL) == 0 && child_in ? 0 : 1);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		cr_skip_test("unshare(CLONE_NEWUSER) is not allowed here");
	cr_assert_eq(WEXITSTATUS(status), 0, "a new user namespace was not detected");
}
