/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The driver's files as one directory, mounted once at /usr/local/nvidia (internal): the default
 * layout (docs/hookless.md). Three consumers, one directory:
 *
 * - Engines that read the spec and run nothing of ours (podman, containerd, CRI-O). CUDA images
 *   (and the NGC and PyTorch images built on them) set
 *   LD_LIBRARY_PATH=/usr/local/nvidia/lib:/usr/local/nvidia/lib64 and put /usr/local/nvidia/bin
 *   on PATH, nvidia-docker 1.0's driver volume: searched before the image's ld.so.cache, the
 *   directory wins over a stub the image registers. What images without that variable load by
 *   name (libcuda, NVML and the two libcuda itself loads) keeps per-file mounts in the
 *   directories the dynamic linkers search without a cache, nvidia-smi one in /usr/bin.
 * - cdi-runtime and cdi-apply --ldcache, which see the bundle: they turn the per-file mounts
 *   into symlinks into the directory and list its libraries in the image's cache, from the
 *   cache files the directory holds (LIB_DIR_LDCACHE, names relative to where it lies).
 * - NVIDIA_DRIVER_CAPABILITIES through those two: caps/<group>/ holds each capability group's
 *   files again (hard links of the same files), so a container asking for some capabilities
 *   gets a mount of each group it asks for, not the whole directory.
 */
#ifndef CDIKIT_LIB_DIR_H
#define CDIKIT_LIB_DIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include <cdi/error.h>

#include "inventory.h"

#define LIB_DIR_CONTAINER "/usr/local/nvidia"
#define LIB_DIR_CONTAINER64 LIB_DIR_CONTAINER "/lib64"
#define LIB_DIR_CONTAINER32 LIB_DIR_CONTAINER "/lib"
/* Where the capability groups are, in the directory and in a container. */
#define LIB_DIR_GROUPS "caps"
/* The cache file of a directory of libraries: a glibc ld.so.cache whose paths are relative to
 * the directory holding it, and whose generator string is "cdikit libcuda.so.<version>". */
#define LIB_DIR_LDCACHE ".cdikit-ldcache"

/* One name in the directory and the real file it is, or the content of a file written there. */
struct lib_link {
	char *rel;  /* "lib64/libcuda.so.1", "bin/nvidia-smi", "caps/compute/lib64/libcuda.so.1" */
	char *host; /* the real file on this host; NULL for a written file */
	char *content; /* a written file: a loader's ICD file naming the directory, a cache file */
	size_t content_len;
	char *group;	 /* a name at the top: its capability group ("compute", "compute32",
			    "any"); NULL for the groups' own names and the cache files */
	int32_t ldflags; /* a library's name that its cache lists (its soname): the flags; or -1 */
};

/* The directory as it should be. */
struct lib_dir {
	char *path;		/* absolute or as given: "/etc/cdi/nvidia.lib" */
	struct lib_link *links; /* sorted by rel, one per rel */
	size_t n_links, cap_links;
	bool has64, has32;
};

void lib_dir_clear(struct lib_dir *ld);

/* The default place next to a spec: "/etc/cdi/nvidia.yaml" → "/etc/cdi/nvidia.lib". */
int lib_dir_default_path(const char *spec_path, char **ret, struct cdi_error *err);

/*
 * The directory the inventory's files make at path:
 * - lib64/ and lib/: every name a library has in the per-file layout (its own name, its soname,
 *   the host's links, vdpau/ and gbm/ names), relative to the Debian multiarch directory of its
 *   ABI; when two libraries want one name, a library's own name wins over another's soname or
 *   link, then the lower rank (ld.so.cache order);
 * - bin/: the binaries; files/<container path>: configuration files, firmware, X modules;
 * - caps/<group>/: each of those again under its capability group;
 * - the cache files (LIB_DIR_LDCACHE) of the top, of each group and of each group's lib64/ and
 *   lib/; driver_version names libcuda in their generator string.
 */
int lib_dir_plan(const struct inventory *inv, const char *path, struct lib_dir *ret,
		 struct cdi_error *err);

