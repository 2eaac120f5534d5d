/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The NVIDIA device nodes made as nvidia-modprobe's mknod helper makes them, but inside a
 * directory fd: /dev may be a root others prepared, and a link planted at /dev/nvidia-uvm must
 * not turn our chmod into someone else's file's chmod.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "array.h"
#include "host/host_file.h"
#include "macro.h"
#include "node_create.h"
#include "node_plan.h"
#include "problem.h"
#include "userns.h"

/* A problem about label ending in ": <strerror(errno)>", errno taken before anything else runs;
 * returns -errno. */
static int _printf_(3, 4) fail_errno(struct cdi_error *err, const char *label, const char *fmt, ...)
{
	int e = errno > 0 ? errno : EIO;
	_cleanup_free_ char *what = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&what, fmt, ap) < 0)
		what = NULL;
	va_end(ap);
	return cdi_problem_add(err, -e, label, 0, 0, NULL, "%s: %s", what ? what : fmt,
			       strerror(e));
}

/*
 * Set the owner and mode of the node on the inode checked to be it: an O_PATH descriptor opened
 * without following a link, verified by fstat, then fchownat(AT_EMPTY_PATH) and chmod through
 * /proc/self/fd (what glibc's fchmodat(AT_SYMLINK_NOFOLLOW) does, without the window between
 * its check and its chmod). *ret_changed: whether anything differed.
 */
static int set_perms(int dirfd, const char *name, const char *label, dev_t dev,
		     const struct dev_file_params *p, bool *ret_changed, struct cdi_error *err)
{
	_cleanup_close_ int fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	char proc[64];
	struct stat st;

	*ret_changed = false;
	if (fd < 0 || fstat(fd, &st) < 0)
		return fail_errno(err, label, "cannot open");
	if (!S_ISCHR(st.st_mode) || st.st_rdev != dev)
		return cdi_problem_add(err, -EBUSY, label, 0, 0, NULL,
				       "replaced by a %s while being made",
				       host_file_type(st.st_mode));
	if (st.st_uid != p->uid || st.st_gid != p->gid) {
		if (fchownat(fd, "", p->uid, p->gid, AT_EMPTY_PATH) < 0)
			return fail_errno(err, label, "cannot set the owner to %u:%u",
					  (unsigned)p->uid, (unsigned)p->gid);
		*ret_changed = true;
	}
	if ((st.st_mode & 07777) != p->mode) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		if (chmod(proc, p->mode) < 0)
			return fail_errno(err, label, "cannot set the mode to %04o",
					  (unsigned)p->mode);
		*ret_changed = true;
	}
	return 0;
}

static int dir_in_the_way(const char *label, struct cdi_error *err)
{
	return cdi_problem_add(err, -EISDIR, label, 0, 0, NULL,
			       "a directory is where the device node belongs; not removed");
}

/*
 * The entry at name as the node dev: kept when it is that node, else removed (not a directory)
 * and made. *ret_made / *ret_replaced say which. A node made by someone else between our look
 * and our mknod (two runs at boot) is looked at again, once.
 */
static int make_node(int dirfd, const char *name, const char *label, dev_t dev, mode_t mode,
		     bool *ret_made, bool *ret_replaced, struct cdi_error *err)
{
	struct stat st;

	*ret_made = *ret_replaced = false;
	for (int attempt = 0;; attempt++) {
		if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			if (S_ISCHR(st.st_mode) && st.st_rdev == dev)
				return 0;
			if (S_ISDIR(st.st_mode))
				return dir_in_the_way(label, err);
			if (unlinkat(dirfd, name, 0) < 0 && errno != ENOENT)
				return fail_errno(err, label, "cannot remove the %s there",
						  host_file_type(st.st_mode));
			*ret_replaced = true;
		} else if (errno != ENOENT) {
			return fail_errno(err, label, "cannot stat");
		}
		if (mknodat(dirfd, name, S_IFCHR | mode, dev) == 0) {
			*ret_made = true;
			return 0;
		}
		if (errno != EEXIST || attempt > 0)
			return fail_errno(err, label, "cannot create (c %u:%u)", major(dev),
					  minor(dev));
	}
}

