/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nvidia-cdi-hook, as cdikit ships it: NVIDIA's createContainer hook commands (their
 * cmd/nvidia-cdi-hook, v1.20) for the CDI specs nvidia-ctk and NVIDIA's DRA driver write, with
 * the same command line and the same result in the container, in one short C process and
 * without running ldconfig. Runtimes call it with the container's state on stdin, in the
 * container's mount namespace, after its mounts and before pivot_root.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "hook/hook_chmod.h"
#include "hook/hook_compat.h"
#include "hook/hook_flags.h"
#include "hook/hook_ldcache.h"
#include "hook/hook_params.h"
#include "hook/hook_profile.h"
#include "hook/hook_state.h"
#include "hook/hook_symlinks.h"
#include "macro.h"
#include "problem.h"

#define PROG "nvidia-cdi-hook"

struct command;
typedef int (*command_fn)(const struct command *c, struct hook_flag_value *v,
			  struct cdi_error *warnings, struct cdi_error *err);

struct command {
	const char *name;
	const char *usage; /* after the command's name */
	const char *summary;
	const struct hook_flag *flags; /* the last is --container-spec, then --help */
	size_t n_flags;
	command_fn run;
};

#define SPEC_FLAG                                                                                  \
	{ "container-spec", NULL, HOOK_FLAG_STRING, "FILE",                                        \
	  "the container's OCI state (default: stdin, from the runtime)" },                        \
	{                                                                                          \
		"help", "h", HOOK_FLAG_BOOL, NULL, "show this help"                                \
	}
/* Indexes of those two: the last two flags of every table. */
#define SPEC(c) ((c)->n_flags - 2)
#define HELP(c) ((c)->n_flags - 1)

static const struct hook_flag ldcache_flags[] = {
	{ "folder", NULL, HOOK_FLAG_LIST, "DIR",
	  "a container directory for the linker's path (repeatable)" },
	{ "ldconfig-path", NULL, HOOK_FLAG_STRING, "PATH",
	  "accepted and ignored: no ldconfig runs, the cache is written here" },
	SPEC_FLAG,
};
static const struct hook_flag symlinks_flags[] = {
	{ "link", NULL, HOOK_FLAG_LIST, "TARGET::LINK",
	  "make LINK (a container path) a link to TARGET (repeatable)" },
	SPEC_FLAG,
};
static const struct hook_flag compat_flags[] = {
	{ "host-driver-version", NULL, HOOK_FLAG_STRING, "V", "the host driver's version" },
	{ "host-cuda-version", NULL, HOOK_FLAG_STRING, "V",
	  "the host driver's CUDA version (without a driver version)" },
	{ "cuda-compat-container-root", NULL, HOOK_FLAG_STRING, "DIR",
	  "the image's compat libraries (default " COMPAT_DEFAULT_ROOT ")" },
	SPEC_FLAG,
};
static const struct hook_flag plain_flags[] = {
	SPEC_FLAG,
};
static const struct hook_flag chmod_flags[] = {
	{ "mode", NULL, HOOK_FLAG_STRING, "MODE", "the octal mode to give" },
	{ "path", NULL, HOOK_FLAG_LIST, "PATH", "a container path to change (repeatable)" },
	SPEC_FLAG,
};

/* The container's root, or a problem. */
static int load_root(const struct command *c, struct hook_flag_value *v, struct hook_root *root,
		     struct cdi_error *err)
{
	int r = hook_root_load(v[SPEC(c)].text, root, err);

	if (r >= 0)
		cli_info("%s: the container's root is %s", c->name, root->path);
	return r;
}

static void hook_root_donep(struct hook_root *r)
{
	hook_root_done(r);
}
#define _cleanup_root_ __attribute__((cleanup(hook_root_donep)))

static int run_ldcache(const struct command *c, struct hook_flag_value *v,
		       struct cdi_error *warnings, struct cdi_error *err)
{
	struct hook_root root _cleanup_root_ = { .fd = -1 };
	struct stat st;
	struct hook_ldcache o = {
		.folders = v[0].list.v,
		.n_folders = v[0].list.n,
		/* The host's /: a createContainer hook runs before pivot_root. */
		.debian_host = stat("/etc/debian_version", &st) == 0 && S_ISREG(st.st_mode),
	};
	int r = load_root(c, v, &root, err);

	return r < 0 ? r : hook_update_ldcache(root.fd, &o, warnings, err);
}

static int run_symlinks(const struct command *c, struct hook_flag_value *v,
			struct cdi_error *warnings, struct cdi_error *err)
{
	struct hook_root root _cleanup_root_ = { .fd = -1 };
	int r;

