/* SPDX-License-Identifier: Apache-2.0 */
/*
 * create-symlinks: ln -sf inside the rootfs. The link's directories are made where missing and
 * resolved inside the rootfs, so an image's link in the path (absolute or ..) never puts the
 * new link outside it; the target is text, written as given.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hook/hook_symlinks.h"
#include "macro.h"
#include "../lib/testlib.h"

static struct scratch tmp;
static char root[96];

static void setup(void)
{
	scratch_make(&tmp, "hook-links");
	snprintf(root, sizeof(root), "%s/root", tmp.path);
	sh("mkdir -p '%s/usr/lib64' '%s/outside'", root, tmp.path);
}

static void teardown(void)
{
	scratch_remove(&tmp);
}

TestSuite(hook_symlinks, .init = setup, .fini = teardown, .timeout = 30);

static int run(const char *const *specs, size_t n, struct cdi_error *err)
{
	_cleanup_close_ int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	cr_assert(fd >= 0);
	return hook_create_symlinks(fd, (char *const *)specs, n, err);
}

static void link_is(const char *path, const char *target)
{
	sh("test -L '%s%s' && test \"$(readlink '%s%s')\" = '%s'", root, path, root, path, target);
}

/* The links of nvidia-ctk v1.20's spec (a real one: T4, driver 615.71.09). */
Test(hook_symlinks, nvidia_ctk_links)
{
	static const char *const specs[] = {
		"../libnvidia-allocator.so.1::/usr/lib64/gbm/nvidia-drm_gbm.so",
		"libEGL_nvidia.so.615.71.09::/usr/lib64/libEGL_nvidia.so.0",
		"libcuda.so.1::/usr/lib64/libcuda.so",
		"libcuda.so.615.71.09::/usr/lib64/libcuda.so.1",
		"../card0::/dev/dri/by-path/pci-0000:00:04.0-card",
		"libcuda.so.1::/usr/lib64/libcuda.so",
	};
	struct cdi_error err = { 0 };

	cr_assert_eq(run(specs, ELEMENTSOF(specs), &err), 0, "%s", cdi_error_message(&err));
	link_is("/usr/lib64/gbm/nvidia-drm_gbm.so", "../libnvidia-allocator.so.1");
	link_is("/usr/lib64/libcuda.so", "libcuda.so.1");
	link_is("/usr/lib64/libcuda.so.1", "libcuda.so.615.71.09");
	link_is("/dev/dri/by-path/pci-0000:00:04.0-card", "../card0");
	sh("test \"$(stat -c %%a '%s/dev/dri/by-path')\" = 755", root);
	/* again: nothing changes, nothing is left behind */
	cr_assert_eq(run(specs, ELEMENTSOF(specs), &err), 0);
	sh("test -z \"$(find '%s' -name '.*.tmp')\"", root);
}

Test(hook_symlinks, replaces_what_is_there)
{
	static const char *const specs[] = { "new::/usr/lib64/file", "new::/usr/lib64/link",
					     "new::/usr/lib64/empty" };
	struct cdi_error err = { 0 };

	sh("cd '%s/usr/lib64' && echo x > file && ln -s old link && mkdir empty", root);
	cr_assert_eq(run(specs, 3, &err), 0, "%s", cdi_error_message(&err));
	link_is("/usr/lib64/file", "new");
	link_is("/usr/lib64/link", "new");
	link_is("/usr/lib64/empty", "new");
}

Test(hook_symlinks, full_directory_fails_with_its_name)
{
	static const char *const specs[] = { "new::/usr/lib64/full" };
	struct cdi_error err = { 0 };

	sh("mkdir -p '%s/usr/lib64/full/x'", root);
	cr_assert_lt(run(specs, 1, &err), 0);
	cr_assert(strstr(cdi_error_message(&err), "/usr/lib64/full"), "%s",
		  cdi_error_message(&err));
	sh("test -d '%s/usr/lib64/full/x'", root);
	cdi_error_reset(&err);
}

Test(hook_symlinks, path_links_stay_inside)
{
	static const char *const specs[] = { "t1::/abs/made", "t2::/dotdot/made",
					     "t3::../../../../relative/made",
					     "t4::/usr/lib64/../../../../../up/made" };
	static const char *const dangling[] = { "t5::/out/made" };
	struct cdi_error err = { 0 };

	/* links in the path: absolute, and .. past the root, to a directory of the image */
	sh("mkdir '%s/inside' && ln -s /inside '%s/abs' && ln -s ../../../../../../inside '%s/dotdot'",
	   root, root, root);
	cr_assert_eq(run(specs, 4, &err), 0, "%s", cdi_error_message(&err));
	link_is("/inside/made", "t2");
	link_is("/relative/made", "t3");
	link_is("/up/made", "t4");
	/* one that leads out of the image: the host's directory there is never written */
	sh("ln -s '%s/outside' '%s/out'", tmp.path, root);
	cr_assert_lt(run(dangling, 1, &err), 0);
	cr_assert(strstr(cdi_error_message(&err), "/out/made"), "%s", cdi_error_message(&err));
	sh("test -z \"$(ls -A '%s/outside')\"", tmp.path);
	cdi_error_reset(&err);
}

Test(hook_symlinks, bad_specs)
{
	static const char *const bad[] = { "no-separator", "a::b::c", "::/x", "t::", "t::/" };
	struct cdi_error err = { 0 };

	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		cr_assert_lt(run(&bad[i], 1, &err), 0, "%s", bad[i]);
		cr_assert(strstr(cdi_error_message(&err), "invalid symlink specification"), "%s",
			  cdi_error_message(&err));
		cdi_error_reset(&err);
	}
}
