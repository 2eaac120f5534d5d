/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Numbers as text whatever the locale: Go's FormatFloat(32) against vectors Go itself wrote
 * (tests/reference/float32-format.go), the shortest double, and the "C" strtod, each also
 * under de_DE.UTF-8, whose decimal point is ','.
 */
#include <criterion/criterion.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cdi/spec.h>

#include "load.h"
#include "number_text.h"
#include "yaml_scalar.h"

static float float_of_bits(uint32_t bits)
{
	float f;

	memcpy(&f, &bits, sizeof(f));
	return f;
}

/* Every vector of the Go file; returns how many were checked. */
static size_t check_go_vectors(void)
{
	FILE *f = fopen("tests/reference/float32-go.txt", "r");
	char line[128], want[64], got[NUMBER_TEXT_MAX];
	unsigned bits;
	size_t n = 0;

	cr_assert_not_null(f, "tests/reference/float32-go.txt");
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		cr_assert_eq(sscanf(line, "%x %63s", &bits, want), 2, "bad line: %s", line);
		format_float32_go(got, sizeof(got), float_of_bits(bits));
		cr_expect_str_eq(got, want, "bits %08x: got %s, Go says %s", bits, got, want);
		n++;
	}
	fclose(f);
	return n;
}

static void use_german_locale(void)
{
	/* Debian's locales-all provides it without locale-gen. */
	cr_assert_not_null(setlocale(LC_ALL, "de_DE.UTF-8"),
			   "no de_DE.UTF-8 locale (install locales-all)");
	cr_assert_str_eq(localeconv()->decimal_point, ",");
}

static void back_to_c(void)
{
	setlocale(LC_ALL, "C");
}

Test(number_text, float32_as_go_formats_it)
{
	cr_assert_gt(check_go_vectors(), 900);
}

Test(number_text, float32_as_go_formats_it_under_a_comma_locale, .fini = back_to_c)
{
	use_german_locale();
	cr_assert_gt(check_go_vectors(), 900);
}

Test(number_text, float32_edge_cases)
{
	static const struct {
		double d;
		const char *want;
	} cases[] = {
		{ 0.3, "0.3" },
		{ 1.0, "1" },
		{ 1e6, "1e+06" },
		{ 999999, "999999" },
		{ 1234567, "1.234567e+06" },
		{ 1e-4, "0.0001" },
		{ 1e-5, "1e-05" },
		{ -0.0, "-0" },
		{ 1e39, "+Inf" },
		{ -1e39, "-Inf" },
		{ NAN, "NaN" },
		{ 0.30000000000000004, "0.3" },
		{ 7e-46, "0" },
		{ 1.0000001, "1.0000001" },
	};
	char buf[NUMBER_TEXT_MAX], small[4];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		format_float32_go(buf, sizeof(buf), cases[i].d);
		cr_expect_str_eq(buf, cases[i].want, "%.17g", cases[i].d);
	}
	/* A short buffer is cut, never overrun. */
	format_float32_go(small, sizeof(small), 1234567);
	cr_expect_str_eq(small, "1.2");
}

Test(number_text, shortest_double_and_strtod_ignore_the_locale, .fini = back_to_c)
{
	char buf[NUMBER_TEXT_MAX];
	char *end;

	use_german_locale();
	format_double_shortest(buf, sizeof(buf), 0.1);
	cr_expect_str_eq(buf, "0.1");
	format_double_shortest(buf, sizeof(buf), 1e100);
	cr_expect_str_eq(buf, "1e+100");
	format_double_shortest(buf, sizeof(buf), 0.30000000000000004);
	cr_expect_str_eq(buf, "0.30000000000000004");
	cr_expect_eq(strtod_c("2.5", &end), 2.5);
	cr_expect_eq(*end, '\0');
	cr_expect_eq(strtod_c("2,5", &end), 2.0, "',' is no decimal point in specs");
}

/* The callers: a YAML float, a float key and a number coerced to a string, under de_DE. */
Test(number_text, specs_read_the_same_under_a_comma_locale, .fini = back_to_c)
{
	static const char spec[] = "cdiVersion: 0.5.0\n"
				   "kind: vendor.com/device\n"
				   "devices:\n"
				   "- name: 0.5\n"
				   "  containerEdits:\n"
				   "    env: [\"A=1\"]\n";
	struct cdi_error err = { 0 };
	json_t *root = NULL, *v;
	cdi_spec *s = NULL;
	char key[NUMBER_TEXT_MAX];

	use_german_locale();
	cr_assert_eq(cdi_yaml_load("t.yaml", "x: 2.5\n", 7, &root, NULL, &err), 0);
	v = json_object_get(root, "x");
	cr_assert(json_is_real(v));
	cr_expect_eq(json_real_value(v), 2.5);
	json_decref(root);

	cdi_scalar_key_float(key, sizeof(key), 0.25);
	cr_expect_str_eq(key, "0.25");
	cdi_scalar_key_float(key, sizeof(key), INFINITY);
	cr_expect_str_eq(key, ".inf");

	cr_assert_eq(cdi_spec_load_buffer("t.yaml", spec, strlen(spec), 0, &s, &err), 0, "%s",
		     cdi_error_message(&err));
	cr_expect_str_eq(cdi_spec_device_name(s, 0), "0.5");
	cdi_spec_free(s);
	cdi_error_reset(&err);
}
