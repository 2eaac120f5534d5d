/* SPDX-License-Identifier: Apache-2.0 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "bundle/rootfs.h"
#include "dir_list.h"
#include "ld_conf.h"
#include "ldcache.h"
#include "macro.h"
#include "problem.h"
#include "read_file.h"
#include "strv.h"

#define GLIBC_HWCAPS "glibc-hwcaps"

struct conf_walk {
	int root_fd;
	ld_conf_line_fn fn;
	void *userdata;
	unsigned files;
};

static int parse_conf(struct conf_walk *w, const char *file, unsigned depth);

/* A file of the rootfs, regular, read whole without blocking; NULL when there is none. */
static char *read_conf_file(int root_fd, const char *path, size_t *ret_len)
{
	_cleanup_close_ int fd = rootfs_open(root_fd, path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	char *buf = NULL;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    read_fd_all(fd, path, LD_CONF_MAX_BYTES, &buf, ret_len, NULL) < 0)
		return NULL;
	return buf;
}

static bool has_magic(const char *s)
{
	return strpbrk(s, "*?[\\") != NULL;
}

/* glob(3) of pattern inside the rootfs, one component at a time; matches into out. */
static int glob_walk(int root_fd, const char *prefix, char **comps, size_t n, size_t i,
		     struct strv_builder *out)
{
	_cleanup_strv_free_ char **names = NULL;
	_cleanup_close_ int dfd = -1;
	size_t n_names = 0;
	int r;

	if (i == n)
		return out->n < LD_CONF_MAX_FILES ? strv_builder_add(out, prefix) : 0;
	if (!has_magic(comps[i])) {
		_cleanup_free_ char *next = NULL;

		if (asprintf(&next, "%s/%s", prefix, comps[i]) < 0)
			return -ENOMEM;
		return glob_walk(root_fd, next, comps, n, i + 1, out);
	}
	dfd = rootfs_open(root_fd, *prefix ? prefix : "/", O_RDONLY | O_DIRECTORY);
	if (dfd < 0 || dir_list_fd(dfd, NULL, NULL, &names, &n_names) < 0)
		return 0; /* GLOB_ABORTED / GLOB_NOMATCH: nothing from here */
	for (size_t k = 0; k < n_names; k++) {
		_cleanup_free_ char *next = NULL;

		if (fnmatch(comps[i], names[k], FNM_PERIOD) != 0)
			continue;
		if (asprintf(&next, "%s/%s", prefix, names[k]) < 0)
			return -ENOMEM;
		r = glob_walk(root_fd, next, comps, n, i + 1, out);
		if (r < 0)
			return r;
	}
	return 0;
}

/* parse_conf_include(): the files of one include word, in glob's (C collation) order. */
static int parse_include(struct conf_walk *w, const char *file, const char *pattern, unsigned depth)
{
	_cleanup_free_ char *full = NULL, *copy = NULL;
	_cleanup_strv_free_ char **comps = NULL, **found = NULL;
	struct strv_builder b = { 0 }, res = { 0 };
	const char *slash = strrchr(file, '/');
	size_t n = 0, n_found = 0;
	int r = 0;

	if (pattern[0] != '/' && slash)
		r = asprintf(&full, "%.*s/%s", (int)(slash - file), file, pattern);
	else
		r = asprintf(&full, "%s", pattern);
	if (r < 0) {
		full = NULL;
		return -ENOMEM;
	}
	copy = strdup(full);
	if (!copy)
		return -ENOMEM;
	for (char *save = NULL, *c = strtok_r(copy, "/", &save); c; c = strtok_r(NULL, "/", &save))
		if (strv_builder_add(&b, c) < 0) {
			strv_builder_clear(&b);
			return -ENOMEM;
		}
	comps = strv_builder_steal(&b, &n);
	if (!comps)
		return -ENOMEM;
	r = glob_walk(w->root_fd, "", comps, n, 0, &res);
	found = strv_builder_steal(&res, &n_found);
	if (r < 0 || !found)
		return r < 0 ? r : -ENOMEM;
	strv_sort(found, n_found);
	for (size_t i = 0; i < n_found; i++) {
		r = parse_conf(w, found[i], depth + 1);
		if (r < 0)
			return r;
	}
	return 0;
}

