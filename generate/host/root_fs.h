/* SPDX-License-Identifier: Apache-2.0 */
/* Paths resolved inside a root directory, as if it were "/", remembered for the run (internal). */
#ifndef CDIKIT_ROOT_FS_H
#define CDIKIT_ROOT_FS_H

#include <stddef.h>
#include <sys/stat.h>

#include "dir_list.h"

/*
 * Resolve path (absolute, as seen inside root; root "" is "/") as if root were "/": every
 * symlink is followed, absolute targets restart at root and ".." stops at it, so the result
 * never leaves the root (systemd's chase() with CHASE_PREFIX_ROOT). ret_path is the resolved
 * path inside the root (no prefix); ret_st (may be NULL) its lstat. -ENOENT, -ELOOP, ... are
 * returned without a problem: callers decide whether a missing file matters.
 */
int root_resolve(const char *root, const char *path, char **ret_path, struct stat *ret_st);

/* root_resolve() of name (may hold slashes) inside real_dir, a directory already resolved. */
int root_resolve_at(const char *root, const char *real_dir, const char *name, char **ret_path,
		    struct stat *ret_st);

/*
 * A root and what has been resolved in it so far. A host's paths share their directories
 * (/usr/lib/x86_64-linux-gnu, /lib -> usr/lib) and its libraries their link chains
 * (libcuda.so -> libcuda.so.1 -> libcuda.so.550.54.15), so each directory and each name costs
 * one lstat however often it is asked for; lookups are hashed, so a host with 80,000
 * ld.so.cache entries costs linear time. Results are owned by the memo and live until
 * root_fs_clear().
 */
struct root_fs_entry;
struct root_fs {
	const char *root; /* "" for "/"; borrowed */
	struct root_fs_entry **buckets;
	size_t n_buckets, n;
};

void root_fs_init(struct root_fs *fs, const char *root);
void root_fs_clear(struct root_fs *fs);

/* The real directory (inside the root) that path names. -ENOENT when missing, -ENOTDIR, ... */
int root_fs_dir(struct root_fs *fs, const char *path, const char **ret_real);

/* One name (no slash needed) inside real_dir, resolved: its real path and lstat. */
int root_fs_name(struct root_fs *fs, const char *real_dir, const char *name, const char **ret_real,
		 const struct stat **ret_st);

/* An absolute path: its directory by root_fs_dir(), then its last name by root_fs_name(). */
int root_fs_file(struct root_fs *fs, const char *path, const char **ret_real,
		 const struct stat **ret_st);

/*
 * The names in the directory path (resolved by root_fs_dir(); opened without following a link,
 * as it is real by then) that keep accepts, sorted (dir_list.h); its real path in *ret_real
 * (may be NULL). -ENOENT or -ENOTDIR when it is not a directory, else -errno; no problem is
 * added, the caller knows what the directory is for.
 */
int root_fs_list(struct root_fs *fs, const char *path, dir_keep_fn keep, void *userdata,
		 char ***ret_names, size_t *ret_n, const char **ret_real);

/*
 * A slot for the caller's bookkeeping about one string (a real path) in namespace ns, created
 * as SIZE_MAX on first use: the library search numbers its files and directories with it, so
 * one hash serves the run. The slot lives as long as the memo.
 */
int root_fs_tag(struct root_fs *fs, unsigned ns, const char *key, size_t **ret_tag);

#endif
