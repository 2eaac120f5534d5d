/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The registry of CDI specs over spec directories, with the rules of the reference's Cache
 * (pkg/cdi/cache.go refresh, spec-dirs.go scanSpecDirs):
 *   - directories in priority order, a later one wins; a missing directory is skipped;
 *   - a directory is walked like filepath.Walk does it: entries in name order, only "*.json"
 *     and "*.yaml", no recursion; a symlink to a file is read, one to a directory is an error
 *     for that entry; a spec directory that is itself a symlink is not entered (Walk lstat()s
 *     its root), which we report;
 *   - an invalid spec is skipped and its problem kept against its path;
 *   - a device name seen again at a higher priority replaces the first one, at the same
 *     priority it is a conflict reported on both files, and after the scan every conflicting
 *     name is dropped, even one a higher-priority directory redefined later [reference quirk].
 *
 * Root reads these directories at every container start, and a spec directory may hold what
 * nobody cleaned up: so a spec costs what reading it costs (an invalid one is checked up to
 * its first problem, which is all that is kept, and its tree is freed at once), a directory is
 * read up to CDI_REGISTRY_MAX_DIR_SPECS files and CDI_REGISTRY_MAX_DIR_BYTES (past a cap the
 * rest is skipped with one line; what loaded still resolves), every file is opened relative to
 * the directory's fd without blocking, and specs that users other than root and the caller
 * could write are warned about (refused with CDI_LOAD_SECURE).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cdi/registry.h>
#include <cdi/spec.h>

#include "array.h"
#include "check.h"
#include "dir_list.h"
#include "load.h"
#include "macro.h"
#include "path_clean.h"
#include "problem.h"
#include "spec_cache.h"
#include "strmap.h"
#include "strv.h"

struct reg_device {
	char *name; /* qualified name, owned */
	const cdi_spec *spec;
	const json_t *dev;
	const cdi_spec *overridden; /* the lower-priority spec it replaced, if any */
	size_t priority;
	bool conflict;
};

struct reg_file_errors {
	char *path;
	struct cdi_error err;
};

/* Everything one scan produces; replaced as a whole by a refresh. */
struct reg_state {
	cdi_spec **specs; /* scan order */
	size_t n_specs, cap_specs;
	struct reg_device *devs;
	size_t n_devs, cap_devs;
	struct cdi_strmap index; /* qualified name -> devs[] */
	const char **device_list, **vendor_list, **class_list;
	struct cdi_error errors, warnings;
	struct reg_file_errors *files;
	size_t n_files, cap_files;
	struct cdi_strmap file_index; /* path -> files[] */
};

struct cdi_registry {
	char **dirs;
	size_t n_dirs;
	unsigned flags;
	struct reg_state st;
};

static void state_free(struct reg_state *st)
{
	for (size_t i = 0; i < st->n_specs; i++)
		cdi_spec_free(st->specs[i]);
	free(st->specs);
	for (size_t i = 0; i < st->n_devs; i++)
		free(st->devs[i].name);
	free(st->devs);
	cdi_strmap_free(&st->index);
	free(st->device_list);
	free(st->vendor_list);
	free(st->class_list);
	cdi_error_reset(&st->errors);
	cdi_error_reset(&st->warnings);
	for (size_t i = 0; i < st->n_files; i++) {
		free(st->files[i].path);
		cdi_error_reset(&st->files[i].err);
	}
	free(st->files);
	cdi_strmap_free(&st->file_index);
	*st = (struct reg_state){ 0 };
}

static struct cdi_error *file_errors(struct reg_state *st, const char *path)
{
	size_t *at = cdi_strmap_get(&st->file_index, path, strlen(path));
	struct reg_file_errors *f;

	if (at)
		return &st->files[*at].err;
	if (ARRAY_RESERVE(st->files, st->cap_files, st->n_files + 1) < 0)
		return NULL;
	f = &st->files[st->n_files];
	*f = (struct reg_file_errors){ .path = strdup(path) };
	if (!f->path)
		return NULL;
	if (cdi_strmap_put(&st->file_index, f->path, strlen(f->path), st->n_files) < 0) {
		free(f->path);
		return NULL;
	}
	return &st->files[st->n_files++].err;
}

