/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A container's NVIDIA_* environment as nvidia-container-toolkit's image.CUDA reads it
 * (cuda_image.go and its tests): the last assignment counts, legacy images (CUDA_VERSION
 * without NVIDIA_REQUIRE_CUDA), requirement collection and NVIDIA_DISABLE_REQUIRE.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include <cdi/annotations.h>

#include "nvidia/container_env.h"
#include "nvidia/driver_caps.h"
#include "../lib/testlib.h"

/* An OCI config whose process.env is the NULL-terminated list. */
static json_t *config_withv(const char *first, va_list ap)
{
	json_t *oci = json_pack("{s{s[]}}", "process", "env");
	json_t *env = json_object_get(json_object_get(oci, "process"), "env");

	for (const char *s = first; s; s = va_arg(ap, const char *))
		json_array_append_new(env, json_string(s));
	return oci;
}

static json_t *config_with(const char *first, ...)
{
	va_list ap;
	json_t *oci;

	va_start(ap, first);
	oci = config_withv(first, ap);
	va_end(ap);
	return oci;
}

static void read_env(const json_t *oci, struct container_env *env)
{
	struct cdi_error err = { 0 };

	cr_assert_eq(container_env_read(oci, env, &err), 0, "%s", cdi_error_message(&err));
}

Test(env, last_assignment_counts)
{
	_cleanup_json_ json_t *oci =
		config_with("NVIDIA_VISIBLE_DEVICES=0", "PATH=/bin", "NVIDIA_VISIBLE_DEVICES",
			    "NVIDIA_VISIBLE_DEVICES=1,2",
			    "NVIDIA_MIG_CONFIG_DEVICES=", "NVIDIA_DRIVER_CAPABILITIES=a=b", NULL);
	struct container_env env;

	json_array_append_new(json_object_get(json_object_get(oci, "process"), "env"),
			      json_integer(3));
	read_env(oci, &env);
	cr_assert_str_eq(env.visible_devices, "1,2");
	cr_assert_str_eq(env.mig_config_devices, "");
	cr_assert_null(env.mig_monitor_devices);
	cr_assert_str_eq(env.driver_capabilities, "a=b");
	cr_assert_null(env.cuda_version);
	container_env_done(&env);
}

Test(env, no_process)
{
	_cleanup_json_ json_t *oci = load("{'ociVersion': '1.0.2'}");
	struct container_env env;
	const struct requirement *reqs;
	size_t n = 9;

	read_env(oci, &env);
	cr_assert_null(env.visible_devices);
	cr_assert_null(container_env_visible_devices(&env));
	cr_assert_eq(container_env_requirements(&env, &reqs, &n, NULL), 0);
	cr_assert_eq(n, 0);
	container_env_done(&env);
}

static void check_legacy(bool want, const char *first, ...)
{
	_cleanup_json_ json_t *oci = NULL;
	struct container_env env;
	va_list ap;

	va_start(ap, first);
	oci = config_withv(first, ap);
	va_end(ap);
	read_env(oci, &env);
	cr_assert_eq(container_env_legacy(&env), want, "%s...", first);
	container_env_done(&env);
}

Test(env, legacy_image)
{
	check_legacy(true, "CUDA_VERSION=10.2.89", NULL);
	check_legacy(true, "CUDA_VERSION=10.2.89", "NVIDIA_REQUIRE_CUDA=", NULL);
	check_legacy(false, "CUDA_VERSION=12.4.1", "NVIDIA_REQUIRE_CUDA=cuda>=12.4", NULL);
	check_legacy(false, "CUDA_VERSION=", NULL);
	check_legacy(false, "NVIDIA_REQUIRE_CUDA=cuda>=12.4", NULL);
	check_legacy(false, "PATH=/bin", NULL);
}

/* NVIDIA_VISIBLE_DEVICES as it counts, and the CDI names it asks for. */
static void check_visible(const json_t *oci, const char *value, const char *first_name)
{
	struct container_env env;
	struct cdi_error err = { 0 };
	char **names;
	size_t n;

	read_env(oci, &env);
	if (value)
		cr_assert_str_eq(container_env_visible_devices(&env), value);
	else
		cr_assert_null(container_env_visible_devices(&env));
	cr_assert_eq(container_env_visible_device_names(&env, &names, &n, &err), 0);
	if (first_name) {
		cr_assert_eq(n, 1);
		cr_assert_str_eq(names[0], first_name);
	} else {
		cr_assert_eq(n, 0);
	}
	cdi_strv_free(names);
	container_env_done(&env);
}

