/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cdi-runtime's passthrough before libc (apply/runtime/fast_exec.c) side by side with the full
 * program's decision (runc_cmdline_parse, runtime_settings_resolve, _find_runtime): for each
 * command line, environment and config file, the passthrough either gives up or execs exactly
 * what the full program would, and it takes the cases it is there for. The host's
 * /etc/cdikit is never read: the default config is a path in the scratch directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "runtime/fast_exec.h"
#include "runtime/runc_cmdline.h"
#include "runtime/runtime_config.h"
#include "../lib/testlib.h"

static struct scratch tmp;

/*
 * bin/runc and bin/crun (executables), other/runc too, self/runc this test program itself
 * (a link to it: cdi-runtime installed as runc), noexec/runc not executable; empty.conf.
 */
static void setup(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	cr_assert_gt(n, 0);
	self[n] = '\0';
	scratch_make(&tmp, "fast-exec");
	sh("cd '%s' && mkdir bin other self noexec && printf '#!/bin/sh\\n' >bin/runc && "
	   "cp bin/runc bin/crun && cp bin/runc other/runc && chmod 755 bin/* other/runc && "
	   "cp bin/runc noexec/runc && chmod 644 noexec/runc && ln -s '%s' self/runc && "
	   ": >empty.conf && chmod 644 empty.conf",
	   tmp.path, self);
}

static void teardown(void)
{
	scratch_remove(&tmp);
}

TestSuite(fast_exec, .init = setup, .fini = teardown);

struct fx_case {
	const char *args;   /* after argv[0], split at spaces */
	const char *config; /* the config file's text, '@' as in path; NULL: none (CDIKIT_CONFIG
			     * unset) */
	size_t config_len;  /* its length, when it holds a '\0' (taken as it is) */
	mode_t mode;	    /* 0: 0644 */
	const char *runtime_env; /* CDIKIT_RUNTIME, '@' as in path, or NULL */
	const char *path;	 /* PATH; each '@' is the scratch directory; NULL: unset */
	bool fast;		 /* the passthrough takes it */
	const char *want;	 /* then: the file exec'd, '@' as in path */
};

/* s with each '@' replaced by the scratch directory; to free. */
static char *expand(const char *s)
{
	size_t n = 1;
	char *out, *o;

	for (const char *p = s; *p; p++)
		n += *p == '@' ? strlen(tmp.path) : 1;
	o = out = malloc(n);
	cr_assert_not_null(out);
	for (const char *p = s; *p; p++)
		o = *p == '@' ? stpcpy(o, tmp.path) : (*o = *p, o + 1);
	*o = '\0';
	return out;
}

/* What the full program execs for argv and the environment: true with *path and *name. */
static bool full_program(int argc, char **argv, const char *config, const char *runtime_env,
			 const char *path_env, char **path, char **name, struct runc_cmdline *cl)
{
	struct runtime_settings s = { 0 };
	struct runtime_overrides o = { .env_runtime = runtime_env, .env_config = config };
	struct cdi_error err = { 0 };
	const char *n = NULL;
	bool ok;

	if (runc_cmdline_parse(argc, argv, cl, &err) < 0) {
		cdi_error_reset(&err);
		return false;
	}
	if (cl->help || cl->version || cl->edit || !cl->command)
		return false;
	ok = runtime_settings_resolve(&o, &s, &err) == 0 &&
	     runtime_settings_find_runtime(&s, path_env, path, &n, &err) == 0;
	if (ok)
		*name = strdup(n);
	cdi_error_reset(&err);
	runtime_settings_done(&s);
	return ok;
}

