/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cdi-generate: write the CDI spec of this host's NVIDIA GPUs. Runs at boot;
 * rewrites the file only when its content changes; --check tells whether the
 * file on disk is stale. The command line is a contract (see --help).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cdi/spec.h>

#include "driver_files.h"
#include "driver_libs.h"
#include "gpus.h"
#include "host.h"
#include "json_arena.h"
#include "ldcache.h"
#include "load.h"
#include "macro.h"
#include "path_clean.h"
#include "problem.h"
#include "procfs.h"
#include "spec_build.h"

#ifndef CDIKIT_VERSION
#define CDIKIT_VERSION "0.1.0"
#endif

#define PROG "cdi-generate"
#define DEFAULT_OUTPUT "/etc/cdi/nvidia.yaml"
#define NVML_SONAME "libnvidia-ml.so.1"
#define EXIT_USAGE 2

enum mode { MODE_AUTO, MODE_NVML, MODE_PROCFS, MODE_MANAGEMENT };

struct args {
	const char *root, *driver_root, *dev_root;
	const char *nvml_lib;
	const char *output;
	int format; /* -1: from the extension */
	enum mode mode;
	bool check;
	struct spec_options spec;
	const char **ids;
	size_t n_ids;
};

static void usage(FILE *f)
{
	fputs("Usage: " PROG " [OPTION]...\n"
	      "Write the CDI spec of this host's NVIDIA GPUs (no hooks).\n"
	      "\n"
	      "  --root DIR            host root: /dev, /proc, /sys, ld.so.cache, driver files (default /)\n"
	      "  --driver-root DIR     where the driver's files are (default: --root)\n"
	      "  --dev-root DIR        where /dev is (default: --root)\n"
	      "  --nvml-lib PATH       libnvidia-ml to load (default: libnvidia-ml.so.1 found through\n"
	      "                        the driver root's ld.so.cache, then its library directories)\n"
	      "  --output FILE|-       where to write (default " DEFAULT_OUTPUT "); - is stdout\n"
	      "  --format yaml|json    output format (default: json for *.json, else yaml)\n"
	      "  --vendor V            kind vendor (default nvidia.com)\n"
	      "  --class C             kind class (default gpu)\n"
	      "  --device-name-strategy S[,S]...\n"
	      "                        index (0, 0:1), uuid (GPU-..., MIG-...), type-index (gpu0,\n"
	      "                        mig0:1); repeatable (default index,uuid)\n"
	      "  --device-id ID        describe only this device: index, g:m, gpuN, migG:M, UUID or\n"
	      "                        PCI bus id; repeatable (default: every device)\n"
	      "  --no-all-device       leave out the \"all\" device\n"
	      "  --mode MODE           auto (nvml if NVML loads, else procfs), nvml, procfs (full\n"
	      "                        GPUs from /proc, no MIG), management (one \"all\" device with\n"
	      "                        every NVIDIA device node) (default auto)\n"
	      "  --check               write nothing; exit 0 if FILE is up to date, 1 if it is stale\n"
	      "  --allow-missing-nodes a GPU or MIG cap node missing under --dev-root is written\n"
	      "                        with a warning instead of failing (alias --allow-missing-caps)\n"
	      "  --with-device-numbers add type, major, minor, fileMode to device nodes (they go stale\n"
	      "                        when a reboot moves a dynamic major; the runtime reads them\n"
	      "                        from the host when they are absent)\n"
	      "  -h, --help            this text\n"
	      "  -V, --version         the version\n"
	      "\n"
	      "Exit status: 0 success (or up to date), 1 error (or stale), 2 usage error.\n",
	      f);
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, PROG ": ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry '" PROG " --help'.\n");
	return EXIT_USAGE;
}

