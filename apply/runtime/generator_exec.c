/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cdi-generate as a child of cdi-runtime. The engine hands the runtime its own environment,
 * umask, working directory, signal mask and file descriptors (console sockets, sync pipes of
 * runc's --preserve-fds): none of them is the generator's business, so the child starts from a
 * known state and inherits nothing but a pipe for its messages.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "generator_exec.h"
#include "macro.h"
#include "problem.h"

/* What the child's stderr may hold that is read: its last line is what counts. */
#define MESSAGE_MAX 4096

static const char *const clean_env[] = {
	"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
	NULL,
};

/* Owned by root or us, and writable by nobody else: what only root (or we) could have put. */
static int check_trusted(const char *path, const struct stat *st, const char *what,
			 struct cdi_error *err)
{
	if ((st->st_uid == 0 || st->st_uid == geteuid()) && !(st->st_mode & 022))
		return 0;
	return cdi_problem_add(
		err, -EPERM, path, 0, 0, NULL,
		"insecure %s: owned by uid %u with mode %04o; not run (only root or uid %u may write it)",
		what, (unsigned)st->st_uid, (unsigned)(st->st_mode & 07777), (unsigned)geteuid());
}

int generator_find(char **ret, struct cdi_error *err)
{
	_cleanup_free_ char *path = NULL;
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;
	struct stat st;
	int r;

	if (n <= 0 || (size_t)n >= sizeof(self) - 1)
		return cdi_fail(err, n < 0 ? negative_errno() : -ENAMETOOLONG,
				"cannot find this program's directory (/proc/self/exe)");
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return cdi_fail(err, -ENOENT, "/proc/self/exe: %s is not a path", self);
	*slash = '\0'; /* the directory; a " (deleted)" suffix was on the file's name */
	if (asprintf(&path, "%s/" GENERATOR_NAME, *self ? self : "") < 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	if (stat(*self ? self : "/", &st) < 0)
		return cdi_problem_add(err, negative_errno(), self, 0, 0, NULL, "cannot stat: %s",
				       strerror(errno));
	r = check_trusted(*self ? self : "/", &st, "directory", err);
	if (r < 0)
		return r;
	if (stat(path, &st) < 0)
		return cdi_problem_add(err, negative_errno(), path, 0, 0, NULL,
				       "cannot run the generator: %s", strerror(errno));
	if (!S_ISREG(st.st_mode) || !(st.st_mode & 0111))
		return cdi_problem_add(err, -EACCES, path, 0, 0, NULL,
				       "cannot run the generator: not an executable file");
	r = check_trusted(path, &st, "generator", err);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(path);
	return 0;
}

/* In the child, between fork and exec: a known state, then the program; never returns. */
_Noreturn static void child_exec(const char *path, char *const argv[], int err_fd, pid_t parent)
{
	sigset_t none;
	int null_fd, fd;

	/* Killed with cdi-runtime: a run nobody waits for is a run nobody can report. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(127);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* Ignored signals stay ignored across exec: the engine's SIG_IGN are not the child's. */
	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	err_fd = fcntl(err_fd, F_DUPFD, 3);
	null_fd = open("/dev/null", O_RDWR);
	if (err_fd < 0 || null_fd < 0 || dup2(null_fd, 0) < 0 || dup2(null_fd, 1) < 0 ||
	    dup2(err_fd, 2) < 0)
		_exit(127);
	/* Everything else the engine left open goes. */
	if (close_range(3, ~0U, 0) < 0)
		for (fd = 3; fd < 65536; fd++)
			close(fd);
	umask(022);
	if (chdir("/") < 0)
		_exit(127);
	execve(path, argv, (char *const *)clean_env);
	dprintf(2, GENERATOR_NAME ": cannot run %s: %s\n", path, strerror(errno));
	_exit(127);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Read fd to its end into buf (the latest bytes kept), or until the deadline: false then. */
static bool read_until(int fd, long long deadline, char *buf, size_t size, size_t *len)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long long left = deadline - now_ms();
		char chunk[MESSAGE_MAX / 4];
		ssize_t n;
		int r;

		if (left <= 0)
			return false;
		r = poll(&p, 1, left > INT_MAX ? INT_MAX : (int)left);
		if (r < 0 && errno != EINTR)
			return true; /* cannot wait: its end is waitpid's to find */
		if (r <= 0)
			continue;
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return true;
		/* Keep the tail: the last line is the one that says why. */
		if (*len + (size_t)n > size - 1) {
			size_t drop = *len + (size_t)n - (size - 1);

			memmove(buf, buf + drop, *len - drop);
			*len -= drop;
		}
		memcpy(buf + *len, chunk, (size_t)n);
		*len += (size_t)n;
	}
}

/* The last non-empty line of text (modified in place), or NULL. */
static const char *last_line(char *text, size_t len)
{
	char *start;

	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r'))
		len--;
	text[len] = '\0';
	if (len == 0)
		return NULL;
	start = strrchr(text, '\n');
	return start ? start + 1 : text;
}

int generator_run(const char *path, char *const argv[], unsigned timeout_ms, struct cdi_error *err)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL }, old_chld;
	_cleanup_close_ int out_fd = -1;
	char msg[MESSAGE_MAX];
	size_t len = 0;
	bool timed_out;
	const char *line;
	int pipe_fds[2], status = 0, r = 0;
	pid_t pid, parent = getpid();

	if (pipe2(pipe_fds, O_CLOEXEC) < 0)
		return cdi_fail(err, negative_errno(), "cannot run %s: pipe: %s", path,
				strerror(errno));
	/* An engine that ignores SIGCHLD would have the kernel reap the child before we wait. */
	sigaction(SIGCHLD, &dfl, &old_chld);
	pid = fork();
	if (pid == 0)
		child_exec(path, argv, pipe_fds[1], parent);
	close(pipe_fds[1]);
	out_fd = pipe_fds[0];
	if (pid < 0) {
		r = cdi_fail(err, negative_errno(), "cannot run %s: fork: %s", path,
			     strerror(errno));
		sigaction(SIGCHLD, &old_chld, NULL);
		return r;
	}
	timed_out = !read_until(out_fd, now_ms() + timeout_ms, msg, sizeof(msg), &len);
	if (timed_out)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	sigaction(SIGCHLD, &old_chld, NULL);
	if (!timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	line = last_line(msg, len);
	if (timed_out)
		return cdi_fail(err, -ETIMEDOUT, "%s killed after %g s without finishing%s%s", path,
				timeout_ms / 1000.0, line ? "; it said: " : "", line ? line : "");
	if (line)
		return cdi_fail(err, -EIO, "%s", line);
	if (WIFSIGNALED(status))
		return cdi_fail(err, -EIO, "%s killed by signal %d", path, WTERMSIG(status));
	return cdi_fail(err, -EIO, "%s exited with status %d", path, WEXITSTATUS(status));
}
