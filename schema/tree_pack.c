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
 *   'D'          a value                     that value, defined for later 'R's: the k-th 'D'
 *                                            to end (inner ones first) is definition k
 *   'R'          u32 k                       definition k again: the same node, shared
 * Counts and lengths are little endian. A string or an array of scalars that a tree holds more
 * than once (a spec's 200 mounts have a handful of option lists and types between them) is
 * packed once and shared: fewer nodes to build at every container start, as YAML anchors
 * would. Shared nodes are never written to: spec trees are read only. The reader trusts
 * nothing: the file is as much the host's as the spec it caches, but a damaged one must only
 * be a reason to read the spec.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cdi/spec.h>

#include "array.h"
#include "le.h"
#include "macro.h"
#include "strmap.h"
#include "tree_pack.h"
#include "utf8.h"

/* What repeats in a tree: a string, or an array of scalars by its packed bytes. */
struct repeat {
	size_t count; /* occurrences in the tree */
	long def;     /* its definition number once packed, else -1 */
};

struct repeats {
	struct cdi_strmap strings, arrays; /* key -> index in v */
	struct repeat *v;
	size_t n, cap;
	char **texts; /* the arrays' keys, owned */
	size_t n_texts, cap_texts;
	char *scratch; /* where an array's key is packed, again for each array */
	size_t scratch_cap;
	long n_defs;
};

struct out {
	char **buf;
	size_t *len, *cap;
	struct repeats *rp;
};

static int pack_value(struct out *o, const json_t *v, unsigned depth);

static void repeats_clear(struct repeats *rp)
{
	cdi_strmap_free(&rp->strings);
	cdi_strmap_free(&rp->arrays);
	free(rp->v);
	for (size_t i = 0; i < rp->n_texts; i++)
		free(rp->texts[i]);
	free(rp->texts);
	free(rp->scratch);
}

static bool scalar_array(const json_t *v)
{
	const json_t *e;
	size_t i;

	if (!json_is_array(v) || json_array_size(v) == 0)
		return false;
	json_array_foreach (v, i, e)
		if (json_is_array(e) || json_is_object(e))
			return false;
	return true;
}

/* The repeat entry of v (NULL: v is not a kind that is shared), added when missing if add. */
static int repeat_of(struct repeats *rp, const json_t *v, bool add, struct repeat **ret)
{
	struct cdi_strmap *map = json_is_string(v) ? &rp->strings : &rp->arrays;
	_cleanup_free_ char *text = NULL;
	const char *key;
	size_t len = 0, *at;
	int r;

	*ret = NULL;
	if (json_is_string(v)) {
		key = json_string_value(v);
		len = json_string_length(v);
	} else if (scalar_array(v)) {
		/* Its elements, scalars, pack the same wherever the array stands. */
		struct out o = { &rp->scratch, &len, &rp->scratch_cap, NULL };

		r = pack_value(&o, v, 0);
		if (r < 0)
			return r;
		key = rp->scratch;
	} else {
		return 0;
	}
	at = cdi_strmap_get(map, key, len);
	if (at) {
		*ret = &rp->v[*at];
		return 0;
	}
	if (!add)
		return 0;
	if (key == rp->scratch) {
		text = malloc(len);
		if (!text)
			return -ENOMEM;
		key = memcpy(text, rp->scratch, len);
	}
	if (ARRAY_RESERVE(rp->v, rp->cap, rp->n + 1) < 0 ||
	    (text && ARRAY_RESERVE(rp->texts, rp->cap_texts, rp->n_texts + 1) < 0) ||
	    cdi_strmap_put(map, key, len, rp->n) < 0)
		return -ENOMEM;
	if (text)
		rp->texts[rp->n_texts++] = TAKE_PTR(text);
	rp->v[rp->n] = (struct repeat){ .count = 0, .def = -1 };
	*ret = &rp->v[rp->n++];
	return 0;
}

/* Count every string and array of scalars of the tree. */
static int count_repeats(struct repeats *rp, const json_t *v, unsigned depth)
{
	struct repeat *e;
	const char *key;
	json_t *child;
	size_t i;
	int r;

	if (depth > CDI_SPEC_MAX_DEPTH)
		return -EINVAL;
	r = repeat_of(rp, v, true, &e);
	if (r < 0)
		return r;
	if (e)
		e->count++;
	if (json_is_array(v))
		json_array_foreach (v, i, child) {
			r = count_repeats(rp, child, depth + 1);
			if (r < 0)
				return r;
		}
	else if (json_is_object(v))
		json_object_foreach ((json_t *)v, key, child) {
			r = count_repeats(rp, child, depth + 1);
			if (r < 0)
				return r;
		}
	return 0;
}

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
	unsigned char b[4];

	if (v > UINT32_MAX)
		return -EINVAL;
	le_put(b, v, 4);
	return put(o, b, 4);
}

