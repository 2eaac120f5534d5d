/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cdi-runtime's settings (apply/runtime/runtime_config.c): the config file's format, the precedence
 * flag > environment > file > default for each setting on its own, and finding the
 * low-level runtime on PATH. Config files live in a temp dir: the host's /etc/cdikit is never
 * read (CDIKIT_CONFIG-style overrides only).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "runtime/runtime_config.h"
#include "../lib/testlib.h"

static char dir[] = "/tmp/cdikit-test-rtconf.XXXXXX";

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	sh("rm -rf '%s'", dir);
}

TestSuite(rtconf, .init = setup, .fini = teardown);

static char *write_file(const char *name, const char *text)
{
	return write_file_in(dir, name, text);
}

static struct runtime_settings parse_ok(const char *text)
{
	struct runtime_settings s = { .log_level = RUNTIME_LOG_INFO };
	struct cdi_error err = { 0 };

	cr_assert_eq(runtime_config_parse("runtime.conf", text, strlen(text), &s, &err), 0, "%s",
		     cdi_error_message(&err));
	return s;
}

static void parse_bad(const char *text, const char *message)
{
	struct runtime_settings s = { 0 };
	struct cdi_error err = { 0 };

	cr_assert_lt(runtime_config_parse("runtime.conf", text, strlen(text), &s, &err), 0,
		     "accepted: %s", text);
	cr_assert_str_eq(cdi_error_message(&err), message);
	cdi_error_reset(&err);
	runtime_settings_done(&s);
}

Test(rtconf, file_format)
{
	struct runtime_settings s = parse_ok("# cdikit\n"
					     "\n"
					     "  runtime = crun   # trailing comment\n"
					     "spec-dirs=/etc/cdi::/var/run/cdi\n"
					     "log-level = \"debug\"\n");

	cr_assert_str_eq(s.runtime, "crun");
	cr_assert_eq(s.n_spec_dirs, 2, "empty items skipped");
	cr_assert_str_eq(s.spec_dirs[0], "/etc/cdi");
	cr_assert_str_eq(s.spec_dirs[1], "/var/run/cdi");
	cr_assert_eq(s.log_level, RUNTIME_LOG_DEBUG);
	runtime_settings_done(&s);

	/* Quoted values may hold '#'; CRLF lines work; the last of a key wins. */
	s = parse_ok(
		"runtime = \"/opt/run#c/runc\" # c\r\nruntime = \"/opt/x\"\r\nlog-level=error");
	cr_assert_str_eq(s.runtime, "/opt/x");
	cr_assert_eq(s.log_level, RUNTIME_LOG_ERROR);
	runtime_settings_done(&s);
}

/* The container environment's settings (environment.md): trust, the MPS directory, the root. */
Test(rtconf, environment_settings)
{
	struct runtime_settings s =
		parse_ok("accept-nvidia-visible-devices-envvar-when-unprivileged = false\n"
			 "mps-pipe-directory = /run/mps\nhost-root = \"/srv/host\"\n");

	cr_assert_not(s.accept_env_unprivileged);
	cr_assert_str_eq(s.mps_pipe_dir, "/run/mps");
	cr_assert_str_eq(s.host_root, "/srv/host");
	runtime_settings_done(&s);
	s = parse_ok("accept-nvidia-visible-devices-envvar-when-unprivileged = true\n");
	cr_assert(s.accept_env_unprivileged);
	runtime_settings_done(&s);

	parse_bad(
		"accept-nvidia-visible-devices-envvar-when-unprivileged = yes\n",
		"runtime.conf:1: accept-nvidia-visible-devices-envvar-when-unprivileged: \"yes\" is not true or false");
	parse_bad("\nmps-pipe-directory = tmp/mps\n",
		  "runtime.conf:2: mps-pipe-directory: \"tmp/mps\" is not an absolute path");
	parse_bad("host-root =\n", "runtime.conf:1: host-root: \"\" is not an absolute path");
}

