/* SPDX-License-Identifier: Apache-2.0 */
/*
 * YAML to a jansson tree, straight from libyaml's events: every YAML feature and every error
 * message. An explicit stack (bounded by CDI_SPEC_MAX_DEPTH) replaces recursion, so deep input
 * fails early instead of exhausting anything; aliases are deep-copied under a global node
 * budget (CDI_SPEC_MAX_NODES), so alias bombs fail before they cost memory.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include <cdi/spec.h>

#include "array.h"
#include "macro.h"
#include "problem.h"
#include "yaml_events.h"
#include "yaml_scalar.h"

#define TAG_PREFIX "tag:yaml.org,2002:"

struct anchor {
	json_t *node;	 /* a reference of our own: merge sources are freed early */
	size_t nodes;	 /* nodes of the subtree (upper bound), for the budget */
	unsigned height; /* containers nested in it, itself included */
	bool done;	 /* false while the anchored container is still open */
};

struct frame {
	json_t *node;	       /* the open container, owned until delivered */
	yaml_mark_t start;     /* where it starts, for messages */
	size_t nodes_before;   /* loader nodes before this container */
	long anchor;	       /* index into anchors, -1 if none */
	unsigned child_height; /* highest container among the children */
	/* Mappings: the key waiting for its value. */
	bool have_key;
	bool key_is_merge;
	bool seen_merge;
	const char *key;
	size_t key_len;
	yaml_event_t key_event; /* owns the key's bytes while the value is read */
	char key_buf[64];
};

struct loader {
	const char *name;
	const char *buf;
	size_t len;
	struct cdi_marks *marks;
	struct cdi_error *err;
	yaml_parser_t parser;
	struct frame stack[CDI_SPEC_MAX_DEPTH];
	unsigned depth;
	size_t nodes;
	json_t *root;
	bool have_root;
	bool aliased;	      /* an alias was expanded: the node count is not the text's own */
	json_t *anchor_index; /* anchor name -> index into anchors */
	struct anchor *anchors;
	size_t n_anchors;
	size_t cap_anchors;
};

_printf_(3, 4) static int fail(struct loader *l, const yaml_mark_t *m, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = cdi_problem_addv(l->err, -EINVAL, l->name, m ? (unsigned)m->line + 1 : 0,
			     m ? (unsigned)m->column + 1 : 0, NULL, fmt, ap);
	va_end(ap);
	return r;
}

static int oom(struct loader *l)
{
	return cdi_problem_add(l->err, -ENOMEM, l->name, 0, 0, NULL, "out of memory");
}

/* Quote a key or anchor for a message: bounded, control bytes escaped. */
static const char *quote(const char *s, size_t len, char *buf, size_t size)
{
	size_t o = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (o + 8 >= size) {
			memcpy(buf + o, "...", 3);
			o += 3;
			break;
		}
		if (c == '"' || c == '\\') {
			buf[o++] = '\\';
			buf[o++] = (char)c;
		} else if (c < 0x20 || c == 0x7f) {
			o += (size_t)snprintf(buf + o, size - o, "\\x%02x", c);
		} else {
			buf[o++] = (char)c;
		}
	}
	buf[o] = '\0';
	return buf;
}

static const char *short_tag(const char *tag)
{
	static _Thread_local char buf[128];

	if (strncmp(tag, TAG_PREFIX, strlen(TAG_PREFIX)) != 0)
		return tag;
	snprintf(buf, sizeof(buf), "!!%s", tag + strlen(TAG_PREFIX));
	return buf;
}

static bool tag_is(const char *tag, const char *type)
{
	size_t n = strlen(TAG_PREFIX);

	return strncmp(tag, TAG_PREFIX, n) == 0 && strcmp(tag + n, type) == 0;
}

static int count_node(struct loader *l, const yaml_mark_t *m)
{
	if (l->nodes >= CDI_SPEC_MAX_NODES)
		return l->aliased
			       ? fail(l, m, "more than %u nodes after alias expansion (the limit)",
				      CDI_SPEC_MAX_NODES)
			       : fail(l, m, "too large: more than %u nodes (the limit)",
				      CDI_SPEC_MAX_NODES);
	l->nodes++;
	return 0;
}

