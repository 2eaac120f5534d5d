/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Paths resolved inside a root: a symlink to /usr/lib/... means <root>/usr/lib/..., ".." stops at
 * the root, and nothing resolves outside it. The memo keeps every directory and name looked up,
 * hashed, for the whole run.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hash.h"
#include "macro.h"
#include "root_fs.h"

#define MAX_SYMLINKS 40

/* One walk through a path: what is resolved so far, what is left, the lstat of the last part. */
struct walk {
	char resolved[PATH_MAX]; /* real, inside the root; "" is the root itself */
	size_t rlen;
	char todo[PATH_MAX]; /* what is left to walk */
	const char *p;
	char full[PATH_MAX]; /* root + resolved, for lstat */
	size_t root_len;
	unsigned links;
	bool have_st;
	struct stat st;
};

static int walk_init(struct walk *w, const char *root, const char *real_prefix, const char *rest)
{
	w->rlen = strlen(real_prefix);
	w->root_len = strlen(root);
	if (w->rlen >= sizeof(w->resolved) || strlen(rest) >= sizeof(w->todo) ||
	    w->root_len >= sizeof(w->full))
		return -ENAMETOOLONG;
	memcpy(w->resolved, real_prefix, w->rlen + 1);
	if (w->rlen == 1 && w->resolved[0] == '/')
		w->rlen = 0; /* "/" is the empty prefix */
	w->resolved[w->rlen] = '\0';
	strcpy(w->todo, rest);
	w->p = w->todo;
	memcpy(w->full, root, w->root_len);
	w->links = 0;
	w->have_st = false;
	return 0;
}

/* The resolved part is physical, so ".." is its parent; the root's parent is the root. */
static void walk_up(struct walk *w)
{
	while (w->rlen > 0 && w->resolved[w->rlen - 1] != '/')
		w->rlen--;
	if (w->rlen > 0)
		w->rlen--;
	w->resolved[w->rlen] = '\0';
	w->have_st = false;
}

/* The last component is a symlink: its target replaces it in what is left to walk. */
static int walk_link(struct walk *w)
{
	char target[PATH_MAX], next[PATH_MAX];
	ssize_t len;

	if (++w->links > MAX_SYMLINKS)
		return -ELOOP;
	len = readlink(w->full, target, sizeof(target));
	if (len < 0)
		return negative_errno();
	if (len == 0)
		return -ENOENT;
	if ((size_t)len >= sizeof(target) || (size_t)len + 1 + strlen(w->p) >= sizeof(next))
		return -ENAMETOOLONG;
	memcpy(next, target, (size_t)len);
	strcpy(next + len, w->p); /* p is "" or starts with '/' */
	strcpy(w->todo, next);
	w->p = w->todo;
	if (target[0] == '/')
		w->rlen = 0; /* absolute targets restart at the root, never above it */
	w->resolved[w->rlen] = '\0';
	w->have_st = false;
	return 0;
}

/* Walk one component [c, c + n): append it, lstat it, follow it if it is a link. */
static int walk_step(struct walk *w, const char *c, size_t n)
{
	if (n == 1 && c[0] == '.')
		return 0;
	if (n == 2 && c[0] == '.' && c[1] == '.') {
		walk_up(w);
		return 0;
	}
	if (w->rlen + 1 + n >= sizeof(w->resolved) ||
	    w->root_len + w->rlen + 1 + n >= sizeof(w->full))
		return -ENAMETOOLONG;
	w->resolved[w->rlen] = '/';
	memcpy(w->resolved + w->rlen + 1, c, n);
	w->resolved[w->rlen + 1 + n] = '\0';
	memcpy(w->full + w->root_len, w->resolved, w->rlen + 2 + n);
	if (lstat(w->full, &w->st) < 0)
		return negative_errno();
	if (S_ISLNK(w->st.st_mode))
		return walk_link(w);
	w->rlen += 1 + n;
	w->have_st = true;
	return 0;
}

