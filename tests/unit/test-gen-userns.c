/* SPDX-License-Identifier: Apache-2.0 */
/* User namespace maps as libnvidia-container's init_within_userns() judges them, in files
 * laid out here and as the kernel writes them. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include "boot/userns.h"
#include "../lib/testlib.h"

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

static char proc[] = "/tmp/cdikit-userns-XXXXXX";

/* A /proc with self/uid_map and self/gid_map of the given contents (NULL: no such file). */
static void fake_proc(const char *uid_map, const char *gid_map)
{
	char path[256];
	FILE *f;

	strcpy(proc, "/tmp/cdikit-userns-XXXXXX");
	cr_assert(mkdtemp(proc));
	snprintf(path, sizeof(path), "%s/self", proc);
	cr_assert_eq(mkdir(path, 0755), 0);
	for (int i = 0; i < 2; i++) {
		const char *text = i ? gid_map : uid_map;

		if (!text)
			continue;
		snprintf(path, sizeof(path), "%s/self/%s", proc, i ? "gid_map" : "uid_map");
		f = fopen(path, "w");
		cr_assert(f);
		fputs(text, f);
		cr_assert_eq(fclose(f), 0);
	}
}

static int detect(const char *uid_map, const char *gid_map, bool *in, struct cdi_error *e)
{
	int r;

	fake_proc(uid_map, gid_map);
	r = userns_detect(proc, in, e);
	sh("rm -rf %s", proc);
	return r;
}

Test(userns, detect)
{
	static const char host[] = "         0          0 4294967295\n";
	struct cdi_error e = { 0 };
	bool in = true;

	cr_assert_eq(detect(host, host, &in, &e), 0);
	cr_assert(!in);
	cr_assert_eq(detect("0 1000 1\n", host, &in, &e), 0);
	cr_assert(in);
	cr_assert_eq(detect(host, "0 1000 1\n", &in, &e), 0);
	cr_assert(in, "the gid map counts too");
	cr_assert_eq(detect("", "", &in, &e), 0);
	cr_assert(in, "a namespace whose map is not written yet");
	/* A kernel without user namespaces has no map files: the host's namespace. */
	cr_assert_eq(detect(NULL, NULL, &in, &e), 0);
	cr_assert(!in);
	cr_assert_eq(detect("zero\n", host, &in, &e), -EINVAL);
	cr_assert(strstr(cdi_error_message(&e),
			 "/self/uid_map:1: not \"<inside> <outside> <count>\""),
		  "%s", cdi_error_message(&e));
	cdi_error_reset(&e);
}

/* This process (CI: root on the host), and the maps the kernel writes for a new namespace,
 * read by unshare(1) inside one. */
Test(userns, live)
{
	static const char *const cmds[] = { "unshare -U cat /proc/self/uid_map",
					    "unshare -r cat /proc/self/uid_map" };
	struct cdi_error e = { 0 };
	bool in = true;

	cr_assert_eq(userns_detect("/proc", &in, &e), 0, "%s", cdi_error_message(&e));
	if (in)
		cr_skip_test("the suite itself runs in a user namespace");
	for (size_t i = 0; i < 2; i++) {
		char buf[256];
		size_t n;
		FILE *p = popen(cmds[i], "r");
		bool initial = true;

		cr_assert(p);
		n = fread(buf, 1, sizeof(buf), p);
		if (pclose(p) != 0)
			cr_skip_test("unshare -U is not allowed here");
		cr_assert_eq(userns_parse_map(buf, n, &initial), 0, "%.*s", (int)n, buf);
		cr_assert(!initial, "%s: %.*s", cmds[i], (int)n, buf);
	}
}
