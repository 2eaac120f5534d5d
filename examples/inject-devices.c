/* SPDX-License-Identifier: Apache-2.0 */
/*
 * inject-devices: merge CDI devices of any vendor into an OCI config.json through libcdi, as a
 * container engine does before it starts the container.
 *
 *   cc -o inject-devices inject-devices.c $(pkg-config --cflags --libs libcdi)
 *   ./inject-devices --spec-dir examples/cdi config.json intel.com/gpu=0 >edited.json
 *
 * The edited config goes to stdout; on an error nothing is. A device node whose spec entry
 * lacks its numbers takes them from the host's node, as engines do (examples/cdi's spec gives
 * them, so the example runs on any machine).
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
	fputs("Usage: inject-devices [--spec-dir DIR]... CONFIG DEVICE...\n"
	      "Print CONFIG (an OCI config.json) with the CDI DEVICEs merged in.\n"
	      "\n"
	      "  -d, --spec-dir DIR    a spec directory; repeat in priority order\n"
	      "                        (default: /etc/cdi, then /var/run/cdi)\n"
	      "  -h, --help            show this help\n",
	      f);
}

static void report(const char *what, const struct cdi_error *err)
{
	for (size_t i = 0; i < cdi_error_count(err); i++)
		fprintf(stderr, "inject-devices: %s%s\n", what,
			cdi_problem_text(cdi_error_problem(err, i)));
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "spec-dir", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cdi_error err = { 0 };
	const char *dirs[MAX_DIRS];
	size_t n_dirs = 0;
	cdi_registry *reg = NULL;
	json_error_t jerr;
	json_t *oci;
	int c, status = EXIT_FAILURE;

	while ((c = getopt_long(argc, argv, "d:h", options, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (n_dirs == MAX_DIRS) {
				fprintf(stderr, "inject-devices: more than %d --spec-dir\n",
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
	if (argc - optind < 2) {
		usage(stderr);
		return 2;
	}

	oci = json_load_file(argv[optind], JSON_REJECT_DUPLICATES, &jerr);
	if (!oci) {
		fprintf(stderr, "inject-devices: %s:%d:%d: %s\n", argv[optind], jerr.line,
			jerr.column, jerr.text);
		return EXIT_FAILURE;
	}
	if (cdi_registry_new(n_dirs ? dirs : NULL, n_dirs, 0, &reg, &err) < 0) {
		fprintf(stderr, "inject-devices: %s\n", cdi_error_message(&err));
		goto out;
	}
	report("warning: ", cdi_registry_errors(reg));
	/* All or nothing: on an error the config is as it was, and nothing is printed. */
	if (cdi_registry_inject(reg, oci, (const char *const *)argv + optind + 1,
				(size_t)(argc - optind - 1), NULL, &err) < 0) {
		report("", &err);
		goto out;
	}
	if (json_dumpf(oci, stdout, JSON_INDENT(2)) < 0 || fputc('\n', stdout) == EOF ||
	    fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "inject-devices: standard output: %s\n", strerror(errno));
		goto out;
	}
	status = EXIT_SUCCESS;
out:
	cdi_registry_free(reg);
	cdi_error_reset(&err);
	json_decref(oci);
	return status;
}
