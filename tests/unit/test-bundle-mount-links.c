/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The bundle step over cdi-generate's library directory (apply/bundle/mount_links.c and the
 * directory's cache file in injected_libs.c): per-file mounts of its files become links into its
 * mount, inside the rootfs only; its libraries are listed from its cache file, none opened; a
 * directory that is not one (no cache file, or one others may write), a read-only rootfs or a
 * directory at a link's place keep the mounts.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/bundle_ldcache.h"
#include "ldcache.h"
#include "../lib/ldtree.h"
#include "../lib/testlib.h"

static struct ldtree_world w;
static char *tree;

/* host/tree: the directory cdi-generate would build of the world's driver, with its cache file
 * (mode) naming lib64/libcuda.so.1, lib64/libnvidia-ml.so.1 and lib/libcuda.so.1. */
static void make_tree(mode_t mode)
{
	struct ldcache_entry e[] = {
		{ .flags = 0x0303, .key = "libnvidia-ml.so.1", .value = "lib64/libnvidia-ml.so.1" },
		{ .flags = 0x0303, .key = "libcuda.so.1", .value = "lib64/libcuda.so.1" },
		{ .flags = 0x0003, .key = "libcuda.so.1", .value = "lib/libcuda.so.1" },
	};
	struct cdi_error err = { 0 };
	char *data = NULL, path[PATH_MAX];
	size_t size;
	FILE *f;

	sh("cd '%s' && mkdir -p tree/lib64 tree/lib tree/bin && "
	   "ln usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15 tree/lib64/libcuda.so.1 && "
	   "ln usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.15 tree/lib64/libnvidia-ml.so.1 && "
	   "ln usr/lib/i386-linux-gnu/libcuda.so.550.54.15 tree/lib/libcuda.so.1 && "
	   "echo smi > tree/bin/nvidia-smi",
	   w.host);
	cr_assert_eq(ldcache_build(e, 3, "cdikit libcuda.so.550.54.15", &data, &size, &err), 0);
	snprintf(path, sizeof(path), "%s/.cdikit-ldcache", tree);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(data, 1, size, f), size);
	fclose(f);
	cr_assert_eq(chmod(path, mode), 0);
	free(data);
}

static void setup(void)
{
	ldtree_world_init(&w, "mlinks");
	cr_assert(asprintf(&tree, "%s/tree", w.host) >= 0);
	make_tree(0644);
}

static void teardown(void)
{
	free(tree);
	ldtree_world_fini(&w);
}

TestSuite(mount_links, .init = setup, .fini = teardown, .timeout = 60);

/* The config of the default spec: the directory, per-file mounts from it, a socket. */
static json_t *config(bool readonly)
{
	json_t *c = json_pack("{s:{s:s, s:b}, s:[]}", "root", "path", "rootfs", "readonly",
			      readonly, "mounts");
	static const char *const files[][2] = {
		{ "/usr/lib/x86_64-linux-gnu/libcuda.so.1", "lib64/libcuda.so.1" },
		{ "/usr/lib64/libcuda.so.1", "lib64/libcuda.so.1" },
		{ "/usr/lib/i386-linux-gnu/libcuda.so.1", "lib/libcuda.so.1" },
		{ "/usr/bin/nvidia-smi", "bin/nvidia-smi" },
	};
	json_t *mounts = json_object_get(c, "mounts");

	json_array_append_new(mounts,
			      json_pack("{s:s, s:s, s:[s, s]}", "destination", "/usr/local/nvidia",
					"source", tree, "options", "ro", "rbind"));
	for (size_t i = 0; i < ELEMENTSOF(files); i++)
		json_array_append_new(mounts, json_pack("{s:s, s:s++, s:[s, s]}", "destination",
							files[i][0], "source", tree, "/",
							files[i][1], "options", "ro", "rbind"));
	json_array_append_new(mounts, json_pack("{s:s, s:s+, s:[s, s]}", "destination",
						"/run/x/socket", "source", w.host, "/run/socket",
						"options", "rbind", "nosuid"));
	return c;
}

static void step(json_t *c)
{
	struct cdi_error err = { 0 };

	cr_assert_eq(cdi_bundle_ldcache(c, w.bundle, NULL, &err), 0, "%s", cdi_error_message(&err));
}

static size_t n_mounts(const json_t *c)
{
	return json_array_size(json_object_get(c, "mounts"));
}

static void assert_link(const char *path, const char *target)
{
	char p[PATH_MAX], t[PATH_MAX];
	ssize_t n;

	snprintf(p, sizeof(p), "%s%s", w.rootfs, path);
	n = readlink(p, t, sizeof(t) - 1);
	cr_assert_gt(n, 0, "%s is no link", path);
	t[n] = '\0';
	cr_assert_str_eq(t, target);
}