	(void)warnings;
	if (v[0].list.n == 0)
		return 0;
	r = load_root(c, v, &root, err);
	return r < 0 ? r : hook_create_symlinks(root.fd, v[0].list.v, v[0].list.n, err);
}

static int run_compat(const struct command *c, struct hook_flag_value *v,
		      struct cdi_error *warnings, struct cdi_error *err)
{
	struct hook_root root _cleanup_root_ = { .fd = -1 };
	struct hook_compat o = {
		.host_driver_version = v[0].text,
		.host_cuda_version = v[1].text,
		.compat_root = v[2].text,
	};
	int r;

	if ((!o.host_driver_version || !*o.host_driver_version) &&
	    (!o.host_cuda_version || !*o.host_cuda_version))
		return 0;
	r = load_root(c, v, &root, err);
	return r < 0 ? r : hook_enable_cuda_compat(root.fd, &o, warnings, err);
}

static int run_params(const struct command *c, struct hook_flag_value *v,
		      struct cdi_error *warnings, struct cdi_error *err)
{
	struct hook_root root _cleanup_root_ = { .fd = -1 };
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	int r;

	(void)warnings;
	/* The driver's own file first: no driver or nothing to change, no container needed. */
	r = hook_params_read(NVIDIA_PARAMS, &text, &len, err);
	if (r <= 0)
		return r;
	r = load_root(c, v, &root, err);
	return r < 0 ? r : hook_params_mount(root.fd, text, len, err);
}

static int run_profile(const struct command *c, struct hook_flag_value *v,
		       struct cdi_error *warnings, struct cdi_error *err)
{
	struct hook_root root _cleanup_root_ = { .fd = -1 };
	int r = load_root(c, v, &root, err);

	return r < 0 ? r : hook_update_application_profile(root.fd, warnings, err);
}

static int run_chmod(const struct command *c, struct hook_flag_value *v, struct cdi_error *warnings,
		     struct cdi_error *err)
{
	struct hook_root root _cleanup_root_ = { .fd = -1 };
	mode_t mode = 0;
	int r;

	(void)warnings;
	r = chmod_mode_parse(v[0].text, &mode, err);
	for (size_t i = 0; r >= 0 && i < v[1].list.n; i++)
		if (!*v[1].list.v[i])
			return cdi_fail(err, -EINVAL, "paths must not be empty");
	if (r >= 0)
		r = load_root(c, v, &root, err);
	return r < 0 ? r : hook_chmod(root.fd, mode, v[1].list.v, v[1].list.n, err);
}

#define TABLE(f) f, ELEMENTSOF(f)
static const struct command commands[] = {
	{ "update-ldcache", "[--folder DIR]... [--ldconfig-path PATH]",
	  "write the container's /etc/ld.so.cache with its soname links, as ldconfig would",
	  TABLE(ldcache_flags), run_ldcache },
	{ "create-symlinks", "[--link TARGET::LINK]...", "make symbolic links in the container",
	  TABLE(symlinks_flags), run_symlinks },
	{ "enable-cuda-compat", "[--host-driver-version V] [--host-cuda-version V]",
	  "put the image's newer CUDA forward-compatibility libraries first", TABLE(compat_flags),
	  run_compat },
	{ "disable-device-node-modification", "",
	  "show the container a driver params file with ModifyDeviceFiles: 0", TABLE(plain_flags),
	  run_params },
	{ "update-application-profile", "",
	  "write the EGL application profile naming the container's GPUs", TABLE(plain_flags),
	  run_profile },
	{ "chmod", "--mode MODE --path PATH...", "change the mode of container paths (deprecated)",
	  TABLE(chmod_flags), run_chmod },
};

static const struct hook_flag global_flags[] = {
	{ "debug", "d", HOOK_FLAG_BOOL, NULL,
	  "say what is done on stderr (also NVIDIA_CTK_DEBUG=true)" },
	{ "verbose", "v", HOOK_FLAG_BOOL, NULL, "the same as --debug" },
	{ "quiet", "q", HOOK_FLAG_BOOL, NULL, "errors only; wins over --debug" },
	{ "help", "h", HOOK_FLAG_BOOL, NULL, "show this help" },
	{ "version", NULL, HOOK_FLAG_BOOL, NULL, "show the version" },
};
enum { G_DEBUG, G_VERBOSE, G_QUIET, G_HELP, G_VERSION };

