/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The library directory on disk (lib_dir.h): built privately beside its place, swapped in
 * atomically, compared for --check. Root builds it in a directory others may reach: every file
 * is reached relative to a directory fd, never through a link, and the tree is private (0700)
 * until it is complete.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "dir_list.h"
#include "io.h"
#include "assemble/lib_dir.h"
#include "macro.h"
#include "problem.h"
#include "strv.h"

#define DIR_MODE 0755
#define MAX_DEPTH 10 /* caps/GROUP/files/usr/lib/xorg/modules/extensions/NAME is the deepest */

static int oom(struct cdi_error *err)
{
	return cdi_fail(err, -ENOMEM, "out of memory");
}

static int fail_at(struct cdi_error *err, int r, const char *path, const char *what)
{
	return cdi_problem_add(err, r, path, 0, 0, NULL, "%s: %s", what, strerror(-r));
}

/* mkdir -p of dir, each new directory 0755 whatever the umask (set on its fd). */
static int make_parents(const char *dir, struct cdi_error *err)
{
	_cleanup_free_ char *p = strdup(dir);

	if (!p)
		return oom(err);
	for (char *s = p + 1;; s++) {
		char c = *s;

		if (c != '/' && c != '\0')
			continue;
		*s = '\0';
		if (mkdir(p, DIR_MODE) == 0) {
			_cleanup_close_ int fd =
				open(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (fd < 0 || fchmod(fd, DIR_MODE) < 0)
				return fail_at(err, negative_errno(), p, "cannot set mode 0755");
		} else if (errno != EEXIST) {
			return fail_at(err, negative_errno(), p, "cannot create the directory");
		}
		*s = c;
		if (!c)
			return 0;
	}
}

/* The parent of path, open, and path's last component. */
static int open_parent(const char *path, bool create, int *ret_fd, const char **ret_base,
		       struct cdi_error *err)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	_cleanup_free_ char *dir = NULL;
	int fd, r;

	if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return cdi_problem_add(err, -EINVAL, path, 0, 0, NULL,
				       "the library directory needs a name");
	dir = slash == path ? strdup("/")
	      : slash	    ? strndup(path, (size_t)(slash - path))
			    : strdup(".");
	if (!dir)
		return oom(err);
	if (create && strcmp(dir, "/") && strcmp(dir, ".")) {
		r = make_parents(dir, err);
		if (r < 0)
			return r;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return fail_at(err, negative_errno(), dir, "cannot open the directory");
	*ret_fd = fd;
	*ret_base = base;
	return 0;
}

/* Directories must be ours and 0755: nobody else may add or swap a name in them. */
static bool dir_is_ours(const struct stat *st)
{
	return S_ISDIR(st->st_mode) && (st->st_mode & 07777) == DIR_MODE && st->st_uid == geteuid();
}

/* Every non-directory under fd as "prefix/name", into out; false and a reason if a directory
 * is not as it should be. */
static int collect(int fd, const char *prefix, int depth, struct strv_builder *out, char *reason,
		   size_t size, bool *ret_ok)
{
	_cleanup_strv_free_ char **names = NULL;
	struct stat st;
	size_t n = 0;
	int r;

	if (fstat(fd, &st) < 0)
		return negative_errno();
	if (!dir_is_ours(&st) || depth > MAX_DEPTH) {
		snprintf(reason, size, "%s%s is not a directory of mode 0755 owned by root",
			 *prefix ? "its directory " : "it", prefix);
		*ret_ok = false;
		return 0;
	}
	r = dir_list_fd(fd, NULL, NULL, &names, &n);
	for (size_t i = 0; r >= 0 && *ret_ok && i < n; i++) {
		_cleanup_free_ char *rel = NULL;

		if (asprintf(&rel, "%s%s%s", prefix, *prefix ? "/" : "", names[i]) < 0)
			return -ENOMEM;
		if (fstatat(fd, names[i], &st, AT_SYMLINK_NOFOLLOW) < 0)
			return negative_errno();
		if (S_ISDIR(st.st_mode)) {
			_cleanup_close_ int sub = openat(
				fd, names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			r = sub < 0 ? negative_errno()
				    : collect(sub, rel, depth + 1, out, reason, size, ret_ok);
		} else {
			r = strv_builder_take(out, TAKE_PTR(rel));
		}
	}
	return r;
}

/* Whether a written file (under top) has the content, mode 0644 and is ours. */
static bool same_content(int top, const struct lib_link *l)
{
	_cleanup_close_ int fd =
		openat(top, l->rel, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	_cleanup_free_ char *buf = malloc(l->content_len + 1);
	struct stat st;

	return fd >= 0 && buf && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	       (st.st_mode & 07777) == 0644 && st.st_uid == geteuid() &&
	       (size_t)st.st_size == l->content_len &&
	       read(fd, buf, l->content_len + 1) == (ssize_t)l->content_len &&
	       memcmp(buf, l->content, l->content_len) == 0;
}

/* Whether name (under top) is the host file itself, by device and inode. */
static bool same_file(int top, const struct lib_link *l)
{
	_cleanup_close_ int fd = -1;
	struct stat a, b;

	if (l->content)
		return same_content(top, l);
	fd = open(l->host, O_PATH | O_NOFOLLOW | O_CLOEXEC);

	return fd >= 0 && fstat(fd, &a) == 0 && S_ISREG(a.st_mode) &&
	       fstatat(top, l->rel, &b, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(b.st_mode) &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The open directory top against ld: *ret_ok, else a reason. */
static int compare(int top, const struct lib_dir *ld, char *reason, size_t size, bool *ret_ok)
{
	struct strv_builder have = { 0 };
	int r;

	*ret_ok = true;
	r = collect(top, "", 0, &have, reason, size, ret_ok);
	if (r < 0 || !*ret_ok)
		goto out;
	if (have.n)
		qsort(have.v, have.n, sizeof(*have.v), strv_cmp);
	for (size_t i = 0, k = 0; *ret_ok && (i < have.n || k < ld->n_links);) {
		int c = i == have.n	   ? 1
			: k == ld->n_links ? -1
					   : strcmp(have.v[i], ld->links[k].rel);

		*ret_ok = c == 0 && same_file(top, &ld->links[k]);
		if (c < 0)
			snprintf(reason, size, "%s is not the driver's", have.v[i]);
		else if (c > 0)
			snprintf(reason, size, "%s is missing", ld->links[k].rel);
		else if (!*ret_ok)
			snprintf(reason, size, "%s is not %s", have.v[i],
				 ld->links[k].host ? ld->links[k].host
						   : "as cdi-generate writes it");
		i++, k++;
	}
out:
	strv_builder_clear(&have);
	return r;
}

/* What is at base in pfd: 0 nothing; 1 a directory, open in *ret_fd; else refused. */
static int open_existing(int pfd, const char *base, const char *path, int *ret_fd,
			 struct cdi_error *err)
{
	struct stat st;

	*ret_fd = -1;
	if (fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : fail_at(err, negative_errno(), path, "cannot stat");
	if (!S_ISDIR(st.st_mode))
		return cdi_problem_add(
			err, -EEXIST, path, 0, 0, NULL,
			"%s is in the way of the library directory; refusing to replace it",
			S_ISLNK(st.st_mode) ? "a symlink" : "a file that is no directory");
	*ret_fd = openat(pfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return *ret_fd < 0 ? fail_at(err, negative_errno(), path, "cannot open") : 1;
}

int lib_dir_check(const struct lib_dir *ld, bool *ret_fresh, char *reason, size_t size,
		  struct cdi_error *err)
{
	_cleanup_close_ int pfd = -1, fd = -1;
	const char *base;
	int r;

	*ret_fresh = false;
	r = open_parent(ld->path, false, &pfd, &base, err);
	if (r == -ENOENT) {
		cdi_error_reset(err);
		snprintf(reason, size, "its library directory %s does not exist", ld->path);
		return 0;
	}
	if (r >= 0)
		r = open_existing(pfd, base, ld->path, &fd, err);
	if (r <= 0) {
		if (r == 0)
			snprintf(reason, size, "its library directory %s does not exist", ld->path);
		return r;
	}
	r = compare(fd, ld, reason, size, ret_fresh);
	if (r < 0)
		return fail_at(err, r, ld->path, "cannot read");
	return 0;
}

/* ---- where it can be built ---- */

/* The mount and device of path (not followed); false when it cannot be looked at. */
static bool mount_of(const char *path, uint64_t *ret_mnt, dev_t *ret_dev)
{
	struct statx stx;

	if (statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &stx) < 0)
		return false;
	*ret_dev = makedev(stx.stx_dev_major, stx.stx_dev_minor);
	*ret_mnt = stx.stx_mask & STATX_MNT_ID ? stx.stx_mnt_id : 0;
	return true;
}

/* The nearest directory at or above path that exists, in buf (which may be path). */
static bool nearest_dir(const char *path, char *buf, size_t size)
{
	struct stat st;

	if (buf != path && (size_t)snprintf(buf, size, "%s", path) >= size)
		return false;
	for (;;) {
		char *slash = strrchr(buf, '/');

		if (stat(buf, &st) == 0)
			return S_ISDIR(st.st_mode);
		if (!slash || slash == buf) {
			strcpy(buf, "/");
			return stat(buf, &st) == 0;
		}
		*slash = '\0';
	}
}

bool lib_dir_placeable(const struct lib_dir *ld, bool allow_bind, char *why, size_t size)
{
	char parent[PATH_MAX], last[PATH_MAX] = "";
	const char *slash = strrchr(ld->path, '/');
	uint64_t mnt, fmnt;
	struct statvfs vfs;
	dev_t dev, fdev;

	/* The tree is built in its parent (a temp directory renamed in place), or in the nearest
	 * directory above that exists, where the missing ones are made. */
	if (!slash ||
	    (size_t)snprintf(parent, sizeof(parent), "%.*s",
			     (int)(slash == ld->path ? 1 : slash - ld->path),
			     ld->path) >= sizeof(parent) ||
	    !nearest_dir(parent, parent, sizeof(parent))) {
		snprintf(why, size, "%s has no directory to be built in", ld->path);
		return false;
	}
	if (access(parent, W_OK) < 0 || statvfs(parent, &vfs) < 0 || (vfs.f_flag & ST_RDONLY)) {
		snprintf(why, size, "%s is not writable", parent);
		return false;
	}
	if (allow_bind)
		return true;
	if (!mount_of(parent, &mnt, &dev)) {
		snprintf(why, size, "cannot look at %s", parent);
		return false;
	}
	for (size_t i = 0; i < ld->n_links; i++) {
		const char *h = ld->links[i].host, *hs = h ? strrchr(h, '/') : NULL;

		/* Files of one directory share its mount: one look per directory. */
		if (!hs ||
		    (strlen(last) == (size_t)(hs - h) && strncmp(last, h, (size_t)(hs - h)) == 0))
			continue;
		snprintf(last, sizeof(last), "%.*s", (int)(hs - h), h);
		if (!mount_of(h, &fmnt, &fdev))
			continue; /* the build reports what is missing */
		if (fdev != dev || fmnt != mnt) {
			snprintf(why, size, "%s is on another mount than %s", h, parent);
			return false;
		}
	}
	return true;
}

/* ---- building ---- */

/* An empty file at dir/name with a read-only, nosuid, nodev bind mount of src on it. */
static int bind_file(int src, int dir, const char *name)
{
	struct mount_attr attr = {
		.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
	};
	_cleanup_close_ int fd =
		openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);
	_cleanup_close_ int tree = -1;

	if (fd < 0)
		return negative_errno();
	tree = open_tree(src, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
	if (tree < 0 || mount_setattr(tree, "", AT_EMPTY_PATH, &attr, sizeof(attr)) < 0 ||
	    move_mount(tree, "", dir, name, MOVE_MOUNT_F_EMPTY_PATH) < 0)
		return negative_errno();
	return 0;
}

/* dir/name as the file src: a hard link, or a bind mount across filesystems. */
static int link_file(int src, int dir, const char *name, bool allow_bind, bool *bound)
{
	char proc[64];

	if (linkat(src, "", dir, name, AT_EMPTY_PATH) == 0)
		return 0;
	if (errno == ENOENT) { /* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH */
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", src);
		if (linkat(AT_FDCWD, proc, dir, name, AT_SYMLINK_FOLLOW) == 0)
			return 0;
	}
	if (errno != EXDEV || !allow_bind)
		return negative_errno();
	*bound = true;
	return bind_file(src, dir, name);
}

/* A written file: created (never through a link), 0644 whatever the umask. */
static int write_file(int dir, const char *name, const struct lib_link *l, struct cdi_error *err)
{
	_cleanup_close_ int fd =
		openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	int r;

	if (fd < 0 || fchmod(fd, 0644) < 0)
		return fail_at(err, negative_errno(), l->rel, "cannot create");
	r = cdi_write_all(fd, l->content, l->content_len);
	return r < 0 ? fail_at(err, r, l->rel, "cannot write") : 0;
}

/* One name of ld (under the private top directory), its parent directories made as needed. */
static int add_link(int top, const struct lib_link *l, bool allow_bind, bool *bound,
		    struct cdi_error *err)
{
	_cleanup_close_ int dir = fcntl(top, F_DUPFD_CLOEXEC, 3), src = -1;
	_cleanup_free_ char *rel = strdup(l->rel);
	char *name, *slash;
	struct stat st;
	int r;

	if (dir < 0 || !rel)
		return oom(err);
	for (name = rel; (slash = strchr(name, '/')); name = slash + 1) {
		int sub;

		*slash = '\0';
		if (mkdirat(dir, name, DIR_MODE) < 0 && errno != EEXIST)
			return fail_at(err, negative_errno(), l->rel,
				       "cannot create its directory");
		sub = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0 || fchmod(sub, DIR_MODE) < 0) {
			r = negative_errno();
			if (sub >= 0)
				close(sub);
			return fail_at(err, r, l->rel, "cannot create its directory");
		}
		close(dir);
		dir = sub;
	}
	if (l->content)
		return write_file(dir, name, l, err);
	src = open(l->host, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (src < 0 || fstat(src, &st) < 0)
		return fail_at(err, negative_errno(), l->host, "cannot open");
	if (!S_ISREG(st.st_mode))
		return cdi_problem_add(err, -EINVAL, l->host, 0, 0, NULL, "not a regular file");
	r = link_file(src, dir, name, allow_bind, bound);
	if (r == -EXDEV)
		return cdi_problem_add(
			err, r, l->host, 0, 0, NULL,
			"on another filesystem than the library directory, and bind mounts made in this private mount namespace would not be seen by container engines: put --library-dir on the driver's filesystem");
	if (r < 0)
		return fail_at(err, r, l->host,
			       "cannot link or bind it into the library directory");
	return 0;
}

/* Remove the tree at pfd/name: our own, never followed through a link; mounts detached. */
static void remove_tree(int pfd, const char *name, int depth)
{
	_cleanup_close_ int fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	_cleanup_strv_free_ char **names = NULL;
	size_t n = 0;

	if (fd < 0 || depth > MAX_DEPTH || dir_list_fd(fd, NULL, NULL, &names, &n) < 0) {
		unlinkat(pfd, name, fd < 0 ? 0 : AT_REMOVEDIR);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		char proc[64 + NAME_MAX];

		if (unlinkat(fd, names[i], 0) == 0)
			continue;
		if (errno == EISDIR) {
			remove_tree(fd, names[i], depth + 1);
		} else if (errno == EBUSY) { /* a bind mount: detach it, then the file goes */
			snprintf(proc, sizeof(proc), "/proc/self/fd/%d/%s", fd, names[i]);
			umount2(proc, MNT_DETACH | UMOUNT_NOFOLLOW);
			unlinkat(fd, names[i], 0);
		}
	}
	unlinkat(pfd, name, AT_REMOVEDIR);
}

/* ".BASE.XXXXXX.tmp": a temp directory of ours (make_temp()). */
static bool is_temp_of(const char *name, unsigned char d_type, void *base)
{
	size_t bl = strlen(base), nl = strlen(name);

	(void)d_type;
	return nl == 1 + bl + 1 + 6 + 4 && name[0] == '.' && strncmp(name + 1, base, bl) == 0 &&
	       name[1 + bl] == '.' &&
	       (strcmp(name + nl - 4, ".tmp") == 0 || strcmp(name + nl - 4, ".old") == 0);
}

/* When this boot began, by the realtime clock (what ctime is measured in). */
static time_t boot_time(void)
{
	struct timespec now, up;

	if (clock_gettime(CLOCK_REALTIME, &now) < 0 || clock_gettime(CLOCK_BOOTTIME, &up) < 0)
		return 0;
	return now.tv_sec - up.tv_sec;
}

/*
 * A replaced directory may still be mounted in containers of this boot: emptying it would empty
 * their /usr/local/nvidia/lib64 (and unlinking a mount point detaches it in every namespace).
 * It is set aside as ".BASE.XXXXXX.old" and removed by a run of a later boot.
 */
static bool set_aside_before_boot(int pfd, const char *name)
{
	struct stat st;
	size_t n = strlen(name);

	if (strcmp(name + n - 4, ".old") != 0)
		return true; /* a killed run's build: never mounted */
	return fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_ctime < boot_time() - 1;
}

/* What a killed run left behind (under the lock, so no other run is building one). */
static void remove_leftovers(int pfd, const char *base)
{
	_cleanup_strv_free_ char **names = NULL;
	size_t n = 0;

	if (dir_list_fd(pfd, is_temp_of, (void *)base, &names, &n) < 0)
		return;
	for (size_t i = 0; i < n; i++)
		if (set_aside_before_boot(pfd, names[i]))
			remove_tree(pfd, names[i], 0);
}

/* A new private directory ".BASE.XXXXXX.tmp" in pfd. */
static int make_temp(int pfd, const char *base, const char *path, char *name, size_t size,
		     int *ret_fd, struct cdi_error *err)
{
	for (unsigned tries = 0;; tries++) {
		uint32_t rnd = 0;

		if (getrandom(&rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
			rnd = (uint32_t)getpid() * 2654435761u + tries;
		snprintf(name, size, ".%s.%06x.tmp", base, (unsigned)(rnd & 0xffffff));
		if (mkdirat(pfd, name, 0700) == 0)
			break;
		if (errno != EEXIST || tries > 100)
			return fail_at(err, negative_errno(), path,
				       "cannot create a temp directory beside it");
	}
	*ret_fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*ret_fd < 0) {
		int r = negative_errno();

		unlinkat(pfd, name, AT_REMOVEDIR);
		return fail_at(err, r, path, "cannot open the temp directory beside it");
	}
	return 0;
}

/* The old directory, now at the temp name, renamed ".BASE.XXXXXX.old" (set_aside_before_boot). */
static void set_aside(int pfd, const char *tmp)
{
	char old[NAME_MAX + 1];
	size_t n = strlen(tmp);

	snprintf(old, sizeof(old), "%.*s.old", (int)(n - 4), tmp);
	if (renameat2(pfd, tmp, pfd, old, RENAME_NOREPLACE) < 0)
		remove_tree(pfd, tmp, 0); /* cannot happen (the name is ours); never leave a .tmp */
}

/* The temp directory at pfd/tmp, complete, in place of pfd/base. */
static int swap_in(int pfd, const char *tmp, const char *base, bool existed, const char *path,
		   struct cdi_error *err)
{
	unsigned flags = existed ? RENAME_EXCHANGE : RENAME_NOREPLACE;

	if (renameat2(pfd, tmp, pfd, base, flags) < 0 &&
	    (existed || errno != EEXIST || renameat2(pfd, tmp, pfd, base, RENAME_EXCHANGE) < 0))
		return fail_at(err, negative_errno(), path,
			       "cannot put the library directory in place");
	fsync(pfd);
	return 0;
}

int lib_dir_write(const struct lib_dir *ld, bool allow_bind, enum lib_dir_result *ret,
		  struct cdi_error *err)
{
	_cleanup_close_ int pfd = -1, old = -1, fd = -1;
	char tmp[NAME_MAX + 1], reason[256];
	bool fresh = false, bound = false;
	const char *base;
	int r, existed;

	r = open_parent(ld->path, true, &pfd, &base, err);
	if (r < 0)
		return r;
	/* Two runs take turns (the lock goes with the fd); the spec's writer takes it after us. */
	if (flock(pfd, LOCK_EX) < 0)
		return fail_at(err, negative_errno(), ld->path, "cannot lock its directory");
	remove_leftovers(pfd, base);
	existed = open_existing(pfd, base, ld->path, &old, err);
	if (existed < 0)
		return existed;
	if (existed && compare(old, ld, reason, sizeof(reason), &fresh) >= 0 && fresh) {
		*ret = LIB_DIR_UNCHANGED;
		return 0;
	}
	if (strlen(base) > NAME_MAX - 16)
		return cdi_problem_add(err, -ENAMETOOLONG, ld->path, 0, 0, NULL, "name too long");
	r = make_temp(pfd, base, ld->path, tmp, sizeof(tmp), &fd, err);
	for (size_t i = 0; r >= 0 && i < ld->n_links; i++)
		r = add_link(fd, &ld->links[i], allow_bind, &bound, err);
	if (r >= 0 && (fchmod(fd, DIR_MODE) < 0 || fsync(fd) < 0))
		r = fail_at(err, negative_errno(), ld->path, "cannot finish the library directory");
	if (r >= 0)
		r = swap_in(pfd, tmp, base, existed, ld->path, err);
	if (r >= 0 && existed)
		set_aside(pfd, tmp);
	else if (fd >= 0) /* the failed build */
		remove_tree(pfd, tmp, 0);
	if (r < 0)
		return r;
	*ret = bound ? LIB_DIR_BOUND : LIB_DIR_LINKED;
	return 0;
}