/* Record one problem against the given paths (and once in the scan's list). */
static int record(struct reg_state *st, const cdi_problem *p, int code, const char *path1,
		  const char *path2)
{
	const char *paths[] = { path1, path2 };

	cdi_problem_copy(&st->errors, code, p);
	for (size_t i = 0; i < ELEMENTSOF(paths); i++) {
		struct cdi_error *fe;

		if (!paths[i])
			continue;
		fe = file_errors(st, paths[i]);
		if (!fe)
			return -ENOMEM;
		cdi_problem_copy(fe, code, p);
	}
	return 0;
}

_printf_(5, 6) static int record_msg(struct reg_state *st, int code, const char *path1,
				     const char *path2, const char *fmt, ...)
{
	struct cdi_error one = CDI_ERROR_INIT;
	va_list ap;
	int r;

	va_start(ap, fmt);
	cdi_problem_addv(&one, code, path1, 0, 0, NULL, fmt, ap);
	va_end(ap);
	if (cdi_error_count(&one) == 0)
		return -ENOMEM;
	r = record(st, cdi_error_problem(&one, 0), code, path1, path2);
	cdi_error_reset(&one);
	return r;
}

/*
 * Why users other than root and the caller could change what st describes, or NULL: written
 * by everyone, by a group that is not root's or the caller's, or owned by someone else. For a
 * directory, writing means adding or replacing specs (a sticky bit does not stop adding).
 */
static const char *insecure(const struct stat *st, char *buf, size_t size)
{
	if (st->st_uid != 0 && st->st_uid != geteuid())
		snprintf(buf, size, "owned by uid %u, not by root", (unsigned)st->st_uid);
	else if (st->st_mode & S_IWOTH)
		snprintf(buf, size, "writable by everyone (mode %04o)",
			 (unsigned)(st->st_mode & 07777));
	else if ((st->st_mode & S_IWGRP) && st->st_gid != 0 && st->st_gid != getegid())
		snprintf(buf, size, "writable by group %u (mode %04o)", (unsigned)st->st_gid,
			 (unsigned)(st->st_mode & 07777));
	else
		return NULL;
	return buf;
}

/*
 * Warn about what others could write, or with CDI_LOAD_SECURE refuse it: true when it may be
 * used. what is "spec" or "spec directory".
 */
static bool trusted(struct reg_state *st, const char *path, const struct stat *sb, const char *what,
		    unsigned flags, int *r)
{
	char why[96];

	if (!insecure(sb, why, sizeof(why)))
		return true;
	if (flags & CDI_LOAD_SECURE) {
		*r = record_msg(st, -EPERM, path, NULL,
				"%s is %s: not used (secure specs asked for)", what, why);
		return false;
	}
	cdi_problem_add(&st->warnings, -EPERM, path, 0, 0, NULL,
			"%s is %s: others could change the devices it defines", what, why);
	return true;
}

/* A device seen again: a higher priority replaces it, the same one is a conflict. */
struct conflict {
	const cdi_spec *other;
	size_t n;
	const char *names[3]; /* the first ones, borrowed from the devices */
};

static int note_conflict(struct conflict **v, size_t *n, size_t *cap, const cdi_spec *other,
			 const char *name)
{
	struct conflict *c = NULL;

	/* Specs conflict with one or two others: a linear look-up is enough. */
	for (size_t i = 0; i < *n && !c; i++)
		if ((*v)[i].other == other)
			c = &(*v)[i];
	if (!c) {
		if (ARRAY_RESERVE(*v, *cap, *n + 1) < 0)
			return -ENOMEM;
		c = &(*v)[(*n)++];
		*c = (struct conflict){ .other = other };
	}
	if (c->n < ELEMENTSOF(c->names))
		c->names[c->n] = name;
	c->n++;
	return 0;
}

/* One line per pair of conflicting files, however many devices they share. */
static int record_conflict(struct reg_state *st, const cdi_spec *spec, const struct conflict *c)
{
	const char *path = cdi_spec_path(spec), *other = cdi_spec_path(c->other);
	char names[256] = "";
	size_t o = 0, shown = c->n < ELEMENTSOF(c->names) ? c->n : ELEMENTSOF(c->names);

	if (c->n == 1)
		return record_msg(st, -EEXIST, path, other,
				  "conflicting device \"%s\" (specs \"%s\", \"%s\")", c->names[0],
				  path, other);
	for (size_t i = 0; i < shown && o < sizeof(names); i++)
		o += (size_t)snprintf(names + o, sizeof(names) - o, "%s\"%s\"", i ? ", " : "",
				      c->names[i]);
	if (c->n > shown && o < sizeof(names))
		snprintf(names + o, sizeof(names) - o, " and %zu more", c->n - shown);
	return record_msg(st, -EEXIST, path, other,
			  "conflicting devices %s (specs \"%s\", \"%s\"): none of the %zu resolves",
			  names, path, other, c->n);
}

