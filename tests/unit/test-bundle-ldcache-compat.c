/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CUDA forward compatibility in the bundle's linker cache step: the image's
 * /usr/local/cuda/compat libraries come first (in the cache, in 000-cdikit.conf, on an
 * LD_LIBRARY_PATH that names the driver) only when the compat libcuda's driver major is greater
 * than the host's, as nvidia-ctk's enable-cuda-compat decides: 560 compat on a 550 host yes,
 * 550.90 on 550.54 no, 535 on 550 no.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/bundle_ldcache.h"
#include "bundle/injected_libs.h"
#include "../lib/ldtree.h"
#include "../lib/testlib.h"

static struct ldtree_world w;

static void setup(void)
{
	ldtree_world_init(&w, "ldc");
}

static void teardown(void)
{
	ldtree_world_fini(&w);
}

TestSuite(ldcache_compat, .init = setup, .fini = teardown);

/* A cuda-compat package of this version in dir (relative to the rootfs), with its links. */
static void make_compat(const char *dir, const char *version)
{
	char *p;

	cr_assert(asprintf(&p, "%s/libcuda.so.%s", dir, version) >= 0);
	ldtree_lib(w.rootfs, p, "libcuda.so.1", 64, true, "cdikit_compat_libcuda");
	free(p);
	cr_assert(asprintf(&p, "%s/libnvidia-ptxjitcompiler.so.%s", dir, version) >= 0);
	ldtree_lib(w.rootfs, p, "libnvidia-ptxjitcompiler.so.1", 64, true, NULL);
	free(p);
	sh("cd '%s/%s' && ln -s libcuda.so.%s libcuda.so.1 && ln -s libcuda.so.1 libcuda.so && "
	   "ln -s libnvidia-ptxjitcompiler.so.%s libnvidia-ptxjitcompiler.so.1",
	   w.rootfs, dir, version, version);
}

static void run_step(json_t *c)
{
	struct cdi_error err = { 0 };

	cr_assert_eq(cdi_bundle_ldcache(c, w.bundle, NULL, &err), 0, "%s", cdi_error_message(&err));
}

static void expect_first(const char *key, const char *want)
{
	char *got = ldtree_first(w.cache, key, "libc6,x86-64");

	cr_assert_str_eq(got, want, "first %s", key);
	free(got);
}

static const char *conf_line(int n)
{
	static char line[256];
	char *cmd;
	FILE *p;

	cr_assert(asprintf(&cmd, "grep -v '^#' '%s/etc/ld.so.conf.d/000-cdikit.conf' | sed -n %dp",
			   w.rootfs, n) >= 0);
	p = popen(cmd, "r");
	line[0] = '\0';
	if (!fgets(line, sizeof(line), p))
		line[0] = '\0';
	line[strcspn(line, "\n")] = '\0';
	pclose(p);
	free(cmd);
	return line;
}

Test(ldcache_compat, newer_major_comes_first)
{
	json_t *c = ldtree_config(w.host, "550.54.15");

	make_compat("usr/local/cuda/compat", "560.35.03");
	run_step(c);
	expect_first("libcuda.so.1", "/usr/local/cuda/compat/libcuda.so.1");
	expect_first("libnvidia-ptxjitcompiler.so.1",
		     "/usr/local/cuda/compat/libnvidia-ptxjitcompiler.so.1");
	/* the driver's stays right after, and its other libraries are untouched */
	sh("ldconfig -p -C '%s' | grep -A1 -F 'libcuda.so.1 (libc6,x86-64) => /usr/local/cuda/compat/' | grep -qF /usr/lib/x86_64-linux-gnu/libcuda.so.1",
	   w.cache);
	expect_first("libnvidia-ml.so.1", "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1");
	cr_assert_str_eq(conf_line(1), "/usr/local/cuda/compat");
	cr_assert_str_eq(conf_line(2), "/usr/lib/x86_64-linux-gnu");
	json_decref(c);
}

