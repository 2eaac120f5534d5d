/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Plain YAML scalars resolved as go-yaml v3 resolves them (resolve.go), for both YAML loaders
 * and the emitter's check that a plain string reads back as a string. The reference reads
 * specs through go-yaml; its v0.5.2 Debian build uses v2, which differs only in taking
 * yes/no/on/off/y/n for booleans.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "number_text.h"
#include "yaml_scalar.h"

static bool eq(const char *s, size_t len, const char *word)
{
	return strlen(word) == len && memcmp(s, word, len) == 0;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* strconv.ParseUint(s, base, 64); base 0: 0b/0o/0x prefixes (any case), a leading 0 is octal. */
static bool go_parse_uint(const char *s, size_t len, unsigned base, unsigned long long *ret)
{
	unsigned long long v = 0;

	if (len == 0)
		return false;
	if (base == 0) {
		char p = len >= 3 ? (char)(s[1] | 0x20) : 0;
		size_t skip = 2;

		base = 10;
		if (s[0] == '0') {
			if (p == 'b')
				base = 2;
			else if (p == 'x')
				base = 16;
			else if (p == 'o')
				base = 8;
			else {
				base = 8;
				skip = 1;
			}
			s += skip;
			len -= skip;
		}
	}
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		unsigned d;

		if (is_digit(c))
			d = (unsigned)(c - '0');
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')
			d = (unsigned)((c | 0x20) - 'a' + 10);
		else
			return false;
		if (d >= base)
			return false;
		if (v > (ULLONG_MAX - d) / base)
			return false;
		v = v * base + d;
	}
	*ret = v;
	return true;
}

/* strconv.ParseInt(s, base, 64); neg says a '-' came before s (go-yaml's "-0b" case). */
static bool go_parse_int(const char *s, size_t len, unsigned base, bool neg, long long *ret)
{
	unsigned long long u;

	if (len > 0 && (s[0] == '+' || s[0] == '-')) {
		if (neg)
			return false;
		neg = s[0] == '-';
		s++;
		len--;
	}
	if (!go_parse_uint(s, len, base, &u))
		return false;
	if (neg) {
		if (u > (1ull << 63))
			return false;
		*ret = u == (1ull << 63) ? LLONG_MIN : -(long long)u;
	} else {
		if (u > (unsigned long long)LLONG_MAX)
			return false;
		*ret = (long long)u;
	}
	return true;
}

/* ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ (yamlStyleFloat) */
static bool yaml_style_float(const char *s, size_t n)
{
	size_t i = 0, d;

	if (i < n && (s[i] == '+' || s[i] == '-'))
		i++;
	if (i < n && s[i] == '.') {
		d = ++i;
		while (i < n && is_digit(s[i]))
			i++;
		if (i == d)
			return false;
	} else {
		d = i;
		while (i < n && is_digit(s[i]))
			i++;
		if (i == d)
			return false;
		if (i < n && s[i] == '.') {
			i++;
			while (i < n && is_digit(s[i]))
				i++;
		}
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		d = i;
		while (i < n && is_digit(s[i]))
			i++;
		if (i == d)
			return false;
	}
	return i == n;
}

/* strconv's underscoreOK: '_' only between digits (or after a base prefix). */
static bool underscore_ok(const char *s, size_t n)
{
	char saw = '^';
	size_t i = 0;
	bool hex = false;

	if (n >= 1 && (s[0] == '-' || s[0] == '+')) {
		s++;
		n--;
	}
	if (n >= 2 && s[0] == '0' &&
	    ((s[1] | 0x20) == 'b' || (s[1] | 0x20) == 'o' || (s[1] | 0x20) == 'x')) {
		i = 2;
		saw = '0';
		hex = (s[1] | 0x20) == 'x';
	}
	for (; i < n; i++) {
		char c = s[i];

		if (is_digit(c) || (hex && (c | 0x20) >= 'a' && (c | 0x20) <= 'f')) {
			saw = '0';
			continue;
		}
		if (c == '_') {
			if (saw != '0')
				return false;
			saw = '_';
			continue;
		}
		if (saw == '_')
			return false;
		saw = '!';
	}
	return saw != '_';
}

/* strconv.ParseFloat for what yaml_style_float accepted: fails on overflow only. */
static bool parse_double(const char *s, size_t len, double *ret)
{
	char *end = NULL;
	double d;

	errno = 0;
	d = strtod_c(s, &end);
	if (end != s + len || isinf(d))
		return false;
	*ret = d;
	return true;
}

static void resolve_number(const char *text, size_t len, struct cdi_scalar *ret)
{
	_cleanup_free_ char *heap = NULL;
	char stack[64];
	const char *plain = text;
	size_t plen = len;

	if (memchr(text, '_', len)) {
		char *p = len < sizeof(stack) ? stack : (heap = malloc(len + 1));

		if (!p)
			return; /* out of memory: it stays a string */
		plen = 0;
		for (size_t i = 0; i < len; i++)
			if (text[i] != '_')
				p[plen++] = text[i];
		p[plen] = '\0';
		plain = p;
	}
	if (go_parse_int(plain, plen, 0, false, &ret->i)) {
		ret->kind = CDI_SCALAR_INT;
	} else if (go_parse_uint(plain, plen, 0, &ret->u)) {
		ret->kind = CDI_SCALAR_UINT;
	} else if (yaml_style_float(plain, plen) && parse_double(plain, plen, &ret->d)) {
		ret->kind = CDI_SCALAR_FLOAT;
	} else if (plen > 2 && plain[0] == '0' && (plain[1] == 'b' || plain[1] == 'o')) {
		/* go-yaml retries "0b"/"0o" with the rest given to ParseInt, sign and all. */
		unsigned base = plain[1] == 'b' ? 2 : 8;

		if (go_parse_int(plain + 2, plen - 2, base, false, &ret->i))
			ret->kind = CDI_SCALAR_INT;
		else if (go_parse_uint(plain + 2, plen - 2, base, &ret->u))
			ret->kind = CDI_SCALAR_UINT;
	} else if (plen > 3 && plain[0] == '-' && plain[1] == '0' &&
		   (plain[2] == 'b' || plain[2] == 'o')) {
		if (go_parse_int(plain + 3, plen - 3, plain[2] == 'b' ? 2 : 8, true, &ret->i))
			ret->kind = CDI_SCALAR_INT;
	}
}

