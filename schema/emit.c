/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Deterministic serialisation of a spec tree. Keys follow the CDI schema's
 * order (unknown keys after, bytewise sorted; annotation maps sorted), so
 * the same spec always gives the same bytes. YAML goes through libyaml's
 * emitter; a string is written plain only when no YAML 1.1 or 1.2 reader
 * (podman 4 reads with go-yaml v2, i.e. YAML 1.1) could read it as anything
 * but that string, and double-quoted otherwise.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include <cdi/spec.h>

#include "macro.h"
#include "number_text.h"
#include "problem.h"
#include "utf8.h"
#include "yaml_scalar.h"

enum kind {
	K_NONE, /* unknown object: keys sorted bytewise */
	K_SPEC,
	K_DEVICE,
	K_EDITS,
	K_DEVICE_NODE,
	K_MOUNT,
	K_HOOK,
	K_RDT,
	K_NET_DEVICE,
	K_ANNOTATIONS,
};

static const char *const *const key_order[] = {
	[K_SPEC] = (const char *const[]){ "cdiVersion", "kind", "annotations", "devices",
					  "containerEdits", NULL },
	[K_DEVICE] = (const char *const[]){ "name", "annotations", "containerEdits", NULL },
	[K_EDITS] = (const char *const[]){ "env", "deviceNodes", "hooks", "mounts", "intelRdt",
					   "additionalGids", "netDevices", NULL },
	[K_DEVICE_NODE] = (const char *const[]){ "path", "hostPath", "type", "major", "minor",
						 "fileMode", "permissions", "uid", "gid", NULL },
	[K_MOUNT] = (const char *const[]){ "hostPath", "containerPath", "type", "options", NULL },
	[K_HOOK] = (const char *const[]){ "hookName", "path", "args", "env", "timeout", NULL },
	[K_RDT] = (const char *const[]){ "closID", "l3CacheSchema", "memBwSchema", "schemata",
					 "enableMonitoring", NULL },
	[K_NET_DEVICE] = (const char *const[]){ "hostInterfaceName", "name", NULL },
};

/* What an object is follows from where it sits. */
static const struct {
	enum kind parent;
	const char *key;
	enum kind child;
	bool array; /* the key holds an array of such objects */
} children[] = {
	{ K_SPEC, "annotations", K_ANNOTATIONS, false },
	{ K_SPEC, "devices", K_DEVICE, true },
	{ K_SPEC, "containerEdits", K_EDITS, false },
	{ K_DEVICE, "annotations", K_ANNOTATIONS, false },
	{ K_DEVICE, "containerEdits", K_EDITS, false },
	{ K_EDITS, "deviceNodes", K_DEVICE_NODE, true },
	{ K_EDITS, "hooks", K_HOOK, true },
	{ K_EDITS, "mounts", K_MOUNT, true },
	{ K_EDITS, "intelRdt", K_RDT, false },
	{ K_EDITS, "netDevices", K_NET_DEVICE, true },
};

struct entry {
	const char *key;
	size_t key_len;
	unsigned rank;
	json_t *value;
	enum kind kind;	 /* of value, when it is an object */
	enum kind items; /* of value's items, when it is an array */
};

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	c = memcmp(x->key, y->key, x->key_len < y->key_len ? x->key_len : y->key_len);
	if (c)
		return c;
	return x->key_len < y->key_len ? -1 : x->key_len > y->key_len;
}

/* The entries of obj in emission order; *ret_n of them. Caller frees. */
static struct entry *ordered_entries(const json_t *obj, enum kind kind, size_t *ret_n)
{
	const char *const *order = kind < ELEMENTSOF(key_order) ? key_order[kind] : NULL;
	size_t n = json_object_size(obj), i = 0;
	struct entry *v = calloc(n ? n : 1, sizeof(*v));
	const char *key;
	size_t key_len;
	json_t *value;

