/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The runc command line as cdi-runtime sees it (internal to apply/):
 *   cdi-runtime [OWN OPTIONS] [RUNC GLOBAL FLAGS] COMMAND [ARGS]
 * Our own options (--cdi-*) are taken out; runc's global flags are checked against runc's
 * table and those we need (--log, --log-format, --debug) remembered; of the commands only
 * create and run are looked into, for their bundle.
 */
#ifndef CDIKIT_APPLY_RUNC_CMDLINE_H
#define CDIKIT_APPLY_RUNC_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>

#include <cdi/error.h>

struct runc_cmdline {
	/* Ours, removed from argv. */
	const char **spec_dirs; /* --cdi-spec-dir, lowest priority first */
	size_t n_spec_dirs;
	const char *runtime; /* --cdi-runtime */
	bool help;	     /* --help/-h before the command */
	bool version;	     /* --version/-v before the command */

	/* runc's global flags we act on (they stay in argv). */
	const char *log_path;	/* --log */
	const char *log_format; /* --log-format */
	bool debug;		/* --debug */

	/*
	 * The runtime's argv: the original one without our options, NULL-terminated; argv[0]
	 * is left for the caller to set. command is the index of the command in it (0: none).
	 */
	char **argv;
	int argc;
	int command;

	/*
	 * create and run only, when runc would accept the command line (no unknown or help
	 * flag, one container id): edit is true, bundle is the --bundle/-b value (NULL: the
	 * working directory) and id the container id. Anything else is passed on untouched and
	 * runc reports it.
	 */
	bool edit;
	const char *bundle;
	const char *id;
};

/*
 * Parse argv (argv[0] is skipped). The strings are borrowed from argv. An option before the
 * command that neither we nor runc define, or one of ours without its value, is -EINVAL
 * with a problem naming it (cdi-runtime exits 2 on it).
 */
int runc_cmdline_parse(int argc, char **argv, struct runc_cmdline *ret, struct cdi_error *err);

void runc_cmdline_done(struct runc_cmdline *c);

#endif
