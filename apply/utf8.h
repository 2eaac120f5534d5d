/* SPDX-License-Identifier: Apache-2.0 */
/* UTF-8 validation, as jansson and Go define valid (internal to apply/). */
#ifndef CDIKIT_APPLY_UTF8_H
#define CDIKIT_APPLY_UTF8_H

#include <stddef.h>
#include <stdint.h>

/*
 * The length of the valid UTF-8 sequence at s (which has at least one byte, and is NUL- or
 * otherwise terminated so that a truncated sequence stops at a non-continuation byte), or 0
 * if it is none: overlong forms, surrogates and code points past U+10FFFF are invalid.
 */
static inline size_t utf8_valid_len(const unsigned char *s)
{
	size_t n;
	uint32_t c;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, c = s[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return n;
}

#endif
