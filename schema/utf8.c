/* SPDX-License-Identifier: Apache-2.0 */
#include <stdint.h>
#include <string.h>

#include "utf8.h"

size_t utf8_decode(const unsigned char *s, size_t len, uint32_t *ret_cp)
{
	unsigned c = s[0], n;
	uint32_t cp;

	if (c >= 0xc2 && c <= 0xdf)
		n = 1, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 2, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 3, cp = c & 0x07;
	else
		return 0; /* ASCII, a continuation byte, 0xc0/0xc1 (overlong) or above 0xf4 */
	if (len <= n)
		return 0;
	for (unsigned k = 1; k <= n; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[k] & 0x3f);
	}
	if ((n == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 3 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	*ret_cp = cp;
	return n + 1;
}

bool utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;
	uint32_t cp;
	uint64_t w;

	for (;;) {
		/* ASCII runs, eight bytes a step then one: paths and names are nearly always ASCII.
		 */
		while (len - i >= 8 && (memcpy(&w, p + i, 8), !(w & 0x8080808080808080ull)))
			i += 8;
		while (i < len && p[i] < 0x80)
			i++;
		if (i == len)
			return true;
		n = utf8_decode(p + i, len - i, &cp);
		if (n == 0)
			return false;
		i += n;
	}
}

size_t utf8_put(char *out, uint32_t cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}
