/* SPDX-License-Identifier: Apache-2.0 */
/* The driver's libraries on a host, found through ld.so.cache and the library dirs (internal). */
#ifndef CDIKIT_DRIVER_LIBS_H
#define CDIKIT_DRIVER_LIBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include <cdi/error.h>

/* Capability groups of nvidia-driver-layout.md §1.1 (+ the newer libraries nvidia-ctk knows). */
enum {
	LIB_UTILITY = 1 << 0,
	LIB_COMPUTE = 1 << 1,
	LIB_VIDEO = 1 << 2,
	LIB_GRAPHICS = 1 << 3,
	LIB_NGX = 1 << 4,
};

/* The library ABIs of the machine cdikit was built for: 64-bit and, where one exists, 32-bit. */
struct lib_abi {
	const char *multiarch;	 /* Debian multiarch triplet: "x86_64-linux-gnu" */
	unsigned cache_arch;	 /* ld.so.cache flag bits: LDCACHE_ARCH_X86_64 */
	unsigned char elf_class; /* ELFCLASS64 */
	uint16_t machine;	 /* EM_X86_64 */
};
extern const struct lib_abi lib_abi_64;
extern const struct lib_abi *const lib_abi_32; /* NULL when the machine has no 32-bit ABI */

struct driver_lib {
	char *path;   /* the real file, inside the root:
			 /usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15 */
	char *soname; /* DT_SONAME ("libcuda.so.1"), NULL when the file has none */
	char **links; /* names of host symlinks in the same directory resolving to path, sorted */
	size_t n_links;
	const char *prefix; /* the table name it matched ("libcuda.so"), static */
	unsigned groups;    /* LIB_* */
	bool is32;	    /* the 32-bit ABI (cache flags and ELF class agree) */
	unsigned rank;	    /* discovery order: ld.so.cache order first, then the directory scan */
};

struct driver_libs {
	struct driver_lib *libs; /* 64-bit first, each half in rank order */
	size_t n_libs;
};

/*
 * Find the driver's libraries under driver_root ("" = /): the keys of
 * <driver_root>/etc/ld.so.cache (a missing cache is fine) and the entries
 * of the standard library directories (and their vdpau/ and nvidia/current/
 * subdirectories) that start with a name of the library table, resolved
 * inside the root; kept when the real file is a regular file whose name ends
 * in ".so.<version>" (a few libraries versioned on their own, such as
 * libnvidia-egl-wayland.so.1.1.13, only when the host links or caches them),
 * and whose ELF class and machine are the 64- or 32-bit ABI's.
 */
int driver_libs_find(const char *driver_root, const char *version, struct driver_libs *ret,
		     struct cdi_error *err);
void driver_libs_clear(struct driver_libs *libs);

/*
 * Directories resolved inside one root, remembered for the run: a host's
 * paths share their prefixes (/usr/lib/x86_64-linux-gnu, /lib → usr/lib), so
 * each directory costs one lstat however often it is named.
 * Zero-initialise with .root set; root_dirs_clear() frees.
 */
struct root_dir_entry;
struct root_dirs {
	const char *root;
	struct root_dir_entry *v;
	size_t n;
};
void root_dirs_clear(struct root_dirs *dirs);

/* The real directory path (inside the root) names, in *ret_real (owned by dirs); -ENOENT when it
 * is missing or not a directory, -ENOMEM. */
int root_dirs_get(struct root_dirs *dirs, const char *path, const char **ret_real);

/* driver_libs_find() sharing the caller's directory memo (whose root is the driver root). */
int driver_libs_find_in(struct root_dirs *dirs, const char *version, struct driver_libs *ret,
			struct cdi_error *err);

/*
 * Resolve path (absolute, as seen inside root) as if root were "/": every
 * symlink is followed, absolute targets restart at root and ".." stops at it,
 * so the result never leaves the root. ret_path is the resolved path inside
 * the root (no prefix); ret_st (may be NULL) its lstat. -ENOENT, -ELOOP, ...
 * are returned without a problem: callers decide whether a missing file matters.
 */
int root_resolve(const char *root, const char *path, char **ret_path, struct stat *ret_st);

/* root_resolve() of name inside real_dir, a directory already resolved (by root_dirs_get()). */
int root_resolve_at(const char *root, const char *real_dir, const char *name, char **ret_path,
		    struct stat *ret_st);

#endif
