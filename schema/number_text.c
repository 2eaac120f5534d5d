/* SPDX-License-Identifier: Apache-2.0 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "number_text.h"

locale_t c_locale(void)
{
	static locale_t cached;
	locale_t loc = __atomic_load_n(&cached, __ATOMIC_ACQUIRE), expected = (locale_t)0;

	if (loc)
		return loc;
	loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	if (!loc)
		return (locale_t)0;
	/* Two threads may race to make it: one wins, the other frees its copy. */
	if (!__atomic_compare_exchange_n(&cached, &expected, loc, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		freelocale(loc);
		return expected;
	}
	return loc;
}

double strtod_c(const char *s, char **end)
{
	locale_t loc = c_locale();

	return loc ? strtod_l(s, end, loc) : strtod(s, end);
}

static float strtof_c(const char *s)
{
	locale_t loc = c_locale();

	return loc ? strtof_l(s, NULL, loc) : strtof(s, NULL);
}

/* snprintf() of one double in the "C" locale (uselocale() is per thread). */
static void snprintf_c(char *buf, size_t size, const char *fmt, int prec, double d)
{
	locale_t loc = c_locale(), old = (locale_t)0;

	if (loc)
		old = uselocale(loc);
	snprintf(buf, size, fmt, prec, d);
	if (loc)
		uselocale(old);
}

/* Lay out digits[0..nd) (no leading or trailing zero) with decimal exponent exp as Go does. */
static void go_layout(char *buf, size_t size, bool neg, const char *digits, size_t nd, int exp)
{
	char out[NUMBER_TEXT_MAX + 16];
	size_t o = 0;

	if (neg)
		out[o++] = '-';
	if (exp < -4 || exp >= 6) {
		out[o++] = digits[0];
		if (nd > 1) {
			out[o++] = '.';
			memcpy(out + o, digits + 1, nd - 1);
			o += nd - 1;
		}
		o += (size_t)snprintf(out + o, sizeof(out) - o, "e%c%02d", exp < 0 ? '-' : '+',
				      abs(exp));
	} else if (exp >= 0) {
		for (int i = 0; i <= exp; i++)
			out[o++] = (size_t)i < nd ? digits[i] : '0';
		if ((size_t)exp + 1 < nd) {
			out[o++] = '.';
			memcpy(out + o, digits + exp + 1, nd - (size_t)exp - 1);
			o += nd - (size_t)exp - 1;
		}
	} else {
		out[o++] = '0';
		out[o++] = '.';
		for (int i = 0; i < -exp - 1; i++)
			out[o++] = '0';
		memcpy(out + o, digits, nd);
		o += nd;
	}
	out[o] = '\0';
	snprintf(buf, size, "%s", out);
}

void format_float32_go(char *buf, size_t size, double d)
{
	float f = (float)d;
	char e[NUMBER_TEXT_MAX], digits[16];
	size_t nd = 0;
	const char *p;
	int prec;

	if (isnan(f)) {
		snprintf(buf, size, "NaN");
		return;
	}
	if (isinf(f)) {
		snprintf(buf, size, "%sInf", f < 0 ? "-" : "+");
		return;
	}
	if (f == 0) {
		snprintf(buf, size, "%s0", signbit(f) ? "-" : "");
		return;
	}
	/* The fewest significant digits that read back as f: the correctly rounded n-digit
	 * decimal is the closest one, so it is in f's rounding interval if any is. */
	for (prec = 1; prec < 9; prec++) {
		snprintf_c(e, sizeof(e), "%.*e", prec - 1, (double)f);
		if (strtof_c(e) == f)
			break;
	}
	snprintf_c(e, sizeof(e), "%.*e", prec - 1, (double)f);
	/* e is "-d.ddde+XX" (the point is '.', the locale being "C"). */
	for (p = e; *p && *p != 'e'; p++)
		if (*p >= '0' && *p <= '9')
			digits[nd++] = *p;
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	go_layout(buf, size, f < 0, digits, nd, *p == 'e' ? atoi(p + 1) : 0);
}

void format_double_shortest(char *buf, size_t size, double d)
{
	char tmp[NUMBER_TEXT_MAX];

	for (int p = 1; p <= 17; p++) {
		snprintf_c(tmp, sizeof(tmp), "%.*g", p, d);
		if (isnan(d) || strtod_c(tmp, NULL) == d)
			break;
	}
	snprintf(buf, size, "%s", tmp);
}
