/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Numbers to text and back the same way whatever the process locale is (internal): a program
 * that links libcdi may have called setlocale(), and a "," for a decimal point must not reach
 * a spec, a message or a parsed value.
 */
#ifndef CDIKIT_NUMBER_TEXT_H
#define CDIKIT_NUMBER_TEXT_H

#include <locale.h>
#include <stddef.h>

/* The "C" locale, made once; NULL only when it cannot be made (then the process locale). */
locale_t c_locale(void);

/* strtod() in the "C" locale. */
double strtod_c(const char *s, char **end);

/*
 * Go's strconv.FormatFloat(d, 'g', -1, 32): the shortest decimal that reads back as the same
 * float32, in %e form (at least two exponent digits) when the exponent is < -4 or >= 6, and
 * "NaN", "+Inf", "-Inf" as Go spells them. 32 bytes always suffice.
 */
void format_float32_go(char *buf, size_t size, double d);

/* The shortest %g that reads back as the same double ("0.1", "1e+100", "inf", "nan"). */
void format_double_shortest(char *buf, size_t size, double d);

#define NUMBER_TEXT_MAX 32

#endif
