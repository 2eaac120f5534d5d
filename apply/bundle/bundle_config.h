/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reading and replacing a bundle's config.json (internal to apply/). Root edits bundles that
 * other users own, so every file is reached relative to a directory fd, a link where the
 * config should be is refused, and the replacement gets its owner and mode on its fd before
 * it is renamed into place.
 */
#ifndef CDIKIT_APPLY_BUNDLE_CONFIG_H
#define CDIKIT_APPLY_BUNDLE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <jansson.h>

#include <cdi/error.h>

#include "libcdi/oci_config.h" /* OCI_CONFIG_* flags of bundle_config_parse() */

/* A config.json is a few KiB (tens with an inline seccomp profile); this is far beyond. */
#define BUNDLE_CONFIG_MAX_BYTES (64u * 1024 * 1024)

/* A config as read: where it is, what it was (owner and mode for its replacement), its text. */
struct bundle_config {
	int dir_fd;	/* the directory holding it; -1 for stdin */
	char *name;	/* its name in dir_fd */
	char *label;	/* how messages name it: the path as given, or "<stdin>" */
	struct stat st; /* of the file read (zero for stdin) */
	char *buf;	/* the contents, NUL-terminated */
	size_t len;
};

/* How a config is laid out, so the rewritten one differs only where devices went in. */
struct config_layout {
	int indent;   /* 0: compact */
	bool tabs;    /* indent with tabs (runc spec writes them) */
	bool newline; /* ends with a newline */
};

enum {
	/* fsync the new file and the directory: for files that must survive a crash. A bundle
	 * does not outlive one, and the sync costs milliseconds per container start. */
	BUNDLE_WRITE_SYNC = 1u << 0,
};

/*
 * Read path: "-" is stdin; otherwise its directory is opened (the caller chose that path) and
 * the file in it with O_NOFOLLOW | O_NONBLOCK: a symlink, anything but a regular file, or a
 * file over BUNDLE_CONFIG_MAX_BYTES is refused with a problem naming the path.
 */
int bundle_config_read(const char *path, struct bundle_config *ret, struct cdi_error *err);

/* The same for name in an open directory (dir_fd is duplicated; label names it in messages). */
int bundle_config_read_at(int dir_fd, const char *name, const char *label,
			  struct bundle_config *ret, struct cdi_error *err);

/* Free what a read put in c (c itself is the caller's). */
void bundle_config_done(struct bundle_config *c);

/*
 * c's text as a JSON object through oci_config_parse_flags() (numbers written back as they were
 * written; flags OCI_CONFIG_*), or a problem naming c's label, line and column.
 */
int bundle_config_parse(const struct bundle_config *c, unsigned flags, json_t **ret,
			struct cdi_error *err);

struct config_layout config_layout_detect(const char *buf, size_t len);

/* oci serialised in layout l. malloc'd, NUL-terminated; NULL on ENOMEM. */
char *config_dump(const json_t *oci, struct config_layout l, size_t *ret_len);

/*
 * Replace name in dir_fd by buf: a temp file in the same directory, given the owner (when it
 * differs from ours and we may) and the mode of like through its fd, written, renamed over
 * name. The temp file is removed on any error. flags: BUNDLE_WRITE_*.
 */
int bundle_replace_at(int dir_fd, const char *name, const char *label, const void *buf, size_t len,
		      const struct stat *like, unsigned flags, struct cdi_error *err);

/*
 * Write buf to path: "-" is stdout; an existing device or FIFO (/dev/null) is written in
 * place; a symlink is refused; a regular file is replaced as bundle_replace_at() does, keeping
 * its owner and mode; a new file gets mode and owner from like.
 */
int bundle_write_path(const char *path, const void *buf, size_t len, const struct stat *like,
		      unsigned flags, struct cdi_error *err);

/*
 * Write c's new text: over c itself when output is NULL (stdout for a config read from
 * stdin), else to output as bundle_write_path() does, a new file taking c's mode.
 */
int bundle_config_write(const struct bundle_config *c, const char *output, const void *buf,
			size_t len, unsigned flags, struct cdi_error *err);

#endif
