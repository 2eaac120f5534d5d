/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fault-shim.so: an LD_PRELOAD library that makes chosen file-system calls fail, so tests can
 * watch a program meet a full disk, a read-only directory or a dying device (tests/faults.sh).
 * Built by mk/fuzz.mk as $B/tests/faults/fault-shim.so. Set in the environment:
 *
 *   CDIKIT_FAULT=CLASS       which calls fail:
 *       write   write, pwrite, writev on a regular file
 *       read    read, pread on a regular file
 *       open    every open, openat, creat and mkstemp-family call
 *       create  only those that create a file (O_CREAT, O_TMPFILE, mkstemp and kin)
 *       fsync   fsync, fdatasync (of files and directories)
 *       rename  rename, renameat, renameat2
 *       link    link, linkat (publishing an O_TMPFILE file)
 *       close   close (the descriptor is closed, then EIO-style failure is reported)
 *       chmod   chmod, fchmod, fchmodat
 *       chown   chown, fchown, lchown, fchownat
 *       mkdir   mkdir, mkdirat
 *   CDIKIT_FAULT_ERRNO=E     the error: a name (ENOSPC, EROFS, EACCES, EIO, ...) or a number;
 *                            default EIO
 *   CDIKIT_FAULT_PATH=GLOB   only calls on a path that matches GLOB (fnmatch, '*' also matches
 *                            '/': "/tmp/x/?*" is every file under /tmp/x, "/tmp/x" the directory
 *                            alone); for calls on a descriptor the path it was opened as
 *                            (/proc/self/fd), for *at calls the path joined to the
 *                            directory's, for renames "FROM -> TO"; default: any path
 *   CDIKIT_FAULT_AFTER=N     the first N matching calls succeed (default 0)
 *   CDIKIT_FAULT_TIMES=M     then M calls fail and the rest succeed (default: all fail)
 *   CDIKIT_FAULT_SHORT=1     write only: instead of failing, write half the bytes (a short
 *                            write, which is not an error: the caller must write the rest)
 *   CDIKIT_FAULT_PARTIAL=1   write only: the first faulted write writes half its bytes, the
 *                            next ones fail (a disk that fills up in the middle of a file)
 *   CDIKIT_FAULT_LOG=FILE    append one line per injected fault, so a test can tell the fault
 *                            happened ("write /tmp/x/.nvidia.yaml.Ab12Cd.tmp ENOSPC")
 *
 * Under AddressSanitizer the shim comes before the ASan runtime in the library list: run with
 * ASAN_OPTIONS=verify_asan_link_order=0. The shim itself is never instrumented.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

/* Interposed names no header declares (fortified opens, renameat2 without <stdio.h>'s). */
EXPORT int __open_2(const char *path, int flags);
EXPORT int __open64_2(const char *path, int flags);
EXPORT int __openat_2(int dirfd, const char *path, int flags);
EXPORT int __openat64_2(int dirfd, const char *path, int flags);

static struct {
	bool ready;
	const char *call;
	int err;
	const char *path;
	unsigned long after;
	long times; /* < 0: no limit */
	bool short_write;
	bool partial; /* the first faulted write is short, the next ones fail */
	const char *log;
} cfg;
static unsigned long matched;
static bool partial_done;

#define ERRNO(e)                                                                                   \
	{                                                                                          \
#e, e                                                                              \
	}
static const struct {
	const char *name;
	int value;
} errnos[] = {
	ERRNO(EIO),    ERRNO(ENOSPC),	    ERRNO(EROFS),  ERRNO(EACCES), ERRNO(EPERM),
	ERRNO(EDQUOT), ERRNO(EXDEV),	    ERRNO(EMFILE), ERRNO(ENFILE), ERRNO(EEXIST),
	ERRNO(ENOENT), ERRNO(EBUSY),	    ERRNO(EINTR),  ERRNO(EAGAIN), ERRNO(ENOMEM),
	ERRNO(EFBIG),  ERRNO(ENAMETOOLONG),
};

static const char *errno_name(int e)
{
	for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
		if (errnos[i].value == e)
			return errnos[i].name;
	return "E?";
}

static void setup(void)
{
	const char *s;

	if (cfg.ready)
		return;
	cfg.call = getenv("CDIKIT_FAULT");
	cfg.err = EIO;
	s = getenv("CDIKIT_FAULT_ERRNO");
	for (size_t i = 0; s && i < sizeof(errnos) / sizeof(errnos[0]); i++)
		if (strcmp(s, errnos[i].name) == 0)
			cfg.err = errnos[i].value;
	if (s && s[0] >= '0' && s[0] <= '9')
		cfg.err = atoi(s);
	cfg.path = getenv("CDIKIT_FAULT_PATH");
	s = getenv("CDIKIT_FAULT_AFTER");
	cfg.after = s ? strtoul(s, NULL, 10) : 0;
	s = getenv("CDIKIT_FAULT_TIMES");
	cfg.times = s ? strtol(s, NULL, 10) : -1;
	s = getenv("CDIKIT_FAULT_SHORT");
	cfg.short_write = s && strcmp(s, "1") == 0;
	s = getenv("CDIKIT_FAULT_PARTIAL");
	cfg.partial = s && strcmp(s, "1") == 0;
	cfg.log = getenv("CDIKIT_FAULT_LOG");
	cfg.ready = true;
}

