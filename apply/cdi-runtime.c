/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cdi-runtime: an OCI runtime that engines call in place of runc. On create and run it merges
 * the CDI devices the bundle's config.json asks for into it, then execs the real runtime; every
 * other command is an exec at once. Nothing of ours runs inside the container start.
 *
 *   cdi-runtime [--cdi-spec-dir DIR]... [--cdi-runtime PATH] [runc global flags] COMMAND [ARGS]
 *
 * That interface is a contract engines and scripts rely on; options may be added, never
 * changed. Failures happen before the real runtime is called and leave config.json as it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cdi/cdi.h>

#include "bundle/app_profile.h"
#include "bundle/bundle_config.h"
#include "bundle/bundle_ldcache.h"
#include "cli.h"
#include "nvidia/container_env.h"
#include "nvidia/device_requests.h"
#include "nvidia/env_inject.h"
#include "nvidia/env_trust.h"
#include "json_arena.h"
#include "libcdi/oci_config.h"
#include "macro.h"
#include "nvidia/mig_expand.h"
#include "nvidia/mode_devices.h"
#include "nvidia/mount_requests.h"
#include "problem.h"
#include "runtime/runc_cmdline.h"
#include "runtime/runc_log.h"
#include "runtime/runtime_config.h"
#include "runtime/spec_refresh.h"

static const char usage_text[] =
	"Usage: cdi-runtime [--cdi-spec-dir DIR]... [--cdi-runtime PATH] [runc global flags] COMMAND [ARGS]\n"
	"An OCI runtime for engines to call in place of runc: on create and run it merges the CDI\n"
	"devices the bundle's config.json asks for into it, then runs the real runtime (runc, crun)\n"
	"with the same arguments; every other command goes to the real runtime at once.\n"
	"\n"
	"Devices come from the config's cdi.k8s.io/ annotations, else from its GPU list: /dev/null\n"
	"mounts under /var/run/nvidia-container-devices (when accepted), a swarm-resource variable,\n"
	"or NVIDIA_VISIBLE_DEVICES in its process.env (0,1 | 0:1 | GPU-/MIG- UUIDs | all | none;\n"
	"void or empty: no device; a GPU in MIG mode gives all its MIG devices), as the other\n"
	"NVIDIA_* variables decide (requirements, driver capabilities, MIG administration, MPS,\n"
	"NVIDIA_IMEX_CHANNELS, NVIDIA_GDS/MOFED/GDRCOPY/NVSWITCH=enabled). The prestart hook\n"
	"Docker adds for --gpus is always removed. On any problem the container is not created\n"
	"and config.json is unchanged; a config that asks for nothing reaches the runtime as it is.\n"
	"\n"
	"  --cdi-spec-dir DIR   CDI spec directory; repeat in priority order, a later one wins\n"
	"                       (env CDIKIT_SPEC_DIRS=DIR:DIR; default /etc/cdi, then /var/run/cdi)\n"
	"  --cdi-runtime PATH   the low-level runtime, a name on PATH or a path (env CDIKIT_RUNTIME;\n"
	"                       default: runc, else crun)\n"
	"  -h, --help           show this help, then the low-level runtime's\n"
	"  -v, --version        show the low-level runtime's version, then this one's\n"
	"\n"
	"Settings are also read from " RUNTIME_CONFIG_DEFAULT " (env CDIKIT_CONFIG names another\n"
	"file): runtime, spec-dirs, log-level, accept-nvidia-visible-devices-envvar-when-unprivileged,\n"
	"accept-nvidia-visible-devices-as-volume-mounts, swarm-resource, mps-pipe-directory,\n"
	"host-root, spec-refresh, spec-refresh-output, spec-refresh-no-ipc. A flag beats the\n"
	"environment, which beats the file. A GPU spec that is missing, or was made for another\n"
	"driver than the one running, is regenerated first (spec-refresh).\n"
	"runc's global flags (--root, --log, --log-format, --debug, --systemd-cgroup, ...) are passed\n"
	"on; with --log, problems are also written to that file in runc's format.\n";

/* Everything one run knows; lives until the exec or exit. */
struct runtime {
	struct runc_cmdline cl;
	struct runtime_settings set;
	enum runtime_log_level level;
	bool chatty; /* info and debug to stderr without --log: asked for by --debug or the file */
	int log_fd;  /* the --log file once opened, -1 before, -2 if it cannot be */
};

