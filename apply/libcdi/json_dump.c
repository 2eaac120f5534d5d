/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Writing config.json: the bytes jansson's json_dumps() writes, several times faster (one
 * buffer, no loop detection: the trees we write are ours), and numbers as they were written
 * when oci_config_parse() kept their text.
 */
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "macro.h"
#include "json_dump.h"
#include "number_text.h"

/* A number node and the text it was written as. */
struct number_text {
	const json_t *node;
	const char *text;
	size_t len;
};

struct outbuf {
	char *buf;
	size_t len, cap;
	bool oom;
	unsigned indent;
	bool tab;
	const json_t *root;
	struct number_text *numbers; /* sorted by node */
	size_t n_numbers;
};

static __attribute__((noinline)) void out_grow(struct outbuf *o, size_t n)
{
	/* Past malloc's mmap threshold from the start: the pages are faulted in only as they
	 * are written, and growing is an mremap(), not a copy (a config with a GPU's mounts is
	 * 60 KiB; doubling from 4 KiB faulted in and copied twice that). */
	size_t need = o->len + n + 1 > 256 * 1024 ? o->len + n + 1 : 256 * 1024;

	if (!o->oom && array_reserve(&o->buf, &o->cap, need, 1) < 0)
		o->oom = true;
}

/* Called for every token: the common case (room left) stays inline. */
static inline __attribute__((always_inline)) void out_reserve(struct outbuf *o, size_t n)
{
	if (__builtin_expect(o->len + n + 1 > o->cap, 0))
		out_grow(o, n);
}

static inline __attribute__((always_inline)) void out_put(struct outbuf *o, const char *s, size_t n)
{
	out_reserve(o, n);
	if (o->oom)
		return;
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

static inline __attribute__((always_inline)) void out_char(struct outbuf *o, char c)
{
	out_reserve(o, 1);
	if (!o->oom)
		o->buf[o->len++] = c;
}

/* jansson's dump_indent: a newline and depth levels, or nothing (compact). Written 8 bytes
 * at a time (room for the overshoot is reserved): a library memset per line costs more than
 * the line. */
static void out_indent(struct outbuf *o, unsigned indent, bool tab, unsigned depth)
{
	const uint64_t fill = UINT64_C(0x0101010101010101) * (tab ? '\t' : ' ');
	size_t n = tab ? depth : (size_t)depth * indent;
	char *d;

	if (!indent)
		return;
	out_reserve(o, n + 1 + 8);
	if (o->oom)
		return;
	d = o->buf + o->len;
	*d++ = '\n';
	for (size_t k = 0; k < n; k += 8)
		memcpy(d + k, &fill, 8);
	o->len += n + 1;
}

/* memcpy for the short strings a config is made of, without a library call (the 8- and 4-byte
 * copies compile to single loads and stores; overlapping ones cover the lengths between). */
static inline __attribute__((always_inline)) void copy_short(char *d, const char *s, size_t n)
{
	if (n > 16) {
		memcpy(d, s, n);
	} else if (n >= 8) {
		memcpy(d, s, 8);
		memcpy(d + n - 8, s + n - 8, 8);
	} else if (n >= 4) {
		memcpy(d, s, 4);
		memcpy(d + n - 4, s + n - 4, 4);
	} else {
		for (size_t k = 0; k < n; k++)
			d[k] = s[k];
	}
}

/* Whether any of the 8 bytes at p is below 0x20, '"' or '\\' (bit tricks on a 64-bit word). */
static bool needs_escape8(const char *p)
{
	const uint64_t ones = UINT64_C(0x0101010101010101), highs = UINT64_C(0x8080808080808080);
	uint64_t x, q, b;

	memcpy(&x, p, 8);
	q = x ^ (ones * '"');
	b = x ^ (ones * '\\');
	return (((x - ones * 0x20) & ~x) | ((q - ones) & ~q) | ((b - ones) & ~b)) & highs;
}

/* The bytes jansson escapes: control characters, '"' and '\\'. */
static const bool escaped_byte[256] = {
	[0x00 ... 0x1f] = true,
	['"'] = true,
	['\\'] = true,
};

/* jansson's dump_string without flags: escape '"', '\\' and control characters only. */
static void out_string(struct outbuf *o, const char *s, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t start = 0, i = 0;

	/* Nearly every string (paths, options, names) has nothing to escape: find that out
	 * first, then copy it whole. */
	while (i + 8 <= len && !needs_escape8(s + i))
		i += 8;
	while (i < len && !escaped_byte[(unsigned char)s[i]])
		i++;
	out_reserve(o, len + 2);
	if (i == len && !o->oom) {
		char *d = o->buf + o->len;

		d[0] = '"';
		copy_short(d + 1, s, len);
		d[len + 1] = '"';
		o->len += len + 2;
		return;
	}
	out_char(o, '"');
	for (i = 0; i < len; i++) {
		unsigned char c;
		char esc[6];
		size_t n = 2;

		/* Paths and options have nothing to escape: skip 8 bytes at a time while none is
		 * a control character, '"' or '\\'. */
		while (i + 8 <= len && !needs_escape8(s + i))
			i += 8;
		if (i >= len)
			break;
		c = s[i];
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		out_put(o, s + start, i - start);
		start = i + 1;
		esc[0] = '\\';
		switch (c) {
		case '"':
			esc[1] = '"';
			break;
		case '\\':
			esc[1] = '\\';
			break;
		case '\b':
			esc[1] = 'b';
			break;
		case '\f':
			esc[1] = 'f';
			break;
		case '\n':
			esc[1] = 'n';
			break;
		case '\r':
			esc[1] = 'r';
			break;
		case '\t':
			esc[1] = 't';
			break;
		default:
			memcpy(esc, "\\u00", 4);
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			n = 6;
		}
		out_put(o, esc, n);
	}
	out_put(o, s + start, len - start);
	out_char(o, '"');
}

static int cmp_number(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct number_text *)a)->node;
	uintptr_t y = (uintptr_t)((const struct number_text *)b)->node;

	return (x > y) - (x < y);
}