static int put_u64(struct out *o, uint64_t v)
{
	unsigned char b[8];

	le_put(b, v, 8);
	return put(o, b, 8);
}

static int put_text(struct out *o, const char *s, size_t n)
{
	int r = put_u32(o, n);

	return r < 0 ? r : put(o, s, n);
}

/* v, or a reference to where it was packed before, or its definition when it repeats. */
static int pack(struct out *o, const json_t *v, unsigned depth)
{
	struct repeat *e;
	int r;

	if (depth > CDI_SPEC_MAX_DEPTH)
		return -EINVAL;
	if (!o->rp)
		return pack_value(o, v, depth); /* a key being made: nothing shared */
	r = repeat_of(o->rp, v, false, &e);
	if (r < 0)
		return r;
	if (!e || e->count < 2)
		return pack_value(o, v, depth);
	if (e->def >= 0) {
		r = put(o, "R", 1);
		return r < 0 ? r : put_u32(o, (size_t)e->def);
	}
	r = put(o, "D", 1);
	if (r >= 0)
		r = pack_value(o, v, depth);
	if (r >= 0)
		e->def = o->rp->n_defs++; /* numbered as it ends, as the reader numbers it */
	return r;
}

static int pack_value(struct out *o, const json_t *v, unsigned depth)
{
	char tag;
	int r;

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
	struct repeats rp = { 0 };
	struct out o = { buf, len, cap, &rp };
	int r;

	r = count_repeats(&rp, tree, 0);
	if (r >= 0)
		r = pack(&o, tree, 0);
	repeats_clear(&rp);
	return r;
}

/* A definition: borrowed (it lives in the tree being built), with the nodes it stands for. */
struct def {
	json_t *v;
	size_t nodes;
};

struct in {
	const unsigned char *p, *end;
	size_t nodes;
	struct def *defs;
	size_t n_defs, cap_defs;
};

static bool get_u32(struct in *in, size_t *ret)
{
	if (in->end - in->p < 4)
		return false;
	*ret = (size_t)le_get(in->p, 4);
	in->p += 4;
	return true;
}

static bool get_u64(struct in *in, uint64_t *ret)
{
	if (in->end - in->p < 8)
		return false;
	*ret = le_get(in->p, 8);
	in->p += 8;
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
	case 'D': {
		size_t before = in->nodes;
		json_t *v;

		/* A definition of a definition would only be another name for the same node. */
		if (in->p == in->end || *in->p == 'D' || *in->p == 'R')
			return NULL;
		v = unpack(in, depth); /* which may define more: room is made after it */
		if (v && ARRAY_RESERVE(in->defs, in->cap_defs, in->n_defs + 1) < 0) {
			json_decref(v);
			return NULL;
		}
		if (v)
			in->defs[in->n_defs++] = (struct def){ v, in->nodes - before };
		return v;
	}
	case 'R':
		/* A reference counts as the nodes it stands for: whoever walks the tree walks them
		 * all, so the cap on nodes holds as YAML aliases are held to it. */
		if (!get_u32(in, &n) || n >= in->n_defs ||
		    in->defs[n].nodes > CDI_SPEC_MAX_NODES - in->nodes)
			return NULL;
		in->nodes += in->defs[n].nodes;
		return json_incref(in->defs[n].v);
	}
	return NULL;
}

int tree_unpack(const void *buf, size_t len, json_t **ret)
{
	struct in in = { buf, (const unsigned char *)buf + len, 0, NULL, 0, 0 };
	json_t *v;

	*ret = NULL;
	v = unpack(&in, 0);
	free(in.defs);
	if (v && in.p != in.end) {
		json_decref(v);
		v = NULL;
	}
	if (!v)
		return -EINVAL; /* out of memory is a failure to read it too: the spec is read */
	*ret = v;
	return 0;
}
