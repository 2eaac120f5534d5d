/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The spec and facts files, written as root into a directory that others may reach: the
 * directory is opened once and every file reached relative to it, links are never followed
 * when writing, owner and mode are set on the temp file's fd before it is renamed into place,
 * and two runs take turns on a lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cdi/spec.h>

#include "dir_list.h"
#include "assemble/facts.h"
#include "host/host_file.h"
#include "io.h"
#include "macro.h"
#include "problem.h"
#include "spec_cache.h"
#include "spec_write.h"
#include "strv.h"

#define FILE_MODE 0644
#define DIR_MODE 0755
#define TEMP_SUFFIX ".tmp"
#define TEMP_RANDOM 6

/* The output directory, open, and what this run created of it. */
struct out_dir {
	char *path; /* as given: "/etc/cdi", "." */
	int fd;
	struct strv_builder created; /* directories made by this run, outermost first */
	const char *file;	     /* the file written there, named by problems */
};

static void out_dir_close(struct out_dir *o, bool failed)
{
	if (o->fd >= 0)
		close(o->fd); /* also drops the lock */
	/* Nothing of a failed run stays behind, not even the directories it made. */
	for (size_t i = o->created.n; failed && i > 0; i--)
		rmdir(o->created.v[i - 1]);
	strv_builder_clear(&o->created);
	free(o->path);
	o->fd = -1;
}

/* The names one run uses: DIR and NAME of DIR/NAME, and the facts file's. */
struct names {
	char *dir;
	const char *base;
	char *facts_base;  /* NAME.cdikit */
	char *facts_label; /* DIR/NAME.cdikit, for messages */
	char *cache_base;  /* NAME.cdikit-cache */
	char *cache_label;
};

static void names_clear(struct names *n)
{
	free(n->dir);
	free(n->facts_base);
	free(n->facts_label);
	free(n->cache_base);
	free(n->cache_label);
}

/* A path that names no file ("dir/", "..") is an error, before anything is created. */
static int names_of(const char *path, struct names *ret, struct cdi_error *err)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;

	*ret = (struct names){ .base = base };
	if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return cdi_problem_add(err, -EISDIR, path, 0, 0, NULL,
				       "names a directory, not a file (give DIR/nvidia.yaml)");
	if (slash == path)
		ret->dir = strdup("/");
	else
		ret->dir = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
	if (!ret->dir || asprintf(&ret->facts_base, "%s" FACTS_SUFFIX, base) < 0 ||
	    asprintf(&ret->facts_label, "%s" FACTS_SUFFIX, path) < 0 ||
	    asprintf(&ret->cache_base, "%s" CDI_SPEC_CACHE_SUFFIX, base) < 0 ||
	    asprintf(&ret->cache_label, "%s" CDI_SPEC_CACHE_SUFFIX, path) < 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	return 0;
}

/* mkdir one directory 0755 whatever the umask (mode set on its fd, not by path). */
static int make_dir(struct out_dir *o, const char *dir, struct cdi_error *err)
{
	_cleanup_close_ int fd = -1;
	int r;

	if (mkdir(dir, DIR_MODE) < 0) {
		r = negative_errno();
		return r == -EEXIST ? 0
				    : cdi_problem_add(err, r, o->file, 0, 0, NULL,
						      "cannot create its directory %s: %s", dir,
						      strerror(-r));
	}
	if (strv_builder_add(&o->created, dir) < 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fchmod(fd, DIR_MODE) < 0) {
		r = negative_errno();
		return cdi_problem_add(err, r, o->file, 0, 0, NULL,
				       "cannot set mode 0755 on its directory %s: %s", dir,
				       strerror(-r));
	}
	return 0;
}

/* Each missing directory of o->path, from the top. */
static int make_parents(struct out_dir *o, struct cdi_error *err)
{
	_cleanup_free_ char *dir = strdup(o->path);
	int r;

	if (!dir)
		return cdi_fail(err, -ENOMEM, "out of memory");
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		r = make_dir(o, dir, err);
		if (r < 0)
			return r;
		*p = '/';
	}
	return make_dir(o, dir, err);
}

