/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cdi/spec.h>

#include "dir_list.h"
#include "load.h"
#include "macro.h"
#include "problem.h"
#include "strv.h"
#include "tree_copy.h"

/* mkdir -p: the destination's parents may not exist yet (a fresh /run). */
static int make_dirs(const char *path, struct cdi_error *err)
{
	_cleanup_free_ char *p = strdup(path);
	struct stat st;

	if (!p)
		return cdi_fail(err, -ENOMEM, "out of memory");
	for (char *s = strchr(p + 1, '/');; s = strchr(s + 1, '/')) {
		if (s)
			*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			return cdi_fail(err, negative_errno(), "%s: cannot create: %s", p,
					strerror(errno));
		/* An existing name must be a directory, not a link to one elsewhere. */
		if (lstat(p, &st) < 0 || !S_ISDIR(st.st_mode))
			return cdi_fail(err, -ENOTDIR, "%s: not a directory", p);
		if (!s)
			return 0;
		*s = '/';
	}
}

static int copy_link(const char *src, const char *dst, struct cdi_error *err)
{
	_cleanup_free_ char *tmp = NULL;
	char target[PATH_MAX];
	ssize_t n = readlink(src, target, sizeof(target) - 1);

	if (n < 0)
		return cdi_fail(err, negative_errno(), "%s: %s", src, strerror(errno));
	target[n] = '\0';
	if (asprintf(&tmp, "%s.%ld.tmp", dst, (long)getpid()) < 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	(void)unlink(tmp);
	if (symlink(target, tmp) < 0 || rename(tmp, dst) < 0) {
		int r = negative_errno();

		(void)unlink(tmp);
		return cdi_fail(err, r, "%s: cannot create: %s", dst, strerror(-r));
	}
	return 0;
}

static int copy_file(const char *src, const char *dst, mode_t mode, struct cdi_error *err)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	int r = cdi_read_file(src, TREE_COPY_MAX_FILE, &buf, &len);

	if (r < 0)
		return cdi_fail(err, r, "%s: cannot read: %s", src, strerror(-r));
	return cdi_write_file_atomic(dst, buf, len, mode & 0755, err);
}

static int copy_dir(const char *src, const char *dst, unsigned depth, unsigned *entries,
		    struct cdi_error *err)
{
	_cleanup_strv_free_ char **names = NULL;
	size_t n = 0;
	int r;

	if (depth > TREE_COPY_MAX_DEPTH)
		return cdi_fail(err, -ELOOP, "%s: deeper than %d directories", src,
				TREE_COPY_MAX_DEPTH);
	r = make_dirs(dst, err);
	if (r < 0)
		return r;
	r = dir_list_at(AT_FDCWD, src, O_NOFOLLOW, NULL, NULL, &names, &n);
	if (r < 0)
		return cdi_fail(err, r, "%s: %s", src, strerror(-r));
	*entries += (unsigned)n;
	if (n > TREE_COPY_MAX_ENTRIES || *entries > TREE_COPY_MAX_ENTRIES)
		return cdi_fail(err, -E2BIG, "%s: more than %d entries", src,
				TREE_COPY_MAX_ENTRIES);
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *s = NULL, *t = NULL;
		struct stat st;

		if (asprintf(&s, "%s/%s", src, names[i]) < 0 ||
		    asprintf(&t, "%s/%s", dst, names[i]) < 0)
			return cdi_fail(err, -ENOMEM, "out of memory");
		if (lstat(s, &st) < 0)
			return cdi_fail(err, negative_errno(), "%s: %s", s, strerror(errno));
		if (S_ISDIR(st.st_mode))
			r = copy_dir(s, t, depth + 1, entries, err);
		else if (S_ISREG(st.st_mode))
			r = copy_file(s, t, st.st_mode, err);
		else if (S_ISLNK(st.st_mode))
			r = copy_link(s, t, err);
		else
			r = cdi_fail(err, -EINVAL, "%s: neither a file, a directory nor a link", s);
		if (r < 0)
			return r;
	}
	return 0;
}

int tree_copy(const char *src, const char *dst, struct cdi_error *err)
{
	unsigned entries = 0;

	return copy_dir(src, dst, 0, &entries, err);
}
