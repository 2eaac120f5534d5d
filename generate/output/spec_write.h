/* SPDX-License-Identifier: Apache-2.0 */
/* Writing the spec and its facts file into a directory others may reach, and --check (internal). */
#ifndef CDIKIT_SPEC_WRITE_H
#define CDIKIT_SPEC_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include <cdi/error.h>

/* The files one run writes: the spec at path and, unless facts is NULL, path + ".cdikit". */
struct spec_files {
	const char *path; /* the spec file: DIR/NAME.yaml */
	const char *spec;
	size_t spec_len;
	const char *facts; /* NULL: no facts file */
	size_t facts_len;
	/* The tree spec was emitted from, checked strictly, for the spec cache beside it
	 * (NAME.cdikit-cache, spec_cache.h); NULL: no cache (an old one is removed). */
	const json_t *tree;
	const json_t *facts_tree; /* the tree facts was emitted from, for the cache too */
};

enum spec_write_result {
	SPEC_UNCHANGED, /* both files were already there, as they would be written */
	SPEC_WRITTEN,
};

/*
 * Whether spec_files_write() would refuse one of f's places (a link, or anything but a regular
 * file, at the spec's, the facts file's or the cache's), with the same problem: checked before
 * the library directory is built, so that a refused spec leaves nothing written.
 */
int spec_files_preflight(const struct spec_files *f, struct cdi_error *err);

/*
 * Write the files atomically, facts first (a reader that sees a spec sees facts at least as
 * new). The directory is opened once (missing parents are created 0755 whatever the umask,
 * and removed again when the write fails) and locked with flock(), so two runs into it take
 * turns; every file is reached relative to it. A file is rewritten only when its content
 * differs or it is not as it should be: owned by this user (root at boot), mode 0644. The
 * temp file (".NAME.XXXXXX.tmp", ignored by CDI registries) gets owner and mode on its fd
 * before renameat(); temp files a killed run left behind are removed. A symlink or anything
 * but a regular file at the spec's or the facts' place is refused.
 */
int spec_files_write(const struct spec_files *f, enum spec_write_result *ret,
		     struct cdi_error *err);

/*
 * --check: whether the files on disk are what spec_files_write() would leave. *ret_fresh and a
 * one-line reason ("it does not exist", "devices added: ...", "insecure: ...", "its facts file
 * ... is out of date") in reason. spec is the tree of f->spec (for the reason). Only reads; a
 * symlinked spec is judged by the file it names. An error only when the files cannot be read.
 */
int spec_files_check(const struct spec_files *f, const json_t *spec, bool *ret_fresh, char *reason,
		     size_t size, struct cdi_error *err);

/* One line on why a spec on disk (path, old_buf) differs from spec (spec_diff.c). */
void spec_stale_reason(const char *path, const char *old_buf, size_t old_len, const json_t *spec,
		       char *out, size_t size);

#endif
