/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NVIDIA_REQUIRE_* constraints (internal to apply/): libnvidia-container's grammar (cli/dsl.c)
 * checked against the facts cdi-generate recorded, never against NVML at container start.
 *
 * A predicate is OR-groups separated by spaces, each AND-terms separated by commas (empty ones
 * skipped). A term is `rule op value`: the rule is everything before the first of "<>=!", the
 * operator the whole run of those characters (one of = != < <= > >=), the value the rest.
 * Rules (case-insensitive): cuda (the driver's CUDA version), driver (its version), arch (the
 * device's compute capability), brand (its brand; = and != only, case-insensitive).
 */
#ifndef CDIKIT_APPLY_REQUIRE_H
#define CDIKIT_APPLY_REQUIRE_H

#include <errno.h>
#include <stddef.h>

#include <cdi/error.h>

/* What a check returns when a requirement is not met (a problem says which). */
#define REQUIRE_UNMET (-ENOTSUP)

enum require_op {
	REQUIRE_EQ,
	REQUIRE_NE,
	REQUIRE_LT,
	REQUIRE_LE,
	REQUIRE_GT,
	REQUIRE_GE,
};

/* The driver facts; NULL when unknown: the rules on it then pass, as libnvidia-container's. */
struct require_driver {
	const char *version; /* "550.54.15" */
	const char *cuda;    /* "12.4" */
};

/* One selected device as the arch and brand rules see it (a MIG device has its parent's). */
struct require_device {
	const char *label; /* how messages name it: "GPU 0", "MIG device 2:0" */
	const char *arch;  /* compute capability "8.0"; NULL: unknown, arch rules pass */
	const char *brand; /* "Tesla", "Unknown"; NULL: unknown, brand rules pass */
};

/* One constraint and where it came from. */
struct requirement {
	const char *name; /* "NVIDIA_REQUIRE_CUDA", or "CUDA_VERSION" for a legacy image's */
	const char *expr; /* "cuda>=12.4 brand=tesla,driver>=470,driver<471" */
};

/*
 * dsl_compare_version(): have op want over "[0-9.]" strings, number by number; when one runs
 * out, trailing zeros and dots do not count ("12.4" = "12.4.0", "12.4.1" > "12.4").
 * 1 true, 0 false, -EINVAL when either is not such a version.
 */
int require_version_compare(const char *have, enum require_op op, const char *want);

/*
 * Evaluate one predicate for one device (NULL: no device selected; arch and brand pass).
 * OR-groups are tried in order, a group stops at its first false term, the first true group
 * decides: exactly dsl_evaluate(), so terms after the deciding one are never examined.
 * 0 satisfied; REQUIRE_UNMET with the problem "unsatisfied condition: <first group> (<the fact
 * it failed on>)" (plus libnvidia-container's advice when the predicate starts with cuda>=);
 * -EINVAL with a problem naming the term when a term evaluated is malformed. Problems carry
 * req->name as their field.
 */
int require_evaluate(const struct requirement *req, const struct require_driver *drv,
		     const struct require_device *dev, struct cdi_error *err);

/*
 * Every requirement once per device, in device order, then requirement order (with no device,
 * once with none). The first failure stops and is the only problem. drv NULL means no facts
 * were recorded: then any requirement is -ENOENT with a problem saying so.
 */
int require_check(const struct requirement *reqs, size_t n_reqs, const struct require_driver *drv,
		  const struct require_device *devs, size_t n_devs, struct cdi_error *err);

#endif