/*
 * The loader configuration files among ld's files/ (Vulkan and EGL ICD and layer JSON files, the
 * OpenCL .icd file) whose "library_path" (or line) is a bare name of a library in lib64: written
 * as a copy naming it as LIB_DIR_CONTAINER64/NAME (lib_dir_icd.c), and in each group as
 * .../caps/<the library's group>/lib64/NAME. Called by lib_dir_plan() before the groups.
 */
int lib_dir_plan_configs(const struct inventory *inv, struct lib_dir *ld, struct cdi_error *err);
/* A loader config's copy for its group: the config's text rewritten for the groups' paths, or
 * NULL when it names no library of the directory (lib_dir_icd.c). */
int lib_dir_config_for_group(const struct lib_dir *ld, const struct lib_link *top, char **ret,
			     size_t *ret_len);

/* The cache files (lib_dir_ldcache.c). Called by lib_dir_plan() after the groups. */
int lib_dir_plan_ldcaches(struct lib_dir *ld, const char *driver_version, struct cdi_error *err);

/*
 * Rewrite the inventory's mounts for the directory: the directory at LIB_DIR_CONTAINER
 * (capability unknown: every selection gets it); libraries keep only their per-file mounts of the
 * core sonames (libcuda.so.1, libnvidia-ml.so.1, libnvidia-ptxjitcompiler.so.1,
 * libnvidia-nvvm.so.4) in the Debian multiarch directory of their ABI and in /usr/lib64 (64-bit);
 * of the binaries nvidia-smi keeps /usr/bin; configuration files, firmware and X modules keep
 * theirs. Every kept mount's source is the name in the directory (the same file), so a runtime
 * that sees the bundle can make it a symlink.
 */
int lib_dir_layout(struct inventory *inv, const struct lib_dir *ld, struct cdi_error *err);

/*
 * The facts file's record of the directory: {"containerPath", "hostPath", "groups": {NAME:
 * {"tag": the capability tag of its files (as "capabilities" writes them; null: every
 * selection), "parts": its subdirectories}}}, which cdi-runtime reads to mount only the groups a
 * container's NVIDIA_DRIVER_CAPABILITIES asks for.
 */
int lib_dir_facts(const struct lib_dir *ld, json_t **ret, struct cdi_error *err);

enum lib_dir_result {
	LIB_DIR_UNCHANGED, /* it was there, as it would be built */
	LIB_DIR_LINKED,	   /* built of hard links (the driver's filesystem) */
	LIB_DIR_BOUND,	   /* built of read-only bind mounts (another filesystem) */
};

/*
 * Build the directory and put it in place atomically (lib_dir_write.c): a temp directory
 * ".NAME.XXXXXX.tmp" beside it, private (0700) while it is filled, each name a hard link to the
 * file opened without following links (a regular file), or, when the directory is on another
 * filesystem than the driver (EXDEV) and allow_bind, an empty file with a read-only, nosuid,
 * nodev bind mount of it (only mounts made in the engines' mount namespace reach containers); then
 * 0755, owned by this user, and renamed over the old one (RENAME_EXCHANGE). The old one may be
 * mounted in running containers: it is kept as ".NAME.XXXXXX.old" and removed (its mounts
 * detached) by a run of a later boot, like a killed run's temp directory. Missing parents are
 * created 0755. A symlink or anything but a directory at path is refused; nothing is changed when
 * it is already as it should be. Runs take turns on a lock of the parent directory.
 */
int lib_dir_write(const struct lib_dir *ld, bool allow_bind, enum lib_dir_result *ret,
		  struct cdi_error *err);

/*
 * Whether lib_dir_write() can build ld where it goes (lib_dir_write.c): the directory that will
 * hold it is writable, on a writable filesystem, and (unless allow_bind) on the mount of every
 * file it links, since a hard link crosses no mount (a bind-mounted /usr in a container is
 * another mount, even of one filesystem). False with a one-line reason.
 */
bool lib_dir_placeable(const struct lib_dir *ld, bool allow_bind, char *why, size_t size);

/*
 * --check: whether the directory on disk is what lib_dir_write() would leave: every name the
 * same file (device and inode) as the host's, every written file the same bytes, nothing else,
 * directories 0755 and owned by this user. A one-line reason when it is not.
 */
int lib_dir_check(const struct lib_dir *ld, bool *ret_fresh, char *reason, size_t size,
		  struct cdi_error *err);

#endif
