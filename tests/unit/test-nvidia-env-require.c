/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NVIDIA_REQUIRE_* constraints: vectors from libnvidia-container's cli/dsl.c (version compare,
 * OR/AND evaluation, rules) and configure.c (per-device checks), plus the errors cdikit gives
 * for malformed terms.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "nvidia/require.h"

/* The simulated DGX's driver and an A100 (NVML brand NVIDIA, which libnvidia-container calls
 * Unknown). */
static const struct require_driver r550 = { "550.54.15", "12.4" };
static const struct require_device a100 = { "GPU 0", "8.0", "Unknown" };

static char last_message[4096];

static int eval_on(const char *expr, const struct require_driver *drv,
		   const struct require_device *dev)
{
	struct cdi_error err = { 0 };
	struct requirement req = { "NVIDIA_REQUIRE_TEST", expr };
	int r = require_evaluate(&req, drv, dev, &err);

	cr_assert_eq(r != 0, cdi_error_count(&err) == 1, "\"%s\": %d with %zu problems", expr, r,
		     cdi_error_count(&err));
	snprintf(last_message, sizeof(last_message), "%s", cdi_error_message(&err));
	cdi_error_reset(&err);
	return r;
}

static void satisfied(const char *expr)
{
	int r = eval_on(expr, &r550, &a100);

	cr_assert_eq(r, 0, "\"%s\" should hold: %d %s", expr, r, last_message);
}

/* Unmet, with exactly this message. */
static void unmet(const char *expr, const char *message)
{
	int r = eval_on(expr, &r550, &a100);

	cr_assert_eq(r, REQUIRE_UNMET, "\"%s\" should be unmet: %d %s", expr, r, last_message);
	cr_assert_str_eq(last_message, message, "\"%s\"", expr);
}

/* Malformed: -EINVAL, the message naming the variable and containing what. */
static void malformed(const char *expr, const char *what)
{
	int r = eval_on(expr, &r550, &a100);

	cr_assert_eq(r, -EINVAL, "\"%s\" should be malformed: %d %s", expr, r, last_message);
	cr_assert(!strncmp(last_message, "NVIDIA_REQUIRE_TEST: ", 21), "%s", last_message);
	cr_assert(strstr(last_message, what), "\"%s\": \"%s\" lacks \"%s\"", expr, last_message,
		  what);
}

