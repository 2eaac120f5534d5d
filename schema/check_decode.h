/* SPDX-License-Identifier: Apache-2.0 */
/* A pass of the spec check (internal to check*.c; run by check.c). */
#ifndef CDIKIT_CHECK_DECODE_H
#define CDIKIT_CHECK_DECODE_H

#include <stdbool.h>
#include <jansson.h>

#include "check_pass.h"

/* Pass one: the types of every field, with coercion. False when the root is not an object, so
 * there is nothing to check the rules on. */
bool check_decode(struct check *c, json_t *root, struct loc rloc);

#endif
