/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Freestanding (fast_exec.h): each check mirrors one of the full program's, and where the two
 * could differ this one gives up (returns 0) rather than decide otherwise: a symbolic link
 * for the config, a setting it does not know, a byte it does not expect.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "config_lex.h"
#include "fast_exec.h"
#include "runc_flags.h"
#include "runtime_config.h"

#if !defined(__x86_64__)
#error "fast_exec.c makes x86-64 system calls; the Makefile builds it for x86-64 only"
#endif

static long sys3(long n, long a, long b, long c)
{
	long r;

	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"(n), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return r;
}

static long sys4(long n, long a, long b, long c, long d)
{
	register long r10 __asm__("r10") = d;
	long r;

	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
	return r;
}

/* stat(2), following links as the full program's stat() does. */
static bool stat_path(const char *path, struct stat *st)
{
	return sys4(SYS_newfstatat, AT_FDCWD, (long)path, (long)st, 0) == 0;
}

static size_t str_len(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

static bool str_eq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

static bool span_is(const char *p, size_t n, const char *word)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (word[i] != p[i])
			return false;
	return word[i] == '\0';
}

/* Copy n bytes and a '\0' into buf of size; false when they do not fit. */
static bool copy_to(char *buf, size_t size, const char *p, size_t n)
{
	if (n >= size)
		return false;
	for (size_t i = 0; i < n; i++)
		buf[i] = p[i];
	buf[n] = '\0';
	return true;
}

/* getenv(name) over envp: the first entry that is "name=...". */
static const char *env_get(char **envp, const char *name)
{
	for (char **e = envp; *e; e++) {
		const char *p = *e, *q = name;

		while (*q && *p == *q)
			p++, q++;
		if (!*q && *p == '=')
			return p + 1;
	}
	return NULL;
}

/*
 * The command line as runc_cmdline_parse reads it: true when it names a command other than
 * create and run, behind runc global flags only (none of ours, no --help or --version).
 */
static bool plain_command(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		const struct runc_flag_def *def;
		struct runc_flag_arg f;

		if (str_eq(arg, "--"))
			return i + 1 < argc && !str_eq(argv[i + 1], "create") &&
			       !str_eq(argv[i + 1], "run");
		if (!runc_flag_split(arg, &f))
			return !str_eq(arg, "create") && !str_eq(arg, "run");
		def = runc_flag_find(runc_global_flags, runc_n_global_flags, &f);
		/* Ours (--cdi-*) are no runc flag either. */
		if (!def || runc_flag_is(&f, "help") || runc_flag_is(&f, "h") ||
		    runc_flag_is(&f, "version") || runc_flag_is(&f, "v"))
			return false;
		if (def->value && !f.value && ++i == argc)
			return false;
	}
	return false; /* no command */
}

/* check_config_trust's rule: written by nobody but root and us, nor replaceable. */
static bool trusted(const char *path, const struct stat *st, uid_t euid, char *dir, size_t size)
{
	size_t n = str_len(path), slash = n; /* the last '/', n for none */
	struct stat dst;
	bool ok;

	if ((st->st_uid != 0 && st->st_uid != euid) || (st->st_mode & 022))
		return false;
	for (size_t i = 0; i < n; i++)
		if (path[i] == '/')
			slash = i;
	/* "/x" is in "/", "x" in "." */
	if (slash == n)
		ok = copy_to(dir, size, ".", 1);
	else
		ok = copy_to(dir, size, path, slash ? slash : 1);
	if (!ok)
		return false;
	if (!stat_path(dir, &dst))
		return false;
	return !((dst.st_uid != 0 && dst.st_uid != euid) ||
		 ((dst.st_mode & 022) && !(dst.st_mode & S_ISVTX)));
}

/* The config file into plan->config: 1 read, 0 absent (when it may be), -1 give up. */
static int read_config(const char *path, bool must_exist, struct fast_exec_plan *plan, size_t *len)
{
	struct stat st;
	long fd, n;

	fd = sys4(SYS_openat, AT_FDCWD, (long)path,
		  O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW, 0);
	if (fd == -ENOENT && !must_exist)
		return 0;
	if (fd < 0)
		return -1;
	*len = 0;
	if (sys3(SYS_fstat, fd, (long)&st, 0) != 0 || !S_ISREG(st.st_mode))
		goto fail;
	do {
		n = sys3(SYS_read, fd, (long)(plan->config + *len), sizeof(plan->config) - *len);
		if (n < 0)
			goto fail;
		*len += (size_t)n;
	} while (n > 0 && *len < sizeof(plan->config));
	if (*len == sizeof(plan->config))
		goto fail;
	sys3(SYS_close, fd, 0, 0);
	return trusted(path, &st, (uid_t)sys3(SYS_geteuid, 0, 0, 0), plan->path_buf,
		       sizeof(plan->path_buf))
		       ? 1
		       : -1;
fail:
	sys3(SYS_close, fd, 0, 0);
	return -1;
}

/*
 * The settings runtime_config.c takes, with the values it takes, but for spec-refresh-output
 * (checked against the spec directories; left to it): words separated by '|', "/" for an
 * absolute path, "" for anything.
 */
static const struct {
	const char *key, *values;
} settings[] = {
	{ "spec-dirs", "" },
	{ "swarm-resource", "" },
	{ "host-root", "/" },
	{ "mps-pipe-directory", "/" },
	{ "log-level", "error|warning|info|debug" },
	{ "spec-refresh", "off|auto" },
	{ "spec-refresh-no-ipc", "true|false" },
	{ "accept-nvidia-visible-devices-envvar-when-unprivileged", "true|false" },
	{ "accept-nvidia-visible-devices-as-volume-mounts", "true|false" },
};

