/* SPDX-License-Identifier: Apache-2.0 */
/* A pass of the spec check (internal to check*.c; run by check.c). */
#ifndef CDIKIT_CHECK_RULES_H
#define CDIKIT_CHECK_RULES_H

#include <stdbool.h>
#include <jansson.h>

#include "check_pass.h"

/* Pass two: the reference's validation rules, on what decoded. */
void check_rules(struct check *c, const json_t *root, struct loc rloc);

#endif
