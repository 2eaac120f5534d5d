/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cdi-generate: write the CDI spec of this host's NVIDIA GPUs, and its facts file. Runs at boot;
 * rewrites the files only when their content changes; --check tells whether the files on disk
 * are stale. --load-modules and --create-device-nodes first bring the driver up as
 * nvidia-modprobe would. The command line is a contract (see --help).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cdi/spec.h>

#include "boot/boot_steps.h"
#include "cli.h"
#include "discover/discover.h"
#include "assemble/facts.h"
#include "json_arena.h"
#include "assemble/lib_dir.h"
#include "macro.h"
#include "path_clean.h"
#include "problem.h"
#include "assemble/spec_build.h"
#include "output/spec_write.h"
#include "strv.h"

#define PROG "cdi-generate"
#define DEFAULT_OUTPUT "/etc/cdi/nvidia.yaml"

enum lib_layout {
	LAYOUT_DEFAULT, /* dir for a GPU spec written to a file, else files */
	LAYOUT_FILES,
	LAYOUT_DIR,
};

struct args {
	const char *root, *driver_root, *dev_root;
	const char *output;
	char *output_buf; /* a mode's default output */
	int format;	  /* -1: from the extension */
	bool check;
	bool no_facts;
	struct boot_options boot;
	enum lib_layout lib_layout; /* --library-layout */
	const char *lib_dir;	    /* --library-dir */
	struct discover_options discover;
	struct spec_options spec;
	struct strv_builder ids;
};