static int add_device(struct reg_state *st, const cdi_spec *spec, size_t i, size_t priority,
		      char *name)
{
	if (ARRAY_RESERVE(st->devs, st->cap_devs, st->n_devs + 1) < 0) {
		free(name);
		return -ENOMEM;
	}
	st->devs[st->n_devs] = (struct reg_device){
		.name = name,
		.spec = spec,
		.dev = cdi_spec_device(spec, i),
		.priority = priority,
	};
	if (cdi_strmap_put(&st->index, name, strlen(name), st->n_devs) < 0) {
		free(name);
		return -ENOMEM;
	}
	st->n_devs++;
	return 0;
}

/* Add the devices of a loaded spec, resolving name clashes as the reference does. */
static int add_spec_devices(struct reg_state *st, const cdi_spec *spec, size_t priority)
{
	_cleanup_free_ struct conflict *conflicts = NULL;
	size_t n = cdi_spec_device_count(spec), n_conflicts = 0, cap = 0;
	const char *vendor = cdi_spec_vendor(spec), *class_name = cdi_spec_class(spec);
	int r = 0;

	for (size_t i = 0; i < n && r >= 0; i++) {
		char *name = NULL;
		struct reg_device *old;
		size_t *at;

		if (asprintf(&name, "%s/%s=%s", vendor, class_name, cdi_spec_device_name(spec, i)) <
		    0)
			return -ENOMEM;
		at = cdi_strmap_get(&st->index, name, strlen(name));
		if (!at) {
			r = add_device(st, spec, i, priority, name);
			continue;
		}
		free(name);
		old = &st->devs[*at];
		if (priority > old->priority) {
			old->overridden = old->spec;
			old->spec = spec;
			old->dev = cdi_spec_device(spec, i);
			old->priority = priority;
		} else if (priority == old->priority) {
			old->conflict = true;
			r = note_conflict(&conflicts, &n_conflicts, &cap, old->spec, old->name);
		}
	}
	for (size_t i = 0; i < n_conflicts && r >= 0; i++)
		r = record_conflict(st, spec, &conflicts[i]);
	return r;
}

static int keep_spec(struct reg_state *st, cdi_spec *spec, size_t priority)
{
	if (ARRAY_RESERVE(st->specs, st->cap_specs, st->n_specs + 1) < 0) {
		cdi_spec_free(spec);
		return -ENOMEM;
	}
	st->specs[st->n_specs++] = spec;
	return add_spec_devices(st, spec, priority);
}

/* An invalid spec is skipped; its first problem stays queryable by path. */
static int record_load_failure(struct reg_state *st, const char *path, int r,
			       const struct cdi_error *err)
{
	if (r == -ENOMEM)
		return r;
	if (cdi_error_count(err) > 0)
		return record(st, cdi_error_problem(err, 0), r, path, NULL);
	return record_msg(st, r, path, NULL, "failed to load CDI Spec: %s",
			  r == -ENODATA ? "no Spec data" : strerror(-r));
}

/* A directory's walk: where it is and how much of the caps it used. */
struct walk {
	int fd;
	const char *dir;
	size_t priority;
	unsigned flags;
	size_t n_read;
	size_t bytes;
};

static bool spec_extension(const char *name, unsigned char d_type, void *userdata)
{
	const char *dot = strrchr(name, '.');

	(void)userdata;
	/* No recursion: a directory is not a spec (a symlink to one is, and fails). */
	return d_type != DT_DIR && dot && (strcmp(dot, ".json") == 0 || strcmp(dot, ".yaml") == 0);
}

