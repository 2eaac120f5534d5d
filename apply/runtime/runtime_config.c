/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cdi-runtime's settings and their config file. The file is lines of "key = value"; '#'
 * starts a comment; a value may be double-quoted (then it may hold '#'), so a TOML-minded
 * admin writing runtime = "crun" gets what they meant:
 *
 *     runtime = crun                      # name on PATH, or a path
 *     spec-dirs = /etc/cdi:/var/run/cdi   # lowest priority first
 *     log-level = info                    # error, warning, info, debug
 *     accept-nvidia-visible-devices-envvar-when-unprivileged = true
 *     mps-pipe-directory = /tmp/nvidia-mps
 *     host-root = /
 *     spec-refresh = auto                 # or off
 *     spec-refresh-output = /var/run/cdi/nvidia.yaml
 *     spec-refresh-no-ipc = false
 *     accept-nvidia-visible-devices-as-volume-mounts = false
 *     swarm-resource = DOCKER_RESOURCE_GPU
 *
 * An unknown key, a bad value or a malformed line is an error naming the file and line: a
 * setting that silently does nothing is worse at 3 a.m. than a container that does not start.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cdi/registry.h>

#include "config_lex.h"
#include "read_file.h"
#include "nvidia/env_requests.h"
#include "nvidia/env_trust.h"
#include "nvidia/mount_requests.h"
#include "macro.h"
#include "path_clean.h"
#include "problem.h"
#include "runtime_config.h"
#include "strv.h"

static const char *const level_names[] = { "error", "warning", "info", "debug" };

const char *runtime_log_level_name(enum runtime_log_level level)
{
	return (size_t)level < ELEMENTSOF(level_names) ? level_names[level] : "?";
}

void runtime_settings_done(struct runtime_settings *s)
{
	if (!s)
		return;
	strv_free_n(s->spec_dirs, s->n_spec_dirs);
	free(s->runtime);
	free(s->mps_pipe_dir);
	free(s->host_root);
	free(s->spec_refresh_output);
	free(s->swarm_resource);
	free(s->config_path);
	*s = (struct runtime_settings){ 0 };
}

/* Replace *ret with a builder's vector (NULL when it is empty). */
static int take_dirs(struct strv_builder *b, char ***ret, size_t *ret_n)
{
	size_t n;
	char **v = strv_builder_steal(b, &n);

	if (!v)
		return -ENOMEM;
	strv_free_n(*ret, *ret_n);
	if (!n) {
		free(v);
		v = NULL;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

/* Split a colon-separated list (empty items skipped) into *ret, replacing what was there. */
static int set_dir_list(const char *list, char ***ret, size_t *ret_n)
{
	struct strv_builder b = { 0 };

	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ":");

		if (len > 0 && strv_builder_addn(&b, p, len) < 0) {
			strv_builder_clear(&b);
			return -ENOMEM;
		}
		p += len + (p[len] == ':');
	}
	return take_dirs(&b, ret, ret_n);
}

static int set_dirs_from_argv(const char *const *dirs, size_t n, char ***ret, size_t *ret_n)
{
	struct strv_builder b = { 0 };

	for (size_t i = 0; i < n; i++)
		if (strv_builder_add(&b, dirs[i]) < 0) {
			strv_builder_clear(&b);
			return -ENOMEM;
		}
	return take_dirs(&b, ret, ret_n);
}

static int set_string(char **field, const char *value)
{
	char *copy = strdup(value);

	if (!copy)
		return -ENOMEM;
	free(*field);
	*field = copy;
	return 0;
}

/* value as one of two words: *ret true for yes. */
static int two_words(const char *label, unsigned line, const char *key, const char *value,
		     const char *yes, const char *no, bool *ret, struct cdi_error *err)
{
	if (strcmp(value, yes) && strcmp(value, no))
		return cdi_problem_add(err, -EINVAL, label, line, 0, NULL,
				       "%s: \"%s\" is neither %s nor %s", key, value, yes, no);
	*ret = strcmp(value, yes) == 0;
	return 0;
}

/* The self-healing spec's keys (spec-refresh*); -ENOKEY for another key. */
static int spec_refresh_set(struct runtime_settings *s, const char *label, unsigned line,
			    const char *key, const char *value, struct cdi_error *err)
{
	const char *base;

	if (strcmp(key, "spec-refresh") == 0)
		return two_words(label, line, key, value, "off", "auto", &s->spec_refresh_off, err);
	if (strcmp(key, "spec-refresh-no-ipc") == 0)
		return two_words(label, line, key, value, "true", "false", &s->spec_refresh_no_ipc,
				 err);
	if (strcmp(key, "spec-refresh-output") != 0)
		return -ENOKEY;
	base = strrchr(value, '/');
	if (value[0] != '/' || !base[1] || strcmp(base, "/.") == 0 || strcmp(base, "/..") == 0)
		return cdi_problem_add(err, -EINVAL, label, line, 0, NULL,
				       "spec-refresh-output: \"%s\" is not an absolute file path",
				       value);
	free(s->spec_refresh_output);
	s->spec_refresh_output = cdi_path_clean(value);
	if (!s->spec_refresh_output)
		return cdi_fail(err, -ENOMEM, "out of memory");
	s->spec_refresh_output_line = line;
	return 0;
}