static int out_dir_open(struct out_dir *o, const char *dir, const char *file, bool create,
			struct cdi_error *err)
{
	int r;

	*o = (struct out_dir){ .path = strdup(dir), .fd = -1, .file = file };
	if (!o->path)
		return cdi_fail(err, -ENOMEM, "out of memory");
	/* The directory's own path may hold links (/var/run -> /run): followed, as given. */
	o->fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (o->fd < 0 && errno == ENOENT && create) {
		r = make_parents(o, err);
		if (r < 0)
			return r;
		o->fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (o->fd < 0) {
		r = negative_errno();
		return cdi_problem_add(err, r, dir, 0, 0, NULL, "cannot open the directory: %s",
				       strerror(-r));
	}
	return 0;
}

static bool is_temp_of(const char *name, const char *base)
{
	size_t bl = strlen(base), nl = strlen(name);

	return nl == 1 + bl + 1 + TEMP_RANDOM + strlen(TEMP_SUFFIX) && name[0] == '.' &&
	       strncmp(name + 1, base, bl) == 0 && name[1 + bl] == '.' &&
	       strcmp(name + nl - strlen(TEMP_SUFFIX), TEMP_SUFFIX) == 0;
}

struct temp_match {
	const char *bases[3];
};

static bool keep_temp(const char *name, unsigned char d_type, void *userdata)
{
	const struct temp_match *m = userdata;

	(void)d_type;
	for (size_t i = 0; i < ELEMENTSOF(m->bases); i++)
		if (m->bases[i] && is_temp_of(name, m->bases[i]))
			return true;
	return false;
}

/* Temp files of ours a killed run left (we hold the lock: no live run owns one). */
static void remove_stale_temps(struct out_dir *o, const struct names *n)
{
	struct temp_match m = { { n->base, n->facts_base, n->cache_base } };
	_cleanup_strv_free_ char **temps = NULL;
	size_t count = 0;

	if (dir_list_fd(o->fd, keep_temp, &m, &temps, &count) < 0)
		return;
	for (size_t i = 0; i < count; i++)
		unlinkat(o->fd, temps[i], 0);
}

/* A fresh temp file beside name, created exclusively, never through a link; problems name the
 * file being replaced (label). */
static int temp_create(struct out_dir *o, const char *label, const char *name, char *tmp,
		       size_t size, struct cdi_error *err)
{
	static const char chars[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

	for (int attempt = 0; attempt < 100; attempt++) {
		unsigned char rnd[TEMP_RANDOM];
		char suffix[TEMP_RANDOM + 1];
		int fd;

		if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
			for (size_t i = 0; i < sizeof(rnd); i++)
				rnd[i] = (unsigned char)(rand() ^ getpid() ^ attempt);
		for (size_t i = 0; i < TEMP_RANDOM; i++)
			suffix[i] = chars[rnd[i] % (sizeof(chars) - 1)];
		suffix[TEMP_RANDOM] = '\0';
		if ((size_t)snprintf(tmp, size, ".%s.%s" TEMP_SUFFIX, name, suffix) >= size)
			return cdi_problem_add(err, -ENAMETOOLONG, name, 0, 0, NULL,
					       "name too long");
		fd = openat(o->fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd
				       : cdi_problem_add(
						 err, negative_errno(), label, 0, 0, NULL,
						 "cannot create a temporary file beside it: %s",
						 strerror(errno));
	}
	return cdi_problem_add(err, -EEXIST, label, 0, 0, NULL,
			       "cannot create a temporary file beside it");
}

/* Owner, mode, content, on disk: all on the temp file's fd. */
static int temp_fill(int fd, const char *buf, size_t len, const char **ret_what)
{
	int r = 0;

	if (fchown(fd, geteuid(), getegid()) < 0) {
		*ret_what = "set the owner of";
		r = negative_errno();
	} else if (fchmod(fd, FILE_MODE) < 0) {
		*ret_what = "set the mode of";
		r = negative_errno();
	} else if ((r = cdi_write_all(fd, buf, len)) < 0) {
		*ret_what = "write";
	} else if (fsync(fd) < 0) {
		*ret_what = "sync";
		r = negative_errno();
	}
	return r;
}

/* Replace name in the directory by a file holding buf, atomically. */
static int replace_file(struct out_dir *o, const char *label, const char *name, const char *buf,
			size_t len, struct cdi_error *err)
{
	char tmp[NAME_MAX + 1];
	const char *what = "close";
	int fd, r;

	fd = temp_create(o, label, name, tmp, sizeof(tmp), err);
	if (fd < 0)
		return fd;
	r = temp_fill(fd, buf, len, &what);
	if (close(fd) < 0 && r == 0)
		r = negative_errno();
	if (r == 0 && renameat(o->fd, tmp, o->fd, name) < 0) {
		r = negative_errno();
		what = "rename into place";
	}
	if (r < 0) {
		unlinkat(o->fd, tmp, 0);
		return cdi_problem_add(err, r, label, 0, 0, NULL, "cannot %s %s: %s", what, tmp,
				       strerror(-r));
	}
	return 0;
}

enum existing {
	FILE_ABSENT,
	FILE_SAME,     /* the content wanted, owned and moded as it should be */
	FILE_DIFFERS,  /* other content (or too big to hold ours) */
	FILE_INSECURE, /* the content wanted, but another owner or mode */
};

struct found {
	enum existing state;
	char *buf; /* the content, when read */
	size_t len;
	struct stat st;
};

/*
 * What is at name now. follow: --check judges the file a link names; writing refuses a link
 * (and anything else that is not a regular file) with a message naming label.
 */
static int look(struct out_dir *o, const char *label, const char *name, const char *want,
		size_t want_len, bool follow, struct found *ret, struct cdi_error *err)
{
	_cleanup_close_ int fd = -1;
	int r;

	*ret = (struct found){ .state = FILE_ABSENT };
	fd = openat(o->fd, name,
		    O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | (follow ? 0 : O_NOFOLLOW));
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0 && errno == ELOOP && !follow)
		return cdi_problem_add(
			err, -ELOOP, label, 0, 0, NULL,
			"is a symbolic link; refusing to write through it (use --output - for stdout)");
	if (fd < 0 || fstat(fd, &ret->st) < 0) {
		r = negative_errno();
		return cdi_problem_add(err, r, label, 0, 0, NULL, "cannot open: %s", strerror(-r));
	}
	if (!S_ISREG(ret->st.st_mode))
		return cdi_problem_add(
			err, -EINVAL, label, 0, 0, NULL,
			"exists and is not a regular file; refusing to replace it (use --output - for stdout)");
	ret->state = FILE_DIFFERS;
	if ((uintmax_t)ret->st.st_size > CDI_SPEC_MAX_BYTES)
		return 0;
	/* A regular file: reads may block (as they do on a slow disk), the open could not. */
	if (fcntl(fd, F_SETFL, O_RDONLY) < 0) {
		r = negative_errno();
		return cdi_problem_add(err, r, label, 0, 0, NULL, "fcntl: %s", strerror(-r));
	}
	r = host_file_read_fd(fd, label, CDI_SPEC_MAX_BYTES, &ret->buf, &ret->len, err);
	if (r < 0)
		return r;
	if (ret->len == want_len && memcmp(ret->buf, want, want_len) == 0)
		ret->state = ret->st.st_uid == geteuid() && (ret->st.st_mode & 07777) == FILE_MODE
				     ? FILE_SAME
				     : FILE_INSECURE;
	return 0;
}

/*
 * Under the lock: look at both places first, so a link or a device at either means nothing is
 * written; then the facts, then the spec, each only when it is not already as it should be.
 */
static int write_files(struct out_dir *o, const struct spec_files *f, const struct names *n,
		       bool *changed, struct cdi_error *err)
{
	struct found spec = { 0 }, facts = { .state = FILE_SAME };
	int r;

	r = look(o, f->path, n->base, f->spec, f->spec_len, false, &spec, err);
	if (r >= 0 && f->facts)
		r = look(o, n->facts_label, n->facts_base, f->facts, f->facts_len, false, &facts,
			 err);
	free(spec.buf);
	free(facts.buf);
	if (r < 0)
		return r;
	if (facts.state != FILE_SAME) {
		*changed = true;
		r = replace_file(o, n->facts_label, n->facts_base, f->facts, f->facts_len, err);
	}
	if (r >= 0 && spec.state != FILE_SAME) {
		*changed = true;
		r = replace_file(o, f->path, n->base, f->spec, f->spec_len, err);
	}
	return r;
}

/* Whether the cache at name is ours, 0644, and made from the files whose fstat are spec_st and
 * facts_st (NULL: no facts). */
static bool cache_current(struct out_dir *o, const char *name, const struct stat *spec_st,
			  const struct stat *facts_st)
{
	_cleanup_close_ int fd = -1;
	char head[SPEC_CACHE_HEADER_BYTES];
	struct stat st;
	ssize_t n;

	fd = openat(o->fd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 07777) != FILE_MODE)
		return false;
	n = read(fd, head, sizeof(head));
	return n > 0 && spec_cache_describes(head, (size_t)n, spec_st, facts_st);
}

/* Before anything is written: a link or anything but a regular file at the cache's place. */
static int check_cache_place(struct out_dir *o, const struct names *n, struct cdi_error *err)
{
	struct stat st;

	if (fstatat(o->fd, n->cache_base, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode))
		return cdi_problem_add(err, -EINVAL, n->cache_label, 0, 0, NULL,
				       "exists and is not a regular file; refusing to replace it");
	return 0;
}

/*
 * The spec cache (spec_cache.h), made from the spec file as it now is on disk, after the spec:
 * a reader that sees the new cache sees the new spec. Without a tree to cache, an old cache is
 * removed (it would no longer describe the spec anyway). A link or anything but a regular file
 * at its place was refused before anything was written (check_cache_place).
 */
static int write_cache(struct out_dir *o, const struct spec_files *f, const struct names *n,
		       bool *changed, struct cdi_error *err)
{
	/* The facts' tree only with the facts file it was written as. */
	const json_t *facts = f->facts ? f->facts_tree : NULL;
	_cleanup_free_ char *buf = NULL;
	struct stat st, fst;
	size_t len;
	int r;

	if (!f->tree) {
		if (unlinkat(o->fd, n->cache_base, 0) == 0)
			*changed = true;
		return 0;
	}
	if (fstatat(o->fd, n->base, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return cdi_problem_add(err, negative_errno(), f->path, 0, 0, NULL,
				       "cannot stat it after writing: %s", strerror(errno));
	if (facts && fstatat(o->fd, n->facts_base, &fst, AT_SYMLINK_NOFOLLOW) < 0)
		return cdi_problem_add(err, negative_errno(), n->facts_label, 0, 0, NULL,
				       "cannot stat it after writing: %s", strerror(errno));
	if (cache_current(o, n->cache_base, &st, facts ? &fst : NULL))
		return 0;
	r = spec_cache_encode(f->tree, &st, facts, facts ? &fst : NULL, &buf, &len);
	if (r < 0)
		return cdi_problem_add(err, r, n->cache_label, 0, 0, NULL, "cannot build it: %s",
				       strerror(-r));
	*changed = true;
	return replace_file(o, n->cache_label, n->cache_base, buf, len, err);
}

/* One place refused as spec_files_write() would refuse it; 0 when it may be written. */
static int preflight_one(int dir_fd, const char *label, const char *name, struct cdi_error *err)
{
	struct stat st;

	if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || S_ISREG(st.st_mode))
		return 0;
	if (S_ISLNK(st.st_mode))
		return cdi_problem_add(
			err, -ELOOP, label, 0, 0, NULL,
			"is a symbolic link; refusing to write through it (use --output - for stdout)");
	return cdi_problem_add(
		err, -EINVAL, label, 0, 0, NULL,
		"exists and is not a regular file; refusing to replace it (use --output - for stdout)");
}

int spec_files_preflight(const struct spec_files *f, struct cdi_error *err)
{
	struct out_dir o = { .fd = -1 };
	struct names n;
	int r;

	r = names_of(f->path, &n, err);
	if (r < 0)
		return r;
	r = out_dir_open(&o, n.dir, f->path, false, err);
	if (r == -ENOENT) { /* nothing there yet: nothing in the way */
		cdi_error_reset(err);
		r = 0;
	} else if (r >= 0) {
		r = preflight_one(o.fd, f->path, n.base, err);
		if (r >= 0 && f->facts)
			r = preflight_one(o.fd, n.facts_label, n.facts_base, err);
		if (r >= 0 && check_cache_place(&o, &n, err) < 0)
			r = -EINVAL;
	}
	out_dir_close(&o, false);
	names_clear(&n);
	return r < 0 ? r : 0;
}

int spec_files_write(const struct spec_files *f, enum spec_write_result *ret, struct cdi_error *err)
{
	struct out_dir o = { .fd = -1 };
	struct names n;
	bool changed = false;
	int r;

	r = names_of(f->path, &n, err);
	if (r >= 0)
		r = out_dir_open(&o, n.dir, f->path, true, err);
	if (r >= 0 && flock(o.fd, LOCK_EX) < 0)
		r = cdi_problem_add(err, negative_errno(), n.dir, 0, 0, NULL, "cannot lock: %s",
				    strerror(errno));
	if (r >= 0) {
		remove_stale_temps(&o, &n);
		r = check_cache_place(&o, &n, err);
		if (r >= 0)
			r = write_files(&o, f, &n, &changed, err);
		if (r >= 0)
			r = write_cache(&o, f, &n, &changed, err);
	}
	/* The new names are durable once the directory is. */
	if (r >= 0 && changed && fsync(o.fd) < 0 && errno != EINVAL)
		r = cdi_problem_add(err, negative_errno(), f->path, 0, 0, NULL,
				    "cannot sync its directory %s: %s", n.dir, strerror(errno));
	out_dir_close(&o, r < 0);
	names_clear(&n);
	if (r >= 0)
		*ret = changed ? SPEC_WRITTEN : SPEC_UNCHANGED;
	return r < 0 ? r : 0;
}

/* Why one file is not as spec_files_write() would leave it; "" when it is. */
static int check_one(struct out_dir *o, const char *label, const char *name, const char *want,
		     size_t len, const json_t *spec, char *reason, size_t size,
		     struct cdi_error *err)
{
	struct found f;
	int r;

	r = look(o, label, name, want, len, true, &f, err);
	if (r < 0)
		return r;
	if (f.state == FILE_ABSENT)
		snprintf(reason, size, "%s does not exist", spec ? "it" : label);
	else if (f.state == FILE_DIFFERS && spec)
		spec_stale_reason(label, f.buf ? f.buf : "", f.len, spec, reason, size);
	else if (f.state == FILE_DIFFERS)
		snprintf(reason, size, "%s is out of date", label);
	else if (f.state == FILE_INSECURE)
		snprintf(
			reason, size,
			"%s is insecure: owned by uid %u with mode %04o, not uid %u with mode %04o (a run without --check replaces it)",
			spec ? "it" : label, (unsigned)f.st.st_uid,
			(unsigned)(f.st.st_mode & 07777), (unsigned)geteuid(), FILE_MODE);
	else
		reason[0] = '\0';
	free(f.buf);
	return 0;
}

int spec_files_check(const struct spec_files *f, const json_t *spec, bool *ret_fresh, char *reason,
		     size_t size, struct cdi_error *err)
{
	struct out_dir o = { .fd = -1 };
	struct cdi_error derr = { 0 };
	struct names n;
	int r;

	reason[0] = '\0';
	r = names_of(f->path, &n, err);
	if (r >= 0) {
		r = out_dir_open(&o, n.dir, f->path, false, &derr);
		if (r == -ENOENT) {
			snprintf(reason, size, "it does not exist");
			r = 0;
		} else if (r < 0)
			cdi_error_move(err, &derr);
		else
			r = check_one(&o, f->path, n.base, f->spec, f->spec_len, spec, reason, size,
				      err);
	}
	if (r >= 0 && !reason[0] && f->facts)
		r = check_one(&o, n.facts_label, n.facts_base, f->facts, f->facts_len, NULL, reason,
			      size, err);
	out_dir_close(&o, false);
	cdi_error_reset(&derr);
	names_clear(&n);
	if (r >= 0)
		*ret_fresh = !reason[0];
	return r < 0 ? r : 0;
}