/* Open one entry as a spec file: the fd, 0 to skip it silently, or <0 after recording why. */
static int open_entry(struct reg_state *st, const struct walk *w, const char *name,
		      const char *path, struct stat *sb, int *ret_fd)
{
	struct stat lsb;
	int fd;

	*ret_fd = -1;
	fd = cdi_open_regular_at(w->fd, name, 0, sb);
	if (fd >= 0) {
		*ret_fd = fd;
		return 0;
	}
	/* Gone since the listing (Walk skips it too), or a directory reached without a link:
	 * nothing to say. A dangling link or a link to a directory is an error for the entry. */
	if ((fd == -ENOENT || fd == -EISDIR) &&
	    (fstatat(w->fd, name, &lsb, AT_SYMLINK_NOFOLLOW) < 0 || S_ISDIR(lsb.st_mode)))
		return 0;
	return record_msg(st, fd, path, NULL, "failed to load CDI Spec: %s",
			  fd == -EISDIR	  ? "is a directory"
			  : fd == -EINVAL ? "not a regular file"
					  : strerror(-fd));
}

/*
 * The spec's tree from the cache cdi-generate wrote beside it, when that cache was made from
 * this very file (spec_cache.h): 1 when the spec is kept (or failed to be), 0 to read the spec.
 */
static int load_cached(struct reg_state *st, struct walk *w, const char *name, const char *path,
		       const struct stat *sb)
{
	_cleanup_json_ json_t *root = NULL;
	cdi_spec *spec = NULL;
	int r;

	if (spec_cache_load_at(w->fd, name, sb, w->flags, &root) < 0)
		return 0;
	r = cdi_spec_new_checked(path, root, &spec);
	if (r < 0)
		return r;
	w->n_read++;
	w->bytes += (size_t)sb->st_size;
	r = keep_spec(st, spec, w->priority);
	return r < 0 ? r : 1;
}

/* Read and load one spec file of the walk; 1 when a cap says to stop the directory here. */
static int load_entry(struct reg_state *st, struct walk *w, const char *name, size_t left)
{
	_cleanup_free_ char *path = NULL, *buf = NULL;
	_cleanup_close_ int fd = -1;
	struct cdi_error err = CDI_ERROR_INIT;
	cdi_spec *spec = NULL;
	struct stat sb;
	size_t len;
	int r = 0;

	if (asprintf(&path, "%s%s%s", w->dir, strcmp(w->dir, "/") == 0 ? "" : "/", name) < 0)
		return -ENOMEM;
	r = open_entry(st, w, name, path, &sb, &fd);
	if (fd < 0)
		return r;
	if ((size_t)sb.st_size <= CDI_SPEC_MAX_BYTES &&
	    w->bytes + (size_t)sb.st_size > CDI_REGISTRY_MAX_DIR_BYTES) {
		r = record_msg(
			st, -EFBIG, w->dir, NULL,
			"spec files beyond %u MiB in all: %s and the %zu after it are skipped",
			CDI_REGISTRY_MAX_DIR_BYTES >> 20, name, left);
		return r < 0 ? r : 1;
	}
	if (!trusted(st, path, &sb, "spec", w->flags, &r))
		return r;
	r = load_cached(st, w, name, path, &sb);
	if (r != 0)
		return r < 0 ? r : 0;
	r = cdi_read_fd(fd, (size_t)sb.st_size, CDI_SPEC_MAX_BYTES, &buf, &len);
	if (r < 0) {
		struct cdi_error rerr = CDI_ERROR_INIT;

		cdi_spec_read_problem(&rerr, path, r);
		r = record_load_failure(st, path, r, &rerr);
		cdi_error_reset(&rerr);
		return r;
	}
	w->n_read++;
	w->bytes += len;
	r = cdi_spec_load_buffer(path, buf, len, w->flags | CDI_LOAD_FIRST_PROBLEM, &spec, &err);
	if (r < 0)
		r = record_load_failure(st, path, r, &err);
	else
		r = keep_spec(st, spec, w->priority);
	cdi_error_reset(&err);
	return r;
}