static void usage(void)
{
	fputs("Usage: " PROG " [OPTION]...\n"
	      "Write the CDI spec of this host's NVIDIA GPUs (no hooks), and beside it the facts\n"
	      "file (FILE.cdikit) the runtime reads for NVIDIA_DRIVER_CAPABILITIES and\n"
	      "NVIDIA_REQUIRE_*.\n"
	      "\n"
	      "  --root DIR            host root: /dev, /proc, /sys, ld.so.cache, driver files (default /)\n"
	      "  --driver-root DIR     where the driver's files are (default: --root)\n"
	      "  --dev-root DIR        where /dev is (default: --root)\n"
	      "  --nvml-lib PATH       libnvidia-ml to load (default: libnvidia-ml.so.1 found through\n"
	      "                        the driver root's ld.so.cache, then its library directories)\n"
	      "  -o, --output FILE|-   where to write (default " DEFAULT_OUTPUT "); - is stdout\n"
	      "                        (then no facts file)\n"
	      "      --no-facts        do not write (or --check) FILE.cdikit\n"
	      "  --format yaml|json    output format (default: json for *.json, else yaml)\n"
	      "  --vendor V            kind vendor (default nvidia.com)\n"
	      "  --class C             kind class (default gpu)\n"
	      "  --device-name-strategy S[,S]...\n"
	      "                        index (0, 0:1), uuid (GPU-..., MIG-...), type-index (gpu0,\n"
	      "                        mig0:1); repeatable (default index,uuid)\n"
	      "  --device-id ID        describe only this device: index, g:m, gpuN, migG:M, UUID or\n"
	      "                        PCI bus id, or none; repeatable (default: every device)\n"
	      "  --no-all-device       leave out the \"all\" and \"none\" devices\n"
	      "  --mode MODE           auto (wsl on WSL2, csv on Jetson, else nvml if NVML loads,\n"
	      "                        else procfs), nvml, procfs (full GPUs from /proc, no MIG),\n"
	      "                        management (one \"all\" device with every NVIDIA device node)\n"
	      "                        (default auto); the GPU spec of WSL2 (wsl) or a Jetson's CSV\n"
	      "                        files (csv); a spec of its own kind: imex (nvidia.com/\n"
	      "                        imex-channel=N), nvswitch, gds, mofed, gdrcopy (nvidia.com/\n"
	      "                        MODE=all; default output /etc/cdi/nvidia-MODE.yaml)\n"
	      "  --check               write nothing; exit 0 if FILE (and FILE.cdikit) are up to date,\n"
	      "                        1 if they are stale or insecure\n"
	      "  --allow-missing-nodes a device node missing under --dev-root is written with a\n"
	      "                        warning instead of failing (alias --allow-missing-caps)\n"
	      "  --with-device-numbers add type, major, minor, fileMode to device nodes (they go stale\n"
	      "                        when a reboot moves a dynamic major; the runtime reads them\n"
	      "                        from the host when they are absent)\n"
	      "  --load-modules        first load nvidia, nvidia_uvm, nvidia_modeset (libkmod,\n"
	      "                        modprobe.d honoured)\n"
	      "  --create-device-nodes first make the device nodes the driver does not make itself\n"
	      "                        (nvidiactl, nvidia-uvm, nvidia-caps/...), as nvidia-modprobe\n"
	      "  --modules-dir DIR     the modules tree for --load-modules (default\n"
	      "                        /lib/modules/RELEASE under the driver root)\n"
	      "  --dry-run             with --load-modules/--create-device-nodes: say what they\n"
	      "                        would load and make, change nothing, write no spec\n"
	      "  --library-layout dir|files\n"
	      "                        dir (default for a GPU spec written to a file): the driver's\n"
	      "                        files in one directory mounted at /usr/local/nvidia (lib64,\n"
	      "                        lib, bin), where CUDA images' LD_LIBRARY_PATH and PATH look,\n"
	      "                        plus the libcuda, NVML, JIT and NVVM sonames in the linker's\n"
	      "                        directories and nvidia-smi in /usr/bin; files (the default\n"
	      "                        with --output -): every file and name a mount of its own\n"
	      "  --library-dir DIR     where the dir layout builds the directory (default: FILE\n"
	      "                        without .yaml/.json, plus .lib, when that is on the driver's\n"
	      "                        filesystem, else ROOT/var/lib/cdikit/); implies the dir layout\n"
	      "  --no-additional-gids  leave out the groups of device nodes only a group may use\n"
	      "                        (DRI nodes, root:video/render 0660) and so keep cdiVersion\n"
	      "                        0.5.0: podman before 5 cannot load a 0.7.0 spec\n"
	      "  --no-ipc              leave out the IPC sockets (persistenced, fabricmanager) and\n"
	      "                        the MPS pipe directory: gVisor cannot bind-mount sockets\n"
	      "  -q, --quiet           errors only\n"
	      "  -v, --verbose         say more\n"
	      "  -h, --help            this text\n"
	      "  -V, --version         the version\n"
	      "\n"
	      "The spec has a device \"none\" (the driver's files and control nodes, no GPU) for\n"
	      "NVIDIA_VISIBLE_DEVICES=none.\n"
	      "\n"
	      "Exit status: 0 success (or up to date), 1 error (or stale), 2 usage error.\n",
	      stdout);
}

enum {
	OPT_ROOT = 256,
	OPT_DRIVER_ROOT,
	OPT_DEV_ROOT,
	OPT_NVML_LIB,
	OPT_FORMAT,
	OPT_VENDOR,
	OPT_CLASS,
	OPT_STRATEGY,
	OPT_DEVICE_ID,
	OPT_NO_ALL,
	OPT_MODE,
	OPT_CHECK,
	OPT_ALLOW_MISSING,
	OPT_NUMBERS,
	OPT_NO_FACTS,
	OPT_LOAD_MODULES,
	OPT_CREATE_NODES,
	OPT_MODULES_DIR,
	OPT_DRY_RUN,
	OPT_LIB_LAYOUT,
	OPT_LIB_DIR,
	OPT_NO_GIDS,
	OPT_NO_IPC,
};

static const struct option options[] = {
	{ "root", required_argument, NULL, OPT_ROOT },
	{ "driver-root", required_argument, NULL, OPT_DRIVER_ROOT },
	{ "dev-root", required_argument, NULL, OPT_DEV_ROOT },
	{ "nvml-lib", required_argument, NULL, OPT_NVML_LIB },
	{ "output", required_argument, NULL, 'o' },
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
	{ "no-facts", no_argument, NULL, OPT_NO_FACTS },
	{ "load-modules", no_argument, NULL, OPT_LOAD_MODULES },
	{ "create-device-nodes", no_argument, NULL, OPT_CREATE_NODES },
	{ "modules-dir", required_argument, NULL, OPT_MODULES_DIR },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "library-layout", required_argument, NULL, OPT_LIB_LAYOUT },
	{ "library-dir", required_argument, NULL, OPT_LIB_DIR },
	{ "no-additional-gids", no_argument, NULL, OPT_NO_GIDS },
	{ "no-ipc", no_argument, NULL, OPT_NO_IPC },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ 0 },
};

