/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cdi-apply: merge CDI devices into an OCI config.json, for runtimes without CDI support.
 *
 *   cdi-apply [--spec-dir DIR]... [--config FILE] [--output FILE] DEVICE...
 *   cdi-apply [--spec-dir DIR]... --list
 *   cdi-apply --validate FILE...
 *
 * That interface is a contract scripts depend on; options may be added, never changed.
 * The work is in libcdi; this file parses flags, reads and writes files and prints problems,
 * with the habits every cdikit program shares (schema/cli.h). It runs once per container
 * start, so it does nothing it does not need (no locale, one read of the config, one write).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cdi/cdi.h>

#include "array.h"
#include "bundle/bundle_config.h"
#include "bundle/bundle_ldcache.h"
#include "cli.h"
#include "nvidia/container_env.h"
#include "nvidia/env_inject.h"
#include "nvidia/env_requests.h"
#include "nvidia/mode_devices.h"
#include "json_arena.h"
#include "macro.h"
#include "problem.h"
#include "read_file.h"
#include "strmap.h"
#include "strv.h"

#define PROG "cdi-apply"

enum { EXIT_PROBLEM = CLI_EXIT_PROBLEM, EXIT_USAGE = CLI_EXIT_USAGE };

static const char usage_text[] =
	"Usage: cdi-apply [OPTION]... [--spec-dir DIR]... [--config FILE] [--output FILE] DEVICE...\n"
	"       cdi-apply [OPTION]... [--spec-dir DIR]... --list\n"
	"       cdi-apply [OPTION]... --validate FILE...\n"
	"Merge CDI devices into an OCI runtime spec (config.json) before the runtime starts it.\n"
	"\n"
	"  -d, --spec-dir DIR      CDI spec directory; repeat in priority order, a later one\n"
	"                          wins (default: /etc/cdi, then /var/run/cdi)\n"
	"  -c, --config FILE       the OCI config to edit, '-' for stdin (default: ./config.json)\n"
	"  -o, --output FILE       where to write the result, '-' for stdout (default: replace\n"
	"                          the config atomically; stdout when the config is stdin)\n"
	"      --from-annotations  also inject the devices named by the config's cdi.k8s.io/\n"
	"                          annotations\n"
	"      --from-env          also inject the GPUs NVIDIA_VISIBLE_DEVICES in process.env asks\n"
	"                          for (all, 0,1, 0:1, GPU-/MIG- UUIDs as nvidia.com/gpu=...;\n"
	"                          none and void ask for nothing), as its other NVIDIA_*\n"
	"                          variables decide (requirements, driver capabilities, MIG\n"
	"                          administration, MPS, NVIDIA_IMEX_CHANNELS, NVIDIA_GDS/MOFED/\n"
	"                          GDRCOPY/NVSWITCH=enabled); with --from-annotations only when\n"
	"                          the annotations name no device\n"
	"      --ldcache[=ROOTFS]  after injecting, give the container a linker cache that lists\n"
	"                          the injected libraries first (and the image's newer CUDA\n"
	"                          compat libraries before them); ROOTFS defaults to the\n"
	"                          config's root.path, relative to the config's directory\n"
	"      --strict            also reject what SPEC.md forbids but the reference accepts\n"
	"                          (relative paths, hook timeouts <= 0)\n"
	"      --secure-specs      refuse spec files and directories that users other than root\n"
	"                          and the caller could write (by default: a warning)\n"
	"  -l, --list              print the devices the spec directories define, one a line\n"
	"                          (with -v: each with the file it comes from)\n"
	"      --validate          check spec files; one line per problem\n"
	"  -q, --quiet             print errors only\n"
	"  -v, --verbose           say more (where each listed device comes from)\n"
	"  -h, --help              show this help\n"
	"  -V, --version           show the version\n"
	"\n"
	"DEVICE is a qualified CDI name, vendor/class=name (nvidia.com/gpu=0). All or nothing:\n"
	"on any problem the config is left as it was.\n"
	"Exit status: 0 done, 1 problems (one line each on stderr), 2 usage error.\n";

enum {
	OPT_STRICT = 0x100,
	OPT_SECURE_SPECS,
	OPT_LDCACHE,
};

struct args {
	const char **dirs;
	size_t n_dirs;
	const char *config;
	const char *output;
	int from_annotations, from_env, list, validate; /* set by getopt_long itself */
	bool ldcache;
	const char *ldcache_rootfs;
	unsigned flags;
	char **rest;
	size_t n_rest;
};