/* Open a spec directory as Walk would enter it: 0 and no fd when it is to be skipped. */
static int open_dir(struct reg_state *st, const char *dir, unsigned flags, int *ret_fd)
{
	_cleanup_close_ int fd = -1;
	struct stat sb;
	int r = 0;

	*ret_fd = -1;
	if (lstat(dir, &sb) < 0)
		return errno == ENOENT ? 0
				       : record_msg(st, -errno, dir, NULL,
						    "failed to scan CDI spec directory: %s",
						    strerror(errno));
	if (S_ISLNK(sb.st_mode))
		return record_msg(
			st, -ELOOP, dir, NULL,
			"spec directory is a symlink, not scanned (the reference library does not follow it either)");
	if (!S_ISDIR(sb.st_mode))
		return 0; /* a file in place of the directory holds no specs */
	/* O_NOFOLLOW: replaced by a link since the lstat, it is not entered either. */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &sb) < 0)
		return record_msg(st, negative_errno(), dir, NULL,
				  "failed to read CDI spec directory: %s", strerror(errno));
	if (!trusted(st, dir, &sb, "spec directory", flags, &r))
		return r;
	*ret_fd = TAKE_FD(fd);
	return 0;
}

static int scan_dir(struct reg_state *st, const char *dir, size_t priority, unsigned flags)
{
	_cleanup_strv_free_ char **names = NULL;
	struct walk w = { .dir = dir, .priority = priority, .flags = flags };
	size_t n = 0;
	int r;

	r = open_dir(st, dir, flags, &w.fd);
	if (w.fd < 0)
		return r;
	r = dir_list_fd(w.fd, spec_extension, NULL, &names, &n);
	if (r < 0) {
		close(w.fd);
		return r == -ENOMEM
			       ? r
			       : record_msg(st, r, dir, NULL,
					    "failed to read CDI spec directory: %s", strerror(-r));
	}
	r = 0;
	for (size_t i = 0; i < n && r == 0; i++) {
		if (i == CDI_REGISTRY_MAX_DIR_SPECS) {
			r = record_msg(
				st, -E2BIG, dir, NULL,
				"more than %u spec files: %s and the %zu after it are skipped",
				CDI_REGISTRY_MAX_DIR_SPECS, names[i], n - i - 1);
			break;
		}
		r = load_entry(st, &w, names[i], n - i - 1);
	}
	close(w.fd);
	return r < 0 ? r : 0;
}

/* Sort and deduplicate a NULL-terminated list in place. */
static void sort_unique(const char **list, size_t n)
{
	size_t w = 0;

	strv_sort((char **)list, n);
	for (size_t i = 0; i < n; i++)
		if (w == 0 || strcmp(list[w - 1], list[i]) != 0)
			list[w++] = list[i];
	list[w] = NULL;
}

static int build_lists(struct reg_state *st)
{
	size_t n = 0;

	st->device_list = calloc(st->n_devs + 1, sizeof(*st->device_list));
	st->vendor_list = calloc(st->n_specs + 1, sizeof(*st->vendor_list));
	st->class_list = calloc(st->n_specs + 1, sizeof(*st->class_list));
	if (!st->device_list || !st->vendor_list || !st->class_list)
		return -ENOMEM;
	for (size_t i = 0; i < st->n_devs; i++)
		if (!st->devs[i].conflict)
			st->device_list[n++] = st->devs[i].name;
	sort_unique(st->device_list, n);
	for (size_t i = 0; i < st->n_specs; i++) {
		st->vendor_list[i] = cdi_spec_vendor(st->specs[i]);
		st->class_list[i] = cdi_spec_class(st->specs[i]);
	}
	sort_unique(st->vendor_list, st->n_specs);
	sort_unique(st->class_list, st->n_specs);
	return 0;
}

static int scan(const cdi_registry *reg, struct reg_state *ret)
{
	struct reg_state st = { 0 };
	int r = 0;

	for (size_t i = 0; i < reg->n_dirs && r >= 0; i++)
		r = scan_dir(&st, reg->dirs[i], i, reg->flags);
	if (r >= 0)
		r = build_lists(&st);
	if (r < 0) {
		state_free(&st);
		return r;
	}
	*ret = st;
	return 0;
}

_public_ void cdi_registry_free(cdi_registry *reg)
{
	if (!reg)
		return;
	state_free(&reg->st);
	strv_free_n(reg->dirs, reg->n_dirs);
	free(reg);
}

static void registry_freep(cdi_registry **reg)
{
	cdi_registry_free(*reg);
}