	if (!v)
		return NULL;
	json_object_keylen_foreach ((json_t *)obj, key, key_len, value) {
		struct entry *e = &v[i++];

		*e = (struct entry){
			.key = key, .key_len = key_len, .rank = UINT32_MAX, .value = value
		};
		for (unsigned r = 0; order && order[r]; r++) {
			if (strlen(order[r]) == key_len && memcmp(order[r], key, key_len) == 0) {
				e->rank = r;
				break;
			}
		}
		for (size_t c = 0; c < ELEMENTSOF(children); c++) {
			if (children[c].parent != kind || strlen(children[c].key) != key_len ||
			    memcmp(children[c].key, key, key_len) != 0)
				continue;
			if (children[c].array)
				e->items = children[c].child;
			else
				e->kind = children[c].child;
		}
	}
	qsort(v, n, sizeof(*v), entry_cmp);
	*ret_n = n;
	return v;
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_alnum(char c)
{
	return is_alpha(c) || (c >= '0' && c <= '9');
}

/*
 * May s be written as a plain scalar? Deliberately narrow: a letter, '/'
 * or '_' first (so no number, date, sexagesimal, .inf, indicator or "<<"),
 * then letters, digits and a few punctuation marks that no reader treats
 * specially where they can stand; none of the YAML 1.1 booleans or nulls.
 */
static bool plain_safe(const char *s, size_t len)
{
	static const char *const words[] = { "y",    "n",     "yes",  "no",  "on",  "off",
					     "true", "false", "null", "inf", "nan", "infinity" };
	struct cdi_scalar sc;

	if (len == 0)
		return false;
	if (s[0] == '-') {
		/* "--flag" is fine; "-", "- x", "-1", "-.inf" and "---" are not. */
		size_t i = 0;

		while (i < len && s[i] == '-')
			i++;
		if (i >= 3 || i == len || !is_alpha(s[i]))
			return false;
	} else if (!is_alpha(s[0]) && s[0] != '/' && s[0] != '_') {
		return false;
	}
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (is_alnum(c))
			continue;
		switch (c) {
		case ' ':
			if (i + 1 == len)
				return false;
			continue;
		case ':':
			if (i + 1 == len || s[i + 1] == ' ')
				return false;
			continue;
		case '/':
		case '_':
		case '.':
		case '-':
		case '=':
		case '+':
		case ',':
		case '@':
		case '%':
		case '^':
		case '~':
		case '(':
		case ')':
		case ';':
			continue;
		default:
			return false;
		}
	}
	for (size_t i = 0; i < ELEMENTSOF(words); i++)
		if (strlen(words[i]) == len && strncasecmp(words[i], s, len) == 0)
			return false;
	/* Belt and braces: our own reader must see a string too. */
	cdi_scalar_resolve(s, len, &sc);
	return sc.kind == CDI_SCALAR_STRING;
}

/* Shortest text that reads back as d, always with a '.' so it stays a float. */
static void format_real(double d, char *buf, size_t size)
{
	char tmp[NUMBER_TEXT_MAX];
	char *e;

	format_double_shortest(tmp, sizeof(tmp), d);
	if (strchr(tmp, '.') || strstr(tmp, "inf") || strstr(tmp, "nan")) {
		snprintf(buf, size, "%s", tmp);
		return;
	}
	e = strchr(tmp, 'e');
	if (e)
		snprintf(buf, size, "%.*s.0%s", (int)(e - tmp), tmp, e);
	else
		snprintf(buf, size, "%s.0", tmp);
}

struct out {
	char *buf;
	size_t len;
	size_t cap;
};

static int out_write(void *data, unsigned char *buffer, size_t size)
{
	struct out *o = data;

	if (o->len + size + 1 > o->cap) {
		size_t cap = o->cap ? o->cap : 4096;
		char *p;

		while (cap < o->len + size + 1)
			cap *= 2;
		p = realloc(o->buf, cap);
		if (!p)
			return 0;
		o->buf = p;
		o->cap = cap;
	}
	memcpy(o->buf + o->len, buffer, size);
	o->len += size;
	return 1;
}

struct yaml_out {
	yaml_emitter_t emitter;
	struct cdi_error *err;
};

static int emit_event(struct yaml_out *y, yaml_event_t *ev, int init_ok)
{
	if (!init_ok)
		return cdi_fail(y->err, -ENOMEM, "YAML emitter: cannot create event");
	if (!yaml_emitter_emit(&y->emitter, ev)) {
		if (y->emitter.error == YAML_MEMORY_ERROR || y->emitter.error == YAML_WRITER_ERROR)
			return cdi_fail(y->err, -ENOMEM, "YAML emitter: out of memory");
		return cdi_fail(y->err, -EINVAL, "YAML emitter: %s",
				y->emitter.problem ? y->emitter.problem : "cannot emit");
	}
	return 0;
}