int node_ensure_at(int dirfd, const char *name, const char *label, unsigned major, unsigned minor,
		   const struct dev_file_params *p, enum node_change *ret_change,
		   struct cdi_error *err)
{
	dev_t dev = makedev(major, minor);
	bool made, replaced, changed;
	int r;

	*ret_change = NODE_FAILED;
	if (strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || !*name)
		return cdi_problem_add(err, -EINVAL, label, 0, 0, NULL, "not a file name");
	if (!p->modify) {
		*ret_change = NODE_LEFT_ALONE;
		return 0;
	}
	r = make_node(dirfd, name, label, dev, (mode_t)p->mode, &made, &replaced, err);
	if (r < 0)
		return r;
	r = set_perms(dirfd, name, label, dev, p, &changed, err);
	if (r < 0) {
		/* A node we made with the wrong owner or mode would be worse than none. */
		if (made)
			unlinkat(dirfd, name, 0);
		return r;
	}
	*ret_change = replaced	? NODE_REPLACED
		      : made	? NODE_CREATED
		      : changed ? NODE_PERMS_SET
				: NODE_PRESENT;
	return 0;
}

/*
 * /dev/char/<major>:<minor> -> ../<target>, as udev makes for the nodes it knows: systemd's
 * device cgroup (DeviceAllow=) resolves nodes through these links, and the NVIDIA nodes are
 * not udev's. A link with another target is replaced; anything else there is left alone.
 */
static int ensure_char_link(int chardirfd, const char *target, const char *label, unsigned major,
			    unsigned minor, struct cdi_error *warn)
{
	char name[32], cur[256];
	ssize_t n;

	snprintf(name, sizeof(name), "%u:%u", major, minor);
	n = readlinkat(chardirfd, name, cur, sizeof(cur));
	if (n >= 0 && (size_t)n == strlen(target) && memcmp(cur, target, (size_t)n) == 0)
		return 0;
	if (n < 0 && errno == EINVAL) {
		cdi_problem_add(warn, 0, label, 0, 0, NULL,
				"/dev/char/%s is not a link: left alone", name);
		return 0;
	}
	if (n >= 0 && unlinkat(chardirfd, name, 0) < 0 && errno != ENOENT)
		goto fail;
	if (n < 0 && errno != ENOENT)
		goto fail;
	if (symlinkat(target, chardirfd, name) == 0 || errno == EEXIST)
		return 0;
fail:
	fail_errno(warn, label, "cannot link /dev/char/%s to it", name);
	return 0;
}

/* The directory name under dirfd, made 0755 if missing; never a link. */
static int open_subdir(int dirfd, const char *name, const char *label, int *ret,
		       struct cdi_error *err)
{
	_cleanup_close_ int fd = -1;
	bool made = mkdirat(dirfd, name, 0755) == 0;

	if (!made && errno != EEXIST)
		return fail_errno(err, label, "cannot create the directory");
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return fail_errno(err, label, "not a directory (or a link to one)");
	/* mkdir applied the umask; users must reach the nodes inside. */
	if (made && fchmod(fd, 0755) < 0)
		return fail_errno(err, label, "cannot set the mode to 0755");
	*ret = TAKE_FD(fd);
	return 0;
}

/* Root outside a user namespace: 1; 0 when nodes cannot be made here (said in warn or err). */
static int may_make_nodes(struct cdi_error *warn, struct cdi_error *err)
{
	bool in_userns = false;
	int r;

	if (geteuid() != 0)
		return cdi_fail(err, -EPERM, "creating device nodes needs root");
	r = userns_detect("/proc", &in_userns, err);
	if (r < 0)
		return r;
	if (in_userns) {
		cdi_fail(
			warn, 0,
			"in a user namespace: the device nodes are the host's, not made from here");
		return 0;
	}
	return 1;
}

struct maker {
	int devfd, capsfd, charfd; /* charfd: -1 without /dev/char */
	int caps_error;		   /* why /dev/nvidia-caps cannot be had, once it is known */
	const char *dev_dir;	   /* <dev root>/dev, for messages */
	struct node_create_result *res;
	struct cdi_error *warn, *err;
};

