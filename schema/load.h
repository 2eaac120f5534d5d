/* SPDX-License-Identifier: Apache-2.0 */
/* Text to JSON tree: YAML via libyaml events, JSON via jansson (internal). */
#ifndef CDIKIT_LOAD_H
#define CDIKIT_LOAD_H

#include <stddef.h>
#include <sys/stat.h>
#include <jansson.h>

#include <cdi/error.h>

#include "marks.h"

/*
 * Parse YAML into a JSON tree. Plain scalars resolve as go-yaml v3 does:
 * true/True/TRUE, false/False/FALSE are booleans (yes/no/y/n/on/off stay
 * strings); null/Null/NULL/~/empty are null; integers in decimal, 0x hex,
 * 0o and leading-0 octal, 0b binary, '_' separators, optional sign;
 * floats (incl. .inf/.nan); anything else is a string. Quoted scalars and
 * scalars tagged !!str are strings. Mapping keys become strings (numbers
 * and booleans formatted as the reference's YAML-to-JSON step formats them).
 * Duplicate keys, non-scalar keys, a document deeper than
 * CDI_SPEC_MAX_DEPTH and alias expansion beyond CDI_SPEC_MAX_NODES are
 * errors. Anchors/aliases and merge keys (<<) work. Only the first document
 * is read. An empty document (or only null) returns -ENODATA with
 * *ret_root = NULL and no problem added.
 * marks (may be NULL) receives the position of every node.
 * Problems: "name:line:col: message".
 */
int cdi_yaml_load(const char *name, const char *buf, size_t len, json_t **ret_root,
		  struct cdi_marks *marks, struct cdi_error *err);

/* Parse JSON with jansson, rejecting duplicate keys. Same return rules. */
int cdi_json_load(const char *name, const char *buf, size_t len, json_t **ret_root,
		  struct cdi_error *err);

/*
 * Open path (relative to dirfd; open_flags adds to O_RDONLY, e.g. O_NOFOLLOW) for reading if it
 * is a regular file: with O_NONBLOCK, so a FIFO or device in its place blocks nothing. Returns
 * the fd, or -EISDIR, -EINVAL (not a regular file) or the -errno of open. ret_st may be NULL.
 */
int cdi_open_regular_at(int dirfd, const char *path, int open_flags, struct stat *ret_st);

/* Read all of fd (size_hint: the size fstat gave, 0 if unknown), NUL-terminated; -EFBIG beyond
 * max bytes. */
int cdi_read_fd(int fd, size_t size_hint, size_t max, char **ret_buf, size_t *ret_len);

/*
 * Read the whole regular file path (relative to dirfd, AT_FDCWD for the working directory;
 * open_flags adds to O_RDONLY, e.g. O_NOFOLLOW), NUL-terminated. It is opened with O_NONBLOCK,
 * so a FIFO or device in its place can block neither the open nor a read. Returns 0, -EISDIR,
 * -EINVAL (not a regular file), -EFBIG (more than max bytes), -ENOMEM, or the -errno of
 * open/read. ret_len and ret_st (the file's fstat) may be NULL.
 */
int cdi_read_file_at(int dirfd, const char *path, int open_flags, size_t max, char **ret_buf,
		     size_t *ret_len, struct stat *ret_st);
/* The same, relative to the working directory. */
int cdi_read_file(const char *path, size_t max, char **ret_buf, size_t *ret_len);

/* The problem for a spec file that cdi_read_file() could not read (r is what it returned). */
int cdi_spec_read_problem(struct cdi_error *err, const char *path, int r);

#endif
