/* SPDX-License-Identifier: Apache-2.0 */
/*
 * update-ldcache against what it stands in for: each test lays out an image, copies it, runs
 * NVIDIA's update-ldcache steps with this machine's ldconfig on one copy
 * (tests/lib/ldcache-standin.sh: the drop-ins, then `ldconfig -r`) and cdikit's hook on the
 * other, and wants the same `ldconfig -p`, the same links and files, the same drop-ins (but
 * for their random numbers). Run from the checkout (make check does).
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hook/hook_ldcache.h"
#include "ldcache.h"
#include "macro.h"
#include "../lib/ldtree.h"
#include "../lib/testlib.h"

static struct scratch tmp;
static char a[96], b[96];

static void setup(void)
{
	scratch_make(&tmp, "hook-ldc");
	snprintf(a, sizeof(a), "%s/a", tmp.path);
	snprintf(b, sizeof(b), "%s/b", tmp.path);
	sh("mkdir '%s'", a);
}

static void teardown(void)
{
	ldtree_cleanup();
	scratch_remove(&tmp);
}

TestSuite(hook_ldcache, .init = setup, .fini = teardown, .timeout = 120);

/* A Debian-layout image in a: merged /usr, its ld.so.conf, a zlib with its links. */
static void debian_image(void)
{
	sh("set -e; cd '%s'; mkdir -p usr/lib/x86_64-linux-gnu usr/lib64 etc/ld.so.conf.d; "
	   "ln -s usr/lib lib; ln -s usr/lib64 lib64; echo 12.0 > etc/debian_version; "
	   "echo 'include /etc/ld.so.conf.d/*.conf' > etc/ld.so.conf; "
	   "printf '# Multiarch support\\n/usr/local/lib/x86_64-linux-gnu\\n/lib/x86_64-linux-gnu\\n"
	   "/usr/lib/x86_64-linux-gnu\\n' > etc/ld.so.conf.d/x86_64-linux-gnu.conf; "
	   "echo /usr/local/lib > etc/ld.so.conf.d/libc.conf",
	   a);
	ldtree_lib(a, "usr/lib/x86_64-linux-gnu/libz.so.1.2.13", "libz.so.1", 64, true, NULL);
	sh("cd '%s/usr/lib/x86_64-linux-gnu' && ln -s libz.so.1.2.13 libz.so.1 && "
	   "ln -s libz.so.1 libz.so",
	   a);
}

/* The driver as nvidia-ctk's spec puts it there: the versioned files (bind mounts, here
 * copies) and create-symlinks' libcuda.so -> libcuda.so.1, dangling until ldconfig runs. */
static void driver_files(const char *dir)
{
	char *p;

	cr_assert(asprintf(&p, "%s/libcuda.so.550.54.15", dir) >= 0);
	ldtree_lib(a, p, "libcuda.so.1", 64, true, "cdikit_driver_libcuda");
	free(p);
	cr_assert(asprintf(&p, "%s/vdpau/libvdpau_nvidia.so.550.54.15", dir) >= 0);
	ldtree_lib(a, p, "libvdpau_nvidia.so.1", 64, true, NULL);
	free(p);
	cr_assert(asprintf(&p, "%s/libnvidia-ml.so.550.54.15", dir) >= 0);
	ldtree_lib(a, p, "libnvidia-ml.so.1", 64, true, NULL);
	free(p);
	sh("ln -s libcuda.so.1 '%s/%s/libcuda.so'", a, dir);
}

/* What a tree holds, but for what differs by nature: drop-in numbers, ldconfig's aux-cache
 * and the cache's own bytes (its generator string). */
static char *tree_state(const char *root)
{
	char *cmd, *out = NULL;
	size_t len = 0;
	FILE *p, *m = open_memstream(&out, &len);
	char line[4096];

	cr_assert(
		asprintf(
			&cmd,
			"cd '%s' && find . -path ./var/cache/ldconfig -prune -o -printf '%%p %%y %%m %%l\\n' | "
			"sed -E 's/-nvcr-[0-9]+\\.conf/-nvcr-N.conf/; s/-compat-[0-9]+\\.conf/-compat-N.conf/' | "
			"grep -v '^./var/cache/ldconfig' | sort && cat etc/ld.so.conf.d/*nvcr* 2>/dev/null",
			root) >= 0);
	p = popen(cmd, "r");
	cr_assert(p && m);
	while (fgets(line, sizeof(line), p))
		fputs(line, m);
	cr_assert_eq(pclose(p), 0, "%s", cmd);
	fclose(m);
	free(cmd);
	return out;
}

