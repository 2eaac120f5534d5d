/* SPDX-License-Identifier: Apache-2.0 */
/* UTF-8 validation (internal). */
#ifndef CDIKIT_UTF8_H
#define CDIKIT_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * True when the len bytes at s are well-formed UTF-8 (RFC 3629): no overlong forms, no
 * surrogates, nothing above U+10FFFF, no truncated sequence. NUL bytes are valid UTF-8;
 * callers that cannot hold them check for them.
 */
bool utf8_valid(const char *s, size_t len);

/* The multi-byte sequence at s (s[0] >= 0x80, len bytes left): its length (2 to 4) and its code
 * point in *ret_cp, or 0 when it is not well-formed. */
size_t utf8_decode(const unsigned char *s, size_t len, uint32_t *ret_cp);

/* Write code point cp (at most U+10FFFF, no surrogate) as UTF-8 at out: 1 to 4 bytes, how many
 * returned. */
size_t utf8_put(char *out, uint32_t cp);

#endif