/* The self-healing spec (runtime.md): spec-refresh, spec-refresh-output, spec-refresh-no-ipc. */
Test(rtconf, spec_refresh_settings)
{
	struct runtime_settings s = parse_ok("spec-refresh = off\nspec-refresh-no-ipc = true\n"
					     "spec-refresh-output = /run/cdi//./nvidia.yaml\n");

	cr_assert(s.spec_refresh_off);
	cr_assert(s.spec_refresh_no_ipc);
	cr_assert_str_eq(s.spec_refresh_output, "/run/cdi/nvidia.yaml", "cleaned");
	cr_assert_eq(s.spec_refresh_output_line, 3);
	runtime_settings_done(&s);
	s = parse_ok("spec-refresh = auto\nspec-refresh-no-ipc = false\n");
	cr_assert_not(s.spec_refresh_off);
	cr_assert_not(s.spec_refresh_no_ipc);
	runtime_settings_done(&s);

	parse_bad("spec-refresh = on\n",
		  "runtime.conf:1: spec-refresh: \"on\" is neither off nor auto");
	parse_bad("spec-refresh-no-ipc = 1\n",
		  "runtime.conf:1: spec-refresh-no-ipc: \"1\" is neither true nor false");
	parse_bad(
		"spec-refresh-output = cdi/nvidia.yaml\n",
		"runtime.conf:1: spec-refresh-output: \"cdi/nvidia.yaml\" is not an absolute file path");
	parse_bad(
		"\nspec-refresh-output = /run/cdi/\n",
		"runtime.conf:2: spec-refresh-output: \"/run/cdi/\" is not an absolute file path");
	parse_bad(
		"spec-refresh-output = /run/cdi/..\n",
		"runtime.conf:1: spec-refresh-output: \"/run/cdi/..\" is not an absolute file path");
}

/* NVIDIA's other ways to ask (environment.md): device lists as volume mounts, Swarm's variable. */
Test(rtconf, request_settings)
{
	struct runtime_settings s =
		parse_ok("accept-nvidia-visible-devices-as-volume-mounts = true\n"
			 "swarm-resource = \"DOCKER_RESOURCE_GPU, DOCKER_RESOURCE_NVIDIA-GPU\"\n");

	cr_assert(s.accept_volume_mounts);
	cr_assert_str_eq(s.swarm_resource, "DOCKER_RESOURCE_GPU, DOCKER_RESOURCE_NVIDIA-GPU");
	runtime_settings_done(&s);
	s = parse_ok("accept-nvidia-visible-devices-as-volume-mounts = false\nswarm-resource =\n");
	cr_assert_not(s.accept_volume_mounts);
	cr_assert_str_eq(s.swarm_resource, "",
			 "empty: no variable replaces NVIDIA_VISIBLE_DEVICES");
	runtime_settings_done(&s);
	parse_bad(
		"\naccept-nvidia-visible-devices-as-volume-mounts = 1\n",
		"runtime.conf:2: accept-nvidia-visible-devices-as-volume-mounts: \"1\" is not true or false");
}

Test(rtconf, file_errors_name_file_and_line)
{
	parse_bad(
		"runtime = runc\nruntimes = [\"crun\"]\n",
		"runtime.conf:2: unknown setting \"runtimes\" (runtime, spec-dirs, log-level, accept-nvidia-visible-devices-envvar-when-unprivileged, mps-pipe-directory, host-root, spec-refresh, spec-refresh-output, spec-refresh-no-ipc, accept-nvidia-visible-devices-as-volume-mounts, swarm-resource)");
	parse_bad("\n\njust words\n", "runtime.conf:3: expected \"key = value\"");
	parse_bad("log-level = verbose\n",
		  "runtime.conf:1: log-level: \"verbose\" is none of error, warning, info, debug");
	parse_bad(
		"runtime = \"crun\n",
		"runtime.conf:1: runtime: a quoted value must end with '\"' (and only a comment may follow)");
	parse_bad(
		"runtime = \"crun\" x\n",
		"runtime.conf:1: runtime: a quoted value must end with '\"' (and only a comment may follow)");
	parse_bad("runtime =\n",
		  "runtime.conf:1: runtime: empty (leave it out for runc, else crun)");
}

static struct runtime_settings resolve(const struct runtime_overrides *o)
{
	struct runtime_settings s;
	struct cdi_error err = { 0 };

	cr_assert_eq(runtime_settings_resolve(o, &s, &err), 0, "%s", cdi_error_message(&err));
	return s;
}

/* The settings o resolves to: the first spec directory and where the list came from, the
 * runtime; the level is the file's (only the file sets it). */
static void resolves_to(const struct runtime_overrides *o, size_t n_dirs, const char *dir0,
			const char *dirs_from, const char *runtime)
{
	struct runtime_settings s = resolve(o);

	cr_assert_eq(s.n_spec_dirs, n_dirs);
	cr_assert_str_eq(s.spec_dirs[0], dir0);
	cr_assert_str_eq(s.spec_dirs_from, dirs_from);
	cr_assert_str_eq(s.runtime, runtime);
	cr_assert_eq(s.log_level, RUNTIME_LOG_WARNING);
	runtime_settings_done(&s);
}