static void print_problems(const struct cdi_error *e, const char *prefix)
{
	for (size_t i = 0; i < cdi_error_count(e); i++)
		fprintf(stderr, PROG ": %s%s\n", prefix, cdi_problem_text(cdi_error_problem(e, i)));
	if (cdi_error_count(e) == 0 && cdi_error_code(e) < 0)
		fprintf(stderr, PROG ": %s%s\n", prefix, strerror(-cdi_error_code(e)));
}

/* "" for "/", no trailing slash; relative roots become absolute (hostPath must be). */
static int normalize_root(const char *in, char **ret)
{
	char *r;
	size_t n;

	if (!in)
		in = "/";
	if (in[0] != '/') {
		r = realpath(in, NULL);
		if (!r)
			return negative_errno();
	} else {
		/* Lexically, as Go's filepath.Clean: "//tmp/h/" and "/tmp/../tmp/h" are /tmp/h,
		 * while a symlink in the path the user gave stays as given. */
		r = cdi_path_clean(in);
		if (!r)
			return -ENOMEM;
	}
	n = strlen(r);
	while (n > 0 && r[n - 1] == '/')
		r[--n] = '\0';
	*ret = r;
	return 0;
}

static int parse_args(int argc, char **argv, struct args *a)
{
	enum {
		OPT_ROOT = 256, OPT_DRIVER_ROOT, OPT_DEV_ROOT, OPT_NVML_LIB, OPT_OUTPUT, OPT_FORMAT,
		OPT_VENDOR, OPT_CLASS, OPT_STRATEGY, OPT_DEVICE_ID, OPT_NO_ALL, OPT_MODE, OPT_CHECK,
		OPT_ALLOW_MISSING, OPT_NUMBERS,
	};
	static const struct option options[] = {
		{ "root", required_argument, NULL, OPT_ROOT },
		{ "driver-root", required_argument, NULL, OPT_DRIVER_ROOT },
		{ "dev-root", required_argument, NULL, OPT_DEV_ROOT },
		{ "nvml-lib", required_argument, NULL, OPT_NVML_LIB },
		{ "output", required_argument, NULL, OPT_OUTPUT },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "vendor", required_argument, NULL, OPT_VENDOR },
		{ "class", required_argument, NULL, OPT_CLASS },
		{ "device-name-strategy", required_argument, NULL, OPT_STRATEGY },
		{ "device-id", required_argument, NULL, OPT_DEVICE_ID },
		{ "no-all-device", no_argument, NULL, OPT_NO_ALL },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "check", no_argument, NULL, OPT_CHECK },
		{ "allow-missing-nodes", no_argument, NULL, OPT_ALLOW_MISSING },
		{ "allow-missing-caps", no_argument, NULL, OPT_ALLOW_MISSING },
		{ "with-device-numbers", no_argument, NULL, OPT_NUMBERS },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	int c;

	a->output = DEFAULT_OUTPUT;
	a->format = -1;
	a->ids = calloc((size_t)argc + 1, sizeof(*a->ids));
	if (!a->ids)
		return 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "hV", options, NULL)) != -1) {
		struct cdi_error e = { 0 };

		switch (c) {
		case OPT_ROOT: a->root = optarg; break;
		case OPT_DRIVER_ROOT: a->driver_root = optarg; break;
		case OPT_DEV_ROOT: a->dev_root = optarg; break;
		case OPT_NVML_LIB: a->nvml_lib = optarg; break;
		case OPT_OUTPUT:
			if (!*optarg)
				return usage_error("--output: empty path%s", "");
			a->output = optarg;
			break;
		case OPT_FORMAT:
			if (!strcasecmp(optarg, "yaml") || !strcasecmp(optarg, "yml"))
				a->format = CDI_FORMAT_YAML;
			else if (!strcasecmp(optarg, "json"))
				a->format = CDI_FORMAT_JSON;
			else
				return usage_error("--format: \"%s\" is neither yaml nor json", optarg);
			break;
		case OPT_VENDOR: a->spec.vendor = optarg; break;
		case OPT_CLASS: a->spec.class_name = optarg; break;
		case OPT_STRATEGY:
			if (name_strategies_parse(optarg, &a->spec.name_strategies, &e) < 0) {
				fprintf(stderr, PROG ": %s\n", cdi_error_message(&e));
				cdi_error_reset(&e);
				return EXIT_USAGE;
			}
			break;
		case OPT_DEVICE_ID: a->ids[a->n_ids++] = optarg; break;
		case OPT_NO_ALL: a->spec.no_all_device = true; break;
		case OPT_MODE:
			if (!strcmp(optarg, "auto"))
				a->mode = MODE_AUTO;
			else if (!strcmp(optarg, "nvml"))
				a->mode = MODE_NVML;
			else if (!strcmp(optarg, "procfs"))
				a->mode = MODE_PROCFS;
			else if (!strcmp(optarg, "management"))
				a->mode = MODE_MANAGEMENT;
			else
				return usage_error("--mode: unknown mode \"%s\" (auto, nvml, procfs, management)",
						   optarg);
			break;
		case OPT_CHECK: a->check = true; break;
		case OPT_ALLOW_MISSING: a->spec.allow_missing_nodes = true; break;
		case OPT_NUMBERS: a->spec.with_device_numbers = true; break;
		case 'h': usage(stdout); exit(EXIT_SUCCESS);
		case 'V': puts(PROG " " CDIKIT_VERSION); exit(EXIT_SUCCESS);
		default:
			return usage_error("unknown option or missing argument: %s", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument: %s", argv[optind]);
	if (a->check && strcmp(a->output, "-") == 0)
		return usage_error("--check needs a file, not --output %s", "-");
	if (a->mode == MODE_MANAGEMENT && (a->n_ids > 0 || a->spec.no_all_device))
		return usage_error("--mode management has only the \"all\" device%s", "");
	a->spec.device_ids = a->ids;
	a->spec.n_device_ids = a->n_ids;
	if (a->format < 0) {
		size_t n = strlen(a->output);

		a->format = n >= 5 && strcmp(a->output + n - 5, ".json") == 0 ? CDI_FORMAT_JSON
									      : CDI_FORMAT_YAML;
	}
	return 0;
}

#if defined(__x86_64__)
#define NATIVE_CACHE_ARCH LDCACHE_ARCH_X86_64
#define MULTIARCH "x86_64-linux-gnu"
#elif defined(__aarch64__)
#define NATIVE_CACHE_ARCH LDCACHE_ARCH_AARCH64
#define MULTIARCH "aarch64-linux-gnu"
#elif defined(__powerpc64__)
#define NATIVE_CACHE_ARCH LDCACHE_ARCH_PPC64
#define MULTIARCH "powerpc64le-linux-gnu"
#else
#define NATIVE_CACHE_ARCH LDCACHE_ARCH_I386
#define MULTIARCH "i386-linux-gnu"
#endif

/* Try one candidate path inside the driver root: resolved there, a regular file. */
static int nvml_candidate(const char *driver_root, const char *path, char **ret)
{
	_cleanup_free_ char *resolved = NULL;
	struct stat st;

	if (root_resolve(driver_root, path, &resolved, &st) < 0 || !S_ISREG(st.st_mode))
		return -ENOENT;
	*ret = host_path(driver_root, resolved);
	return *ret ? 0 : -ENOMEM;
}

/*
 * libnvidia-ml.so.1 of the driver root: its ld.so.cache first (the linker's
 * own answer), then the standard library directories. The real file is
 * dlopen'ed by its full host path, so a --root never loads the host's copy.
 */
static int nvml_locate(const char *driver_root, char **ret, struct cdi_error *err)
{
	static const char *const dirs[] = {
		"/usr/lib/" MULTIARCH, "/lib/" MULTIARCH, "/usr/lib/" MULTIARCH "/nvidia/current",
		"/usr/lib64", "/lib64", "/usr/lib", "/lib",
	};
	_cleanup_free_ char *cache_path = host_path(driver_root, "/etc/ld.so.cache");
	struct ldcache *cache = NULL;
	int r;

	if (!cache_path)
		return -ENOMEM;
	r = ldcache_load(cache_path, &cache, err);
	if (r < 0 && r != -ENOENT)
		return r;
	for (size_t i = 0; cache && i < cache->n_entries; i++) {
		const struct ldcache_entry *e = &cache->entries[i];

		if (!ldcache_entry_is_elf(e) || ldcache_entry_arch(e) != NATIVE_CACHE_ARCH ||
		    strcmp(e->key, NVML_SONAME) != 0)
			continue;
		if (nvml_candidate(driver_root, e->value, ret) == 0) {
			ldcache_free(cache);
			return 0;
		}
	}
	ldcache_free(cache);
	for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
		_cleanup_free_ char *p = NULL;

		if (asprintf(&p, "%s/%s", dirs[i], NVML_SONAME) < 0)
			return -ENOMEM;
		if (nvml_candidate(driver_root, p, ret) == 0)
			return 0;
	}
	return -ENOENT;
}

/* The GPUs by the mode asked for; auto falls back to procfs when NVML cannot be loaded. */
static int enumerate(const struct args *a, const struct gen_host *host, struct gpu_topology *topo,
		     struct cdi_error *err)
{
	_cleanup_free_ char *lib = NULL;
	char proc_version[GPU_VERSION_MAX];
	int r;

	if (a->mode == MODE_PROCFS)
		return procfs_enumerate(host, topo, err);
	if (a->nvml_lib) {
		lib = strdup(a->nvml_lib);
		if (!lib)
			return -ENOMEM;
	} else {
		r = nvml_locate(host->driver_root, &lib, err);
		if (r == -ENOENT && a->mode == MODE_AUTO) {
			fprintf(stderr, PROG ": no " NVML_SONAME " under %s; enumerating full GPUs from /proc (no MIG devices)\n",
				*host->driver_root ? host->driver_root : "/");
			return procfs_enumerate(host, topo, err);
		}
		if (r == -ENOENT)
			return cdi_problem_add(err, r, NULL, 0, 0, NULL,
					       "no " NVML_SONAME " in %s/etc/ld.so.cache or the library directories",
					       host->driver_root);
		if (r < 0)
			return r;
	}
	r = nvml_enumerate(lib, topo, err);
	if (r == -ELIBACC && a->mode == MODE_AUTO) {
		fprintf(stderr, PROG ": %s; enumerating full GPUs from /proc (no MIG devices)\n",
			cdi_error_message(err));
		cdi_error_reset(err);
		return procfs_enumerate(host, topo, err);
	}
	if (r < 0)
		return r;
	/* A driver upgraded without a reboot: the libraries and the kernel module disagree. */
	r = procfs_driver_version(host->root, proc_version, err);
	if (r < 0)
		return r;
	if (strcmp(proc_version, topo->driver_version) != 0)
		return cdi_problem_add(err, -ESTALE, NULL, 0, 0, NULL,
				       "driver version mismatch: %s reports %s, %s/proc/driver/nvidia/version %s (driver upgraded without a reboot?)",
				       lib, topo->driver_version, host->root, proc_version);
	return 0;
}

static int build(const struct args *a, const struct gen_host *host, json_t **ret_spec,
		 struct cdi_error *warn, struct cdi_error *err)
{
	_cleanup_json_ json_t *mounts = NULL;
	struct gpu_topology topo = { 0 };
	char version[GPU_VERSION_MAX];
	int r;

	if (a->mode == MODE_MANAGEMENT) {
		r = procfs_driver_version(host->root, version, err);
		if (r >= 0)
			r = driver_mounts(host, version, &mounts, err);
		if (r >= 0)
			r = spec_build_management(host, mounts, &a->spec, ret_spec, warn, err);
		return r;
	}
	r = enumerate(a, host, &topo, err);
	if (r >= 0)
		r = driver_mounts(host, topo.driver_version, &mounts, err);
	if (r >= 0)
		r = spec_build_gpus(host, &topo, mounts, &a->spec, ret_spec, warn, err);
	gpu_topology_clear(&topo);
	return r;
}

/* Names of the devices of a spec tree, as a set (object name → device). */
static json_t *device_set(const json_t *spec)
{
	json_t *set = json_object(), *dev;
	size_t i;

	if (!set)
		return NULL;
	json_array_foreach(json_object_get(spec, "devices"), i, dev) {
		const char *name = json_string_value(json_object_get(dev, "name"));

		if (name)
			json_object_set(set, name, dev);
	}
	return set;
}

/* The first few names of a that are not in b, comma-separated; count in *ret_n. */
static char *set_minus(json_t *a, json_t *b, size_t *ret_n)
{
	char *list = NULL;
	size_t n = 0, len = 0;
	const char *name;
	json_t *v;

	json_object_foreach(a, name, v) {
		if (json_object_get(b, name))
			continue;
		if (n++ < 3) {
			size_t add = strlen(name) + 2;
			char *grown = realloc(list, len + add + 1);

			if (!grown)
				break;
			list = grown;
			len += (size_t)sprintf(list + len, "%s%s", len ? ", " : "", name);
		}
	}
	*ret_n = n;
	return list;
}

/* One line on why the spec on disk differs from the one generated now. */
static void stale_reason(const char *path, const char *old_buf, size_t old_len, const json_t *spec,
			 char *out, size_t size)
{
	_cleanup_json_ json_t *old = NULL, *old_set = NULL, *new_set = NULL;
	_cleanup_free_ char *added = NULL, *removed = NULL;
	struct cdi_error e = { 0 };
	size_t n_added = 0, n_removed = 0;
	const char *name;
	json_t *dev;

	if (cdi_yaml_load(path, old_buf, old_len, &old, NULL, &e) < 0 || !json_is_object(old)) {
		snprintf(out, size, "it does not parse (%s)", cdi_error_count(&e) ? cdi_error_message(&e) : "empty");
		cdi_error_reset(&e);
		return;
	}
	if (!json_equal(json_object_get(old, "kind"), json_object_get(spec, "kind"))) {
		snprintf(out, size, "kind %s, now %s", json_string_value(json_object_get(old, "kind")) ?: "(none)",
			 json_string_value(json_object_get(spec, "kind")));
		return;
	}
	old_set = device_set(old);
	new_set = device_set(spec);
	if (!old_set || !new_set) {
		snprintf(out, size, "content differs");
		return;
	}
	added = set_minus(new_set, old_set, &n_added);
	removed = set_minus(old_set, new_set, &n_removed);
	if (n_added || n_removed) {
		snprintf(out, size, "devices added: %zu%s%s%s, removed: %zu%s%s%s", n_added,
			 n_added ? " (" : "", added ?: "", n_added > 3 ? ", ...)" : n_added ? ")" : "",
			 n_removed, n_removed ? " (" : "", removed ?: "",
			 n_removed > 3 ? ", ...)" : n_removed ? ")" : "");
		return;
	}
	json_object_foreach(new_set, name, dev) {
		if (!json_equal(dev, json_object_get(old_set, name))) {
			snprintf(out, size, "device %s changed", name);
			return;
		}
	}
	if (!json_equal(json_object_get(old, "containerEdits"), json_object_get(spec, "containerEdits"))) {
		snprintf(out, size, "common containerEdits changed (driver files, control nodes or env)");
		return;
	}
	snprintf(out, size, "content differs (cdiVersion or formatting)");
}

static int mkdir_parents(const char *path)
{
	_cleanup_free_ char *dir = strdup(path);

	if (!dir)
		return -ENOMEM;
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return negative_errno();
		*p = '/';
	}
	return 0;
}