/* Run both on copies of a and compare. folders: the --folder values. */
static void twin(const char *const *folders, size_t n)
{
	struct cdi_error err = { 0 }, warnings = { 0 };
	struct hook_ldcache o = { .folders = (char *const *)folders,
				  .n_folders = n,
				  .debian_host = access("/etc/debian_version", F_OK) == 0 };
	_cleanup_free_ char *args = NULL, *ca = NULL, *cb = NULL, *la = NULL, *lb = NULL,
			    *sa = NULL, *sb = NULL;
	_cleanup_close_ int root = -1;
	size_t len = 0;
	FILE *f = open_memstream(&args, &len);

	for (size_t i = 0; i < n; i++)
		fprintf(f, " '%s'", folders[i]);
	fclose(f);
	sh("rm -rf '%s' && cp -a '%s' '%s'", b, a, b);
	sh("bash -c \". tests/lib/ldcache-standin.sh && ldcache_standin '%s'%s\" 2>/dev/null", a,
	   args);
	root = open(b, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert(root >= 0);
	cr_assert_eq(hook_update_ldcache(root, &o, &warnings, &err), 0, "%s",
		     cdi_error_message(&err));
	cr_assert(asprintf(&ca, "%s/etc/ld.so.cache", a) >= 0);
	cr_assert(asprintf(&cb, "%s/etc/ld.so.cache", b) >= 0);
	la = ldtree_listing(ca);
	lb = ldtree_listing(cb);
	cr_assert_str_eq(lb, la, "ldconfig -p differs:\nhook:\n%s\nldconfig:\n%s", lb, la);
	sa = tree_state(a);
	sb = tree_state(b);
	cr_assert_str_eq(sb, sa, "the trees differ:\nhook:\n%s\nldconfig:\n%s", sb, sa);
	cdi_error_reset(&warnings);
}

/* nvidia-ctk's generator test spec: --folder /lib/x86_64-linux-gnu and its vdpau. */
static const char *const ctk_folders[] = { "/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu/vdpau" };

Test(hook_ldcache, debian_image_with_the_driver)
{
	debian_image();
	driver_files("usr/lib/x86_64-linux-gnu");
	twin(ctk_folders, 2);
	/* ldconfig made the soname links the spec did not mount */
	sh("test \"$(readlink '%s/usr/lib/x86_64-linux-gnu/libcuda.so.1')\" = libcuda.so.550.54.15",
	   b);
	/* libcuda.so -> libcuda.so.1 dangled when the directory was read: not listed, as for
	 * ldconfig (a second run would list it) */
	sh("! ldconfig -p -C '%s/etc/ld.so.cache' | grep -q 'libcuda.so (libc6,x86-64)'", b);
}

Test(hook_ldcache, image_stub_registered_first)
{
	debian_image();
	driver_files("usr/lib/x86_64-linux-gnu");
	ldtree_lib(a, "usr/local/cuda/lib64/stubs/libcuda.so.1", "libcuda.so.1", 64, true, NULL);
	sh("echo /usr/local/cuda/lib64/stubs > '%s/etc/ld.so.conf.d/cuda-stubs.conf'", a);
	twin(ctk_folders, 2);
}

Test(hook_ldcache, image_without_ld_so_conf)
{
	sh("mkdir -p '%s/etc' '%s/usr/lib/x86_64-linux-gnu'", a, a);
	ldtree_lib(a, "usr/lib/x86_64-linux-gnu/libc.so.6", "libc.so.6", 64, false, NULL);
	driver_files("usr/local/nvidia/lib64");
	static const char *const folders[] = { "/usr/local/nvidia/lib64",
					       "/usr/local/nvidia/lib64/vdpau" };
	twin(folders, 2);
	sh("grep -qx 'include /etc/ld.so.conf.d/\\*.conf' '%s/etc/ld.so.conf'", b);
	sh("printf '%%s\\n' %s %s | cmp - '%s'/etc/ld.so.conf.d/00-nvcr-*.conf", folders[0],
	   folders[1], b);
}

Test(hook_ldcache, rhel_layout)
{
	sh("set -e; cd '%s'; mkdir -p usr/lib64 usr/lib etc/ld.so.conf.d; ln -s usr/lib64 lib64; "
	   "ln -s usr/lib lib; echo 'include ld.so.conf.d/*.conf' > etc/ld.so.conf",
	   a);
	ldtree_lib(a, "usr/lib64/libssl.so.3.0.7", "libssl.so.3", 64, true, NULL);
	sh("ln -s libssl.so.3.0.7 '%s/usr/lib64/libssl.so.3'", a);
	ldtree_lib(a, "usr/lib/libold.so.1", "libold.so.1", 32, true, NULL);
	driver_files("usr/lib64");
	static const char *const folders[] = { "/usr/lib64", "/usr/lib64/vdpau" };
	twin(folders, 2);
}

/* ldconfig's choices in one directory: the newest of one soname, links to links left alone,
 * a .so link pointing past the soname taken as a file, stale versioned links removed, a
 * soname link pointing at an older file moved, a soname that is a file kept, no soname. */
Test(hook_ldcache, links_ldconfig_makes_and_removes)
{
	debian_image();
	sh("mkdir -p '%s/opt/lib' && echo /opt/lib > '%s/etc/ld.so.conf.d/opt.conf'", a, a);
	ldtree_lib(a, "opt/lib/libbar.so.1.1", "libbar.so.1", 64, true, NULL);
	ldtree_lib(a, "opt/lib/libbar.so.1.2", "libbar.so.1", 64, true, NULL);
	ldtree_lib(a, "opt/lib/libbar.so.1.10", "libbar.so.1", 64, true, NULL);
	ldtree_lib(a, "opt/lib/libold.so.2.0", "libold.so.2", 64, true, NULL);
	ldtree_lib(a, "opt/lib/libold.so.2.1", "libold.so.2", 64, true, NULL);
	ldtree_lib(a, "opt/lib/libfile.so.4.0", "libfile.so.4", 64, true, NULL);
	ldtree_lib(a, "opt/lib/libfile.so.4", "libfile.so.4", 64, true, NULL);
	ldtree_lib(a, "opt/lib/libnosoname.so", NULL, 64, true, NULL);
	ldtree_lib(a, "opt/lib/libthirty.so.7", "libthirty.so.7", 32, true, NULL);
	ldtree_lib(a, "opt/lib/libplain.so.5.0", "libplain.so.5", 64, false, NULL);
	sh("set -e; cd '%s/opt/lib'; ln -s libold.so.2.0 libold.so.2; ln -s libgone.so.3.0 libgone.so.3; "
	   "ln -s libgone.so.3 libgone.so; ln -s libbar.so.1.2 libbar.so; ln -s nowhere libdangle.so; "
	   "ln -s ../lib/libplain.so.5.0 libplain.so; echo 'not elf' > libtext.so.1; "
	   "echo 'GROUP ( libc.so.6 )' > libscript.so; mkdir libdir.so.1 tls haswell x86_64",
	   a);
	ldtree_lib(a, "opt/lib/tls/libbar.so.1.5", "libbar.so.1", 64, true, NULL);
	ldtree_lib(a, "opt/lib/haswell/libhw.so.1", "libhw.so.1", 64, true, NULL);
	ldtree_lib(a, "opt/lib/x86_64/libhw.so.1", "libhw.so.1", 64, true, NULL);
	ldtree_lib(a, "opt/lib/glibc-hwcaps/x86-64-v3/libhw.so.1.0", "libhw.so.1", 64, true, NULL);
	ldtree_lib(a, "opt/lib/glibc-hwcaps/x86-64-v2/libbar.so.1.9", "libbar.so.1", 64, true,
		   NULL);
	twin(ctk_folders, 2);
}

Test(hook_ldcache, configuration_forms)
{
	debian_image();
	sh("set -e; cd '%s'; mkdir -p opt/a opt/b opt/c opt/d etc/more; "
	   "printf '  # comment\\ninclude /etc/ld.so.conf.d/*.conf more/*.conf\\n\\n/opt/a/  \\n"
	   "hwcap 0 nosegneg\\n/opt/b=libc6\\n/opt/missing\\n' > etc/ld.so.conf; "
	   "echo 'include nested.inc' > etc/more/x.conf; echo '/opt/c # trailing' > etc/more/nested.inc; "
	   "echo /opt/d > etc/more/y.conf; ln -s ../opt/a etc/link-to-a",
	   a);
	ldtree_lib(a, "opt/a/liba.so.1", "liba.so.1", 64, true, NULL);
	ldtree_lib(a, "opt/b/libb.so.1", "libb.so.1", 64, true, NULL);
	ldtree_lib(a, "opt/c/libc-thing.so.1", "libc-thing.so.1", 64, true, NULL);
	ldtree_lib(a, "opt/d/liba.so.1", "liba.so.1", 64, true, NULL);
	driver_files("opt/d");
	static const char *const folders[] = { "/opt/a", "/opt/d", "/etc/link-to-a", "/opt/a" };
	twin(folders, 4);
}

/* Twice on one rootfs (a container started again): one drop-in of each kind, one cache. */
Test(hook_ldcache, second_run_changes_nothing)
{
	struct cdi_error err = { 0 }, warnings = { 0 };
	struct hook_ldcache o = { .folders = (char *const *)ctk_folders, .n_folders = 2 };
	_cleanup_free_ char *first = NULL, *second = NULL;
	_cleanup_close_ int root = -1;

	debian_image();
	driver_files("usr/local/nvidia");
	static const char *const folders[] = { "/usr/local/nvidia", "/usr/local/nvidia/vdpau" };
	o.folders = (char *const *)folders;
	root = open(a, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_eq(hook_update_ldcache(root, &o, &warnings, &err), 0, "%s",
		     cdi_error_message(&err));
	first = tree_state(a);
	cr_assert_eq(hook_update_ldcache(root, &o, &warnings, &err), 0, "%s",
		     cdi_error_message(&err));
	second = tree_state(a);
	cr_assert_str_eq(second, first);
	sh("test $(ls '%s/etc/ld.so.conf.d' | grep -c nvcr) = 2", a);
	cdi_error_reset(&warnings);
}