/* A root option's value: "" would quietly mean "/", so it is refused by name. */
static int root_option(const char *name, const char *value, const char **ret)
{
	if (!*value)
		return cli_usage_error("--%s: the path is empty", name);
	*ret = value;
	return 0;
}

static int parse_mode(const char *s, enum gen_mode *ret)
{
	for (enum gen_mode m = MODE_AUTO; gen_mode_name(m); m++)
		if (strcmp(s, gen_mode_name(m)) == 0) {
			*ret = m;
			return 0;
		}
	return cli_usage_error(
		"--mode: unknown mode \"%s\" (auto, nvml, procfs, management, wsl, csv, imex, nvswitch, gds, mofed, gdrcopy)",
		s);
}

/* The switch an option without an argument turns on, or NULL. */
static bool *flag_of(int c, struct args *a)
{
	const struct {
		int option;
		bool *flag;
	} flags[] = {
		{ OPT_NO_ALL, &a->spec.no_all_device },
		{ OPT_CHECK, &a->check },
		{ OPT_ALLOW_MISSING, &a->spec.allow_missing_nodes },
		{ OPT_NUMBERS, &a->spec.with_device_numbers },
		{ OPT_NO_FACTS, &a->no_facts },
		{ OPT_LOAD_MODULES, &a->boot.load_modules },
		{ OPT_CREATE_NODES, &a->boot.create_nodes },
		{ OPT_DRY_RUN, &a->boot.dry_run },
		{ OPT_NO_GIDS, &a->spec.no_additional_gids },
		{ OPT_NO_IPC, &a->discover.no_ipc },
	};

	for (size_t i = 0; i < ELEMENTSOF(flags); i++)
		if (flags[i].option == c)
			return flags[i].flag;
	return NULL;
}

/* One option (not help or version); 0, or the exit status of a usage error. */
static int handle_option(int c, struct args *a)
{
	struct cdi_error e = { 0 };
	bool *flag = flag_of(c, a);

	if (flag) {
		*flag = true;
		return 0;
	}
	switch (c) {
	case OPT_ROOT:
		return root_option("root", optarg, &a->root);
	case OPT_DRIVER_ROOT:
		return root_option("driver-root", optarg, &a->driver_root);
	case OPT_DEV_ROOT:
		return root_option("dev-root", optarg, &a->dev_root);
	case OPT_MODULES_DIR:
		return root_option("modules-dir", optarg, &a->boot.modules_dir);
	case OPT_NVML_LIB:
		a->discover.nvml_lib = optarg;
		return 0;
	case 'o':
		if (!*optarg)
			return cli_usage_error("--output: the path is empty");
		a->output = optarg;
		return 0;
	case OPT_FORMAT:
		if (!strcasecmp(optarg, "yaml") || !strcasecmp(optarg, "yml"))
			a->format = CDI_FORMAT_YAML;
		else if (!strcasecmp(optarg, "json"))
			a->format = CDI_FORMAT_JSON;
		else
			return cli_usage_error("--format: \"%s\" is neither yaml nor json", optarg);
		return 0;
	case OPT_VENDOR:
		a->spec.vendor = optarg;
		return 0;
	case OPT_CLASS:
		a->spec.class_name = optarg;
		return 0;
	case OPT_STRATEGY:
		if (name_strategies_parse(optarg, &a->spec.name_strategies, &e) < 0) {
			int r = cli_usage_error("%s", cdi_error_message(&e));

			cdi_error_reset(&e);
			return r;
		}
		return 0;
	case OPT_DEVICE_ID:
		if (strv_builder_add(&a->ids, optarg) < 0) {
			cli_error("out of memory");
			return CLI_EXIT_PROBLEM;
		}
		return 0;
	case OPT_MODE:
		return parse_mode(optarg, &a->discover.mode);
	case OPT_LIB_LAYOUT:
		if (strcmp(optarg, "files") && strcmp(optarg, "dir"))
			return cli_usage_error("--library-layout: \"%s\" is neither files nor dir",
					       optarg);
		a->lib_layout = strcmp(optarg, "dir") == 0 ? LAYOUT_DIR : LAYOUT_FILES;
		return 0;
	case OPT_LIB_DIR:
		if (!*optarg)
			return cli_usage_error("--library-dir: the path is empty");
		a->lib_dir = optarg;
		a->lib_layout = LAYOUT_DIR;
		return 0;
	case 'q':
		cli_set_level(CLI_QUIET);
		return 0;
	case 'v':
		cli_set_level(CLI_VERBOSE);
		return 0;
	default:
		return cli_usage_error("unknown option or missing argument: %s",
				       optarg ? optarg : "");
	}
}