static bool value_ok(const char *values, const char *v, size_t n)
{
	if (!*values)
		return true;
	if (values[0] == '/' && !values[1])
		return n > 0 && v[0] == '/';
	for (const char *w = values;; w++) {
		size_t i = 0;

		while (i < n && w[i] && w[i] != '|' && w[i] == v[i])
			i++;
		if (i == n && (w[i] == '|' || !w[i]))
			return true;
		while (*w && *w != '|')
			w++;
		if (!*w)
			return false;
	}
}

/* The settings a passthrough depends on: the runtime (into plan->name_buf, "" when unset);
 * the others only checked. */
static bool config_settings(const char *text, size_t len, struct fast_exec_plan *plan)
{
	struct config_lexer lx;
	struct config_entry e;
	enum config_lex_result r;

	for (size_t i = 0; i < len; i++)
		if (text[i] == '\0')
			return false; /* read as the end of a key or value there */
	plan->name_buf[0] = '\0';
	config_lex_init(&lx, text, len);
	while ((r = config_lex_next(&lx, &e)) == CONFIG_LEX_ENTRY) {
		size_t i = 0;

		if (span_is(e.key, e.key_len, "runtime")) {
			if (!e.value_len ||
			    !copy_to(plan->name_buf, sizeof(plan->name_buf), e.value, e.value_len))
				return false;
			continue;
		}
		while (i < sizeof(settings) / sizeof(settings[0]) &&
		       !span_is(e.key, e.key_len, settings[i].key))
			i++;
		if (i == sizeof(settings) / sizeof(settings[0]) ||
		    !value_ok(settings[i].values, e.value, e.value_len))
			return false;
	}
	return r == CONFIG_LEX_END;
}

static bool executable(const char *path, struct stat *st)
{
	return stat_path(path, st) && S_ISREG(st->st_mode) && (st->st_mode & 0111);
}

/* search_path's walk: name on the directories of path_env, but this program itself. */
static bool search(const char *name, const char *path_env, struct fast_exec_plan *plan)
{
	size_t name_len = str_len(name);
	int self_known = 0;
	struct stat self, st;

	for (const char *p = path_env; *p;) {
		size_t len = 0, dir_len;
		const char *dir;

		while (p[len] && p[len] != ':')
			len++;
		/* An empty entry is the working directory, as for execvp. */
		dir = len ? p : ".";
		dir_len = len ? len : 1;
		if (dir_len + 1 + name_len >= sizeof(plan->path_buf))
			return false;
		copy_to(plan->path_buf, sizeof(plan->path_buf), dir, dir_len);
		plan->path_buf[dir_len] = '/';
		copy_to(plan->path_buf + dir_len + 1, name_len + 1, name, name_len);
		if (executable(plan->path_buf, &st)) {
			if (!self_known)
				self_known = stat_path("/proc/self/exe", &self) ? 1 : -1;
			if (self_known < 0 || st.st_dev != self.st_dev ||
			    st.st_ino != self.st_ino) {
				plan->path = plan->path_buf;
				plan->name = name;
				return true;
			}
		}
		p += len + (p[len] == ':');
	}
	return false;
}

int fast_exec_plan(int argc, char **argv, char **envp, const char *default_config,
		   struct fast_exec_plan *plan)
{
	const char *config = env_get(envp, RUNTIME_CONFIG_ENV), *runtime, *path_env;
	size_t len = 0;
	struct stat st;
	int r;

	if (!plain_command(argc, argv))
		return 0;
	r = read_config(config && *config ? config : default_config, config && *config, plan, &len);
	if (r < 0 || !config_settings(plan->config, len, plan))
		return 0;
	runtime = env_get(envp, RUNTIME_RUNTIME_ENV);
	if (!runtime || !*runtime)
		runtime = plan->name_buf[0] ? plan->name_buf : NULL;
	for (const char *p = runtime; p && *p; p++)
		if (*p == '/') {
			if (!executable(runtime, &st))
				return 0;
			plan->path = plan->name = runtime;
			return 1;
		}
	path_env = env_get(envp, "PATH");
	if (!path_env || !*path_env)
		path_env = RUNTIME_DEFAULT_PATH;
	if (runtime)
		return search(runtime, path_env, plan);
	return search("runc", path_env, plan) || search("crun", path_env, plan);
}

#ifdef CDIKIT_FAST_ENTRY
void fast_exec_start(long *sp);

/* Called from cdikit_fast_entry with the stack the kernel made: argc, argv, NULL, envp. A
 * return goes on to _start with that stack as it was. */
void fast_exec_start(long *sp)
{
	struct fast_exec_plan plan;
	int argc = (int)sp[0];
	char **argv = (char **)(sp + 1), **envp = argv + argc + 1, *argv0 = argv[0];

	if (argc < 1 || fast_exec_plan(argc, argv, envp, RUNTIME_CONFIG_DEFAULT, &plan) != 1)
		return;
	argv[0] = (char *)plan.name;
	sys3(SYS_execve, (long)plan.path, (long)argv, (long)envp);
	argv[0] = argv0; /* the full program reports why the exec failed */
}

/* The ELF entry point (the Makefile links with -e cdikit_fast_entry): the kernel's %rsp and
 * %rdx (the exit function _start registers) kept in registers the call preserves. */
__asm__(".text\n"
	".globl cdikit_fast_entry\n"
	".type cdikit_fast_entry, @function\n"
	"cdikit_fast_entry:\n"
	"	mov %rsp, %rbx\n"
	"	mov %rdx, %r12\n"
	"	mov %rsp, %rdi\n"
	"	and $-16, %rsp\n"
	"	call fast_exec_start\n"
	"	mov %rbx, %rsp\n"
	"	mov %r12, %rdx\n"
	"	jmp _start\n"
	".size cdikit_fast_entry, . - cdikit_fast_entry\n");
#endif