static int record(struct loader *l, const json_t *node, unsigned line, unsigned column)
{
	if (!cdi_marks_positions(l->marks))
		return 0;
	if (cdi_marks_add(l->marks, node, line, column) < 0)
		return oom(l);
	return 0;
}

static struct frame *top(struct loader *l)
{
	return l->depth ? &l->stack[l->depth - 1] : NULL;
}

static bool in_key_position(struct loader *l)
{
	struct frame *f = top(l);

	return f && json_is_object(f->node) && !f->have_key;
}

static void frame_release_key(struct frame *f)
{
	if (f->have_key)
		yaml_event_delete(&f->key_event);
	f->have_key = false;
	f->key_is_merge = false;
	f->key = NULL;
	f->key_len = 0;
}

static void frame_free(struct frame *f)
{
	frame_release_key(f);
	json_decref(f->node);
	f->node = NULL;
}

/* Anchors. */

static int anchor_define(struct loader *l, const char *name, json_t *node, bool done,
			 long *ret_index)
{
	struct anchor *a;
	json_t *idx;

	if (!l->anchor_index) {
		l->anchor_index = json_object();
		if (!l->anchor_index)
			return oom(l);
	}
	if (ARRAY_RESERVE(l->anchors, l->cap_anchors, l->n_anchors + 1) < 0)
		return oom(l);
	idx = json_integer((json_int_t)l->n_anchors);
	if (!idx || json_object_set_new(l->anchor_index, name, idx) < 0)
		return oom(l);
	a = &l->anchors[l->n_anchors];
	*a = (struct anchor){ .node = json_incref(node), .nodes = 1, .done = done };
	if (ret_index)
		*ret_index = (long)l->n_anchors;
	l->n_anchors++;
	return 0;
}

static struct anchor *anchor_find(struct loader *l, const char *name)
{
	json_t *idx = l->anchor_index ? json_object_get(l->anchor_index, name) : NULL;

	return idx ? &l->anchors[json_integer_value(idx)] : NULL;
}

/* Resolve a scalar event to its value, honouring explicit tags. */
static int resolve_event(struct loader *l, const yaml_event_t *ev, struct cdi_scalar *sc)
{
	const char *text = (const char *)ev->data.scalar.value;
	size_t len = ev->data.scalar.length;
	const char *tag = (const char *)ev->data.scalar.tag;
	bool plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	enum cdi_scalar_kind want;
	char q[80];

	if (memchr(text, '\0', len))
		return fail(l, &ev->start_mark, "string contains a NUL character");

	/* go-yaml v3 treats the non-specific "!" on a plain scalar as no tag. */
	if (!tag || (strcmp(tag, "!") == 0)) {
		if (plain)
			cdi_scalar_resolve(text, len, sc);
		else
			*sc = (struct cdi_scalar){ .kind = CDI_SCALAR_STRING,
						   .s = text,
						   .len = len };
		return 0;
	}
	if (tag_is(tag, "str")) {
		*sc = (struct cdi_scalar){ .kind = CDI_SCALAR_STRING, .s = text, .len = len };
		return 0;
	}
	if (tag_is(tag, "int"))
		want = CDI_SCALAR_INT;
	else if (tag_is(tag, "float"))
		want = CDI_SCALAR_FLOAT;
	else if (tag_is(tag, "bool"))
		want = CDI_SCALAR_BOOL;
	else if (tag_is(tag, "null"))
		want = CDI_SCALAR_NULL;
	else
		return fail(l, &ev->start_mark, "unsupported tag %s", short_tag(tag));

	/* Explicitly tagged scalars resolve whatever their style, then must match. */
	cdi_scalar_resolve(text, len, sc);
	switch (want) {
	case CDI_SCALAR_INT:
		if (sc->kind == CDI_SCALAR_INT || sc->kind == CDI_SCALAR_UINT)
			return 0;
		break;
	case CDI_SCALAR_FLOAT:
		if (sc->kind == CDI_SCALAR_FLOAT || sc->kind == CDI_SCALAR_FLOAT_SPECIAL)
			return 0;
		if (sc->kind == CDI_SCALAR_INT) {
			*sc = (struct cdi_scalar){ .kind = CDI_SCALAR_FLOAT, .d = (double)sc->i };
			return 0;
		}
		if (sc->kind == CDI_SCALAR_UINT) {
			*sc = (struct cdi_scalar){ .kind = CDI_SCALAR_FLOAT, .d = (double)sc->u };
			return 0;
		}
		break;
	default:
		if (sc->kind == want)
			return 0;
		break;
	}
	return fail(l, &ev->start_mark, "cannot decode \"%s\" as %s",
		    quote(text, len, q, sizeof(q)), short_tag(tag));
}

