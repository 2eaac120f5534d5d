/* SPDX-License-Identifier: Apache-2.0 */
/* The driver's libraries on a host, found through ld.so.cache and the library dirs (internal). */
#ifndef CDIKIT_LIB_SEARCH_H
#define CDIKIT_LIB_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cdi/error.h>

#include "ldcache.h"
#include "lib_table.h"
#include "host/root_fs.h"

struct driver_lib {
	char *path;   /* the real file, inside the root:
			 /usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15 */
	char *soname; /* DT_SONAME ("libcuda.so.1"), NULL when the file has none */
	char **links; /* names of host symlinks beside it resolving to path: sorted, NULL-terminated
		       */
	size_t n_links;
	const struct lib_name *ln; /* its entry of the library table */
	bool is32;		   /* the 32-bit ABI (cache flags and ELF class agree) */
	int32_t ldflags;	   /* the flags ldconfig files it under (lib_ident.h), -1 if none */
	unsigned rank; /* discovery order: ld.so.cache order first, then the directory scan */
};

struct driver_libs {
	struct driver_lib *libs; /* 64-bit first, each half in rank order */
	size_t n_libs;
};

/*
 * Find the driver's libraries in the memo's root: the keys of cache (NULL: no usable cache)
 * and the entries of the standard library directories (and their vdpau/ and nvidia/current/
 * subdirectories) that start with a name of the library table, resolved inside the root;
 * kept when the real file is a regular file whose name ends in ".<version>" (a few libraries
 * versioned on their own, such as libnvidia-egl-wayland.so.1.1.13, only when the host links
 * or caches them), and whose ELF class and machine are the native or the 32-bit ABI's
 * (schema/arch.h). Linear in the cache's size.
 */
int driver_libs_find(struct root_fs *fs, const struct ldcache *cache, const char *version,
		     struct driver_libs *ret, struct cdi_error *err);
void driver_libs_clear(struct driver_libs *libs);

/*
 * The real path (inside the memo's root) of the native-ABI library soname, as the dynamic
 * linker would find it: through cache first, then the standard library directories. A
 * regular file, or -ENOENT (no problem added).
 */
int lib_locate(struct root_fs *fs, const struct ldcache *cache, const char *soname,
	       char **ret_real);

#endif