Test(mount_links, per_file_mounts_become_links)
{
	json_t *c = config(false);
	char *first;

	step(c);
	cr_assert_eq(n_mounts(c), 2, "the directory and the socket stay mounted");
	assert_link("/usr/lib/x86_64-linux-gnu/libcuda.so.1",
		    "/usr/local/nvidia/lib64/libcuda.so.1");
	assert_link("/usr/lib64/libcuda.so.1", "/usr/local/nvidia/lib64/libcuda.so.1");
	assert_link("/usr/lib/i386-linux-gnu/libcuda.so.1", "/usr/local/nvidia/lib/libcuda.so.1");
	assert_link("/usr/bin/nvidia-smi", "/usr/local/nvidia/bin/nvidia-smi");
	/* The directory's libraries, from its cache file, at the mount's place. */
	first = ldtree_first(w.cache, "libcuda.so.1", "libc6,x86-64");
	cr_assert_str_eq(first, "/usr/local/nvidia/lib64/libcuda.so.1");
	free(first);
	first = ldtree_first(w.cache, "libcuda.so.1", "libc6");
	cr_assert_str_eq(first, "/usr/local/nvidia/lib/libcuda.so.1");
	free(first);
	sh("grep -qx /usr/local/nvidia/lib64 '%s/etc/ld.so.conf.d/000-cdikit.conf'", w.rootfs);
	/* A second run finds the links made: nothing changes. */
	json_decref(c);
	c = config(false);
	step(c);
	cr_assert_eq(n_mounts(c), 2);
	json_decref(c);
}

/* What the image has at a link's place is replaced, unless it is a directory (then the mount
 * stays); an image's link is resolved inside the rootfs, never on the host. */
Test(mount_links, what_the_image_has_there)
{
	json_t *c = config(false);

	sh("cd '%s' && mkdir -p usr/lib/x86_64-linux-gnu usr/bin/nvidia-smi && "
	   "echo stub > usr/lib/x86_64-linux-gnu/libcuda.so.1 && "
	   "ln -s /outside usr/lib64 && mkdir -p outside '%s/outside'",
	   w.rootfs, w.tmp);
	step(c);
	assert_link("/usr/lib/x86_64-linux-gnu/libcuda.so.1",
		    "/usr/local/nvidia/lib64/libcuda.so.1");
	assert_link("/outside/libcuda.so.1", "/usr/local/nvidia/lib64/libcuda.so.1");
	sh("test -z \"$(ls -A '%s/outside')\"", w.tmp);
	cr_assert_eq(n_mounts(c), 3, "the directory at /usr/bin/nvidia-smi keeps its mount");
	cr_assert_str_eq(json_string_value(json_object_get(
				 json_array_get(json_object_get(c, "mounts"), 1), "destination")),
			 "/usr/bin/nvidia-smi");
	json_decref(c);
}

/* A read-only rootfs gets no link: every mount stays; the cache comes by a mount. */
Test(mount_links, read_only_rootfs)
{
	json_t *c = config(true);
	size_t n = n_mounts(c);

	step(c);
	cr_assert_eq(n_mounts(c), n + 1, "every mount, and the bundle's cache");
	sh("test ! -e '%s/usr/bin/nvidia-smi' && test ! -L '%s/usr/lib64/libcuda.so.1'", w.rootfs,
	   w.rootfs);
	json_decref(c);
}

/* A directory whose cache file others could write is no library directory of ours: its files'
 * mounts stay, and its cache file is not read (the libraries are, from the per-file mounts). */
Test(mount_links, cache_file_others_may_write)
{
	json_t *c;
	char *first;

	sh("chmod 0666 '%s/.cdikit-ldcache'", tree);
	c = config(false);
	step(c);
	cr_assert_eq(n_mounts(c), 6);
	first = ldtree_first(w.cache, "libcuda.so.1", "libc6,x86-64");
	cr_assert_str_eq(first, "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
	free(first);
	sh("! ldconfig -p -C '%s' | grep -q /usr/local/nvidia", w.cache);
	json_decref(c);
}

/* No cache file: any directory's files are not made links (a vendor's spec keeps its mounts). */
Test(mount_links, no_cache_file)
{
	json_t *c;

	sh("rm '%s/.cdikit-ldcache'", tree);
	c = config(false);
	step(c);
	cr_assert_eq(n_mounts(c), 6);
	json_decref(c);
}
