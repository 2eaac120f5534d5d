/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The facts file beside a spec (internal): what the spec cannot say without raising its
 * cdiVersion (which GPU each device is, the driver facts NVIDIA_REQUIRE_* needs, the driver
 * capability of every file and node), for cdi-runtime and cdi-apply --from-env. The format is
 * FACTS.md's "cdikitFacts": 1.
 */
#ifndef CDIKIT_FACTS_H
#define CDIKIT_FACTS_H

#include <jansson.h>

#include <cdi/error.h>

#include "inventory.h"
#include "spec_build.h"

/* The facts file's name beside a spec: "<spec file>.cdikit" (registries read only *.json and
 * *.yaml, so they ignore it). */
#define FACTS_SUFFIX ".cdikit"

/*
 * The facts of the spec res that spec_build(inv, opts) made: the GPUs and MIG devices with the
 * spec's names for each (every strategy the spec uses), driver and CUDA versions, brands and
 * compute capabilities (absent when unknown), and res->capabilities (opts->capabilities must
 * have been set for spec_build()).
 */
int facts_build(const struct inventory *inv, const struct spec_options *opts,
		const struct spec_result *res, json_t **ret, struct cdi_error *err);

/* The facts as the file holds them: indented JSON and a newline. */
int facts_emit(const json_t *facts, char **ret_buf, size_t *ret_len, struct cdi_error *err);

#endif
