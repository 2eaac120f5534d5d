/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The shared libraries an OCI config bind-mounts into the container, as the linker cache lists
 * them (internal to apply/): after CDI injection, those are the driver's.
 */
#ifndef CDIKIT_APPLY_INJECTED_LIBS_H
#define CDIKIT_APPLY_INJECTED_LIBS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include <cdi/error.h>

/* Caps on what one config can make us read. */
#define INJECTED_LIBS_MAX_MOUNTS 65536

/* A directory's own record of its libraries: a glibc ld.so.cache whose paths are relative to the
 * directory, its generator string "cdikit libcuda.so.<driver version>" (cdi-generate's library
 * directory writes them, generate/assemble/lib_dir.h). */
#define INJECTED_LIBS_DIR_CACHE ".cdikit-ldcache"

struct injected_lib {
	char *soname; /* DT_SONAME, or the file name where the library has none (as ldconfig) */
	char *path;   /* the container path the cache points to */
	int32_t flags;
};

struct injected_libs {
	struct injected_lib *v; /* one per soname and flags, in the config's mount order */
	size_t n, cap;
	char **dirs; /* the distinct directories of the paths, in the same order */
	size_t n_dirs;
	unsigned cuda_major; /* the host driver's major version (libcuda.so.<version>), 0 if none */
};

/*
 * The libraries of the config's bind mounts. A directory mount whose source holds a cache file
 * (INJECTED_LIBS_DIR_CACHE, a regular file of root or ours that no one else may write) brings
 * the libraries it lists, at the mount's destination, first, and nothing in it is opened. Then
 * the mounts of files named lib*.so* outside such directories: each source (a host file) is
 * opened without blocking and read only when it is a regular ELF shared object of an ABI this
 * machine's loader uses; anything else is not a library and is skipped. For one soname and
 * flags the cache gets one path: a directory's, else a mount named by the soname (as ldconfig
 * files a library), preferably in the directory that holds the file on the host, else the first
 * mount.
 */
int injected_libs_collect(const json_t *oci, struct injected_libs *ret, struct cdi_error *err);

void injected_libs_clear(struct injected_libs *libs);

/* The major version in a file name libcuda.so.<major>.<minor>[...], or 0. */
unsigned libcuda_major(const char *name);

#endif
