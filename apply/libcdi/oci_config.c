/* SPDX-License-Identifier: Apache-2.0 */
/*
 * config.json text to a jansson tree, by a recursive descent over RFC 8259 that builds the
 * nodes directly. jansson's own parser cannot be used: it refuses integers beyond int64 and
 * keeps no text for the numbers it turns into doubles (oci_config.h says why that matters).
 * Recursion is bounded by JSON_PARSER_MAX_DEPTH, as in jansson.
 */
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_dump.h"
#include "macro.h"
#include "number_text.h"
#include "oci_config.h"
#include "problem.h"
#include "utf8.h"

struct parser {
	const char *name;
	const char *start, *p, *end;
	unsigned depth;
	json_t *numbers; /* [node, "text"] pairs, made on the first number that needs one */
	struct cdi_error *err;
	char *scratch; /* decoded strings with escapes */
	size_t scratch_size;
	bool go; /* OCI_CONFIG_GO_DECODER: encoding/json's leniency */
};

/* What encoding/json writes for a byte that is not UTF-8 and for a lone surrogate escape. */
#define REPLACEMENT_CHAR 0xfffdu

_printf_(3, 4) static int fail_at(struct parser *ps, const char *at, const char *fmt, ...)
{
	unsigned line = 1, column = 1;
	va_list ap;
	int r;

	for (const char *q = ps->start; q < at && q < ps->end; q++) {
		if (*q == '\n') {
			line++;
			column = 1;
		} else if (((unsigned char)*q & 0xc0) != 0x80) {
			column++;
		}
	}
	va_start(ap, fmt);
	r = cdi_problem_addv(ps->err, -EINVAL, ps->name, line, column, NULL, fmt, ap);
	va_end(ap);
	return r;
}

static int oom(struct parser *ps)
{
	return cdi_problem_add(ps->err, -ENOMEM, ps->name, 0, 0, NULL, "out of memory");
}

static void skip_blank(struct parser *ps)
{
	while (ps->p < ps->end &&
	       (*ps->p == ' ' || *ps->p == '\n' || *ps->p == '\t' || *ps->p == '\r'))
		ps->p++;
}

/* What is at p, for a message: "'x'", "end of file". */
static const char *found(const struct parser *ps, char buf[static 16])
{
	unsigned char c;

	if (ps->p >= ps->end)
		return "end of file";
	c = (unsigned char)*ps->p;
	if (c >= 0x20 && c < 0x7f)
		snprintf(buf, 16, "'%c'", c);
	else
		snprintf(buf, 16, "byte 0x%02x", c);
	return buf;
}

static int hex4(const char *s, unsigned *ret)
{
	unsigned v = 0;

	for (int i = 0; i < 4; i++) {
		char c = s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			v |= (unsigned)((c | 0x20) - 'a' + 10);
		else
			return -1;
	}
	*ret = v;
	return 0;
}

/* One \ escape at p (just past the backslash) into out; the bytes written, or -1. */
static int unescape(struct parser *ps, char *out)
{
	static const char plain[] = "\"\\/bfnrt", meant[] = "\"\\/\b\f\n\r\t";
	const char *at = ps->p - 1, *c;
	unsigned cp, lo;

	if (ps->p >= ps->end)
		return fail_at(ps, at, "unfinished escape"), -1;
	c = memchr(plain, *ps->p, sizeof(plain) - 1);
	if (c && *ps->p) {
		ps->p++;
		*out = meant[c - plain];
		return 1;
	}
	if (*ps->p != 'u' || ps->end - ps->p < 5 || hex4(ps->p + 1, &cp) < 0)
		return fail_at(ps, at, "invalid escape"), -1;
	ps->p += 5;
	if (cp >= 0xdc00 && cp <= 0xdfff) {
		if (ps->go)
			return (int)utf8_put(out, REPLACEMENT_CHAR);
		return fail_at(ps, at, "invalid Unicode escape (a lone low surrogate)"), -1;
	}
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if (ps->end - ps->p < 6 || ps->p[0] != '\\' || ps->p[1] != 'u' ||
		    hex4(ps->p + 2, &lo) < 0 || lo < 0xdc00 || lo > 0xdfff) {
			/* Go writes U+FFFD and reads what follows as if alone. */
			if (ps->go)
				return (int)utf8_put(out, REPLACEMENT_CHAR);
			return fail_at(ps, at, "invalid Unicode escape (a lone high surrogate)"),
			       -1;
		}
		ps->p += 6;
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	return (int)utf8_put(out, cp);
}