/* One "key = value" of the file; value is unquoted already. The passthrough before libc
 * (fast_exec.c, settings[]) takes the same values or leaves the file to this. */
static int config_set(struct runtime_settings *s, const char *label, unsigned line, const char *key,
		      const char *value, struct cdi_error *err)
{
	const char *from = s->config_path ? s->config_path : "the config file";
	int r;

	if (strcmp(key, "runtime") == 0) {
		if (!*value)
			return cdi_problem_add(err, -EINVAL, label, line, 0, NULL,
					       "runtime: empty (leave it out for runc, else crun)");
		r = set_string(&s->runtime, value);
		s->runtime_from = from;
	} else if (strcmp(key, "spec-dirs") == 0) {
		r = set_dir_list(value, &s->spec_dirs, &s->n_spec_dirs);
		s->spec_dirs_from = from;
	} else if (strcmp(key, "log-level") == 0) {
		size_t i;

		for (i = 0; i < ELEMENTSOF(level_names); i++)
			if (strcmp(value, level_names[i]) == 0)
				break;
		if (i == ELEMENTSOF(level_names))
			return cdi_problem_add(
				err, -EINVAL, label, line, 0, NULL,
				"log-level: \"%s\" is none of error, warning, info, debug", value);
		s->log_level = (enum runtime_log_level)i;
		s->log_level_from = from;
		return 0;
	} else if (strcmp(key, ENV_TRUST_SETTING) == 0) {
		struct cdi_error why = CDI_ERROR_INIT;

		r = env_trust_setting_parse(value, &s->accept_env_unprivileged, &why);
		cdi_error_reset(&why);
		if (r < 0)
			return cdi_problem_add(err, r, label, line, 0, NULL,
					       ENV_TRUST_SETTING ": \"%s\" is not true or false",
					       value);
		return 0;
	} else if (strcmp(key, VOLUME_MOUNTS_SETTING) == 0) {
		if (strcmp(value, "true") != 0 && strcmp(value, "false") != 0)
			return cdi_problem_add(
				err, -EINVAL, label, line, 0, NULL,
				VOLUME_MOUNTS_SETTING ": \"%s\" is not true or false", value);
		s->accept_volume_mounts = value[0] == 't';
		return 0;
	} else if (strcmp(key, SWARM_RESOURCE_SETTING) == 0) {
		r = set_string(&s->swarm_resource, value);
	} else if (strcmp(key, "mps-pipe-directory") == 0 || strcmp(key, "host-root") == 0) {
		if (value[0] != '/')
			return cdi_problem_add(err, -EINVAL, label, line, 0, NULL,
					       "%s: \"%s\" is not an absolute path", key, value);
		r = set_string(key[0] == 'h' ? &s->host_root : &s->mps_pipe_dir, value);
	} else if ((r = spec_refresh_set(s, label, line, key, value, err)) != -ENOKEY) {
		return r;
	} else {
		return cdi_problem_add(
			err, -EINVAL, label, line, 0, NULL,
			"unknown setting \"%s\" (runtime, spec-dirs, log-level, " ENV_TRUST_SETTING
			", mps-pipe-directory, host-root, spec-refresh, spec-refresh-output, spec-refresh-no-ipc, " VOLUME_MOUNTS_SETTING
			", " SWARM_RESOURCE_SETTING ")",
			key);
	}
	return r < 0 ? cdi_fail(err, r, "out of memory") : 0;
}

int runtime_config_parse(const char *label, const char *buf, size_t len, struct runtime_settings *s,
			 struct cdi_error *err)
{
	struct config_lexer lx;
	struct config_entry e;
	enum config_lex_result lr;

