/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "injected_libs.h"
#include "macro.h"
#include "mount_links.h"
#include "problem.h"
#include "rootfs.h"

/* A bind mount's members. */
struct bind {
	const char *dest, *source;
	const json_t *options;
	size_t source_len;
};

static bool is_bind_mount(const json_t *m, struct bind *ret)
{
	const char *type = json_string_value(json_object_get(m, "type"));
	const json_t *opts = json_object_get(m, "options"), *o;
	bool bind = type && strcmp(type, "bind") == 0;
	size_t i;

	json_array_foreach (opts, i, o) {
		const char *s = json_string_value(o);

		bind = bind || (s && (strcmp(s, "bind") == 0 || strcmp(s, "rbind") == 0));
	}
	*ret = (struct bind){
		.dest = json_string_value(json_object_get(m, "destination")),
		.source = json_string_value(json_object_get(m, "source")),
		.options = opts,
	};
	if (!bind || !ret->dest || !ret->source || ret->dest[0] != '/' || ret->source[0] != '/')
		return false;
	ret->source_len = strlen(ret->source);
	return true;
}

/* Whether path is under dir ("dir/..."). */
static bool under(const char *path, const char *dir, size_t dir_len)
{
	return strncmp(path, dir, dir_len) == 0 && path[dir_len] == '/';
}

/* Whether a mount's source is a library directory cdi-generate built: it holds its cache file
 * (INJECTED_LIBS_DIR_CACHE), a regular file of root or ours that no one else may write. Only
 * there is a file known to be what the directory holds under the same name. */
static bool is_library_dir(const struct bind *d)
{
	char path[PATH_MAX];
	struct stat st;

	if ((size_t)snprintf(path, sizeof(path), "%s/" INJECTED_LIBS_DIR_CACHE, d->source) >=
	    sizeof(path))
		return false;
	return lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       (st.st_uid == 0 || st.st_uid == geteuid()) && !(st.st_mode & 022);
}

/* The mount of mounts whose source holds f's, the deepest one; NULL when none may stand for f. */
static const struct bind *holder(const struct bind *f, const struct bind *v, size_t n,
				 const bool *library_dir)
{
	const struct bind *best = NULL;

	for (size_t i = 0; i < n; i++) {
		const struct bind *d = &v[i];
		size_t dl;

		if (!d->dest || d == f || !library_dir[i] ||
		    !under(f->source, d->source, d->source_len) ||
		    !json_equal((json_t *)f->options, (json_t *)d->options))
			continue;
		/* Not a mount inside the directory's, nor the directory inside the file's place. */
		dl = strlen(d->dest);
		if (under(f->dest, d->dest, dl) || strcmp(f->dest, d->dest) == 0 ||
		    under(d->dest, f->dest, strlen(f->dest)))
			continue;
		if (!best || d->source_len > best->source_len)
			best = d;
	}
	return best;
}

/* The binds of oci's mounts (NULL entries' dest for the others) and which of them are library
 * directories, in *ret and *ret_dirs; n_dirs counts those. */
static int binds_of(const json_t *mounts, struct bind **ret, bool **ret_dirs, size_t *n_dirs)
{
	size_t n = json_array_size(mounts), i;
	_cleanup_free_ struct bind *v = calloc(n ? n : 1, sizeof(*v));
	_cleanup_free_ bool *dirs = calloc(n ? n : 1, sizeof(*dirs));
	const json_t *m;

	if (!v || !dirs)
		return -ENOMEM;
	*n_dirs = 0;
	json_array_foreach (mounts, i, m)
		if (!is_bind_mount(m, &v[i]))
			v[i] = (struct bind){ 0 };
	/* Only a mount whose source holds another's may be the directory: one lookup each. */
	for (i = 0; i < n; i++) {
		bool holds = false;

		for (size_t k = 0; v[i].dest && !holds && k < n; k++)
			holds = k != i && v[k].dest &&
				under(v[k].source, v[i].source, v[i].source_len);
		if (holds && is_library_dir(&v[i]))
			dirs[i] = true, ++*n_dirs;
	}
	*ret = TAKE_PTR(v);
	*ret_dirs = TAKE_PTR(dirs);
	return 0;
}