/*
 * Merge src into the mapping being built. As in the reference (go-yaml v2
 * in strict mode, through sigs.k8s.io/yaml), a key may come from one place
 * only: a merged key that is already set, or that is set explicitly later,
 * is a duplicate.
 */
static int merge_into(struct loader *l, json_t *obj, json_t *src, const yaml_mark_t *m)
{
	const char *key;
	size_t key_len;
	json_t *value;
	char q[80];

	json_object_keylen_foreach (src, key, key_len, value) {
		if (json_object_getn(obj, key, key_len))
			return fail(l, m, "duplicate key \"%s\" (merged by <<)",
				    quote(key, key_len, q, sizeof(q)));
		if (json_object_setn_nocheck(obj, key, key_len, value) < 0)
			return oom(l);
	}
	return 0;
}

static int merge(struct loader *l, json_t *obj, json_t *node, const yaml_mark_t *m)
{
	size_t i;
	json_t *item;
	int r;

	if (json_is_object(node))
		return merge_into(l, obj, node, m);
	if (!json_is_array(node))
		return fail(l, m, "merge key << needs a mapping or a sequence of mappings");
	json_array_foreach (node, i, item) {
		if (!json_is_object(item))
			return fail(l, m, "merge key << needs a mapping or a sequence of mappings");
		r = merge_into(l, obj, item, m);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Attach a finished node to the open container (or make it the root). */
static int deliver(struct loader *l, json_t *node, const yaml_mark_t *m, unsigned height)
{
	struct frame *f = top(l);
	int r = 0;

	if (!f) {
		l->root = node;
		l->have_root = true;
		return 0;
	}
	if (height > f->child_height)
		f->child_height = height;

	if (json_is_array(f->node))
		return json_array_append_new(f->node, node) < 0 ? oom(l) : 0;

	if (f->key_is_merge) {
		r = merge(l, f->node, node, m);
		json_decref(node);
	} else if (json_object_setn_new_nocheck(f->node, f->key, f->key_len, node) < 0) {
		r = oom(l);
	}
	frame_release_key(f);
	return r;
}

/* The string form of a key, as the reference's YAML-to-JSON step writes it. */
static void key_string(const struct cdi_scalar *sc, struct frame *f)
{
	switch (sc->kind) {
	case CDI_SCALAR_STRING:
	case CDI_SCALAR_FLOAT_SPECIAL:
		f->key = sc->s;
		f->key_len = sc->len;
		return;
	case CDI_SCALAR_NULL:
		f->key = "null";
		break;
	case CDI_SCALAR_BOOL:
		f->key = sc->b ? "true" : "false";
		break;
	case CDI_SCALAR_INT:
		snprintf(f->key_buf, sizeof(f->key_buf), "%lld", (long long)sc->i);
		f->key = f->key_buf;
		break;
	case CDI_SCALAR_UINT:
		snprintf(f->key_buf, sizeof(f->key_buf), "%llu", sc->u);
		f->key = f->key_buf;
		break;
	case CDI_SCALAR_FLOAT:
		cdi_scalar_key_float(f->key_buf, sizeof(f->key_buf), sc->d);
		f->key = f->key_buf;
		break;
	}
	f->key_len = strlen(f->key);
}

static int set_key(struct loader *l, struct frame *f, const yaml_mark_t *m)
{
	char q[80];

	if (f->key_is_merge) {
		if (f->seen_merge)
			return fail(l, m, "duplicate key \"<<\"");
		f->seen_merge = true;
		return 0;
	}
	if (memchr(f->key, '\0', f->key_len))
		return fail(l, m, "key contains a NUL character");
	if (json_object_getn(f->node, f->key, f->key_len))
		return fail(l, m, "duplicate key \"%s\"", quote(f->key, f->key_len, q, sizeof(q)));
	return 0;
}

static bool is_merge_key(const yaml_event_t *ev)
{
	const char *tag = (const char *)ev->data.scalar.tag;

	if (ev->data.scalar.length != 2 || memcmp(ev->data.scalar.value, "<<", 2) != 0)
		return false;
	if (!tag)
		return ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	return strcmp(tag, "!") == 0 || tag_is(tag, "merge");
}

static int on_scalar(struct loader *l, yaml_event_t *ev)
{
	const yaml_mark_t mark = ev->start_mark, *m = &mark; /* ev may be moved away */
	const char *anchor = (const char *)ev->data.scalar.anchor;
	struct cdi_scalar sc;
	json_t *node;
	int r;

	if (in_key_position(l)) {
		struct frame *f = top(l);

		if (is_merge_key(ev)) {
			sc = (struct cdi_scalar){ .kind = CDI_SCALAR_STRING, .s = "<<", .len = 2 };
			f->key_is_merge = true;
		} else {
			r = resolve_event(l, ev, &sc);
			if (r < 0)
				return r;
		}
		if (anchor) {
			/* Only an alias used as a key can need it, but it must exist. */
			_cleanup_json_ json_t *k = cdi_scalar_to_json(&sc);

			if (!k)
				return oom(l);
			r = count_node(l, m);
			if (r < 0)
				return r;
			r = anchor_define(l, anchor, k, true, NULL);
			if (r < 0)
				return r;
		}
		/* The event keeps the key's bytes alive until its value is in. */
		f->key_event = *ev;
		memset(ev, 0, sizeof(*ev));
		f->have_key = true;
		key_string(&sc, f);
		return set_key(l, f, m);
	}

	r = resolve_event(l, ev, &sc);
	if (r < 0)
		return r;
	node = cdi_scalar_to_json(&sc);
	if (!node)
		return oom(l);
	r = count_node(l, m);
	if (r >= 0)
		r = record(l, node, (unsigned)m->line + 1, (unsigned)m->column + 1);
	if (r >= 0 && sc.kind == CDI_SCALAR_UINT &&
	    cdi_marks_note(l->marks, node, CDI_MARK_BIG_INTEGER) < 0)
		r = oom(l);
	if (r >= 0 && anchor)
		r = anchor_define(l, anchor, node, true, NULL);
	if (r < 0) {
		json_decref(node);
		return r;
	}
	return deliver(l, node, m, 0);
}

static int on_start(struct loader *l, yaml_event_t *ev, bool mapping)
{
	const yaml_mark_t *m = &ev->start_mark;
	const char *anchor = (const char *)(mapping ? ev->data.mapping_start.anchor
						    : ev->data.sequence_start.anchor);
	const char *tag =
		(const char *)(mapping ? ev->data.mapping_start.tag : ev->data.sequence_start.tag);
	struct frame *f;
	json_t *node;
	int r;

	if (in_key_position(l))
		return fail(l, m, "mapping keys must be scalars");
	if (tag && strcmp(tag, "!") != 0 && !tag_is(tag, mapping ? "map" : "seq"))
		return fail(l, m, "unsupported tag %s", short_tag(tag));
	if (l->depth >= CDI_SPEC_MAX_DEPTH)
		return fail(l, m, "nested deeper than %u levels", CDI_SPEC_MAX_DEPTH);

	node = mapping ? json_object() : json_array();
	if (!node)
		return oom(l);
	f = &l->stack[l->depth++];
	*f = (struct frame){ .node = node, .start = *m, .nodes_before = l->nodes, .anchor = -1 };
	r = count_node(l, m);
	if (r < 0)
		return r;
	r = record(l, node, (unsigned)m->line + 1, (unsigned)m->column + 1);
	if (r < 0)
		return r;
	if (anchor)
		return anchor_define(l, anchor, node, false, &f->anchor);
	return 0;
}

static int on_end(struct loader *l, const yaml_event_t *ev)
{
	struct frame *f = top(l);
	yaml_mark_t start;
	unsigned height;
	json_t *node;

	if (!f)
		return fail(l, &ev->start_mark, "unbalanced end of collection");

	height = f->child_height + 1;
	if (f->anchor >= 0) {
		struct anchor *a = &l->anchors[f->anchor];

		a->nodes = l->nodes - f->nodes_before;
		a->height = height;
		a->done = true;
	}

	node = TAKE_PTR(f->node);
	start = f->start;
	frame_free(f);
	l->depth--;
	return deliver(l, node, &start, height);
}

/* Copy an anchored node for an alias; every copy is placed at the alias. */
static json_t *copy_node(struct loader *l, const json_t *src, const yaml_mark_t *m, int *ret)
{
	json_t *dst = NULL;

	switch (json_typeof(src)) {
	case JSON_OBJECT: {
		const char *key;
		size_t key_len;
		json_t *value;

		dst = json_object();
		if (!dst)
			break;
		json_object_keylen_foreach ((json_t *)src, key, key_len, value) {
			json_t *c = copy_node(l, value, m, ret);

			if (!c || json_object_setn_new_nocheck(dst, key, key_len, c) < 0) {
				json_decref(dst);
				return NULL;
			}
		}
		break;
	}
	case JSON_ARRAY: {
		size_t i;
		json_t *value;

		dst = json_array();
		if (!dst)
			break;
		json_array_foreach (src, i, value) {
			json_t *c = copy_node(l, value, m, ret);

			if (!c || json_array_append_new(dst, c) < 0) {
				json_decref(dst);
				return NULL;
			}
		}
		break;
	}
	case JSON_STRING:
		dst = json_stringn_nocheck(json_string_value(src), json_string_length(src));
		break;
	case JSON_INTEGER:
		dst = json_integer(json_integer_value(src));
		break;
	case JSON_REAL:
		dst = json_real(json_real_value(src));
		break;
	case JSON_TRUE:
	case JSON_FALSE:
	case JSON_NULL:
		dst = json_incref((json_t *)src); /* singletons in jansson */
		break;
	}
	if (!dst) {
		*ret = oom(l);
		return NULL;
	}
	*ret = count_node(l, m);
	if (*ret >= 0)
		*ret = record(l, dst, (unsigned)m->line + 1, (unsigned)m->column + 1);
	if (*ret >= 0 && json_is_string(src) &&
	    cdi_marks_note(l->marks, dst, cdi_marks_flags(l->marks, src)) < 0)
		*ret = oom(l);
	if (*ret < 0) {
		json_decref(dst);
		return NULL;
	}
	return dst;
}

static int on_alias(struct loader *l, yaml_event_t *ev)
{
	const yaml_mark_t *m = &ev->start_mark;
	const char *name = (const char *)ev->data.alias.anchor;
	struct anchor *a = anchor_find(l, name);
	json_t *copy;
	char q[80];
	int r = 0;

	if (!a)
		return fail(l, m, "unknown anchor \"%s\"", quote(name, strlen(name), q, sizeof(q)));
	if (!a->done)
		return fail(l, m, "alias \"%s\" refers to a node that contains it",
			    quote(name, strlen(name), q, sizeof(q)));

	if (in_key_position(l)) {
		struct frame *f = top(l);
		struct cdi_scalar sc = { .kind = CDI_SCALAR_STRING };
		json_t *k = a->node;

		switch (json_typeof(k)) {
		case JSON_STRING:
			sc.s = json_string_value(k);
			sc.len = json_string_length(k);
			break;
		case JSON_INTEGER:
			sc = (struct cdi_scalar){ .kind = CDI_SCALAR_INT,
						  .i = json_integer_value(k) };
			break;
		case JSON_REAL:
			sc = (struct cdi_scalar){ .kind = CDI_SCALAR_FLOAT,
						  .d = json_real_value(k) };
			break;
		case JSON_TRUE:
		case JSON_FALSE:
			sc = (struct cdi_scalar){ .kind = CDI_SCALAR_BOOL, .b = json_is_true(k) };
			break;
		case JSON_NULL:
			sc = (struct cdi_scalar){ .kind = CDI_SCALAR_NULL };
			break;
		default:
			return fail(l, m, "mapping keys must be scalars");
		}
		/* The anchor table holds k for as long as the key is needed. */
		f->have_key = true;
		f->key_event = (yaml_event_t){ 0 };
		key_string(&sc, f);
		return set_key(l, f, m);
	}

	if (l->depth + a->height > CDI_SPEC_MAX_DEPTH)
		return fail(l, m, "nested deeper than %u levels", CDI_SPEC_MAX_DEPTH);
	/* Check the whole expansion first, so a bomb fails before it costs. */
	if (a->nodes > CDI_SPEC_MAX_NODES - l->nodes)
		return fail(l, m, "more than %u nodes after alias expansion (the limit)",
			    CDI_SPEC_MAX_NODES);
	l->aliased = true;
	copy = copy_node(l, a->node, m, &r);
	if (!copy)
		return r;
	return deliver(l, copy, m, a->height);
}

static unsigned column_at(const char *buf, size_t offset, unsigned *ret_line)
{
	unsigned line = 1, column = 1;

	for (size_t i = 0; i < offset; i++) {
		if (buf[i] == '\n') {
			line++;
			column = 1;
		} else if (((unsigned char)buf[i] & 0xc0) != 0x80) {
			column++;
		}
	}
	*ret_line = line;
	return column;
}

static int parser_error(struct loader *l)
{
	const yaml_parser_t *p = &l->parser;
	const char *problem = p->problem ? p->problem : "cannot parse YAML";
	unsigned line, column;

	switch (p->error) {
	case YAML_MEMORY_ERROR:
		return oom(l);
	case YAML_READER_ERROR:
		column = column_at(l->buf, p->problem_offset < l->len ? p->problem_offset : l->len,
				   &line);
		if (p->problem_value != -1)
			return cdi_problem_add(l->err, -EINVAL, l->name, line, column, NULL,
					       "%s (0x%02x)", problem, (unsigned)p->problem_value);
		return cdi_problem_add(l->err, -EINVAL, l->name, line, column, NULL, "%s", problem);
	default:
		if (p->context)
			return fail(l, &p->problem_mark, "%s (%s)", problem, p->context);
		return fail(l, &p->problem_mark, "%s", problem);
	}
}

static void loader_done(struct loader *l)
{
	while (l->depth > 0)
		frame_free(&l->stack[--l->depth]);
	for (size_t i = 0; i < l->n_anchors; i++)
		json_decref(l->anchors[i].node);
	free(l->anchors);
	json_decref(l->anchor_index);
	json_decref(l->root);
	yaml_parser_delete(&l->parser);
}

static int load(struct loader *l)
{
	for (;;) {
		yaml_event_t ev;
		int r = 0;

		if (!yaml_parser_parse(&l->parser, &ev))
			return parser_error(l);

		switch (ev.type) {
		case YAML_SCALAR_EVENT:
			r = on_scalar(l, &ev);
			break;
		case YAML_SEQUENCE_START_EVENT:
			r = on_start(l, &ev, false);
			break;
		case YAML_MAPPING_START_EVENT:
			r = on_start(l, &ev, true);
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			r = on_end(l, &ev);
			break;
		case YAML_ALIAS_EVENT:
			r = on_alias(l, &ev);
			break;
		case YAML_DOCUMENT_END_EVENT:
		case YAML_STREAM_END_EVENT:
			/* Only the first document counts, as in the reference. */
			yaml_event_delete(&ev);
			return 0;
		default:
			break;
		}
		yaml_event_delete(&ev);
		if (r < 0)
			return r;
	}
}

int cdi_yaml_load_events(const char *name, const char *buf, size_t len, json_t **ret_root,
			 struct cdi_marks *marks, struct cdi_error *err)
{
	struct loader *l;
	int r;

	if (len > CDI_SPEC_MAX_BYTES)
		return cdi_problem_add(err, -EFBIG, name, 0, 0, NULL, "larger than %u bytes",
				       CDI_SPEC_MAX_BYTES);

	/* The stack of frames is a few KiB: keep it off the caller's stack. */
	l = calloc(1, sizeof(*l));
	if (!l)
		return cdi_problem_add(err, -ENOMEM, name, 0, 0, NULL, "out of memory");
	l->name = name;
	l->buf = buf;
	l->len = len;
	l->marks = marks;
	l->err = err;
	if (!yaml_parser_initialize(&l->parser)) {
		free(l);
		return cdi_problem_add(err, -ENOMEM, name, 0, 0, NULL, "out of memory");
	}
	yaml_parser_set_input_string(&l->parser, (const unsigned char *)buf, len);

	r = load(l);
	if (r >= 0 && (!l->have_root || json_is_null(l->root)))
		r = -ENODATA;
	if (r >= 0)
		*ret_root = TAKE_PTR(l->root);
	loader_done(l);
	free(l);
	return r;
}
