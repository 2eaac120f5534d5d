/* SPDX-License-Identifier: Apache-2.0 */
/*
 * update-ldcache runs as root in the host's view of the image: whatever the image holds (links
 * out of its root for the cache, a library, a directory, the drop-in directory; a FIFO or a
 * device where a file should be; a soname that is a path; an include loop; a read-only
 * filesystem), nothing outside the rootfs is read or written, nothing hangs, and a file that
 * cannot be written fails the hook with its name and leaves the rootfs as it was.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hook/hook_ldcache.h"
#include "macro.h"
#include "../lib/ldtree.h"
#include "../lib/testlib.h"

static struct scratch tmp;
static char root[96], outside[96];

static void setup(void)
{
	scratch_make(&tmp, "hook-ldh");
	snprintf(root, sizeof(root), "%s/root", tmp.path);
	snprintf(outside, sizeof(outside), "%s/outside", tmp.path);
	sh("set -e; mkdir -p '%s/usr/lib/x86_64-linux-gnu' '%s/etc/ld.so.conf.d' '%s/lib'; "
	   "echo /usr/lib/x86_64-linux-gnu > '%s/etc/ld.so.conf.d/multiarch.conf'; "
	   "echo 'include /etc/ld.so.conf.d/*.conf' > '%s/etc/ld.so.conf'",
	   root, root, outside, root, root);
	ldtree_lib(root, "usr/lib/x86_64-linux-gnu/libz.so.1.2.13", "libz.so.1", 64, true, NULL);
	/* What must never show in the container: a library outside the rootfs. */
	ldtree_lib(outside, "lib/libsecret.so.1", "libsecret.so.1", 64, true, NULL);
	sh("echo secret > '%s/file'", outside);
}

static void teardown(void)
{
	ldtree_cleanup();
	scratch_remove(&tmp);
}

TestSuite(hook_ldcache_hostile, .init = setup, .fini = teardown, .timeout = 60);

static int run(struct cdi_error *err)
{
	static const char *const folders[] = { "/usr/local/nvidia/lib64" };
	struct hook_ldcache o = { .folders = (char *const *)folders, .n_folders = 1 };
	struct cdi_error warnings = { 0 };
	_cleanup_close_ int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r;

	cr_assert(fd >= 0);
	r = hook_update_ldcache(fd, &o, &warnings, err);
	cdi_error_reset(&warnings);
	return r;
}

/* The hook succeeds, the cache has the image's library and nothing from outside, and the
 * outside is as it was. */
static void expect_clean_run(void)
{
	struct cdi_error err = { 0 };

	cr_assert_eq(run(&err), 0, "%s", cdi_error_message(&err));
	sh("ldconfig -p -C '%s/etc/ld.so.cache' | grep -q libz.so.1", root);
	sh("! ldconfig -p -C '%s/etc/ld.so.cache' | grep -q secret", root);
	sh("test \"$(cat '%s/file')\" = secret && test -z \"$(find '%s' -newer '%s/file' ! -path '%s')\"",
	   outside, outside, outside, outside);
}

Test(hook_ldcache_hostile, cache_is_a_fifo)
{
	struct stat st;
	char *p;

	cr_assert(asprintf(&p, "%s/etc/ld.so.cache", root) >= 0);
	sh("mkfifo '%s'", p);
	expect_clean_run();
	cr_assert(lstat(p, &st) == 0 && S_ISREG(st.st_mode), "the FIFO is replaced");
	free(p);
}

Test(hook_ldcache_hostile, cache_links_to_a_host_file)
{
	struct stat st;
	char *p;

	cr_assert(asprintf(&p, "%s/etc/ld.so.cache", root) >= 0);
	sh("ln -s '%s/file' '%s'", outside, p);
	expect_clean_run();
	cr_assert(lstat(p, &st) == 0 && S_ISREG(st.st_mode), "the link is replaced, not followed");
	free(p);
}

Test(hook_ldcache_hostile, cache_links_to_shadow)
{
	struct stat before, after;

	cr_assert_eq(stat("/etc/shadow", &before), 0);
	sh("ln -s /etc/shadow '%s/etc/ld.so.cache'", root);
	expect_clean_run();
	cr_assert_eq(stat("/etc/shadow", &after), 0);
	cr_assert(before.st_mtime == after.st_mtime && before.st_ino == after.st_ino &&
		  before.st_size == after.st_size);
}

