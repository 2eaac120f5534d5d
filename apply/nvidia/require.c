/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NVIDIA_REQUIRE_* as libnvidia-container's cli/dsl.c and cli/configure.c evaluate them, with
 * two deliberate differences: a term that is evaluated is checked whole (a brand term with <,
 * or a version value like "12.x", is an error even when no device or no CUDA version makes
 * libnvidia-container return early), and messages name the term and the fact it failed on.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "problem.h"
#include "require.h"

#define OP_CHARS "<>=!"
#define OPERATOR_LIST "=, !=, <, <=, >, >="
#define CUDA_ADVICE_PREFIX "cuda>="
/* Predicates come from images: quote at most this much of one in a message. */
#define QUOTE_MAX 200

static const struct {
	const char *str;
	enum require_op op;
} operators[] = {
	{ "=", REQUIRE_EQ },  { "!=", REQUIRE_NE }, { "<", REQUIRE_LT },
	{ "<=", REQUIRE_LE }, { ">", REQUIRE_GT },  { ">=", REQUIRE_GE },
};

enum rule { RULE_CUDA, RULE_DRIVER, RULE_ARCH, RULE_BRAND };
static const char *const rule_names[] = { "cuda", "driver", "arch", "brand" };

/* One term, cut up in place: name and value are NUL-terminated parts of a copy. */
struct term {
	const char *text; /* the term as written, in the caller's predicate */
	size_t len;
	enum rule rule;
	enum require_op op;
	const char *value;
};

static int clip(size_t len)
{
	return len > QUOTE_MAX ? QUOTE_MAX : (int)len;
}

static const char *clip_mark(size_t len)
{
	return len > QUOTE_MAX ? "..." : "";
}

int require_version_compare(const char *v1, enum require_op op, const char *v2)
{
	if (v1[strspn(v1, "0123456789.")] || v2[strspn(v2, "0123456789.")])
		return -EINVAL;
	while (*v1 && *v2) {
		char *e1, *e2;
		uintmax_t n1 = strtoumax(v1, &e1, 10), n2 = strtoumax(v2, &e2, 10);

		if (n1 == UINTMAX_MAX || e1 == v1 || n2 == UINTMAX_MAX || e2 == v2)
			return -EINVAL;
		if (n1 != n2) {
			if (op == REQUIRE_EQ || op == REQUIRE_NE)
				return op == REQUIRE_NE;
			return op == REQUIRE_LT || op == REQUIRE_LE ? n1 < n2 : n1 > n2;
		}
		v1 = e1 + strspn(e1, ".");
		v2 = e2 + strspn(e2, ".");
	}
	/* One ran out: what is left of the other counts only if it is more than zeros. */
	v1 += strspn(v1, ".0");
	v2 += strspn(v2, ".0");
	switch (op) {
	case REQUIRE_EQ:
		return !*v1 && !*v2;
	case REQUIRE_NE:
		return *v1 || *v2;
	case REQUIRE_LE:
		return !*v1;
	case REQUIRE_LT:
		return !*v1 && *v2;
	case REQUIRE_GE:
		return !*v2;
	case REQUIRE_GT:
		return *v1 && !*v2;
	}
	return -EINVAL;
}

/* A version value as the comparison reads it: numbers separated by dots. */
static bool version_valid(const char *v)
{
	return require_version_compare(v, REQUIRE_EQ, v) >= 0;
}

static int term_invalid(const struct requirement *req, const struct term *t, struct cdi_error *err,
			const char *why)
{
	return cdi_problem_add(err, -EINVAL, NULL, 0, 0, req->name,
			       "invalid expression \"%.*s%s\": %s", clip(t->len), t->text,
			       clip_mark(t->len), why);
}

/* Split s (NUL-terminated, written in place) into rule, operator and value; check them. */
static int term_parse(const struct requirement *req, char *s, struct term *t, struct cdi_error *err)
{
	size_t name_len = strcspn(s, OP_CHARS), op_len;
	char *op = s + name_len, msg[128];
	size_t i;

	if (name_len == 0)
		return term_invalid(req, t, err, "no rule name before the operator");
	op_len = strspn(op, OP_CHARS);
	if (op_len == 0)
		return term_invalid(req, t, err, "no operator (" OPERATOR_LIST ")");
	for (i = 0; i < ELEMENTSOF(operators); i++)
		if (strlen(operators[i].str) == op_len && !strncmp(op, operators[i].str, op_len))
			break;
	if (i == ELEMENTSOF(operators)) {
		snprintf(msg, sizeof(msg), "\"%.*s\" is not an operator (" OPERATOR_LIST ")",
			 op_len > 32 ? 32 : (int)op_len, op);
		return term_invalid(req, t, err, msg);
	}
	t->op = operators[i].op;
	t->value = op + op_len;
	if (!*t->value)
		return term_invalid(req, t, err, "no value after the operator");
	*op = '\0';
	for (i = 0; i < ELEMENTSOF(rule_names); i++)
		if (!strcasecmp(s, rule_names[i]))
			break;
	if (i == ELEMENTSOF(rule_names)) {
		snprintf(msg, sizeof(msg), "unknown rule \"%.32s\" (cuda, driver, arch, brand)", s);
		return term_invalid(req, t, err, msg);
	}
	t->rule = (enum rule)i;
	if (t->rule == RULE_BRAND && t->op != REQUIRE_EQ && t->op != REQUIRE_NE)
		return term_invalid(req, t, err, "brand takes only = and !=");
	if (t->rule != RULE_BRAND && !version_valid(t->value)) {
		snprintf(msg, sizeof(msg), "\"%.32s\" is not a version", t->value);
		return term_invalid(req, t, err, msg);
	}
	return 0;
}