/* What a mode implies: its kind's class (nvidia-ctk's), its file, the options it takes. */
static int finish_mode(struct args *a)
{
	enum gen_mode m = a->discover.mode;
	/* Modes with the one device "all" (imex and csv have others). */
	bool all_only = m == MODE_MANAGEMENT || m == MODE_WSL || m >= MODE_NVSWITCH;

	if (a->ids.n > 0 && m >= MODE_MANAGEMENT)
		return cli_usage_error("--device-id: --mode %s describes every device it finds",
				       gen_mode_name(m));
	if (a->spec.no_all_device && all_only)
		return cli_usage_error("--mode %s has only the \"all\" device", gen_mode_name(m));
	if (!a->spec.class_name && m == MODE_IMEX)
		a->spec.class_name = "imex-channel";
	else if (!a->spec.class_name && m >= MODE_NVSWITCH)
		a->spec.class_name = gen_mode_name(m);
	/* Not over the GPU spec: each kind in a file of its own. */
	if (!a->output && m >= MODE_IMEX) {
		if (asprintf(&a->output_buf, "/etc/cdi/nvidia-%s.yaml", gen_mode_name(m)) < 0) {
			cli_error("out of memory");
			return CLI_EXIT_PROBLEM;
		}
		a->output = a->output_buf;
	}
	if (!a->output)
		a->output = DEFAULT_OUTPUT;
	return 0;
}

/* Options that make sense only together, and what follows from the output name. */
static int finish_args(struct args *a)
{
	int r;

	r = finish_mode(a);
	if (r != 0)
		return r;
	if (a->check && strcmp(a->output, "-") == 0)
		return cli_usage_error("--check needs a file, not --output -");
	if (a->boot.dry_run && !a->boot.load_modules && !a->boot.create_nodes)
		return cli_usage_error("--dry-run needs --load-modules or --create-device-nodes");
	if (a->boot.dry_run && a->check)
		return cli_usage_error("--dry-run writes no spec: --check has nothing to check");
	if (a->boot.modules_dir && !a->boot.load_modules)
		return cli_usage_error("--modules-dir needs --load-modules");
	if (a->lib_layout == LAYOUT_DIR && !a->lib_dir && strcmp(a->output, "-") == 0)
		return cli_usage_error("--library-layout dir with --output - needs --library-dir");
	/* A spec on stdout is for reading: no directory is built for it unless asked. */
	if (a->lib_layout == LAYOUT_DEFAULT && strcmp(a->output, "-") == 0)
		a->lib_layout = LAYOUT_FILES;
	a->spec.management = a->discover.mode == MODE_MANAGEMENT;
	a->spec.capabilities = !a->no_facts && strcmp(a->output, "-") != 0;
	a->spec.device_ids = (const char *const *)a->ids.v;
	a->spec.n_device_ids = a->ids.n;
	if (a->format < 0) {
		size_t n = strlen(a->output);

		a->format = n >= 5 && strcmp(a->output + n - 5, ".json") == 0 ? CDI_FORMAT_JSON
									      : CDI_FORMAT_YAML;
	}
	return 0;
}