__attribute__((constructor)) static void shim_init(void)
{
	setup();
}

/* The next definition of name: libc's, or the sanitizer's interceptor in front of it. */
#define REAL(name)                                                                                 \
	static __typeof__(name) *real_##name;                                                      \
	if (!real_##name)                                                                          \
	real_##name = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

static bool class_is(const char *klass)
{
	setup();
	return cfg.call && strcmp(cfg.call, klass) == 0;
}

static const char *fd_path(int fd, char buf[PATH_MAX])
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, PATH_MAX - 1);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	return buf;
}

static bool fd_is_regular(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

/* path as seen from dirfd, made absolute where it can be. */
static const char *at_path(int dirfd, const char *path, char buf[PATH_MAX])
{
	char dir[PATH_MAX];

	if (!path || path[0] == '/')
		return path;
	if (dirfd == AT_FDCWD) {
		if (!getcwd(dir, sizeof(dir)))
			return path;
	} else if (!fd_path(dirfd, dir)) {
		return path;
	}
	if (snprintf(buf, PATH_MAX, "%s%s%s", dir, path[0] ? "/" : "", path) >= PATH_MAX)
		return path; /* path[0] == 0: AT_EMPTY_PATH, the descriptor itself */
	return buf;
}

static void log_fault(const char *func, const char *path, const char *what)
{
	REAL(open);
	REAL(write);
	REAL(close);
	char line[PATH_MAX + 128];
	int fd, n;

	if (!cfg.log)
		return;
	n = snprintf(line, sizeof(line), "%s %s %s\n", func, path ? path : "-", what);
	fd = real_open(cfg.log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (n > 0 && real_write(fd, line, (size_t)n) < 0)
		n = 0;
	real_close(fd);
}

/* Whether this call on path fails (counting it when it matches). */
static bool hit(const char *klass, const char *path)
{
	unsigned long n;

	if (!class_is(klass))
		return false;
	if (cfg.path && (!path || fnmatch(cfg.path, path, 0) != 0))
		return false;
	n = __atomic_fetch_add(&matched, 1, __ATOMIC_SEQ_CST);
	if (n < cfg.after)
		return false;
	return cfg.times < 0 || n - cfg.after < (unsigned long)cfg.times;
}

static int fail(const char *func, const char *path)
{
	log_fault(func, path, errno_name(cfg.err));
	errno = cfg.err;
	return -1;
}

/* ---- opening and creating ---------------------------------------------------------------- */

static bool open_fails(const char *func, int dirfd, const char *path, int flags)
{
	char buf[PATH_MAX];
	const char *full;
	bool creates = (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;

	if (!class_is("open") && !(creates && class_is("create")))
		return false;
	full = at_path(dirfd, path, buf);
	if (!hit(cfg.call, full))
		return false;
	fail(func, full);
	return true;
}

/*
 * An interposed call: -1 with the configured errno when `fails` (an expression over the
 * parameters; __func__ names the call) says so, else the next definition of it.
 */
#define INTERPOSE(ret, name, params, args, fails)                                                  \
	EXPORT ret name params                                                                     \
	{                                                                                          \
		REAL(name);                                                                        \
		if (fails)                                                                         \
			return -1;                                                                 \
		return real_##name args;                                                           \
	}

/* open(2)'s mode is there only with O_CREAT or O_TMPFILE. */
#define OPEN(name, params, dirfd, args)                                                            \
	EXPORT int name params                                                                     \
	{                                                                                          \
		REAL(name);                                                                        \
		mode_t mode = 0;                                                                   \
		if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) {                       \
			va_list ap;                                                                \
			va_start(ap, flags);                                                       \
			mode = va_arg(ap, mode_t);                                                 \
			va_end(ap);                                                                \
		}                                                                                  \
		if (open_fails(__func__, dirfd, path, flags))                                      \
			return -1;                                                                 \
		return real_##name args;                                                           \
	}
OPEN(open, (const char *path, int flags, ...), AT_FDCWD, (path, flags, mode))
OPEN(open64, (const char *path, int flags, ...), AT_FDCWD, (path, flags, mode))
OPEN(openat, (int dirfd, const char *path, int flags, ...), dirfd, (dirfd, path, flags, mode))
OPEN(openat64, (int dirfd, const char *path, int flags, ...), dirfd, (dirfd, path, flags, mode))

/* The fortified opens (-D_FORTIFY_SOURCE) take no mode. */
INTERPOSE(int, __open_2, (const char *path, int flags), (path, flags),
	  open_fails(__func__, AT_FDCWD, path, flags))
INTERPOSE(int, __open64_2, (const char *path, int flags), (path, flags),
	  open_fails(__func__, AT_FDCWD, path, flags))
INTERPOSE(int, __openat_2, (int dirfd, const char *path, int flags), (dirfd, path, flags),
	  open_fails(__func__, dirfd, path, flags))
INTERPOSE(int, __openat64_2, (int dirfd, const char *path, int flags), (dirfd, path, flags),
	  open_fails(__func__, dirfd, path, flags))
INTERPOSE(int, creat, (const char *path, mode_t mode), (path, mode),
	  open_fails(__func__, AT_FDCWD, path, O_CREAT))
INTERPOSE(int, creat64, (const char *path, mode_t mode), (path, mode),
	  open_fails(__func__, AT_FDCWD, path, O_CREAT))

/* glibc's mkstemp family opens through an internal call no preload can reach: stop it here. */
#define MKSTEMP(name, params, args)                                                                \
	INTERPOSE(int, name, params, args, open_fails(__func__, AT_FDCWD, tmpl, O_CREAT))
MKSTEMP(mkstemp, (char *tmpl), (tmpl))
MKSTEMP(mkstemp64, (char *tmpl), (tmpl))
MKSTEMP(mkostemp, (char *tmpl, int flags), (tmpl, flags))
MKSTEMP(mkostemp64, (char *tmpl, int flags), (tmpl, flags))
MKSTEMP(mkstemps, (char *tmpl, int suffixlen), (tmpl, suffixlen))
MKSTEMP(mkstemps64, (char *tmpl, int suffixlen), (tmpl, suffixlen))
MKSTEMP(mkostemps, (char *tmpl, int suffixlen, int flags), (tmpl, suffixlen, flags))
MKSTEMP(mkostemps64, (char *tmpl, int suffixlen, int flags), (tmpl, suffixlen, flags))

/* ---- reading and writing ----------------------------------------------------------------- */

/* For write: -1 fail, 0 go on with n bytes (maybe fewer than asked, a short write). */
static int write_fault(const char *func, int fd, size_t *n)
{
	char buf[PATH_MAX];
	const char *path;

	if (!class_is("write") || !fd_is_regular(fd))
		return 0;
	path = fd_path(fd, buf);
	if (!hit("write", path))
		return 0;
	if (cfg.partial && *n > 1 && !__atomic_exchange_n(&partial_done, true, __ATOMIC_SEQ_CST)) {
		*n /= 2;
		log_fault(func, path, "partial");
		return 0;
	}
	if (!cfg.short_write)
		return fail(func, path);
	if (*n > 1)
		*n /= 2;
	log_fault(func, path, "short");
	return 0;
}

/* A write that may fail or write fewer bytes than asked. */
#define WRITE(name, params, args)                                                                  \
	EXPORT ssize_t name params                                                                 \
	{                                                                                          \
		REAL(name);                                                                        \
		if (write_fault(__func__, fd, &n) < 0)                                             \
			return -1;                                                                 \
		return real_##name args;                                                           \
	}
WRITE(write, (int fd, const void *data, size_t n), (fd, data, n))
WRITE(pwrite, (int fd, const void *data, size_t n, off_t off), (fd, data, n, off))
WRITE(pwrite64, (int fd, const void *data, size_t n, off64_t off), (fd, data, n, off))

EXPORT ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
	REAL(writev);
	REAL(write);
	size_t n = iovcnt > 0 ? iov[0].iov_len : 0;

	if (write_fault("writev", fd, &n) < 0)
		return -1;
	if (iovcnt > 0 && n < iov[0].iov_len) /* short: part of the first buffer only */
		return real_write(fd, iov[0].iov_base, n);
	return real_writev(fd, iov, iovcnt);
}

static bool read_fails(const char *func, int fd)
{
	char buf[PATH_MAX];
	const char *path;

	if (!class_is("read") || !fd_is_regular(fd))
		return false;
	path = fd_path(fd, buf);
	if (!hit("read", path))
		return false;
	fail(func, path);
	return true;
}

INTERPOSE(ssize_t, read, (int fd, void *data, size_t n), (fd, data, n), read_fails(__func__, fd))
INTERPOSE(ssize_t, pread, (int fd, void *data, size_t n, off_t off), (fd, data, n, off),
	  read_fails(__func__, fd))
INTERPOSE(ssize_t, pread64, (int fd, void *data, size_t n, off64_t off), (fd, data, n, off),
	  read_fails(__func__, fd))

/* ---- calls on a descriptor ------------------------------------------------------------- */

static bool fd_call_fails(const char *klass, const char *func, int fd)
{
	char buf[PATH_MAX];
	const char *path;

	if (!class_is(klass))
		return false;
	path = fd_path(fd, buf);
	if (!hit(klass, path))
		return false;
	fail(func, path);
	return true;
}

INTERPOSE(int, fsync, (int fd), (fd), fd_call_fails("fsync", __func__, fd))
INTERPOSE(int, fdatasync, (int fd), (fd), fd_call_fails("fsync", __func__, fd))
INTERPOSE(int, fchmod, (int fd, mode_t mode), (fd, mode), fd_call_fails("chmod", __func__, fd))
INTERPOSE(int, fchown, (int fd, uid_t uid, gid_t gid), (fd, uid, gid),
	  fd_call_fails("chown", __func__, fd))

EXPORT int close(int fd)
{
	REAL(close);
	char buf[PATH_MAX];
	const char *path = NULL;
	int r;

	if (class_is("close")) {
		path = fd_path(fd, buf);
		if (!hit("close", path))
			path = NULL;
	}
	r = real_close(fd);
	if (r == 0 && path)
		return fail("close", path); /* as NFS does: closed, and the error of a lost write */
	return r;
}

/* ---- calls on a path ------------------------------------------------------------------- */

static bool path_call_fails(const char *klass, const char *func, int dirfd, const char *path)
{
	char buf[PATH_MAX];
	const char *full;

	if (!class_is(klass))
		return false;
	full = at_path(dirfd, path, buf);
	if (!hit(klass, full))
		return false;
	fail(func, full);
	return true;
}

#define PATH_CALL(klass, name, params, dirfd, path, args)                                          \
	INTERPOSE(int, name, params, args, path_call_fails(klass, __func__, dirfd, path))
PATH_CALL("chmod", chmod, (const char *path, mode_t mode), AT_FDCWD, path, (path, mode))
PATH_CALL("chmod", fchmodat, (int dirfd, const char *path, mode_t mode, int flags), dirfd, path,
	  (dirfd, path, mode, flags))
PATH_CALL("chown", chown, (const char *path, uid_t uid, gid_t gid), AT_FDCWD, path,
	  (path, uid, gid))
PATH_CALL("chown", lchown, (const char *path, uid_t uid, gid_t gid), AT_FDCWD, path,
	  (path, uid, gid))
PATH_CALL("chown", fchownat, (int dirfd, const char *path, uid_t uid, gid_t gid, int flags), dirfd,
	  path, (dirfd, path, uid, gid, flags))
PATH_CALL("mkdir", mkdir, (const char *path, mode_t mode), AT_FDCWD, path, (path, mode))
PATH_CALL("mkdir", mkdirat, (int dirfd, const char *path, mode_t mode), dirfd, path,
	  (dirfd, path, mode))
/* Publishing an O_TMPFILE file: the new name is the one that matters. */
PATH_CALL("link", link, (const char *oldpath, const char *newpath), AT_FDCWD, newpath,
	  (oldpath, newpath))
PATH_CALL("link", linkat,
	  (int olddirfd, const char *oldpath, int newdirfd, const char *newpath, int flags),
	  newdirfd, newpath, (olddirfd, oldpath, newdirfd, newpath, flags))

/* A rename matches on either name. */
static bool rename_fails(const char *func, int olddirfd, const char *oldpath, int newdirfd,
			 const char *newpath)
{
	char a[PATH_MAX], b[PATH_MAX], both[2 * PATH_MAX + 8];
	const char *from, *to;

	if (!class_is("rename"))
		return false;
	from = at_path(olddirfd, oldpath, a);
	to = at_path(newdirfd, newpath, b);
	snprintf(both, sizeof(both), "%s -> %s", from ? from : "", to ? to : "");
	if (!hit("rename", both))
		return false;
	fail(func, both);
	return true;
}

INTERPOSE(int, rename, (const char *oldpath, const char *newpath), (oldpath, newpath),
	  rename_fails(__func__, AT_FDCWD, oldpath, AT_FDCWD, newpath))
INTERPOSE(int, renameat, (int olddirfd, const char *oldpath, int newdirfd, const char *newpath),
	  (olddirfd, oldpath, newdirfd, newpath),
	  rename_fails(__func__, olddirfd, oldpath, newdirfd, newpath))
INTERPOSE(int, renameat2,
	  (int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned flags),
	  (olddirfd, oldpath, newdirfd, newpath, flags),
	  rename_fails(__func__, olddirfd, oldpath, newdirfd, newpath))