/* What the options chose, checked against each other: -1 to go on, else the exit status. */
static int check_args(struct args *a)
{
	if (a->validate &&
	    (a->list || a->n_dirs || a->config || a->output || a->from_annotations || a->from_env))
		return cli_usage_error("--validate takes only spec files (and --strict)");
	if (a->validate && a->n_rest == 0)
		return cli_usage_error("--validate needs at least one spec file");
	if (a->list && (a->n_rest || a->config || a->output || a->from_annotations || a->from_env))
		return cli_usage_error("--list takes only --spec-dir (and --strict)");
	if (!a->validate && !a->list && a->n_rest == 0 && !a->from_annotations && !a->from_env)
		return cli_usage_error(
			"no device given (a qualified name such as nvidia.com/gpu=0)");
	if (a->output && !*a->output)
		return cli_usage_error("--output needs a file name ('-' for stdout)");
	if (a->config && !*a->config)
		return cli_usage_error("--config needs a file name ('-' for stdin)");
	for (size_t i = 0; i < a->n_rest && !a->validate; i++)
		if (!*a->rest[i])
			return cli_usage_error("empty device name");
	return -1;
}

/* Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, struct args *a)
{
	const struct option options[] = {
		{ "spec-dir", required_argument, NULL, 'd' },
		{ "config", required_argument, NULL, 'c' },
		{ "output", required_argument, NULL, 'o' },
		{ "list", no_argument, NULL, 'l' },
		{ "validate", no_argument, &a->validate, 1 },
		{ "from-annotations", no_argument, &a->from_annotations, 1 },
		{ "from-env", no_argument, &a->from_env, 1 },
		{ "strict", no_argument, NULL, OPT_STRICT },
		{ "secure-specs", no_argument, NULL, OPT_SECURE_SPECS },
		{ "ldcache", optional_argument, NULL, OPT_LDCACHE },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	int c;

	a->dirs = calloc(argc, sizeof(*a->dirs));
	if (!a->dirs) {
		cli_error("out of memory");
		return EXIT_PROBLEM;
	}
	/* '+': options end at the first device name, as they always have. */
	while ((c = getopt_long(argc, argv, "+d:c:o:lqvhV", options, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (!*optarg)
				return cli_usage_error("--spec-dir needs a directory");
			a->dirs[a->n_dirs++] = optarg;
			break;
		case 'c':
			a->config = optarg;
			break;
		case 'o':
			a->output = optarg;
			break;
		case 0: /* a flag getopt_long set */
			break;
		case 'l':
			a->list = 1;
			break;
		case OPT_STRICT:
			a->flags |= CDI_LOAD_STRICT;
			break;
		case OPT_SECURE_SPECS:
			a->flags |= CDI_LOAD_SECURE;
			break;
		case OPT_LDCACHE:
			a->ldcache = true;
			a->ldcache_rootfs = optarg;
			break;
		case 'q':
			cli_set_level(CLI_QUIET);
			break;
		case 'v':
			cli_set_level(CLI_VERBOSE);
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		case 'V':
			return cli_print_version();
		default:
			/* getopt_long said what was wrong. */
			fprintf(stderr, "Try '" PROG " --help' for more information.\n");
			return EXIT_USAGE;
		}
	}
	a->rest = argv + optind;
	a->n_rest = (size_t)(argc - optind);
	return check_args(a);
}

/* One line per problem. A problem about the OCI config (a field, no file) names the config. */
static void print_problems(const struct cdi_error *err, const char *prefix, const char *config)
{
	for (size_t i = 0; i < cdi_error_count(err); i++) {
		const cdi_problem *p = cdi_error_problem(err, i);
		const char *text = cdi_problem_text(p);

		if (!cdi_problem_file(p) && cdi_problem_field(p) && config)
			fprintf(stderr, PROG ": %s%s: %s\n", prefix, config, text);
		else
			fprintf(stderr, PROG ": %s%s\n", prefix, text);
	}
}

static int cmd_validate(const struct args *a)
{
	int ret = 0;

	for (size_t i = 0; i < a->n_rest; i++) {
		const char *file = a->rest[i];
		struct cdi_error err = CDI_ERROR_INIT;
		cdi_spec *spec = NULL;
		int r;

		if (strcmp(file, "-") == 0) {
			_cleanup_free_ char *buf = NULL;
			size_t len;

			r = read_fd_all(STDIN_FILENO, "<stdin>", CDI_SPEC_MAX_BYTES, &buf, &len,
					&err);
			if (r < 0) {
				cli_print_problems(&err, "");
				cdi_error_reset(&err);
				ret = EXIT_PROBLEM;
				continue;
			}
			r = cdi_spec_load_buffer("<stdin>", buf, len, a->flags, &spec, &err);
		} else {
			/* Regular files only, opened without blocking: a FIFO is an error. */
			r = cdi_spec_load_file(file, a->flags, &spec, &err);
		}
		if (r < 0) {
			ret = EXIT_PROBLEM;
			cli_print_problems(&err, "");
		}
		cdi_spec_free(spec);
		cdi_error_reset(&err);
	}
	return ret;
}

