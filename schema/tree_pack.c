/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The packed form: one tag byte per value, then
 *   'n' 't' 'f'  nothing                     null, true, false
 *   'i'          8 bytes, little endian      an integer
 *   'r'          8 bytes, IEEE 754 binary64  a real
 *   's'          u32 length, the bytes       a string (UTF-8, NUL allowed as in jansson)
 *   'a'          u32 count, the values       an array
 *   'o'          u32 count, then per member  an object: the key as a string without its tag
 *                                            (no NUL in it), then the value
 * Counts and lengths are little endian. The reader trusts nothing: the file is as much the
 * host's as the spec it caches, but a damaged one must only be a reason to read the spec.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cdi/spec.h>

#include "array.h"
#include "macro.h"
#include "tree_pack.h"
#include "utf8.h"

struct out {
	char **buf;
	size_t *len, *cap;
};

static int put(struct out *o, const void *p, size_t n)
{
	if (*o->len + n > *o->cap) {
		size_t cap = *o->cap ? *o->cap : 4096;
		char *b;

		while (cap < *o->len + n)
			cap *= 2;
		b = realloc(*o->buf, cap);
		if (!b)
			return -ENOMEM;
		*o->buf = b;
		*o->cap = cap;
	}
	memcpy(*o->buf + *o->len, p, n);
	*o->len += n;
	return 0;
}

static int put_u32(struct out *o, size_t v)
{
	unsigned char b[4] = { (unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
			       (unsigned char)(v >> 24) };

	return v > UINT32_MAX ? -EINVAL : put(o, b, 4);
}

static int put_u64(struct out *o, uint64_t v)
{
	unsigned char b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	return put(o, b, 8);
}

static int put_text(struct out *o, const char *s, size_t n)
{
	int r = put_u32(o, n);

	return r < 0 ? r : put(o, s, n);
}

static int pack(struct out *o, const json_t *v, unsigned depth)
{
	char tag;
	int r;

	if (depth > CDI_SPEC_MAX_DEPTH)
		return -EINVAL;
	switch (json_typeof(v)) {
	case JSON_NULL:
		return put(o, "n", 1);
	case JSON_TRUE:
		return put(o, "t", 1);
	case JSON_FALSE:
		return put(o, "f", 1);
	case JSON_INTEGER:
		r = put(o, "i", 1);
		return r < 0 ? r : put_u64(o, (uint64_t)json_integer_value(v));
	case JSON_REAL: {
		double d = json_real_value(v);
		uint64_t bits;

		memcpy(&bits, &d, sizeof(bits));
		r = put(o, "r", 1);
		return r < 0 ? r : put_u64(o, bits);
	}
	case JSON_STRING:
		r = put(o, "s", 1);
		return r < 0 ? r : put_text(o, json_string_value(v), json_string_length(v));
	case JSON_ARRAY: {
		const json_t *e;
		size_t i;

		tag = 'a';
		r = put(o, &tag, 1);
		if (r >= 0)
			r = put_u32(o, json_array_size(v));
		json_array_foreach (v, i, e)
			if (r >= 0)
				r = pack(o, e, depth + 1);
		return r;
	}
	case JSON_OBJECT: {
		const char *key;
		const json_t *e;
		size_t klen;
		void *tmp;

		tag = 'o';
		r = put(o, &tag, 1);
		if (r >= 0)
			r = put_u32(o, json_object_size(v));
		json_object_keylen_foreach_safe ((json_t *)v, tmp, key, klen, e) {
			if (r >= 0 && memchr(key, '\0', klen))
				r = -EINVAL; /* as tree_unpack() refuses it */
			if (r >= 0)
				r = put_text(o, key, klen);
			if (r >= 0)
				r = pack(o, e, depth + 1);
		}
		return r;
	}
	}
	return -EINVAL;
}

int tree_pack(const json_t *tree, char **buf, size_t *len, size_t *cap)
{
	struct out o = { buf, len, cap };

	return pack(&o, tree, 0);
}

struct in {
	const unsigned char *p, *end;
	size_t nodes;
};

static bool get_u32(struct in *in, size_t *ret)
{
	if (in->end - in->p < 4)
		return false;
	*ret = (size_t)in->p[0] | (size_t)in->p[1] << 8 | (size_t)in->p[2] << 16 |
	       (size_t)in->p[3] << 24;
	in->p += 4;
	return true;
}

static bool get_u64(struct in *in, uint64_t *ret)
{
	uint64_t v = 0;

	if (in->end - in->p < 8)
		return false;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | in->p[i];
	in->p += 8;
	*ret = v;
	return true;
}

/* A length-prefixed UTF-8 text: where it starts and how long it is. */
static bool get_text(struct in *in, const char **ret, size_t *ret_len)
{
	size_t n;

	if (!get_u32(in, &n) || (size_t)(in->end - in->p) < n ||
	    !utf8_valid((const char *)in->p, n))
		return false;
	*ret = (const char *)in->p;
	*ret_len = n;
	in->p += n;
	return true;
}

static json_t *unpack(struct in *in, unsigned depth);

static json_t *unpack_array(struct in *in, unsigned depth)
{
	json_t *a;
	size_t n;

	/* Every element takes at least its tag byte: a count beyond that is a lie. */
	if (!get_u32(in, &n) || n > (size_t)(in->end - in->p))
		return NULL;
	a = json_array();
	for (size_t i = 0; a && i < n; i++) {
		json_t *e = unpack(in, depth + 1);

		if (!e || json_array_append_new(a, e) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *unpack_object(struct in *in, unsigned depth)
{
	json_t *o;
	size_t n;

	if (!get_u32(in, &n) || n > (size_t)(in->end - in->p) / 5)
		return NULL;
	o = json_object();
	for (size_t i = 0; o && i < n; i++) {
		const char *key;
		size_t klen;
		json_t *e;

		/* A NUL in a key: jansson's lookups by C string would never find the member. */
		if (!get_text(in, &key, &klen) || memchr(key, '\0', klen) ||
		    !(e = unpack(in, depth + 1))) {
			json_decref(o);
			return NULL;
		}
		/* A key given twice (never packed so) ends as its last value, as in jansson. */
		if (json_object_setn_new_nocheck(o, key, klen, e) < 0) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

static json_t *unpack(struct in *in, unsigned depth)
{
	const char *s;
	uint64_t u;
	size_t n;
	double d;

	if (in->p == in->end || depth > CDI_SPEC_MAX_DEPTH || ++in->nodes > CDI_SPEC_MAX_NODES)
		return NULL;
	switch (*in->p++) {
	case 'n':
		return json_null();
	case 't':
		return json_true();
	case 'f':
		return json_false();
	case 'i':
		return get_u64(in, &u) ? json_integer((json_int_t)u) : NULL;
	case 'r':
		if (!get_u64(in, &u))
			return NULL;
		memcpy(&d, &u, sizeof(d));
		return json_real(d); /* NULL for NaN and infinities, which JSON has not */
	case 's':
		return get_text(in, &s, &n) ? json_stringn_nocheck(s, n) : NULL;
	case 'a':
		return unpack_array(in, depth);
	case 'o':
		return unpack_object(in, depth);
	}
	return NULL;
}

int tree_unpack(const void *buf, size_t len, json_t **ret)
{
	struct in in = { buf, (const unsigned char *)buf + len, 0 };
	json_t *v;

	*ret = NULL;
	v = unpack(&in, 0);
	if (v && in.p != in.end) {
		json_decref(v);
		v = NULL;
	}
	if (!v)
		return -EINVAL; /* out of memory is a failure to read it too: the spec is read */
	*ret = v;
	return 0;
}