/* The walk behind root_resolve(), from a prefix already known to be real ("" for the root). */
static int resolve_from(const char *root, const char *real_prefix, const char *rest,
			char **ret_path, struct stat *ret_st)
{
	struct walk w;
	int r;

	r = walk_init(&w, root, real_prefix, rest);
	if (r < 0)
		return r;
	for (;;) {
		const char *c, *end;

		while (*w.p == '/')
			w.p++;
		if (!*w.p)
			break;
		c = w.p;
		end = strchrnul(c, '/');
		w.p = end;
		r = walk_step(&w, c, (size_t)(end - c));
		if (r < 0)
			return r;
	}
	if (!w.have_st) {
		memcpy(w.full + w.root_len, w.resolved, w.rlen + 1);
		if (w.root_len + w.rlen == 0)
			strcpy(w.full, "/");
		if (lstat(w.full, &w.st) < 0)
			return negative_errno();
	}
	if (ret_path) {
		*ret_path = strdup(w.rlen ? w.resolved : "/");
		if (!*ret_path)
			return -ENOMEM;
	}
	if (ret_st)
		*ret_st = w.st;
	return 0;
}

int root_resolve(const char *root, const char *path, char **ret_path, struct stat *ret_st)
{
	if (!path || path[0] != '/')
		return -EINVAL;
	return resolve_from(root ? root : "", "", path, ret_path, ret_st);
}

int root_resolve_at(const char *root, const char *real_dir, const char *name, char **ret_path,
		    struct stat *ret_st)
{
	if (!real_dir || real_dir[0] != '/')
		return -EINVAL;
	return resolve_from(root ? root : "", real_dir, name, ret_path, ret_st);
}

/* ---- the memo ---- */

enum entry_kind {
	ENTRY_DIR,  /* key: a directory path as asked for */
	ENTRY_NAME, /* key: real_dir/name */
	ENTRY_TAG,  /* key: the caller's; + the namespace */
};

struct root_fs_entry {
	struct root_fs_entry *next;
	uint64_t hash;
	enum entry_kind kind;
	char *real; /* NULL when it did not resolve (err) */
	int err;
	struct stat st;
	size_t tag;
	char key[]; /* one allocation with the entry: a big cache makes hundreds of thousands */
};

void root_fs_init(struct root_fs *fs, const char *root)
{
	*fs = (struct root_fs){ .root = root ? root : "" };
}

void root_fs_clear(struct root_fs *fs)
{
	for (size_t i = 0; i < fs->n_buckets; i++)
		while (fs->buckets[i]) {
			struct root_fs_entry *e = fs->buckets[i];

			fs->buckets[i] = e->next;
			free(e->real);
			free(e);
		}
	free(fs->buckets);
	root_fs_init(fs, fs->root);
}

static uint64_t entry_hash(enum entry_kind kind, const char *key, size_t len)
{
	return hash_fnv1a64(key, len) ^ ((uint64_t)kind * 0x9e3779b97f4a7c15ull);
}

static struct root_fs_entry *memo_find(const struct root_fs *fs, enum entry_kind kind,
				       const char *key, size_t len, uint64_t h)
{
	if (fs->n_buckets == 0)
		return NULL;
	for (struct root_fs_entry *e = fs->buckets[h & (fs->n_buckets - 1)]; e; e = e->next)
		if (e->hash == h && e->kind == kind && strncmp(e->key, key, len) == 0 &&
		    e->key[len] == '\0')
			return e;
	return NULL;
}

/* Keep at most one entry per bucket on average: double and rehash. */
static int memo_grow(struct root_fs *fs)
{
	size_t n = fs->n_buckets ? fs->n_buckets * 2 : 256;
	struct root_fs_entry **b = calloc(n, sizeof(*b));

	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < fs->n_buckets; i++)
		while (fs->buckets[i]) {
			struct root_fs_entry *e = fs->buckets[i];

			fs->buckets[i] = e->next;
			e->next = b[e->hash & (n - 1)];
			b[e->hash & (n - 1)] = e;
		}
	free(fs->buckets);
	fs->buckets = b;
	fs->n_buckets = n;
	return 0;
}

/* Remember a result; takes real (also on failure). */
static int memo_add(struct root_fs *fs, enum entry_kind kind, const char *key, size_t len,
		    uint64_t h, char *real, int err, const struct stat *st,
		    struct root_fs_entry **ret)
{
	struct root_fs_entry *e;

