/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NVIDIA's hook command line, read as urfave/cli reads it (internal to apply/hook/): -name
 * and --name alike, the value after '=' or as the next argument, booleans as Go's
 * strconv.ParseBool, repeatable list flags whose values also split at commas.
 */
#ifndef CDIKIT_APPLY_HOOK_FLAGS_H
#define CDIKIT_APPLY_HOOK_FLAGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "strv.h"

enum hook_flag_kind {
	HOOK_FLAG_BOOL,
	HOOK_FLAG_STRING,
	HOOK_FLAG_LIST,
};

struct hook_flag {
	const char *name;  /* "folder" */
	const char *alias; /* "d", or NULL */
	enum hook_flag_kind kind;
	const char *arg;  /* the value's name in --help ("DIR") */
	const char *help; /* NULL: not shown */
};

struct hook_flag_value {
	bool set;
	bool on;		  /* HOOK_FLAG_BOOL */
	const char *text;	  /* HOOK_FLAG_STRING: the last one given */
	struct strv_builder list; /* HOOK_FLAG_LIST: every value, in order */
};

/* Go's strconv.ParseBool: 1 true, 0 false, -1 neither. */
int go_parse_bool(const char *s);

enum {
	HOOK_FLAGS_STOP = 1u << 0, /* stop at the first argument that is not a flag */
};

/*
 * Read argv[0..argc) against flags (n of them), values into vals (zeroed by the caller, one per
 * flag). Returns the index of the first argument left (argc when all were read), or -1 with
 * *ret_bad pointing at the argument that is not a flag of the table or lacks its value
 * (*ret_missing true then), or -ENOMEM. "--help" / "-h" are not flags of any table: they come
 * back as unknown unless the table has them.
 */
int hook_flags_parse(int argc, char **argv, const struct hook_flag *flags, size_t n,
		     struct hook_flag_value *vals, unsigned mode, const char **ret_bad,
		     bool *ret_missing);

void hook_flag_values_clear(struct hook_flag_value *vals, size_t n);

/* The flags' lines of a --help, one per shown flag. */
void hook_flags_help(FILE *f, const struct hook_flag *flags, size_t n);

#endif
