/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A fast path for the YAML that CDI generators write (ours, nvidia-ctk's go-yaml): an optional
 * "---", block mappings and block sequences (indented or not under their key), one-line plain,
 * double-quoted and single-quoted scalars, comments, blank lines. libyaml's event parser costs
 * about 160 instructions per byte of such a spec, more than everything else cdi-apply does;
 * this reads the text once and builds the tree directly.
 *
 * It must give exactly what the libyaml path gives (yaml_load.c): the same tree, the same key
 * order, the same scalar resolution (cdi_scalar_resolve, cdi_scalar_to_json) and the same marks
 * (libyaml's start marks: a block mapping starts at its first key, a block sequence at its
 * first '-', a scalar at its first character, quote included; columns count characters).
 * Whatever it is not sure of it declines (-EOPNOTSUPP) and the libyaml path runs instead, so
 * errors and their messages always come from there: flow collections, anchors, aliases, tags,
 * merge keys, block scalars, multi-line scalars, '?' keys, directives, more than one document,
 * tabs, CR, BOM, control characters, invalid UTF-8, duplicate keys, keys that are not strings,
 * NUL in a string, and the depth and node bounds. tests/unit/test-schema-yaml-fastpath.c checks it
 * against the libyaml path on every spec in the tree and thousands of generated ones.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cdi/spec.h>

#include "array.h"
#include "hash.h"
#include "macro.h"
#include "marks.h"
#include "utf8.h"
#include "yaml_fast.h"
#include "yaml_scalar.h"

#define DECLINE (-EOPNOTSUPP)

/* libyaml gives up on a simple key that does not reach its ':' within 1024 characters. */
#define FAST_MAX_KEY 1000
/* Longer lines are legal, but not what generators write: leave them to libyaml. */
#define FAST_MAX_LINE 65536

struct fast_mark {
	const json_t *node;
	unsigned line;
	unsigned column;
};

#define INTERN_SLOTS 64
#define INTERN_MAX_LEN 24

struct fast {
	const char *start;
	const char *end;
	const char *bol; /* the current line */
	const char *eol; /* its '\n', or end */
	const char *p;	 /* where reading goes on, within the current line */
	unsigned line;	 /* 1-based number of the current line */
	unsigned indent; /* spaces before the first character of the current content line */
	bool eof;	 /* no content line left */
	bool ascii;	 /* the whole text is ASCII: a column is a byte offset */
	size_t nodes;
	/* Marks are kept here and handed to the caller's table only on success. */
	bool want_marks;
	struct fast_mark *marks;
	size_t n_marks;
	size_t cap_marks;
	char *scratch; /* decoded quoted scalars and NUL-terminated plain ones */
	size_t scratch_size;
	/*
	 * Short strings seen before, shared instead of made again: a generated spec repeats
	 * "ro", "nosuid", "rbind" ... in every mount, and each copy is a node and an allocation.
	 * Only without marks, which tell nodes apart by address.
	 */
	json_t *interned[INTERN_SLOTS];
};

#define ONES UINT64_C(0x0101010101010101)
#define HIGHS UINT64_C(0x8080808080808080)

/* 0x80 in every byte of w that is c, 0 elsewhere (exact: no carries between bytes). */
static uint64_t bytes_equal(uint64_t w, unsigned char c)
{
	uint64_t x = w ^ (c * ONES);

	return ~(((x & (0x7f * ONES)) + 0x7f * ONES) | x | (0x7f * ONES));
}

/* Are all 8 bytes printable ASCII (0x20..0x7e) or '\n'? */
static bool word_printable(uint64_t w)
{
	uint64_t del;

	w |= bytes_equal(w, '\n') >> 2; /* '\n' (0x0a) becomes '*' (0x2a) */
	del = w ^ (0x7f * ONES);
	return !((w | ((w - 0x20 * ONES) & ~w) | ((del - ONES) & ~del)) & HIGHS);
}

/*
 * Everything libyaml's reader accepts and nothing that is a line break to its scanner other
 * than '\n': printable ASCII, and UTF-8 for U+00A0..U+10FFFF without surrogates, U+2028,
 * U+2029, U+FEFF, U+FFFE, U+FFFF. Tabs, CR and NEL are declined too: they have rules of their
 * own that this parser does not follow.
 */
static bool text_ok(const unsigned char *s, size_t len, bool *ret_ascii)
{
	bool ascii = true;

	for (size_t i = 0; i < len;) {
		unsigned c;
		uint32_t cp;
		size_t n;
		uint64_t w;

		/* Most words are printable ASCII: 8 bytes at a time, the rest byte by byte. */
		if (len - i >= 8) {
			memcpy(&w, s + i, 8);
			if (word_printable(w)) {
				i += 8;
				continue;
			}
		}
		c = s[i];
		if (c < 0x80) {
			if ((c < 0x20 && c != '\n') || c == 0x7f)
				return false;
			i++;
			continue;
		}
		ascii = false;
		n = utf8_decode(s + i, len - i, &cp);
		if (n == 0 || cp < 0xa0 || cp == 0x2028 || cp == 0x2029 || cp == 0xfeff ||
		    cp == 0xfffe || cp == 0xffff)
			return false;
		i += n;
	}
	*ret_ascii = ascii;
	return true;
}

static unsigned column_of(const struct fast *f, const char *p)
{
	unsigned column = 1;

	if (f->ascii)
		return (unsigned)(p - f->bol) + 1;
	for (const char *q = f->bol; q < p; q++)
		if (((unsigned char)*q & 0xc0) != 0x80)
			column++;
	return column;
}

static int mark(struct fast *f, const json_t *node, const char *at)
{
	if (!f->want_marks || json_is_boolean(node) || json_is_null(node))
		return 0;
	if (ARRAY_RESERVE(f->marks, f->cap_marks, f->n_marks + 1) < 0)
		return DECLINE;
	f->marks[f->n_marks++] = (struct fast_mark){ node, f->line, column_of(f, at) };
	return 0;
}

static int count_node(struct fast *f)
{
	return ++f->nodes > CDI_SPEC_MAX_NODES ? DECLINE : 0;
}

static bool blank_at(const struct fast *f, const char *p)
{
	return p >= f->eol || *p == ' ';
}

/*
 * Go to the next line with content (skipping blank and comment lines), leaving p at its first
 * character; eof when there is none. "---" and "..." at the start of a line would start or end
 * a document: declined.
 */
static int next_line(struct fast *f)
{
	for (;;) {
		const char *s;

		if (f->eol && f->eol >= f->end) {
			f->eof = true;
			f->p = f->end;
			return 0;
		}
		f->bol = f->eol ? f->eol + 1 : f->start;
		f->line++;
		f->eol = memchr(f->bol, '\n', (size_t)(f->end - f->bol));
		if (!f->eol)
			f->eol = f->end;
		if (f->eol - f->bol > FAST_MAX_LINE)
			return DECLINE;
		for (s = f->bol; s < f->eol && *s == ' '; s++)
			;
		if (s == f->eol || *s == '#')
			continue;
		if (f->eol - f->bol >= 3 &&
		    (memcmp(f->bol, "---", 3) == 0 || memcmp(f->bol, "...", 3) == 0))
			return DECLINE;
		f->p = s;
		f->indent = (unsigned)(s - f->bol);
		return 0;
	}
}

/* After a node on this line: only spaces and a comment may follow. */
static int end_of_line(struct fast *f, const char *p)
{
	const char *s = p;

	while (s < f->eol && *s == ' ')
		s++;
	if (s < f->eol && (*s != '#' || s == p))
		return DECLINE;
	return next_line(f);
}

static char *scratch(struct fast *f, size_t size)
{
	return array_reserve(&f->scratch, &f->scratch_size, size, 1) < 0 ? NULL : f->scratch;
}

struct scalar {
	const char *s; /* the text: into the buffer or into scratch */
	size_t len;
	bool plain;
	const char *after; /* just past it on the line */
};

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)(c | 0x20);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/*
 * A double-quoted scalar that ends on its line, with libyaml's escapes. An escape that makes a
 * NUL is declined: the libyaml path rejects NUL in strings, with its message.
 */