Test(ldcache_compat, same_major_or_older_is_not_used)
{
	const char *versions[] = { "550.90.07", "535.104.05" };

	for (size_t i = 0; i < ELEMENTSOF(versions); i++) {
		json_t *c = ldtree_config(w.host, "550.54.15");

		sh("rm -rf '%s/usr/local/cuda' '%s/etc/ld.so.cache'", w.rootfs, w.rootfs);
		make_compat("usr/local/cuda/compat", versions[i]);
		run_step(c);
		expect_first("libcuda.so.1", "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
		sh("! ldconfig -p -C '%s' | grep -q compat", w.cache);
		cr_assert_str_eq(conf_line(1), "/usr/lib/x86_64-linux-gnu", "%s", versions[i]);
		json_decref(c);
	}
}

/* CUDA images reach compat through /usr/local/cuda -> cuda-12.6 (or an absolute link). */
Test(ldcache_compat, through_the_images_links)
{
	const char *links[] = { "cuda-12.6", "/usr/local/cuda-12.6" };

	for (size_t i = 0; i < ELEMENTSOF(links); i++) {
		json_t *c = ldtree_config(w.host, "550.54.15");

		sh("rm -rf '%s/usr/local' '%s/etc/ld.so.cache'", w.rootfs, w.rootfs);
		make_compat("usr/local/cuda-12.6/compat", "560.35.03");
		sh("ln -s '%s' '%s/usr/local/cuda'", links[i], w.rootfs);
		run_step(c);
		expect_first("libcuda.so.1", "/usr/local/cuda/compat/libcuda.so.1");
		json_decref(c);
	}
}

/* LD_LIBRARY_PATH is searched before the cache: compat goes in front where it names the driver. */
Test(ldcache_compat, library_path)
{
	json_t *c = ldtree_config(w.host, "550.54.15"), *env;

	make_compat("usr/local/cuda/compat", "560.35.03");
	env = json_object_get(json_object_get(c, "process"), "env");
	json_array_append_new(env,
			      json_string("LD_LIBRARY_PATH=/opt/x:/usr/lib/x86_64-linux-gnu/"));
	run_step(c);
	cr_assert_str_eq(
		json_string_value(json_array_get(env, 1)),
		"LD_LIBRARY_PATH=/usr/local/cuda/compat:/opt/x:/usr/lib/x86_64-linux-gnu/");
	run_step(c);
	cr_assert_str_eq(json_string_value(json_array_get(env, 1)),
			 "LD_LIBRARY_PATH=/usr/local/cuda/compat:/opt/x:/usr/lib/x86_64-linux-gnu/",
			 "twice is once");
	json_array_set_new(env, 1, json_string("LD_LIBRARY_PATH=/opt/x"));
	run_step(c);
	cr_assert_str_eq(json_string_value(json_array_get(env, 1)), "LD_LIBRARY_PATH=/opt/x",
			 "a path without the driver is the image's business");
	json_decref(c);
}

/* Without an injected libcuda there is no host version to compare with: no compat. */
Test(ldcache_compat, no_host_libcuda)
{
	json_t *c = ldtree_config(w.host, "550.54.15");

	make_compat("usr/local/cuda/compat", "560.35.03");
	json_array_remove(json_object_get(c, "mounts"), 2);
	json_array_remove(json_object_get(c, "mounts"), 0);
	run_step(c);
	sh("! ldconfig -p -C '%s' | grep -q compat", w.cache);
	json_decref(c);
}

Test(ldcache_compat, libcuda_major)
{
	cr_assert_eq(libcuda_major("libcuda.so.560.35.03"), 560);
	cr_assert_eq(libcuda_major("libcuda.so.550.54.15"), 550);
	cr_assert_eq(libcuda_major("libcuda.so.1"), 0);
	cr_assert_eq(libcuda_major("libcuda.so"), 0);
	cr_assert_eq(libcuda_major("libcuda.so.x.1"), 0);
	cr_assert_eq(libcuda_major("libcudart.so.12.1.1"), 0);
}