Test(rtconf, precedence_flag_env_file_default)
{
	char *conf = write_file("rt.conf", "runtime = from-file\nspec-dirs = /file/a:/file/b\n"
					   "log-level = warning\n");
	const char *flag_dirs[] = { "/flag" };
	struct runtime_overrides o = { .env_config = conf };
	struct runtime_settings s;

	/* File over defaults. */
	s = resolve(&o);
	cr_assert_str_eq(s.runtime, "from-file");
	cr_assert_str_eq(s.runtime_from, conf);
	cr_assert_eq(s.n_spec_dirs, 2);
	cr_assert_str_eq(s.spec_dirs[1], "/file/b");
	cr_assert_eq(s.log_level, RUNTIME_LOG_WARNING);
	cr_assert_str_eq(s.config_path, conf);
	runtime_settings_done(&s);

	/* Environment over the file, each setting on its own. */
	o.env_spec_dirs = "/env/a:/env/b:/env/c";
	resolves_to(&o, 3, "/env/a", "CDIKIT_SPEC_DIRS", "from-file");
	o.env_runtime = "from-env";
	s = resolve(&o);
	cr_assert_str_eq(s.runtime, "from-env");
	cr_assert_str_eq(s.runtime_from, "CDIKIT_RUNTIME");
	runtime_settings_done(&s);

	/* Flags over the environment. */
	o.spec_dirs = flag_dirs;
	o.n_spec_dirs = 1;
	o.runtime = "from-flag";
	resolves_to(&o, 1, "/flag", "--cdi-spec-dir", "from-flag");

	/* Empty environment variables count as unset. */
	o = (struct runtime_overrides){ .env_config = conf,
					.env_runtime = "",
					.env_spec_dirs = "" };
	s = resolve(&o);
	cr_assert_str_eq(s.runtime, "from-file");
	cr_assert_str_eq(s.spec_dirs[0], "/file/a");
	runtime_settings_done(&s);
	free(conf);
}

Test(rtconf, defaults)
{
	char *conf = write_file("empty.conf", "# nothing set\n");
	struct runtime_overrides o = { .env_config = conf };
	struct runtime_settings s = resolve(&o);

	cr_assert_null(s.runtime, "runc, else crun, found later");
	cr_assert_null(s.spec_dirs, "the CDI defaults");
	cr_assert_eq(s.log_level, RUNTIME_LOG_WARNING);
	cr_assert_str_eq(s.runtime_from, "default");
	cr_assert_str_eq(s.log_level_from, "default");
	cr_assert(s.accept_env_unprivileged, "NVIDIA's default: the variable is honoured");
	cr_assert_not(s.accept_volume_mounts, "NVIDIA's default: mounts are not requests");
	cr_assert_null(s.swarm_resource, "no variable replaces NVIDIA_VISIBLE_DEVICES");
	cr_assert_null(s.mps_pipe_dir, "/tmp/nvidia-mps");
	cr_assert_null(s.host_root, "/");
	runtime_settings_done(&s);
	free(conf);
}

Test(rtconf, named_config_must_exist_and_be_sane)
{
	struct runtime_overrides o = { 0 };
	struct runtime_settings s;
	struct cdi_error err = { 0 };
	char *path, *big;

	cr_assert(asprintf(&path, "%s/missing.conf", dir) > 0);
	o.env_config = path;
	cr_assert_eq(runtime_settings_resolve(&o, &s, &err), -ENOENT);
	cr_assert(strstr(cdi_error_message(&err), "missing.conf: No such file or directory"));
	cdi_error_reset(&err);
	free(path);

	big = calloc(1, RUNTIME_CONFIG_MAX_BYTES + 2);
	memset(big, '#', RUNTIME_CONFIG_MAX_BYTES + 1);
	path = write_file("big.conf", big);
	o.env_config = path;
	cr_assert_eq(runtime_settings_resolve(&o, &s, &err), -EFBIG);
	cr_assert(strstr(cdi_error_message(&err), "big.conf: larger than 65536 bytes"));
	cdi_error_reset(&err);
	free(path);
	free(big);

	/* A FIFO in its place neither hangs nor passes. */
	cr_assert(asprintf(&path, "%s/fifo.conf", dir) > 0);
	cr_assert_eq(mkfifo(path, 0600), 0);
	o.env_config = path;
	cr_assert_lt(runtime_settings_resolve(&o, &s, &err), 0);
	cdi_error_reset(&err);
	free(path);
}