_public_ int cdi_registry_new(const char *const *dirs, size_t n_dirs, unsigned load_flags,
			      cdi_registry **ret, struct cdi_error *err)
{
	static const char *const defaults[] = CDI_DEFAULT_SPEC_DIRS;
	__attribute__((cleanup(registry_freep))) cdi_registry *reg = NULL;
	int r;

	if (!ret)
		return cdi_fail(err, -EINVAL, "no place for the registry");
	if (!dirs || n_dirs == 0) {
		dirs = defaults;
		n_dirs = ELEMENTSOF(defaults);
	}
	reg = calloc(1, sizeof(*reg));
	if (!reg)
		return cdi_fail(err, -ENOMEM, "out of memory");
	reg->flags = load_flags;
	reg->dirs = calloc(n_dirs, sizeof(*reg->dirs));
	if (!reg->dirs)
		return cdi_fail(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < n_dirs; i++) {
		if (!dirs[i] || !*dirs[i])
			return cdi_fail(err, -EINVAL, "spec directory %zu is empty", i + 1);
		/* WithSpecDirs cleans every directory. */
		reg->dirs[i] = cdi_path_clean(dirs[i]);
		if (!reg->dirs[i])
			return cdi_fail(err, -ENOMEM, "out of memory");
		reg->n_dirs++;
	}
	r = cdi_registry_refresh(reg, err);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(reg);
	return 0;
}

_public_ int cdi_registry_refresh(cdi_registry *reg, struct cdi_error *err)
{
	struct reg_state st;
	int r;

	if (!reg)
		return cdi_fail(err, -EINVAL, "no registry");
	r = scan(reg, &st);
	if (r < 0)
		return cdi_fail(err, r, "failed to scan CDI spec directories: %s", strerror(-r));
	state_free(&reg->st);
	reg->st = st;
	return 0;
}

_public_ size_t cdi_registry_dir_count(const cdi_registry *reg)
{
	return reg ? reg->n_dirs : 0;
}

_public_ const char *cdi_registry_dir(const cdi_registry *reg, size_t i)
{
	return reg && i < reg->n_dirs ? reg->dirs[i] : NULL;
}

_public_ const struct cdi_error *cdi_registry_errors(const cdi_registry *reg)
{
	return reg ? &reg->st.errors : NULL;
}

_public_ const struct cdi_error *cdi_registry_warnings(const cdi_registry *reg)
{
	return reg ? &reg->st.warnings : NULL;
}

_public_ const struct cdi_error *cdi_registry_file_errors(const cdi_registry *reg, const char *path)
{
	_cleanup_free_ char *clean = NULL;
	size_t *at;

	if (!reg || !path)
		return NULL;
	at = cdi_strmap_get(&reg->st.file_index, path, strlen(path));
	clean = at ? NULL : cdi_path_clean(path);
	if (!at && clean)
		at = cdi_strmap_get(&reg->st.file_index, clean, strlen(clean));
	return at ? &reg->st.files[*at].err : NULL;
}

static const char *const empty_list[] = { NULL };

_public_ const char *const *cdi_registry_devices(const cdi_registry *reg)
{
	return reg && reg->st.device_list ? reg->st.device_list : empty_list;
}

_public_ const char *const *cdi_registry_vendors(const cdi_registry *reg)
{
	return reg && reg->st.vendor_list ? reg->st.vendor_list : empty_list;
}

_public_ const char *const *cdi_registry_classes(const cdi_registry *reg)
{
	return reg && reg->st.class_list ? reg->st.class_list : empty_list;
}

static const struct reg_device *find(const cdi_registry *reg, const char *qualified_name)
{
	size_t *at;

	if (!reg || !qualified_name)
		return NULL;
	at = cdi_strmap_get(&reg->st.index, qualified_name, strlen(qualified_name));
	return at && !reg->st.devs[*at].conflict ? &reg->st.devs[*at] : NULL;
}

_public_ const cdi_spec *cdi_registry_lookup(const cdi_registry *reg, const char *qualified_name,
					     const json_t **ret_device)
{
	const struct reg_device *d = find(reg, qualified_name);

	if (!d)
		return NULL;
	if (ret_device)
		*ret_device = d->dev;
	return d->spec;
}

_public_ const cdi_spec *cdi_registry_overridden(const cdi_registry *reg,
						 const char *qualified_name)
{
	const struct reg_device *d = find(reg, qualified_name);

	return d ? d->overridden : NULL;
}
