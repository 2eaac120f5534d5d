/* SPDX-License-Identifier: Apache-2.0 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "bundle/rootfs.h"
#include "dir_list.h"
#include "hook_symlinks.h"
#include "ld_scan.h"
#include "ldcache.h"
#include "lib_ident.h"
#include "macro.h"
#include "problem.h"
#include "strmap.h"
#include "strv.h"

/* What one library file is for the cache, read once however many names lead to it. */
struct ident {
	struct {
		dev_t dev;
		ino_t ino;
	} key; /* first: the map's key is these bytes */
	bool usable;
	int32_t flags;
	char *soname; /* DT_SONAME, NULL when none */
};

/* One soname of the directory being scanned (ldconfig's struct dlib_entry). */
struct dlib {
	char *name;   /* the file (or link) chosen for it */
	char *soname; /* the map's key */
	int32_t flag;
	bool is_link;
	dev_t dev; /* of the file name leads to */
	ino_t ino;
};

struct scan {
	int root_fd;
	struct ld_dirs *dirs;
	struct ldcache_merge *cache;
	struct cdi_error *warnings;
	struct ident **idents;
	size_t n_idents, cap_idents;
	struct cdi_strmap ident_map;
};

/* Legacy hwcap subdirectories ldconfig still scans (glibc < 2.37): their names and bits. */
#if defined(__x86_64__) || defined(__i386__)
static const char *const hwcap_names[] = { "sse2", "x86_64", "avx512_1", NULL };
static const char *const platform_names[] = { "i586", "i686", "haswell", "xeon_phi", NULL };
#else
static const char *const hwcap_names[] = { NULL };
static const char *const platform_names[] = { NULL };
#endif
#define FIRST_PLATFORM_BIT 48
#define TLS_BIT 63

static int hwcap_bit(const char *name, size_t len)
{
	for (size_t i = 0; hwcap_names[i]; i++)
		if (strlen(hwcap_names[i]) == len && memcmp(name, hwcap_names[i], len) == 0)
			return (int)i;
	for (size_t i = 0; platform_names[i]; i++)
		if (strlen(platform_names[i]) == len && memcmp(name, platform_names[i], len) == 0)
			return FIRST_PLATFORM_BIT + (int)i;
	return len == 3 && memcmp(name, "tls", 3) == 0 ? TLS_BIT : -1;
}

/* path_hwcap(): the bits of the hwcap names ending the path. */
static uint64_t path_hwcap(const char *path)
{
	const char *end = path + strlen(path), *slash;
	uint64_t hwcap = 0;
	int bit;

	while ((slash = memrchr(path, '/', (size_t)(end - path)))) {
		bit = hwcap_bit(slash + 1, (size_t)(end - slash - 1));
		if (bit < 0)
			break;
		hwcap += UINT64_C(1) << bit;
		end = slash;
	}
	return hwcap;
}

/* _dl_is_dso(): lib*.so*, ld-*.so*, ld.so.*, ld64.so.* */
static bool is_dso(const char *name)
{
	return ((strncmp(name, "lib", 3) == 0 || strncmp(name, "ld-", 3) == 0) &&
		strstr(name, ".so")) ||
	       strncmp(name, "ld.so.", 6) == 0 || strncmp(name, "ld64.so.", 8) == 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t l = strlen(s), n = strlen(suffix);

	return l >= n && memcmp(s + l - n, suffix, n) == 0;
}

struct keep_ctx {
	bool in_hwcaps;
	size_t seen;
};

/* The names search_dir() looks at: links and files that look like libraries, hwcap dirs. */
static bool keep_entry(const char *name, unsigned char type, void *userdata)
{
	struct keep_ctx *k = userdata;
	size_t len = strlen(name);

	if (type != DT_UNKNOWN && type != DT_LNK && type != DT_REG && type != DT_DIR)
		return false;
	if (!is_dso(name) && (type == DT_REG || k->in_hwcaps || hwcap_bit(name, strlen(name)) < 0))
		return false;
	/* prelink's temporary files */
	if (ends_with(name, ".#prelink#") ||
	    (len >= 17 && memcmp(name + len - 17, ".#prelink#.", 11) == 0))
		return false;
	return k->seen++ < LD_SCAN_MAX_ENTRIES;
}

/* The identity of the library st describes, read once (name in dfd, or full through the
 * rootfs for a link); NULL in *ret when it is no library. 0 or -ENOMEM. */
