/* SPDX-License-Identifier: Apache-2.0 */
/* Atomic file replacement: mode, content, temp file naming, cleanup on every error. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cdi/spec.h>

#include "problem.h"

/*
 * rename() is interposed (the executable's definition wins over libc's for
 * the static library too): it records the temp file's name and can fail on
 * demand, which root cannot otherwise provoke with permissions.
 */
static char renamed_from[PATH_MAX];
static int rename_fails_with;

int rename(const char *oldpath, const char *newpath)
{
	snprintf(renamed_from, sizeof(renamed_from), "%s", oldpath);
	if (rename_fails_with) {
		errno = rename_fails_with;
		return -1;
	}
	return renameat(AT_FDCWD, oldpath, AT_FDCWD, newpath);
}

static char tmpdir[] = "/tmp/cdikit-atomic-XXXXXX";

static void setup(void)
{
	cr_assert_not_null(mkdtemp(tmpdir));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	cr_expect_eq(system(cmd), 0);
}

/* Names in dir, sorted and joined by spaces ("" when empty). */
static void list_dir(const char *dir, char *out, size_t size)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);
	size_t o = 0;

	cr_assert_geq(n, 0);
	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (strcmp(names[i]->d_name, ".") != 0 && strcmp(names[i]->d_name, "..") != 0)
			o += (size_t)snprintf(out + o, size - o, "%s%s", o ? " " : "",
					      names[i]->d_name);
		free(names[i]);
	}
	free(names);
}

static void expect_content(const char *path, const char *want)
{
	char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	cr_expect_str_eq(buf, want);
}

TestSuite(atomic, .init = setup, .fini = teardown);

Test(atomic, mode_content_no_leftovers)
{
	char path[PATH_MAX], names[1024];
	struct cdi_error err = { 0 };
	struct stat st;

	umask(077); /* fchmod, not the umask, decides */
	snprintf(path, sizeof(path), "%s/nvidia.yaml", tmpdir);
	cr_assert_eq(cdi_write_file_atomic(path, "a: 1\n", 5, 0644, &err), 0, "%s",
		     cdi_error_message(&err));
	cr_assert_eq(stat(path, &st), 0);
	cr_expect_eq(st.st_mode & 07777, 0644, "mode %o", st.st_mode & 07777);
	expect_content(path, "a: 1\n");
	list_dir(tmpdir, names, sizeof(names));
	cr_expect_str_eq(names, "nvidia.yaml");
}

Test(atomic, replaces_existing_file)
{
	char path[PATH_MAX], names[1024];
	struct cdi_error err = { 0 };
	struct stat before, after;

	snprintf(path, sizeof(path), "%s/spec.json", tmpdir);
	cr_assert_eq(cdi_write_file_atomic(path, "old", 3, 0644, &err), 0);
	cr_assert_eq(stat(path, &before), 0);
	cr_assert_eq(cdi_write_file_atomic(path, "new content", 11, 0600, &err), 0);
	cr_assert_eq(stat(path, &after), 0);
	/* A new inode: readers holding the old file keep reading the old content. */
	cr_expect_neq(before.st_ino, after.st_ino);
	cr_expect_eq(after.st_mode & 07777, 0600);
	expect_content(path, "new content");
	cr_assert_eq(cdi_write_file_atomic(path, "", 0, 0644, &err), 0);
	expect_content(path, "");
	list_dir(tmpdir, names, sizeof(names));
	cr_expect_str_eq(names, "spec.json");
}

Test(atomic, temp_file_name)
{
	char path[PATH_MAX], dir[PATH_MAX];
	struct cdi_error err = { 0 };
	const char *base;
	size_t len;

	snprintf(path, sizeof(path), "%s/vendor-class.yaml", tmpdir);
	cr_assert_eq(cdi_write_file_atomic(path, "x", 1, 0644, &err), 0);
	/* In the target directory, hidden, and ending neither in .yaml nor .json. */
	base = strrchr(renamed_from, '/');
	cr_assert_not_null(base);
	snprintf(dir, sizeof(dir), "%.*s", (int)(base - renamed_from), renamed_from);
	cr_expect_str_eq(dir, tmpdir);
	base++;
	len = strlen(base);
	cr_expect_eq(len, strlen(".vendor-class.yaml.XXXXXX.tmp"), "%s", base);
	cr_expect(strncmp(base, ".vendor-class.yaml.", 19) == 0, "%s", base);
	cr_expect_str_eq(base + len - 4, ".tmp");
	cr_expect_neq(strcmp(base + 19, "XXXXXX.tmp"), 0, "%s", base);
}