static int write_output(const struct args *a, const json_t *spec, const char *buf, size_t len)
{
	_cleanup_free_ char *old = NULL;
	struct cdi_error e = { 0 };
	size_t old_len = 0;
	struct stat st;
	int r;

	if (strcmp(a->output, "-") == 0) {
		if (fwrite(buf, 1, len, stdout) != len || fflush(stdout) != 0) {
			fprintf(stderr, PROG ": stdout: %s\n", strerror(errno));
			return EXIT_FAILURE;
		}
		return EXIT_SUCCESS;
	}
	/*
	 * The file is replaced by rename(): whatever sits at that path goes. Only a
	 * regular file may be replaced; "--output /dev/null" or "/dev/stdout" would
	 * otherwise replace the device node or the symlink itself. --check only reads.
	 */
	if (!a->check && lstat(a->output, &st) == 0 && !S_ISREG(st.st_mode)) {
		fprintf(stderr, PROG ": %s: exists and is not a regular file; refusing to replace it (use --output - for stdout)\n",
			a->output);
		return EXIT_FAILURE;
	}
	r = cdi_read_file(a->output, CDI_SPEC_MAX_BYTES, &old, &old_len);
	if (r < 0 && r != -ENOENT && !(r == -EFBIG && !a->check)) {
		fprintf(stderr, PROG ": %s: cannot read: %s\n", a->output, strerror(-r));
		return EXIT_FAILURE;
	}
	if (r == 0 && old_len == len && memcmp(old, buf, len) == 0) {
		if (a->check)
			printf("%s is up to date\n", a->output);
		return EXIT_SUCCESS; /* unchanged: not rewritten, so watchers see no event */
	}
	if (a->check) {
		char reason[512];

		if (r == -ENOENT)
			snprintf(reason, sizeof(reason), "it does not exist");
		else
			stale_reason(a->output, old, old_len, spec, reason, sizeof(reason));
		printf("%s is stale: %s\n", a->output, reason);
		return EXIT_FAILURE;
	}
	r = mkdir_parents(a->output);
	if (r < 0) {
		fprintf(stderr, PROG ": %s: cannot create its directory: %s\n", a->output, strerror(-r));
		return EXIT_FAILURE;
	}
	r = cdi_write_file_atomic(a->output, buf, len, 0644, &e);
	if (r < 0) {
		print_problems(&e, "");
		cdi_error_reset(&e);
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
	struct args a = { 0 };
	_cleanup_free_ char *root = NULL, *driver_root = NULL, *dev_root = NULL, *buf = NULL;
	_cleanup_json_ json_t *spec = NULL;
	struct cdi_error err = { 0 }, warn = { 0 };
	struct gen_host host;
	size_t len = 0;
	int r, status;

	json_arena_install();
	r = parse_args(argc, argv, &a);
	if (r != 0) {
		free(a.ids);
		return r;
	}
	if (normalize_root(a.root, &root) < 0 ||
	    normalize_root(a.driver_root ? a.driver_root : a.root, &driver_root) < 0 ||
	    normalize_root(a.dev_root ? a.dev_root : a.root, &dev_root) < 0) {
		free(a.ids);
		return usage_error("%s: cannot resolve a root directory", a.root ? a.root : "/");
	}
	host = (struct gen_host){ .root = root, .driver_root = driver_root, .dev_root = dev_root };

	r = build(&a, &host, &spec, &warn, &err);
	print_problems(&warn, "warning: ");
	cdi_error_reset(&warn);
	if (r >= 0)
		r = cdi_spec_emit(spec, (enum cdi_format)a.format, &buf, &len, &err);
	if (r < 0) {
		print_problems(&err, "");
		status = EXIT_FAILURE;
	} else {
		status = write_output(&a, spec, buf, len);
	}
	cdi_error_reset(&err);
	free(a.ids);
	return status;
}
