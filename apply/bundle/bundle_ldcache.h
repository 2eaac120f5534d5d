/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The linker cache step of a bundle edit (internal to apply/; cdi-apply --ldcache and
 * cdi-runtime call it after CDI injection). What nvidia-ctk's update-ldcache and
 * enable-cuda-compat hooks do inside the starting container, done from outside, before it
 * starts: no process runs in the container.
 */
#ifndef CDIKIT_APPLY_BUNDLE_LDCACHE_H
#define CDIKIT_APPLY_BUNDLE_LDCACHE_H

#include <jansson.h>

#include <cdi/error.h>

/* The files the step writes. */
#define BUNDLE_LDCACHE_CONF "000-cdikit.conf"	 /* in the image's /etc/ld.so.conf.d */
#define BUNDLE_LDCACHE_FILE "cdikit-ld.so.cache" /* in the bundle, for a read-only rootfs */

/*
 * Give the container of the OCI config oci (after injection) a linker cache that lists the
 * libraries it bind-mounts first, merged with the image's own /etc/ld.so.cache, and choose the
 * image's CUDA forward-compatibility libraries over the host driver's when they are newer.
 * First, on a writable rootfs, the per-file mounts of cdi-generate's library directory become
 * links into its mount (mount_links.h); its libraries are listed from its cache file
 * (injected_libs.h), none opened.
 *
 * bundle_dir is the directory of config.json; rootfs the container's root directory, or NULL
 * for the config's root.path (relative to bundle_dir). The image's files are read relative to
 * the rootfs fd, never following a link out of it, regular files only, without blocking; a
 * missing, unreadable or corrupt image cache counts as an empty one.
 *
 * Writable rootfs: /etc/ld.so.cache and /etc/ld.so.conf.d/000-cdikit.conf (the driver's
 * directories, compat first) are replaced in the rootfs, owned as the files they replace (or
 * their directory), and /etc/ld.so.conf is created when missing: a later ldconfig inside
 * the container rebuilds the same order. Read-only rootfs (root.readonly, or EROFS): the cache
 * is written to bundle_dir/cdikit-ld.so.cache and oci gets a read-only bind mount of it on
 * /etc/ld.so.cache (ldconfig inside then fails: it cannot rename over a mount point).
 * With compat chosen, an LD_LIBRARY_PATH in process.env that names a directory of the
 * driver's libraries gets the compat directory in front.
 *
 * oci is edited in place only in those two cases. Nothing to do (no library mounts) is
 * success. 0 or -errno with a problem in err.
 */
int cdi_bundle_ldcache(json_t *oci, const char *bundle_dir, const char *rootfs,
		       struct cdi_error *err);

/* The same for the config read from config_file ("-": stdin, the bundle is the working
 * directory): bundle_dir is the file's directory. */
int cdi_bundle_ldcache_config(json_t *oci, const char *config_file, const char *rootfs,
			      struct cdi_error *err);

#endif