/* One line of a configuration file (NUL-terminated, its newline gone). */
static int parse_line(struct conf_walk *w, const char *file, char *line, unsigned depth)
{
	char *cp = line, *word;
	int r;

	*strchrnul(line, '#') = '\0';
	while (isspace((unsigned char)*cp))
		cp++;
	if (!*cp)
		return 0;
	if (strncmp(cp, "include", 7) == 0 && isblank((unsigned char)cp[7])) {
		cp += 8;
		while ((word = strsep(&cp, " \t")))
			if (*word && (r = parse_include(w, file, word, depth)) < 0)
				return r;
		return 0;
	}
	if (strncasecmp(cp, "hwcap", 5) == 0 && isblank((unsigned char)cp[5]))
		return 0; /* ignored by ldconfig since glibc 2.33 */
	return w->fn(cp, w->userdata);
}

static int parse_conf(struct conf_walk *w, const char *file, unsigned depth)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	char *line, *end, *next;
	int r;

	if (depth > LD_CONF_MAX_DEPTH || w->files >= LD_CONF_MAX_FILES)
		return 0;
	w->files++;
	buf = read_conf_file(w->root_fd, file, &len);
	if (!buf)
		return 0;
	/* Line by line as getline() reads them: a NUL ends a line's text, not the file. */
	for (line = buf, end = buf + len; line < end; line = next) {
		next = memchr(line, '\n', (size_t)(end - line));
		if (next)
			*next++ = '\0';
		else
			next = end;
		r = parse_line(w, file, line, depth);
		if (r < 0)
			return r;
	}
	return 0;
}

int ld_conf_read(int root_fd, const char *conf, ld_conf_line_fn fn, void *userdata)
{
	struct conf_walk w = { .root_fd = root_fd, .fn = fn, .userdata = userdata };

	return parse_conf(&w, conf, 0);
}

int ld_dirs_add(struct ld_dirs *dirs, const char *path, const char *hwcaps, int flag,
		const struct stat *st)
{
	struct ld_dir *d;

	for (size_t i = 0; i < dirs->n; i++)
		if (dirs->v[i].dev == st->st_dev && dirs->v[i].ino == st->st_ino) {
			dirs->v[i].flag = flag; /* "Use the newer information." */
			return 0;
		}
	if (dirs->n >= LD_CONF_MAX_DIRS)
		return -E2BIG;
	if (ARRAY_RESERVE(dirs->v, dirs->cap, dirs->n + 1) < 0)
		return -ENOMEM;
	d = &dirs->v[dirs->n];
	*d = (struct ld_dir){ .flag = flag, .dev = st->st_dev, .ino = st->st_ino };
	d->path = strdup(path);
	d->hwcaps = hwcaps ? strdup(hwcaps) : NULL;
	if (!d->path || (hwcaps && !d->hwcaps)) {
		free(d->path);
		free(d->hwcaps);
		return -ENOMEM;
	}
	dirs->n++;
	return 1;
}

static bool keep_hwcaps_subdir(const char *name, unsigned char d_type, void *userdata)
{
	(void)userdata;
	return name[0] != '.' && d_type != DT_REG && !strchr(name, ':');
}

