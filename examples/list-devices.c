/* SPDX-License-Identifier: Apache-2.0 */
/*
 * list-devices: the CDI devices a container engine would find, through libcdi.
 *
 *   cc -o list-devices list-devices.c $(pkg-config --cflags --libs libcdi)
 *   ./list-devices [--spec-dir DIR]...
 *
 * Prints one device a line, its qualified name and the spec file it resolves to, after
 * the reference library's rules (a later directory wins, conflicts are dropped). Specs
 * that do not load are reported on stderr and skipped, as engines skip them.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cdi/cdi.h>

#define MAX_DIRS 64

static void usage(FILE *f)
{
	fputs("Usage: list-devices [--spec-dir DIR]...\n"
	      "List the CDI devices of the spec directories and the spec file of each.\n"
	      "\n"
	      "  -d, --spec-dir DIR  a spec directory; repeat in priority order, a later one\n"
	      "                      wins (default: /etc/cdi, then /var/run/cdi)\n"
	      "  -h, --help          show this help\n",
	      f);
}

/* Lists the devices; returns the exit status. */
static int list(const cdi_registry *reg)
{
	const char *const *devices = cdi_registry_devices(reg);
	const struct cdi_error *problems = cdi_registry_errors(reg);

	for (size_t i = 0; i < cdi_error_count(problems); i++)
		fprintf(stderr, "list-devices: warning: %s\n",
			cdi_problem_text(cdi_error_problem(problems, i)));
	if (!devices[0]) {
		fputs("list-devices: no CDI devices in", stderr);
		for (size_t i = 0; i < cdi_registry_dir_count(reg); i++)
			fprintf(stderr, "%s %s", i ? "," : "", cdi_registry_dir(reg, i));
		fputc('\n', stderr);
		return EXIT_SUCCESS;
	}
	for (const char *const *d = devices; *d; d++) {
		const cdi_spec *spec = cdi_registry_lookup(reg, *d, NULL);

		printf("%s\t%s\n", *d, spec ? cdi_spec_path(spec) : "?");
	}
	return EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "spec-dir", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dirs[MAX_DIRS];
	size_t n_dirs = 0;
	struct cdi_error err = { 0 };
	cdi_registry *reg = NULL;
	int c, status;

	while ((c = getopt_long(argc, argv, "d:h", options, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (n_dirs == MAX_DIRS) {
				fprintf(stderr, "list-devices: more than %d --spec-dir\n",
					MAX_DIRS);
				return 2;
			}
			dirs[n_dirs++] = optarg;
			break;
		case 'h':
			usage(stdout);
			return fflush(stdout) == 0 && !ferror(stdout) ? EXIT_SUCCESS : EXIT_FAILURE;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "list-devices: unexpected argument: %s\n", argv[optind]);
		return 2;
	}

	if (cdi_registry_new(n_dirs ? dirs : NULL, n_dirs, 0, &reg, &err) < 0) {
		fprintf(stderr, "list-devices: %s\n", cdi_error_message(&err));
		cdi_error_reset(&err);
		return EXIT_FAILURE;
	}
	status = list(reg);
	cdi_registry_free(reg);
	cdi_error_reset(&err);
	/* A listing cut short (a full disk, a closed pipe) is a failure, not a shorter list. */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "list-devices: standard output: %s\n", strerror(errno));
		return EXIT_FAILURE;
	}
	return status;
}
