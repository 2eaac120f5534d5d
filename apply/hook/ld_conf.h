/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The directories glibc's ldconfig scans in a container (internal to apply/hook/): its
 * /etc/ld.so.conf with the files its include lines name, then the built-in system directories,
 * read as ldconfig reads them (elf/ldconfig.c, parse_conf and add_dir_1), every path resolved
 * inside the rootfs.
 */
#ifndef CDIKIT_APPLY_HOOK_LD_CONF_H
#define CDIKIT_APPLY_HOOK_LD_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <cdi/error.h>

/* Caps on what an image's configuration can make us read. */
#define LD_CONF_MAX_FILES 1024	     /* configuration files, includes counted */
#define LD_CONF_MAX_DEPTH 16	     /* nested includes (ldconfig has no cap: a loop never ends) */
#define LD_CONF_MAX_DIRS 4096	     /* directories to scan */
#define LD_CONF_MAX_BYTES (1u << 20) /* one configuration file */

/* A library type forced by a "DIR=libc6" line (glibc's FLAG_ANY when none). */
#define LD_DIR_FLAG_ANY (-1)

struct ld_dir {
	char *path;   /* as the cache names it: the line, blanks and trailing slashes cut */
	char *hwcaps; /* the glibc-hwcaps subdirectory name ("x86-64-v3"), else NULL */
	int flag;     /* LD_DIR_FLAG_ANY or an ld.so.cache type */
	dev_t dev;
	ino_t ino;
};

/* The directories in scan order, each once (by device and inode, the first path kept). */
struct ld_dirs {
	struct ld_dir *v;
	size_t n, cap;
};

/* Called with each directory line of the configuration, in order (blanks not yet cut). */
typedef int (*ld_conf_line_fn)(const char *line, void *userdata);

/*
 * Read the configuration file conf (a container path; a missing or unreadable one is empty,
 * as for ldconfig) and the files its include lines name (glob patterns, relative ones against
 * the including file's directory), calling fn for each directory line. 0, or fn's error, or
 * -ENOMEM.
 */
int ld_conf_read(int root_fd, const char *conf, ld_conf_line_fn fn, void *userdata);

/*
 * add_dir_1(): a directory line into dirs, when it names a directory of the rootfs not yet in
 * dirs (a later line for the same directory only updates its type), followed by the
 * subdirectories of its glibc-hwcaps directory. 0 or -ENOMEM / -E2BIG.
 */
int ld_dirs_add_line(struct ld_dirs *dirs, int root_fd, const char *line);

/* add_single_dir(): a directory already stat'ed (hwcaps: NULL or a copy is taken). 1 when
 * added, 0 when it was there, or -ENOMEM / -E2BIG. */
int ld_dirs_add(struct ld_dirs *dirs, const char *path, const char *hwcaps, int flag,
		const struct stat *st);

/* ld_conf_read() of /etc/ld.so.conf into dirs (ld_dirs_add_line for each line). */
int ld_dirs_read_conf(struct ld_dirs *dirs, int root_fd);

void ld_dirs_clear(struct ld_dirs *dirs);

#define LD_CONF_D "/etc/ld.so.conf.d"

/*
 * Write text into the rootfs as LD_CONF_D/<prefix><N>.conf, N a random 32-bit number in
 * decimal as NVIDIA's hooks name their drop-ins (os.CreateTemp), mode 0644; the directory is
 * made where missing. A drop-in of that prefix that already holds exactly text (the same
 * container started again) is kept instead. Problems name the file.
 */
int ld_conf_dropin(int root_fd, const char *prefix, const char *text, struct cdi_error *err);

#endif