static void check(const struct fx_case *c)
{
	_cleanup_free_ char *args = strdup(c->args), *path_env = c->path ? expand(c->path) : NULL;
	_cleanup_free_ char *conf = NULL, *env_conf = NULL, *env_rt = NULL, *env_path = NULL;
	_cleanup_free_ char *slow_path = NULL, *slow_name = NULL, *absent = NULL;
	_cleanup_free_ char *text = c->config && !c->config_len ? expand(c->config) : NULL;
	_cleanup_free_ char *runtime_env = c->runtime_env ? expand(c->runtime_env) : NULL;
	struct runc_cmdline cl = { 0 };
	struct fast_exec_plan *plan = malloc(sizeof(*plan));
	char *argv[32] = { "cdi-runtime" }, *envp[8] = { 0 }, *save = NULL;
	int argc = 1, envc = 0, fast;
	bool slow;

	cr_assert(args && plan);
	for (char *a = strtok_r(args, " ", &save); a; a = strtok_r(NULL, " ", &save))
		argv[argc++] = a;
	if (c->config) {
		const char *body = text ? text : c->config;
		size_t len = text ? strlen(text) : c->config_len;
		FILE *f;

		cr_assert_neq(asprintf(&conf, "%s/case.conf", tmp.path), -1);
		unlink(conf);
		f = fopen(conf, "w");
		cr_assert(f && fwrite(body, 1, len, f) == len && fclose(f) == 0);
		cr_assert_eq(chmod(conf, c->mode ? c->mode : 0644), 0);
		cr_assert_neq(asprintf(&env_conf, RUNTIME_CONFIG_ENV "=%s", conf), -1);
		envp[envc++] = env_conf;
	}
	if (runtime_env) {
		cr_assert_neq(asprintf(&env_rt, RUNTIME_RUNTIME_ENV "=%s", runtime_env), -1);
		envp[envc++] = env_rt;
	}
	if (path_env) {
		cr_assert_neq(asprintf(&env_path, "PATH=%s", path_env), -1);
		envp[envc++] = env_path;
	}
	cr_assert_neq(asprintf(&absent, "%s/absent.conf", tmp.path), -1);

	fast = fast_exec_plan(argc, argv, envp, absent, plan);
	/* No config file is an empty one to the full program (which would read /etc/cdikit's). */
	slow = full_program(argc, argv, conf ? conf : scratch_at(&tmp, "empty.conf"), runtime_env,
			    path_env, &slow_path, &slow_name, &cl);
	cr_assert_eq(fast, c->fast, "%s: the passthrough %s", c->args,
		     fast ? "took it" : "gave up");
	if (fast) {
		_cleanup_free_ char *want = expand(c->want);

		cr_assert(slow, "%s: the full program would not exec", c->args);
		cr_assert_str_eq(plan->path, slow_path, "%s", c->args);
		cr_assert_str_eq(plan->name, slow_name, "%s", c->args);
		cr_assert_str_eq(plan->path, want, "%s", c->args);
		/* The rest of argv goes as it is: the full program passes it on unchanged. */
		cr_assert_eq(cl.argc, argc, "%s", c->args);
		for (int i = 1; i < argc; i++)
			cr_assert_str_eq(cl.argv[i], argv[i], "%s", c->args);
	}
	runc_cmdline_done(&cl);
	free(plan);
}

static void check_all(const struct fx_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++)
		check(&cases[i]);
}

/* The engines' everyday commands pass, with runc's global flags in their spellings. */
Test(fast_exec, commands)
{
	static const struct fx_case cases[] = {
		{ "state id", NULL, .path = "@/bin", .fast = true, .want = "@/bin/runc" },
		{ "--root /r --log /l --log-format json --systemd-cgroup start id", NULL,
		  .path = "@/bin", .fast = true, .want = "@/bin/runc" },
		{ "-root=/r -debug=false delete -f id", NULL, .path = "@/bin", .fast = true,
		  .want = "@/bin/runc" },
		{ "--root /r -- kill id KILL", NULL, .path = "@/bin", .fast = true,
		  .want = "@/bin/runc" },
		{ "--root -- delete", NULL, .path = "@/bin", .fast = true, .want = "@/bin/runc" },
		{ "- x", NULL, .path = "@/bin", .fast = true, .want = "@/bin/runc" },
		{ "features", NULL, .path = "@/bin", .fast = true, .want = "@/bin/runc" },
		/* The full program decides: an edit, help, a version, our options, runc's errors.
		 */
		{ "create --bundle /b id", NULL, .path = "@/bin" },
		{ "--root /r run id", NULL, .path = "@/bin" },
		{ "-- create id", NULL, .path = "@/bin" },
		{ "--version", NULL, .path = "@/bin" },
		{ "-v state id", NULL, .path = "@/bin" },
		{ "--version=true state id", NULL, .path = "@/bin" },
		{ "-h state", NULL, .path = "@/bin" },
		{ "--help=false state id", NULL, .path = "@/bin" },
		{ "--cdi-runtime crun state id", NULL, .path = "@/bin" },
		{ "--cdi-spec-dir=/d state id", NULL, .path = "@/bin" },
		{ "--bogus state id", NULL, .path = "@/bin" },
		{ "--root", NULL, .path = "@/bin" },
		{ "--", NULL, .path = "@/bin" },
		{ "", NULL, .path = "@/bin" },
	};

	check_all(cases, ELEMENTSOF(cases));
}