/*
 * One message: errors and warnings on stderr (where engines capture them) and, at the level
 * asked for, in the --log file as runc writes its own; without --log, info and debug go to
 * stderr only when a level was asked for (--debug or log-level in the file), as runc does.
 */
_printf_(3, 4) static void say(struct runtime *rt, enum runtime_log_level level, const char *fmt,
			       ...)
{
	_cleanup_free_ char *msg = NULL, *line = NULL;
	va_list ap;
	size_t len;
	int r;

	if (level > rt->level && level > RUNTIME_LOG_WARNING)
		return;
	va_start(ap, fmt);
	r = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (r < 0) {
		msg = NULL;
		cli_error("out of memory");
		return;
	}
	if (level <= RUNTIME_LOG_WARNING || (!rt->cl.log_path && rt->chatty))
		cli_error("%s", msg);
	if (!rt->cl.log_path || level > rt->level)
		return;
	if (rt->log_fd == -1) {
		/* As runc opens it: created if need be, appended to. */
		rt->log_fd = open(rt->cl.log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (rt->log_fd < 0) {
			cli_error("%s: %s", rt->cl.log_path, strerror(errno));
			rt->log_fd = -2;
		}
	}
	if (rt->log_fd < 0)
		return;
	line = runc_log_line(rt->cl.log_format && strcmp(rt->cl.log_format, "json") == 0, level,
			     msg, time(NULL), &len);
	if (line && write(rt->log_fd, line, len) < 0)
		cli_error("%s: %s", rt->cl.log_path, strerror(errno));
}

/* Each problem as one line; context (may be "") goes before problems about the config. */
static void say_problems(struct runtime *rt, enum runtime_log_level level,
			 const struct cdi_error *err, const char *context)
{
	for (size_t i = 0; err && i < cdi_error_count(err); i++) {
		const cdi_problem *p = cdi_error_problem(err, i);
		const char *text = cdi_problem_text(p);

		say(rt, level, "%s%s", cdi_problem_file(p) ? "" : context,
		    text ? text : "unknown problem");
	}
}

static void registry_freep(cdi_registry **reg)
{
	cdi_registry_free(*reg);
}

/*
 * Once the devices are in oci and before config.json is written: the EGL application profile
 * of all the container's GPUs in the bundle (app_profile.h), and a linker cache in the image
 * that lists the injected libraries first (the edits go into oci, so a failure here leaves
 * config.json and the image's cache as they were). bundle is the directory of config.json;
 * the rootfs is the config's root.path, relative to it.
 */
static int bundle_post_inject(struct runtime *rt, const char *bundle, json_t *oci)
{
	struct cdi_error err = CDI_ERROR_INIT;
	int r;

	r = bundle_app_profile(oci, bundle, &err);
	if (r < 0) {
		say_problems(rt, RUNTIME_LOG_ERROR, &err, "application profile: ");
		cdi_error_reset(&err);
		return r;
	}
	r = cdi_bundle_ldcache(oci, bundle, NULL, &err);
	if (r < 0) {
		say_problems(rt, RUNTIME_LOG_ERROR, &err, "linker cache: ");
		cdi_error_reset(&err);
	}
	return r;
}

/* "NVIDIA_VISIBLE_DEVICES=0,1: " or "annotations: ", to say where a bad request came from. */
static char *request_context(const struct device_requests *req)
{
	char *s = NULL;

	if (req->source == DEVICE_REQUEST_ANNOTATIONS)
		s = strdup("cdi.k8s.io annotations: ");
	else if (req->env.from_mounts)
		s = strdup("volume mounts under " VOLUME_MOUNTS_ROOT ": ");
	else if (asprintf(&s, "%s=%s: ", req->env.var ? req->env.var : "", req->env.value) < 0)
		s = NULL;
	return s;
}

/* Problems that name a variable, a file or a field say where they come from themselves. */
static void say_request_problems(struct runtime *rt, const struct cdi_error *err,
				 const char *context)
{
	for (size_t i = 0; err && i < cdi_error_count(err); i++) {
		const cdi_problem *p = cdi_error_problem(err, i);
		const char *text = cdi_problem_text(p);
		bool own = cdi_problem_file(p) || cdi_problem_field(p);

		say(rt, RUNTIME_LOG_ERROR, "%s%s", own ? "" : context,
		    text ? text : "unknown problem");
	}
}

/*
 * The trees a successful edit ends with. The runtime's exec replaces this process a moment
 * later, and freeing them node by node costs a twentieth of the whole edit; they stay reachable
 * from here, which is what leak checkers expect of memory that is not lost.
 */
static struct {
	cdi_registry *volatile reg;
	json_t *volatile oci;
} kept_for_exec;

/*
 * The spec of the GPUs asked for, written again first when it is missing or was made for
 * another driver (spec_refresh.h). A failure is a warning: the create goes on with what is
 * there, and ends as it would have without (the spec unchanged, today's error if any).
 */
static void refresh_spec(struct runtime *rt, cdi_registry *reg, const struct device_requests *req,
			 struct cdi_facts_memo *facts)
{
	const struct spec_refresh_config c = {
		.output = rt->set.spec_refresh_output,
		.host_root = rt->set.host_root,
		.no_ipc = rt->set.spec_refresh_no_ipc,
	};
	struct spec_refresh_result res;
	struct cdi_error err = { 0 };

	if (rt->set.spec_refresh_off)
		return;
	if (spec_refresh(reg, (const char *const *)req->devices, req->n, &c, facts, &res, &err) < 0)
		say_problems(rt, RUNTIME_LOG_WARNING, &err, "spec refresh: ");
	else if (res.outcome == SPEC_REFRESH_WRITTEN)
		say(rt, RUNTIME_LOG_INFO, "%s: regenerated in %lld ms (%s)", c.output, res.ms,
		    res.why);
	else if (res.outcome == SPEC_REFRESH_FOUND_FRESH)
		say(rt, RUNTIME_LOG_INFO, "%s: regenerated by another create (waited %lld ms)",
		    c.output, res.ms);
	cdi_error_reset(&err);
}

/*
 * The devices asked for, resolved and merged into oci (all or nothing). Those the container's
 * environment selected get what its NVIDIA_* variables decide (env_inject.h); annotations name
 * exact CDI devices, which get every file, as a native CDI consumer gives them.
 */
static int inject(struct runtime *rt, json_t *oci, const struct container_env *env,
		  struct device_requests *req)
{
	__attribute__((cleanup(registry_freep))) cdi_registry *reg = NULL;
	struct cdi_facts_memo facts __attribute__((cleanup(cdi_facts_memo_done))) = { 0 };
	_cleanup_free_ char *context = request_context(req);
	const struct env_inject_options opts = {
		.host_root = rt->set.host_root,
		.mps_pipe_dir = rt->set.mps_pipe_dir,
		.facts = &facts,
		.asked = (const char *const *)req->env.gpus,
	};
	struct cdi_error err = { 0 };
	int r;

	r = cdi_registry_new((const char *const *)rt->set.spec_dirs, rt->set.n_spec_dirs, 0, &reg,
			     &err);
	if (r == 0)
		refresh_spec(rt, reg, req, &facts);
	if (r == 0)
		r = mode_devices_check(&req->env.modes, reg, &err);
	if (r == 0)
		r = mig_expand(reg, req, &err);
	if (r == 0)
		r = env_inject(reg, oci, env, (const char *const *)req->devices, req->n,
			       req->n_named, &opts, &err);
	if (r < 0) {
		/* Specs that failed to load are the usual reason a device is missing; the
		 * line naming the device comes last, where engines look for it. */
		say_problems(rt, RUNTIME_LOG_WARNING, cdi_registry_errors(reg), "");
		say_request_problems(rt, &err, context ? context : "");
		cdi_error_reset(&err);
		return r;
	}
	for (size_t i = 0; i < req->n; i++)
		say(rt, RUNTIME_LOG_DEBUG, "device %s", req->devices[i]);
	kept_for_exec.reg = TAKE_PTR(reg);
	return 0;
}

/* What the container asked for by its own variables and does not get (env_trust.h). */
static void say_ignored(struct runtime *rt, const struct device_requests *req, const char *label)
{
	if (req->env.ignored)
		say(rt, RUNTIME_LOG_INFO,
		    "%s: %s=%s ignored: the container is not privileged and " ENV_TRUST_SETTING
		    " is false",
		    label, req->env.var, req->env.value);
	if (req->env.ignored_imex)
		say(rt, RUNTIME_LOG_INFO,
		    "%s: " IMEX_CHANNELS_ENV
		    "=%s ignored: the container is not privileged and " ENV_TRUST_SETTING
		    " is false",
		    label, req->env.ignored_imex);
}

/* create/run: the devices into the bundle's config.json. 0 also when nothing was asked. */
static int edit_bundle(struct runtime *rt)
{
	struct bundle_config cfg __attribute__((cleanup(bundle_config_done))) = { .dir_fd = -1 };
	struct device_requests req __attribute__((cleanup(device_requests_done))) = { 0 };
	struct container_env env __attribute__((cleanup(container_env_done))) = { 0 };
	const char *bundle = rt->cl.bundle ? rt->cl.bundle : ".";
	const struct env_request_options opts = {
		.accept_mounts = rt->set.accept_volume_mounts,
		.accept_env_unprivileged = rt->set.accept_env_unprivileged,
		.swarm_resource = rt->set.swarm_resource,
	};
	_cleanup_free_ char *label = NULL, *out = NULL;
	_cleanup_close_ int dir_fd = -1;
	_cleanup_json_ json_t *oci = NULL;
	struct cdi_error err = { 0 };
	size_t len;
	int r;

	if (asprintf(&label, "%s/config.json", bundle) < 0) {
		label = NULL;
		say(rt, RUNTIME_LOG_ERROR, "out of memory");
		return -ENOMEM;
	}
	/* No bundle or no config asks for nothing: runc says so in its own words. */
	dir_fd = open(bundle, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0 && errno == ENOENT)
		return 0;
	if (dir_fd < 0) {
		say(rt, RUNTIME_LOG_ERROR, "bundle %s: %s", bundle, strerror(errno));
		return -errno;
	}
	r = bundle_config_read_at(dir_fd, "config.json", label, &cfg, &err);
	if (r == -ENOENT) {
		cdi_error_reset(&err);
		return 0;
	}
	if (r == 0) {
		r = bundle_config_parse(&cfg, OCI_CONFIG_GO_DECODER, &oci, &err);
		/* Not JSON as Go reads it, so not JSON runc reads: nothing we could see asks for a
		 * device, and runc says what is wrong with it, as it would alone. */
		if (r == -EINVAL) {
			say_problems(rt, RUNTIME_LOG_DEBUG, &err, "");
			cdi_error_reset(&err);
			return 0;
		}
	}
	if (r == 0)
		r = container_env_read(oci, &env, &err);
	if (r == 0)
		r = device_requests_take(oci, &env, &opts, &req, &err);
	if (r < 0) {
		say_problems(rt, RUNTIME_LOG_ERROR, &err, "");
		cdi_error_reset(&err);
		return r;
	}
	say_ignored(rt, &req, label);
	if (req.n == 0 && req.n_legacy_hooks == 0)
		return 0; /* nothing asked for: the config stays byte for byte */
	if (req.n_legacy_hooks)
		say(rt, RUNTIME_LOG_DEBUG, "%s: removed the %s prestart hook", label,
		    LEGACY_HOOK_NAME);
	if (req.n > 0) {
		r = inject(rt, oci, &env, &req);
		if (r < 0)
			return r;
	}
	r = bundle_post_inject(rt, bundle, oci);
	if (r < 0)
		return r;

	out = config_dump(oci, config_layout_detect(cfg.buf, cfg.len), &len);
	if (!out) {
		say(rt, RUNTIME_LOG_ERROR, "out of memory");
		return -ENOMEM;
	}
	/* No fsync: a bundle does not outlive a crash, and syncing costs milliseconds. */
	r = bundle_replace_at(cfg.dir_fd, cfg.name, cfg.label, out, len, &cfg.st, 0, &err);
	if (r < 0) {
		say_problems(rt, RUNTIME_LOG_ERROR, &err, "");
		cdi_error_reset(&err);
		return r;
	}
	say(rt, RUNTIME_LOG_INFO, "%s: %zu CDI device%s injected", label, req.n,
	    req.n == 1 ? "" : "s");
	kept_for_exec.oci = TAKE_PTR(oci);
	return 0;
}

/* stdout written out before another program writes to it. A failure (a full disk, a closed
 * pipe) is said once, by the check at exit (cli.h). */
static bool stdout_flushed(void)
{
	return fflush(stdout) == 0 && !ferror(stdout);
}

/*
 * The runtime's --version, then ours: scripts and runc's own tests read its first lines
 * ("runc version X", "commit:", "spec:"), and dockerd looks for those lines anywhere. The exit
 * status is the runtime's, or 1 when ours cannot be written.
 */
static int print_versions(struct runtime *rt, const char *path, const char *name)
{
	char *argv[] = { (char *)name, "--version", NULL };
	int status;
	pid_t pid;

	if (!stdout_flushed())
		return CLI_EXIT_PROBLEM;
	pid = fork();
	if (pid < 0) {
		say(rt, RUNTIME_LOG_ERROR, "cannot run %s: %s", path, strerror(errno));
		return CLI_EXIT_PROBLEM;
	}
	if (pid == 0) {
		execv(path, argv);
		cli_error("cannot run %s: %s", path, strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			say(rt, RUNTIME_LOG_ERROR, "waiting for %s: %s", path, strerror(errno));
			return CLI_EXIT_PROBLEM;
		}
	cli_print_version(); /* a write error is caught at exit */
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

static void runtime_done(struct runtime *rt)
{
	runc_cmdline_done(&rt->cl);
	runtime_settings_done(&rt->set);
	if (rt->log_fd >= 0)
		close(rt->log_fd);
}

int main(int argc, char **argv)
{
	struct runtime rt __attribute__((cleanup(runtime_done))) = {
		.level = RUNTIME_LOG_WARNING,
		.log_fd = -1,
	};
	struct runtime_overrides over = {
		.env_spec_dirs = getenv(RUNTIME_SPEC_DIRS_ENV),
		.env_runtime = getenv(RUNTIME_RUNTIME_ENV),
		.env_config = getenv(RUNTIME_CONFIG_ENV),
	};
	_cleanup_free_ char *runtime_path = NULL;
	const char *runtime_name = NULL;
	struct cdi_error err = { 0 };

	/* A fixed hash seed spares jansson reading /dev/urandom; our input is root's specs
	 * and the engine's config, not adversarial keys. */
	json_object_seed(0x9e3779b9u);
	json_arena_install();
	cli_init("cdi-runtime");

	if (runc_cmdline_parse(argc, argv, &rt.cl, &err) < 0) {
		int code = cli_usage_error("%s", cdi_error_message(&err));

		cdi_error_reset(&err);
		return code;
	}
	if (rt.cl.help && (fputs(usage_text, stdout) == EOF || !stdout_flushed()))
		return CLI_EXIT_PROBLEM;
	if (rt.cl.debug)
		rt.level = RUNTIME_LOG_DEBUG;

	over.spec_dirs = rt.cl.spec_dirs;
	over.n_spec_dirs = rt.cl.n_spec_dirs;
	over.runtime = rt.cl.runtime;
	if (runtime_settings_resolve(&over, &rt.set, &err) < 0 ||
	    runtime_settings_find_runtime(&rt.set, getenv("PATH"), &runtime_path, &runtime_name,
					  &err) < 0) {
		say_problems(&rt, RUNTIME_LOG_ERROR, &err, "");
		cdi_error_reset(&err);
		/* The usage was shown: only the runtime's own is missing. */
		return rt.cl.help ? 0 : CLI_EXIT_PROBLEM;
	}
	if (!rt.cl.debug)
		rt.level = rt.set.log_level;
	rt.chatty = rt.cl.debug || strcmp(rt.set.log_level_from, "default") != 0;

	if (rt.cl.help) {
		char *help_argv[] = { (char *)runtime_name, "--help", NULL };

		/* Ours above, then the runtime's on the same stdout, for callers that expect it. */
		fputs("\nThe low-level runtime's own usage follows:\n\n", stdout);
		if (!stdout_flushed())
			return CLI_EXIT_PROBLEM;
		execv(runtime_path, help_argv);
		say(&rt, RUNTIME_LOG_ERROR, "cannot run %s: %s", runtime_path, strerror(errno));
		return CLI_EXIT_PROBLEM;
	}
	if (rt.cl.version)
		return print_versions(&rt, runtime_path, runtime_name);
	if (rt.cl.edit && edit_bundle(&rt) < 0)
		return CLI_EXIT_PROBLEM;

	/* Passthrough: exit status, stdio and signals are the runtime's, as it replaces us. */
	rt.cl.argv[0] = (char *)runtime_name;
	execv(runtime_path, rt.cl.argv);
	say(&rt, RUNTIME_LOG_ERROR, "cannot run %s: %s", runtime_path, strerror(errno));
	return CLI_EXIT_PROBLEM;
}
