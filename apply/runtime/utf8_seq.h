/* SPDX-License-Identifier: Apache-2.0 */
/* One UTF-8 sequence at a time, for escapers that walk a string (internal to apply/). */
#ifndef CDIKIT_APPLY_UTF8_SEQ_H
#define CDIKIT_APPLY_UTF8_SEQ_H

#include <stddef.h>

#include "utf8.h"

/* The length of the well-formed UTF-8 sequence that starts at s, within avail bytes, or 0. */
static inline size_t utf8_sequence_at(const char *s, size_t avail)
{
	unsigned char c = (unsigned char)s[0];
	size_t n = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;

	return n <= avail && utf8_valid(s, n) ? n : 0;
}

#endif