static void registry_freep(cdi_registry **reg)
{
	cdi_registry_free(*reg);
}

static int open_registry(const struct args *a, cdi_registry **ret)
{
	struct cdi_error err = CDI_ERROR_INIT;
	int r;

	r = cdi_registry_new(a->dirs, a->n_dirs, a->flags, ret, &err);
	if (r < 0)
		cli_print_problems(&err, "");
	cdi_error_reset(&err);
	return r;
}

/*
 * The registry keeps one line per spec it could not use, found without reading the spec a
 * second time for positions. Printing is rare (a failed injection, --list), so a problem of a
 * spec's content is looked up again here, with its line and column.
 */
static void print_spec_problem(const cdi_problem *p, unsigned flags, const char *prefix)
{
	struct cdi_error again = CDI_ERROR_INIT;
	const cdi_problem *first;
	cdi_spec *spec = NULL;
	const char *text = cdi_problem_text(p);

	/* The same problem, found again with its position: only then is it the one to print. */
	if (cdi_problem_file(p) && !cdi_problem_line(p) &&
	    cdi_spec_load_file(cdi_problem_file(p), flags, &spec, &again) < 0 &&
	    (first = cdi_error_problem(&again, 0)) &&
	    strcmp(cdi_problem_message(first), cdi_problem_message(p)) == 0)
		text = cdi_problem_text(first);
	fprintf(stderr, PROG ": %s%s\n", prefix, text);
	cdi_spec_free(spec);
	cdi_error_reset(&again);
}

static void print_registry_problems(const cdi_registry *reg, unsigned flags, const char *prefix)
{
	const struct cdi_error *errors = cdi_registry_errors(reg);

	for (size_t i = 0; i < cdi_error_count(errors); i++)
		print_spec_problem(cdi_error_problem(errors, i), flags, prefix);
}

static void print_registry_warnings(const cdi_registry *reg)
{
	const struct cdi_error *w = cdi_registry_warnings(reg);

	for (size_t i = 0; i < cdi_error_count(w); i++)
		cli_warning("%s", cdi_problem_text(cdi_error_problem(w, i)));
}

/* Nothing listed: say where we looked and what was there. */
static void say_nothing_found(const cdi_registry *reg)
{
	char where[PATH_MAX + 64];
	struct stat st;

	if (cli_level() < CLI_NORMAL)
		return;
	fprintf(stderr, PROG ": no CDI devices found in");
	for (size_t i = 0; i < cdi_registry_dir_count(reg); i++) {
		const char *dir = cdi_registry_dir(reg, i);

		snprintf(where, sizeof(where), "%s (%s)", dir,
			 stat(dir, &st) < 0	? "missing"
			 : !S_ISDIR(st.st_mode) ? "not a directory"
						: "no usable spec");
		fprintf(stderr, "%s %s", i ? "," : "", where);
	}
	fputc('\n', stderr);
}

/*
 * Where the listed devices come from: with -v one line per device on stdout (name, tab, file),
 * else one summary line per spec file on stderr, and one per file another one overrides.
 */
static void say_origins(const cdi_registry *reg, const char *const *devs)
{
	_cleanup_free_ const char **files = NULL;
	_cleanup_free_ size_t *counts = NULL;
	size_t n = 0, cap = 0, cap_counts = 0;

	for (; *devs; devs++) {
		const char *file = cdi_spec_path(cdi_registry_lookup(reg, *devs, NULL));
		const cdi_spec *under = cdi_registry_overridden(reg, *devs);
		size_t i;

		if (cli_level() >= CLI_VERBOSE) {
			printf("%s\t%s%s%s\n", *devs, file, under ? "\toverrides " : "",
			       under ? cdi_spec_path(under) : "");
			continue;
		}
		if (under)
			cli_warning("%s: %s overrides %s", *devs, file, cdi_spec_path(under));
		for (i = 0; i < n && strcmp(files[i], file) != 0; i++)
			;
		if (i == n) {
			if (ARRAY_RESERVE(files, cap, n + 1) < 0 ||
			    ARRAY_RESERVE(counts, cap_counts, n + 1) < 0)
				return;
			files[n] = file;
			counts[n++] = 0;
		}
		counts[i]++;
	}
	for (size_t i = 0; i < n && cli_level() >= CLI_NORMAL; i++)
		fprintf(stderr, PROG ": %s: %zu device%s\n", files[i], counts[i],
			counts[i] == 1 ? "" : "s");
}

