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
 * Read the config's bind mounts of files named lib*.so*: each source (a host file) is opened
 * without blocking and read only when it is a regular ELF shared object of an ABI this
 * machine's loader uses; anything else is not a library and is skipped. For one soname and
 * flags the cache gets one path: a mount named by the soname (as ldconfig files a library),
 * preferably in the directory that holds the file on the host, else the first mount.
 */
int injected_libs_collect(const json_t *oci, struct injected_libs *ret, struct cdi_error *err);

void injected_libs_clear(struct injected_libs *libs);

/* What a linker cache records of a library file. No osversion: glibc >= 2.36's ldconfig
 * writes 0 (it no longer reads the ABI note), and older loaders accept 0. */
struct lib_ident {
	char *soname; /* DT_SONAME, NULL when the library has none */
	int32_t flags;
};

/* Read the library open at fd (name for messages): 1 and *ret filled (ret->soname is the
 * caller's) for an ELF shared object of an ABI this machine's loader uses, else 0. */
int lib_ident(int fd, const char *name, struct lib_ident *ret);

/* The major version in a file name libcuda.so.<major>.<minor>[...], or 0. */
unsigned libcuda_major(const char *name);

#endif