Test(env, legacy_visible_devices)
{
	_cleanup_json_ json_t *unset = config_with("CUDA_VERSION=10.2.89", NULL);
	_cleanup_json_ json_t *empty =
		config_with("CUDA_VERSION=10.2.89", "NVIDIA_VISIBLE_DEVICES=", NULL);
	_cleanup_json_ json_t *isvoid =
		config_with("CUDA_VERSION=10.2.89", "NVIDIA_VISIBLE_DEVICES=void", NULL);
	_cleanup_json_ json_t *one =
		config_with("CUDA_VERSION=10.2.89", "NVIDIA_VISIBLE_DEVICES=1", NULL);
	_cleanup_json_ json_t *modern =
		config_with("CUDA_VERSION=12.4.1", "NVIDIA_REQUIRE_CUDA=cuda>=12.4", NULL);

	check_visible(unset, "all", "nvidia.com/gpu=all");
	check_visible(empty, "", NULL);
	check_visible(isvoid, "void", NULL);
	check_visible(one, "1", "nvidia.com/gpu=1");
	check_visible(modern, NULL, NULL);
}

Test(env, legacy_driver_capabilities)
{
	static const struct {
		const char *env[3];
		int ret;
		unsigned caps;
	} rows[] = {
		{ { "CUDA_VERSION=10.2.89" }, 0, DRIVER_CAPS_ALL },
		{ { "CUDA_VERSION=10.2.89", "NVIDIA_DRIVER_CAPABILITIES=" },
		  0,
		  DRIVER_CAPS_DEFAULT },
		{ { "CUDA_VERSION=10.2.89", "NVIDIA_DRIVER_CAPABILITIES=video" },
		  0,
		  DRIVER_CAP_VIDEO },
		{ { "CUDA_VERSION=12.4.1", "NVIDIA_REQUIRE_CUDA=cuda>=12.4" },
		  0,
		  DRIVER_CAPS_DEFAULT },
		{ { "NVIDIA_DRIVER_CAPABILITIES=compute,gaming" }, -EINVAL, 0 },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		_cleanup_json_ json_t *oci = config_with(rows[i].env[0], rows[i].env[1], NULL);
		struct container_env env;
		struct cdi_error err = { 0 };
		unsigned caps = 0;

		read_env(oci, &env);
		cr_assert_eq(container_env_driver_caps(&env, &caps, &err), rows[i].ret, "row %zu",
			     i);
		cr_assert_eq(caps, rows[i].caps, "row %zu: %#x", i, caps);
		cr_assert_eq(cdi_error_count(&err), rows[i].ret ? 1 : 0);
		cdi_error_reset(&err);
		container_env_done(&env);
	}
}

/* The requirements of oci as "NAME:expr" strings, NULL-terminated want; or the error. */
static void check_requirements(const json_t *oci, const char *first, ...)
{
	struct container_env env;
	struct cdi_error err = { 0 };
	const struct requirement *reqs;
	size_t n, i = 0;
	const char *want;
	va_list ap;

	read_env(oci, &env);
	cr_assert_eq(container_env_requirements(&env, &reqs, &n, &err), 0, "%s",
		     cdi_error_message(&err));
	va_start(ap, first);
	for (want = first; want; want = va_arg(ap, const char *), i++) {
		char got[512];

		cr_assert_lt(i, n, "missing %s", want);
		snprintf(got, sizeof(got), "%s:%s", reqs[i].name, reqs[i].expr);
		cr_assert_str_eq(got, want);
	}
	va_end(ap);
	cr_assert_eq(n, i, "%zu requirements, want %zu", n, i);
	container_env_done(&env);
}

Test(env, requirements_collected)
{
	_cleanup_json_ json_t *oci =
		config_with("NVIDIA_REQUIRE_CUDA=cuda>=12.4 brand=tesla,driver>=470,driver<471",
			    "NVIDIA_REQUIRE_JETPACK=csv-mounts=all",
			    "NVIDIA_REQUIRE_JETPACK_HOST_MOUNTS=", "NVIDIA_REQUIRE_ARCH=arch>=7.0",
			    "NVIDIA_REQUIRE_=driver>=1", "nvidia_require_x=bogus",
			    "NVIDIA_REQUIRE_CUDA=cuda>=12.5", "NVIDIA_REQUIREX=bogus", NULL);

	check_requirements(oci, "NVIDIA_REQUIRE_CUDA:cuda>=12.5", "NVIDIA_REQUIRE_ARCH:arch>=7.0",
			   "NVIDIA_REQUIRE_:driver>=1", NULL);
}

Test(env, legacy_requirement)
{
	static const struct {
		const char *cuda_version, *want;
	} rows[] = {
		{ "CUDA_VERSION=10.2.89", "CUDA_VERSION:cuda>=10.2" },
		{ "CUDA_VERSION=v12.4.1", "CUDA_VERSION:cuda>=12.4" },
		{ "CUDA_VERSION=9", "CUDA_VERSION:cuda>=9.0" },
		{ "CUDA_VERSION=11.0", "CUDA_VERSION:cuda>=11.0" },
		{ "CUDA_VERSION=12.4.1-rc.1+build.7", "CUDA_VERSION:cuda>=12.4" },
		{ "CUDA_VERSION=12.4.1-alpha-1.x", "CUDA_VERSION:cuda>=12.4" },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		_cleanup_json_ json_t *oci =
			config_with("NVIDIA_REQUIRE_ARCH=arch>=5.0", rows[i].cuda_version, NULL);

		check_requirements(oci, "NVIDIA_REQUIRE_ARCH:arch>=5.0", rows[i].want, NULL);
	}
}

