/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A bundle's config.json, read and replaced safely when root edits a bundle another user owns.
 * That user may plant a link where the config is (root would then rewrite whatever it points
 * to) or swap the file right after it is renamed into place (root would then chown whatever
 * the path names by then). So: the directory is opened once and the config reached relative
 * to it with O_NOFOLLOW; the new file gets its owner and mode on its own fd and only then is
 * renamed; nothing is done by path after the rename.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bundle_config.h"
#include "io.h"
#include "libcdi/json_dump.h"
#include "load.h"
#include "macro.h"
#include "libcdi/oci_config.h"
#include "problem.h"
#include "read_file.h"

/*
 * Open the directory of path ("." or "/" when it names none) and point *ret_base at the file
 * name in path. The fd, or a negative errno with a problem naming path.
 */
static int open_parent(const char *path, const char **ret_base, struct cdi_error *err)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	_cleanup_free_ char *dir = NULL;
	int fd;

	if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return cdi_problem_add(err, -EISDIR, path, 0, 0, NULL, "not a file name");
	dir = !slash ? strdup(".") : slash == path ? strdup("/") : strndup(path, slash - path);
	if (!dir)
		return cdi_fail(err, -ENOMEM, "out of memory");
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return cdi_problem_add(err, negative_errno(), path, 0, 0, NULL, "%s",
				       strerror(errno));
	*ret_base = base;
	return fd;
}

void bundle_config_done(struct bundle_config *c)
{
	if (!c)
		return;
	if (c->dir_fd >= 0)
		close(c->dir_fd);
	free(c->name);
	free(c->label);
	free(c->buf);
	*c = (struct bundle_config){ .dir_fd = -1 };
}

int bundle_config_read_at(int dir_fd, const char *name, const char *label,
			  struct bundle_config *ret, struct cdi_error *err)
{
	struct bundle_config c = { .dir_fd = -1 };
	int r;

	r = read_regular_at(dir_fd, name, label, BUNDLE_CONFIG_MAX_BYTES, READ_NOFOLLOW, &c.buf,
			    &c.len, &c.st, err);
	if (r == -ELOOP)
		return cdi_problem_add(
			err, -ELOOP, label, 0, 0, NULL,
			"is a symbolic link; refusing to follow it (the config must be a regular file in the bundle)");
	if (r < 0)
		return r;
	c.name = strdup(name);
	c.label = strdup(label);
	c.dir_fd = fcntl(dir_fd, F_DUPFD_CLOEXEC, 3);
	if (!c.name || !c.label || c.dir_fd < 0) {
		r = c.dir_fd < 0 ? negative_errno() : -ENOMEM;
		bundle_config_done(&c);
		return cdi_problem_add(err, r, label, 0, 0, NULL, "%s", strerror(-r));
	}
	*ret = c;
	return 0;
}

int bundle_config_read(const char *path, struct bundle_config *ret, struct cdi_error *err)
{
	_cleanup_close_ int dir_fd = -1;
	const char *base;
	int r;

	if (strcmp(path, "-") == 0) {
		struct bundle_config c = { .dir_fd = -1, .label = strdup("<stdin>") };

		if (!c.label)
			return cdi_fail(err, -ENOMEM, "out of memory");
		r = read_fd_all(STDIN_FILENO, c.label, BUNDLE_CONFIG_MAX_BYTES, &c.buf, &c.len,
				err);
		if (r < 0) {
			bundle_config_done(&c);
			return r;
		}
		*ret = c;
		return 0;
	}
	dir_fd = open_parent(path, &base, err);
	if (dir_fd < 0)
		return dir_fd;
	return bundle_config_read_at(dir_fd, base, path, ret, err);
}

int bundle_config_parse(const struct bundle_config *c, unsigned flags, json_t **ret,
			struct cdi_error *err)
{
	return oci_config_parse_flags(c->label, c->buf, c->len, flags, ret, err);
}

struct config_layout config_layout_detect(const char *buf, size_t len)
{
	struct config_layout l = { .newline = len > 0 && buf[len - 1] == '\n' };
	const char *end = buf + len, *p = buf, *nl;
	size_t spaces = 0;