static bool special_float(const char *s, size_t len, struct cdi_scalar *ret)
{
	static const struct {
		const char *text;
		const char *canonical;
	} specials[] = {
		{ ".nan", ".nan" },   { ".NaN", ".nan" },   { ".NAN", ".nan" },
		{ ".inf", ".inf" },   { ".Inf", ".inf" },   { ".INF", ".inf" },
		{ "+.inf", ".inf" },  { "+.Inf", ".inf" },  { "+.INF", ".inf" },
		{ "-.inf", "-.inf" }, { "-.Inf", "-.inf" }, { "-.INF", "-.inf" },
	};

	for (size_t i = 0; i < ELEMENTSOF(specials); i++) {
		if (eq(s, len, specials[i].text)) {
			ret->kind = CDI_SCALAR_FLOAT_SPECIAL;
			ret->s = specials[i].canonical;
			ret->len = strlen(ret->s);
			return true;
		}
	}
	return false;
}

/* true/True/TRUE, false/False/FALSE, null/Null/NULL; anything else stays a string. */
static void resolve_word(const char *text, size_t len, struct cdi_scalar *ret)
{
	static const struct {
		const char *word;
		enum cdi_scalar_kind kind;
		bool b;
	} words[] = {
		{ "true", CDI_SCALAR_BOOL, true },   { "True", CDI_SCALAR_BOOL, true },
		{ "TRUE", CDI_SCALAR_BOOL, true },   { "false", CDI_SCALAR_BOOL, false },
		{ "False", CDI_SCALAR_BOOL, false }, { "FALSE", CDI_SCALAR_BOOL, false },
		{ "null", CDI_SCALAR_NULL, false },  { "Null", CDI_SCALAR_NULL, false },
		{ "NULL", CDI_SCALAR_NULL, false },
	};

	for (size_t i = 0; i < ELEMENTSOF(words); i++) {
		if (eq(text, len, words[i].word)) {
			ret->kind = words[i].kind;
			ret->b = words[i].b;
			return;
		}
	}
}

void cdi_scalar_resolve(const char *text, size_t len, struct cdi_scalar *ret)
{
	*ret = (struct cdi_scalar){ .kind = CDI_SCALAR_STRING, .s = text, .len = len };

	if (len == 0) {
		ret->kind = CDI_SCALAR_NULL;
		return;
	}
	/* The first byte decides what can follow, as resolveTable does. */
	switch (text[0]) {
	case 't':
	case 'T':
	case 'f':
	case 'F':
	case 'n':
	case 'N':
		resolve_word(text, len, ret);
		return;
	case '~':
		if (len == 1)
			ret->kind = CDI_SCALAR_NULL;
		return;
	case '.':
		if (special_float(text, len, ret))
			return;
		/* ParseFloat on the text as written: Go's rules for '_'. */
		if (underscore_ok(text, len)) {
			struct cdi_scalar n = *ret;

			resolve_number(text, len, &n);
			if (n.kind == CDI_SCALAR_FLOAT)
				*ret = n;
		}
		return;
	case '+':
	case '-':
		if (special_float(text, len, ret))
			return;
		resolve_number(text, len, ret);
		return;
	case '0' ... '9':
		resolve_number(text, len, ret);
		return;
	default:
		return;
	}
}

json_t *cdi_scalar_to_json(const struct cdi_scalar *sc)
{
	char buf[32];

	switch (sc->kind) {
	case CDI_SCALAR_NULL:
		return json_null();
	case CDI_SCALAR_BOOL:
		return json_boolean(sc->b);
	case CDI_SCALAR_INT:
		return json_integer(sc->i);
	case CDI_SCALAR_UINT:
		/*
		 * Beyond json_int_t: keep the digits, so a string field gets
		 * what the reference's coercion gives and an integer field a
		 * type error (the reference rejects it too).
		 */
		snprintf(buf, sizeof(buf), "%llu", sc->u);
		return json_string_nocheck(buf);
	case CDI_SCALAR_FLOAT:
		return json_real(sc->d);
	case CDI_SCALAR_FLOAT_SPECIAL:
	case CDI_SCALAR_STRING:
		break;
	}
	/* libyaml has checked the UTF-8 of the input and of every escape. */
	return json_stringn_nocheck(sc->s, sc->len);
}

void cdi_scalar_key_float(char *buf, size_t size, double d)
{
	/* sigs.k8s.io/yaml turns a float key into FormatFloat(32), then Go's infinities and NaN
	 * into YAML's spellings. */
	format_float32_go(buf, size, d);
	if (strcmp(buf, "+Inf") == 0)
		snprintf(buf, size, ".inf");
	else if (strcmp(buf, "-Inf") == 0)
		snprintf(buf, size, "-.inf");
	else if (strcmp(buf, "NaN") == 0)
		snprintf(buf, size, ".nan");
}
