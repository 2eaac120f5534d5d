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
#include "runc_flags.h"

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
		const struct runc_flag_def *def;
		struct runc_flag_arg f;
		const char *value;

		if (flags_done || !runc_flag_split(args[i], &f)) {
			id = args[i];
			n_pos++;
			continue;
		}
		if (strcmp(args[i], "--") == 0) {
			flags_done = true;
			continue;
		}
		def = runc_flag_find(runc_create_flags, runc_n_create_flags, &f);
		if (!def && run)
			def = runc_flag_find(runc_run_flags, runc_n_run_flags, &f);
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
		if (runc_flag_is(&f, "bundle") || runc_flag_is(&f, "b"))
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
	struct runc_flag_arg f;
	size_t which;

	if (strncmp(arg, "--cdi-", 6) != 0 || !runc_flag_split(arg, &f))
		return 0;
	for (which = 0; which < ELEMENTSOF(names); which++)
		if (runc_flag_is(&f, names[which]))
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
	const struct runc_flag_def *def;
	const char *value;
	struct runc_flag_arg f;

	runc_flag_split(argv[*i], &f);
	def = runc_flag_find(runc_global_flags, runc_n_global_flags, &f);
	if (!def)
		return cdi_fail(err, -EINVAL,
				"unknown option %s (neither cdi-runtime's nor runc's)", argv[*i]);
	c->argv[c->argc++] = argv[*i];
	if (!def->value) {
		if (runc_flag_is(&f, "debug"))
			c->debug = bool_value(f.value);
		else if (runc_flag_is(&f, "help") || runc_flag_is(&f, "h"))
			c->help = bool_value(f.value);
		else if (runc_flag_is(&f, "version") || runc_flag_is(&f, "v"))
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
	if (runc_flag_is(&f, "log"))
		c->log_path = *value ? value : NULL;
	else if (runc_flag_is(&f, "log-format"))
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
