/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The driver's libraries as one directory per ABI, mounted once (internal): the layout for
 * runtimes that read the spec and run nothing of ours (podman, containerd, CRI-O).
 *
 * CUDA images (and the NGC and PyTorch images built on them) set
 * LD_LIBRARY_PATH=/usr/local/nvidia/lib:/usr/local/nvidia/lib64, searched before the image's
 * ld.so.cache: a directory holding every name of every driver library, mounted there, wins over
 * a stub the image registers in its cache. The few libraries loaded by name from images without
 * that variable (libcuda, NVML and the two libcuda itself loads) keep per-file mounts in the
 * directories the dynamic linkers search without a cache (docs/hookless.md).
 */
#ifndef CDIKIT_LIB_DIR_H
#define CDIKIT_LIB_DIR_H

#include <stdbool.h>
#include <stddef.h>

#include <cdi/error.h>

#include "inventory.h"

#define LIB_DIR_CONTAINER64 "/usr/local/nvidia/lib64"
#define LIB_DIR_CONTAINER32 "/usr/local/nvidia/lib"

/* One name in the directory and the real file it is, or the content of a file written there. */
struct lib_link {
	char *rel;  /* "lib64/libcuda.so.1", "lib64/vdpau/libvdpau_nvidia.so.1", "lib/libcuda.so" */
	char *host; /* the real file on this host; NULL for a written file */
	char *content; /* a written file (config/...: a loader's ICD file naming
			  LIB_DIR_CONTAINER64) */
	size_t content_len;
};

/* The directory as it should be: path/lib64 (64-bit) and path/lib (32-bit). */
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
 * The directory the inventory's libraries make at path: every name a library has in the
 * per-file layout (its own name, its soname, the host's links, vdpau/ and gbm/ names), relative
 * to the Debian multiarch directory of its ABI. When two libraries want one name, a library's
 * own name wins over another's soname or link, then the lower rank (ld.so.cache order).
 */
int lib_dir_plan(const struct inventory *inv, const char *path, struct lib_dir *ret,
		 struct cdi_error *err);

/*
 * The loader configuration files of the inventory (Vulkan and EGL ICD and layer JSON files, the
 * OpenCL .icd file) whose "library_path" (or line) is a bare name of a library in lib64: a copy
 * naming it as LIB_DIR_CONTAINER64/NAME, at "config" + the file's container path
 * (lib_dir_icd.c). Called by lib_dir_plan().
 */
int lib_dir_plan_configs(const struct inventory *inv, struct lib_dir *ld, struct cdi_error *err);
/* "config" + the file's container path: where its copy is in the directory. */
int lib_dir_config_rel(const struct inv_file *f, char **ret);

/*
 * Rewrite the inventory's library mounts for the directory: each library keeps only its
 * per-file mounts of the core sonames (libcuda.so.1, libnvidia-ml.so.1,
 * libnvidia-ptxjitcompiler.so.1, libnvidia-nvvm.so.4) in the cacheless linker directories, and
 * the directory's lib64 and lib are added as files mounted at LIB_DIR_CONTAINER64 and _32
 * (capability unknown: every selection gets them). A configuration file with a copy in the
 * directory is mounted from the copy.
 */
int lib_dir_layout(struct inventory *inv, const struct lib_dir *ld, struct cdi_error *err);

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
 * --check: whether the directory on disk is what lib_dir_write() would leave: every name the
 * same file (device and inode) as the host's, every written file the same bytes, nothing else,
 * directories 0755 and owned by this user. A one-line reason when it is not.
 */
int lib_dir_check(const struct lib_dir *ld, bool *ret_fresh, char *reason, size_t size,
		  struct cdi_error *err);

#endif