Test(require, version_compare)
{
	static const struct {
		const char *a;
		enum require_op op;
		const char *b;
		int want;
	} rows[] = {
		{ "12.4", REQUIRE_EQ, "12.4", 1 },
		{ "12.4", REQUIRE_EQ, "12.4.0", 1 },
		{ "12.4.0", REQUIRE_EQ, "12.4", 1 },
		{ "12.4", REQUIRE_NE, "12.4.0", 0 },
		{ "12.4", REQUIRE_GE, "12.4.0", 1 },
		{ "12.4", REQUIRE_LE, "12.4.0.0", 1 },
		{ "12.4", REQUIRE_GT, "12.4", 0 },
		{ "12.4", REQUIRE_LT, "12.4", 0 },
		{ "12.4.1", REQUIRE_GT, "12.4", 1 },
		{ "12.4", REQUIRE_LT, "12.4.1", 1 },
		{ "12.4", REQUIRE_GE, "12.4.1", 0 },
		{ "12.4.1", REQUIRE_LE, "12.4", 0 },
		{ "12.10", REQUIRE_GT, "12.9", 1 },
		{ "550.54.15", REQUIRE_GE, "535", 1 },
		{ "550.54.15", REQUIRE_LT, "551", 1 },
		{ "550.54.15", REQUIRE_NE, "550", 1 },
		{ "12.04", REQUIRE_EQ, "12.4", 1 },
		{ "12..4", REQUIRE_EQ, "12.4", 1 },
		{ "12.4.", REQUIRE_EQ, "12.4", 1 },
		{ "12.0.5", REQUIRE_GT, "12", 1 },
		{ "12", REQUIRE_LT, "12.0.5", 1 },
		{ "12.4.010", REQUIRE_GT, "12.4", 1 },
		{ "8.0", REQUIRE_EQ, "8", 1 },
		{ "9.0", REQUIRE_GE, "8.6", 1 },
		{ "12.x", REQUIRE_EQ, "12", -EINVAL },
		{ "12", REQUIRE_EQ, ".5", -EINVAL },
		{ "-1", REQUIRE_LT, "1", -EINVAL },
		{ " 1", REQUIRE_EQ, "1", -EINVAL },
		{ "1e3", REQUIRE_EQ, "1000", -EINVAL },
		{ "1", REQUIRE_LT, "99999999999999999999999", -EINVAL },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		cr_expect_eq(require_version_compare(rows[i].a, rows[i].op, rows[i].b),
			     rows[i].want, "row %zu: %s op%d %s", i, rows[i].a, rows[i].op,
			     rows[i].b);
}

Test(require, each_operator_and_rule)
{
	satisfied("cuda=12.4");
	satisfied("cuda=12.4.0");
	satisfied("cuda<13");
	satisfied("cuda<=12.4");
	satisfied("cuda>=12.4");
	satisfied("cuda>12.3");
	satisfied("cuda!=12.3");
	unmet("cuda!=12.4",
	      "NVIDIA_REQUIRE_TEST: unsatisfied condition: cuda!=12.4 (driver supports CUDA 12.4)");
	unmet("cuda>12.4",
	      "NVIDIA_REQUIRE_TEST: unsatisfied condition: cuda>12.4 (driver supports CUDA 12.4)");
	satisfied("driver>=535");
	satisfied("driver=550.54.15");
	unmet("driver<550",
	      "NVIDIA_REQUIRE_TEST: unsatisfied condition: driver<550 (driver version is 550.54.15)");
	satisfied("arch=8.0");
	satisfied("arch>=7.5");
	unmet("arch>=9.0",
	      "NVIDIA_REQUIRE_TEST: unsatisfied condition: arch>=9.0 (GPU 0 has compute capability 8.0)");
	satisfied("brand=unknown");
	satisfied("brand!=tesla");
	unmet("brand=tesla",
	      "NVIDIA_REQUIRE_TEST: unsatisfied condition: brand=tesla (GPU 0 brand is Unknown)");
	unmet("brand!=UNKNOWN",
	      "NVIDIA_REQUIRE_TEST: unsatisfied condition: brand!=UNKNOWN (GPU 0 brand is Unknown)");
}

Test(require, rule_names_any_case)
{
	satisfied("CUDA>=12.0");
	satisfied("Driver>=500");
	satisfied("ARCH=8.0");
	satisfied("Brand=Unknown");
}

Test(require, cuda_advice)
{
	/* libnvidia-container's advice, when the predicate starts with cuda>= */
	unmet("cuda>=13.0",
	      "NVIDIA_REQUIRE_TEST: unsatisfied condition: cuda>=13.0 (driver supports CUDA 12.4), please update your driver to a newer version, or use an earlier cuda container");
	unmet("cuda>13.0",
	      "NVIDIA_REQUIRE_TEST: unsatisfied condition: cuda>13.0 (driver supports CUDA 12.4)");
	/* a leading space: the predicate does not start with cuda>= (strncmp on it as given) */
	unmet(" cuda>=13.0",
	      "NVIDIA_REQUIRE_TEST: unsatisfied condition: cuda>=13.0 (driver supports CUDA 12.4)");
}

Test(require, or_and)
{
	satisfied("cuda>=13.0 cuda>=12.0");
	satisfied("cuda>=12.0,driver>=500");
	satisfied("  cuda>=12.0,,driver>=500  ");
	unmet("cuda>=12.0,driver>=600",
	      "NVIDIA_REQUIRE_TEST: unsatisfied condition: cuda>=12.0,driver>=600 (driver version is 550.54.15), please update your driver to a newer version, or use an earlier cuda container");
	/* Only the first group is named, with the fact its first false term failed on. */
	unmet("brand=tesla,driver>=470 cuda>=13.0",
	      "NVIDIA_REQUIRE_TEST: unsatisfied condition: brand=tesla,driver>=470 (GPU 0 brand is Unknown)");
	/* nothing to check */
	satisfied("");
	satisfied("   ");
	satisfied(",");
}

/* NVIDIA_REQUIRE_CUDA of nvidia/cuda:12.4.1-base-ubuntu22.04 */
#define CUDA_12_4_IMAGE                                                                            \
	"cuda>=12.4 brand=tesla,driver>=470,driver<471 brand=unknown,driver>=470,driver<471 "      \
	"brand=nvidia,driver>=470,driver<471 brand=nvidiartx,driver>=470,driver<471 "              \
	"brand=geforce,driver>=470,driver<471 brand=unknown,driver>=535,driver<536"

Test(require, cuda_image_predicate)
{
	static const struct require_driver r535 = { "535.104.05", "12.2" };
	static const struct require_driver r525 = { "525.147.05", "12.0" };
	static const struct require_device t4 = { "GPU 1", "7.5", "Tesla" };
	struct requirement req = { "NVIDIA_REQUIRE_CUDA", CUDA_12_4_IMAGE };
	struct cdi_error err = { 0 };

	cr_assert_eq(require_evaluate(&req, &r550, &a100, &err), 0);
	/* 535 with CUDA 12.2: the forward-compatibility alternative for an Unknown brand holds */
	cr_assert_eq(require_evaluate(&req, &r535, &a100, &err), 0);
	cr_assert_eq(require_evaluate(&req, &r535, &t4, &err), REQUIRE_UNMET);
	cr_assert_str_eq(
		cdi_error_message(&err),
		"NVIDIA_REQUIRE_CUDA: unsatisfied condition: cuda>=12.4 (driver supports CUDA 12.2), please update your driver to a newer version, or use an earlier cuda container");
	cdi_error_reset(&err);
	cr_assert_eq(require_evaluate(&req, &r525, &a100, &err), REQUIRE_UNMET);
	cdi_error_reset(&err);
}

Test(require, evaluation_order_is_dsl_c)
{
	/* a true group decides: later groups are never looked at */
	satisfied("cuda>=1 bogus");
	/* a false term ends its group: later terms of it are never looked at */
	unmet("cuda>=99,bogus cuda>=98",
	      "NVIDIA_REQUIRE_TEST: unsatisfied condition: cuda>=99,bogus (driver supports CUDA 12.4), please update your driver to a newer version, or use an earlier cuda container");
	/* a term reached is checked */
	malformed("cuda>=99 bogus", "\"bogus\"");
	/* a group of empty terms ends the evaluation with the verdict so far (dsl.c) */
	unmet("cuda>=99 , cuda>=1",
	      "NVIDIA_REQUIRE_TEST: unsatisfied condition: cuda>=99 (driver supports CUDA 12.4), please update your driver to a newer version, or use an earlier cuda container");
	satisfied(", cuda>=99");
}

Test(require, malformed_terms)
{
	malformed("cuda", "no operator");
	malformed(">=12", "no rule name");
	malformed("cuda=>12", "\"=>\" is not an operator");
	malformed("cuda==12", "\"==\" is not an operator");
	malformed("cuda>=", "no value");
	malformed("foo>=1", "unknown rule \"foo\"");
	malformed("brand>=tesla", "brand takes only = and !=");
	malformed("cuda>=12.x", "\"12.x\" is not a version");
	malformed("driver>=.5", "\".5\" is not a version");
	malformed("arch>=8.0\tbrand=tesla", "is not a version");
	malformed("cuda>=12.0,brand", "invalid expression \"brand\"");
}

Test(require, no_device_and_unknown_facts)
{
	static const struct require_driver unknown = { NULL, NULL };
	static const struct require_device no_brand = { "GPU 3", "8.0", NULL };
	static const struct require_device bad_arch = { "GPU 4", "8.x", "Tesla" };

	cr_assert_eq(eval_on("arch>=9.0", &r550, NULL), 0);
	cr_assert_eq(eval_on("brand=tesla", &r550, NULL), 0);
	cr_assert_eq(eval_on("brand=tesla", &r550, &no_brand), 0);
	cr_assert_eq(eval_on("cuda>=99,driver>=999", &unknown, &a100), 0);
	/* stricter than libnvidia-container: a term evaluated is checked even without its fact */
	cr_assert_eq(eval_on("brand<tesla", &r550, NULL), -EINVAL);
	cr_assert_eq(eval_on("cuda>=x", &unknown, NULL), -EINVAL);
	/* a fact that is not a version */
	cr_assert_eq(eval_on("arch>=8.0", &r550, &bad_arch), -EINVAL);
	cr_assert(strstr(last_message, "the recorded compute capability \"8.x\" is not a version"),
		  "%s", last_message);
}

Test(require, long_predicates_are_clipped)
{
	size_t n = 100000;
	char *expr = malloc(n + 1);

	cr_assert_not_null(expr);
	memcpy(expr, "cuda>=", 6);
	memset(expr + 6, '9', n - 6);
	expr[n] = '\0';
	cr_assert_eq(eval_on(expr, &r550, &a100), -EINVAL);
	cr_assert_lt(strlen(last_message), 600);
	memset(expr + 6, '.', n - 7);
	expr[6] = '1';
	cr_assert_eq(eval_on(expr, &r550, &a100), 0);
	free(expr);
}

Test(require, check_every_device)
{
	static const struct require_device devs[] = {
		{ "GPU 1", "9.0", "Tesla" },
		{ "MIG device 2:0", "8.0", "Unknown" },
	};
	static const struct requirement reqs[] = {
		{ "NVIDIA_REQUIRE_CUDA", "cuda>=12.0" },
		{ "NVIDIA_REQUIRE_ARCH", "arch>=9.0" },
	};
	struct cdi_error err = { 0 };

	cr_assert_eq(require_check(reqs, 2, &r550, devs, 1, &err), 0);
	cr_assert_eq(require_check(reqs, 2, &r550, devs, 2, &err), REQUIRE_UNMET);
	cr_assert_eq(cdi_error_count(&err), 1);
	cr_assert_str_eq(
		cdi_error_message(&err),
		"NVIDIA_REQUIRE_ARCH: unsatisfied condition: arch>=9.0 (MIG device 2:0 has compute capability 8.0)");
	cdi_error_reset(&err);
	/* no device selected: once, arch passes */
	cr_assert_eq(require_check(reqs, 2, &r550, NULL, 0, &err), 0);
	/* nothing to check needs no facts */
	cr_assert_eq(require_check(NULL, 0, NULL, devs, 2, &err), 0);
	cr_assert_eq(require_check(reqs, 2, NULL, devs, 2, &err), -ENOENT);
	cr_assert(strstr(cdi_error_message(&err),
			 "NVIDIA_REQUIRE_CUDA: cannot check \"cuda>=12.0\": no driver facts"),
		  "%s", cdi_error_message(&err));
	cdi_error_reset(&err);
}
