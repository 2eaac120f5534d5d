/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The NVIDIA kernel modules loaded through libkmod, where nvidia-modprobe spawns
 * /sbin/modprobe: the same lookup, modprobe.d and dependency handling, without a child process,
 * and with every outcome reported to the caller instead of silenced.
 */
#include <errno.h>
#include <libkmod.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <syslog.h>
#include <unistd.h>

#include "array.h"
#include "kmod_load.h"
#include "load.h"
#include "macro.h"
#include "problem.h"
#include "strv.h"
#include "userns.h"

static const char *const module_names[KMOD_LOAD_N_MODULES] = { "nvidia", "nvidia_uvm",
							       "nvidia_modeset" };

/* libkmod's default modprobe.d directories (kmod 30 and later), looked for under a driver root. */
static const char *const config_dirs[] = { "/etc/modprobe.d", "/run/modprobe.d",
					   "/usr/local/lib/modprobe.d", "/usr/lib/modprobe.d",
					   "/lib/modprobe.d" };

static inline void kmod_unrefp(struct kmod_ctx **ctx)
{
	if (*ctx)
		kmod_unref(*ctx);
}
static inline void kmod_module_unrefp(struct kmod_module **mod)
{
	if (*mod)
		kmod_module_unref(*mod);
}
static inline void kmod_module_unref_listp(struct kmod_list **list)
{
	if (*list)
		kmod_module_unref_list(*list);
}

/*
 * libkmod's print_action callback takes no user data: the run in progress is found through
 * this pointer, set around each probe call of this thread only.
 */
static _Thread_local struct kmod_load_result *probe_sink;
static _Thread_local int probe_sink_error;

static bool action_recorded(const struct kmod_load_result *res, const char *module)
{
	for (size_t i = 0; i < res->n_actions; i++)
		if (strcmp(res->actions[i].module, module) == 0)
			return true;
	return false;
}

/* Record one step; libkmod repeats a module reached twice (as a dependency and a softdep). */
static void record_action(struct kmod_module *m, bool install, const char *options)
{
	struct kmod_load_result *res = probe_sink;
	struct kmod_load_action *a;
	const char *path = kmod_module_get_path(m), *cmd = kmod_module_get_install_commands(m);
	size_t n;

	if (!res || action_recorded(res, kmod_module_get_name(m)))
		return;
	if (ARRAY_RESERVE(res->actions, res->cap_actions, res->n_actions + 1) < 0) {
		probe_sink_error = -ENOMEM;
		return;
	}
	/* libkmod joins modprobe.d options and the caller's (none) with a space. */
	n = options ? strlen(options) : 0;
	while (n > 0 && options[n - 1] == ' ')
		n--;
	a = &res->actions[res->n_actions];
	*a = (struct kmod_load_action){
		.module = strdup(kmod_module_get_name(m)),
		.path = path ? strdup(path) : NULL,
		.options = strndup(options ? options : "", n),
		.command = install && cmd ? strdup(cmd) : NULL,
	};
	if (!a->module || !a->options || (path && !a->path) || (install && cmd && !a->command)) {
		free(a->module);
		free(a->path);
		free(a->options);
		free(a->command);
		probe_sink_error = -ENOMEM;
		return;
	}
	res->n_actions++;
}

/*
 * libkmod's messages become warnings (the library must not print); they name what it read. Those
 * of kmod_new itself (a bad modprobe.d line) come before a log function can be set, and go to
 * stderr as libkmod's default, as with modprobe.
 */
static void log_to_problems(void *data, int priority, const char *file _unused_, int line _unused_,
			    const char *fn _unused_, const char *format, va_list args)
{
	_cleanup_free_ char *msg = NULL;
	size_t n;

	if (priority > LOG_ERR || vasprintf(&msg, format, args) < 0)
		return;
	n = strlen(msg);
	while (n > 0 && msg[n - 1] == '\n')
		msg[--n] = '\0';
	cdi_problem_add(data, 0, NULL, 0, 0, NULL, "libkmod: %s", msg);
}