/* Go's rule for bytes that are not UTF-8: each becomes U+FFFD (utf8.DecodeRune's width 1). */
static size_t copy_go_utf8(struct parser *ps, char *out)
{
	uint32_t cp;
	size_t n = utf8_decode((const unsigned char *)ps->p, (size_t)(ps->end - ps->p), &cp);

	if (n == 0) {
		ps->p++;
		return utf8_put(out, REPLACEMENT_CHAR);
	}
	memcpy(out, ps->p, n);
	ps->p += n;
	return n;
}

/*
 * A string at p (on its opening quote): the text, unescaped, in *ret (into the input when it
 * has no escape, else into scratch; valid until the next string). -EINVAL or -ENOMEM.
 */
static int parse_string(struct parser *ps, const char **ret, size_t *ret_len)
{
	const char *s = ++ps->p, *q;
	size_t o = 0, need;

	/* The common case: no escape, so the text is the input's bytes. */
	for (q = s; q < ps->end && *q != '"' && *q != '\\' && (unsigned char)*q >= 0x20; q++)
		;
	if (q < ps->end && *q == '"') {
		bool valid = utf8_valid(s, (size_t)(q - s));

		if (!valid && !ps->go)
			return fail_at(ps, s - 1, "string is not valid UTF-8");
		if (valid) {
			ps->p = q + 1;
			*ret = s;
			*ret_len = (size_t)(q - s);
			return 0;
		}
	}
	/* Escapes shrink the text, so its length bounds the decoded one; Go's U+FFFD for a
	 * byte that is not UTF-8 takes three. */
	for (q = s; q < ps->end && *q != '"'; q += *q == '\\' && q + 1 < ps->end ? 2 : 1)
		;
	need = (size_t)(q - s) * (ps->go ? 3 : 1) + 1;
	if (need > ps->scratch_size) {
		char *grown = realloc(ps->scratch, need);

		if (!grown)
			return oom(ps);
		ps->scratch = grown;
		ps->scratch_size = need;
	}
	while (ps->p < ps->end && *ps->p != '"') {
		unsigned char c = (unsigned char)*ps->p;
		int n;

		if (c < 0x20)
			return fail_at(ps, ps->p, "control character 0x%02x in a string", c);
		if (c >= 0x80 && ps->go) {
			o += copy_go_utf8(ps, ps->scratch + o);
			continue;
		}
		if (c != '\\') {
			ps->scratch[o++] = *ps->p++;
			continue;
		}
		ps->p++;
		n = unescape(ps, ps->scratch + o);
		if (n < 0)
			return -EINVAL;
		o += (size_t)n;
	}
	if (ps->p >= ps->end)
		return fail_at(ps, s - 1, "unterminated string");
	ps->p++;
	if (!utf8_valid(ps->scratch, o))
		return fail_at(ps, s - 1, "string is not valid UTF-8");
	*ret = ps->scratch;
	*ret_len = o;
	return 0;
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)? at p; its end, or NULL. integral: no . or e. */
static const char *scan_number(const char *p, const char *end, bool *integral)
{
	const char *d;

	*integral = true;
	if (p < end && *p == '-')
		p++;
	if (p < end && *p == '0')
		p++;
	else if (p < end && *p >= '1' && *p <= '9')
		while (p < end && *p >= '0' && *p <= '9')
			p++;
	else
		return NULL;
	if (p < end && *p == '.') {
		*integral = false;
		for (d = ++p; p < end && *p >= '0' && *p <= '9'; p++)
			;
		if (p == d)
			return NULL;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		*integral = false;
		if (++p < end && (*p == '+' || *p == '-'))
			p++;
		for (d = p; p < end && *p >= '0' && *p <= '9'; p++)
			;
		if (p == d)
			return NULL;
	}
	return p;
}

