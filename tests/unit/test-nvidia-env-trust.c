/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Whether NVIDIA_VISIBLE_DEVICES from a container's own environment is honoured, and what
 * counts as privileged: nvidia-container-toolkit's image.IsPrivileged (CAP_SYS_ADMIN in the
 * bounding set) on configs written by runc itself.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "nvidia/env_trust.h"
#include "../lib/testlib.h"
#include "load.h"

Test(trust, privileged_is_bounding_sys_admin)
{
	static const struct {
		const char *caps;
		bool privileged;
	} rows[] = {
		{ "{'bounding': ['CAP_KILL', 'CAP_SYS_ADMIN']}", true },
		{ "{'bounding': ['CAP_KILL'], 'effective': ['CAP_SYS_ADMIN'], 'permitted': ['CAP_SYS_ADMIN']}",
		  false },
		{ "{'bounding': ['SYS_ADMIN', 'cap_sys_admin']}", false },
		{ "{'effective': ['CAP_SYS_ADMIN']}", false },
		{ "{}", false },
		{ "null", false },
		/* runtime-spec 1.0.0-rc1..rc4: one flat list */
		{ "['CAP_CHOWN', 'CAP_SYS_ADMIN']", true },
		{ "['CAP_CHOWN']", false },
		{ "{'bounding': [1, null, 'CAP_SYS_ADMIN']}", true },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char text[512];
		_cleanup_json_ json_t *oci = NULL;

		snprintf(text, sizeof(text), "{'process': {'capabilities': %s}}", rows[i].caps);
		oci = load(text);
		cr_expect_eq(oci_privileged(oci), rows[i].privileged, "%s", rows[i].caps);
	}
	cr_assert(!oci_privileged(NULL));
}

static char dir[] = "/tmp/cdikit-trust.XXXXXX";

static void runc_setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
}

static void runc_teardown(void)
{
	sh("rm -rf '%s'", dir);
}

static json_t *read_config(const char *name)
{
	char path[PATH_MAX], *buf;
	size_t len;
	json_error_t jerr;
	json_t *oci;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	cr_assert_eq(cdi_read_file(path, 1 << 20, &buf, &len), 0);
	oci = json_loads(buf, 0, &jerr);
	free(buf);
	cr_assert_not_null(oci, "%s: %s", path, jerr.text);
	return oci;
}

Test(trust, runc_spec_configs, .init = runc_setup, .fini = runc_teardown)
{
	json_t *oci, *bounding;

	if (system("command -v runc >/dev/null") != 0)
		cr_skip_test("runc is not installed");
	sh("cd '%s' && runc spec && mv config.json default.json && runc spec --rootless", dir);
	oci = read_config("default.json");
	/* runc's default container is unprivileged */
	cr_assert(!oci_privileged(oci));
	cr_assert(!env_trust_visible_devices(oci, false));
	cr_assert(env_trust_visible_devices(oci, true));
	/* as docker run --privileged: every capability, CAP_SYS_ADMIN among them */
	bounding = json_object_get(json_object_get(json_object_get(oci, "process"), "capabilities"),
				   "bounding");
	json_array_append_new(bounding, json_string("CAP_SYS_ADMIN"));
	cr_assert(oci_privileged(oci));
	cr_assert(env_trust_visible_devices(oci, false));
	json_decref(oci);
	/* runc spec --rootless */
	oci = read_config("config.json");
	cr_assert(!oci_privileged(oci));
	json_decref(oci);
}

Test(trust, setting)
{
	struct cdi_error err = { 0 };
	bool v = false;

	cr_assert(ENV_TRUST_DEFAULT);
	cr_assert_str_eq(ENV_TRUST_SETTING,
			 "accept-nvidia-visible-devices-envvar-when-unprivileged");
	cr_assert_eq(env_trust_setting_parse("true", &v, &err), 0);
	cr_assert(v);
	cr_assert_eq(env_trust_setting_parse("false", &v, &err), 0);
	cr_assert(!v);
	cr_assert_eq(env_trust_setting_parse("yes", &v, &err), -EINVAL);
	cr_assert_str_eq(
		cdi_error_message(&err),
		"accept-nvidia-visible-devices-envvar-when-unprivileged: \"yes\" is not true or false");
	cdi_error_reset(&err);
	cr_assert_eq(env_trust_setting_parse(NULL, &v, &err), -EINVAL);
	cdi_error_reset(&err);
}
