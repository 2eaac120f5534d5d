/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runc's command line, read as runc 1.1 reads it (urfave/cli v1 over Go's flag package):
 * "-name" and "--name" alike, "--name=value" or "--name value" for a flag with a value,
 * "--name=false" for a boolean one, "--" ends the flags. Command flags may follow the
 * container id (urfave/cli moves them ahead of it).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "problem.h"
#include "runc_cmdline.h"

struct flag_def {
	const char *name;
	bool value; /* takes a value */
};

/* runc --help, GLOBAL OPTIONS. */
static const struct flag_def runc_global_flags[] = {
	{ "debug", false },   { "log", true },	 { "log-format", true },
	{ "root", true },     { "criu", true },	 { "systemd-cgroup", false },
	{ "rootless", true }, { "help", false }, { "h", false },
	{ "version", false }, { "v", false },
};

/* runc create --help; run adds its own below. */
static const struct flag_def runc_create_flags[] = {
	{ "bundle", true },	  { "b", true },	 { "console-socket", true },
	{ "pid-file", true },	  { "no-pivot", false }, { "no-new-keyring", false },
	{ "preserve-fds", true },
};
static const struct flag_def runc_run_flags[] = {
	{ "detach", false },
	{ "d", false },
	{ "keep", false },
	{ "no-subreaper", false },
};

/* A flag argument split into name and inline value; false for a non-flag. */
struct flag_arg {
	const char *name;
	size_t name_len;
	const char *value; /* after '=', or NULL */
};

static bool split_flag(const char *arg, struct flag_arg *f)
{
	const char *eq;

	if (arg[0] != '-' || arg[1] == '\0')
		return false;
	arg += arg[1] == '-' ? 2 : 1;
	eq = strchr(arg, '=');
	*f = (struct flag_arg){
		.name = arg,
		.name_len = eq ? (size_t)(eq - arg) : strlen(arg),
		.value = eq ? eq + 1 : NULL,
	};
	return true;
}

static bool flag_is(const struct flag_arg *f, const char *name)
{
	return strlen(name) == f->name_len && memcmp(f->name, name, f->name_len) == 0;
}

static const struct flag_def *find_flag(const struct flag_def *defs, size_t n,
					const struct flag_arg *f)
{
	for (size_t i = 0; i < n; i++)
		if (flag_is(f, defs[i].name))
			return &defs[i];
	return NULL;
}

/* Go's strconv.ParseBool false spellings; a boolean flag given =false is off. */
static bool bool_value(const char *v)
{
	static const char *const no[] = { "0", "f", "F", "false", "FALSE", "False" };

	if (!v)
		return true;
	for (size_t i = 0; i < ELEMENTSOF(no); i++)
		if (strcmp(v, no[i]) == 0)
			return false;
	return true;
}

/*
 * The bundle and container id of create/run, when runc would accept the arguments: every
 * flag known and not --help, exactly one container id. Otherwise edit stays false.
 */
static void parse_create(struct runc_cmdline *c, const char *command, char **args, int n)
{
	bool run = strcmp(command, "run") == 0, flags_done = false;
	const char *bundle = NULL, *id = NULL;
	int n_pos = 0;

	for (int i = 0; i < n; i++) {
		const struct flag_def *def;
		struct flag_arg f;
		const char *value;

		if (flags_done || !split_flag(args[i], &f)) {
			id = args[i];
			n_pos++;
			continue;
		}
		if (strcmp(args[i], "--") == 0) {
			flags_done = true;
			continue;
		}
		def = find_flag(runc_create_flags, ELEMENTSOF(runc_create_flags), &f);
		if (!def && run)
			def = find_flag(runc_run_flags, ELEMENTSOF(runc_run_flags), &f);
		if (!def)
			return; /* unknown, or --help: runc answers that */
		if (!def->value)
			continue;
		value = f.value;
		if (!value) {
			if (i + 1 == n)
				return;
			value = args[++i];
		}
		if (flag_is(&f, "bundle") || flag_is(&f, "b"))
			bundle = value;
	}
	if (n_pos != 1)
		return;
	c->edit = true;
	c->bundle = bundle && *bundle ? bundle : NULL; /* runc: "" is the working directory */
	c->id = id;
}