/* The file names what cdi-runtime runs as root: it must be root's (or the caller's), and no
 * one else may write it or swap it in its directory. */
static void refused(const char *path, const char *needle)
{
	struct runtime_overrides o = { .env_config = path };
	struct runtime_settings s;
	struct cdi_error err = { 0 };

	cr_assert_eq(runtime_settings_resolve(&o, &s, &err), -EPERM, "%s accepted", path);
	cr_assert(strstr(cdi_error_message(&err), needle), "%s", cdi_error_message(&err));
	cdi_error_reset(&err);
}

Test(rtconf, config_others_could_write_is_refused)
{
	struct runtime_overrides o = { 0 };
	struct runtime_settings s;
	char *path = write_file("runtime.conf", "runtime = /bin/true\n"), *sub, *sticky;

	o.env_config = path;
	s = resolve(&o);
	cr_assert_str_eq(s.runtime, "/bin/true");
	runtime_settings_done(&s);
	cr_assert_eq(chmod(path, 0664), 0);
	refused(path, "insecure: owned by uid 0 with mode 0664");
	cr_assert_eq(chmod(path, 0644), 0);
	if (geteuid() == 0) {
		cr_assert_eq(chown(path, 65534, 65534), 0);
		refused(path, "insecure: owned by uid 65534 with mode 0644");
	}
	free(path);

	/* A directory anyone may write: the file could be swapped; sticky, it could not. */
	cr_assert(asprintf(&sub, "%s/open", dir) > 0);
	cr_assert_eq(mkdir(sub, 0755), 0);
	cr_assert_eq(chmod(sub, 0777), 0);
	path = write_file("open/runtime.conf", "runtime = /bin/true\n");
	refused(path, "its directory");
	cr_assert(asprintf(&sticky, "%s/sticky", dir) > 0);
	cr_assert_eq(rename(sub, sticky), 0);
	cr_assert_eq(chmod(sticky, 01777), 0);
	free(path);
	cr_assert(asprintf(&path, "%s/runtime.conf", sticky) > 0);
	o.env_config = path;
	s = resolve(&o);
	cr_assert_str_eq(s.runtime, "/bin/true");
	runtime_settings_done(&s);
	free(path);
	free(sub);
	free(sticky);
}

static void make_exe(const char *rel)
{
	sh("mkdir -p \"$(dirname '%s/%s')\" && printf '#!/bin/sh\\n' >'%s/%s' && chmod 0755 '%s/%s'",
	   dir, rel, dir, rel, dir, rel);
}

static void find(const char *runtime, const char *path_env, const char *want_path,
		 const char *want_name)
{
	struct runtime_settings s = { .runtime = runtime ? strdup(runtime) : NULL,
				      .runtime_from = "test" };
	struct cdi_error err = { 0 };
	const char *name = NULL;
	char *path = NULL;

	cr_assert_eq(runtime_settings_find_runtime(&s, path_env, &path, &name, &err), 0, "%s",
		     cdi_error_message(&err));
	cr_assert_str_eq(path, want_path);
	cr_assert_str_eq(name, want_name);
	free(path);
	runtime_settings_done(&s);
}