/* The runtime found as the full program finds it. */
Test(fast_exec, runtime_lookup)
{
	static const struct fx_case cases[] = {
		/* Itself installed as runc is passed over; crun when there is no runc. */
		{ "state id", NULL, .path = "@/self:@/other", .fast = true,
		  .want = "@/other/runc" },
		{ "state id", NULL, .path = "@/self:@/noexec", .fast = false },
		{ "state id", "runtime = crun\n", .path = "@/self:@/bin", .fast = true,
		  .want = "@/bin/crun" },
		{ "state id", NULL, .path = "@/noexec:@/other", .fast = true,
		  .want = "@/other/runc" },
		{ "state id", NULL, .path = "@/missing::@/bin:", .fast = true,
		  .want = "@/bin/runc" },
		{ "state id", "runtime = @/bin/crun\n", .path = "@/other", .fast = true,
		  .want = "@/bin/crun" },
		{ "state id", NULL, .runtime_env = "crun", .path = "@/other:@/bin", .fast = true,
		  .want = "@/bin/crun" },
		{ "state id", "runtime = runc\n", .runtime_env = "crun", .path = "@/bin",
		  .fast = true, .want = "@/bin/crun" },
		{ "state id", "runtime = crun\n", .runtime_env = "", .path = "@/bin", .fast = true,
		  .want = "@/bin/crun" },
		/* A name nowhere on PATH: the full program says so. */
		{ "state id", "runtime = nosuch\n", .path = "@/bin" },
		{ "state id", NULL, .runtime_env = "@/noexec/runc", .path = "@/bin" },
	};

	check_all(cases, ELEMENTSOF(cases));
}

/* A config file the passthrough reads, and those it leaves to the full program. */
Test(fast_exec, config_file)
{
	static const char nul[] = "runtime = runc\n\0spec-dirs = /x\n";
	static const struct fx_case cases[] = {
		{ "state id",
		  "# cdikit\n\n  runtime = \"runc\"  # quoted\nspec-dirs = /a:/b\nhost-root = /h\n"
		  "mps-pipe-directory=/m\nswarm-resource = DOCKER_RESOURCE_GPU\n",
		  .path = "@/bin", .fast = true, .want = "@/bin/runc" },
		{ "state id", "runtime = crun\nruntime = runc\n", .path = "@/bin", .fast = true,
		  .want = "@/bin/runc" },
		{ "state id", "", .path = "@/bin", .fast = true, .want = "@/bin/runc" },
		{ "state id",
		  "log-level = debug\nspec-refresh = off\nspec-refresh-no-ipc = true\n"
		  "accept-nvidia-visible-devices-envvar-when-unprivileged = false\n"
		  "accept-nvidia-visible-devices-as-volume-mounts = true\n",
		  .path = "@/bin", .fast = true, .want = "@/bin/runc" },
		{ "state id", "log-level = \"error\"\nspec-refresh = auto\n", .path = "@/bin",
		  .fast = true, .want = "@/bin/runc" },
		/* Values it does not take, bad lines, an unsafe file: the full program decides. */
		{ "state id", "log-level = debu\n", .path = "@/bin" },
		{ "state id", "log-level = debugx\n", .path = "@/bin" },
		{ "state id", "log-level = error|warning\n", .path = "@/bin" },
		{ "state id", "log-level = \n", .path = "@/bin" },
		{ "state id", "spec-refresh = on\n", .path = "@/bin" },
		{ "state id", "spec-refresh-no-ipc = yes\n", .path = "@/bin" },
		{ "state id", "accept-nvidia-visible-devices-as-volume-mounts = True\n",
		  .path = "@/bin" },
		{ "state id", "mps-pipe-directory = \n", .path = "@/bin" },
		{ "state id", "spec-refresh-output = /var/run/cdi/nvidia.yaml\n", .path = "@/bin" },
		{ "state id", "host-root = relative\n", .path = "@/bin" },
		{ "state id", "runtime =\n", .path = "@/bin" },
		{ "state id", "runtime = \"runc\n", .path = "@/bin" },
		{ "state id", "runtime\n", .path = "@/bin" },
		{ "state id", "bogus = 1\n", .path = "@/bin" },
		{ "state id", "runtime = runc\n", .mode = 0666, .path = "@/bin" },
		{ "state id", "runtime = runc\n", .mode = 0620, .path = "@/bin" },
		{ "state id", nul, sizeof(nul) - 1, .path = "@/bin" },
	};

	check_all(cases, ELEMENTSOF(cases));
}