static int emit_scalar(struct yaml_out *y, const char *s, size_t len, bool plain)
{
	yaml_event_t ev;

	if (len > INT_MAX)
		return cdi_fail(y->err, -E2BIG, "string too long to emit");
	if (!yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)len, 1, 1,
					  plain ? YAML_PLAIN_SCALAR_STYLE
						: YAML_DOUBLE_QUOTED_SCALAR_STYLE)) {
		/* Strings made with jansson's *_nocheck calls may not be UTF-8; libyaml refuses
		 * those. */
		if (!utf8_valid(s, len))
			return cdi_fail(y->err, -EINVAL, "string is not valid UTF-8");
		return cdi_fail(y->err, -ENOMEM, "out of memory");
	}
	return emit_event(y, &ev, 1);
}

static int emit_string(struct yaml_out *y, const char *s, size_t len)
{
	return emit_scalar(y, s, len, plain_safe(s, len));
}

static int emit_yaml_node(struct yaml_out *y, const json_t *node, enum kind kind, enum kind items,
			  unsigned depth)
{
	char buf[64];
	yaml_event_t ev;
	int r;

	switch (json_typeof(node)) {
	case JSON_OBJECT: {
		_cleanup_free_ struct entry *v = NULL;
		size_t n = 0;

		if (depth >= CDI_SPEC_MAX_DEPTH)
			return cdi_fail(y->err, -EINVAL, "nested deeper than %u levels",
					CDI_SPEC_MAX_DEPTH);
		v = ordered_entries(node, kind, &n);
		if (!v)
			return cdi_fail(y->err, -ENOMEM, "out of memory");
		r = emit_event(y, &ev,
			       yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
								   YAML_BLOCK_MAPPING_STYLE));
		for (size_t i = 0; r >= 0 && i < n; i++) {
			r = emit_string(y, v[i].key, v[i].key_len);
			if (r >= 0)
				r = emit_yaml_node(y, v[i].value, v[i].kind, v[i].items, depth + 1);
		}
		if (r < 0)
			return r;
		return emit_event(y, &ev, yaml_mapping_end_event_initialize(&ev));
	}
	case JSON_ARRAY: {
		size_t i;
		json_t *item;

		if (depth >= CDI_SPEC_MAX_DEPTH)
			return cdi_fail(y->err, -EINVAL, "nested deeper than %u levels",
					CDI_SPEC_MAX_DEPTH);
		r = emit_event(y, &ev,
			       yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
								    YAML_BLOCK_SEQUENCE_STYLE));
		json_array_foreach (node, i, item) {
			if (r < 0)
				break;
			r = emit_yaml_node(y, item, items, K_NONE, depth + 1);
		}
		if (r < 0)
			return r;
		return emit_event(y, &ev, yaml_sequence_end_event_initialize(&ev));
	}
	case JSON_STRING:
		return emit_string(y, json_string_value(node), json_string_length(node));
	case JSON_INTEGER:
		snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(node));
		return emit_scalar(y, buf, strlen(buf), true);
	case JSON_REAL:
		format_real(json_real_value(node), buf, sizeof(buf));
		return emit_scalar(y, buf, strlen(buf), true);
	case JSON_TRUE:
		return emit_scalar(y, "true", 4, true);
	case JSON_FALSE:
		return emit_scalar(y, "false", 5, true);
	case JSON_NULL:
		return emit_scalar(y, "null", 4, true);
	}
	return cdi_fail(y->err, -EINVAL, "unknown JSON type");
}

static int emit_yaml(const json_t *spec, struct out *o, struct cdi_error *err)
{
	struct yaml_out y = { .err = err };
	yaml_event_t ev;
	int r;

	if (!yaml_emitter_initialize(&y.emitter))
		return cdi_fail(err, -ENOMEM, "out of memory");
	yaml_emitter_set_output(&y.emitter, out_write, o);
	yaml_emitter_set_encoding(&y.emitter, YAML_UTF8_ENCODING);
	yaml_emitter_set_unicode(&y.emitter, 1);
	yaml_emitter_set_indent(&y.emitter, 2);
	yaml_emitter_set_width(&y.emitter, -1); /* never fold long strings */
	yaml_emitter_set_break(&y.emitter, YAML_LN_BREAK);

	r = emit_event(&y, &ev, yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING));
	if (r >= 0)
		r = emit_event(&y, &ev,
			       yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 0));
	if (r >= 0)
		r = emit_yaml_node(&y, spec, K_SPEC, K_NONE, 0);
	if (r >= 0)
		r = emit_event(&y, &ev, yaml_document_end_event_initialize(&ev, 1));
	if (r >= 0)
		r = emit_event(&y, &ev, yaml_stream_end_event_initialize(&ev));
	if (r >= 0 && !yaml_emitter_flush(&y.emitter))
		r = cdi_fail(err, -ENOMEM, "out of memory");
	yaml_emitter_delete(&y.emitter);
	return r;
}