/* The running kernel's release, as <root>/proc/sys/kernel/osrelease says, else uname(). */
static int kernel_release(const char *root, char **ret)
{
	_cleanup_free_ char *path = host_path(root, "/proc/sys/kernel/osrelease"), *buf = NULL;
	struct utsname u;
	size_t n;

	if (!path)
		return -ENOMEM;
	if (cdi_read_file(path, 256, &buf, &n) == 0) {
		while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
			buf[--n] = '\0';
		/* One path component, as it names a directory. */
		if (n > 0 && !strchr(buf, '/') && strcmp(buf, ".") != 0 && strcmp(buf, "..") != 0) {
			*ret = TAKE_PTR(buf);
			return 0;
		}
	}
	if (uname(&u) < 0)
		return negative_errno();
	*ret = strdup(u.release);
	return *ret ? 0 : -ENOMEM;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * kmod_new's arguments: NULL for libkmod's defaults on the host itself, else the modules
 * directory and the modprobe.d directories under the driver root.
 */
static int context_paths(const struct gen_host *host, const struct kmod_load_options *opts,
			 char **ret_dirname, char ***ret_configs)
{
	struct strv_builder configs __attribute__((cleanup(strv_builder_clear))) = { 0 };
	_cleanup_free_ char *release = NULL, *dir = NULL;
	const char *droot = host->driver_root ? host->driver_root : "";
	int r;

	if (droot[0] == '\0') {
		*ret_dirname = opts->modules_dir ? strdup(opts->modules_dir) : NULL;
		*ret_configs = NULL;
		return opts->modules_dir && !*ret_dirname ? -ENOMEM : 0;
	}
	for (size_t i = 0; i < ELEMENTSOF(config_dirs); i++)
		if (strv_builder_take(&configs, host_path(droot, config_dirs[i])) < 0)
			return -ENOMEM;
	if (opts->modules_dir) {
		dir = strdup(opts->modules_dir);
	} else {
		r = kernel_release(host->root, &release);
		if (r < 0)
			return r;
		if (asprintf(&dir, "%s/lib/modules/%s", droot, release) < 0)
			return -ENOMEM;
		/* A merged /usr has them in usr/lib/modules; a tree with neither is named by the
		 * first. */
		if (!is_dir(dir)) {
			_cleanup_free_ char *usr = NULL;

			if (asprintf(&usr, "%s/usr/lib/modules/%s", droot, release) < 0)
				return -ENOMEM;
			if (is_dir(usr)) {
				free(dir);
				dir = TAKE_PTR(usr);
			}
		}
	}
	if (!dir)
		return -ENOMEM;
	*ret_configs = strv_builder_steal(&configs, NULL);
	if (!*ret_configs)
		return -ENOMEM;
	*ret_dirname = TAKE_PTR(dir);
	return 0;
}

/* Live (or coming, or built in) by the kernel's word in /sys/module: the state, else -ENOENT. */
static int live_state(struct kmod_module *mod, enum kmod_load_state *ret)
{
	int s = kmod_module_get_initstate(mod);

	if (s == KMOD_MODULE_BUILTIN) {
		*ret = KMOD_LOAD_BUILTIN;
		return 0;
	}
	if (s == KMOD_MODULE_LIVE || s == KMOD_MODULE_COMING) {
		*ret = KMOD_LOAD_LOADED;
		return 0;
	}
	return -ENOENT;
}

static const char *insert_error(int r)
{
	switch (r) {
	case -ENODEV:
		return "No such device (no GPU this driver supports? see dmesg)";
	case -ENOEXEC:
		return "Invalid module format (built for another kernel?)";
	case -ENOENT:
		return "Unknown symbol in module, or unknown parameter (see dmesg)";
	case -EKEYREJECTED:
		return "Key was rejected by service (Secure Boot: the module is not signed with an enrolled key)";
	default:
		return strerror(-r);
	}
}

struct run {
	struct kmod_ctx *ctx;
	const struct kmod_load_options *opts;
	struct kmod_load_result *res;
	struct cdi_error *warn, *err;
};

/* Probe one module found by lookup; its state. Its failure goes to e. */
static enum kmod_load_state probe_one(struct run *run, const char *name, struct kmod_module *mod,
				      struct cdi_error *e)
{
	unsigned flags = KMOD_PROBE_APPLY_BLACKLIST | (run->opts->dry_run ? KMOD_PROBE_DRY_RUN : 0);
	const char *path = kmod_module_get_path(mod);
	enum kmod_load_state state;
	int r;

	if (live_state(mod, &state) == 0)
		return state;
	probe_sink = run->res;
	probe_sink_error = 0;
	r = kmod_module_probe_insert_module(mod, flags, NULL, NULL, NULL, record_action);
	probe_sink = NULL;
	if (probe_sink_error < 0) {
		cdi_fail(e, probe_sink_error, "%s: %s", name, strerror(-probe_sink_error));
		return KMOD_LOAD_FAILED;
	}
	if (r > 0) {
		cdi_fail(run->warn, 0, "%s: blacklisted in modprobe.d, not loaded", name);
		return KMOD_LOAD_BLACKLISTED;
	}
	if (r < 0 && kmod_module_get_install_commands(mod)) {
		cdi_fail(e, r, "%s: its install command in modprobe.d failed", name);
		return KMOD_LOAD_FAILED;
	}
	if (r < 0) {
		cdi_fail(e, r, "%s: cannot load %s: %s", name, path ? path : name, insert_error(r));
		return KMOD_LOAD_FAILED;
	}
	/* An install command in modprobe.d may have done anything; the kernel says what is live. */
	if (!run->opts->dry_run && live_state(mod, &state) < 0) {
		cdi_fail(e, -ENOENT,
			 "%s: not loaded after probing %s (an install command in modprobe.d?)",
			 name, path ? path : name);
		return KMOD_LOAD_FAILED;
	}
	return KMOD_LOAD_INSERTED;
}

/* Look one module up and load it (unless it is live); its state. Problems of a module that is
 * not required are warnings. */
static enum kmod_load_state load_one(struct run *run, const char *name, bool required)
{
	struct cdi_error *e = required ? run->err : run->warn;
	_cleanup_(kmod_module_unrefp) struct kmod_module *byname = NULL;
	_cleanup_(kmod_module_unref_listp) struct kmod_list *list = NULL;
	enum kmod_load_state state = KMOD_LOAD_INSERTED;
	struct kmod_list *l;
	int r;

	/* Live under its own name: nothing to look up (and no index needed). */
	if (kmod_module_new_from_name(run->ctx, name, &byname) == 0 &&
	    live_state(byname, &state) == 0)
		return action_recorded(run->res, name) ? KMOD_LOAD_INSERTED : state;
	r = kmod_module_new_from_lookup(run->ctx, name, &list);
	if (r < 0) {
		cdi_fail(e, required ? r : 0, "%s: cannot look it up in %s: %s", name,
			 kmod_get_dirname(run->ctx), strerror(-r));
		return KMOD_LOAD_FAILED;
	}
	if (!list) {
		cdi_fail(e, required ? -ENOENT : 0, "%s: no such module in %s%s", name,
			 kmod_get_dirname(run->ctx), required ? "" : " (only displays need it)");
		return KMOD_LOAD_ABSENT;
	}
	/* An alias may name several modules; modprobe loads each of them. */
	kmod_list_foreach(l, list)
	{
		_cleanup_(kmod_module_unrefp) struct kmod_module *mod = kmod_module_get_module(l);
		enum kmod_load_state s = probe_one(run, name, mod, e);

		if (s >= KMOD_LOAD_BLACKLISTED || state == KMOD_LOAD_INSERTED)
			state = s;
		if (s >= KMOD_LOAD_BLACKLISTED)
			break;
	}
	/* Brought in as another module's dependency or softdep before its own turn. */
	if (state < KMOD_LOAD_INSERTED && action_recorded(run->res, name))
		state = KMOD_LOAD_INSERTED;
	return state;
}

/* Root, outside a user namespace; false (and why, as a problem) when loading cannot happen. */
static bool may_load(struct cdi_error *warn, struct cdi_error *err, int *ret)
{
	bool in_userns = false;

	*ret = 0;
	if (geteuid() != 0) {
		*ret = cdi_fail(err, -EPERM, "loading kernel modules needs root");
		return false;
	}
	*ret = userns_detect("/proc", &in_userns, err);
	if (*ret < 0)
		return false;
	if (in_userns)
		cdi_fail(
			warn, 0,
			"in a user namespace: the kernel modules are the host's, not loaded from here");
	return !in_userns;
}

static int open_context(const struct gen_host *host, const struct kmod_load_options *opts,
			char ***configs, struct kmod_ctx **ret, struct cdi_error *warn,
			struct cdi_error *err)
{
	_cleanup_free_ char *dirname = NULL;
	struct kmod_ctx *ctx;
	int r;

	r = context_paths(host, opts, &dirname, configs);
	if (r < 0)
		return cdi_fail(err, r, "kernel modules: %s", strerror(-r));
	ctx = kmod_new(dirname, (const char *const *)*configs);
	if (!ctx)
		return cdi_fail(err, -ENOMEM, "kernel modules: libkmod: %s", strerror(ENOMEM));
	kmod_set_log_fn(ctx, log_to_problems, warn);
	kmod_set_log_priority(ctx, LOG_ERR);
	*ret = ctx;
	return 0;
}

/* The state of each module live under its own name; true when all of them are. */
static bool all_live(struct kmod_ctx *ctx, struct kmod_load_result *res)
{
	bool all = true;

	for (size_t i = 0; i < KMOD_LOAD_N_MODULES; i++) {
		_cleanup_(kmod_module_unrefp) struct kmod_module *mod = NULL;
		enum kmod_load_state s;

		if (kmod_module_new_from_name(ctx, module_names[i], &mod) == 0 &&
		    live_state(mod, &s) == 0)
			res->modules[i].state = s;
		else
			all = false;
	}
	return all;
}

/* Each module not live yet, nvidia first; 0 or the first error of nvidia or nvidia_uvm. */
static int load_missing(struct run *run)
{
	struct kmod_load_result *res = run->res;
	int first = 0;

	for (size_t i = 0; i < KMOD_LOAD_N_MODULES; i++) {
		enum kmod_load_state s;

		if (i > 0 && res->modules[0].state >= KMOD_LOAD_BLACKLISTED)
			break; /* they need nvidia: its failure is the one to report */
		if (res->modules[i].state != KMOD_LOAD_SKIPPED)
			continue; /* live before this run */
		s = load_one(run, module_names[i], i < 2);
		res->modules[i].state = s;
		if (i < 2 && (s == KMOD_LOAD_ABSENT || s == KMOD_LOAD_FAILED) && first == 0)
			first = cdi_error_code(run->err) < 0 ? cdi_error_code(run->err) : -ENOENT;
	}
	return first;
}

int kmod_load_nvidia(const struct gen_host *host, const struct kmod_load_options *opts,
		     struct kmod_load_result *ret, struct cdi_error *warn, struct cdi_error *err)
{
	_cleanup_(kmod_unrefp) struct kmod_ctx *ctx = NULL;
	_cleanup_strv_free_ char **configs = NULL;
	struct run run = { .opts = opts, .res = ret, .warn = warn, .err = err };
	const char *dir;
	int r;

	*ret = (struct kmod_load_result){ 0 };
	for (size_t i = 0; i < KMOD_LOAD_N_MODULES; i++)
		ret->modules[i] = (typeof(ret->modules[i])){ module_names[i], KMOD_LOAD_SKIPPED };
	r = open_context(host, opts, &configs, &ctx, warn, err);
	if (r < 0)
		return r;
	run.ctx = ctx;
	dir = kmod_get_dirname(ctx);
	ret->modules_dir = strdup(dir);
	if (!ret->modules_dir)
		return cdi_fail(err, -ENOMEM, "kernel modules: %s", strerror(ENOMEM));
	/* Loaded already: nothing to do, whoever runs this and whatever the modules tree holds
	 * (a container sees the host's modules live but may have no /lib/modules). */
	if (all_live(ctx, ret))
		return 0;
	if (!opts->dry_run && !may_load(warn, err, &r))
		return r;
	if (!is_dir(dir))
		return cdi_fail(
			err, -ENOENT,
			"%s: no such directory: nvidia, nvidia_uvm, nvidia_modeset cannot be loaded (no driver for this kernel?)",
			dir);
	/* The indexes (modules.dep.bin, ...) once, not per lookup; a tree without them is not
	 * indexed (depmod), and each lookup will say the module is missing. */
	if (kmod_load_resources(ctx) < 0)
		cdi_fail(warn, 0, "%s: no module index (modules.dep.bin): was depmod run?", dir);
	return load_missing(&run);
}

void kmod_load_result_clear(struct kmod_load_result *res)
{
	if (!res)
		return;
	for (size_t i = 0; i < res->n_actions; i++) {
		free(res->actions[i].module);
		free(res->actions[i].path);
		free(res->actions[i].options);
		free(res->actions[i].command);
	}
	free(res->actions);
	free(res->modules_dir);
	*res = (struct kmod_load_result){ 0 };
}

const char *kmod_load_state_str(enum kmod_load_state state, bool dry_run)
{
	switch (state) {
	case KMOD_LOAD_LOADED:
		return "already loaded";
	case KMOD_LOAD_BUILTIN:
		return "built into the kernel";
	case KMOD_LOAD_INSERTED:
		return dry_run ? "would be loaded" : "loaded";
	case KMOD_LOAD_BLACKLISTED:
		return "blacklisted";
	case KMOD_LOAD_ABSENT:
		return "not found";
	case KMOD_LOAD_FAILED:
		return "failed";
	case KMOD_LOAD_SKIPPED:
		return "not tried";
	}
	return "?";
}
