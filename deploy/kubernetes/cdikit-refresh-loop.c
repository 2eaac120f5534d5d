/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cdikit-refresh-loop: the process of the cdikit DaemonSet. Runs "COMMAND ARG... --check"
 * every --interval and, when that exits 1 (the spec is stale or missing), "COMMAND ARG..."
 * to rewrite it. With --chroot the commands run with the host's root (mounted into the
 * container) as their root, so every path they read and write into the spec is the host's
 * own; --install first copies the image's programs and their C library there, as the
 * host's own library may be older than the one they were built against.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "macro.h"
#include "tree_copy.h"

#define PROG "cdikit-refresh-loop"
#define EXIT_NOT_RUN 127
/* What a check prints is shown only when it matters; more is cut. */
#define CHECK_OUTPUT_MAX 4096

struct args {
	struct timespec interval;
	const char *chroot_dir; /* realpath, or NULL */
	const char *install_src, *install_dst;
	bool once;
	char **command; /* NULL-terminated, room for one more argument */
	size_t n_command;
};

static void usage(FILE *f)
{
	fputs("Usage: " PROG " [OPTION]... -- COMMAND [ARG]...\n"
	      "Keep a CDI spec fresh: run COMMAND ARG... --check and, when it exits 1 (stale),\n"
	      "COMMAND ARG... to rewrite the spec; again every interval until SIGTERM or SIGINT.\n"
	      "\n"
	      "  --interval SECONDS  time between checks (default 60; fractions allowed)\n"
	      "  --chroot DIR        run COMMAND with DIR as its root directory\n"
	      "  --install SRC:DEST  first copy the tree SRC to DEST under the --chroot directory\n"
	      "                      (each file replaced by rename)\n"
	      "  --once              check (and rewrite) once, exit with the command's status\n"
	      "  -h, --help          this text\n"
	      "  -V, --version       the version\n"
	      "\n"
	      "COMMAND is an absolute path (inside the --chroot directory). What a check prints\n"
	      "is shown when it does not exit 0.\n"
	      "Exit status: 0 stopped by a signal (--once: the spec is fresh), 1 error, 2 usage.\n",
	      f);
}

static int parse_interval(const char *s, struct timespec *ret)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || *end || !isfinite(v) || v < 0.001 || v > 86400.0)
		return -EINVAL;
	ret->tv_sec = (time_t)v;
	ret->tv_nsec = (long)((v - (double)ret->tv_sec) * 1e9);
	return 0;
}

/* Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, struct args *a)
{
	enum { OPT_INTERVAL = 0x100, OPT_CHROOT, OPT_INSTALL, OPT_ONCE };
	static const struct option options[] = {
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "chroot", required_argument, NULL, OPT_CHROOT },
		{ "install", required_argument, NULL, OPT_INSTALL },
		{ "once", no_argument, NULL, OPT_ONCE },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static char resolved[PATH_MAX];
	char *colon;
	int c;

	a->interval = (struct timespec){ .tv_sec = 60 };
	while ((c = getopt_long(argc, argv, "+hV", options, NULL)) != -1) {
		switch (c) {
		case OPT_INTERVAL:
			if (parse_interval(optarg, &a->interval) < 0)
				return cli_usage_error(
					"--interval: not a number of seconds from 0.001 to 86400: %s",
					optarg);
			break;
		case OPT_CHROOT:
			/* Resolved once: no link in it is followed again when DEST is made. */
			if (!realpath(optarg, resolved))
				return cli_usage_error("--chroot: no such directory: %s", optarg);
			a->chroot_dir = resolved;
			break;
		case OPT_INSTALL:
			colon = strchr(optarg, ':');
			if (!colon || colon == optarg || colon[1] != '/')
				return cli_usage_error("--install: not SRC:/DEST: %s", optarg);
			*colon = '\0';
			a->install_src = optarg;
			a->install_dst = colon + 1;
			break;
		case OPT_ONCE:
			a->once = true;
			break;
		case 'h':
			usage(stdout);
			return EXIT_SUCCESS; /* a failed write is caught at exit (cli_init) */
		case 'V':
			return cli_print_version();
		default:
			return cli_usage_error("unknown option or missing argument: %s",
					       argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cli_usage_error("no COMMAND given");
	if (argv[optind][0] != '/')
		return cli_usage_error("COMMAND must be an absolute path: %s", argv[optind]);
	a->n_command = (size_t)(argc - optind);
	a->command = calloc(a->n_command + 2, sizeof(*a->command));
	if (!a->command) {
		cli_error("out of memory");
		return EXIT_FAILURE;
	}
	memcpy(a->command, argv + optind, a->n_command * sizeof(*a->command));
	return -1;
}

/* Reap every child that has exited (as PID 1 of a container, orphans are ours too). */
static void reap(pid_t pid, int *status, bool *done)
{
	pid_t p;
	int st;

	while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
		if (p == pid) {
			*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
			*done = true;
		}
	}
}

/*
 * Run the command (with --check when output_fd >= 0, its stdout and stderr going there),
 * passing SIGTERM and SIGINT on; *stop says one came. Returns the exit status (128 + signal
 * when killed), or -errno when it could not be started.
 */
