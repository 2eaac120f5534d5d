/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nvidia-container-runtime-hook, as cdikit ships it: never does any device work.
 *
 * Docker before 29 registers its --gpus driver only when an executable of exactly this name is
 * on dockerd's PATH, and then adds it as a prestart hook to every --gpus container. Under
 * cdi-runtime the hook is removed before runc sees the config and the devices come from the
 * CDI spec; under any other runtime this program runs as the hook and fails the container
 * with one line saying what to do, as NVIDIA's hook does outside its legacy mode.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

#define PROG "nvidia-container-runtime-hook"

static const char help_text[] =
	"Usage: " PROG " prestart\n"
	"cdikit's stand-in for NVIDIA's hook: it lets dockerd offer --gpus and fails any\n"
	"container it runs in. GPUs reach containers through cdi-runtime, which removes\n"
	"this hook from the config before runc sees it.\n";

/* NVIDIA's hook takes Go-style -config=FILE and -debug=FILE before its command; accept them so
 * a copied hook entry reaches the refusal below, and call anything else a usage error. */
static bool known_flag(const char *arg)
{
	static const char *const flags[] = { "config", "debug" };
	const char *name = arg + (arg[1] == '-' ? 2 : 1);

	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		size_t n = strlen(flags[i]);
		if (strncmp(name, flags[i], n) == 0 && (name[n] == '\0' || name[n] == '='))
			return true;
	}
	return false;
}

/* One line: runc shows it in "error running hook", which docker run prints. */
static const char refusal[] =
	"docker run --gpus needs --runtime=cdikit (or cdi-runtime as Docker's default runtime); cdikit gives containers GPUs through cdi-runtime, not through this hook";

int main(int argc, char **argv)
{
	cli_init(PROG);
	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		fputs(help_text, stdout);
		return 0; /* stdout is checked at exit */
	}
	if (argc > 1 && strcmp(argv[1], "--version") == 0)
		return cli_print_version();
	for (int i = 1; i < argc; i++)
		if (argv[i][0] == '-' && argv[i][1] != '\0' && !known_flag(argv[i]))
			return cli_usage_error("unrecognized option '%s'", argv[i]);
	cli_error("%s", refusal);
	return CLI_EXIT_PROBLEM;
}
