/* SPDX-License-Identifier: Apache-2.0 */
/* Habits every cdikit program shares: how it speaks, fails and finishes (internal). */
#ifndef CDIKIT_CLI_H
#define CDIKIT_CLI_H

#include <stdbool.h>

#include <cdi/error.h>

#include "macro.h"

#ifndef CDIKIT_VERSION
#define CDIKIT_VERSION "0.0.0"
#endif

enum {
	CLI_EXIT_PROBLEM = 1, /* something went wrong, said on stderr */
	CLI_EXIT_USAGE = 2,   /* the command line is wrong */
};

/* -q lowers it, -v raises it; messages of a level above it are not printed. */
enum cli_level {
	CLI_QUIET = 0,	/* errors only */
	CLI_NORMAL = 1, /* plus warnings and the one-line summary */
	CLI_VERBOSE = 2,
};

/*
 * Name the program for every message and check stdout when it exits (as coreutils'
 * close_stdout does: `--help >/dev/full` is a write error, exit 1). Call first in main().
 */
void cli_init(const char *program);
const char *cli_program(void);
void cli_set_level(enum cli_level level);
enum cli_level cli_level(void);

/* "program: message" on stderr. */
void cli_error(const char *fmt, ...) _printf_(1, 2);
/* "program: warning: message" on stderr, unless quiet. */
void cli_warning(const char *fmt, ...) _printf_(1, 2);
/* A line on stderr when verbose. */
void cli_info(const char *fmt, ...) _printf_(1, 2);

/* "program: message" and "Try 'program --help' for more information." Returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *fmt, ...) _printf_(1, 2);

/* "program (cdikit) X.Y.Z" on stdout. Returns 0 (a failed write is caught at exit). */
int cli_print_version(void);

/* One line per problem, "program: <prefix><text>"; a code with no problem prints its errno. */
void cli_print_problems(const struct cdi_error *err, const char *prefix);

/* Check and close stdout now (what cli_init arranges at exit); 0 or CLI_EXIT_PROBLEM. */
int cli_close_stdout(void);

#endif