/* An int64 written canonically (what jansson writes back), or false. */
static bool canonical_int64(const char *s, size_t len, json_int_t *ret)
{
	bool neg = s[0] == '-';
	unsigned long long v = 0;

	if (neg && len == 2 && s[1] == '0')
		return false; /* -0 */
	for (size_t i = neg; i < len; i++) {
		unsigned d = (unsigned)(s[i] - '0');

		if (v > (ULLONG_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	if (v > (unsigned long long)LLONG_MAX + neg)
		return false;
	*ret = neg ? (json_int_t)(0 - v) : (json_int_t)v;
	return true;
}

/* A number whose text jansson would not write back: the nearest double, its text kept. */
static json_t *number_with_text(struct parser *ps, const char *s, size_t len)
{
	_cleanup_free_ char *text = strndup(s, len);
	json_t *node, *pair;
	double d;

	if (!text)
		return NULL;
	d = strtod_c(text, NULL);
	if (isinf(d))
		d = d > 0 ? DBL_MAX : -DBL_MAX; /* jansson holds no infinity */
	node = json_real(d);
	if (!node)
		return NULL;
	if (!ps->numbers && !(ps->numbers = json_array()))
		goto fail;
	pair = json_pack("[Os%]", node, text, len);
	if (!pair || json_array_append_new(ps->numbers, pair) < 0)
		goto fail;
	return node;
fail:
	json_decref(node);
	return NULL;
}

static int parse_number(struct parser *ps, json_t **ret)
{
	const char *s = ps->p, *e;
	json_int_t i;
	bool integral;

	e = scan_number(ps->p, ps->end, &integral);
	if (!e)
		return fail_at(ps, s, "invalid number");
	ps->p = e;
	if (integral && canonical_int64(s, (size_t)(e - s), &i))
		*ret = json_integer(i);
	else
		*ret = number_with_text(ps, s, (size_t)(e - s));
	return *ret ? 0 : oom(ps);
}

static int parse_value(struct parser *ps, json_t **ret);

static int parse_element(struct parser *ps, json_t *array)
{
	json_t *v;
	int r;

	r = parse_value(ps, &v);
	if (r < 0)
		return r;
	return json_array_append_new(array, v) < 0 ? oom(ps) : 0;
}

/* The fields of the runtime-spec structs (specs-go/config.go) that hold a struct, not a
 * pointer to one: a null does not reset them. */
static bool struct_field(const char *key, size_t len)
{
	static const char *const names[] = { "user", "hypervisor", "kernel", "image" };

	for (size_t i = 0; i < ELEMENTSOF(names); i++)
		if (strlen(names[i]) == len && memcmp(names[i], key, len) == 0)
			return true;
	return false;
}

/*
 * A key repeated in an object, as encoding/json decodes it into the field the first value
 * filled: an object goes into the struct or map the first one made, so the two merge; a null
 * resets a pointer, slice or map, and leaves a string, number, bool or struct as it was. Any
 * other value replaces the first (true: merge v into old; a null v merges as nothing).
 */
static bool go_keeps_first(const json_t *old, const json_t *v, const char *key, size_t len)
{
	if (!old)
		return false;
	if (json_is_object(old) && json_is_object(v))
		return true;
	if (!json_is_null(v))
		return false;
	return json_is_string(old) || json_is_number(old) || json_is_boolean(old) ||
	       (json_is_object(old) && struct_field(key, len));
}

/* other's members into obj the same way (encoding/json decoding into an existing struct or
 * map). Depth is bounded by the parser's. */
static int merge_objects(json_t *obj, json_t *other)
{
	if (!json_is_object(other))
		return 0; /* a null that leaves the first value as it was */
	for (void *it = json_object_iter(other); it; it = json_object_iter_next(other, it)) {
		const char *key = json_object_iter_key(it);
		size_t len = json_object_iter_key_len(it);
		json_t *v = json_object_iter_value(it), *cur = json_object_getn(obj, key, len);
		int r;

		if (go_keeps_first(cur, v, key, len))
			r = merge_objects(cur, v);
		else
			r = json_object_setn_nocheck(obj, key, len, v);
		if (r < 0)
			return -ENOMEM;
	}
	return 0;
}

static int parse_member(struct parser *ps, json_t *obj)
{
	_cleanup_free_ char *key = NULL;
	const char *k, *at = ps->p;
	char what[16];
	size_t len;
	json_t *v;
	int r;

	if (ps->p >= ps->end || *ps->p != '"')
		return fail_at(ps, ps->p, "expected a key in quotes, found %s", found(ps, what));
	r = parse_string(ps, &k, &len);
	if (r < 0)
		return r;
	/* The value's strings reuse the scratch space: keep the key apart. */
	key = malloc(len + 1);
	if (!key)
		return oom(ps);
	memcpy(key, k, len);
	key[len] = '\0';
	skip_blank(ps);
	if (ps->p >= ps->end || *ps->p != ':')
		return fail_at(ps, ps->p, "expected ':', found %s", found(ps, what));
	ps->p++;
	r = parse_value(ps, &v);
	if (r < 0)
		return r;
	if (ps->depth == 1 && len == strlen(JSON_DUMP_NUMBER_TEXT) &&
	    memcmp(key, JSON_DUMP_NUMBER_TEXT, len) == 0) {
		json_decref(v);
		return fail_at(ps, at, "the key \"%s\" is reserved", JSON_DUMP_NUMBER_TEXT);
	}
	if (ps->go && go_keeps_first(json_object_getn(obj, key, len), v, key, len)) {
		r = merge_objects(json_object_getn(obj, key, len), v);
		json_decref(v);
		return r < 0 ? oom(ps) : 0;
	}
	/* Keys are UTF-8 already. */
	if (json_object_setn_new_nocheck(obj, key, len, v) < 0)
		return oom(ps);
	return 0;
}

/* An object or an array at p (on its opening bracket), its members or elements in order. */
static int parse_container(struct parser *ps, bool object, json_t **ret)
{
	_cleanup_json_ json_t *c = object ? json_object() : json_array();
	const char close = object ? '}' : ']';
	char what[16];
	int r;

	if (!c)
		return oom(ps);
	ps->p++;
	skip_blank(ps);
	/* Empty, or one item after another: a ',' is always followed by an item. */
	for (bool empty = ps->p < ps->end && *ps->p == close; !empty;) {
		r = object ? parse_member(ps, c) : parse_element(ps, c);
		if (r < 0)
			return r;
		skip_blank(ps);
		if (ps->p < ps->end && *ps->p == close)
			break;
		if (ps->p >= ps->end || *ps->p != ',')
			return fail_at(ps, ps->p, "expected ',' or '%c', found %s", close,
				       found(ps, what));
		ps->p++;
		skip_blank(ps);
	}
	ps->p++;
	*ret = TAKE_PTR(c);
	return 0;
}

static int parse_word(struct parser *ps, const char *word, json_t *value, json_t **ret)
{
	size_t n = strlen(word);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
		return fail_at(ps, ps->p, "invalid token");
	ps->p += n;
	*ret = value;
	return 0;
}

static int parse_value(struct parser *ps, json_t **ret)
{
	const char *s;
	size_t len;
	char what[16];
	int r;

	skip_blank(ps);
	if (ps->p >= ps->end)
		return fail_at(ps, ps->p, "unexpected end of file");
	switch (*ps->p) {
	case '{':
	case '[':
		if (ps->depth >= JSON_PARSER_MAX_DEPTH)
			return fail_at(ps, ps->p, "nested deeper than %d levels",
				       JSON_PARSER_MAX_DEPTH);
		ps->depth++;
		r = parse_container(ps, *ps->p == '{', ret);
		ps->depth--;
		return r;
	case '"':
		r = parse_string(ps, &s, &len);
		if (r < 0)
			return r;
		*ret = json_stringn_nocheck(s, len);
		return *ret ? 0 : oom(ps);
	case '-':
	case '0' ... '9':
		return parse_number(ps, ret);
	case 't':
		return parse_word(ps, "true", json_true(), ret);
	case 'f':
		return parse_word(ps, "false", json_false(), ret);
	case 'n':
		return parse_word(ps, "null", json_null(), ret);
	default:
		return fail_at(ps, ps->p, "expected a value, found %s", found(ps, what));
	}
}

int oci_config_parse_flags(const char *name, const char *buf, size_t len, unsigned flags,
			   json_t **ret, struct cdi_error *err)
{
	struct parser ps = { .name = name,
			     .start = buf,
			     .p = buf,
			     .end = buf + len,
			     .err = err,
			     .go = flags & OCI_CONFIG_GO_DECODER };
	_cleanup_json_ json_t *root = NULL;
	char what[16];
	int r;

	skip_blank(&ps);
	if (ps.p < ps.end && *ps.p != '{')
		r = fail_at(&ps, ps.p, "an OCI runtime spec is a JSON object");
	else
		r = parse_value(&ps, &root);
	/* json.Decoder.Decode reads the first value and never looks further. */
	if (r >= 0 && !ps.go) {
		skip_blank(&ps);
		if (ps.p < ps.end)
			r = fail_at(&ps, ps.p, "end of file expected, found %s", found(&ps, what));
	}
	if (r >= 0 && ps.numbers &&
	    json_object_set_new_nocheck(root, JSON_DUMP_NUMBER_TEXT, TAKE_PTR(ps.numbers)) < 0)
		r = oom(&ps);
	json_decref(ps.numbers);
	free(ps.scratch);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(root);
	return 0;
}

int oci_config_parse(const char *name, const char *buf, size_t len, json_t **ret,
		     struct cdi_error *err)
{
	return oci_config_parse_flags(name, buf, len, 0, ret, err);
}