	if (fs->n + 1 > fs->n_buckets && memo_grow(fs) < 0) {
		free(real);
		return -ENOMEM;
	}
	e = malloc(sizeof(*e) + len + 1);
	if (!e) {
		free(real);
		return -ENOMEM;
	}
	memcpy(e->key, key, len);
	e->key[len] = '\0';
	e->hash = h;
	e->kind = kind;
	e->tag = SIZE_MAX;
	e->real = real;
	e->err = err;
	if (st)
		e->st = *st;
	else
		memset(&e->st, 0, sizeof(e->st));
	e->next = fs->buckets[h & (fs->n_buckets - 1)];
	fs->buckets[h & (fs->n_buckets - 1)] = e;
	fs->n++;
	*ret = e;
	return 0;
}

/* Resolve one plain name in real_dir (depth: links followed so far in this directory). */
static int name_resolve(struct root_fs *fs, const char *real_dir, const char *name, unsigned depth,
			struct root_fs_entry **ret);

/* What lstat of full said is a link: resolve its target from real_dir. */
static int link_resolve(struct root_fs *fs, const char *real_dir, const char *full, unsigned depth,
			char **ret_real, struct stat *ret_st)
{
	char target[PATH_MAX];
	struct root_fs_entry *e;
	ssize_t len;
	int r;

	if (depth >= MAX_SYMLINKS)
		return -ELOOP;
	len = readlink(full, target, sizeof(target));
	if (len < 0)
		return negative_errno();
	if (len == 0 || (size_t)len >= sizeof(target))
		return len ? -ENAMETOOLONG : -ENOENT;
	target[len] = '\0';
	if (target[0] == '/')
		return resolve_from(fs->root, "", target, ret_real, ret_st);
	if (strchr(target, '/') || strcmp(target, "..") == 0 || strcmp(target, ".") == 0)
		return resolve_from(fs->root, real_dir, target, ret_real, ret_st);
	/* A link to a name beside it (libcuda.so -> libcuda.so.1): through the memo too. */
	r = name_resolve(fs, real_dir, target, depth + 1, &e);
	if (r < 0)
		return r;
	if (e->err < 0)
		return e->err;
	*ret_real = strdup(e->real);
	if (!*ret_real)
		return -ENOMEM;
	*ret_st = e->st;
	return 0;
}

static int name_resolve(struct root_fs *fs, const char *real_dir, const char *name, unsigned depth,
			struct root_fs_entry **ret)
{
	char key[PATH_MAX], full[PATH_MAX];
	size_t dlen = strcmp(real_dir, "/") ? strlen(real_dir) : 0, nlen = strlen(name);
	size_t rootlen = strlen(fs->root), klen = dlen + 1 + nlen;
	struct root_fs_entry *e;
	char *real = NULL;
	struct stat st = { 0 };
	uint64_t h;
	int r;

	if (klen >= sizeof(key) || rootlen + klen >= sizeof(full))
		return -ENAMETOOLONG;
	memcpy(key, real_dir, dlen);
	key[dlen] = '/';
	memcpy(key + dlen + 1, name, nlen + 1);
	h = entry_hash(ENTRY_NAME, key, klen);
	e = memo_find(fs, ENTRY_NAME, key, klen, h);
	if (e) {
		*ret = e;
		return 0;
	}
	memcpy(full, fs->root, rootlen);
	memcpy(full + rootlen, key, klen + 1);
	if (lstat(full, &st) < 0)
		r = negative_errno();
	else if (S_ISLNK(st.st_mode))
		r = link_resolve(fs, real_dir, full, depth, &real, &st);
	else
		r = (real = strdup(key)) ? 0 : -ENOMEM;
	if (r == -ENOMEM)
		return r;
	return memo_add(fs, ENTRY_NAME, key, klen, h, real, r, &st, ret);
}

