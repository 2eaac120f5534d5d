/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Images are the container user's: the linker cache step must neither leak a host file into
 * the container, nor write outside the rootfs, nor hang, whatever the image's /etc/ld.so.cache,
 * /etc and /usr/local/cuda/compat are (links out of the rootfs, /dev/zero, a FIFO, a device, a
 * directory, a huge or corrupt file). A bad image cache counts as none; the driver's entries
 * are always written. Each test has a timeout: a blocking open fails it instead of hanging.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bundle/bundle_ldcache.h"
#include "ldcache.h"
#include "../lib/ldtree.h"
#include "../lib/testlib.h"

static struct ldtree_world w;
static char *outside;

static void setup(void)
{
	ldtree_world_init(&w, "ldh");
	cr_assert(asprintf(&outside, "%s/outside", w.tmp) >= 0);
	/* A host directory with a valid cache naming a secret library: reading it through a
	 * link would show libsecret in the container's cache. */
	ldtree_lib(outside, "usr/lib/libsecret.so.1", "libsecret.so.1", 64, true, NULL);
	sh("mkdir -p '%s/etc' && ldconfig -X -r '%s'", outside, outside);
}

static void teardown(void)
{
	free(outside);
	ldtree_world_fini(&w);
}

TestSuite(ldcache_hostile, .init = setup, .fini = teardown, .timeout = 60);