Test(rtconf, find_runtime)
{
	char *p1, *p2, *path_env, *want;
	struct runtime_settings s = { .runtime_from = "test" };
	struct cdi_error err = { 0 };
	const char *name;
	char *found;

	make_exe("bin1/crun");
	make_exe("bin2/runc");
	make_exe("bin2/crun");
	sh("printf x >'%s/bin1/runc' && chmod 0644 '%s/bin1/runc'", dir, dir); /* not executable */
	cr_assert(asprintf(&p1, "%s/bin1", dir) > 0 && asprintf(&p2, "%s/bin2", dir) > 0);
	cr_assert(asprintf(&path_env, "%s::%s", p1, p2) > 0);

	/* Default: runc first wherever it is on PATH, then crun. */
	cr_assert(asprintf(&want, "%s/runc", p2) > 0);
	find(NULL, path_env, want, "runc");
	free(want);
	cr_assert(asprintf(&want, "%s/crun", p1) > 0);
	find(NULL, p1, want, "crun");
	find("crun", path_env, want, "crun");
	free(want);
	/* A path is taken as it is. */
	cr_assert(asprintf(&want, "%s/runc", p2) > 0);
	find(want, "/nonexistent", want, want);
	free(want);

	/* Nothing found: one line saying where to set it. */
	cr_assert_eq(runtime_settings_find_runtime(&s, "/nonexistent", &found, &name, &err),
		     -ENOENT);
	cr_assert_str_eq(
		cdi_error_message(&err),
		"no low-level runtime: neither runc nor crun is on PATH (set runtime in /etc/cdikit/runtime.conf, CDIKIT_RUNTIME or --cdi-runtime)");
	cdi_error_reset(&err);
	s.runtime = strdup("youki");
	cr_assert_eq(runtime_settings_find_runtime(&s, path_env, &found, &name, &err), -ENOENT);
	cr_assert_str_eq(cdi_error_message(&err), "runtime \"youki\" (from test) is not on PATH");
	cdi_error_reset(&err);
	runtime_settings_done(&s);
	s = (struct runtime_settings){ .runtime = strdup("/nonexistent/runc"),
				       .runtime_from = "x" };
	cr_assert_eq(runtime_settings_find_runtime(&s, path_env, &found, &name, &err), -ENOENT);
	cr_assert_str_eq(cdi_error_message(&err),
			 "runtime /nonexistent/runc (from x): not an executable file");
	cdi_error_reset(&err);
	runtime_settings_done(&s);
	free(p1);
	free(p2);
	free(path_env);
}

/* cdi-runtime installed as "runc" ahead of the real one must not exec itself forever. */
Test(rtconf, find_runtime_skips_itself)
{
	char *self_dir, *real_dir, *path_env, *want;

	cr_assert(asprintf(&self_dir, "%s/self", dir) > 0 &&
		  asprintf(&real_dir, "%s/real", dir) > 0);
	/* A link to this test program is this program, as an installed copy would be. */
	sh("mkdir -p '%s' && ln -s \"$(readlink /proc/%d/exe)\" '%s/runc'", self_dir, (int)getpid(),
	   self_dir);
	make_exe("real/runc");
	cr_assert(asprintf(&path_env, "%s:%s", self_dir, real_dir) > 0);
	cr_assert(asprintf(&want, "%s/runc", real_dir) > 0);
	find(NULL, path_env, want, "runc");
	free(want);
	free(path_env);
	free(self_dir);
	free(real_dir);
}

/* The output must be a spec the runtime reads: in one of its spec directories, however these
 * were given. */
Test(rtconf, spec_refresh_output_lies_in_a_spec_dir)
{
	char *conf = write_file("rt.conf", "spec-dirs = /etc/cdi:/srv/cdi/\n"
					   "spec-refresh-output = /srv/cdi/nvidia.yaml\n");
	const char *flag_dirs[] = { "/flag" };
	struct runtime_overrides o = { .env_config = conf };
	struct runtime_settings s = resolve(&o);
	struct cdi_error err = { 0 };
	char *want;

	cr_assert_not(s.spec_refresh_off);
	cr_assert_str_eq(s.spec_refresh_output, "/srv/cdi/nvidia.yaml");
	runtime_settings_done(&s);

	o.spec_dirs = flag_dirs;
	o.n_spec_dirs = 1;
	cr_assert_eq(runtime_settings_resolve(&o, &s, &err), -EINVAL);
	cr_assert(
		asprintf(
			&want,
			"%s:2: spec-refresh-output: /srv/cdi/nvidia.yaml lies in none of the spec directories (/flag)",
			conf) > 0);
	cr_assert_str_eq(cdi_error_message(&err), want);
	cdi_error_reset(&err);
	free(want);
	free(conf);

	/* The default output: on with the default directories, off (silently) without its own. */
	conf = write_file("empty.conf", "");
	o = (struct runtime_overrides){ .env_config = conf };
	s = resolve(&o);
	cr_assert_not(s.spec_refresh_off);
	cr_assert_str_eq(s.spec_refresh_output, "/var/run/cdi/nvidia.yaml");
	runtime_settings_done(&s);
	o.env_spec_dirs = "/etc/cdi:/var/run/cdi/";
	s = resolve(&o);
	cr_assert_not(s.spec_refresh_off);
	runtime_settings_done(&s);
	o.env_spec_dirs = "/srv/cdi";
	s = resolve(&o);
	cr_assert(s.spec_refresh_off);
	runtime_settings_done(&s);
	free(conf);
}