/* A NODE_FAILED outcome for the planned node e, appended to res; NULL when out of memory. */
static struct node_outcome *outcome_add(struct node_create_result *res, const char *dev_dir,
					const struct node_plan_entry *e)
{
	struct node_outcome *o;
	char *path;

	if (asprintf(&path, "%s/%s%s", dev_dir, e->in_caps ? NODE_CAPS_DIR "/" : "", e->name) < 0)
		return NULL;
	if (ARRAY_RESERVE(res->nodes, res->cap, res->n + 1) < 0) {
		free(path);
		return NULL;
	}
	o = &res->nodes[res->n++];
	*o = (struct node_outcome){ .path = path,
				    .major = e->major,
				    .minor = e->minor,
				    .perms = e->perms,
				    .change = NODE_FAILED };
	return o;
}

/* One planned node: made, recorded, linked from /dev/char. */
static int make_planned(struct maker *m, const struct node_plan_entry *e)
{
	struct node_outcome *o;
	_cleanup_free_ char *rel = NULL;
	struct stat st;
	int r;

	if (asprintf(&rel, "%s%s", e->in_caps ? NODE_CAPS_DIR "/" : "", e->name) < 0)
		return -ENOMEM;
	o = outcome_add(m->res, m->dev_dir, e);
	if (!o)
		return -ENOMEM;
	/* The directory once: when it cannot be had, its one problem speaks for every cap node. */
	if (e->in_caps && m->caps_error < 0)
		return m->caps_error;
	if (e->in_caps && m->capsfd < 0) {
		_cleanup_free_ char *caps = NULL;

		if (asprintf(&caps, "%s/" NODE_CAPS_DIR, m->dev_dir) < 0)
			return -ENOMEM;
		r = open_subdir(m->devfd, NODE_CAPS_DIR, caps, &m->capsfd, m->err);
		if (r < 0)
			return m->caps_error = r;
	}
	r = node_ensure_at(e->in_caps ? m->capsfd : m->devfd, e->name, o->path, e->major, e->minor,
			   &e->perms, &o->change, m->err);
	if (r < 0)
		return r;
	if (o->change == NODE_LEFT_ALONE &&
	    fstatat(e->in_caps ? m->capsfd : m->devfd, e->name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		cdi_problem_add(
			m->warn, 0, o->path, 0, 0, NULL,
			"missing, and not made: %s says DeviceFileModify/ModifyDeviceFiles 0 (the files are managed elsewhere)",
			e->perms_from ? e->perms_from : "the driver");
		return 0;
	}
	if (m->charfd >= 0) {
		_cleanup_free_ char *target = NULL;

		if (asprintf(&target, "../%s", rel) < 0)
			return -ENOMEM;
		ensure_char_link(m->charfd, target, o->path, e->major, e->minor, m->warn);
	}
	return 0;
}

int node_create_nvidia(const struct gen_host *host, struct node_create_result *ret,
		       struct cdi_error *warn, struct cdi_error *err)
{
	struct node_plan plan = { 0 };
	_cleanup_free_ char *dev_dir = host_path(host->dev_root, "/dev");
	struct maker m = { .devfd = -1,
			   .capsfd = -1,
			   .charfd = -1,
			   .dev_dir = dev_dir,
			   .res = ret,
			   .warn = warn,
			   .err = err };
	int r, first = 0;

	*ret = (struct node_create_result){ 0 };
	if (!dev_dir)
		return cdi_fail(err, -ENOMEM, "%s", strerror(ENOMEM));
	r = may_make_nodes(warn, err);
	if (r <= 0)
		return r;
	r = node_plan_nvidia(host->root, &plan, warn, err);
	if (r < 0)
		return r;
	m.devfd = open(dev_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (m.devfd < 0) {
		first = fail_errno(err, dev_dir, "cannot open");
		goto out;
	}
	m.charfd = openat(m.devfd, "char", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	/* Every node is tried: one that fails does not keep the others from being made. */
	for (size_t i = 0; i < plan.n; i++) {
		r = make_planned(&m, &plan.entries[i]);
		if (r == -ENOMEM) {
			first = cdi_fail(err, r, "%s", strerror(-r));
			break;
		}
		if (r < 0 && first == 0)
			first = r;
	}
out:
	closep(&m.devfd);
	closep(&m.capsfd);
	closep(&m.charfd);
	node_plan_clear(&plan);
	return first;
}

/*
 * What node_ensure_at would do to the entry name of dirfd (-1: its directory does not exist
 * yet), found without changing anything.
 */
static enum node_change change_needed(int dirfd, const struct node_plan_entry *e, const char *label,
				      struct cdi_error *err)
{
	struct stat st;

	if (!e->perms.modify)
		return NODE_LEFT_ALONE;
	if (dirfd < 0)
		return NODE_CREATED;
	if (fstatat(dirfd, e->name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return NODE_CREATED;
		fail_errno(err, label, "cannot stat");
		return NODE_FAILED;
	}
	if (S_ISDIR(st.st_mode)) {
		dir_in_the_way(label, err);
		return NODE_FAILED;
	}
	if (!S_ISCHR(st.st_mode) || st.st_rdev != makedev(e->major, e->minor))
		return NODE_REPLACED;
	if (st.st_uid != e->perms.uid || st.st_gid != e->perms.gid ||
	    (st.st_mode & 07777) != e->perms.mode)
		return NODE_PERMS_SET;
	return NODE_PRESENT;
}

/* <dev root>/dev/nvidia-caps for a look only: -1 when missing (its nodes would be made). */
static int caps_dir_peek(int devfd, const char *dev_dir, int *ret, struct cdi_error *err)
{
	*ret = openat(devfd, NODE_CAPS_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*ret >= 0 || errno == ENOENT)
		return 0;
	return fail_errno(err, dev_dir, "%s: not a directory (or a link to one)", NODE_CAPS_DIR);
}

int node_preview_nvidia(const struct gen_host *host, struct node_create_result *ret,
			struct cdi_error *warn, struct cdi_error *err)
{
	struct node_plan plan = { 0 };
	_cleanup_free_ char *dev_dir = host_path(host->dev_root, "/dev");
	_cleanup_close_ int devfd = -1, capsfd = -1;
	int r, caps_error = 0, first = 0;

	*ret = (struct node_create_result){ 0 };
	if (!dev_dir)
		return cdi_fail(err, -ENOMEM, "%s", strerror(ENOMEM));
	r = node_plan_nvidia(host->root, &plan, warn, err);
	if (r < 0)
		return r;
	devfd = open(dev_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (devfd < 0)
		first = fail_errno(err, dev_dir, "cannot open");
	else
		caps_error = caps_dir_peek(devfd, dev_dir, &capsfd, err);
	for (size_t i = 0; first == 0 && i < plan.n; i++) {
		const struct node_plan_entry *e = &plan.entries[i];
		struct node_outcome *o = outcome_add(ret, dev_dir, e);

		if (!o) {
			first = cdi_fail(err, -ENOMEM, "%s", strerror(ENOMEM));
			break;
		}
		if (e->in_caps && caps_error < 0)
			continue;
		o->change = change_needed(e->in_caps ? capsfd : devfd, e, o->path, err);
	}
	node_plan_clear(&plan);
	if (first == 0 && cdi_error_code(err) < 0)
		first = cdi_error_code(err);
	return first;
}

void node_create_result_clear(struct node_create_result *res)
{
	if (!res)
		return;
	for (size_t i = 0; i < res->n; i++)
		free(res->nodes[i].path);
	free(res->nodes);
	*res = (struct node_create_result){ 0 };
}

const char *node_change_str(enum node_change change, bool dry_run)
{
	switch (change) {
	case NODE_PRESENT:
		return "present";
	case NODE_CREATED:
		return dry_run ? "would be created" : "created";
	case NODE_REPLACED:
		return dry_run ? "would be replaced" : "replaced";
	case NODE_PERMS_SET:
		return dry_run ? "would get its mode and owner set" : "mode and owner set";
	case NODE_LEFT_ALONE:
		return "left alone";
	case NODE_FAILED:
		return "failed";
	}
	return "?";
}