/* A copy of node whose objects hold their keys in emission order (jansson keeps insertion order).
 */
static json_t *ordered_copy(const json_t *node, enum kind kind, enum kind items, unsigned depth)
{
	json_t *copy;

	if (json_is_object(node)) {
		_cleanup_free_ struct entry *v = NULL;
		size_t n = 0;

		if (depth >= CDI_SPEC_MAX_DEPTH)
			return NULL;
		v = ordered_entries(node, kind, &n);
		copy = v ? json_object() : NULL;
		for (size_t i = 0; copy && i < n; i++) {
			json_t *c = ordered_copy(v[i].value, v[i].kind, v[i].items, depth + 1);

			if (!c ||
			    json_object_setn_new_nocheck(copy, v[i].key, v[i].key_len, c) < 0) {
				json_decref(copy);
				copy = NULL;
			}
		}
		return copy;
	}
	if (json_is_array(node)) {
		size_t i;
		json_t *item;

		if (depth >= CDI_SPEC_MAX_DEPTH)
			return NULL;
		copy = json_array();
		json_array_foreach (node, i, item) {
			json_t *c;

			if (!copy)
				break;
			c = ordered_copy(item, items, K_NONE, depth + 1);
			if (!c || json_array_append_new(copy, c) < 0) {
				json_decref(copy);
				copy = NULL;
			}
		}
		return copy;
	}
	/* Scalars are shared, not changed. */
	return json_incref((json_t *)node);
}

/* Containers nested in node (itself included); counts no further than limit + 1. */
static unsigned nesting(const json_t *node, unsigned limit)
{
	unsigned max = 0;
	const char *key;
	json_t *value;
	size_t i;

	if (!json_is_object(node) && !json_is_array(node))
		return 0;
	if (limit == 0)
		return 1;
	if (json_is_object(node)) {
		json_object_foreach ((json_t *)node, key, value) {
			unsigned d = nesting(value, limit - 1);

			if (d > max)
				max = d;
		}
	} else {
		json_array_foreach (node, i, value) {
			unsigned d = nesting(value, limit - 1);

			if (d > max)
				max = d;
		}
	}
	return max + 1;
}

static int emit_json(const json_t *spec, struct out *o, struct cdi_error *err)
{
	_cleanup_json_ json_t *copy = NULL;
	_cleanup_json_text_ char *text = NULL;
	size_t len;

	if (nesting(spec, CDI_SPEC_MAX_DEPTH) > CDI_SPEC_MAX_DEPTH)
		return cdi_fail(err, -EINVAL, "nested deeper than %u levels", CDI_SPEC_MAX_DEPTH);
	copy = ordered_copy(spec, K_SPEC, K_NONE, 0);
	if (!copy)
		return cdi_fail(err, -ENOMEM, "out of memory");
	text = json_dumps(copy, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
	if (!text) /* out of memory, or a string that is not UTF-8 */
		return cdi_fail(err, -EINVAL, "cannot serialise JSON");
	len = strlen(text);
	if (!out_write(o, (unsigned char *)text, len) || !out_write(o, (unsigned char *)"\n", 1))
		return cdi_fail(err, -ENOMEM, "out of memory");
	return 0;
}

_public_ int cdi_spec_emit(const json_t *spec, enum cdi_format format, char **ret_buf,
			   size_t *ret_len, struct cdi_error *err)
{
	struct out o = { 0 };
	int r;

	if (!spec || !ret_buf)
		return cdi_fail(err, -EINVAL, "no spec to emit");
	if (format == CDI_FORMAT_YAML)
		r = emit_yaml(spec, &o, err);
	else if (format == CDI_FORMAT_JSON)
		r = emit_json(spec, &o, err);
	else
		r = cdi_fail(err, -EINVAL, "unknown output format %d", (int)format);
	if (r >= 0 && !out_write(&o, (unsigned char *)"", 0))
		r = cdi_fail(err, -ENOMEM, "out of memory");
	if (r < 0) {
		free(o.buf);
		return r;
	}
	o.buf[o.len] = '\0';
	*ret_buf = o.buf;
	if (ret_len)
		*ret_len = o.len;
	return 0;
}