	/* The blanks that start the line after the opening brace are one level of indent. */
	while (p < end && *p != '{')
		p++;
	nl = p < end ? memchr(p, '\n', end - p) : NULL;
	if (!nl)
		return l;
	for (p = nl + 1; p < end && (*p == '\r' || *p == '\n'); p++)
		;
	if (p < end && *p == '\t') {
		l.indent = 1;
		l.tabs = true;
		return l;
	}
	for (; p < end && *p == ' '; p++)
		spaces++;
	l.indent = spaces > 31 ? 31 : (int)spaces;
	return l;
}

char *config_dump(const json_t *oci, struct config_layout l, size_t *ret_len)
{
	size_t len;
	char *out, *grown;

	out = cdi_json_dump(oci, l.indent, l.tabs, &len);
	if (!out)
		return NULL;
	if (l.newline) {
		grown = realloc(out, len + 2);
		if (!grown) {
			free(out);
			return NULL;
		}
		out = grown;
		out[len++] = '\n';
		out[len] = '\0';
	}
	*ret_len = len;
	return out;
}

/*
 * A new file ".NAME.XXXXXXXX.tmp" in dir_fd, created exclusively (a name someone planted,
 * file or link, is never opened: another name is tried). Readers of the directory ignore it:
 * it ends neither in .json nor in .yaml.
 */
static int open_temp(int dir_fd, const char *name, char **ret_tmp)
{
	struct timespec ts;
	uint64_t seed;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	seed = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)getpid() << 40);
	for (unsigned attempt = 0; attempt < 64; attempt++) {
		_cleanup_free_ char *tmp = NULL;
		int fd;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		if (asprintf(&tmp, ".%s.%08x.tmp", name, (unsigned)(seed >> 32)) < 0)
			return -ENOMEM;
		fd = openat(dir_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0600);
		if (fd >= 0) {
			*ret_tmp = TAKE_PTR(tmp);
			return fd;
		}
		if (errno != EEXIST)
			return negative_errno();
	}
	return -EEXIST;
}

/* Owner and mode of like on fd. Only root may give a file away: others keep theirs. */
static int take_over_owner(int fd, const struct stat *like)
{
	if ((like->st_uid != geteuid() || like->st_gid != getegid()) &&
	    fchown(fd, like->st_uid, like->st_gid) < 0 && errno != EPERM)
		return negative_errno();
	/* After the chown, which clears set-id bits. */
	if (fchmod(fd, like->st_mode & 07777) < 0)
		return negative_errno();
	return 0;
}

/*
 * The new file in, the old one out, on the start path: exchanged, then the old one unlinked.
 * Renaming over a file makes ext4 write the new file's data out at once (auto_da_alloc, for
 * editors that skip fsync), 0.1 ms and more per start; an exchange does not. False when it
 * cannot be done (no file there yet, a filesystem without RENAME_EXCHANGE): rename then.
 */
static bool swap_in(int dir_fd, const char *tmp, const char *name)
{
	if (renameat2(dir_fd, tmp, dir_fd, name, RENAME_EXCHANGE) < 0)
		return false;
	/* The old file, now under the temp name, which no reader opens. */
	if (unlinkat(dir_fd, tmp, 0) == 0)
		return true;
	/* A directory was there: back in its place, and rename fails on it as it should. */
	renameat2(dir_fd, tmp, dir_fd, name, RENAME_EXCHANGE);
	return false;
}