/* One of our own options at argv[*i]: 1 taken (with its value), 0 not ours, <0 error. */
static int own_option(struct runc_cmdline *c, int argc, char **argv, int *i, struct cdi_error *err)
{
	static const char *const names[] = { "cdi-spec-dir", "cdi-runtime" };
	const char *arg = argv[*i], *value;
	struct flag_arg f;
	size_t which;

	if (strncmp(arg, "--cdi-", 6) != 0 || !split_flag(arg, &f))
		return 0;
	for (which = 0; which < ELEMENTSOF(names); which++)
		if (flag_is(&f, names[which]))
			break;
	if (which == ELEMENTSOF(names))
		return cdi_fail(err, -EINVAL, "unknown option %s", arg);
	value = f.value;
	if (!value) {
		if (*i + 1 == argc)
			return cdi_fail(err, -EINVAL, "--%s needs a value", names[which]);
		value = argv[++*i];
	}
	if (!*value)
		return cdi_fail(err, -EINVAL, "--%s needs a value, got an empty one", names[which]);
	if (which == 0)
		c->spec_dirs[c->n_spec_dirs++] = value;
	else
		c->runtime = value;
	return 1;
}

/* A runc global flag at argv[*i], copied to the runtime's argv with its value. */
static int global_flag(struct runc_cmdline *c, int argc, char **argv, int *i, struct cdi_error *err)
{
	const struct flag_def *def;
	const char *value;
	struct flag_arg f;

	split_flag(argv[*i], &f);
	def = find_flag(runc_global_flags, ELEMENTSOF(runc_global_flags), &f);
	if (!def)
		return cdi_fail(err, -EINVAL,
				"unknown option %s (neither cdi-runtime's nor runc's)", argv[*i]);
	c->argv[c->argc++] = argv[*i];
	if (!def->value) {
		if (flag_is(&f, "debug"))
			c->debug = bool_value(f.value);
		else if (flag_is(&f, "help") || flag_is(&f, "h"))
			c->help = bool_value(f.value);
		else if (flag_is(&f, "version") || flag_is(&f, "v"))
			c->version = bool_value(f.value);
		return 0;
	}
	value = f.value;
	if (!value) {
		if (*i + 1 == argc)
			return cdi_fail(err, -EINVAL, "option %s needs a value", argv[*i]);
		value = argv[++*i];
		c->argv[c->argc++] = argv[*i];
	}
	if (flag_is(&f, "log"))
		c->log_path = *value ? value : NULL;
	else if (flag_is(&f, "log-format"))
		c->log_format = value;
	return 0;
}

int runc_cmdline_parse(int argc, char **argv, struct runc_cmdline *ret, struct cdi_error *err)
{
	struct runc_cmdline c = { 0 };
	int i, r;

	c.argv = calloc(argc + 1, sizeof(*c.argv));
	c.spec_dirs = calloc(argc, sizeof(*c.spec_dirs));
	if (!c.argv || !c.spec_dirs) {
		runc_cmdline_done(&c);
		return cdi_fail(err, -ENOMEM, "out of memory");
	}
	c.argc = 1;
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (strcmp(arg, "--") == 0) {
			/* As Go's flag package: the flags end, the next argument is the command. */
			c.argv[c.argc++] = argv[i++];
			break;
		}
		if (arg[0] != '-' || arg[1] == '\0')
			break;
		r = own_option(&c, argc, argv, &i, err);
		if (r == 0)
			r = global_flag(&c, argc, argv, &i, err);
		if (r < 0) {
			runc_cmdline_done(&c);
			return r;
		}
	}
	if (i < argc) {
		c.command = c.argc;
		for (int k = i; k < argc; k++)
			c.argv[c.argc++] = argv[k];
		if (strcmp(argv[i], "create") == 0 || strcmp(argv[i], "run") == 0)
			parse_create(&c, argv[i], argv + i + 1, argc - i - 1);
	}
	c.argv[c.argc] = NULL;
	*ret = c;
	return 0;
}

void runc_cmdline_done(struct runc_cmdline *c)
{
	if (!c)
		return;
	free(c->argv);
	free(c->spec_dirs);
	*c = (struct runc_cmdline){ 0 };
}
