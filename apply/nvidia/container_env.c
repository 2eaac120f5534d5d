/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A container's NVIDIA_* environment, read as nvidia-container-toolkit's image.CUDA reads it
 * (internal/config/image/cuda_image.go): process.env becomes a map, so the last assignment of
 * a name counts; a legacy image is one with CUDA_VERSION and no NVIDIA_REQUIRE_CUDA.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "container_env.h"
#include "driver_caps.h"
#include "problem.h"
#include "strmap.h"
#include "visible_devices.h"

#define REQUIRE_PREFIX "NVIDIA_REQUIRE_"
#define REQUIRE_JETPACK_PREFIX "NVIDIA_REQUIRE_JETPACK"
#define LEGACY_NAME "CUDA_VERSION"

static const struct {
	const char *name;
	size_t offset;
} scalar_vars[] = {
	{ "NVIDIA_VISIBLE_DEVICES", offsetof(struct container_env, visible_devices) },
	{ DRIVER_CAPS_ENV, offsetof(struct container_env, driver_capabilities) },
	{ "NVIDIA_MIG_CONFIG_DEVICES", offsetof(struct container_env, mig_config_devices) },
	{ "NVIDIA_MIG_MONITOR_DEVICES", offsetof(struct container_env, mig_monitor_devices) },
	{ "NVIDIA_DISABLE_REQUIRE", offsetof(struct container_env, disable_require) },
	{ "NVIDIA_REQUIRE_CUDA", offsetof(struct container_env, require_cuda) },
	{ LEGACY_NAME, offsetof(struct container_env, cuda_version) },
	{ IMEX_CHANNELS_ENV, offsetof(struct container_env, imex_channels) },
	{ GATED_GDS_ENV, offsetof(struct container_env, gated[GATED_GDS]) },
	{ GATED_MOFED_ENV, offsetof(struct container_env, gated[GATED_MOFED]) },
	{ GATED_GDRCOPY_ENV, offsetof(struct container_env, gated[GATED_GDRCOPY]) },
	{ GATED_NVSWITCH_ENV, offsetof(struct container_env, gated[GATED_NVSWITCH]) },
};

static int own(struct container_env *env, char *s)
{
	if (!s || ARRAY_RESERVE(env->owned, env->owned_cap, env->n_owned + 1) < 0) {
		free(s);
		return -ENOMEM;
	}
	env->owned[env->n_owned++] = s;
	return 0;
}

/* What reading process.env keeps besides the result. */
struct env_reader {
	struct cdi_strmap names; /* requirement name -> index in reqs */
	size_t reqs_cap;
};

/* Record NVIDIA_REQUIRE_<x>=value: a name seen before keeps its place and takes the value. */
static int add_requirement(struct container_env *env, struct env_reader *rd, const char *name,
			   size_t name_len, const char *value)
{
	size_t *seen = cdi_strmap_get(&rd->names, name, name_len);

	if (seen) {
		env->reqs[*seen].expr = value;
		return 0;
	}
	if (ARRAY_RESERVE(env->reqs, rd->reqs_cap, env->n_reqs + 1) < 0 ||
	    own(env, strndup(name, name_len)) < 0 ||
	    cdi_strmap_put(&rd->names, name, name_len, env->n_reqs) < 0)
		return -ENOMEM;
	env->reqs[env->n_reqs++] = (struct requirement){ env->owned[env->n_owned - 1], value };
	return 0;
}

/* golang.org/x/mod/semver: a number without leading zeros. */
static bool semver_number(const char **s, const char **ret, size_t *ret_len)
{
	const char *p = *s;

	while (*p >= '0' && *p <= '9')
		p++;
	if (p == *s || (**s == '0' && p - *s > 1))
		return false;
	*ret = *s;
	*ret_len = (size_t)(p - *s);
	*s = p;
	return true;
}

static bool semver_ident_char(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       c == '-';
}

/* A numeric identifier of a pre-release must not have leading zeros. */
static bool semver_bad_number(const char *start, const char *end)
{
	const char *p = start;

	while (p < end && *p >= '0' && *p <= '9')
		p++;
	return p == end && end - start > 1 && *start == '0';
}

/* "-pre.release" (up to '+') or "+build.meta": non-empty dot-separated identifiers. */
static bool semver_idents(const char **s, bool prerelease)
{
	const char *p = *s + 1, *start = p;

	for (; *p && !(prerelease && *p == '+'); p++) {
		if (*p == '.') {
			if (p == start || (prerelease && semver_bad_number(start, p)))
				return false;
			start = p + 1;
		} else if (!semver_ident_char(*p)) {
			return false;
		}
	}
	if (p == start || (prerelease && semver_bad_number(start, p)))
		return false;
	*s = p;
	return true;
}

/* semver.IsValid("v" + s) and semver.MajorMinor's parts (minor "0" for "v12"). */
static bool semver_major_minor(const char *s, const char **major, size_t *major_len,
			       const char **minor, size_t *minor_len)
{
	const char *patch;
	size_t patch_len;

	*minor = "0";
	*minor_len = 1;
	if (!semver_number(&s, major, major_len))
		return false;
	if (!*s)
		return true;
	if (*s++ != '.' || !semver_number(&s, minor, minor_len))
		return false;
	if (!*s)
		return true;
	if (*s++ != '.' || !semver_number(&s, &patch, &patch_len))
		return false;
	if (*s == '-' && !semver_idents(&s, true))
		return false;
	if (*s == '+' && !semver_idents(&s, false))
		return false;
	return !*s;
}

