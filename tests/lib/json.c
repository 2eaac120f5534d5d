/* SPDX-License-Identifier: Apache-2.0 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <jansson.h>

#include "testlib.h"

json_t *load(const char *text)
{
	char *s = strdup(text);
	json_error_t jerr;
	json_t *j;

	cr_assert_not_null(s);
	for (char *p = s; *p; p++)
		if (*p == '\'')
			*p = '"';
	j = json_loads(s, 0, &jerr);
	cr_assert_not_null(j, "bad test JSON: %s: %s", jerr.text, s);
	free(s);
	return j;
}

void assert_json_eq(const json_t *got, const json_t *want)
{
	if (!json_equal((json_t *)got, (json_t *)want)) {
		char *g = json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS);
		char *w = json_dumps(want, JSON_COMPACT | JSON_SORT_KEYS);

		cr_assert_fail("JSON differs\n got:  %s\n want: %s", g, w);
	}
}