int root_fs_name(struct root_fs *fs, const char *real_dir, const char *name, const char **ret_real,
		 const struct stat **ret_st)
{
	struct root_fs_entry *e;
	int r;

	if (!*name || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return -EINVAL;
	r = name_resolve(fs, real_dir, name, 0, &e);
	if (r < 0)
		return r;
	if (e->err < 0)
		return e->err;
	*ret_real = e->real;
	if (ret_st)
		*ret_st = &e->st;
	return 0;
}

/* The last component of a directory path, [name], inside parent_real: the real directory. */
static int dir_last(struct root_fs *fs, const char *parent_real, const char *name, char **ret)
{
	const struct stat *st;
	const char *real;
	struct stat buf;
	int r;

	/* "." and ".." are rare in the paths we build: those go the slow way, unremembered. */
	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
		r = root_resolve_at(fs->root, parent_real, name, ret, &buf);
		if (r == 0 && !S_ISDIR(buf.st_mode)) {
			free(*ret);
			r = -ENOTDIR;
		}
		return r;
	}
	r = root_fs_name(fs, parent_real, name, &real, &st);
	if (r < 0)
		return r;
	if (!S_ISDIR(st->st_mode))
		return -ENOTDIR;
	*ret = strdup(real);
	return *ret ? 0 : -ENOMEM;
}

/* root_fs_dir() of the first len bytes of path. */
static int dir_resolve(struct root_fs *fs, const char *path, size_t len, const char **ret_real)
{
	const char *parent_real = NULL;
	struct root_fs_entry *e;
	char name[NAME_MAX + 1];
	char *real = NULL;
	size_t plen;
	uint64_t h;
	int r;

	while (len > 1 && path[len - 1] == '/')
		len--;
	if (len == 0 || (len == 1 && path[0] == '/')) {
		*ret_real = "/";
		return 0;
	}
	h = entry_hash(ENTRY_DIR, path, len);
	e = memo_find(fs, ENTRY_DIR, path, len, h);
	if (!e) {
		for (plen = len; plen > 0 && path[plen - 1] != '/'; plen--)
			;
		r = dir_resolve(fs, path, plen, &parent_real);
		if (r == 0 && len - plen > NAME_MAX)
			r = -ENAMETOOLONG;
		if (r == 0) {
			memcpy(name, path + plen, len - plen);
			name[len - plen] = '\0';
			r = dir_last(fs, parent_real, name, &real);
		}
		if (r == -ENOMEM)
			return r;
		r = memo_add(fs, ENTRY_DIR, path, len, h, real, r, NULL, &e);
		if (r < 0)
			return r;
	}
	*ret_real = e->real;
	return e->real ? 0 : e->err < 0 ? e->err : -ENOENT;
}

int root_fs_dir(struct root_fs *fs, const char *path, const char **ret_real)
{
	if (!path || path[0] != '/')
		return -EINVAL;
	return dir_resolve(fs, path, strlen(path), ret_real);
}

int root_fs_file(struct root_fs *fs, const char *path, const char **ret_real,
		 const struct stat **ret_st)
{
	const char *slash, *real_dir;
	char dir[PATH_MAX];
	int r;

	if (!path || path[0] != '/')
		return -EINVAL;
	slash = strrchr(path, '/');
	if ((size_t)(slash - path) >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	r = root_fs_dir(fs, dir[0] ? dir : "/", &real_dir);
	if (r < 0)
		return r;
	return root_fs_name(fs, real_dir, slash + 1, ret_real, ret_st);
}

int root_fs_tag(struct root_fs *fs, unsigned ns, const char *key, size_t **ret_tag)
{
	enum entry_kind kind = (enum entry_kind)(ENTRY_TAG + ns);
	size_t len = strlen(key);
	uint64_t h = entry_hash(kind, key, len);
	struct root_fs_entry *e = memo_find(fs, kind, key, len, h);
	int r;

	if (!e) {
		r = memo_add(fs, kind, key, len, h, NULL, 0, NULL, &e);
		if (r < 0)
			return r;
	}
	*ret_tag = &e->tag;
	return 0;
}

int root_fs_list(struct root_fs *fs, const char *path, dir_keep_fn keep, void *userdata,
		 char ***ret_names, size_t *ret_n, const char **ret_real)
{
	char full[PATH_MAX];
	const char *real;
	int r;

	r = root_fs_dir(fs, path, &real);
	if (r < 0)
		return r;
	if ((size_t)snprintf(full, sizeof(full), "%s%s", fs->root, real) >= sizeof(full))
		return -ENAMETOOLONG;
	r = dir_list_at(AT_FDCWD, full, O_NOFOLLOW, keep, userdata, ret_names, ret_n);
	if (r >= 0 && ret_real)
		*ret_real = real;
	return r;
}
