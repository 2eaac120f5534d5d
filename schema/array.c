/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "array.h"

int array_reserve(void *pp, size_t *cap, size_t need, size_t elem)
{
	void **p = pp;
	size_t ncap;
	void *grown;

	if (need <= *cap)
		return 0;
	ncap = *cap > 0 ? *cap : 8;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return -ENOMEM;
		ncap *= 2;
	}
	if (elem && ncap > SIZE_MAX / elem)
		return -ENOMEM;
	grown = realloc(*p, ncap * elem);
	if (!grown)
		return -ENOMEM;
	*p = grown;
	*cap = ncap;
	return 0;
}

int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}