/* The number texts the root carries, sorted for look-up; false only when out of memory. */
static bool load_numbers(struct outbuf *o, const json_t *root)
{
	const json_t *pairs = json_object_get(root, JSON_DUMP_NUMBER_TEXT), *pair;
	size_t i, cap = 0;

	json_array_foreach (pairs, i, pair) {
		const json_t *node = json_array_get(pair, 0), *text = json_array_get(pair, 1);

		if (!json_is_number(node) || !json_is_string(text))
			continue;
		if (ARRAY_RESERVE(o->numbers, cap, o->n_numbers + 1) < 0)
			return false;
		o->numbers[o->n_numbers++] = (struct number_text){ node, json_string_value(text),
								   json_string_length(text) };
	}
	if (o->n_numbers > 1)
		qsort(o->numbers, o->n_numbers, sizeof(*o->numbers), cmp_number);
	return true;
}

/*
 * The text node was written as, if it still holds the value that text reads as (an edit may
 * have set it since) and the text is a plain JSON number (nothing else may reach the output).
 */
static const struct number_text *number_text(const struct outbuf *o, const json_t *node)
{
	const struct number_text key = { .node = node }, *t;
	char buf[NUMBER_TEXT_MAX * 2];
	double d;

	if (!o->n_numbers)
		return NULL;
	t = bsearch(&key, o->numbers, o->n_numbers, sizeof(*o->numbers), cmp_number);
	if (!t || t->len >= sizeof(buf) || strspn(t->text, "0123456789+-.eE") != t->len)
		return NULL;
	memcpy(buf, t->text, t->len);
	buf[t->len] = '\0';
	d = strtod_c(buf, NULL);
	if (json_is_integer(node))
		return d == (double)json_integer_value(node) ? t : NULL;
	return d == json_real_value(node) || (isinf(d) && fabs(json_real_value(node)) == DBL_MAX)
		       ? t
		       : NULL;
}