static int scan_double(struct fast *f, const char *p, struct scalar *sc)
{
	const char *q = p + 1, *close = memchr(q, '"', (size_t)(f->eol - q));
	char *o;
	size_t n = 0;

	if (!close)
		return DECLINE;
	if (!memchr(q, '\\', (size_t)(close - q))) {
		*sc = (struct scalar){ .s = q, .len = (size_t)(close - q), .after = close + 1 };
		return 0;
	}
	/* \L and \P are 2 characters that make 3 bytes; nothing grows more. */
	o = scratch(f, 2 * (size_t)(f->eol - q) + 1);
	if (!o)
		return DECLINE;
	while (q < f->eol && *q != '"') {
		/* libyaml's escapes (no \', it has none) but \0 and \<TAB>; \x, \u and \U take 2, 4
		 * and 8 digits. */
		static const char names[] = "abtnvfre \"/\\N_LPxuU";
		static const uint32_t points[] = { 0x07,   0x08,   0x09, 0x0a, 0x0b, 0x0c, 0x0d,
						   0x1b,   ' ',	   '"',	 '/',  '\\', 0x85, 0xa0,
						   0x2028, 0x2029, 2,	 4,    8 };
		const char *k;
		unsigned digits;
		uint32_t cp = 0;

		if (*q != '\\') {
			o[n++] = *q++;
			continue;
		}
		/* An escaped line break (multi-line) or an escape we do not know. */
		if (q + 1 >= f->eol || !q[1] || !(k = strchr(names, q[1])))
			return DECLINE;
		q += 2;
		if (*k != 'x' && *k != 'u' && *k != 'U') {
			n += utf8_put(o + n, points[k - names]);
			continue;
		}
		digits = points[k - names];
		if (f->eol - q < (ptrdiff_t)digits)
			return DECLINE;
		for (unsigned i = 0; i < digits; i++) {
			int v = hex_value(q[i]);

			if (v < 0)
				return DECLINE;
			cp = cp << 4 | (uint32_t)v;
		}
		if (cp == 0 || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
			return DECLINE;
		n += utf8_put(o + n, cp);
		q += digits;
	}
	if (q >= f->eol)
		return DECLINE;
	o[n] = '\0';
	*sc = (struct scalar){ .s = o, .len = n, .after = q + 1 };
	return 0;
}

/* A single-quoted scalar that ends on its line; '' is a quote. */
static int scan_single(struct fast *f, const char *p, struct scalar *sc)
{
	const char *q = p + 1;
	char *o = NULL;
	size_t n = 0;

	for (;;) {
		const char *close = memchr(q, '\'', (size_t)(f->eol - q));

		if (!close)
			return DECLINE;
		if (close + 1 < f->eol && close[1] == '\'') {
			/* An escaped quote: from here on, the text is copied. */
			if (!o) {
				o = scratch(f, (size_t)(f->eol - p) + 1);
				if (!o)
					return DECLINE;
			}
			memcpy(o + n, q, (size_t)(close - q) + 1);
			n += (size_t)(close - q) + 1;
			q = close + 2;
			continue;
		}
		if (!o) {
			*sc = (struct scalar){ .s = q,
					       .len = (size_t)(close - q),
					       .after = close + 1 };
			return 0;
		}
		memcpy(o + n, q, (size_t)(close - q));
		n += (size_t)(close - q);
		o[n] = '\0';
		*sc = (struct scalar){ .s = o, .len = n, .after = close + 1 };
		return 0;
	}
}

/*
 * A plain scalar on one line: it ends at ": " (or ':' at the end of the line), at " #" or at
 * the end of the line, trailing spaces not included. Characters that would start something
 * else (indicators, flow collections, anchors, tags, block scalars) are declined.
 */
static int scan_plain(struct fast *f, const char *p, struct scalar *sc)
{
	const char *q = p, *last = p;

	switch (*p) {
	case '-':
		if (blank_at(f, p + 1))
			return DECLINE;
		break;
	case '?':
	case ':':
	case ',':
	case '[':
	case ']':
	case '{':
	case '}':
	case '#':
	case '&':
	case '*':
	case '!':
	case '|':
	case '>':
	case '\'':
	case '"':
	case '%':
	case '@':
	case '`':
		return DECLINE;
	default:
		break;
	}
	for (;;) {
		const char *run = q;
		uint64_t w;

		/* Paths and names are long runs without ' ' or ':': 8 bytes at a time. */
		while (f->eol - q >= 8) {
			memcpy(&w, q, 8);
			if (bytes_equal(w, ' ') | bytes_equal(w, ':'))
				break;
			q += 8;
		}
		while (q < f->eol && *q != ' ' && *q != ':')
			q++;
		if (q > run)
			last = q;
		if (q >= f->eol)
			break;
		if (*q == ':') {
			if (blank_at(f, q + 1))
				break;
			last = ++q;
			continue;
		}
		while (q < f->eol && *q == ' ')
			q++;
		if (q >= f->eol || *q == '#')
			break;
	}
	/* What follows (spaces, then ':', '#' or the end of the line) is the caller's. */
	*sc = (struct scalar){ .s = p, .len = (size_t)(last - p), .plain = true, .after = last };
	return 0;
}

/* Any scalar at p; ret_key says whether a ':' (followed by a blank) comes after it. */
static int scan_scalar(struct fast *f, const char *p, struct scalar *sc, bool *ret_key)
{
	const char *s;
	int r;

	if (*p == '"')
		r = scan_double(f, p, sc);
	else if (*p == '\'')
		r = scan_single(f, p, sc);
	else
		r = scan_plain(f, p, sc);
	if (r < 0)
		return r;
	for (s = sc->after; s < f->eol && *s == ' '; s++)
		;
	*ret_key = s < f->eol && *s == ':' && blank_at(f, s + 1);
	if (*ret_key)
		sc->after = s + 1;
	return 0;
}

/* A string node for s, shared with an earlier equal one when the slot holds it. */
static json_t *intern_string(struct fast *f, const char *s, size_t len)
{
	json_t **slot = &f->interned[hash_fnv1a32(s, len) % INTERN_SLOTS], *node;

	if (*slot && json_string_length(*slot) == len &&
	    memcmp(json_string_value(*slot), s, len) == 0)
		return json_incref(*slot);
	node = json_stringn_nocheck(s, len);
	if (!node)
		return NULL;
	json_decref(*slot);
	*slot = json_incref(node);
	return node;
}

/* A value node from a scalar: resolved as the libyaml path resolves it. */
static int scalar_node(struct fast *f, const struct scalar *sc, const char *at, json_t **ret)
{
	struct cdi_scalar v;
	json_t *node;

	if (!sc->plain) {
		v = (struct cdi_scalar){ .kind = CDI_SCALAR_STRING, .s = sc->s, .len = sc->len };
	} else if (strchr("+-.0123456789", sc->s[0])) {
		/* Numbers are parsed with strtod: it needs the text NUL-terminated. */
		char *t = scratch(f, sc->len + 1);

		if (!t)
			return DECLINE;
		memcpy(t, sc->s, sc->len);
		t[sc->len] = '\0';
		cdi_scalar_resolve(t, sc->len, &v);
	} else {
		cdi_scalar_resolve(sc->s, sc->len, &v);
	}
	/* An integer beyond int64 is a string node the libyaml path notes as such. */
	if (count_node(f) < 0 || v.kind == CDI_SCALAR_UINT)
		return DECLINE;
	if (v.kind == CDI_SCALAR_STRING && !f->want_marks && v.len <= INTERN_MAX_LEN) {
		*ret = intern_string(f, v.s, v.len);
		return *ret ? 0 : DECLINE;
	}
	node = cdi_scalar_to_json(&v);
	if (!node)
		return DECLINE;
	if (mark(f, node, at) < 0) {
		json_decref(node);
		return DECLINE;
	}
	*ret = node;
	return 0;
}

static int parse_mapping(struct fast *f, unsigned column, unsigned depth, json_t **ret);
static int parse_sequence(struct fast *f, unsigned column, unsigned depth, json_t **ret);

/*
 * The node after a key's ':' or a '-' (p is just past it). On the same line: a scalar, or, for a
 * sequence entry, a mapping whose first key is there. Otherwise on the lines below: a block
 * more indented than the parent at column, a sequence at the parent's own column when the
 * parent is a mapping (go-yaml writes those), or nothing: null.
 */
static int parse_value(struct fast *f, unsigned column, bool in_mapping, unsigned depth,
		       json_t **ret)
{
	const char *p = f->p;
	struct scalar sc;
	bool key;
	int r;

	while (p < f->eol && *p == ' ')
		p++;
	if (p < f->eol && *p != '#') {
		if (*p == '-' && blank_at(f, p + 1)) {
			if (in_mapping)
				return DECLINE; /* "key: - x": an error */
			/* "- - x": a sequence in a sequence, starting at its '-'. */
			f->p = p;
			f->indent = column_of(f, p) - 1;
			return parse_sequence(f, f->indent, depth, ret);
		}
		r = scan_scalar(f, p, &sc, &key);
		if (r < 0)
			return r;
		if (key) {
			if (in_mapping)
				return DECLINE; /* "a: b: c" */
			f->p = p;
			f->indent = column_of(f, p) - 1;
			return parse_mapping(f, f->indent, depth, ret);
		}
		r = scalar_node(f, &sc, p, ret);
		if (r < 0)
			return r;
		r = end_of_line(f, sc.after);
		if (r < 0) {
			json_decref(TAKE_PTR(*ret));
			return r;
		}
		return 0;
	}
	if (p < f->eol && p > f->p && p[-1] != ' ')
		return DECLINE;
	r = next_line(f);
	if (r < 0)
		return r;
	if (!f->eof && f->indent > column) {
		if (*f->p == '-' && blank_at(f, f->p + 1))
			return parse_sequence(f, f->indent, depth, ret);
		return parse_mapping(f, f->indent, depth, ret);
	}
	if (!f->eof && in_mapping && f->indent == column && *f->p == '-' && blank_at(f, f->p + 1))
		return parse_sequence(f, column, depth, ret);
	*ret = json_null();
	return count_node(f);
}

/* A block mapping at column; f->p is at its first key. */
/* A new mapping or sequence starting at f->p, within the bounds; NULL to decline. */
static json_t *open_container(struct fast *f, unsigned depth, bool mapping)
{
	json_t *node;

	if (depth >= CDI_SPEC_MAX_DEPTH)
		return NULL;
	node = mapping ? json_object() : json_array();
	if (node && (count_node(f) < 0 || mark(f, node, f->p) < 0)) {
		json_decref(node);
		return NULL;
	}
	return node;
}

static int parse_mapping(struct fast *f, unsigned column, unsigned depth, json_t **ret)
{
	_cleanup_json_ json_t *obj = open_container(f, depth, true);
	int r;

	if (!obj)
		return DECLINE;
	for (;;) {
		const char *key_at = f->p;
		struct cdi_scalar resolved;
		struct scalar key;
		_cleanup_free_ char *own_key = NULL;
		json_t *value = NULL;
		size_t size;
		bool is_key;
		char *k;

		r = scan_scalar(f, key_at, &key, &is_key);
		if (r < 0)
			return r;
		if (!is_key || key.after - key_at > FAST_MAX_KEY)
			return DECLINE;
		if (key.plain) {
			/* Only keys that stay strings; "<<" is a merge key. */
			if (key.len == 2 && memcmp(key.s, "<<", 2) == 0)
				return DECLINE;
			k = scratch(f, key.len + 1);
			if (!k)
				return DECLINE;
			memcpy(k, key.s, key.len);
			k[key.len] = '\0';
			cdi_scalar_resolve(k, key.len, &resolved);
			if (resolved.kind != CDI_SCALAR_STRING)
				return DECLINE;
		} else if (memchr(key.s, '\0', key.len)) {
			return DECLINE;
		}
		/* The value may reuse scratch: a key decoded there needs a copy of its own. */
		if (key.s == f->scratch) {
			own_key = malloc(key.len + 1);
			if (!own_key)
				return DECLINE;
			memcpy(own_key, key.s, key.len + 1);
			key.s = own_key;
		}
		f->p = key.after;
		r = parse_value(f, column, true, depth + 1, &value);
		if (r < 0)
			return r;
		/* Inserted after its value, as the libyaml path does; same order either way. */
		size = json_object_size(obj);
		if (json_object_setn_new_nocheck(obj, key.s, key.len, value) < 0)
			return DECLINE;
		if (json_object_size(obj) == size)
			return DECLINE; /* a duplicate key: the libyaml path reports it */
		if (f->eof || f->indent < column)
			break;
		if (f->indent > column || (*f->p == '-' && blank_at(f, f->p + 1)))
			return DECLINE; /* a continuation line, or an error */
	}
	*ret = TAKE_PTR(obj);
	return 0;
}

/* A block sequence at column; f->p is at its first '-'. */
static int parse_sequence(struct fast *f, unsigned column, unsigned depth, json_t **ret)
{
	_cleanup_json_ json_t *arr = open_container(f, depth, false);
	json_t *item;
	int r;

	if (!arr)
		return DECLINE;
	for (;;) {
		item = NULL;
		f->p++; /* the '-' */
		r = parse_value(f, column, false, depth + 1, &item);
		if (r < 0)
			return r;
		if (json_array_append_new(arr, item) < 0)
			return DECLINE;
		if (f->eof || f->indent < column)
			break;
		if (f->indent > column)
			return DECLINE;
		if (!(*f->p == '-' && blank_at(f, f->p + 1)))
			break; /* the next key of the mapping this sequence is the value of */
	}
	*ret = TAKE_PTR(arr);
	return 0;
}

/* "---" alone (or with a comment) on the first content line starts the document. */
static int document_start(struct fast *f)
{
	int r = next_line(f);

	if (r != DECLINE || f->eol - f->bol < 3 || memcmp(f->bol, "---", 3) != 0)
		return r;
	if (f->eol - f->bol > 3 && f->bol[3] != ' ')
		return DECLINE; /* "---x" is a plain scalar */
	f->p = f->bol + 3;
	f->indent = 3;
	/* Only a comment may follow on the line. */
	return end_of_line(f, f->p);
}

int cdi_yaml_load_fast(const char *buf, size_t len, json_t **ret_root, struct cdi_marks *marks)
{
	struct fast f = {
		.start = buf,
		.end = buf + len,
		.want_marks = cdi_marks_positions(marks),
	};
	json_t *root = NULL;
	int r;

	if (len > CDI_SPEC_MAX_BYTES || !text_ok((const unsigned char *)buf, len, &f.ascii))
		return DECLINE;
	if (len == 0)
		return -ENODATA;
	r = document_start(&f);
	if (r < 0)
		return DECLINE;
	if (f.eof)
		return -ENODATA;
	if (*f.p == '-' && blank_at(&f, f.p + 1))
		r = parse_sequence(&f, f.indent, 0, &root);
	else
		r = parse_mapping(&f, f.indent, 0, &root);
	if (r >= 0 && !f.eof)
		r = DECLINE; /* something after the root node: an error for libyaml to report */
	for (size_t i = 0; r >= 0 && i < f.n_marks; i++)
		if (cdi_marks_add(marks, f.marks[i].node, f.marks[i].line, f.marks[i].column) < 0)
			r = DECLINE;
	free(f.marks);
	free(f.scratch);
	for (size_t i = 0; i < INTERN_SLOTS; i++)
		json_decref(f.interned[i]);
	if (r < 0) {
		json_decref(root);
		return DECLINE;
	}
	*ret_root = root;
	return 0;
}
