/* SPDX-License-Identifier: Apache-2.0 */
/* Freestanding (runc_flags.h): loops instead of strchr, strlen and memcmp. */
#include "runc_flags.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

const struct runc_flag_def runc_global_flags[] = {
	{ "debug", false },   { "log", true },	 { "log-format", true },
	{ "root", true },     { "criu", true },	 { "systemd-cgroup", false },
	{ "rootless", true }, { "help", false }, { "h", false },
	{ "version", false }, { "v", false },
};
const size_t runc_n_global_flags = N(runc_global_flags);

const struct runc_flag_def runc_create_flags[] = {
	{ "bundle", true },	  { "b", true },	 { "console-socket", true },
	{ "pid-file", true },	  { "no-pivot", false }, { "no-new-keyring", false },
	{ "preserve-fds", true },
};
const size_t runc_n_create_flags = N(runc_create_flags);

const struct runc_flag_def runc_run_flags[] = {
	{ "detach", false },
	{ "d", false },
	{ "keep", false },
	{ "no-subreaper", false },
};
const size_t runc_n_run_flags = N(runc_run_flags);

bool runc_flag_split(const char *arg, struct runc_flag_arg *f)
{
	const char *p;

	if (arg[0] != '-' || arg[1] == '\0')
		return false;
	arg += arg[1] == '-' ? 2 : 1;
	for (p = arg; *p && *p != '='; p++)
		;
	f->name = arg;
	f->name_len = (size_t)(p - arg);
	f->value = *p ? p + 1 : NULL;
	return true;
}

bool runc_flag_is(const struct runc_flag_arg *f, const char *name)
{
	size_t i;

	for (i = 0; i < f->name_len; i++)
		if (name[i] != f->name[i])
			return false; /* also at name's end: f->name holds no '\0' */
	return name[i] == '\0';
}

const struct runc_flag_def *runc_flag_find(const struct runc_flag_def *defs, size_t n,
					   const struct runc_flag_arg *f)
{
	for (size_t i = 0; i < n; i++)
		if (runc_flag_is(f, defs[i].name))
			return &defs[i];
	return NULL;
}