static int run(const struct args *a, bool check, int output_fd, const sigset_t *waited, bool *stop)
{
	bool done = false;
	int status = EXIT_NOT_RUN;
	pid_t pid;

	a->command[a->n_command] = check ? "--check" : NULL;
	pid = fork();
	if (pid < 0)
		return negative_errno();
	if (pid == 0) {
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (output_fd >= 0 &&
		    (dup2(output_fd, STDOUT_FILENO) < 0 || dup2(output_fd, STDERR_FILENO) < 0))
			_exit(EXIT_NOT_RUN);
		if (a->chroot_dir && (chroot(a->chroot_dir) < 0 || chdir("/") < 0)) {
			cli_error("%s: cannot change root: %s", a->chroot_dir, strerror(errno));
			_exit(EXIT_NOT_RUN);
		}
		execv(a->command[0], a->command);
		cli_error("%s: cannot run: %s", a->command[0], strerror(errno));
		_exit(EXIT_NOT_RUN);
	}
	while (!done) {
		siginfo_t info;
		int sig = sigwaitinfo(waited, &info);

		if (sig == SIGTERM || sig == SIGINT) {
			*stop = true;
			kill(pid, sig);
		}
		reap(pid, &status, &done);
	}
	a->command[a->n_command] = NULL;
	return status;
}

/* The check's output, which says why the spec is stale or why the check failed. */
static void show(int fd)
{
	char buf[CHECK_OUTPUT_MAX];
	ssize_t n = pread(fd, buf, sizeof(buf), 0);

	if (n > 0)
		fwrite(buf, 1, (size_t)n, stdout);
}

/* One check, and a rewrite when the check says stale. Returns the status that counts. */
static int refresh(const struct args *a, const sigset_t *waited, bool *stop)
{
	_cleanup_close_ int out = memfd_create("cdikit-check", MFD_CLOEXEC);
	int r;

	if (out < 0 || ftruncate(out, 0) < 0) {
		cli_error("cannot hold the check's output: %s", strerror(errno));
		return EXIT_FAILURE;
	}
	r = run(a, true, out, waited, stop);
	if (r == 0 || *stop)
		return r < 0 ? EXIT_FAILURE : r;
	show(out);
	if (r != 1) {
		cli_error("%s --check: %s%s", a->command[0], r < 0 ? "cannot start: " : "failed",
			  r < 0 ? strerror(-r) : "");
		return EXIT_FAILURE;
	}
	fflush(stdout);
	r = run(a, false, -1, waited, stop);
	if (r == 0)
		printf(PROG ": rewrote the spec\n");
	else if (!*stop)
		cli_error("%s failed (exit %d); next try in the next interval", a->command[0],
			  r < 0 ? EXIT_NOT_RUN : r);
	return r < 0 ? EXIT_FAILURE : r;
}

/* Sleep for the interval; true when SIGTERM or SIGINT ended it. */
static bool wait_interval(const struct timespec *interval, const sigset_t *waited)
{
	struct timespec now, end;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += interval->tv_sec;
	end.tv_nsec += interval->tv_nsec;
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	for (;;) {
		struct timespec left;
		int sig;

		clock_gettime(CLOCK_MONOTONIC, &now);
		left.tv_sec = end.tv_sec - now.tv_sec;
		left.tv_nsec = end.tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_sec--;
			left.tv_nsec += 1000000000L;
		}
		if (left.tv_sec < 0)
			return false;
		sig = sigtimedwait(waited, NULL, &left);
		if (sig == SIGTERM || sig == SIGINT)
			return true;
		if (sig == SIGCHLD) {
			bool unused = false;
			int st;

			reap(-1, &st, &unused);
		}
	}
}

static int install(const struct args *a)
{
	_cleanup_free_ char *dst = NULL;
	struct cdi_error err = { 0 };
	int r;

	if (asprintf(&dst, "%s%s", a->chroot_dir && strcmp(a->chroot_dir, "/") ? a->chroot_dir : "",
		     a->install_dst) < 0) {
		cli_error("out of memory");
		return -ENOMEM;
	}
	r = tree_copy(a->install_src, dst, &err);
	cli_print_problems(&err, "--install: ");
	cdi_error_reset(&err);
	return r;
}

int main(int argc, char **argv)
{
	struct args a = { 0 };
	sigset_t waited;
	bool stop = false;
	int r;

	cli_init(PROG);
	r = parse_args(argc, argv, &a);
	if (r >= 0)
		return r;
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Signals are taken synchronously: SIGTERM between two runs or during one is seen. */
	sigemptyset(&waited);
	sigaddset(&waited, SIGTERM);
	sigaddset(&waited, SIGINT);
	sigaddset(&waited, SIGCHLD);
	sigprocmask(SIG_BLOCK, &waited, NULL);

	if (a.install_src && install(&a) < 0) {
		free(a.command);
		return EXIT_FAILURE;
	}
	for (;;) {
		r = refresh(&a, &waited, &stop);
		if (a.once || stop || wait_interval(&a.interval, &waited))
			break;
	}
	free(a.command);
	if (a.once && !stop)
		return r == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
	return EXIT_SUCCESS;
}
