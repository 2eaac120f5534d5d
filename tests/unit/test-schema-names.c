/* SPDX-License-Identifier: Apache-2.0 */
/* Names: vendor, class, device, qualified device names (schema/names.c). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include <cdi/names.h>

#include "rules.h"

/* Reference: pkg/parser/parser_test.go TestQualifiedName, the qualified cases. */
Test(names, parser_test_qualified)
{
	static const char *const cases[][4] = {
		{ "vendor.com/class=dev", "vendor.com", "class", "dev" },
		/* single-character vendor and class (the reference used to panic) */
		{ "a/b=c", "a", "b", "c" },
		{ "aa/b=cc", "aa", "b", "cc" },
		{ "a/bb=cc", "a", "bb", "cc" },
		{ "vendor.com/class=0", "vendor.com", "class", "0" },
		{ "vendor1.com/class1=dev1", "vendor1.com", "class1", "dev1" },
		{ "vendor1.com/class.subclass=dev1", "vendor1.com", "class.subclass", "dev1" },
		{ "other-vendor1.com/class_1=dev_1", "other-vendor1.com", "class_1", "dev_1" },
		{ "yet_another-vendor2.com/c-lass_2=dev_1:2.3", "yet_another-vendor2.com",
		  "c-lass_2", "dev_1:2.3" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cdi_error err = { 0 };
		char *v = NULL, *c = NULL, *n = NULL;

		cr_expect(cdi_is_qualified_name(cases[i][0]), "%s", cases[i][0]);
		cr_assert_eq(cdi_parse_qualified_name(cases[i][0], &v, &c, &n, &err), 0, "%s: %s",
			     cases[i][0], cdi_error_message(&err));
		cr_expect_eq(cdi_error_count(&err), 0);
		cr_expect_str_eq(v, cases[i][1]);
		cr_expect_str_eq(c, cases[i][2]);
		cr_expect_str_eq(n, cases[i][3]);
		free(v), free(c), free(n);

		/* ParseDevice gives the same parts; QualifiedName rebuilds the input. */
		cr_assert_eq(cdi_split_device(cases[i][0], &v, &c, &n, NULL), 0);
		cr_expect_str_eq(v, cases[i][1]);
		cr_expect_str_eq(c, cases[i][2]);
		cr_expect_str_eq(n, cases[i][3]);
		{
			char rebuilt[256];

			snprintf(rebuilt, sizeof(rebuilt), "%s/%s=%s", v, c, n);
			cr_expect_str_eq(rebuilt, cases[i][0]);
		}
		free(v), free(c), free(n);
	}
}

/*
 * Reference: pkg/parser/parser_test.go TestQualifiedName, the parsable but not qualified
 * cases: ParseDevice splits them, ParseQualifiedName rejects them. The messages are ours.
 */
Test(names, parser_test_parsable_not_qualified)
{
	static const char *const cases[][5] = {
		{ "_invalid.com/class=dev", "_invalid.com", "class", "dev",
		  "invalid device \"_invalid.com/class=dev\": invalid vendor \"_invalid.com\": must start with a letter" },
		{ "invalid2.com-/class=dev", "invalid2.com-", "class", "dev",
		  "invalid device \"invalid2.com-/class=dev\": invalid vendor \"invalid2.com-\": must end with a letter or digit" },
		{ "invalid3.com/_class=dev", "invalid3.com", "_class", "dev",
		  "invalid device \"invalid3.com/_class=dev\": invalid class \"_class\": must start with a letter" },
		{ "invalid4.com/class_=dev", "invalid4.com", "class_", "dev",
		  "invalid device \"invalid4.com/class_=dev\": invalid class \"class_\": must end with a letter or digit" },
		{ "invalid5.com/class=-dev", "invalid5.com", "class", "-dev",
		  "invalid device \"invalid5.com/class=-dev\": invalid device name \"-dev\": must start with a letter or digit" },
		{ "invalid6.com/class=dev:", "invalid6.com", "class", "dev:",
		  "invalid device \"invalid6.com/class=dev:\": invalid device name \"dev:\": must end with a letter or digit" },
		{ "*.com/*dev=*gpu*", "*.com", "*dev", "*gpu*",
		  "invalid device \"*.com/*dev=*gpu*\": invalid vendor \"*.com\": must start with a letter" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cdi_error err = { 0 };
		char *v = (char *)"untouched", *c = NULL, *n = NULL;

		cr_expect_not(cdi_is_qualified_name(cases[i][0]), "%s", cases[i][0]);
		cr_expect_eq(cdi_parse_qualified_name(cases[i][0], &v, &c, &n, &err), -EINVAL);
		cr_expect_str_eq(v, "untouched", "outputs are written only on success");
		cr_assert_eq(cdi_error_count(&err), 1);
		cr_expect_str_eq(cdi_problem_text(cdi_error_problem(&err, 0)), cases[i][4]);
		cr_expect_eq(cdi_error_code(&err), -EINVAL);
		cdi_error_reset(&err);

		cr_assert_eq(cdi_split_device(cases[i][0], &v, &c, &n, NULL), 0, "%s", cases[i][0]);
		cr_expect_str_eq(v, cases[i][1]);
		cr_expect_str_eq(c, cases[i][2]);
		cr_expect_str_eq(n, cases[i][3]);
		free(v), free(c), free(n);
	}
}

/* ParseDevice's refusals (reference: parser.go; the spec_test/annotations_test inputs
 * "vendor2.com/device2", "/dev/null" and "vendor3.com=device3"), with the part named missing. */
Test(names, unqualified)
{
	static const char *const cases[][2] = {
		{ "", "unqualified device \"\", missing vendor" },
		{ "/dev/null", "unqualified device \"/dev/null\", missing vendor" },
		{ "vendor2.com/device2",
		  "unqualified device \"vendor2.com/device2\", missing vendor" },
		{ "vendor3.com=device3",
		  "unqualified device \"vendor3.com=device3\", missing vendor" },
		{ "=dev", "unqualified device \"=dev\", missing vendor" },
		{ "/class=dev", "unqualified device \"/class=dev\", missing vendor" },
		{ "vendor.com/=dev", "unqualified device \"vendor.com/=dev\", missing class" },
		{ "vendor.com/class=",
		  "unqualified device \"vendor.com/class=\", missing device name" },
		/* the first '=' ends the qualifier, which then has no '/' */
		{ "a=b/c=d", "unqualified device \"a=b/c=d\", missing vendor" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cdi_error err = { 0 };
		char *v = NULL, *c = NULL, *n = NULL;

		cr_expect_eq(cdi_split_device(cases[i][0], &v, &c, &n, &err), -EINVAL, "%s",
			     cases[i][0]);
		cr_expect_null(v);
		cr_assert_eq(cdi_error_count(&err), 1, "%s", cases[i][0]);
		cr_expect_str_eq(cdi_problem_text(cdi_error_problem(&err, 0)), cases[i][1]);
		cdi_error_reset(&err);
		cr_expect_eq(cdi_parse_qualified_name(cases[i][0], NULL, NULL, NULL, &err),
			     -EINVAL);
		cr_assert_eq(cdi_error_count(&err), 1, "%s", cases[i][0]);
		cr_expect_str_eq(cdi_problem_text(cdi_error_problem(&err, 0)), cases[i][1]);
		cdi_error_reset(&err);
	}
	cr_expect_eq(cdi_split_device(NULL, NULL, NULL, NULL, NULL), -EINVAL);
	cr_expect_not(cdi_is_qualified_name(NULL));
}

/* ParseQualifier cuts at the first '/': "a.com/x/y=n" has the class "x/y", which the class
 * rule then rejects (reference: cdi-semantics.md §2). */
Test(names, class_with_slash)
{
	struct cdi_error err = { 0 };
	char *v, *c, *n;

	cr_assert_eq(cdi_split_device("a.com/x/y=n", &v, &c, &n, NULL), 0);
	cr_expect_str_eq(v, "a.com");
	cr_expect_str_eq(c, "x/y");
	cr_expect_str_eq(n, "n");
	free(v), free(c), free(n);
	/* '=' inside the name stays in the name. */
	cr_assert_eq(cdi_split_device("a.com/x=n=m", &v, &c, &n, NULL), 0);
	cr_expect_str_eq(n, "n=m");
	free(v), free(c), free(n);

	cr_expect_eq(cdi_parse_qualified_name("a.com/x/y=n", NULL, NULL, NULL, &err), -EINVAL);
	cr_expect_str_eq(
		cdi_error_message(&err),
		"invalid device \"a.com/x/y=n\": invalid class \"x/y\": may only contain letters, digits, '_', '-' and '.' (found '/')");
	cdi_error_reset(&err);
}

/* A name rule's refusal: -EINVAL and `invalid <what> "<name>": <rule>[ (found ...)]`. */
static void expect_name_problem(int (*check)(const char *, struct cdi_error *), const char *what,
				const char *name, const char *rule)
{
	struct cdi_error err = CDI_ERROR_INIT;
	char want[256];

	cr_expect_eq(check(name, &err), -EINVAL, "%s", name ? name : "(null)");
	snprintf(want, sizeof(want), "invalid %s ", what);
	cr_expect(strncmp(cdi_error_message(&err), want, strlen(want)) == 0, "%s",
		  cdi_error_message(&err));
	snprintf(want, sizeof(want), ": %s", rule);
	cr_expect(strstr(cdi_error_message(&err), want), "%s: %s", cdi_error_message(&err), rule);
	cdi_error_reset(&err);
}

/* Reference: device_test.go (name "a dev ice" is invalid), ValidateDeviceName. */
Test(names, device_names)
{
	static const char *const ok[] = { "dev", "0", "a", "dev_1:2.3", "GPU-0", "a.b", "9z" };
	static const char *const bad[][2] = {
		{ "", "must not be empty" },
		{ "a dev ice", "may only contain letters, digits, '_', '-', '.' and ':'" },
		{ "-dev", "must start with a letter or digit" },
		{ "dev:", "must end with a letter or digit" },
		{ "dev.", "must end with a letter or digit" },
		{ "_", "must start with a letter or digit" },
		{ "d/v", "may only contain letters, digits, '_', '-', '.' and ':'" },
		{ "d=v", "may only contain letters, digits, '_', '-', '.' and ':'" },
		/* runes are ASCII-only in the reference */
		{ "d\xc3\xa9v", "may only contain letters, digits, '_', '-', '.' and ':'" },
		{ "d\xc3\xa9", "may only contain letters, digits, '_', '-', '.' and ':'" },
		{ "de\xc3", "must end with a letter or digit" },
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		cr_expect_eq(cdi_check_device_name(ok[i], NULL), 0, "%s", ok[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_name_problem(cdi_check_device_name, "device name", bad[i][0], bad[i][1]);
	expect_name_problem(cdi_check_device_name, "device name", NULL, "must not be empty");
}

/* Reference: validateVendorOrClassName; spec_test kinds "vendor.com-/device" and
 * "vendor.com/device=". Since 0.6.0 the class takes dots like the vendor. */
Test(names, vendor_and_class_names)
{
	static const char *const ok[] = { "a",	"vendor.com", "nvidia.com",
					  "A1", "x_y-z.w",    "class.sub" };
	static const char *const bad[][2] = {
		{ "", "must not be empty" },
		{ "1vendor", "must start with a letter" },
		{ "vendor.com-", "must end with a letter or digit" },
		{ "device=", "must end with a letter or digit" },
		{ "ven dor", "may only contain letters, digits, '_', '-' and '.'" },
		{ "ven:dor", "may only contain letters, digits, '_', '-' and '.'" },
		{ "_x", "must start with a letter" },
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		cr_expect_eq(cdi_check_vendor_name(ok[i], NULL), 0, "%s", ok[i]);
		cr_expect_eq(cdi_check_class_name(ok[i], NULL), 0, "%s", ok[i]);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		expect_name_problem(cdi_check_vendor_name, "vendor", bad[i][0], bad[i][1]);
		expect_name_problem(cdi_check_class_name, "class", bad[i][0], bad[i][1]);
	}
}

/* A NUL inside a JSON string must not end the name early. */
Test(names, embedded_nul)
{
	size_t bad = 0;

	cr_expect_str_eq(cdi_name_problem(CDI_NAME_DEVICE, "ab\0cd", 5, &bad),
			 "may only contain letters, digits, '_', '-', '.' and ':'");
	cr_expect_eq(bad, 2);
	cr_expect_null(cdi_name_problem(CDI_NAME_DEVICE, "ab\0cd", 2, NULL));
	cr_expect_str_eq(cdi_name_problem(CDI_NAME_VENDOR, "", 0, &bad), "must not be empty");
	cr_expect_eq(bad, SIZE_MAX);
}

Test(names, name_message)
{
	char buf[256];

	cr_expect_lt(cdi_name_message(buf, sizeof(buf), CDI_NAME_DEVICE, "device name", "gpu0", 4),
		     0);
	cr_expect_gt(cdi_name_message(buf, sizeof(buf), CDI_NAME_DEVICE, "device name", "a dev", 5),
		     0);
	cr_expect_str_eq(
		buf,
		"invalid device name \"a dev\": may only contain letters, digits, '_', '-', '.' and ':' (found ' ')");
	cdi_name_message(buf, sizeof(buf), CDI_NAME_DEVICE, "device name", "a\tb", 3);
	cr_expect_str_eq(
		buf,
		"invalid device name \"a\\tb\": may only contain letters, digits, '_', '-', '.' and ':' (found byte 0x09)");
	cdi_name_message(buf, sizeof(buf), CDI_NAME_CLASS, "class", "x-", 2);
	cr_expect_str_eq(buf, "invalid class \"x-\": must end with a letter or digit");
}

Test(names, quote)
{
	char buf[CDI_QUOTE_MAX], small[12];
	char longs[400];

	cr_expect_str_eq(cdi_quote(buf, sizeof(buf), "a\"b\\c\n\t\r\x01\x7f", 10),
			 "\"a\\\"b\\\\c\\n\\t\\r\\x01\\x7f\"");
	cr_expect_str_eq(cdi_quote(buf, sizeof(buf), "\xc3\xa9", 2), "\"\xc3\xa9\"");
	cr_expect_str_eq(cdi_quote(buf, sizeof(buf), "a\0b", 3), "\"a\\x00b\"");
	memset(longs, 'x', sizeof(longs));
	cdi_quote(buf, sizeof(buf), longs, sizeof(longs));
	cr_expect_lt(strlen(buf), sizeof(buf));
	cr_expect_str_eq(buf + strlen(buf) - 4, "\"...");
	/* never half a UTF-8 sequence before the dots */
	cdi_quote(small, sizeof(small), "ab\xc3\xa9\xc3\xa9\xc3\xa9", 8);
	cr_expect_str_eq(small, "\"ab\xc3\xa9\xc3\xa9\"...");
	cdi_quote(small, sizeof(small), "abc\xc3\xa9\xc3\xa9\xc3\xa9", 9);
	cr_expect_str_eq(small, "\"abc\xc3\xa9\"...");
}