	config_lex_init(&lx, buf, len);
	while ((lr = config_lex_next(&lx, &e)) != CONFIG_LEX_END) {
		_cleanup_free_ char *k = NULL, *v = NULL;
		int r;

		if (lr == CONFIG_LEX_NO_EQUALS)
			return cdi_problem_add(err, -EINVAL, label, e.line, 0, NULL,
					       "expected \"key = value\"");
		k = strndup(e.key, e.key_len);
		if (!k)
			return cdi_fail(err, -ENOMEM, "out of memory");
		if (lr == CONFIG_LEX_OPEN_QUOTE)
			return cdi_problem_add(
				err, -EINVAL, label, e.line, 0, NULL,
				"%s: a quoted value must end with '\"' (and only a comment may follow)",
				k);
		v = strndup(e.value, e.value_len);
		if (!v)
			return cdi_fail(err, -ENOMEM, "out of memory");
		r = config_set(s, label, e.line, k, v, err);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * The file names the program cdi-runtime executes, as root under most engines: it is read only
 * when nobody but root and the caller could have written it, nor replaced it in its directory
 * (a sticky directory such as /tmp protects a file its owner holds).
 */
static int check_config_trust(const char *path, const struct stat *st, struct cdi_error *err)
{
	_cleanup_free_ char *dir = NULL;
	const char *slash = strrchr(path, '/');
	struct stat dst;

	if ((st->st_uid != 0 && st->st_uid != geteuid()) || (st->st_mode & 022))
		return cdi_problem_add(
			err, -EPERM, path, 0, 0, NULL,
			"insecure: owned by uid %u with mode %04o; not read (it names "
			"the program to run: only root or uid %u may write it)",
			(unsigned)st->st_uid, (unsigned)(st->st_mode & 07777), (unsigned)geteuid());
	dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	if (!dir)
		return cdi_fail(err, -ENOMEM, "out of memory");
	if (stat(dir, &dst) < 0)
		return cdi_problem_add(err, -errno, dir, 0, 0, NULL, "cannot stat: %s",
				       strerror(errno));
	if ((dst.st_uid != 0 && dst.st_uid != geteuid()) ||
	    ((dst.st_mode & 022) && !(dst.st_mode & S_ISVTX)))
		return cdi_problem_add(
			err, -EPERM, path, 0, 0, NULL,
			"insecure: its directory %s is owned by uid %u with mode %04o; not read (others could replace the file)",
			dir, (unsigned)dst.st_uid, (unsigned)(dst.st_mode & 07777));
	return 0;
}

static int read_config_file(const char *path, bool must_exist, struct runtime_settings *s,
			    struct cdi_error *err)
{
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	size_t len;
	int r;

	r = read_regular_at(AT_FDCWD, path, path, RUNTIME_CONFIG_MAX_BYTES,
			    must_exist ? 0 : READ_MISSING_OK, &buf, &len, &st, err);
	if (r == -ENOENT && !must_exist)
		return 0;
	if (r < 0)
		return r;
	r = check_config_trust(path, &st, err);
	if (r < 0)
		return r;
	if (set_string(&s->config_path, path) < 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	return runtime_config_parse(s->config_path, buf, len, s, err);
}

/* The spec the runtime regenerates must be one its registry reads: in one of the spec
 * directories (the default output elsewhere turns the refresh off instead). */
static int resolve_spec_refresh(struct runtime_settings *s, struct cdi_error *err)
{
	static const char *const defaults[] = CDI_DEFAULT_SPEC_DIRS;
	const char *const *dirs = s->n_spec_dirs ? (const char *const *)s->spec_dirs : defaults;
	size_t n = s->n_spec_dirs ? s->n_spec_dirs : ELEMENTSOF(defaults), len = 0;
	_cleanup_free_ char *list = NULL;
	const char *out, *slash;
	FILE *f;

	if (!s->spec_refresh_output &&
	    !(s->spec_refresh_output = strdup(RUNTIME_SPEC_REFRESH_OUTPUT_DEFAULT)))
		return cdi_fail(err, -ENOMEM, "out of memory");
	out = s->spec_refresh_output;
	slash = strrchr(out, '/');
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *dir = cdi_path_clean(dirs[i]);
		size_t dlen = dir ? strlen(dir) : 0;

		if (!dir)
			return cdi_fail(err, -ENOMEM, "out of memory");
		/* "/x/nvidia.yaml" lies in "/x"; "/nvidia.yaml" in "/". */
		if ((size_t)(slash - out) == (dlen == 1 ? 0 : dlen) && strncmp(out, dir, dlen) == 0)
			return 0;
	}
	if (!s->spec_refresh_output_line) {
		s->spec_refresh_off = true;
		return 0;
	}
	f = open_memstream(&list, &len);
	for (size_t i = 0; f && i < n; i++)
		fprintf(f, "%s%s", i ? ", " : "", dirs[i]);
	if (!f || fclose(f) != 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	return cdi_problem_add(err, -EINVAL, s->config_path, s->spec_refresh_output_line, 0, NULL,
			       "spec-refresh-output: %s lies in none of the spec directories (%s)",
			       out, list);
}

int runtime_settings_resolve(const struct runtime_overrides *o, struct runtime_settings *ret,
			     struct cdi_error *err)
{
	struct runtime_settings s = {
		.log_level = RUNTIME_LOG_WARNING,
		.accept_env_unprivileged = ENV_TRUST_DEFAULT,
		.accept_volume_mounts = VOLUME_MOUNTS_DEFAULT,
		.spec_dirs_from = "default",
		.runtime_from = "default",
		.log_level_from = "default",
	};
	bool env_config = o->env_config && *o->env_config;
	int r;

	r = read_config_file(env_config ? o->env_config : RUNTIME_CONFIG_DEFAULT, env_config, &s,
			     err);
	if (r < 0)
		goto fail;
	r = 0;
	if (o->n_spec_dirs) {
		r = set_dirs_from_argv(o->spec_dirs, o->n_spec_dirs, &s.spec_dirs, &s.n_spec_dirs);
		s.spec_dirs_from = "--cdi-spec-dir";
	} else if (o->env_spec_dirs && *o->env_spec_dirs) {
		r = set_dir_list(o->env_spec_dirs, &s.spec_dirs, &s.n_spec_dirs);
		s.spec_dirs_from = RUNTIME_SPEC_DIRS_ENV;
	}
	if (r == 0 && o->runtime) {
		r = set_string(&s.runtime, o->runtime);
		s.runtime_from = "--cdi-runtime";
	} else if (r == 0 && o->env_runtime && *o->env_runtime) {
		r = set_string(&s.runtime, o->env_runtime);
		s.runtime_from = RUNTIME_RUNTIME_ENV;
	}
	if (r < 0) {
		r = cdi_fail(err, r, "out of memory");
		goto fail;
	}
	r = resolve_spec_refresh(&s, err);
	if (r < 0)
		goto fail;
	*ret = s;
	return 0;
fail:
	runtime_settings_done(&s);
	return r;
}

static bool is_executable(const char *path, struct stat *st)
{
	return stat(path, st) == 0 && S_ISREG(st->st_mode) && (st->st_mode & 0111);
}

/* name on the directories of path_env, except this program itself. */
static int search_path(const char *name, const char *path_env, char **ret)
{
	int self_known = 0; /* 0 not looked at yet, 1 known, -1 unavailable */
	struct stat self;

	for (const char *p = path_env; *p;) {
		size_t len = strcspn(p, ":");
		_cleanup_free_ char *file = NULL;
		struct stat st;

		/* An empty PATH entry is the working directory, as for execvp. */
		if (asprintf(&file, "%.*s/%s", len ? (int)len : 1, len ? p : ".", name) < 0)
			return -ENOMEM;
		if (is_executable(file, &st)) {
			if (!self_known)
				self_known = stat("/proc/self/exe", &self) == 0 ? 1 : -1;
			if (self_known < 0 || st.st_dev != self.st_dev ||
			    st.st_ino != self.st_ino) {
				*ret = TAKE_PTR(file);
				return 0;
			}
		}
		p += len + (p[len] == ':');
	}
	return -ENOENT;
}

int runtime_settings_find_runtime(const struct runtime_settings *s, const char *path_env,
				  char **ret_path, const char **ret_name, struct cdi_error *err)
{
	static const char *const defaults[] = { "runc", "crun" };
	const char *path = path_env && *path_env ? path_env : RUNTIME_DEFAULT_PATH;
	struct stat st;
	int r;

	if (s->runtime && strchr(s->runtime, '/')) {
		if (!is_executable(s->runtime, &st))
			return cdi_fail(err, -ENOENT,
					"runtime %s (from %s): not an executable file", s->runtime,
					s->runtime_from);
		*ret_path = strdup(s->runtime);
		*ret_name = s->runtime;
		return *ret_path ? 0 : cdi_fail(err, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < (s->runtime ? 1 : ELEMENTSOF(defaults)); i++) {
		const char *name = s->runtime ? s->runtime : defaults[i];

		r = search_path(name, path, ret_path);
		if (r == 0) {
			*ret_name = name;
			return 0;
		}
		if (r != -ENOENT)
			return cdi_fail(err, r, "out of memory");
	}
	if (s->runtime)
		return cdi_fail(err, -ENOENT, "runtime \"%s\" (from %s) is not on PATH", s->runtime,
				s->runtime_from);
	return cdi_fail(
		err, -ENOENT,
		"no low-level runtime: neither runc nor crun is on PATH (set runtime in " RUNTIME_CONFIG_DEFAULT
		", " RUNTIME_RUNTIME_ENV " or --cdi-runtime)");
}
