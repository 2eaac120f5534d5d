/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The bundle's linker cache step (cdi_bundle_ldcache): a host driver of tiny real libraries,
 * an image rootfs whose own cache (written by the real ldconfig) registers a CUDA stub
 * libcuda.so.1, and a config that bind-mounts the driver's files as CDI specs do. glibc reads
 * the result: `ldconfig -p -C` lists the driver's libcuda.so.1 first; without duplicate sonames
 * the listing is, as a set, what `ldconfig -r` writes for the same tree; ldconfig run again over
 * the tree afterwards (what Debian's libc-bin trigger does) keeps the driver first.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bundle/bundle_ldcache.h"
#include "../lib/ldtree.h"
#include "../lib/testlib.h"

static struct ldtree_world w;

static void setup(void)
{
	ldtree_world_init(&w, "ldm");
}

static void teardown(void)
{
	ldtree_world_fini(&w);
}

TestSuite(ldcache_merge, .init = setup, .fini = teardown);

/* A Debian-like image: libfoo in the multiarch dir, optionally a CUDA stub libcuda registered
 * through ld.so.conf.d, and its cache from the real ldconfig. */
static void make_image(bool stub)
{
	sh("mkdir -p '%s/etc/ld.so.conf.d' && echo 'include /etc/ld.so.conf.d/*.conf' > '%s/etc/ld.so.conf' && "
	   "echo /usr/lib/x86_64-linux-gnu > '%s/etc/ld.so.conf.d/x86_64-linux-gnu.conf'",
	   w.rootfs, w.rootfs, w.rootfs);
	ldtree_lib(w.rootfs, "usr/lib/x86_64-linux-gnu/libfoo.so.1", "libfoo.so.1", 64, true, NULL);
	ldtree_lib(w.rootfs, "usr/lib/x86_64-linux-gnu/libbar.so.2", "libbar.so.2", 64, true, NULL);
	if (stub) {
		ldtree_lib(w.rootfs, "usr/local/cuda/lib64/stubs/libcuda.so.1", "libcuda.so.1", 64,
			   true, "cdikit_stub_libcuda");
		sh("echo /usr/local/cuda/lib64/stubs > '%s/etc/ld.so.conf.d/cuda-stubs.conf'",
		   w.rootfs);
	}
	sh("ldconfig -X -r '%s'", w.rootfs);
}

/* A config mounting each host library at the given container paths, as a CDI spec does. */
static json_t *config(bool readonly, bool all_dirs)
{
	json_t *c = json_pack("{s:{s:s, s:b}, s:[]}", "root", "path", "rootfs", "readonly",
			      readonly, "mounts");
	const char *m64[] = { "libcuda.so.1", "libcuda.so.550.54.15", "libnvidia-ml.so.1" };

	for (size_t i = 0; i < ELEMENTSOF(m64); i++) {
		const char *file =
			strstr(m64[i], "ml") ? "libnvidia-ml.so.550.54.15" : "libcuda.so.550.54.15";
		char *src, *dst;

		cr_assert(asprintf(&src, "%s/usr/lib/x86_64-linux-gnu/%s", w.host, file) >= 0);
		cr_assert(asprintf(&dst, "/usr/lib/x86_64-linux-gnu/%s", m64[i]) >= 0);
		json_array_append_new(json_object_get(c, "mounts"),
				      json_pack("{s:s, s:s, s:[s, s]}", "destination", dst,
						"source", src, "options", "ro", "rbind"));
		if (all_dirs) { /* the Fedora and musl copies cdi-generate adds */
			free(dst);
			cr_assert(asprintf(&dst, "/usr/lib64/%s", m64[i]) >= 0);
			json_array_insert_new(json_object_get(c, "mounts"), 0,
					      json_pack("{s:s, s:s, s:s}", "destination", dst,
							"source", src, "type", "bind"));
		}
		free(src);
		free(dst);
	}
	{
		char *src;

		cr_assert(asprintf(&src, "%s/usr/lib/i386-linux-gnu/libcuda.so.550.54.15",
				   w.host) >= 0);
		json_array_append_new(json_object_get(c, "mounts"),
				      json_pack("{s:s, s:s, s:[s]}", "destination",
						"/usr/lib/i386-linux-gnu/libcuda.so.1", "source",
						src, "options", "bind"));
		free(src);
	}
	/* Not libraries: a config file, a directory, a lib-named text file. */
	sh("mkdir -p '%s/etc/x' && echo text > '%s/etc/x/libnotelf.so.1'", w.host, w.host);
	json_array_append_new(json_object_get(c, "mounts"),
			      json_pack("{s:s, s:s, s:s}", "destination", "/proc", "source", "proc",
					"type", "proc"));
	json_array_append_new(json_object_get(c, "mounts"),
			      json_pack("{s:s, s:s+, s:[s]}", "destination",
					"/usr/lib/libnotelf.so.1", "source", w.host,
					"/etc/x/libnotelf.so.1", "options", "bind"));
	json_array_append_new(json_object_get(c, "mounts"),
			      json_pack("{s:s, s:s+, s:[s]}", "destination", "/opt/libdir.so",
					"source", w.host, "/etc/x", "options", "bind"));
	return c;
}

static void run_step(json_t *c)
{
	struct cdi_error err = { 0 };

	cr_assert_eq(cdi_bundle_ldcache(c, w.bundle, NULL, &err), 0, "%s", cdi_error_message(&err));
}

/* The container's view: the mounted driver files at their container paths, hard links where
 * possible (a bind mount shows the same inode at each name, which ldconfig checks). */
static void materialise_mounts(const char *tree, const json_t *c)
{
	const json_t *m;
	size_t i;

	json_array_foreach (json_object_get(c, "mounts"), i, m) {
		const char *dst = json_string_value(json_object_get(m, "destination"));
		const char *src = json_string_value(json_object_get(m, "source"));

		if (strstr(dst, "libcuda") || strstr(dst, "libnvidia"))
			sh("mkdir -p \"$(dirname '%s%s')\" && { ln -f '%s' '%s%s' || cp '%s' '%s%s'; }",
			   tree, dst, src, tree, dst, src, tree, dst);
	}
}

Test(ldcache_merge, driver_first_over_an_image_stub)
{
	json_t *c;
	char *first, *conf;
	size_t n_mounts;

	make_image(true);
	first = ldtree_first(w.cache, "libcuda.so.1", "libc6,x86-64");
	cr_assert_str_eq(first, "/usr/local/cuda/lib64/stubs/libcuda.so.1",
			 "premise: the stub wins");
	free(first);

	c = config(false, true);
	n_mounts = json_array_size(json_object_get(c, "mounts"));
	run_step(c);
	first = ldtree_first(w.cache, "libcuda.so.1", "libc6,x86-64");
	cr_assert_str_eq(first, "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
	free(first);
	first = ldtree_first(w.cache, "libcuda.so.1", "libc6");
	cr_assert_str_eq(first, "/usr/lib/i386-linux-gnu/libcuda.so.1");
	free(first);
	first = ldtree_first(w.cache, "libfoo.so.1", "libc6,x86-64");
	cr_assert_str_eq(first, "/usr/lib/x86_64-linux-gnu/libfoo.so.1",
			 "the image's entries stay");
	free(first);
	/* The stub is still there, after the driver's. */
	sh("ldconfig -p -C '%s' | grep -A1 -F 'libcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1' | grep -q stubs",
	   w.cache);
	sh("! ldconfig -p -C '%s' | grep -q -e libnotelf -e libdir -e /usr/lib64/", w.cache);

	cr_assert(asprintf(&conf, "%s/etc/ld.so.conf.d/000-cdikit.conf", w.rootfs) >= 0);
	sh("grep -v '^#' '%s' | tr '\\n' ' ' | grep -qx '/usr/lib/x86_64-linux-gnu /usr/lib/i386-linux-gnu '",
	   conf);
	sh("grep -qx 'include /etc/ld.so.conf.d/\\*.conf' '%s/etc/ld.so.conf'", w.rootfs);
	/* A writable rootfs: the config is not edited. */
	cr_assert_eq(json_array_size(json_object_get(c, "mounts")), n_mounts);
	free(conf);
	json_decref(c);
}

/* ldconfig run later in the container (Debian's libc-bin trigger) keeps the driver first. */
Test(ldcache_merge, later_ldconfig_keeps_driver_first)
{
	json_t *c;
	char *first;

	make_image(true);
	c = config(false, false);
	run_step(c);
	materialise_mounts(w.rootfs, c);
	sh("ldconfig -X -r '%s'", w.rootfs);
	first = ldtree_first(w.cache, "libcuda.so.1", "libc6,x86-64");
	cr_assert_str_eq(first, "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
	free(first);
	json_decref(c);
}

/* Without duplicate sonames, glibc sees the same cache as ldconfig -r over the same tree. */
Test(ldcache_merge, same_set_as_ldconfig)
{
	json_t *c;
	char *tree, *theirs, *ours, *theirs_cache;

	make_image(false);
	cr_assert(asprintf(&tree, "%s/tree", w.tmp) >= 0);
	cr_assert(asprintf(&theirs_cache, "%s/etc/ld.so.cache", tree) >= 0);
	sh("cp -a '%s' '%s'", w.rootfs, tree);
	c = config(false, false);
	run_step(c);
	/* The same tree as the container sees, with the same configuration, cached by ldconfig. */
	materialise_mounts(tree, c);
	sh("cp -a '%s/etc/ld.so.conf.d/000-cdikit.conf' '%s/etc/ld.so.conf.d/'", w.rootfs, tree);
	sh("ldconfig -X -r '%s'", tree);
	theirs = ldtree_listing_set(theirs_cache);
	ours = ldtree_listing_set(w.cache);
	cr_assert_str_eq(ours, theirs);
	free(theirs);
	free(ours);
	free(tree);
	free(theirs_cache);
	json_decref(c);
}

Test(ldcache_merge, idempotent)
{
	json_t *c;

	make_image(true);
	c = config(false, true);
	run_step(c);
	sh("cp '%s' '%s/first'", w.cache, w.tmp);
	run_step(c);
	sh("cmp '%s' '%s/first'", w.cache, w.tmp);
	json_decref(c);
}

Test(ldcache_merge, readonly_rootfs_gets_a_mount)
{
	json_t *c, *m, *want;
	char *bcache, *first;
	size_t n_mounts;

	make_image(true);
	sh("cp '%s' '%s/image-cache' && find '%s' | sort > '%s/before'", w.cache, w.tmp, w.rootfs,
	   w.tmp);
	c = config(true, true);
	n_mounts = json_array_size(json_object_get(c, "mounts"));
	run_step(c);
	sh("cmp '%s' '%s/image-cache' && find '%s' | sort | cmp - '%s/before'", w.cache, w.tmp,
	   w.rootfs, w.tmp);
	cr_assert(asprintf(&bcache, "%s/cdikit-ld.so.cache", w.bundle) >= 0);
	first = ldtree_first(bcache, "libcuda.so.1", "libc6,x86-64");
	cr_assert_str_eq(first, "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
	m = json_array_get(json_object_get(c, "mounts"),
			   json_array_size(json_object_get(c, "mounts")) - 1);
	want = json_pack("{s:s, s:s, s:s, s:[s, s, s, s]}", "destination", "/etc/ld.so.cache",
			 "type", "bind", "source", bcache, "options", "bind", "ro", "nosuid",
			 "nodev");
	assert_json_eq(m, want);
	json_decref(want);
	/* Again: one mount, not two. */
	run_step(c);
	cr_assert_eq(json_array_size(json_object_get(c, "mounts")), n_mounts + 1);
	free(first);
	free(bcache);
	json_decref(c);
}

/* Files the step writes into the image belong to the image's owner, not to root. */
Test(ldcache_merge, owners_kept)
{
	json_t *c;
	struct stat st;
	char *path;

	make_image(true);
	sh("chown 4321:4322 '%s' && chown 1234:1235 '%s/etc' && rm -rf '%s/etc/ld.so.conf.d' '%s/etc/ld.so.conf'",
	   w.cache, w.rootfs, w.rootfs, w.rootfs);
	c = config(false, false);
	run_step(c);
	cr_assert_eq(stat(w.cache, &st), 0);
	cr_assert(st.st_uid == 4321 && st.st_gid == 4322 && (st.st_mode & 07777) == 0644);
	cr_assert(asprintf(&path, "%s/etc/ld.so.conf.d/000-cdikit.conf", w.rootfs) >= 0);
	cr_assert_eq(stat(path, &st), 0);
	cr_assert(st.st_uid == 1234 && st.st_gid == 1235, "conf owned by %u", st.st_uid);
	free(path);
	cr_assert(asprintf(&path, "%s/etc/ld.so.conf.d", w.rootfs) >= 0);
	cr_assert_eq(stat(path, &st), 0);
	cr_assert(st.st_uid == 1234 && S_ISDIR(st.st_mode));
	free(path);
	/* no temp file left behind */
	sh("test -z \"$(find '%s/etc' -name '.*.tmp')\"", w.rootfs);
	json_decref(c);
}

Test(ldcache_merge, nothing_to_do_without_libraries)
{
	struct cdi_error err = { 0 };
	json_t *c = json_pack("{s:{s:s}, s:[{s:s, s:s, s:s}]}", "root", "path", "rootfs", "mounts",
			      "destination", "/proc", "source", "proc", "type", "proc");

	make_image(false);
	sh("cp '%s' '%s/image-cache'", w.cache, w.tmp);
	cr_assert_eq(cdi_bundle_ldcache(c, w.bundle, NULL, &err), 0);
	sh("cmp '%s' '%s/image-cache' && test ! -e '%s/etc/ld.so.conf.d/000-cdikit.conf'", w.cache,
	   w.tmp, w.rootfs);
	json_decref(c);
}

Test(ldcache_merge, missing_rootfs_is_an_error)
{
	struct cdi_error err = { 0 };
	json_t *c = config(false, false);

	sh("rm -rf '%s'", w.rootfs);
	cr_assert_eq(cdi_bundle_ldcache(c, w.bundle, NULL, &err), -ENOENT);
	cr_assert(strstr(cdi_error_message(&err), "rootfs"), "%s", cdi_error_message(&err));
	cdi_error_reset(&err);
	json_object_del(c, "root");
	cr_assert_eq(cdi_bundle_ldcache(c, w.bundle, NULL, &err), -EINVAL);
	cr_assert(strstr(cdi_error_message(&err), "root.path"), "%s", cdi_error_message(&err));
	cdi_error_reset(&err);
	json_decref(c);
}
