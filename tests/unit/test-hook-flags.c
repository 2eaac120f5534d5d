/* SPDX-License-Identifier: Apache-2.0 */
/* NVIDIA's hook command line as urfave/cli reads it: the forms nvidia-ctk's specs use and
 * those a hand-written hook line may. */
#include <criterion/criterion.h>
#include <string.h>

#include "hook/hook_flags.h"
#include "macro.h"

static const struct hook_flag flags[] = {
	{ "folder", NULL, HOOK_FLAG_LIST, "DIR", "" },
	{ "host-driver-version", NULL, HOOK_FLAG_STRING, "V", "" },
	{ "debug", "d", HOOK_FLAG_BOOL, NULL, "" },
};

static int parse(char **argv, int argc, struct hook_flag_value *v, unsigned mode)
{
	const char *bad = NULL;
	bool missing = false;

	memset(v, 0, sizeof(*v) * ELEMENTSOF(flags));
	return hook_flags_parse(argc, argv, flags, ELEMENTSOF(flags), v, mode, &bad, &missing);
}

Test(hook_flags, forms)
{
	char *argv[] = { "--folder",
			 "/lib/x86_64-linux-gnu",
			 "-folder=/a,/b",
			 "--host-driver-version=999.88.77",
			 "-d",
			 "extra",
			 "--debug=false" };
	struct hook_flag_value v[ELEMENTSOF(flags)];

	cr_assert_eq(parse(argv, 7, v, 0), 5, "the first argument left");
	cr_assert_eq(v[0].list.n, 3);
	cr_assert_str_eq(v[0].list.v[0], "/lib/x86_64-linux-gnu");
	cr_assert_str_eq(v[0].list.v[1], "/a");
	cr_assert_str_eq(v[0].list.v[2], "/b");
	cr_assert_str_eq(v[1].text, "999.88.77");
	cr_assert(v[2].set && !v[2].on, "the last --debug wins");
	hook_flag_values_clear(v, ELEMENTSOF(flags));
	cr_assert_eq(parse(argv + 4, 3, v, HOOK_FLAGS_STOP), 1, "stops at the command");
	cr_assert(v[2].on);
}

Test(hook_flags, errors)
{
	char *unknown[] = { "--ldconfig-path", "x" }, *missing[] = { "--folder" },
	     *badbool[] = { "--debug=maybe" };
	struct hook_flag_value v[ELEMENTSOF(flags)];

	cr_assert_eq(parse(unknown, 2, v, 0), -1);
	cr_assert_eq(parse(missing, 1, v, 0), -1);
	cr_assert_eq(parse(badbool, 1, v, 0), -1);
	cr_assert_eq(go_parse_bool("True"), 1);
	cr_assert_eq(go_parse_bool("F"), 0);
	cr_assert_eq(go_parse_bool("yes"), -1);
	hook_flag_values_clear(v, ELEMENTSOF(flags));
}
