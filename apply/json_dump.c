/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Writing config.json: the bytes jansson's json_dumps() writes, several times faster (one
 * buffer, no loop detection: the trees we write are ours).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "json_dump.h"

struct outbuf {
	char *buf;
	size_t len, cap;
	bool oom;
};

static __attribute__((noinline)) void out_grow(struct outbuf *o, size_t n)
{
	size_t cap;
	char *grown;

	if (o->oom)
		return;
	/* Past malloc's mmap threshold from the start: the pages are faulted in only as they
	 * are written, and growing is an mremap(), not a copy (a config with a GPU's mounts is
	 * 60 KiB; doubling from 4 KiB faulted in and copied twice that). */
	cap = o->cap ? o->cap : 256 * 1024;
	while (cap < o->len + n + 1)
		cap *= 2;
	grown = realloc(o->buf, cap);
	if (!grown) {
		o->oom = true;
		return;
	}
	o->buf = grown;
	o->cap = cap;
}

/* Called for every token: the common case (room left) stays inline. */
static inline __attribute__((always_inline)) void out_reserve(struct outbuf *o, size_t n)
{
	if (__builtin_expect(o->len + n + 1 > o->cap, 0))
		out_grow(o, n);
}

static inline __attribute__((always_inline)) void out_put(struct outbuf *o, const char *s,
							  size_t n)
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

/* jansson's dump_indent: a newline and depth levels, or nothing (compact). */
static void out_indent(struct outbuf *o, unsigned indent, bool tab, unsigned depth)
{
	size_t n = tab ? depth : (size_t)depth * indent;

	if (!indent)
		return;
	out_reserve(o, n + 1);
	if (o->oom)
		return;
	o->buf[o->len++] = '\n';
	memset(o->buf + o->len, tab ? '\t' : ' ', n);
	o->len += n;
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

/* jansson's dump_string without flags: escape '"', '\\' and control characters only. */
static void out_string(struct outbuf *o, const char *s, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t start = 0;

	out_reserve(o, len + 2);
	out_char(o, '"');
	for (size_t i = 0; i < len; i++) {
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
		case '"': esc[1] = '"'; break;
		case '\\': esc[1] = '\\'; break;
		case '\b': esc[1] = 'b'; break;
		case '\f': esc[1] = 'f'; break;
		case '\n': esc[1] = 'n'; break;
		case '\r': esc[1] = 'r'; break;
		case '\t': esc[1] = 't'; break;
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

static void out_value(struct outbuf *o, const json_t *j, unsigned indent, bool tab, unsigned depth)
{
	char num[32];
	size_t i, n;

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
		n = snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, json_integer_value(j));
		out_put(o, num, n);
		break;
	case JSON_REAL: {
		/* Rare in a config; jansson's own formatting keeps the bytes identical. */
		char *r = json_dumps(j, JSON_ENCODE_ANY);

		if (!r)
			o->oom = true;
		else
			out_put(o, r, strlen(r));
		if (r)
			json_free_text(r);
		break;
	}
	case JSON_STRING:
		out_string(o, json_string_value(j), json_string_length(j));
		break;
	case JSON_ARRAY:
		n = json_array_size(j);
		out_char(o, '[');
		if (n == 0) {
			out_char(o, ']');
			break;
		}
		out_indent(o, indent, tab, depth + 1);
		for (i = 0; i < n; i++) {
			out_value(o, json_array_get(j, i), indent, tab, depth + 1);
			if (i + 1 < n) {
				out_char(o, ',');
				if (indent)
					out_indent(o, indent, tab, depth + 1);
			} else {
				out_indent(o, indent, tab, depth);
			}
		}
		out_char(o, ']');
		break;
	case JSON_OBJECT: {
		void *iter = json_object_iter((json_t *)j);

		out_char(o, '{');
		if (!iter) {
			out_char(o, '}');
			break;
		}
		out_indent(o, indent, tab, depth + 1);
		while (iter) {
			void *next = json_object_iter_next((json_t *)j, iter);

			out_string(o, json_object_iter_key(iter), json_object_iter_key_len(iter));
			if (indent)
				out_put(o, ": ", 2);
			else
				out_char(o, ':');
			out_value(o, json_object_iter_value(iter), indent, tab, depth + 1);
			if (next) {
				out_char(o, ',');
				out_indent(o, indent, tab, depth + 1);
			} else {
				out_indent(o, indent, tab, depth);
			}
			iter = next;
		}
		out_char(o, '}');
		break;
	}
	}
}

char *cdi_json_dump(const json_t *json, unsigned indent, bool tab, size_t *ret_len)
{
	struct outbuf o = { 0 };

	if (!json)
		return NULL;
	if (tab)
		indent = indent ? indent : 1;
	out_value(&o, json, indent > 31 ? 31 : indent, tab, 0);
	out_reserve(&o, 1);
	if (o.oom) {
		free(o.buf);
		return NULL;
	}
	o.buf[o.len] = '\0';
	if (ret_len)
		*ret_len = o.len;
	return o.buf;
}
