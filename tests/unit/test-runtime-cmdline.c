/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cdi-runtime's reading of runc's command line (apply/runtime/runc_cmdline.c): our options taken
 * out wherever they are before the command, runc's global flags checked against runc 1.1's table,
 * the bundle of create and run found as urfave/cli would (flags after the id too), and a
 * command line runc would reject passed on unedited.
 */
#include <stdarg.h>
#include <string.h>

#include <criterion/criterion.h>

#include "runtime/runc_cmdline.h"

#define MAX_ARGS 32

/* Parse the NULL-terminated arguments after "cdi-runtime"; the test fails on an error. */
static struct runc_cmdline parse(const char *first, ...)
{
	static char *argv[MAX_ARGS];
	struct cdi_error err = { 0 };
	struct runc_cmdline c;
	const char *a = first;
	int argc = 1;
	va_list ap;

	argv[0] = "cdi-runtime";
	va_start(ap, first);
	for (; a; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	cr_assert_eq(runc_cmdline_parse(argc, argv, &c, &err), 0, "%s", cdi_error_message(&err));
	return c;
}

static void want_argv(const struct runc_cmdline *c, const char *first, ...)
{
	const char *w = first;
	int i = 1;
	va_list ap;

	cr_assert_null(c->argv[0], "argv[0] is left to the caller");
	va_start(ap, first);
	for (; w; w = va_arg(ap, const char *), i++) {
		cr_assert_lt(i, c->argc, "argv too short, missing %s", w);
		cr_assert_str_eq(c->argv[i], w, "argv[%d]", i);
	}
	va_end(ap);
	cr_assert_eq(c->argc, i, "argc %d, want %d", c->argc, i);
	cr_assert_null(c->argv[c->argc]);
}

static void want_usage_error(const char *contains, const char *first, ...)
{
	char *argv[MAX_ARGS] = { "cdi-runtime" };
	struct cdi_error err = { 0 };
	struct runc_cmdline c;
	const char *a = first;
	int argc = 1;
	va_list ap;

	va_start(ap, first);
	for (; a; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	cr_assert_lt(runc_cmdline_parse(argc, argv, &c, &err), 0);
	cr_assert(strstr(cdi_error_message(&err), contains), "message \"%s\" lacks \"%s\"",
		  cdi_error_message(&err), contains);
	cdi_error_reset(&err);
}

/* What containerd's shim and dockerd send (engines.md). */
Test(cmdline, docker_create)
{
	struct runc_cmdline c =
		parse("--cdi-spec-dir", "/specs", "--root", "/run/docker/runtime-runc/moby",
		      "--log", "/b/log.json", "--log-format", "json", "create", "--bundle", "/b",
		      "--pid-file", "/b/init.pid", "0123abc", NULL);

	want_argv(&c, "--root", "/run/docker/runtime-runc/moby", "--log", "/b/log.json",
		  "--log-format", "json", "create", "--bundle", "/b", "--pid-file", "/b/init.pid",
		  "0123abc", NULL);
	cr_assert_eq(c.n_spec_dirs, 1);
	cr_assert_str_eq(c.spec_dirs[0], "/specs");
	cr_assert_str_eq(c.log_path, "/b/log.json");
	cr_assert_str_eq(c.log_format, "json");
	cr_assert_str_eq(c.argv[c.command], "create");
	cr_assert(c.edit);
	cr_assert_str_eq(c.bundle, "/b");
	cr_assert_str_eq(c.id, "0123abc");
	runc_cmdline_done(&c);
}

Test(cmdline, own_options_in_every_form_and_place)
{
	struct runc_cmdline c =
		parse("--cdi-spec-dir=/a", "--debug", "--cdi-spec-dir", "/b",
		      "--cdi-runtime=/usr/bin/crun", "--systemd-cgroup", "state", "x", NULL);

	want_argv(&c, "--debug", "--systemd-cgroup", "state", "x", NULL);
	cr_assert_eq(c.n_spec_dirs, 2);
	cr_assert_str_eq(c.spec_dirs[0], "/a");
	cr_assert_str_eq(c.spec_dirs[1], "/b");
	cr_assert_str_eq(c.runtime, "/usr/bin/crun");
	cr_assert(c.debug);
	cr_assert_not(c.edit, "state is passed on");
	runc_cmdline_done(&c);
}

/* After the command nothing is ours: --cdi-* there is the runtime's business. */
Test(cmdline, nothing_taken_after_the_command)
{
	struct runc_cmdline c = parse("exec", "--cdi-runtime", "x", "id", NULL);

	want_argv(&c, "exec", "--cdi-runtime", "x", "id", NULL);
	cr_assert_null(c.runtime);
	runc_cmdline_done(&c);
}

Test(cmdline, go_flag_forms)
{
	struct runc_cmdline c = parse("-root=/r", "-log", "/l", "--log-format=text", "-debug=false",
				      "--rootless", "auto", "-criu", "/c", "list", NULL);

	want_argv(&c, "-root=/r", "-log", "/l", "--log-format=text", "-debug=false", "--rootless",
		  "auto", "-criu", "/c", "list", NULL);
	cr_assert_str_eq(c.log_path, "/l");
	cr_assert_str_eq(c.log_format, "text");
	cr_assert_not(c.debug, "-debug=false is off");
	runc_cmdline_done(&c);
}

Test(cmdline, double_dash_ends_the_flags)
{
	struct runc_cmdline c = parse("--root", "/r", "--", "run", "id", NULL);

	want_argv(&c, "--root", "/r", "--", "run", "id", NULL);
	cr_assert_str_eq(c.argv[c.command], "run");
	cr_assert(c.edit);
	cr_assert_null(c.bundle, "no --bundle: the working directory");
	runc_cmdline_done(&c);
}

Test(cmdline, help_and_version)
{
	struct runc_cmdline c = parse("-h", NULL);

	cr_assert(c.help);
	runc_cmdline_done(&c);
	c = parse("--cdi-runtime", "crun", "--version", NULL);
	cr_assert(c.version);
	cr_assert_eq(c.command, 0, "no command");
	runc_cmdline_done(&c);
	c = parse("-v", NULL);
	cr_assert(c.version);
	runc_cmdline_done(&c);
	/* After the command it is the command's help: passed on. */
	c = parse("create", "--help", NULL);
	cr_assert_not(c.help);
	cr_assert_not(c.edit);
	runc_cmdline_done(&c);
}

Test(cmdline, no_command)
{
	struct runc_cmdline c = parse("--root", "/r", NULL);

	want_argv(&c, "--root", "/r", NULL);
	cr_assert_eq(c.command, 0);
	cr_assert_not(c.edit);
	runc_cmdline_done(&c);
}

Test(cmdline, bundle_forms)
{
	struct runc_cmdline c = parse("create", "-b", "/x", "id", NULL);

	cr_assert_str_eq(c.bundle, "/x");
	runc_cmdline_done(&c);
	c = parse("create", "--bundle=/y", "id", NULL);
	cr_assert_str_eq(c.bundle, "/y");
	runc_cmdline_done(&c);
	c = parse("create", "-bundle", "/z", "id", NULL);
	cr_assert_str_eq(c.bundle, "/z");
	runc_cmdline_done(&c);
	/* urfave/cli v1 moves flags after the id ahead of it. */
	c = parse("create", "id", "--bundle", "/after", "--pid-file", "/p", NULL);
	cr_assert(c.edit);
	cr_assert_str_eq(c.bundle, "/after");
	cr_assert_str_eq(c.id, "id");
	runc_cmdline_done(&c);
	/* runc: an empty bundle is the working directory. */
	c = parse("create", "--bundle", "", "id", NULL);
	cr_assert(c.edit);
	cr_assert_null(c.bundle);
	runc_cmdline_done(&c);
	/* A value that looks like a flag is still the value (Go's flag package). */
	c = parse("create", "--pid-file", "--bundle", "id", NULL);
	cr_assert(c.edit);
	cr_assert_null(c.bundle);
	cr_assert_str_eq(c.id, "id");
	runc_cmdline_done(&c);
}

Test(cmdline, run_flags)
{
	struct runc_cmdline c = parse("run", "-d", "--keep", "--no-subreaper", "--console-socket",
				      "/s", "--preserve-fds", "2", "-b", "/b", "id", NULL);

	cr_assert(c.edit);
	cr_assert_str_eq(c.bundle, "/b");
	cr_assert_str_eq(c.id, "id");
	runc_cmdline_done(&c);
	/* run's own flags are not create's: runc rejects them, so do not edit. */
	c = parse("create", "--detach", "id", NULL);
	cr_assert_not(c.edit);
	runc_cmdline_done(&c);
}

/* What runc would refuse goes to runc untouched, so it reports it. */
Test(cmdline, not_edited_when_runc_would_refuse)
{
	struct runc_cmdline c = parse("create", "--no-such-flag", "id", NULL);

	cr_assert_not(c.edit);
	runc_cmdline_done(&c);
	c = parse("create", NULL);
	cr_assert_not(c.edit, "no container id");
	runc_cmdline_done(&c);
	c = parse("run", "a", "b", NULL);
	cr_assert_not(c.edit, "two ids");
	runc_cmdline_done(&c);
	c = parse("create", "--bundle", NULL);
	cr_assert_not(c.edit, "flag without its value");
	runc_cmdline_done(&c);
	c = parse("create", "--", "--id-with-dashes", NULL);
	cr_assert(c.edit, "after --, an id");
	cr_assert_str_eq(c.id, "--id-with-dashes");
	runc_cmdline_done(&c);
}

Test(cmdline, usage_errors)
{
	want_usage_error("unknown option --bogus", "--bogus", "list", NULL);
	want_usage_error("unknown option -x", "-x", "list", NULL);
	want_usage_error("unknown option --cdi-nope", "--cdi-nope", "x", "list", NULL);
	want_usage_error("--cdi-spec-dir needs a value", "--cdi-spec-dir", NULL);
	want_usage_error("--cdi-spec-dir needs a value, got an empty one",
			 "--cdi-spec-dir=", "list", NULL);
	want_usage_error("--cdi-runtime needs a value", "--cdi-runtime", "", "list", NULL);
	want_usage_error("option --root needs a value", "--root", NULL);
}
