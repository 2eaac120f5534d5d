/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hook_flags.h"

int go_parse_bool(const char *s)
{
	static const char *const yes[] = { "1", "t", "T", "TRUE", "true", "True" };
	static const char *const no[] = { "0", "f", "F", "FALSE", "false", "False" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcmp(s, yes[i]) == 0)
			return 1;
		if (strcmp(s, no[i]) == 0)
			return 0;
	}
	return -1;
}

static const struct hook_flag *find_flag(const struct hook_flag *flags, size_t n, const char *name,
					 size_t len, size_t *ret_i)
{
	for (size_t i = 0; i < n; i++)
		if ((strlen(flags[i].name) == len && memcmp(flags[i].name, name, len) == 0) ||
		    (flags[i].alias && strlen(flags[i].alias) == len &&
		     memcmp(flags[i].alias, name, len) == 0)) {
			*ret_i = i;
			return &flags[i];
		}
	return NULL;
}

/* A list value: its comma-separated parts, each one entry (urfave's slice separator). */
static int add_list(struct strv_builder *b, const char *value)
{
	for (const char *p = value;;) {
		const char *comma = strchr(p, ',');
		int r = strv_builder_addn(b, p, comma ? (size_t)(comma - p) : strlen(p));

		if (r < 0 || !comma)
			return r;
		p = comma + 1;
	}
}

int hook_flags_parse(int argc, char **argv, const struct hook_flag *flags, size_t n,
		     struct hook_flag_value *vals, unsigned mode, const char **ret_bad,
		     bool *ret_missing)
{
	int i = 0, first_positional = -1;

	*ret_missing = false;
	for (; i < argc; i++) {
		const char *a = argv[i], *name, *eq, *value = NULL;
		const struct hook_flag *f;
		size_t k;
		int b;

		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (a[0] != '-' || a[1] == '\0') {
			if (mode & HOOK_FLAGS_STOP)
				return i;
			if (first_positional < 0)
				first_positional = i;
			continue;
		}
		name = a + (a[1] == '-' ? 2 : 1);
		eq = strchr(name, '=');
		f = find_flag(flags, n, name, eq ? (size_t)(eq - name) : strlen(name), &k);
		if (!f) {
			*ret_bad = a;
			return -1;
		}
		vals[k].set = true;
		if (eq)
			value = eq + 1;
		if (f->kind == HOOK_FLAG_BOOL) {
			b = value ? go_parse_bool(value) : 1;
			if (b < 0) {
				*ret_bad = a;
				return -1;
			}
			vals[k].on = b;
			continue;
		}
		if (!value) {
			if (i + 1 >= argc) {
				*ret_bad = a;
				*ret_missing = true;
				return -1;
			}
			value = argv[++i];
		}
		if (f->kind == HOOK_FLAG_STRING)
			vals[k].text = value;
		else if (add_list(&vals[k].list, value) < 0)
			return -ENOMEM;
	}
	return first_positional >= 0 ? first_positional : i;
}

void hook_flag_values_clear(struct hook_flag_value *vals, size_t n)
{
	for (size_t i = 0; i < n; i++)
		strv_builder_clear(&vals[i].list);
}

void hook_flags_help(FILE *f, const struct hook_flag *flags, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char left[64];

		if (!flags[i].help)
			continue;
		snprintf(left, sizeof(left), "%s%s%s--%s%s%s", flags[i].alias ? "-" : "",
			 flags[i].alias ? flags[i].alias : "", flags[i].alias ? ", " : "",
			 flags[i].name, flags[i].arg ? " " : "", flags[i].arg ? flags[i].arg : "");
		fprintf(f, "  %-28s %s\n", left, flags[i].help);
	}
}