int bundle_replace_at(int dir_fd, const char *name, const char *label, const void *buf, size_t len,
		      const struct stat *like, unsigned flags, struct cdi_error *err)
{
	_cleanup_free_ char *tmp = NULL;
	_cleanup_close_ int fd = -1;
	const char *what;
	int r;

	fd = open_temp(dir_fd, name, &tmp);
	if (fd < 0)
		return cdi_problem_add(err, fd, label, 0, 0, NULL,
				       "cannot create a temporary file beside it: %s",
				       strerror(-fd));
	what = "cannot set owner and mode";
	r = take_over_owner(fd, like);
	if (r == 0) {
		what = "cannot write";
		r = cdi_write_all(fd, buf, len);
	}
	if (r == 0 && (flags & BUNDLE_WRITE_SYNC) && fsync(fd) < 0) {
		what = "cannot sync";
		r = negative_errno();
	}
	if (r == 0 && close(TAKE_FD(fd)) < 0) {
		what = "cannot write";
		r = negative_errno();
	}
	if (r == 0 && !(flags & BUNDLE_WRITE_SYNC) && swap_in(dir_fd, tmp, name))
		return 0;
	if (r == 0 && renameat(dir_fd, tmp, dir_fd, name) < 0) {
		what = "cannot rename the new file over it";
		r = negative_errno();
	}
	if (r < 0) {
		unlinkat(dir_fd, tmp, 0);
		return cdi_problem_add(err, r, label, 0, 0, NULL, "%s (%s): %s", what, tmp,
				       strerror(-r));
	}
	/* The new name is only durable once the directory is. */
	if ((flags & BUNDLE_WRITE_SYNC) && fsync(dir_fd) < 0 && errno != EINVAL)
		return cdi_problem_add(err, negative_errno(), label, 0, 0, NULL,
				       "cannot sync its directory: %s", strerror(errno));
	return 0;
}

/* A device or FIFO named as the output (/dev/null): written in place, never renamed over. */
static int write_in_place(int dir_fd, const char *base, const char *label, const void *buf,
			  size_t len, struct cdi_error *err)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r;

	fd = openat(dir_fd, base, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return cdi_problem_add(err, negative_errno(), label, 0, 0, NULL, "%s",
				       strerror(errno));
	/* Swapped for a regular file since we looked: that is for bundle_replace_at(). */
	if (fstat(fd, &st) < 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
		return cdi_problem_add(err, -EAGAIN, label, 0, 0, NULL,
				       "changed while it was being written; try again");
	r = cdi_write_all(fd, buf, len);
	if (r == 0 && close(TAKE_FD(fd)) < 0)
		r = negative_errno();
	if (r < 0)
		return cdi_problem_add(err, r, label, 0, 0, NULL, "%s", strerror(-r));
	return 0;
}

int bundle_write_path(const char *path, const void *buf, size_t len, const struct stat *like,
		      unsigned flags, struct cdi_error *err)
{
	_cleanup_close_ int dir_fd = -1;
	const char *base;
	struct stat st;
	int r;

	if (strcmp(path, "-") == 0) {
		r = cdi_write_all(STDOUT_FILENO, buf, len);
		if (r < 0)
			return cdi_problem_add(err, r, "<stdout>", 0, 0, NULL, "%s", strerror(-r));
		return 0;
	}
	dir_fd = open_parent(path, &base, err);
	if (dir_fd < 0)
		return dir_fd;
	if (fstatat(dir_fd, base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT)
			return cdi_problem_add(err, negative_errno(), path, 0, 0, NULL, "%s",
					       strerror(errno));
		/* A new file: the caller's mode, our owner. */
		st = *like;
		st.st_uid = geteuid();
		st.st_gid = getegid();
		return bundle_replace_at(dir_fd, base, path, buf, len, &st, flags, err);
	}
	if (S_ISLNK(st.st_mode))
		return cdi_problem_add(
			err, -ELOOP, path, 0, 0, NULL,
			"is a symbolic link; refusing to write through it (name the file it points to)");
	if (S_ISDIR(st.st_mode))
		return cdi_problem_add(err, -EISDIR, path, 0, 0, NULL, "is a directory");
	if (!S_ISREG(st.st_mode))
		return write_in_place(dir_fd, base, path, buf, len, err);
	return bundle_replace_at(dir_fd, base, path, buf, len, &st, flags, err);
}

int bundle_config_write(const struct bundle_config *c, const char *output, const void *buf,
			size_t len, unsigned flags, struct cdi_error *err)
{
	struct stat like = c->st;

	if (!output && c->dir_fd >= 0)
		return bundle_replace_at(c->dir_fd, c->name, c->label, buf, len, &c->st, flags,
					 err);
	if (c->dir_fd < 0)
		like.st_mode = 0644;
	return bundle_write_path(output ? output : "-", buf, len, &like, flags, err);
}
