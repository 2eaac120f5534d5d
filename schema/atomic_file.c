/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cdi/spec.h>

#include "io.h"
#include "macro.h"
#include "problem.h"

int cdi_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return negative_errno();
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Readers (CDI registries, watchers) see either the old file or the whole
 * new one: the temp file lives in the target directory under a name they
 * ignore (dot first, .tmp last), is complete and on disk before the rename,
 * and the rename itself is made durable by syncing the directory.
 */
_public_ int cdi_write_file_atomic(const char *path, const void *buf, size_t len, mode_t mode,
				   struct cdi_error *err)
{
	_cleanup_free_ char *dir = NULL, *tmp = NULL;
	_cleanup_close_ int fd = -1, dfd = -1;
	const char *base, *slash;
	int r;

	if (!path || !*path)
		return cdi_fail(err, -EINVAL, "no file name given");
	slash = strrchr(path, '/');
	base = slash ? slash + 1 : path;
	if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return cdi_problem_add(err, -EINVAL, path, 0, 0, NULL, "not a file name");
	if (slash == path)
		dir = strdup("/");
	else if (slash)
		dir = strndup(path, (size_t)(slash - path));
	else
		dir = strdup(".");
	if (!dir ||
	    asprintf(&tmp, "%s/.%s.XXXXXX.tmp", strcmp(dir, "/") == 0 ? "" : dir, base) < 0) {
		tmp = NULL;
		return cdi_problem_add(err, -ENOMEM, path, 0, 0, NULL, "out of memory");
	}

	fd = mkostemps(tmp, strlen(".tmp"), O_CLOEXEC);
	if (fd < 0) {
		r = negative_errno();
		return cdi_problem_add(err, r, path, 0, 0, NULL,
				       "cannot create a temporary file in %s: %s", dir,
				       strerror(-r));
	}
	if (fchmod(fd, mode & 07777) < 0) {
		r = negative_errno();
		cdi_problem_add(err, r, path, 0, 0, NULL, "cannot set mode %04o on %s: %s",
				(unsigned)(mode & 07777), tmp, strerror(-r));
		goto fail;
	}
	r = cdi_write_all(fd, buf, len);
	if (r < 0) {
		cdi_problem_add(err, r, path, 0, 0, NULL, "cannot write %s: %s", tmp, strerror(-r));
		goto fail;
	}
	if (fsync(fd) < 0) {
		r = negative_errno();
		cdi_problem_add(err, r, path, 0, 0, NULL, "cannot sync %s: %s", tmp, strerror(-r));
		goto fail;
	}
	r = close(TAKE_FD(fd));
	if (r < 0) {
		r = negative_errno();
		cdi_problem_add(err, r, path, 0, 0, NULL, "cannot close %s: %s", tmp, strerror(-r));
		goto fail;
	}
	if (rename(tmp, path) < 0) {
		r = negative_errno();
		cdi_problem_add(err, r, path, 0, 0, NULL, "cannot rename %s to it: %s", tmp,
				strerror(-r));
		goto fail;
	}

	/* The new name is only durable once the directory is. */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || (fsync(dfd) < 0 && errno != EINVAL)) {
		r = negative_errno();
		return cdi_problem_add(err, r, path, 0, 0, NULL, "cannot sync directory %s: %s",
				       dir, strerror(-r));
	}
	return 0;

fail:
	unlink(tmp);
	return r;
}