static int ident_of(struct scan *s, int dfd, const char *name, const char *full, bool is_link,
		    const struct stat *st, const struct ident **ret)
{
	struct ident key = { .key = { st->st_dev, st->st_ino } }, *id;
	_cleanup_close_ int fd = -1;
	struct lib_ident li = { 0 };
	struct stat now;
	size_t *slot;

	*ret = NULL;
	slot = cdi_strmap_get(&s->ident_map, (const char *)&key.key, sizeof(key.key));
	if (slot) {
		*ret = s->idents[*slot]->usable ? s->idents[*slot] : NULL;
		return 0;
	}
	if (!S_ISREG(st->st_mode))
		return 0;
	fd = is_link ? rootfs_open(s->root_fd, full, O_RDONLY | O_NONBLOCK | O_NOCTTY)
		     : openat(dfd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	/* Through a link, not the file looked at a moment ago: skipped, as a file that vanished
	 * would be (a name opened without following links reads as its lstat said: the ELF
	 * reader takes regular files only). */
	if (is_link &&
	    (fstat(fd, &now) < 0 || now.st_dev != st->st_dev || now.st_ino != st->st_ino))
		return 0;
	id = calloc(1, sizeof(*id));
	if (!id || ARRAY_RESERVE(s->idents, s->cap_idents, s->n_idents + 1) < 0) {
		free(id);
		return -ENOMEM;
	}
	*id = key;
	id->usable = lib_ident(fd, full, &li) > 0;
	id->flags = li.flags;
	id->soname = li.soname;
	s->idents[s->n_idents] = id;
	if (cdi_strmap_put(&s->ident_map, (const char *)&id->key, sizeof(id->key), s->n_idents) <
	    0) {
		free(id->soname);
		free(id);
		return -ENOMEM;
	}
	s->n_idents++;
	*ret = id->usable ? id : NULL;
	return 0;
}

struct dir_scan {
	struct dlib *v;
	size_t n, cap;
	struct cdi_strmap by_soname;
};

static void dir_scan_clear(struct dir_scan *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->v[i].name);
		free(d->v[i].soname);
	}
	free(d->v);
	cdi_strmap_free(&d->by_soname);
	*d = (struct dir_scan){ 0 };
}

/* A library found under name: a new soname, or the newer of two (ldconfig's "Add library to
 * list": a file beats a link, else the name _dl_cache_libcmp puts last). */
static int dlib_add(struct dir_scan *d, const char *name, const char *soname, int32_t flag,
		    bool is_link, const struct stat *st)
{
	size_t *slot = cdi_strmap_get(&d->by_soname, soname, strlen(soname));
	struct dlib *l;

	if (slot) {
		l = &d->v[*slot];
		if (!((!is_link && l->is_link) ||
		      (is_link == l->is_link && ldcache_libcmp(l->name, name) < 0)))
			return 0;
		if (l->flag != flag) {
			if (l->flag == LDCACHE_FLAG_ELF &&
			    (flag == 2 || flag == LDCACHE_FLAG_LIBC6))
				l->flag = flag;
			else if ((l->flag == 2 || l->flag == LDCACHE_FLAG_LIBC6) &&
				 flag == LDCACHE_FLAG_ELF)
				l->flag = flag;
		}
		free(l->name);
		l->name = strdup(name);
		l->is_link = is_link;
		l->dev = st->st_dev;
		l->ino = st->st_ino;
		return l->name ? 0 : -ENOMEM;
	}
	if (ARRAY_RESERVE(d->v, d->cap, d->n + 1) < 0)
		return -ENOMEM;
	l = &d->v[d->n];
	*l = (struct dlib){
		.flag = flag, .is_link = is_link, .dev = st->st_dev, .ino = st->st_ino
	};
	l->name = strdup(name);
	l->soname = strdup(soname);
	if (!l->name || !l->soname) {
		free(l->name);
		free(l->soname);
		return -ENOMEM;
	}
	if (cdi_strmap_put(&d->by_soname, l->soname, strlen(l->soname), d->n) < 0) {
		free(l->name);
		free(l->soname);
		return -ENOMEM;
	}
	d->n++;
	return 0;
}

/* One entry of a directory, as search_dir()'s loop body takes it. */
static int scan_entry(struct scan *s, const struct ld_dir *dir, int dfd, const char *name,
		      struct dir_scan *d)
{
	_cleanup_free_ char *full = NULL;
	const struct ident *id;
	struct stat lst, st;
	const char *soname;
	bool is_link, is_dir;
	int32_t flag;
	int r;

