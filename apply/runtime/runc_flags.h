/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runc 1.1's flags, and how its command line spells them (urfave/cli v1 over Go's flag
 * package): "-name" and "--name" alike, "--name=value" or "--name value" for a flag with a
 * value. Shared by the command-line parser (runc_cmdline.h) and the passthrough taken before
 * libc starts (fast_exec.h): so it calls nothing, not even libc's string functions.
 */
#ifndef CDIKIT_APPLY_RUNC_FLAGS_H
#define CDIKIT_APPLY_RUNC_FLAGS_H

#include <stdbool.h>
#include <stddef.h>

struct runc_flag_def {
	const char *name;
	bool value; /* takes a value */
};

/* runc --help, GLOBAL OPTIONS. */
extern const struct runc_flag_def runc_global_flags[];
extern const size_t runc_n_global_flags;
/* runc create --help; run adds its own. */
extern const struct runc_flag_def runc_create_flags[];
extern const size_t runc_n_create_flags;
extern const struct runc_flag_def runc_run_flags[];
extern const size_t runc_n_run_flags;

/* A flag argument split into name and inline value. */
struct runc_flag_arg {
	const char *name;
	size_t name_len;
	const char *value; /* after '=', or NULL */
};

/* arg as a flag; false for a non-flag ("x", "-"). */
bool runc_flag_split(const char *arg, struct runc_flag_arg *f);

bool runc_flag_is(const struct runc_flag_arg *f, const char *name);

/* The definition f names in defs, or NULL. */
const struct runc_flag_def *runc_flag_find(const struct runc_flag_def *defs, size_t n,
					   const struct runc_flag_arg *f);

#endif