static void out_number(struct outbuf *o, const json_t *j)
{
	const struct number_text *t = number_text(o, j);
	char num[32], *r;

	if (t) {
		out_put(o, t->text, t->len);
	} else if (json_is_integer(j)) {
		/* What "%lld" writes, without snprintf's format parsing (device numbers, ids). */
		json_int_t v = json_integer_value(j);
		uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
		char *p = num + sizeof(num);

		do
			*--p = (char)('0' + u % 10);
		while (u /= 10);
		if (v < 0)
			*--p = '-';
		out_put(o, p, (size_t)(num + sizeof(num) - p));
	} else {
		/* Rare in a config; jansson's own formatting keeps the bytes identical. */
		r = json_dumps(j, JSON_ENCODE_ANY);
		if (!r) {
			o->oom = true;
			return;
		}
		out_put(o, r, strlen(r));
		json_free_text(r);
	}
}

static void out_value(struct outbuf *o, const json_t *j, unsigned depth);

static void out_array(struct outbuf *o, const json_t *j, unsigned depth)
{
	size_t n = json_array_size(j);

	out_char(o, '[');
	if (n == 0) {
		out_char(o, ']');
		return;
	}
	out_indent(o, o->indent, o->tab, depth + 1);
	for (size_t i = 0; i < n; i++) {
		out_value(o, json_array_get(j, i), depth + 1);
		if (i + 1 < n) {
			out_char(o, ',');
			out_indent(o, o->indent, o->tab, depth + 1);
		} else {
			out_indent(o, o->indent, o->tab, depth);
		}
	}
	out_char(o, ']');
}

/* The next member to write from iter on: the root's number texts are not written. */
static void *next_member(const struct outbuf *o, const json_t *j, void *iter)
{
	if (iter && j == o->root && o->n_numbers &&
	    strcmp(json_object_iter_key(iter), JSON_DUMP_NUMBER_TEXT) == 0)
		return json_object_iter_next((json_t *)j, iter);
	return iter;
}

static void out_object(struct outbuf *o, const json_t *j, unsigned depth)
{
	void *iter = next_member(o, j, json_object_iter((json_t *)j));

	out_char(o, '{');
	if (!iter) {
		out_char(o, '}');
		return;
	}
	out_indent(o, o->indent, o->tab, depth + 1);
	while (iter) {
		void *next = next_member(o, j, json_object_iter_next((json_t *)j, iter));

		out_string(o, json_object_iter_key(iter), json_object_iter_key_len(iter));
		if (o->indent)
			out_put(o, ": ", 2);
		else
			out_char(o, ':');
		out_value(o, json_object_iter_value(iter), depth + 1);
		if (next) {
			out_char(o, ',');
			out_indent(o, o->indent, o->tab, depth + 1);
		} else {
			out_indent(o, o->indent, o->tab, depth);
		}
		iter = next;
	}
	out_char(o, '}');
}

static void out_value(struct outbuf *o, const json_t *j, unsigned depth)
{
	switch (json_typeof(j)) {
	case JSON_NULL:
		out_put(o, "null", 4);
		break;
	case JSON_TRUE:
		out_put(o, "true", 4);
		break;
	case JSON_FALSE:
		out_put(o, "false", 5);
		break;
	case JSON_INTEGER:
	case JSON_REAL:
		out_number(o, j);
		break;
	case JSON_STRING:
		out_string(o, json_string_value(j), json_string_length(j));
		break;
	case JSON_ARRAY:
		out_array(o, j, depth);
		break;
	case JSON_OBJECT:
		out_object(o, j, depth);
		break;
	}
}

char *cdi_json_dump(const json_t *json, unsigned indent, bool tab, size_t *ret_len)
{
	struct outbuf o = { .tab = tab, .root = json };

	if (!json)
		return NULL;
	if (tab)
		indent = indent ? indent : 1;
	o.indent = indent > 31 ? 31 : indent;
	if (json_is_object(json) && !load_numbers(&o, json))
		o.oom = true;
	out_value(&o, json, 0);
	out_reserve(&o, 1);
	free(o.numbers);
	if (o.oom) {
		free(o.buf);
		return NULL;
	}
	o.buf[o.len] = '\0';
	if (ret_len)
		*ret_len = o.len;
	return o.buf;
}
