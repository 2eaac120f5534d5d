/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const char *program = "cdikit";
static enum cli_level level = CLI_NORMAL;
static bool stdout_closed;

static void vsay(const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: %s", program, prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int cli_close_stdout(void)
{
	bool had_error;
	int r;

	if (stdout_closed)
		return 0;
	stdout_closed = true;
	had_error = ferror(stdout) != 0;
	errno = 0;
	r = fclose(stdout);
	/* fclose() of an untouched, already closed stdout fails with EBADF: nothing was lost. */
	if (!had_error && (r == 0 || errno == EBADF))
		return 0;
	fprintf(stderr, "%s: write error on standard output%s%s\n", program, errno ? ": " : "",
		errno ? strerror(errno) : "");
	return CLI_EXIT_PROBLEM;
}

static void close_stdout_at_exit(void)
{
	if (cli_close_stdout() != 0)
		_exit(CLI_EXIT_PROBLEM);
}

void cli_init(const char *prog)
{
	program = prog;
	atexit(close_stdout_at_exit);
}

const char *cli_program(void)
{
	return program;
}

void cli_set_level(enum cli_level l)
{
	level = l;
}

enum cli_level cli_level(void)
{
	return level;
}

/* The three ways to say something differ only in the level they need and their prefix. */
#define SAY_FUNCTION(name, min_level, prefix)                                                      \
	void name(const char *fmt, ...)                                                            \
	{                                                                                          \
		va_list ap;                                                                        \
                                                                                                   \
		if (level < (min_level))                                                           \
			return;                                                                    \
		va_start(ap, fmt);                                                                 \
		vsay((prefix), fmt, ap);                                                           \
		va_end(ap);                                                                        \
	}

SAY_FUNCTION(cli_error, CLI_QUIET, "")
SAY_FUNCTION(cli_warning, CLI_NORMAL, "warning: ")
SAY_FUNCTION(cli_info, CLI_VERBOSE, "")

int cli_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("", fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try '%s --help' for more information.\n", program);
	return CLI_EXIT_USAGE;
}

int cli_print_version(void)
{
	printf("%s (cdikit) %s\n", program, CDIKIT_VERSION);
	return 0;
}

void cli_print_problems(const struct cdi_error *err, const char *prefix)
{
	if (!err)
		return;
	for (size_t i = 0; i < cdi_error_count(err); i++)
		fprintf(stderr, "%s: %s%s\n", program, prefix,
			cdi_problem_text(cdi_error_problem(err, i)));
	if (cdi_error_count(err) == 0 && cdi_error_code(err) < 0)
		fprintf(stderr, "%s: %s%s\n", program, prefix, strerror(-cdi_error_code(err)));
}