Test(hook_ldcache_hostile, library_link_out_of_the_root)
{
	sh("ln -s ../../../../../../../../../..'%s/lib/libsecret.so.1' "
	   "'%s/usr/lib/x86_64-linux-gnu/libsecret.so.1'",
	   outside, root);
	sh("ln -s '%s/lib/libsecret.so.1' '%s/usr/lib/x86_64-linux-gnu/libsecret2.so.1'", outside,
	   root);
	expect_clean_run();
	/* dangling inside the rootfs, so removed as ldconfig removes stale links */
	sh("test ! -L '%s/usr/lib/x86_64-linux-gnu/libsecret.so.1'", root);
}

Test(hook_ldcache_hostile, directory_link_out_of_the_root)
{
	sh("ln -s '%s/lib' '%s/opt-evil' && echo /opt-evil > '%s/etc/ld.so.conf.d/evil.conf'",
	   outside, root, root);
	sh("ln -s ../../../../../../../../..'%s/lib' '%s/opt-evil2' && "
	   "echo /opt-evil2 >> '%s/etc/ld.so.conf.d/evil.conf'",
	   outside, root, root);
	expect_clean_run();
}

Test(hook_ldcache_hostile, drop_in_directory_links_out)
{
	struct cdi_error err = { 0 };

	sh("rm -rf '%s/etc/ld.so.conf.d' && mkdir '%s/confd' && ln -s '%s/confd' '%s/etc/ld.so.conf.d'",
	   root, outside, outside, root);
	cr_assert_lt(run(&err), 0, "a drop-in directory that leads nowhere in the rootfs");
	cr_assert(strstr(cdi_error_message(&err), "/etc/ld.so.conf.d"), "%s",
		  cdi_error_message(&err));
	sh("test -z \"$(ls -A '%s/confd')\"", outside);
	cdi_error_reset(&err);
}

Test(hook_ldcache_hostile, soname_is_a_path)
{
	ldtree_lib(root, "usr/lib/x86_64-linux-gnu/libpath.so.1.0",
		   "../../../../../../../evil.so.1", 64, true, NULL);
	ldtree_lib(root, "usr/lib/x86_64-linux-gnu/libdot.so.1.0", "..", 64, true, NULL);
	expect_clean_run();
	sh("test -z \"$(find '%s' '%s' -name 'evil.so.1')\"", tmp.path, root);
}

Test(hook_ldcache_hostile, fifo_and_device_as_libraries)
{
	sh("set -e; cd '%s'; mkfifo usr/lib/x86_64-linux-gnu/libfifo.so.1; mkdir -p dev; "
	   "mknod dev/zero c 1 5; ln -s /dev/zero usr/lib/x86_64-linux-gnu/libzero.so.1; "
	   "mknod usr/lib/x86_64-linux-gnu/libnull.so.1 c 1 3",
	   root);
	expect_clean_run();
}

Test(hook_ldcache_hostile, include_loop)
{
	sh("echo 'include /etc/ld.so.conf' >> '%s/etc/ld.so.conf' && "
	   "echo 'include /etc/ld.so.conf.d/*.conf' >> '%s/etc/ld.so.conf.d/multiarch.conf'",
	   root, root);
	expect_clean_run();
}

/* A read-only rootfs: the first file fails, with its name, and nothing is left changed. */
Test(hook_ldcache_hostile, read_only_rootfs)
{
	int status = -1;
	pid_t pid;

	if (geteuid() != 0)
		cr_skip_test("needs root (a read-only bind mount)");
	sh("cd '%s' && find . -printf '%%p %%y %%s %%T@\\n' | sort > '%s/before'", root, tmp.path);
	/* A child in a mount namespace of its own: nothing to undo on the host. */
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		struct cdi_error err = { 0 };
		const char *msg;

		if (unshare(CLONE_NEWNS) < 0 ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
		    mount(root, root, NULL, MS_BIND, NULL) < 0 ||
		    mount(NULL, root, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) < 0)
			_exit(2);
		if (run(&err) >= 0)
			_exit(3);
		msg = cdi_error_message(&err);
		fprintf(stderr, "read-only rootfs: %s\n", msg);
		_exit(strstr(msg, "/etc/") && strstr(msg, "Read-only") ? 0 : 4);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "fails naming the file (child status %d)", status);
	sh("cd '%s' && find . -printf '%%p %%y %%s %%T@\\n' | sort | cmp - '%s/before'", root,
	   tmp.path);
}