/* 0 to go on; -1 when done (help, version: exit 0); else the exit status. */
static int parse_args(int argc, char **argv, struct args *a)
{
	int c, r;

	a->format = -1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:qvhV", options, NULL)) != -1) {
		if (c == 'h') {
			usage();
			return -1;
		}
		if (c == 'V') {
			cli_print_version();
			return -1;
		}
		if (c == '?' || c == ':')
			return cli_usage_error("unknown option or missing argument: %s",
					       argv[optind - 1]);
		r = handle_option(c, a);
		if (r != 0)
			return r;
	}
	if (optind < argc)
		return cli_usage_error("unexpected argument: %s", argv[optind]);
	return finish_args(a);
}

/*
 * A root as an absolute path without a trailing slash ("" for "/"), cleaned lexically as Go's
 * filepath.Clean does (a symlink in the path the user gave stays as given); it must be a
 * directory that exists.
 */
static int normalize_root(const char *option, const char *in, char **ret)
{
	_cleanup_free_ char *r = NULL;
	struct stat st;
	size_t n;

	if (!in)
		in = "/";
	r = in[0] != '/' ? realpath(in, NULL) : cdi_path_clean(in);
	if (!r && in[0] != '/') {
		cli_error("--%s %s: %s", option, in, strerror(errno));
		return CLI_EXIT_PROBLEM;
	}
	if (!r) {
		cli_error("out of memory");
		return CLI_EXIT_PROBLEM;
	}
	if (stat(r, &st) < 0) {
		cli_error("--%s %s: %s", option, in, strerror(errno));
		return CLI_EXIT_PROBLEM;
	}
	if (!S_ISDIR(st.st_mode)) {
		cli_error("--%s %s: not a directory", option, in);
		return CLI_EXIT_PROBLEM;
	}
	n = strlen(r);
	while (n > 0 && r[n - 1] == '/')
		r[--n] = '\0';
	*ret = TAKE_PTR(r);
	return 0;
}

/* What the run did, in one line on stderr (stdout may be the spec), unless --quiet. */
static void summary(const char *what, const struct spec_result *res)
{
	if (cli_level() < CLI_NORMAL)
		return;
	fprintf(stderr, "%s: %s: %zu device%s, %zu device node%s, %zu mount%s\n", cli_program(),
		what, res->n_devices, res->n_devices == 1 ? "" : "s", res->n_nodes,
		res->n_nodes == 1 ? "" : "s", res->n_mounts, res->n_mounts == 1 ? "" : "s");
}

/* Write (or --check) the files; the exit status. */
static int output(const struct args *a, const struct spec_result *res, const struct spec_files *f,
		  const struct lib_dir *ld)
{
	struct cdi_error err = { 0 };
	enum spec_write_result written;
	_cleanup_free_ char *what = NULL;
	char reason[1024];
	bool fresh = false;
	int r;

	if (strcmp(a->output, "-") == 0) {
		if (fwrite(f->spec, 1, f->spec_len, stdout) != f->spec_len || fflush(stdout) != 0)
			return cli_close_stdout();
		summary("wrote the spec to standard output", res);
		return 0;
	}
	if (a->check)
		r = spec_files_check(f, res->spec, &fresh, reason, sizeof(reason), &err);
	else
		r = spec_files_write(f, &written, &err);
	if (r < 0) {
		cli_print_problems(&err, "");
		cdi_error_reset(&err);
		return CLI_EXIT_PROBLEM;
	}
	if (a->check) {
		/* The library directory is checked next; it says whether all is up to date. */
		if (!fresh)
			printf("%s is stale: %s\n", a->output, reason);
		else if (!ld)
			printf("%s is up to date\n", a->output);
		return fresh ? 0 : CLI_EXIT_PROBLEM;
	}
	if (written == SPEC_WRITTEN)
		r = asprintf(&what, "wrote %s%s", a->output, f->facts ? " and its facts file" : "");
	else
		r = asprintf(&what, "%s%s up to date", a->output,
			     f->facts ? " and its facts file are" : " is");
	if (r < 0)
		what = NULL;
	summary(what ? what : a->output, res);
	return 0;
}

