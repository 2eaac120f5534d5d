/* SPDX-License-Identifier: Apache-2.0 */
/*
 * update-ldcache (internal to apply/hook/): what NVIDIA's hook gets by running the host's
 * ldconfig inside the container (`ldconfig -f /etc/ld.so.conf -C /etc/ld.so.cache` after a
 * pivot_root), done without ldconfig: the same drop-ins, the same soname links, the same
 * /etc/ld.so.cache.
 */
#ifndef CDIKIT_APPLY_HOOK_LDCACHE_H
#define CDIKIT_APPLY_HOOK_LDCACHE_H

#include <stdbool.h>
#include <stddef.h>

#include <cdi/error.h>

#define LDCACHE_FOLDERS_DROPIN "00-nvcr-" /* the --folder directories */
#define LDCACHE_SYSTEM_DROPIN "zz-nvcr-"  /* the container's own system directories */

struct hook_ldcache {
	char *const *folders; /* --folder: container directories of the injected libraries */
	size_t n_folders;
	/* The host's ldconfig is Debian's: its built-in directories are the multiarch ones and
	 * /lib, /usr/lib (else glibc's: /lib64, /usr/lib64 and their siblings). */
	bool debian_host;
};

/*
 * In the rootfs at root_fd: /etc/ld.so.conf when missing (including LD_CONF_D's .conf files);
 * the folders not already configured in LD_CONF_D/00-nvcr-<N>.conf; the container's system
 * directories (by its distribution and this machine's architecture) in zz-nvcr-<N>.conf; for
 * Alpine, both appended to /etc/ld-musl-<arch>.path; then ldconfig's scan (soname links made,
 * stale ones removed) and /etc/ld.so.cache written. A link that cannot be made is a warning;
 * a file that cannot be written an error naming it.
 */
int hook_update_ldcache(int root_fd, const struct hook_ldcache *opts, struct cdi_error *warnings,
			struct cdi_error *err);

/* The host ldconfig's built-in directories, in its order (NULL-terminated, static). */
const char *const *ldcache_host_system_dirs(bool debian_host);

#endif
