/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cdi-runtime's settings (internal to apply/): the low-level runtime, the spec directories,
 * the log level and the container environment's settings, each from the first of its command-line
 * flag, its environment variable, the config file, the default.
 */
#ifndef CDIKIT_APPLY_RUNTIME_CONFIG_H
#define CDIKIT_APPLY_RUNTIME_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include <cdi/error.h>

#define RUNTIME_CONFIG_DEFAULT "/etc/cdikit/runtime.conf"
#define RUNTIME_CONFIG_ENV "CDIKIT_CONFIG"
#define RUNTIME_SPEC_DIRS_ENV "CDIKIT_SPEC_DIRS"
#define RUNTIME_RUNTIME_ENV "CDIKIT_RUNTIME"
/* The spec cdi-runtime regenerates when it is missing or stale, where the refresh units write
 * it (docs/boot.md). */
#define RUNTIME_SPEC_REFRESH_OUTPUT_DEFAULT "/var/run/cdi/nvidia.yaml"
/* Where the runtime is looked for when PATH is unset or empty (as execvp's default, with the
 * sbin directories an engine's runtime lives in). */
#define RUNTIME_DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
/* A config file is a few lines; more than this is not one. */
#define RUNTIME_CONFIG_MAX_BYTES (64u * 1024)

enum runtime_log_level {
	RUNTIME_LOG_ERROR,
	RUNTIME_LOG_WARNING,
	RUNTIME_LOG_INFO,
	RUNTIME_LOG_DEBUG,
};

struct runtime_settings {
	char **spec_dirs; /* lowest priority first; NULL: the CDI defaults */
	size_t n_spec_dirs;
	char *runtime; /* a name (looked up on PATH) or a path; NULL: runc, else crun, on PATH */
	enum runtime_log_level log_level;
	/* The container environment (environment.md): whether an unprivileged container's own
	 * NVIDIA_VISIBLE_DEVICES is honoured (ENV_TRUST_SETTING), the host's MPS pipe directory
	 * (NULL: /tmp/nvidia-mps) and the root host files are read under (NULL: "/"; a
	 * simulated host in tests). */
	bool accept_env_unprivileged;
	char *mps_pipe_dir;
	char *host_root;
	/* The self-healing spec (runtime.md): spec-refresh = off, the spec file regenerated
	 * (path-cleaned; NULL until resolved, then never), cdi-generate --no-ipc. Resolved, off
	 * also when the default output lies in none of the spec directories; one set in the file
	 * must lie in one (spec_refresh_output_line: its line, 0 when not set there). */
	bool spec_refresh_off;
	char *spec_refresh_output;
	unsigned spec_refresh_output_line;
	bool spec_refresh_no_ipc;
	/* Device lists as volume mounts (VOLUME_MOUNTS_SETTING) and the variables that replace
	 * NVIDIA_VISIBLE_DEVICES (SWARM_RESOURCE_SETTING; NULL: none), as NVIDIA's runtime. */
	bool accept_volume_mounts;
	char *swarm_resource;
	/* Where each came from ("--cdi-spec-dir", "CDIKIT_SPEC_DIRS", the file, "default"),
	 * for debug logs and messages. Static strings or the settings' config_path. */
	const char *spec_dirs_from, *runtime_from, *log_level_from;
	char *config_path; /* the file read, NULL if none */
};

/* What the command line and the environment give; NULL (or 0 dirs) for not given. */
struct runtime_overrides {
	const char *const *spec_dirs; /* --cdi-spec-dir, in order */
	size_t n_spec_dirs;
	const char *runtime;	   /* --cdi-runtime */
	const char *env_spec_dirs; /* CDIKIT_SPEC_DIRS: colon-separated, lowest priority first */
	const char *env_runtime;   /* CDIKIT_RUNTIME */
	const char *env_config;	   /* CDIKIT_CONFIG: another file, which must then exist */
};

/*
 * Settle every setting. The config file (env_config, else RUNTIME_CONFIG_DEFAULT, which may
 * be missing) is always read, so a broken one is noticed on every command. Problems name the
 * file and line.
 */
int runtime_settings_resolve(const struct runtime_overrides *o, struct runtime_settings *ret,
			     struct cdi_error *err);

/* Apply the text of a config file to s (what it sets replaces what s had). */
int runtime_config_parse(const char *label, const char *buf, size_t len, struct runtime_settings *s,
			 struct cdi_error *err);

/*
 * The low-level runtime's file: s->runtime if it holds a '/', else the first match on path_env
 * (PATH; NULL: a default PATH) of s->runtime, or of runc then crun when it is NULL. A match
 * that is this program itself (cdi-runtime installed as "runc" on PATH) is passed over.
 * *ret_path is malloc'd; *ret_name is the name to give it as argv[0] (borrowed).
 */
int runtime_settings_find_runtime(const struct runtime_settings *s, const char *path_env,
				  char **ret_path, const char **ret_name, struct cdi_error *err);

void runtime_settings_done(struct runtime_settings *s);

/* "error", "warning", "info", "debug". */
const char *runtime_log_level_name(enum runtime_log_level level);

#endif