/* The directory's two default places: beside the spec, and ROOT/var/lib/cdikit (a spec in
 * /var/run/cdi is on a tmpfs) named after the spec's path: /var/run/cdi/nvidia.yaml →
 * var-run-cdi-nvidia.lib. */
static int default_lib_dirs(const struct args *a, const struct gen_host *host, char *ret[2],
			    struct cdi_error *err)
{
	_cleanup_free_ char *beside = NULL, *abs = NULL, *cwd = NULL, *named = NULL;
	int r;

	r = lib_dir_default_path(a->output, &beside, err);
	if (r < 0)
		return r;
	if (beside[0] != '/') {
		cwd = getcwd(NULL, 0);
		if (!cwd || asprintf(&abs, "%s/%s", cwd, beside) < 0)
			return cdi_fail(err, -ENOMEM, "%s: cannot make the path absolute", beside);
	}
	named = cdi_path_clean(abs ? abs : beside);
	if (!named)
		return cdi_fail(err, -ENOMEM, "out of memory");
	ret[0] = strdup(named);
	for (char *c = named + 1; *c; c++)
		if (*c == '/')
			*c = '-';
	if (!ret[0] || asprintf(&ret[1], "%s/var/lib/cdikit/%s", host->root, named + 1) < 0) {
		free(ret[0]);
		ret[0] = ret[1] = NULL;
		return cdi_fail(err, -ENOMEM, "out of memory");
	}
	return 0;
}

/* Bind mounts made here reach the engines only in init's mount namespace (a systemd unit with
 * ProtectHome= or PrivateTmp= runs in one of its own). */
static bool same_mount_ns_as_init(void)
{
	struct stat self, init;

	return stat("/proc/self/ns/mnt", &self) == 0 && stat("/proc/1/ns/mnt", &init) == 0 &&
	       self.st_dev == init.st_dev && self.st_ino == init.st_ino;
}

/*
 * The default layout's directory: of hard links beside the spec, else in ROOT/var/lib/cdikit,
 * else (in init's mount namespace) of bind mounts beside the spec. None of them: 0 with ld
 * empty, and a warning: the spec mounts each file on its own.
 */
static int plan_default_lib_dir(const struct args *a, const struct gen_host *host,
				const struct inventory *inv, struct lib_dir *ld,
				struct cdi_error *warn, struct cdi_error *err)
{
	char *paths[2] = { NULL, NULL }, why[2][512] = { "", "" };
	bool bind = same_mount_ns_as_init();
	int r;

	r = default_lib_dirs(a, host, paths, err);
	for (int pass = 0; r >= 0 && pass < (bind ? 3 : 2); pass++) {
		struct lib_dir try = { 0 };

		r = lib_dir_plan(inv, paths[pass % 2], &try, err);
		if (r < 0)
			break;
		if (lib_dir_placeable(&try, pass == 2, why[pass % 2], sizeof(why[0]))) {
			*ld = try;
			goto out;
		}
		lib_dir_clear(&try);
	}
	if (r >= 0)
		cdi_problem_add(
			warn, 0, NULL, 0, 0, NULL,
			"no library directory (beside the spec: %s; in %s: %s): every driver file is a mount of its own (--library-dir DIR on the driver's filesystem builds one)",
			why[0], paths[1], why[1]);
out:
	free(paths[0]);
	free(paths[1]);
	return r;
}

/* The dir layout: where the directory goes (absolute: it is a hostPath), what it holds, and the
 * inventory's files mounted from it. */
static int plan_lib_dir(const struct args *a, const struct gen_host *host, struct inventory *inv,
			struct lib_dir *ld, struct cdi_error *warn, struct cdi_error *err)
{
	_cleanup_free_ char *cwd = NULL, *abs = NULL, *clean = NULL;
	int r;