/* The directory of the rootfs holding path's last component, kept open for the next link. */
struct parent {
	char path[PATH_MAX];
	int fd;
};

static int open_parent(int root_fd, const char *dest, struct parent *p, const char **ret_name)
{
	const char *slash = strrchr(dest, '/');
	size_t n = (size_t)(slash - dest);

	*ret_name = slash + 1;
	if (!**ret_name || n + 2 > sizeof(p->path))
		return -EINVAL;
	if (p->fd >= 0 && strlen(p->path) == (n ? n : 1) &&
	    strncmp(p->path, n ? dest : "/", n) == 0)
		return p->fd;
	if (p->fd >= 0)
		close(p->fd);
	memcpy(p->path, n ? dest : "/", n ? n : 1);
	p->path[n ? n : 1] = '\0';
	p->fd = rootfs_open_dir(root_fd, p->path, 1);
	if (p->fd < 0)
		p->path[0] = '\0';
	return p->fd;
}

/* dest in the rootfs as a link to target: 1 made (or there already), 0 not (the mount stays),
 * -EROFS when the rootfs is read-only. */
static int make_link(int root_fd, struct parent *p, const char *dest, const char *target)
{
	char have[PATH_MAX];
	const char *name;
	struct stat st;
	ssize_t n;
	int dir = open_parent(root_fd, dest, p, &name);

	if (dir < 0)
		return dir == -EROFS ? -EROFS : 0;
	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISDIR(st.st_mode))
			return 0;
		if (S_ISLNK(st.st_mode) &&
		    (n = readlinkat(dir, name, have, sizeof(have))) == (ssize_t)strlen(target) &&
		    memcmp(have, target, (size_t)n) == 0)
			return 1;
		if (unlinkat(dir, name, 0) < 0)
			return errno == EROFS ? -EROFS : 0;
	}
	if (symlinkat(target, dir, name) < 0)
		return errno == EROFS ? -EROFS : 0;
	return 1;
}

int mount_links_make(json_t *oci, const struct mount_links_root *root, size_t *ret_made,
		     struct cdi_error *err)
{
	json_t *mounts = json_object_get(oci, "mounts");
	struct parent parent = { .fd = -1 };
	_cleanup_free_ struct bind *v = NULL;
	_cleanup_free_ bool *linked = NULL, *dirs = NULL;
	_cleanup_json_ json_t *kept = NULL;
	size_t n = json_array_size(mounts), made = 0, n_dirs = 0;
	int r = 0;

	*ret_made = 0;
	if (n < 2)
		return 0;
	linked = calloc(n, sizeof(*linked));
	if (!linked || binds_of(mounts, &v, &dirs, &n_dirs) < 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	for (size_t i = 0; n_dirs && i < n && r != -EROFS; i++) {
		const struct bind *d = v[i].dest ? holder(&v[i], v, n, dirs) : NULL;
		char target[PATH_MAX];

		if (!d)
			continue;
		if ((size_t)snprintf(target, sizeof(target), "%s%s", d->dest,
				     v[i].source + d->source_len) >= sizeof(target))
			continue;
		/* The rootfs is opened for the first link only: most configs have none. */
		if (*root->fd < 0 && (r = root->open(root->ctx, err)) < 0)
			break;
		if (*root->fd < 0)
			*root->fd = r;
		r = make_link(*root->fd, &parent, v[i].dest, target);
		linked[i] = r == 1;
		made += r == 1;
	}
	if (parent.fd >= 0)
		close(parent.fd);
	if (r < 0 && r != -EROFS)
		return r; /* the rootfs could not be opened: the problem is said */
	if (made == 0)
		return 0;
	kept = json_array();
	for (size_t i = 0; kept && i < n; i++)
		if (!linked[i] && json_array_append(kept, json_array_get(mounts, i)) < 0)
			json_decref(TAKE_PTR(kept));
	if (!kept || json_object_set(oci, "mounts", kept) < 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	*ret_made = made;
	return 0;
}