/*
 * 1 true, 0 false (why: the fact it failed on), < 0 a problem. Unknown facts and, for arch and
 * brand, no device make a term true, as in configure.c's rules.
 */
static int term_evaluate(const struct requirement *req, const struct term *t,
			 const struct require_driver *drv, const struct require_device *dev,
			 char *why, size_t why_size, struct cdi_error *err)
{
	const char *label = dev && dev->label ? dev->label : "the device";
	const char *fact, *what;
	int r;

	switch (t->rule) {
	case RULE_BRAND:
		if (!dev || !dev->brand)
			return 1;
		r = (strcasecmp(dev->brand, t->value) == 0) == (t->op == REQUIRE_EQ);
		if (!r)
			snprintf(why, why_size, "%s brand is %s", label, dev->brand);
		return r;
	case RULE_ARCH:
		fact = dev ? dev->arch : NULL;
		what = "compute capability";
		break;
	case RULE_CUDA:
		fact = drv->cuda;
		what = "CUDA version";
		break;
	case RULE_DRIVER:
	default:
		fact = drv->version;
		what = "driver version";
		break;
	}
	if (!fact)
		return 1;
	r = require_version_compare(fact, t->op, t->value);
	if (r < 0)
		return cdi_problem_add(
			err, -EINVAL, NULL, 0, 0, req->name,
			"cannot evaluate \"%.*s%s\": the recorded %s \"%.32s\" is not a version",
			clip(t->len), t->text, clip_mark(t->len), what, fact);
	if (r == 0) {
		if (t->rule == RULE_CUDA)
			snprintf(why, why_size, "driver supports CUDA %s", fact);
		else if (t->rule == RULE_DRIVER)
			snprintf(why, why_size, "driver version is %s", fact);
		else
			snprintf(why, why_size, "%s has compute capability %s", label, fact);
	}
	return r;
}

static int unmet(const struct requirement *req, const char *why, struct cdi_error *err)
{
	const char *group = req->expr + strspn(req->expr, " ");
	size_t len = strcspn(group, " ");
	bool advice = !strncmp(req->expr, CUDA_ADVICE_PREFIX, strlen(CUDA_ADVICE_PREFIX));

	return cdi_problem_add(
		err, REQUIRE_UNMET, NULL, 0, 0, req->name, "unsatisfied condition: %.*s%s (%s)%s",
		clip(len), group, clip_mark(len), why,
		advice ? ", please update your driver to a newer version, or use an earlier cuda container"
		       : "");
}

int require_evaluate(const struct requirement *req, const struct require_driver *drv,
		     const struct require_device *dev, struct cdi_error *err)
{
	static const struct require_driver unknown = { 0 };
	_cleanup_free_ char *copy = NULL;
	char *groups, *group, why[256] = "";
	int ret = 1;

	if (!req || !req->expr)
		return cdi_fail(err, -EINVAL, "no requirement to evaluate");
	copy = strdup(req->expr);
	if (!copy)
		return cdi_fail(err, -ENOMEM, "out of memory");
	groups = copy;
	/* dsl_evaluate(): a group that runs to its end (all true, or only empty terms) decides;
	 * a false term moves on to the next group; the last value seen is the verdict. */
	while ((group = strsep(&groups, " "))) {
		char *terms = group, *s;

		if (!*group)
			continue;
		while ((s = strsep(&terms, ","))) {
			struct term t = { .text = req->expr + (s - copy), .len = strlen(s) };
			char term_why[sizeof(why)];
			int r;

			if (!*s)
				continue;
			r = term_parse(req, s, &t, err);
			if (r < 0)
				return r;
			r = term_evaluate(req, &t, drv ? drv : &unknown, dev, term_why,
					  sizeof(term_why), err);
			if (r < 0)
				return r;
			ret = r;
			if (!ret) {
				/* The first false term is in the first group, which the message
				 * names. */
				if (!*why)
					memcpy(why, term_why, sizeof(why));
				break;
			}
		}
		if (!s)
			break;
	}
	return ret ? 0 : unmet(req, why, err);
}

int require_check(const struct requirement *reqs, size_t n_reqs, const struct require_driver *drv,
		  const struct require_device *devs, size_t n_devs, struct cdi_error *err)
{
	if (n_reqs == 0)
		return 0;
	if (!drv)
		return cdi_problem_add(
			err, -ENOENT, NULL, 0, 0, reqs[0].name,
			"cannot check \"%.*s%s\": no driver facts were recorded beside the spec (run cdi-generate again, or set NVIDIA_DISABLE_REQUIRE=true)",
			clip(strlen(reqs[0].expr)), reqs[0].expr, clip_mark(strlen(reqs[0].expr)));
	for (size_t i = 0; i < (n_devs ? n_devs : 1); i++)
		for (size_t j = 0; j < n_reqs; j++) {
			int r = require_evaluate(&reqs[j], drv, n_devs ? &devs[i] : NULL, err);

			if (r < 0)
				return r;
		}
	return 0;
}