	if (a->lib_dir) {
		if (a->lib_dir[0] != '/') {
			cwd = getcwd(NULL, 0);
			if (!cwd || asprintf(&abs, "%s/%s", cwd, a->lib_dir) < 0)
				return cdi_fail(err, -ENOMEM, "%s: cannot make the path absolute",
						a->lib_dir);
		}
		clean = cdi_path_clean(abs ? abs : a->lib_dir);
		if (!clean)
			return cdi_fail(err, -ENOMEM, "out of memory");
		r = lib_dir_plan(inv, clean, ld, err);
	} else if (a->lib_layout == LAYOUT_DIR) {
		char *paths[2] = { NULL, NULL };

		r = default_lib_dirs(a, host, paths, err);
		if (r >= 0)
			r = lib_dir_plan(inv, paths[0], ld, err);
		free(paths[0]);
		free(paths[1]);
	} else {
		r = plan_default_lib_dir(a, host, inv, ld, warn, err);
	}
	return r < 0 || !ld->path ? r : lib_dir_layout(inv, ld, err);
}

static bool has_libraries(const struct inventory *inv)
{
	for (size_t i = 0; i < inv->n_files; i++)
		if (inv->files[i].kind == INV_LIBRARY)
			return true;
	return false;
}

/* The library directory written (or --check'ed) before the spec that names it: 0 to go on, else
 * the exit status. */
static int lib_dir_output(const struct args *a, const struct lib_dir *ld)
{
	static const char *const how[] = {
		"is up to date", "built of hard links",
		"built of bind mounts (not on the driver's filesystem)"
	};
	struct cdi_error err = { 0 };
	enum lib_dir_result res = LIB_DIR_UNCHANGED;
	char reason[512];
	bool fresh = true;
	int r;

	if (a->check)
		r = lib_dir_check(ld, &fresh, reason, sizeof(reason), &err);
	else
		r = lib_dir_write(ld, same_mount_ns_as_init(), &res, &err);
	if (r < 0) {
		cli_print_problems(&err, "");
		cdi_error_reset(&err);
		return CLI_EXIT_PROBLEM;
	}
	if (!fresh) {
		printf("%s is stale: %s\n", a->output, reason);
		return CLI_EXIT_PROBLEM;
	}
	if (a->check)
		printf("%s is up to date\n", a->output);
	else
		cli_info("library directory %s %s (%zu names)", ld->path, how[res], ld->n_links);
	return 0;
}

/* -v: what discovery found. */
static void say_found(const struct inventory *inv)
{
	size_t migs = 0, libs = 0, lib32 = 0;
	char cuda[32] = "unknown";

	for (size_t i = 0; i < inv->n_gpus; i++)
		migs += inv->gpus[i].n_migs;
	for (size_t i = 0; i < inv->n_files; i++) {
		libs += inv->files[i].kind == INV_LIBRARY;
		lib32 += inv->files[i].kind == INV_LIBRARY && inv->files[i].is32;
	}
	if (inv->n_devices > 0) {
		cli_info("%zu devices, %zu device nodes, %zu files", inv->n_devices, inv->n_nodes,
			 inv->n_files);
		return;
	}
	inventory_cuda_version(inv, cuda, sizeof(cuda));
	cli_info("driver %s, CUDA %s: %zu GPUs, %zu MIG devices, %zu device nodes",
		 inv->driver_version, cuda, inv->n_gpus, migs, inv->n_nodes);
	cli_info("driver files: %zu libraries (%zu 32-bit), %zu others", libs, lib32,
		 inv->n_files - libs);
}

/* The directory's record in the facts (lib_dir_facts()), for cdi-runtime. */
static int add_lib_dir_facts(const struct lib_dir *ld, json_t *facts, struct cdi_error *err)
{
	json_t *rec = NULL;
	int r;

	r = lib_dir_facts(ld, &rec, err);
	if (r >= 0 && json_object_set_new(facts, "libraryTree", rec) < 0)
		r = cdi_fail(err, -ENOMEM, "out of memory");
	return r;
}

/* Nothing is built for a spec that cannot be written: the exit status. */
static int preflight(const struct spec_files *f)
{
	struct cdi_error err = { 0 };

	if (spec_files_preflight(f, &err) >= 0)
		return 0;
	cli_print_problems(&err, "");
	cdi_error_reset(&err);
	return CLI_EXIT_PROBLEM;
}