Test(atomic, relative_path)
{
	struct cdi_error err = { 0 };
	char names[1024];

	cr_assert_eq(chdir(tmpdir), 0);
	cr_assert_eq(cdi_write_file_atomic("rel.json", "{}", 2, 0644, &err), 0, "%s",
		     cdi_error_message(&err));
	cr_expect_str_eq(renamed_from + strlen(renamed_from) - 4, ".tmp");
	cr_expect_eq(strncmp(renamed_from, "./.rel.json.", 12), 0, "%s", renamed_from);
	list_dir(".", names, sizeof(names));
	cr_expect_str_eq(names, "rel.json");
}

Test(atomic, rename_failure_removes_temp)
{
	char path[PATH_MAX], names[1024], want[PATH_MAX + 64];
	struct cdi_error err = { 0 };

	snprintf(path, sizeof(path), "%s/x.yaml", tmpdir);
	rename_fails_with = EIO;
	cr_assert_eq(cdi_write_file_atomic(path, "x", 1, 0644, &err), -EIO);
	rename_fails_with = 0;
	snprintf(want, sizeof(want), "%s: cannot rename ", path);
	cr_expect_eq(strncmp(cdi_error_message(&err), want, strlen(want)), 0, "%s",
		     cdi_error_message(&err));
	cr_expect(strstr(cdi_error_message(&err), "Input/output error"));
	list_dir(tmpdir, names, sizeof(names));
	cr_expect_str_eq(names, "", "left behind: %s", names);
	cdi_error_reset(&err);
}

Test(atomic, target_is_a_directory)
{
	char path[PATH_MAX], inner[PATH_MAX + 8], names[1024];
	struct cdi_error err = { 0 };

	snprintf(path, sizeof(path), "%s/d.yaml", tmpdir);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(inner, sizeof(inner), "%s/f", path);
	cr_assert_eq(cdi_write_file_atomic(inner, "x", 1, 0644, &err), 0);
	cr_expect_eq(cdi_write_file_atomic(path, "x", 1, 0644, &err), -EISDIR, "%s",
		     cdi_error_message(&err));
	list_dir(tmpdir, names, sizeof(names));
	cr_expect_str_eq(names, "d.yaml", "left behind: %s", names);
	cdi_error_reset(&err);
}

Test(atomic, write_failure_removes_temp)
{
	char path[PATH_MAX], names[1024], big[8192];
	struct cdi_error err = { 0 };
	struct rlimit old, small = { .rlim_cur = 100, .rlim_max = RLIM_INFINITY };

	/* A file size limit makes write() fail half-way, as a full disk would. */
	signal(SIGXFSZ, SIG_IGN);
	memset(big, 'x', sizeof(big));
	snprintf(path, sizeof(path), "%s/big.yaml", tmpdir);
	cr_assert_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
	small.rlim_max = old.rlim_max;
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &small), 0);
	cr_expect_eq(cdi_write_file_atomic(path, big, sizeof(big), 0644, &err), -EFBIG);
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &old), 0);
	cr_expect(strstr(cdi_error_message(&err), ": cannot write "), "%s",
		  cdi_error_message(&err));
	list_dir(tmpdir, names, sizeof(names));
	cr_expect_str_eq(names, "", "left behind: %s", names);
	cdi_error_reset(&err);
}

Test(atomic, bad_paths)
{
	char path[PATH_MAX];
	struct cdi_error err = { 0 };

	snprintf(path, sizeof(path), "%s/missing/x.yaml", tmpdir);
	cr_expect_eq(cdi_write_file_atomic(path, "x", 1, 0644, &err), -ENOENT);
	cr_expect(strncmp(cdi_error_message(&err), path, strlen(path)) == 0, "%s",
		  cdi_error_message(&err));
	cdi_error_reset(&err);

	snprintf(path, sizeof(path), "%s/", tmpdir);
	cr_expect_eq(cdi_write_file_atomic(path, "x", 1, 0644, &err), -EINVAL);
	cdi_error_reset(&err);
	cr_expect_eq(cdi_write_file_atomic("", "x", 1, 0644, &err), -EINVAL);
	cdi_error_reset(&err);
	/* procfs takes no new files. */
	cr_expect_lt(cdi_write_file_atomic("/proc/cdikit-test.yaml", "x", 1, 0644, &err), 0);
	cdi_error_reset(&err);
}