/* strconv.ParseUint(s, 10, 32) succeeds. */
static bool fits_uint32(const char *s, size_t len)
{
	return len <= 10 && strtoull(s, NULL, 10) <= UINT32_MAX;
}

/* The legacy image's requirement: cuda>=major.minor of CUDA_VERSION. */
static int add_legacy_requirement(struct container_env *env)
{
	const char *v = env->cuda_version, *major, *minor;
	size_t major_len, minor_len;
	char *expr;

	if (*v == 'v')
		v++;
	if (!semver_major_minor(v, &major, &major_len, &minor, &minor_len) ||
	    !fits_uint32(major, major_len) || !fits_uint32(minor, minor_len)) {
		env->legacy_problem = -EINVAL;
		return 0;
	}
	if (asprintf(&expr, "cuda>=%.*s.%.*s", (int)major_len, major, (int)minor_len, minor) < 0 ||
	    own(env, expr) < 0)
		return -ENOMEM;
	env->reqs[env->n_reqs++] = (struct requirement){ LEGACY_NAME, expr };
	return 0;
}

/* One "NAME=value" of process.env. */
static int read_assignment(struct container_env *env, struct env_reader *rd, const char *s)
{
	const char *eq = strchr(s, '=');
	size_t len;

	if (!eq)
		return 0;
	len = (size_t)(eq - s);
	for (size_t i = 0; i < ELEMENTSOF(scalar_vars); i++)
		if (strlen(scalar_vars[i].name) == len && !memcmp(s, scalar_vars[i].name, len))
			*(const char **)((char *)env + scalar_vars[i].offset) = eq + 1;
	if (len >= strlen(REQUIRE_PREFIX) && !strncmp(s, REQUIRE_PREFIX, strlen(REQUIRE_PREFIX)) &&
	    strncmp(s, REQUIRE_JETPACK_PREFIX, strlen(REQUIRE_JETPACK_PREFIX)) != 0)
		return add_requirement(env, rd, s, len, eq + 1);
	return 0;
}

const char *oci_env_value(const json_t *oci, const char *name)
{
	const json_t *env = json_object_get(json_object_get(oci, "process"), "env"), *v;
	size_t len = strlen(name), i;
	const char *value = NULL;

	/* The runtime reads the environment into a map, so the last assignment wins. */
	json_array_foreach (env, i, v) {
		const char *s = json_string_value(v);

		if (s && strncmp(s, name, len) == 0 && s[len] == '=')
			value = s + len + 1;
	}
	return value;
}

int container_env_read(const json_t *oci, struct container_env *ret, struct cdi_error *err)
{
	const json_t *env_list = json_object_get(json_object_get(oci, "process"), "env"), *v;
	struct container_env env = { 0 };
	struct env_reader rd = { 0 };
	size_t i;

	json_array_foreach (env_list, i, v) {
		const char *s = json_string_value(v);

		if (s && read_assignment(&env, &rd, s) < 0)
			goto oom;
	}
	/* Room for the legacy requirement even when no NVIDIA_REQUIRE_* was set. */
	if (ARRAY_RESERVE(env.reqs, rd.reqs_cap, env.n_reqs + 1) < 0)
		goto oom;
	if (container_env_legacy(&env) && add_legacy_requirement(&env) < 0)
		goto oom;
	cdi_strmap_free(&rd.names);
	*ret = env;
	return 0;
oom:
	cdi_strmap_free(&rd.names);
	container_env_done(&env);
	return cdi_fail(err, -ENOMEM, "out of memory");
}

void container_env_done(struct container_env *env)
{
	if (!env)
		return;
	for (size_t i = 0; i < env->n_owned; i++)
		free(env->owned[i]);
	free(env->owned);
	free(env->reqs);
	*env = (struct container_env){ 0 };
}

bool container_env_legacy(const struct container_env *env)
{
	return env->cuda_version && *env->cuda_version &&
	       (!env->require_cuda || !*env->require_cuda);
}

const char *container_env_visible_devices(const struct container_env *env)
{
	if (!env->visible_devices && container_env_legacy(env))
		return "all";
	return env->visible_devices;
}

int container_env_visible_device_names(const struct container_env *env, char ***ret_devices,
				       size_t *ret_n, struct cdi_error *err)
{
	return cdi_visible_devices_parse(container_env_visible_devices(env), ret_devices, ret_n,
					 err);
}

int container_env_driver_caps(const struct container_env *env, unsigned *ret_caps,
			      struct cdi_error *err)
{
	if (!env->driver_capabilities && container_env_legacy(env)) {
		*ret_caps = DRIVER_CAPS_ALL;
		return 0;
	}
	return driver_caps_parse(env->driver_capabilities, ret_caps, err);
}

bool container_env_require_disabled(const struct container_env *env)
{
	static const char *const yes[] = { "1", "t", "T", "TRUE", "true", "True" };

	for (size_t i = 0; env->disable_require && i < ELEMENTSOF(yes); i++)
		if (!strcmp(env->disable_require, yes[i]))
			return true;
	return false;
}

int container_env_requirements(const struct container_env *env, const struct requirement **ret,
			       size_t *ret_n, struct cdi_error *err)
{
	if (container_env_require_disabled(env)) {
		*ret = NULL;
		*ret_n = 0;
		return 0;
	}
	if (env->legacy_problem)
		return cdi_problem_add(
			err, env->legacy_problem, NULL, 0, 0, LEGACY_NAME,
			"\"%.64s\" is not a version (major[.minor[.patch]]), so the cuda>= requirement of an image without NVIDIA_REQUIRE_CUDA cannot be made",
			env->cuda_version);
	*ret = env->reqs;
	*ret_n = env->n_reqs;
	return 0;
}