/* add_glibc_hwcaps_subdirectories(): DIR/glibc-hwcaps/NAME, each a directory of its own. */
static int add_hwcaps_subdirs(struct ld_dirs *dirs, int root_fd, const char *path, int flag)
{
	_cleanup_strv_free_ char **names = NULL;
	_cleanup_free_ char *sub = NULL;
	_cleanup_close_ int dfd = -1;
	size_t n = 0;
	int r;

	if (asprintf(&sub, "%s/" GLIBC_HWCAPS, path) < 0) {
		sub = NULL;
		return -ENOMEM;
	}
	dfd = rootfs_open(root_fd, sub, O_RDONLY | O_DIRECTORY);
	if (dfd < 0 || dir_list_fd(dfd, keep_hwcaps_subdir, NULL, &names, &n) < 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *child = NULL;
		_cleanup_close_ int cfd = -1;
		struct stat st;

		if (asprintf(&child, "%s/%s", sub, names[i]) < 0) {
			child = NULL;
			return -ENOMEM;
		}
		cfd = rootfs_open(root_fd, child, O_PATH);
		if (cfd < 0 || fstat(cfd, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		r = ld_dirs_add(dirs, child, names[i], flag, &st);
		if (r < 0)
			return r;
	}
	return 0;
}

/* "DIR=TYPE": the type glibc's lib_types table gives it. */
static int line_flag(const char *type)
{
	static const struct {
		const char *name;
		int flag;
	} types[] = {
		{ "libc4", 0x0000 },
		{ "libc5", 0x0002 },
		{ "libc6", LDCACHE_FLAG_LIBC6 },
		{ "glibc2", LDCACHE_FLAG_LIBC6 },
	};

	for (size_t i = 0; i < ELEMENTSOF(types); i++)
		if (strcmp(type, types[i].name) == 0)
			return types[i].flag;
	return LD_DIR_FLAG_ANY;
}

int ld_dirs_add_line(struct ld_dirs *dirs, int root_fd, const char *line)
{
	_cleanup_free_ char *path = strdup(line);
	_cleanup_close_ int fd = -1;
	int flag = LD_DIR_FLAG_ANY, r;
	struct stat st;
	char *eq;
	size_t i;

	if (!path)
		return -ENOMEM;
	eq = strchr(path, '=');
	if (eq) {
		*eq = '\0';
		flag = line_flag(eq + 1);
	}
	i = strlen(path);
	while (i > 0 && isspace((unsigned char)path[i - 1]))
		path[--i] = '\0';
	while (i > 0 && path[i - 1] == '/')
		path[--i] = '\0';
	if (i == 0)
		return 0;
	fd = rootfs_open(root_fd, path, O_PATH);
	if (fd < 0 || fstat(fd, &st) < 0)
		return 0; /* "Can't stat": not a directory to scan */
	r = ld_dirs_add(dirs, path, NULL, flag, &st);
	if (r <= 0)
		return r;
	return add_hwcaps_subdirs(dirs, root_fd, path, flag);
}

struct add_ctx {
	struct ld_dirs *dirs;
	int root_fd;
};

static int add_line(const char *line, void *userdata)
{
	const struct add_ctx *ctx = userdata;

	return ld_dirs_add_line(ctx->dirs, ctx->root_fd, line);
}

int ld_dirs_read_conf(struct ld_dirs *dirs, int root_fd)
{
	struct add_ctx ctx = { dirs, root_fd };

	return ld_conf_read(root_fd, "/etc/ld.so.conf", add_line, &ctx);
}

void ld_dirs_clear(struct ld_dirs *dirs)
{
	for (size_t i = 0; i < dirs->n; i++) {
		free(dirs->v[i].path);
		free(dirs->v[i].hwcaps);
	}
	free(dirs->v);
	*dirs = (struct ld_dirs){ 0 };
}

struct dropin_match {
	const char *prefix;
	size_t seen;
};

static bool keep_dropin(const char *name, unsigned char d_type, void *userdata)
{
	struct dropin_match *m = userdata;

	(void)d_type;
	return strncmp(name, m->prefix, strlen(m->prefix)) == 0 && strstr(name, ".conf") &&
	       m->seen++ < LD_CONF_MAX_FILES;
}

/* Whether a drop-in of the prefix in dfd holds exactly text. */
static bool dropin_exists(int dfd, const char *prefix, const char *text)
{
	struct dropin_match m = { .prefix = prefix };
	_cleanup_strv_free_ char **names = NULL;
	size_t n = 0, want = strlen(text);

	if (dir_list_fd(dfd, keep_dropin, &m, &names, &n) < 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *buf = NULL;
		size_t len = 0;

		if (read_regular_at(dfd, names[i], names[i], LD_CONF_MAX_BYTES, READ_NOFOLLOW, &buf,
				    &len, NULL, NULL) == 0 &&
		    len == want && memcmp(buf, text, len) == 0)
			return true;
	}
	return false;
}

int ld_conf_dropin(int root_fd, const char *prefix, const char *text, struct cdi_error *err)
{
	_cleanup_close_ int dfd = rootfs_open_dir(root_fd, LD_CONF_D, 1);
	char name[64], label[128];
	uint32_t n = 0;

	if (dfd < 0)
		return cdi_problem_add(err, dfd, LD_CONF_D, 0, 0, NULL, "%s", strerror(-dfd));
	if (dropin_exists(dfd, prefix, text))
		return 0;
	for (unsigned attempt = 0; attempt < 16; attempt++) {
		struct stat st;

		if (getrandom(&n, sizeof(n), 0) != sizeof(n))
			n = (uint32_t)getpid() * 2654435761u + attempt;
		snprintf(name, sizeof(name), "%s%u.conf", prefix, n);
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT)
			break;
	}
	snprintf(label, sizeof(label), LD_CONF_D "/%s", name);
	return rootfs_replace_file(dfd, name, text, strlen(text), 0644, label, err);
}