	if (fstatat(dfd, name, &lst, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	if (asprintf(&full, "%s/%s", dir->path, name) < 0) {
		full = NULL;
		return -ENOMEM;
	}
	is_link = S_ISLNK(lst.st_mode);
	st = lst;
	if (is_link) {
		_cleanup_close_ int tfd = rootfs_open(s->root_fd, full, O_PATH);

		if (tfd < 0 || fstat(tfd, &st) < 0) {
			/* ldconfig removes stale links that look like versioned libraries. */
			if (strstr(name, ".so."))
				unlinkat(dfd, name, 0);
			return 0;
		}
	}
	is_dir = S_ISDIR(st.st_mode);
	if (!dir->hwcaps && is_dir && hwcap_bit(name, strlen(name)) >= 0) {
		r = ld_dirs_add(s->dirs, full, NULL, dir->flag, &st);
		return r < 0 ? r : 0;
	}
	if (!S_ISREG(lst.st_mode) && !is_link)
		return 0;
	r = ident_of(s, dfd, name, full, is_link, &st, &id);
	if (r < 0 || !id)
		return r;
	soname = id->soname ? id->soname : name;
	/* In a chroot the link's own name decides: it stays a link when it is the soname, or
	 * the .so name of one ("libfoo.so" -> "libfoo.so.1"); any other link is a file. */
	if (is_link && strcmp(name, soname) != 0 &&
	    !(ends_with(name, ".so") && strncmp(name, soname, strlen(name)) == 0))
		is_link = false;
	if (is_link)
		soname = name;
	flag = id->flags;
	if (flag == LDCACHE_FLAG_ELF && (dir->flag == 2 || dir->flag == LDCACHE_FLAG_LIBC6))
		flag = dir->flag;
	return dlib_add(d, name, soname, flag, is_link, &st);
}

/* create_links(): soname -> name in the directory, unless soname already leads to the file
 * or is not a link; a failure is a warning, as ldconfig's. */
static void create_link(struct scan *s, const struct ld_dir *dir, int dfd, const struct dlib *l)
{
	_cleanup_free_ char *full = NULL;
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r;

	/* A soname is a file name; one with a '/' would make a link elsewhere. */
	if (strchr(l->soname, '/') || strcmp(l->soname, ".") == 0 || strcmp(l->soname, "..") == 0)
		return;
	if (strcmp(l->soname, l->name) == 0)
		return;
	if (asprintf(&full, "%s/%s", dir->path, l->soname) < 0)
		return;
	fd = rootfs_open(s->root_fd, full, O_PATH);
	if (fd >= 0 && fstat(fd, &st) == 0) {
		if (st.st_dev == l->dev && st.st_ino == l->ino)
			return;
		if (fstatat(dfd, l->soname, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISLNK(st.st_mode))
			return; /* "is not a symbolic link" */
	} else if (fstatat(dfd, l->soname, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISLNK(st.st_mode))
		return;
	r = symlink_replace_at(dfd, l->soname, l->name);
	if (r < 0)
		cdi_fail(s->warnings, r, "cannot link %s to %s: %s", full, l->name, strerror(-r));
}

static int scan_dir(struct scan *s, size_t index)
{
	const struct ld_dir dir = s->dirs->v[index]; /* s->dirs may grow: its strings stay */
	struct dir_scan d = { 0 };
	struct keep_ctx keep = { .in_hwcaps = dir.hwcaps != NULL };
	_cleanup_strv_free_ char **names = NULL;
	_cleanup_close_ int dfd = -1;
	uint64_t hwcap;
	size_t n = 0;
	int r;

	dfd = rootfs_open(s->root_fd, dir.path, O_RDONLY | O_DIRECTORY);
	if (dfd < 0)
		return 0; /* "Can't open directory" */
	r = dir_list_fd(dfd, keep_entry, &keep, &names, &n);
	if (r < 0)
		return r == -ENOMEM ? r : 0;
	for (size_t i = 0; i < n && r >= 0; i++)
		r = scan_entry(s, &dir, dfd, names[i], &d);
	hwcap = dir.hwcaps ? LDCACHE_HWCAP_EXTENSION : path_hwcap(dir.path);
	/* ldconfig adds each new soname at the head of its list and walks it from there. */
	for (size_t i = d.n; r >= 0 && i-- > 0;) {
		const struct dlib *l = &d.v[i];
		_cleanup_free_ char *value = NULL;

		if (!dir.hwcaps && !l->is_link)
			create_link(s, &dir, dfd, l);
		/* The cache names the soname (a link that follows updates), in glibc-hwcaps
		 * directories the file itself. */
		if (asprintf(&value, "%s/%s", dir.path, dir.hwcaps ? l->name : l->soname) < 0) {
			value = NULL;
			r = -ENOMEM;
			break;
		}
		r = ldcache_merge_add(s->cache,
				      &(struct ldcache_entry){ .flags = l->flag,
							       .hwcap = hwcap,
							       .key = l->soname,
							       .value = value,
							       .hwcaps = dir.hwcaps },
				      LDCACHE_RANK_IMAGE);
	}
	dir_scan_clear(&d);
	return r;
}

int ld_scan(int root_fd, struct ld_dirs *dirs, struct ldcache_merge *cache,
	    struct cdi_error *warnings)
{
	struct scan s = { .root_fd = root_fd, .dirs = dirs, .cache = cache, .warnings = warnings };
	int r = 0;

	for (size_t i = 0; i < dirs->n && r >= 0; i++)
		r = scan_dir(&s, i);
	for (size_t i = 0; i < s.n_idents; i++) {
		free(s.idents[i]->soname);
		free(s.idents[i]);
	}
	free(s.idents);
	cdi_strmap_free(&s.ident_map);
	return r;
}
