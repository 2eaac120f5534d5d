/* SPDX-License-Identifier: Apache-2.0 */
/* UTF-8 validation (internal). */
#ifndef CDIKIT_UTF8_H
#define CDIKIT_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/*
 * True when the len bytes at s are well-formed UTF-8 (RFC 3629): no overlong forms, no
 * surrogates, nothing above U+10FFFF, no truncated sequence. NUL bytes are valid UTF-8;
 * callers that cannot hold them check for them.
 */
bool utf8_valid(const char *s, size_t len);

#endif