Test(env, legacy_cuda_version_not_semver)
{
	static const char *const bad[] = {
		"CUDA_VERSION=12.4.1.5",  "CUDA_VERSION=012.4",	       "CUDA_VERSION=12.04",
		"CUDA_VERSION=12.4-rc1",  "CUDA_VERSION=12.4.1-",      "CUDA_VERSION=12.4.1+",
		"CUDA_VERSION=12.4.1-01", "CUDA_VERSION=4294967296.1", "CUDA_VERSION=vv12",
		"CUDA_VERSION=12.4.1_1",  "CUDA_VERSION=latest",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		_cleanup_json_ json_t *oci = config_with(bad[i], NULL);
		_cleanup_json_ json_t *off =
			config_with(bad[i], "NVIDIA_DISABLE_REQUIRE=true", NULL);
		struct container_env env;
		struct cdi_error err = { 0 };
		const struct requirement *reqs;
		size_t n;

		read_env(oci, &env);
		cr_assert_eq(container_env_requirements(&env, &reqs, &n, &err), -EINVAL, "%s",
			     bad[i]);
		cr_assert(!strncmp(cdi_error_message(&err), "CUDA_VERSION: \"", 15), "%s",
			  cdi_error_message(&err));
		cdi_error_reset(&err);
		container_env_done(&env);
		/* disabled checks need no version */
		read_env(off, &env);
		cr_assert_eq(container_env_requirements(&env, &reqs, &n, &err), 0);
		cr_assert_eq(n, 0);
		container_env_done(&env);
	}
}

Test(env, disable_require_is_go_parsebool)
{
	static const struct {
		const char *value;
		bool disabled;
	} rows[] = {
		{ "1", true },	    { "t", true },	{ "T", true },	  { "TRUE", true },
		{ "true", true },   { "True", true },	{ "yes", false }, { "on", false },
		{ "TrUe", false },  { "false", false }, { "0", false },	  { "", false },
		{ " true", false },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char var[64];
		_cleanup_json_ json_t *oci = NULL;
		struct container_env env;
		const struct requirement *reqs;
		size_t n;

		snprintf(var, sizeof(var), "NVIDIA_DISABLE_REQUIRE=%s", rows[i].value);
		oci = config_with("NVIDIA_REQUIRE_CUDA=cuda>=99", var, NULL);
		read_env(oci, &env);
		cr_assert_eq(container_env_require_disabled(&env), rows[i].disabled, "\"%s\"",
			     rows[i].value);
		cr_assert_eq(container_env_requirements(&env, &reqs, &n, NULL), 0);
		cr_assert_eq(n, rows[i].disabled ? 0 : 1);
		container_env_done(&env);
	}
}

Test(env, legacy_requirement_checked)
{
	static const struct require_driver r550 = { "550.54.15", "12.4" };
	static const struct require_device a100 = { "GPU 0", "8.0", "Unknown" };
	_cleanup_json_ json_t *ok = config_with("CUDA_VERSION=12.4.1", NULL);
	_cleanup_json_ json_t *newer = config_with("CUDA_VERSION=12.5.0", NULL);
	struct container_env env;
	struct cdi_error err = { 0 };
	const struct requirement *reqs;
	size_t n;

	read_env(ok, &env);
	cr_assert_eq(container_env_requirements(&env, &reqs, &n, &err), 0);
	cr_assert_eq(require_check(reqs, n, &r550, &a100, 1, &err), 0);
	container_env_done(&env);
	read_env(newer, &env);
	cr_assert_eq(container_env_requirements(&env, &reqs, &n, &err), 0);
	cr_assert_eq(require_check(reqs, n, &r550, &a100, 1, &err), REQUIRE_UNMET);
	cr_assert_str_eq(
		cdi_error_message(&err),
		"CUDA_VERSION: unsatisfied condition: cuda>=12.5 (driver supports CUDA 12.4), please update your driver to a newer version, or use an earlier cuda container");
	cdi_error_reset(&err);
	container_env_done(&env);
}

Test(env, many_variables)
{
	_cleanup_json_ json_t *oci = config_with(NULL, NULL);
	json_t *list = json_object_get(json_object_get(oci, "process"), "env");
	const struct requirement *reqs;
	struct container_env env;
	size_t n;

	/* a config is at most 64 MiB: even so many names are read in linear time */
	for (int i = 0; i < 40000; i++)
		json_array_append_new(list,
				      json_sprintf("NVIDIA_REQUIRE_%d=driver>=%d", i % 20000, i));
	read_env(oci, &env);
	cr_assert_eq(container_env_requirements(&env, &reqs, &n, NULL), 0);
	cr_assert_eq(n, 20000);
	cr_assert_str_eq(reqs[7].name, "NVIDIA_REQUIRE_7");
	cr_assert_str_eq(reqs[7].expr, "driver>=20007");
	container_env_done(&env);
}