/* Discover, assemble, emit, write: the exit status. */
static int run(const struct args *a, const struct gen_host *host)
{
	struct inventory inv = { 0 };
	struct spec_result res = { 0 };
	struct cdi_error err = { 0 }, warn = { 0 };
	_cleanup_json_ json_t *facts = NULL;
	_cleanup_free_ char *buf = NULL, *facts_buf = NULL;
	struct spec_files f = { .path = a->output };
	bool want_facts = a->spec.capabilities;
	struct lib_dir ld = { 0 };
	int r, status;

	r = discover(host, &a->discover, &inv, &warn, &err);
	if (r >= 0)
		say_found(&inv);
	/* The facts are a driver's spec's (GPU, WSL, Jetson), the directory a GPU spec's: the
	 * other kinds have none to tell. */
	want_facts = want_facts && inv.has_driver;
	if (r >= 0 && (a->lib_layout == LAYOUT_DIR || (a->lib_layout == LAYOUT_DEFAULT &&
						       inv.n_devices == 0 && has_libraries(&inv))))
		r = plan_lib_dir(a, host, &inv, &ld, &warn, &err);
	if (r >= 0)
		r = spec_build(&inv, &a->spec, &res, &warn, &err);
	if (r >= 0)
		r = cdi_spec_emit(res.spec, (enum cdi_format)a->format, &buf, &f.spec_len, &err);
	if (r >= 0 && want_facts)
		r = facts_build(&inv, &a->spec, &res, &facts, &err);
	if (r >= 0 && want_facts && ld.path)
		r = add_lib_dir_facts(&ld, facts, &err);
	if (r >= 0 && want_facts)
		r = facts_emit(facts, &facts_buf, &f.facts_len, &err);
	if (cli_level() >= CLI_NORMAL)
		cli_print_problems(&warn, "warning: ");
	if (r < 0) {
		cli_print_problems(&err, "");
		status = CLI_EXIT_PROBLEM;
	} else {
		f.spec = buf;
		f.facts = facts_buf;
		f.tree = res.spec; /* spec_build() checked it strictly */
		f.facts_tree = facts;
		/* Written: the directory before the spec that names it. Checked: the spec first, so
		 * that a missing spec is said to be missing. */
		if (a->check) {
			status = output(a, &res, &f, ld.path ? &ld : NULL);
			if (status == 0 && ld.path)
				status = lib_dir_output(a, &ld);
		} else {
			status = ld.path ? preflight(&f) : 0;
			if (status == 0 && ld.path)
				status = lib_dir_output(a, &ld);
			if (status == 0)
				status = output(a, &res, &f, NULL);
		}
	}
	lib_dir_clear(&ld);
	cdi_error_reset(&warn);
	cdi_error_reset(&err);
	spec_result_clear(&res);
	inventory_clear(&inv);
	return status;
}

int main(int argc, char **argv)
{
	struct args a = { 0 };
	_cleanup_free_ char *root = NULL, *driver_root = NULL, *dev_root = NULL;
	struct gen_host host;
	int status;

	cli_init(PROG);
	json_arena_install();
	status = parse_args(argc, argv, &a);
	if (status == 0)
		status = normalize_root("root", a.root, &root);
	if (status == 0)
		status = normalize_root("driver-root", a.driver_root ? a.driver_root : a.root,
					&driver_root);
	if (status == 0)
		status = normalize_root("dev-root", a.dev_root ? a.dev_root : a.root, &dev_root);
	if (status == 0) {
		host = (struct gen_host){ .root = root,
					  .driver_root = driver_root,
					  .dev_root = dev_root };
		/* Before discovery: what it finds depends on what these load and make. */
		status = boot_steps_run(&host, &a.boot);
		if (status == 0 && !a.boot.dry_run)
			status = run(&a, &host);
	}
	strv_builder_clear(&a.ids);
	free(a.output_buf);
	return status < 0 ? 0 : status;
}