static void main_help(void)
{
	printf("Usage: " PROG " [--debug] [--quiet] COMMAND [OPTION]...\n"
	       "cdikit's NVIDIA Container Toolkit CDI hook: the createContainer hooks of the CDI\n"
	       "specs nvidia-ctk and NVIDIA's DRA driver write, with NVIDIA's command line\n"
	       "(v1.20), run as one short process each. The container's state comes on stdin.\n"
	       "An unknown command is a warning, not an error, so a newer spec never fails a\n"
	       "container's start.\n\nCommands:\n");
	for (size_t i = 0; i < ELEMENTSOF(commands); i++)
		printf("  %s\n      %s\n", commands[i].name, commands[i].summary);
	printf("\nOptions:\n");
	hook_flags_help(stdout, global_flags, ELEMENTSOF(global_flags));
	printf("\n'" PROG " COMMAND --help' shows a command's options.\n");
}

static void command_help(const struct command *c)
{
	printf("Usage: " PROG " %s %s\n%s.\n\nOptions:\n", c->name, c->usage, c->summary);
	hook_flags_help(stdout, c->flags, c->n_flags);
}

/* NVIDIA_CTK_DEBUG (what nvidia-ctk's specs set), NVIDIA_CDI_DEBUG, NVIDIA_CDI_QUIET. */
static bool env_bool(const char *name)
{
	const char *v = getenv(name);

	return v && go_parse_bool(v) == 1;
}

static void print_warnings(const struct cdi_error *w)
{
	for (size_t i = 0; i < cdi_error_count(w); i++)
		cli_warning("%s", cdi_problem_text(cdi_error_problem(w, i)));
}

static int run_command(const struct command *c, int argc, char **argv)
{
	struct hook_flag_value v[8] = { 0 };
	struct cdi_error err = { 0 }, warnings = { 0 };
	const char *bad = NULL;
	bool missing;
	int r;

	r = hook_flags_parse(argc, argv, c->flags, c->n_flags, v, 0, &bad, &missing);
	if (r == -ENOMEM) {
		cli_error("out of memory");
		return CLI_EXIT_PROBLEM;
	}
	if (r < 0) {
		hook_flag_values_clear(v, c->n_flags);
		return cli_usage_error("%s: %s%s", c->name,
				       missing ? "flag needs an argument: "
					       : "flag provided but not defined: ",
				       bad);
	}
	if (v[HELP(c)].on) {
		command_help(c);
		hook_flag_values_clear(v, c->n_flags);
		return 0;
	}
	r = c->run(c, v, &warnings, &err);
	print_warnings(&warnings);
	if (r < 0)
		cli_print_problems(&err, "");
	cdi_error_reset(&warnings);
	cdi_error_reset(&err);
	hook_flag_values_clear(v, c->n_flags);
	return r < 0 ? CLI_EXIT_PROBLEM : 0;
}

int main(int argc, char **argv)
{
	struct hook_flag_value g[ELEMENTSOF(global_flags)] = { 0 };
	const char *bad = NULL;
	bool missing;
	int first;

	cli_init(PROG);
	first = hook_flags_parse(argc - 1, argv + 1, global_flags, ELEMENTSOF(global_flags), g,
				 HOOK_FLAGS_STOP, &bad, &missing);
	if (first == -ENOMEM)
		return CLI_EXIT_PROBLEM;
	first++;
	if (first <= 0) {
		/* An option of a newer hook before a command we do not know: a newer spec. */
		for (int i = 1; i < argc; i++)
			if (argv[i][0] != '-') {
				for (size_t k = 0; k < ELEMENTSOF(commands); k++)
					if (strcmp(argv[i], commands[k].name) == 0)
						return cli_usage_error(
							"flag provided but not defined: %s", bad);
				cli_warning("unsupported CDI hook: %s", argv[i]);
				return 0;
			}
		return cli_usage_error(
			"%s: %s", missing ? "flag needs an argument" : "unrecognized option", bad);
	}
	if (g[G_HELP].on) {
		main_help();
		return 0;
	}
	if (g[G_VERSION].on)
		return cli_print_version();
	if ((g[G_DEBUG].set ? g[G_DEBUG].on
			    : env_bool("NVIDIA_CTK_DEBUG") || env_bool("NVIDIA_CDI_DEBUG")))
		cli_set_level(CLI_VERBOSE);
	if (g[G_QUIET].set ? g[G_QUIET].on : env_bool("NVIDIA_CDI_QUIET"))
		cli_set_level(CLI_QUIET);
	if (first >= argc) {
		cli_warning("no CDI hook specified");
		return 0;
	}
	for (size_t k = 0; k < ELEMENTSOF(commands); k++)
		if (strcmp(argv[first], commands[k].name) == 0)
			return run_command(&commands[k], argc - first - 1, argv + first + 1);
	cli_warning("unsupported CDI hook: %s", argv[first]);
	return 0;
}