static int cmd_list(const struct args *a)
{
	__attribute__((cleanup(registry_freep))) cdi_registry *reg = NULL;
	const char *const *devs;

	if (open_registry(a, &reg) < 0)
		return EXIT_PROBLEM;
	/* Specs that failed to load do not stop the listing, as in the reference. */
	if (cli_level() >= CLI_NORMAL)
		print_registry_problems(reg, a->flags, "warning: ");
	print_registry_warnings(reg);
	devs = cdi_registry_devices(reg);
	if (!*devs) {
		say_nothing_found(reg);
		return 0;
	}
	if (cli_level() < CLI_VERBOSE)
		for (const char *const *d = devs; *d; d++)
			puts(*d);
	say_origins(reg, devs);
	return 0;
}

/* The devices asked for, in order, and a set of them to keep the config's from repeating. */
struct requests {
	const char **v;
	size_t n, cap;
	size_t n_named; /* the first n_named are exact CDI names; the rest came from the env */
	struct cdi_strmap seen;
};

static void requests_done(struct requests *q)
{
	free(q->v);
	cdi_strmap_free(&q->seen);
}

/* Append name; unless always, only when not already requested (the runtime deduplicates). */
static int request(struct requests *q, const char *name, bool always)
{
	size_t len = strlen(name);

	if (!always && cdi_strmap_get(&q->seen, name, len))
		return 0;
	if (ARRAY_RESERVE(q->v, q->cap, q->n + 1) < 0 ||
	    cdi_strmap_put(&q->seen, name, len, q->n) < 0)
		return -ENOMEM;
	q->v[q->n++] = name;
	return 0;
}

/*
 * DEVICE arguments go as given (a repeated one is applied twice, as the reference does); the
 * devices the config asks for follow, without the ones already requested: annotations, the
 * IMEX channels and gated modes beside a GPU list, then the GPU list (env_requests.h, with the
 * runtime's defaults: no volume mounts, no swarm-resource, the variables trusted). from_ann
 * and from_env keep the names the requests borrow.
 */
static int collect_requests(const struct args *a, const json_t *oci,
			    const struct container_env *env, const char *label, struct requests *q,
			    char ***from_ann, struct env_requests *from_env)
{
	static const struct env_request_options env_opts = {
		.accept_env_unprivileged = true,
		.none_asks_nothing = true,
	};
	struct cdi_error err = CDI_ERROR_INIT;
	size_t n_ann = 0;
	int r = 0;

	for (size_t i = 0; i < a->n_rest && r == 0; i++)
		r = request(q, a->rest[i], true);
	if (r == 0 && a->from_annotations) {
		r = cdi_annotations_parse(json_object_get(oci, "annotations"), from_ann, &n_ann,
					  &err);
		if (r < 0) {
			print_problems(&err, "", NULL);
			cli_error("%s: annotations: not a valid CDI device request", label);
		}
		for (char **d = *from_ann; r == 0 && d && *d; d++)
			r = request(q, *d, false);
	}
	if (r == 0 && a->from_env && n_ann == 0) {
		r = env_requests_read(oci, env, &env_opts, from_env, &err);
		if (r < 0)
			print_problems(&err, "", NULL);
		for (size_t i = 0; r == 0 && i < from_env->modes.n; i++)
			r = request(q, from_env->modes.v[i].name, false);
	}
	q->n_named = q->n;
	for (char **d = from_env->gpus; r == 0 && d && *d; d++)
		r = request(q, *d, false);
	if (r == -ENOMEM && cdi_error_count(&err) == 0)
		cli_error("out of memory");
	cdi_error_reset(&err);
	return r;
}

/*
 * The trees a successful run ends with. Freeing them node by node costs about as much as
 * building them, and the process is about to end, so they are left to exit(); they stay
 * reachable from here, which is what leak checkers expect of memory that is not lost.
 */
static struct {
	cdi_registry *volatile reg;
	json_t *volatile oci;
} kept_at_exit;

/* Resolve and merge the requests into oci, those from the env as its NVIDIA_* variables
 * decide; problems printed. */