/* The step succeeds, the written cache has the driver and nothing of the host's. */
static void expect_driver_only(void)
{
	struct cdi_error err = { 0 };
	json_t *c = ldtree_config(w.host, "550.54.15");
	char *first;

	cr_assert_eq(cdi_bundle_ldcache(c, w.bundle, NULL, &err), 0, "%s", cdi_error_message(&err));
	first = ldtree_first(w.cache, "libcuda.so.1", "libc6,x86-64");
	cr_assert_str_eq(first, "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
	sh("! ldconfig -p -C '%s' | grep -q libsecret", w.cache);
	/* the host's cache outside is untouched, and still the only thing there */
	sh("ldconfig -p -C '%s/etc/ld.so.cache' | grep -q libsecret && test -z \"$(find '%s' -newer '%s/etc/ld.so.cache' -type f)\"",
	   outside, outside, outside);
	free(first);
	json_decref(c);
}

Test(ldcache_hostile, link_to_a_host_file)
{
	struct stat st;

	/* absolute: resolved inside the rootfs, where it names nothing */
	sh("ln -s '%s/etc/ld.so.cache' '%s'", outside, w.cache);
	expect_driver_only();
	cr_assert_eq(lstat(w.cache, &st), 0);
	cr_assert(S_ISREG(st.st_mode), "the link is replaced, not followed");
}

Test(ldcache_hostile, dotdot_link_out_of_the_rootfs)
{
	sh("ln -s ../../../../../../../../../../..'%s/etc/ld.so.cache' '%s'", outside, w.cache);
	expect_driver_only();
}

Test(ldcache_hostile, link_to_shadow)
{
	sh("ln -s /etc/shadow '%s'", w.cache);
	expect_driver_only();
}

Test(ldcache_hostile, dev_zero_link_and_device)
{
	sh("ln -s /dev/zero '%s'", w.cache);
	expect_driver_only();
	sh("rm -f '%s' && mknod '%s' c 1 5", w.cache, w.cache);
	expect_driver_only();
}

Test(ldcache_hostile, fifo)
{
	sh("mkfifo '%s'", w.cache);
	expect_driver_only();
}

Test(ldcache_hostile, huge_and_corrupt)
{
	sh("truncate -s %u '%s'", LDCACHE_MAX_SIZE + 1u, w.cache);
	expect_driver_only();
	sh("rm -f '%s' && head -c 4096 /dev/urandom > '%s' && printf 'glibc-ld.so.cache1.1' | dd of='%s' conv=notrunc 2>/dev/null",
	   w.cache, w.cache, w.cache);
	expect_driver_only();
}

/* The step fails with a problem that names what. */
static void expect_error(json_t *c, const char *what)
{
	struct cdi_error err = { 0 };

	cr_assert_lt(cdi_bundle_ldcache(c, w.bundle, NULL, &err), 0);
	cr_assert(strstr(cdi_error_message(&err), what), "%s", cdi_error_message(&err));
	cdi_error_reset(&err);
}

/* The image's /etc and ld.so.conf.d point out of the rootfs: nothing is written outside. */
Test(ldcache_hostile, writes_stay_inside)
{
	struct cdi_error err = { 0 };
	json_t *c = ldtree_config(w.host, "550.54.15");

	sh("mkdir -p '%s/confd' && ln -s '%s/confd' '%s/etc/ld.so.conf.d'", outside, outside,
	   w.rootfs);
	sh("find '%s' | sort > '%s/before'", outside, w.tmp);
	/* the link's target does not exist inside the rootfs: a clean error, nothing written */
	expect_error(c, "ld.so.conf.d");
	sh("find '%s' | sort | cmp - '%s/before' && test ! -e '%s'", outside, w.tmp, w.cache);
	/* made inside, the same link works and still writes inside */
	sh("mkdir -p '%s%s/confd'", w.rootfs, outside);
	cr_assert_eq(cdi_bundle_ldcache(c, w.bundle, NULL, &err), 0, "%s", cdi_error_message(&err));
	sh("test -s '%s%s/confd/000-cdikit.conf' && find '%s' | sort | cmp - '%s/before'", w.rootfs,
	   outside, outside, w.tmp);
	json_decref(c);
}

/* A directory where the cache goes: a clear error, no file written, no temp file left. */
Test(ldcache_hostile, directory_at_the_cache)
{
	json_t *c = ldtree_config(w.host, "550.54.15");

	sh("mkdir -p '%s/sub'", w.cache);
	expect_error(c, "/etc/ld.so.cache");
	sh("test -z \"$(find '%s/etc' -type f)\"", w.rootfs);
	json_decref(c);
}

/* The image's compat directory and its files are the user's too. */
Test(ldcache_hostile, compat_files)
{
	sh("mkdir -p '%s/usr/local/cuda/compat' && cd '%s/usr/local/cuda/compat' && "
	   "mkfifo libcuda.so.560.35.03 && ln -s /dev/zero libnvidia-ptxjitcompiler.so.560.35.03 && "
	   "ln -s '%s/usr/lib/libsecret.so.1' libsecret.so.560.1",
	   w.rootfs, w.rootfs, outside);
	expect_driver_only();
	sh("! ldconfig -p -C '%s' | grep -q compat", w.cache);
	sh("rm -rf '%s/usr/local/cuda/compat' && ln -s '%s/usr/lib' '%s/usr/local/cuda/compat'",
	   w.rootfs, outside, w.rootfs);
	expect_driver_only();
}

/* Mount sources that are not libraries are skipped, never read blocking. */
Test(ldcache_hostile, odd_mount_sources)
{
	struct cdi_error err = { 0 };
	json_t *c = ldtree_config(w.host, "550.54.15");
	json_t *mounts = json_object_get(c, "mounts");

	sh("mkfifo '%s/fifo' && mkdir '%s/dir'", w.tmp, w.tmp);
	json_array_append_new(mounts, json_pack("{s:s, s:s+, s:[s]}", "destination",
						"/usr/lib/libfifo.so.1", "source", w.tmp, "/fifo",
						"options", "bind"));
	json_array_append_new(mounts,
			      json_pack("{s:s, s:s+, s:[s]}", "destination", "/usr/lib/libdir.so.1",
					"source", w.tmp, "/dir", "options", "bind"));
	json_array_append_new(mounts,
			      json_pack("{s:s, s:s, s:[s]}", "destination", "/usr/lib/libzero.so.1",
					"source", "/dev/zero", "options", "bind"));
	json_array_append_new(mounts, json_pack("{s:s, s:s, s:[s]}", "destination",
						"/usr/lib/libmissing.so.1", "source",
						"/nonexistent/libmissing.so.1", "options", "bind"));
	cr_assert_eq(cdi_bundle_ldcache(c, w.bundle, NULL, &err), 0, "%s", cdi_error_message(&err));
	sh("! ldconfig -p -C '%s' | grep -q -e libfifo -e libdir -e libzero -e libmissing",
	   w.cache);
	json_decref(c);
}