/* CDIKIT_CONFIG naming a file that is not there, or a link: the full program decides. */
Test(fast_exec, config_path)
{
	_cleanup_free_ char *missing = NULL, *link = NULL, *env_missing = NULL, *env_link = NULL;
	struct fast_exec_plan *plan = malloc(sizeof(*plan));
	char *argv[] = { "cdi-runtime", "state", "id", NULL }, *envp[3] = { 0 };

	cr_assert_not_null(plan);
	cr_assert_neq(asprintf(&missing, "%s/missing.conf", tmp.path), -1);
	cr_assert_neq(asprintf(&link, "%s/link.conf", tmp.path), -1);
	cr_assert_eq(symlink(scratch_at(&tmp, "empty.conf"), link), 0);
	cr_assert_neq(asprintf(&env_missing, RUNTIME_CONFIG_ENV "=%s", missing), -1);
	cr_assert_neq(asprintf(&env_link, RUNTIME_CONFIG_ENV "=%s", link), -1);
	envp[1] = "PATH=/nonexistent";

	envp[0] = env_missing;
	cr_assert_eq(fast_exec_plan(3, argv, envp, missing, plan), 0);
	envp[0] = env_link;
	cr_assert_eq(fast_exec_plan(3, argv, envp, missing, plan), 0);
	/* The default file may be missing; a link there is left to the full program too. */
	envp[0] = "CDIKIT_CONFIG=";
	cr_assert_eq(fast_exec_plan(3, argv, envp, link, plan), 0);
	free(plan);
}

/* A config in a directory others may write: refused by the full program unless sticky. */
Test(fast_exec, config_directory)
{
	static const struct {
		mode_t mode;
		bool fast;
	} dirs[] = { { 0777, false }, { 0775, false }, { 01777, true }, { 0755, true } };
	_cleanup_free_ char *conf = NULL, *env_conf = NULL, *env_path = NULL;
	struct fast_exec_plan *plan = malloc(sizeof(*plan));
	char *argv[] = { "cdi-runtime", "state", "id", NULL }, *envp[3] = { 0 };

	cr_assert_not_null(plan);
	sh("mkdir '%s/d' && echo 'runtime = runc' >'%s/d/rt.conf'", tmp.path, tmp.path);
	cr_assert_neq(asprintf(&conf, "%s/d/rt.conf", tmp.path), -1);
	cr_assert_neq(asprintf(&env_conf, RUNTIME_CONFIG_ENV "=%s", conf), -1);
	cr_assert_neq(asprintf(&env_path, "PATH=%s/bin", tmp.path), -1);
	envp[0] = env_conf;
	envp[1] = env_path;
	for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
		_cleanup_free_ char *path = NULL, *name = NULL;
		struct runc_cmdline cl = { 0 };
		bool slow;

		sh("chmod %o '%s/d'", (unsigned)dirs[i].mode, tmp.path);
		slow = full_program(3, argv, conf, NULL, env_path + 5, &path, &name, &cl);
		runc_cmdline_done(&cl);
		cr_assert_eq(slow, dirs[i].fast, "%04o", (unsigned)dirs[i].mode);
		cr_assert_eq(fast_exec_plan(3, argv, envp, conf, plan), dirs[i].fast, "%04o",
			     (unsigned)dirs[i].mode);
	}
	free(plan);
}