static int inject(const struct args *a, json_t *oci, const struct container_env *env,
		  const struct requests *q, const struct mode_devices *modes, const char *label,
		  cdi_registry **ret_reg)
{
	__attribute__((cleanup(registry_freep))) cdi_registry *reg = NULL;
	struct cdi_error err = CDI_ERROR_INIT;
	int r;

	r = open_registry(a, &reg);
	if (r < 0)
		return r;
	print_registry_warnings(reg);
	r = mode_devices_check(modes, reg, &err);
	if (r == 0)
		r = env_inject(reg, oci, env, q->v, q->n, q->n_named, NULL, &err);
	if (r < 0) {
		print_problems(&err, "", label);
		/* Spec files that failed to load are the usual reason a device is missing. */
		print_registry_problems(reg, a->flags, "");
	}
	cdi_error_reset(&err);
	*ret_reg = TAKE_PTR(reg);
	return r;
}

static int cmd_inject(const struct args *a)
{
	__attribute__((cleanup(registry_freep))) cdi_registry *reg = NULL;
	struct env_requests from_env __attribute__((cleanup(env_requests_done))) = { 0 };
	_cleanup_strv_free_ char **from_ann = NULL;
	struct requests q __attribute__((cleanup(requests_done))) = { 0 };
	struct container_env env __attribute__((cleanup(container_env_done))) = { 0 };
	struct bundle_config cfg __attribute__((cleanup(bundle_config_done))) = { .dir_fd = -1 };
	_cleanup_free_ char *out = NULL;
	_cleanup_json_ json_t *oci = NULL;
	const char *config = a->config ? a->config : "config.json";
	const char *output = a->output ? a->output : strcmp(config, "-") == 0 ? "-" : config;
	const char *label = strcmp(config, "-") == 0 ? "<stdin>" : config;
	struct cdi_error err = CDI_ERROR_INIT;
	size_t len;
	int r;

	if (bundle_config_read(config, &cfg, &err) < 0 ||
	    bundle_config_parse(&cfg, 0, &oci, &err) < 0) {
		cli_print_problems(&err, "");
		cdi_error_reset(&err);
		return EXIT_PROBLEM;
	}
	if (container_env_read(oci, &env, &err) < 0) {
		cli_print_problems(&err, "");
		cdi_error_reset(&err);
		return EXIT_PROBLEM;
	}
	if (collect_requests(a, oci, &env, label, &q, &from_ann, &from_env) < 0)
		return EXIT_PROBLEM;
	if (q.n == 0 && output == config)
		return 0; /* nothing asked for, nothing to rewrite */
	if (q.n > 0 && inject(a, oci, &env, &q, &from_env.modes, label, &reg) < 0)
		return EXIT_PROBLEM;
	cli_info("%s: %zu CDI device%s merged", label, q.n, q.n == 1 ? "" : "s");

	if (a->ldcache && cdi_bundle_ldcache_config(oci, config, a->ldcache_rootfs, &err) < 0) {
		print_problems(&err, "", label);
		cdi_error_reset(&err);
		return EXIT_PROBLEM;
	}
	out = config_dump(oci, config_layout_detect(cfg.buf, cfg.len), &len);
	if (!out) {
		cli_error("out of memory");
		return EXIT_PROBLEM;
	}
	kept_at_exit.reg = TAKE_PTR(reg);
	kept_at_exit.oci = TAKE_PTR(oci);
	/* With --ldcache the config is a bundle's, edited right before its container starts: as
	 * cdi-runtime, no sync (a bundle does not outlive a crash, and a sync costs milliseconds).
	 */
	r = bundle_config_write(&cfg, output == config ? NULL : output, out, len,
				a->ldcache ? 0 : BUNDLE_WRITE_SYNC, &err);
	cli_print_problems(&err, "");
	cdi_error_reset(&err);
	return r < 0 ? EXIT_PROBLEM : 0;
}

int main(int argc, char **argv)
{
	struct args a = { 0 };
	int r;

	/* A failed write to stdout (--help >/dev/full) is an error, caught at exit. */
	cli_init(PROG);
	/* A fixed hash seed spares jansson reading /dev/urandom on the first object. Our input
	 * is root's spec files and the caller's own config, not adversarial keys. */
	json_object_seed(0x9e3779b9u);
	json_arena_install();
	r = parse_args(argc, argv, &a);
	if (r < 0) {
		if (a.validate)
			r = cmd_validate(&a);
		else if (a.list)
			r = cmd_list(&a);
		else
			r = cmd_inject(&a);
	}
	free(a.dirs);
	return r;
}
