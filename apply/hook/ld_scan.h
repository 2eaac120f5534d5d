/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What glibc's ldconfig does to the directories it scans, without running it (internal to
 * apply/hook/): elf/ldconfig.c's search_dir() in a chroot. Each library of each directory is
 * read (its soname and ABI); per directory and soname the newest file wins; its soname link is
 * made where missing or pointing elsewhere, stale .so. links are removed; and the cache gets an
 * entry per soname and directory, in scan order. Paths are resolved inside the rootfs, as the
 * chroot resolves them.
 */
#ifndef CDIKIT_APPLY_HOOK_LD_SCAN_H
#define CDIKIT_APPLY_HOOK_LD_SCAN_H

#include <cdi/error.h>

#include "bundle/ldcache_merge.h"
#include "ld_conf.h"

/* Cap on the names of one directory (a large image has a few thousand in its lib directory). */
#define LD_SCAN_MAX_ENTRIES (1u << 16)

/*
 * Scan every directory of dirs in order (legacy hwcap subdirectories found on the way, such as
 * tls/, are appended to dirs and scanned after the others, as ldconfig does), making and
 * removing soname links as ldconfig does, and add the cache entries to cache (all at
 * LDCACHE_RANK_IMAGE: the order among equal sonames is the scan order). A link that cannot be
 * made is a warning in warnings, as for ldconfig; 0 or -ENOMEM / -E2BIG.
 */
int ld_scan(int root_fd, struct ld_dirs *dirs, struct ldcache_merge *cache,
	    struct cdi_error *warnings);

#endif
