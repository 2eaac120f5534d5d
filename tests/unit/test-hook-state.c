/* SPDX-License-Identifier: Apache-2.0 */
/*
 * How a hook finds the container: the OCI state (a file here; stdin in a runtime) names the
 * bundle, whose config.json names the rootfs, relative to the bundle unless absolute.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hook/hook_state.h"
#include "macro.h"
#include "../lib/testlib.h"

static struct scratch tmp;
static char state[96];

static void setup(void)
{
	scratch_make(&tmp, "hook-state");
	snprintf(state, sizeof(state), "%s/state.json", tmp.path);
	sh("mkdir -p '%s/bundle/rootfs' '%s/elsewhere' && "
	   "echo '{\"ociVersion\":\"1.0.2\",\"id\":\"c\",\"status\":\"creating\",\"pid\":1,\"bundle\":\"%s/bundle\"}' > '%s'",
	   tmp.path, tmp.path, tmp.path, state);
}

static void teardown(void)
{
	scratch_remove(&tmp);
}

TestSuite(hook_state, .init = setup, .fini = teardown);

static void config(const char *json)
{
	sh("printf '%%s' '%s' > '%s/bundle/config.json'", json, tmp.path);
}

static void expect_root(const char *want_suffix)
{
	struct hook_root r = { .fd = -1 };
	struct cdi_error err = { 0 };
	_cleanup_free_ char *want = NULL;

	cr_assert_eq(hook_root_load(state, &r, &err), 0, "%s", cdi_error_message(&err));
	cr_assert(asprintf(&want, "%s%s", tmp.path, want_suffix) >= 0);
	cr_assert_str_eq(r.path, want);
	cr_assert_geq(r.fd, 0);
	hook_root_done(&r);
}

Test(hook_state, relative_root)
{
	config("{\"ociVersion\":\"1.0.2\",\"root\":{\"path\":\"rootfs\",\"readonly\":true}}");
	expect_root("/bundle/rootfs");
	config("{\"root\":{\"path\":\"./rootfs/../rootfs/\"}}");
	expect_root("/bundle/rootfs");
}

Test(hook_state, absolute_root_and_none)
{
	char *json;

	cr_assert(asprintf(&json, "{\"root\":{\"path\":\"%s/elsewhere\"}}", tmp.path) >= 0);
	config(json);
	free(json);
	expect_root("/elsewhere");
	config("{\"process\":{}}");
	expect_root("/bundle");
}

static void expect_failure(const char *what)
{
	struct hook_root r = { .fd = -1 };
	struct cdi_error err = { 0 };

	cr_assert_lt(hook_root_load(state, &r, &err), 0);
	cr_assert(strstr(cdi_error_message(&err), what), "want '%s' in: %s", what,
		  cdi_error_message(&err));
	cdi_error_reset(&err);
}

Test(hook_state, refusals)
{
	config("{\"root\":{\"path\":\"/\"}}");
	expect_failure("host's /");
	config("{\"root\":{\"path\":\"missing\"}}");
	expect_failure("bundle/missing");
	config("not json");
	expect_failure("config.json");
	sh("rm '%s/bundle/config.json' && ln -s ../elsewhere/c.json '%s/bundle/config.json' && "
	   "echo '{}' > '%s/elsewhere/c.json'",
	   tmp.path, tmp.path, tmp.path);
	expect_failure("symbolic link");
	sh("echo '{\"id\":\"c\"}' > '%s'", state);
	expect_failure("names no bundle");
	sh("echo '[' > '%s'", state);
	expect_failure("not an OCI container state");
}
