/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Validation of a CDI spec held as a JSON tree, in two passes.
 *
 * Decoding: the tree is walked against one static description per CDI object (its fields,
 * their JSON types, which are required), as the reference's strict decoding does
 * (sigs.k8s.io/yaml UnmarshalStrict: YAML to JSON, then encoding/json with unknown fields
 * disallowed). Unknown fields, wrong types and numbers out of their Go type's range are
 * problems. With coerce, values are first converted as the reference's YAML-to-JSON step
 * converts them:
 *   - a number or boolean where a string belongs becomes a string: an integer in decimal, a
 *     real as Go's strconv.FormatFloat(v, 'g', -1, 32) (so 1.0 becomes "1" and 0.30 "0.3"),
 *     a boolean "true" or "false" (and that is still a problem: issue 2 wants an unquoted
 *     number where a string belongs never to pass; the conversion gives the rules, the minimum
 *     version and the messages the value the reference would have seen);
 *   - a real with an integral value where an integer belongs becomes that integer (Go
 *     marshals 1.0 as 1, which then decodes into an int64);
 *   - a null member is absent; a null array element or map value is its Go zero value ("" or
 *     0), as encoding/json leaves it; a null where an object belongs stays a problem (the
 *     reference rejects a nil device node, hook, mount or net device).
 * Strings never become numbers or booleans (`major: "7"` is a type error, as in Go). Replaced
 * nodes keep the position of the node they replace.
 *
 * Rules: then, in the order of the reference's newSpec/validate, the version, the kind, the
 * spec-level edits, each device (name, edits present, edits valid, unique name) and "no
 * devices". Every problem is reported, not only the first, each with the field path and the
 * node's line:column (for a missing field, its parent's).
 *
 * Differences from the reference, all deliberate:
 *   - field names match case-sensitively (Go's encoding/json also accepts "CDIVERSION");
 *   - a number or boolean where a string belongs is always a problem (above);
 *   - with CDI_LOAD_STRICT, what SPEC.md forbids but the reference lets through is rejected
 *     too: relative paths, hook timeouts <= 0, negative device numbers, fileMode bits beyond
 *     07777, invalid network interface names and annotation keys.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cdi/spec.h>

#include "check.h"
#include "macro.h"
#include "number_text.h"
#include "problem.h"
#include "rules.h"

/* Beyond this many problems in one spec, only their number is reported. */
#define MAX_PROBLEMS 1000u

#define PATH_SIZE 256

enum vtype {
	V_STRING,
	V_INT64,  /* Go int64 (and int, on the 64-bit hosts we support) */
	V_UINT32, /* Go uint32 (and os.FileMode) */
	V_BOOL,
	V_OBJECT, /* a CDI object, described by .kind */
	V_ARRAY,  /* of .elem */
	V_MAP,	  /* string -> string */
};

struct kind;

struct field {
	const char *name;
	size_t name_len;
	enum vtype type;
	enum vtype elem;
	const struct kind *kind;
	bool required;
};

struct kind {
	const struct field *fields;
	size_t n_fields;
};

/* clang-format off */
#define KIND(f) { .fields = (f), .n_fields = ELEMENTSOF(f) }

/* Field constructors: a string, an integer, ..., an array of strings, an array of objects. */
#define FIELD(n, ...) { .name = (n), .name_len = sizeof(n) - 1, __VA_ARGS__ }
#define STRING(n) FIELD(n, .type = V_STRING)
#define INT64(n) FIELD(n, .type = V_INT64)
#define UINT32(n) FIELD(n, .type = V_UINT32)
#define BOOL(n) FIELD(n, .type = V_BOOL)
#define MAP(n) FIELD(n, .type = V_MAP)
#define OBJECT(n, k) FIELD(n, .type = V_OBJECT, .kind = (k))
#define ARRAY(n, e) FIELD(n, .type = V_ARRAY, .elem = (e))
#define OBJECTS(n, k) FIELD(n, .type = V_ARRAY, .elem = V_OBJECT, .kind = (k))
#define REQUIRED(n, t) FIELD(n, .type = (t), .required = true)

static const struct field device_node_fields[] = {
	REQUIRED("path", V_STRING),
	STRING("hostPath"),
	STRING("type"),
	INT64("major"),
	INT64("minor"),
	UINT32("fileMode"),
	STRING("permissions"),
	UINT32("uid"),
	UINT32("gid"),
};
static const struct kind device_node_kind = KIND(device_node_fields);

static const struct field mount_fields[] = {
	REQUIRED("hostPath", V_STRING),
	REQUIRED("containerPath", V_STRING),
	ARRAY("options", V_STRING),
	STRING("type"),
};
static const struct kind mount_kind = KIND(mount_fields);

/* timeout is a Go int: int64 here; SPEC.md's "> 0" is a strict rule. */
static const struct field hook_fields[] = {
	REQUIRED("hookName", V_STRING),
	REQUIRED("path", V_STRING),
	ARRAY("args", V_STRING),
	ARRAY("env", V_STRING),
	INT64("timeout"),
};
static const struct kind hook_kind = KIND(hook_fields);

/* enableCMT and enableMBM were dropped in 1.1.0: unknown fields now. */
static const struct field intel_rdt_fields[] = {
	STRING("closID"),
	STRING("l3CacheSchema"),
	STRING("memBwSchema"),
	ARRAY("schemata", V_STRING),
	BOOL("enableMonitoring"),
};
static const struct kind intel_rdt_kind = KIND(intel_rdt_fields);

static const struct field net_device_fields[] = {
	REQUIRED("hostInterfaceName", V_STRING),
	REQUIRED("name", V_STRING),
};
static const struct kind net_device_kind = KIND(net_device_fields);

static const struct field edits_fields[] = {
	ARRAY("env", V_STRING),
	OBJECTS("deviceNodes", &device_node_kind),
	OBJECTS("netDevices", &net_device_kind),
	OBJECTS("hooks", &hook_kind),
	OBJECTS("mounts", &mount_kind),
	OBJECT("intelRdt", &intel_rdt_kind),
	ARRAY("additionalGids", V_UINT32),
};
static const struct kind edits_kind = KIND(edits_fields);

/* containerEdits is not required here: a device without it gets the clearer "has no
 * container edits" (the reference's "empty device edits"). */
static const struct field device_fields[] = {
	REQUIRED("name", V_STRING),
	MAP("annotations"),
	OBJECT("containerEdits", &edits_kind),
};
static const struct kind device_kind = KIND(device_fields);

static const struct field spec_fields[] = {
	REQUIRED("cdiVersion", V_STRING),
	REQUIRED("kind", V_STRING),
	MAP("annotations"),
	FIELD("devices", .type = V_ARRAY, .elem = V_OBJECT, .kind = &device_kind, .required = true),
	OBJECT("containerEdits", &edits_kind),
};
static const struct kind spec_kind = KIND(spec_fields);
/* clang-format on */

struct loc {
	unsigned line;
	unsigned column;
};

/*
 * A field path, built on the stack as the walk descends and rendered only when a problem is
 * reported. NULL is the top of the spec.
 */
struct path {
	const struct path *up;
	const char *key;     /* a field name, or */
	const char *map_key; /* a map key (annotations), or else */
	size_t map_key_len;
	size_t index; /* an array index */
};

#define AT(up_, key_) (&(const struct path){.up = (up_), .key = (key_)})
#define INDEX(up_, i_) (&(const struct path){.up = (up_), .index = (i_)})
#define MAP_KEY(up_, k_, len_)                                                                     \
	(&(const struct path){.up = (up_), .map_key = (k_), .map_key_len = (len_)})

struct check {
	const char *file;
	struct cdi_marks *marks;
	unsigned flags;
	bool coerce;
	struct cdi_error *err;
	int r;
	size_t n_problems;
	size_t n_dropped;
	/* Nodes replaced while coercing, kept alive until the end so that no new node takes
	 * an address the marks still name. */
	json_t *replaced;
	/* The number cdiVersion held before it became a string ("" if it was a string). */
	char version_number[64];
	bool version_was_real;
};

static bool strict(const struct check *c)
{
	return c->flags & CDI_LOAD_STRICT;
}

/* true, false and null are shared singletons in jansson: their marks mean nothing. */
static struct loc loc_of(const struct check *c, const json_t *node, struct loc parent)
{
	struct loc l;

	if (!node || json_is_boolean(node) || json_is_null(node) ||
	    !cdi_marks_find(c->marks, node, &l.line, &l.column))
		return parent;
	return l;
}

/* snprintf that may cut: paths and hints are bounded, a cut one is still useful. */
_printf_(3, 4) static char *bprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return buf;
}

/* Render a path: devices[1].containerEdits.env[0], annotations["key"]. */
static size_t render_path(const struct path *p, char *buf, size_t size)
{
	size_t n = p->up ? render_path(p->up, buf, size) : 0;
	char q[CDI_QUOTE_MAX];

	if (n >= size)
		return n;
	if (p->key)
		bprintf(buf + n, size - n, "%s%s", n ? "." : "", p->key);
	else if (p->map_key)
		bprintf(buf + n, size - n, "[%s]",
			cdi_quote(q, sizeof(q), p->map_key, p->map_key_len));
	else
		bprintf(buf + n, size - n, "[%zu]", p->index);
	return n + strlen(buf + n);
}

static bool is_top_field(const struct path *p, const char *name)
{
	return p && !p->up && p->key && strcmp(p->key, name) == 0;
}

_printf_(4, 5) static void problem(struct check *c, struct loc loc, const struct path *path,
				   const char *fmt, ...)
{
	char field[PATH_SIZE] = "";
	va_list ap;

	if (c->r == 0)
		c->r = -EINVAL;
	if (c->n_problems >= MAX_PROBLEMS) {
		c->n_dropped++;
		return;
	}
	c->n_problems++;
	if (path)
		render_path(path, field, sizeof(field));
	va_start(ap, fmt);
	cdi_problem_addv(c->err, -EINVAL, c->file, loc.line, loc.column, field, fmt, ap);
	va_end(ap);
}

static void oom(struct check *c)
{
	if (c->r != -ENOMEM)
		cdi_problem_add(c->err, -ENOMEM, c->file, 0, 0, NULL, "out of memory");
	c->r = -ENOMEM;
}

static const char *quote_json(char buf[static CDI_QUOTE_MAX], const json_t *s)
{
	return cdi_quote(buf, CDI_QUOTE_MAX, json_string_value(s), json_string_length(s));
}

static const char *type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	case JSON_NULL:
	default:
		return "null";
	}
}

static const char *expected_name(enum vtype t)
{
	switch (t) {
	case V_STRING:
		return "a string";
	case V_INT64:
	case V_UINT32:
		return "an integer";
	case V_BOOL:
		return "a boolean";
	case V_ARRAY:
		return "an array";
	case V_OBJECT:
	case V_MAP:
	default:
		return "an object";
	}
}

/* d is a whole number (no libm: trunc() would need -lm). */
static bool is_integral(double d)
{
	return isfinite(d) && fabs(d) < 9e15 ? d == (double)(long long)d : isfinite(d);
}

/* Put new where old was (parent[key] or parent[index]), keeping old's position. */
static void replace(struct check *c, json_t *parent, void *iter, size_t index, json_t *old,
		    json_t *new, struct loc loc)
{
	if (!new || json_array_append(c->replaced, old) < 0) {
		json_decref(new);
		oom(c);
		return;
	}
	if (c->marks && loc.line && cdi_marks_add(c->marks, new, loc.line, loc.column) < 0) {
		json_decref(new);
		oom(c);
		return;
	}
	if (iter) {
		if (json_object_iter_set_new(parent, iter, new) < 0)
			oom(c);
	} else if (json_array_set_new(parent, index, new) < 0) {
		oom(c);
	}
}

/* How a number or boolean was most likely written: 0, 1.0, 0.3, true. */
static void as_written(char *buf, size_t size, const json_t *v)
{
	double d;

	switch (json_typeof(v)) {
	case JSON_INTEGER:
		snprintf(buf, size, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return;
	case JSON_REAL:
		d = json_real_value(v);
		if (is_integral(d) && fabs(d) < 1e15)
			snprintf(buf, size, "%.1f", d);
		else
			format_double_shortest(buf, size, d);
		return;
	default:
		snprintf(buf, size, "%s", json_is_true(v) ? "true" : "false");
		return;
	}
}

/* The value a string field takes when the reference meets a number or boolean there. */
static json_t *coerce_to_string(struct check *c, const json_t *v, const struct path *path)
{
	char buf[64];
	bool version = is_top_field(path, "cdiVersion");

	switch (json_typeof(v)) {
	case JSON_INTEGER:
		snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		if (version)
			snprintf(c->version_number, sizeof(c->version_number), "%s", buf);
		break;
	case JSON_REAL:
		format_float32_go(buf, sizeof(buf), json_real_value(v));
		if (version) {
			as_written(c->version_number, sizeof(c->version_number), v);
			c->version_was_real = true;
		}
		break;
	case JSON_TRUE:
		snprintf(buf, sizeof(buf), "true");
		break;
	case JSON_FALSE:
		snprintf(buf, sizeof(buf), "false");
		break;
	default:
		return NULL;
	}
	return json_string(buf);
}

static void decode_object(struct check *c, json_t *obj, const struct kind *kind,
			  const struct path *path, struct loc loc);

/*
 * Check one value v found at path (parent[iter] for an object member, parent[index] for an
 * array element) against type; convert it when coercing.
 */
/* A node's position is looked up only when it is used: most values have no problem. */
#define LOC loc_of(c, v, ploc)

static void decode_value(struct check *c, json_t *parent, void *iter, size_t index, json_t *v,
			 const struct field *f, bool element, const struct path *path,
			 struct loc ploc)
{
	enum vtype type = element ? f->elem : f->type;
	char q[CDI_QUOTE_MAX], num[64];

	if (json_is_null(v) && c->coerce &&
	    (type == V_STRING || type == V_INT64 || type == V_UINT32)) {
		/* Only array elements and map values get here: Go leaves its zero value. */
		replace(c, parent, iter, index, v,
			type == V_STRING ? json_string("") : json_integer(0), LOC);
		return;
	}

	switch (type) {
	case V_STRING:
		if (json_is_string(v))
			return;
		if (c->coerce && (json_is_number(v) || json_is_boolean(v))) {
			/* The reference converts (name: 0 is the device "0"), so a spec podman
			 * accepts resolves here too; strict asks for the quotes. cdiVersion never
			 * converts to a valid version: its rule explains why. */
			if (strict(c) && !is_top_field(path, "cdiVersion")) {
				as_written(num, sizeof(num), v);
				problem(c, LOC, path,
					"expected a string, got the %s %s (write \"%s\" in quotes)",
					json_is_boolean(v) ? "boolean" : "number", num, num);
			}
			replace(c, parent, iter, index, v, coerce_to_string(c, v, path), LOC);
			return;
		}
		break;

	case V_INT64:
	case V_UINT32: {
		json_int_t n;

		if (json_is_real(v)) {
			double d = json_real_value(v);

			format_double_shortest(num, sizeof(num), d);
			if (!c->coerce || !is_integral(d)) {
				problem(c, LOC, path, "expected an integer, got %s", num);
				return;
			}
			if (d < -9223372036854775808.0 || d >= 9223372036854775808.0 ||
			    (type == V_UINT32 && (d < 0 || d > UINT32_MAX))) {
				problem(c, LOC, path, "%s is out of range for %s", num,
					type == V_UINT32 ? "a uint32 (0 to 4294967295)"
							 : "an int64");
				return;
			}
			replace(c, parent, iter, index, v, json_integer((json_int_t)d), LOC);
			return;
		}
		if (!json_is_integer(v))
			break;
		n = json_integer_value(v);
		if (type == V_UINT32 && (n < 0 || n > (json_int_t)UINT32_MAX))
			problem(c, LOC, path,
				"%" JSON_INTEGER_FORMAT
				" is out of range for a uint32 (0 to 4294967295)",
				n);
		return;
	}

	case V_BOOL:
		if (json_is_boolean(v))
			return;
		break;

	case V_OBJECT:
		if (json_is_object(v)) {
			decode_object(c, v, f->kind, path, LOC);
			return;
		}
		break;

	case V_MAP:
		if (json_is_object(v)) {
			static const struct field map_value = STRING("");
			struct loc vloc = LOC;

			for (void *it = json_object_iter(v); it; it = json_object_iter_next(v, it))
				decode_value(c, v, it, 0, json_object_iter_value(it), &map_value,
					     false,
					     MAP_KEY(path, json_object_iter_key(it),
						     json_object_iter_key_len(it)),
					     vloc);
			return;
		}
		break;

	case V_ARRAY:
		if (json_is_array(v)) {
			struct loc vloc = LOC;
			size_t i;
			json_t *e;

			json_array_foreach(v, i, e)
			    decode_value(c, v, NULL, i, e, f, true, INDEX(path, i), vloc);
			return;
		}
		break;
	}

	if (json_is_string(v))
		problem(c, LOC, path, "expected %s, got the string %s", expected_name(type),
			quote_json(q, v));
	else
		problem(c, LOC, path, "expected %s, got %s", expected_name(type), type_name(v));
}

#undef LOC

static const struct field *find_field(const struct kind *kind, const char *key, size_t len)
{
	for (size_t i = 0; i < kind->n_fields; i++)
		if (kind->fields[i].name_len == len && memcmp(kind->fields[i].name, key, len) == 0)
			return &kind->fields[i];
	return NULL;
}

static const struct field *find_field_nocase(const struct kind *kind, const char *key, size_t len)
{
	for (size_t i = 0; i < kind->n_fields; i++)
		if (kind->fields[i].name_len == len &&
		    strncasecmp(kind->fields[i].name, key, len) == 0)
			return &kind->fields[i];
	return NULL;
}

static void decode_object(struct check *c, json_t *obj, const struct kind *kind,
			  const struct path *path, struct loc loc)
{
	char q[CDI_QUOTE_MAX];
	void *it, *next;

	for (it = json_object_iter(obj); it; it = next) {
		const char *key = json_object_iter_key(it);
		size_t len = json_object_iter_key_len(it);
		json_t *v = json_object_iter_value(it);
		const struct field *f = find_field(kind, key, len);

		next = json_object_iter_next(obj, it);
		if (!f) {
			const struct field *near = find_field_nocase(kind, key, len);

			cdi_quote(q, sizeof(q), key, len);
			if (near)
				problem(c, loc_of(c, v, loc), path,
					"unknown field %s (did you mean \"%s\"?)", q, near->name);
			else
				problem(c, loc_of(c, v, loc), path, "unknown field %s", q);
			continue;
		}
		if (json_is_null(v) && c->coerce) {
			json_object_deln(obj, key, len);
			continue;
		}
		decode_value(c, obj, it, 0, v, f, false, AT(path, f->name), loc);
	}

	for (size_t i = 0; i < kind->n_fields; i++)
		if (kind->fields[i].required && !json_object_get(obj, kind->fields[i].name))
			problem(c, loc, path, "missing required field \"%s\"",
				kind->fields[i].name);
}

/* ---- rules ---- */

static json_t *get(const json_t *obj, const char *key, json_type type)
{
	json_t *v = json_object_get(obj, key);

	return v && json_typeof(v) == type ? v : NULL;
}

static bool has_nul(const json_t *s)
{
	return memchr(json_string_value(s), '\0', json_string_length(s)) != NULL;
}

static bool str_is(const json_t *s, const char *want)
{
	return json_string_length(s) == strlen(want) &&
	       memcmp(json_string_value(s), want, strlen(want)) == 0;
}

/* Where an earlier node is, for "first at ...": its line when known, else its path. */
static const char *first_at(const struct check *c, char buf[static PATH_SIZE], const json_t *node,
			    const struct path *path)
{
	unsigned line, column;

	if (node && !json_is_boolean(node) && !json_is_null(node) &&
	    cdi_marks_find(c->marks, node, &line, &column))
		bprintf(buf, PATH_SIZE, "line %u", line);
	else
		render_path(path, buf, PATH_SIZE);
	return buf;
}

static void check_nonempty(struct check *c, const json_t *s, const struct path *path,
			   struct loc loc)
{
	if (s && json_string_length(s) == 0)
		problem(c, loc_of(c, s, loc), path, "must not be empty");
}

/* Strict: a path in the container or on the host must be absolute. */
static void check_absolute(struct check *c, const json_t *s, const struct path *path,
			   struct loc loc)
{
	char q[CDI_QUOTE_MAX];

	if (strict(c) && s && json_string_length(s) > 0 && json_string_value(s)[0] != '/')
		problem(c, loc_of(c, s, loc), path, "%s is not an absolute path", quote_json(q, s));
}

/* ValidateEnv: "=" at an index > 0. */
static void check_env(struct check *c, const json_t *env, const struct path *path, struct loc ploc)
{
	char q[CDI_QUOTE_MAX];
	struct loc loc = loc_of(c, env, ploc);
	size_t i;
	json_t *e;

	json_array_foreach(env, i, e)
	{
		const char *eq;

		if (!json_is_string(e))
			continue;
		eq = memchr(json_string_value(e), '=', json_string_length(e));
		if (eq && eq != json_string_value(e))
			continue;
		problem(c, loc_of(c, e, loc), INDEX(path, i), "%s is not NAME=VALUE%s",
			quote_json(q, e), eq ? " (the name is empty)" : "");
	}
}

static void check_device_node(struct check *c, const json_t *node, const struct path *path,
			      struct loc loc)
{
	json_t *p = get(node, "path", JSON_STRING), *type = get(node, "type", JSON_STRING);
	json_t *perms = get(node, "permissions", JSON_STRING), *mode;
	char q[CDI_QUOTE_MAX];

	check_nonempty(c, p, AT(path, "path"), loc);
	check_absolute(c, p, AT(path, "path"), loc);
	check_absolute(c, get(node, "hostPath", JSON_STRING), AT(path, "hostPath"), loc);

	if (type &&
	    !(json_string_length(type) == 0 ||
	      (json_string_length(type) == 1 && json_string_value(type)[0] &&
	       strchr("bcup", json_string_value(type)[0]))))
		problem(c, loc_of(c, type, loc), AT(path, "type"),
			"invalid device node type %s (want b, c, u or p)", quote_json(q, type));

	if (strict(c)) {
		static const char *const numbers[] = {"major", "minor"};

		for (size_t i = 0; i < ELEMENTSOF(numbers); i++) {
			json_t *n = get(node, numbers[i], JSON_INTEGER);

			/* -1 is the wildcard of device cgroup rules. */
			if (n && json_integer_value(n) < 0)
				problem(c, loc_of(c, n, loc), AT(path, numbers[i]),
					"negative device number %" JSON_INTEGER_FORMAT,
					json_integer_value(n));
		}
		mode = get(node, "fileMode", JSON_INTEGER);
		if (mode && (json_integer_value(mode) & ~(json_int_t)07777))
			problem(c, loc_of(c, mode, loc), AT(path, "fileMode"),
				"fileMode %#llo has bits beyond 07777",
				(unsigned long long)json_integer_value(mode));
	}

	if (perms && !str_is(perms, "none")) {
		for (size_t i = 0; i < json_string_length(perms); i++) {
			char ch = json_string_value(perms)[i];

			if (ch == 'r' || ch == 'w' || ch == 'm')
				continue;
			problem(c, loc_of(c, perms, loc), AT(path, "permissions"),
				"invalid permissions %s (want r, w and m, or \"none\")",
				quote_json(q, perms));
			break;
		}
	}
}

static void check_hook(struct check *c, const json_t *hook, const struct path *path, struct loc loc)
{
	static const char *const names[] = {"prestart",	      "createRuntime", "createContainer",
					    "startContainer", "poststart",     "poststop"};
	json_t *name = get(hook, "hookName", JSON_STRING), *p = get(hook, "path", JSON_STRING);
	json_t *env = get(hook, "env", JSON_ARRAY), *timeout;
	char q[CDI_QUOTE_MAX];

	if (name) {
		bool known = false;

		for (size_t i = 0; i < ELEMENTSOF(names) && !known; i++)
			known = str_is(name, names[i]);
		if (!known)
			problem(
			    c, loc_of(c, name, loc), AT(path, "hookName"),
			    "invalid hook name %s (want prestart, createRuntime, createContainer, startContainer, poststart or poststop)",
			    quote_json(q, name));
	}
	check_nonempty(c, p, AT(path, "path"), loc);
	check_absolute(c, p, AT(path, "path"), loc);
	if (env)
		check_env(c, env, AT(path, "env"), loc);
	timeout = get(hook, "timeout", JSON_INTEGER);
	if (strict(c) && timeout && json_integer_value(timeout) <= 0)
		problem(c, loc_of(c, timeout, loc), AT(path, "timeout"),
			"timeout %" JSON_INTEGER_FORMAT " is not positive",
			json_integer_value(timeout));
}

/* A bind mount's hostPath is a host path; other mounts' is a source name ("tmpfs"). */
static bool is_bind_mount(const json_t *mount)
{
	json_t *type = get(mount, "type", JSON_STRING),
	       *options = get(mount, "options", JSON_ARRAY);
	size_t i;
	json_t *o;

	if (type && str_is(type, "bind"))
		return true;
	json_array_foreach(options, i,
			   o) if (json_is_string(o) &&
				  (str_is(o, "bind") || str_is(o, "rbind"))) return true;
	return false;
}

static void check_mount(struct check *c, const json_t *mount, const struct path *path,
			struct loc loc)
{
	json_t *host = get(mount, "hostPath", JSON_STRING);
	json_t *ctr = get(mount, "containerPath", JSON_STRING);

	check_nonempty(c, host, AT(path, "hostPath"), loc);
	if (is_bind_mount(mount))
		check_absolute(c, host, AT(path, "hostPath"), loc);
	check_nonempty(c, ctr, AT(path, "containerPath"), loc);
	check_absolute(c, ctr, AT(path, "containerPath"), loc);
}

/* The reference: closID is "/" (the root group) or a valid file name. */
static void check_intel_rdt(struct check *c, const json_t *rdt, const struct path *path,
			    struct loc ploc)
{
	json_t *id = get(rdt, "closID", JSON_STRING);
	struct loc loc = loc_of(c, id, loc_of(c, rdt, ploc));
	const struct path *sub = AT(path, "closID");
	char q[CDI_QUOTE_MAX];
	size_t len;

	if (!id || str_is(id, "/"))
		return;
	len = json_string_length(id);
	if (len >= 4096)
		problem(c, loc, sub, "closID is %zu bytes long (at most 4095)", len);
	else if (str_is(id, ".") || str_is(id, ".."))
		problem(c, loc, sub, "invalid closID %s (must be a file name)", quote_json(q, id));
	else if (memchr(json_string_value(id), '/', len))
		problem(c, loc, sub,
			"invalid closID %s (contains '/'; only \"/\" alone names the root group)",
			quote_json(q, id));
	else if (memchr(json_string_value(id), '\n', len))
		problem(c, loc, sub, "invalid closID %s (contains a newline)", quote_json(q, id));
}

/* Strict: what the kernel's dev_valid_name() accepts. */
static void check_ifname(struct check *c, const json_t *s, const struct path *path, struct loc loc)
{
	const char *v = json_string_value(s);
	size_t len = json_string_length(s);
	char q[CDI_QUOTE_MAX];
	bool ok = len > 0 && len < 16 && !str_is(s, ".") && !str_is(s, "..");

	for (size_t i = 0; i < len && ok; i++)
		ok = v[i] != '/' && v[i] != ':' && v[i] != '\0' && v[i] != ' ' &&
		     !(v[i] >= '\t' && v[i] <= '\r');
	if (!ok)
		problem(
		    c, loc_of(c, s, loc), path,
		    "invalid network interface name %s (1 to 15 bytes, no '/', ':' or whitespace, not \".\" or \"..\")",
		    quote_json(q, s));
}

/* ValidateNetDevices: both names set, each unique within the edits. */
static void check_net_devices(struct check *c, const json_t *devs, const struct path *path,
			      struct loc ploc)
{
	static const char *const keys[] = {"hostInterfaceName", "name"};
	_cleanup_json_ json_t *hosts = json_object(), *names = json_object();
	json_t *seen[2] = {hosts, names};
	struct loc loc = loc_of(c, devs, ploc);
	char at[PATH_SIZE], q[CDI_QUOTE_MAX];
	size_t i;
	json_t *dev;

	if (!hosts || !names) {
		oom(c);
		return;
	}
	json_array_foreach(devs, i, dev)
	{
		struct loc dloc = loc_of(c, dev, loc);

		if (!json_is_object(dev))
			continue;
		for (size_t k = 0; k < ELEMENTSOF(keys); k++) {
			json_t *s = get(dev, keys[k], JSON_STRING), *prev;
			const struct path *field = AT(INDEX(path, i), keys[k]);

			if (!s)
				continue;
			if (json_string_length(s) == 0) {
				problem(c, loc_of(c, s, dloc), field, "must not be empty");
				continue;
			}
			if (strict(c))
				check_ifname(c, s, field, dloc);
			prev =
			    json_object_getn(seen[k], json_string_value(s), json_string_length(s));
			if (prev) {
				size_t first = (size_t)json_integer_value(prev);

				problem(
				    c, loc_of(c, s, dloc), field, "duplicate %s %s (first at %s)",
				    keys[k], quote_json(q, s),
				    first_at(c, at,
					     get(json_array_get(devs, first), keys[k], JSON_STRING),
					     AT(INDEX(path, first), keys[k])));
			} else if (json_object_setn_new(seen[k], json_string_value(s),
							json_string_length(s),
							json_integer((json_int_t)i)) < 0) {
				oom(c);
				return;
			}
		}
	}
}

static void check_objects(struct check *c, const json_t *edits, const char *key,
			  const struct path *path, struct loc loc,
			  void (*fn)(struct check *, const json_t *, const struct path *,
				     struct loc))
{
	json_t *arr = get(edits, key, JSON_ARRAY), *e;
	const struct path *apath = AT(path, key);
	struct loc aloc = loc_of(c, arr, loc);
	size_t i;

	json_array_foreach(arr, i, e) if (json_is_object(e))
	    fn(c, e, INDEX(apath, i), loc_of(c, e, aloc));
}

/* ContainerEdits.Validate, in its order. */
static void check_edits(struct check *c, const json_t *edits, const struct path *path,
			struct loc ploc)
{
	struct loc loc = loc_of(c, edits, ploc);
	json_t *env = get(edits, "env", JSON_ARRAY), *rdt = get(edits, "intelRdt", JSON_OBJECT);
	json_t *net = get(edits, "netDevices", JSON_ARRAY);

	if (env)
		check_env(c, env, AT(path, "env"), loc);
	check_objects(c, edits, "deviceNodes", path, loc, check_device_node);
	check_objects(c, edits, "hooks", path, loc, check_hook);
	check_objects(c, edits, "mounts", path, loc, check_mount);
	if (rdt)
		check_intel_rdt(c, rdt, AT(path, "intelRdt"), loc);
	if (net)
		check_net_devices(c, net, AT(path, "netDevices"), loc);
}

/*
 * isEmpty: no env, deviceNodes, hooks, mounts, additionalGids, netDevices (empty lists count
 * as none) and no intelRdt. A member of the wrong type or an unknown one was reported already
 * and counts as an edit: "no container edits" on top would only repeat it.
 */
static bool edits_empty(const json_t *edits)
{
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)edits, key, v) if (!json_is_array(v) ||
							 json_array_size(v) > 0 ||
							 strcmp(key, "intelRdt") == 0) return false;
	return true;
}

/*
 * Strict: the annotation rule the reference means to apply (k8s ValidateAnnotations, a no-op
 * in the reference when loading): each key, lowercased, a qualified name, and at most 256 KiB
 * of keys and values in all.
 */
static const char *annotation_key_problem(const char *key, size_t len)
{
	const char *slash = memchr(key, '/', len), *name = key;
	size_t nlen = len;

	if (slash) {
		size_t plen = (size_t)(slash - key);

		if (memchr(slash + 1, '/', len - plen - 1))
			return "a qualified name has at most one '/'";
		if (plen == 0)
			return "the prefix before '/' must not be empty";
		if (plen > 253)
			return "the prefix before '/' must be at most 253 bytes";
		/* DNS-1123 subdomain, on the lowercased key. */
		for (size_t i = 0, label = 0; i < plen; i++) {
			char ch =
			    (char)((key[i] >= 'A' && key[i] <= 'Z') ? key[i] - 'A' + 'a' : key[i]);
			bool alnum = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');

			if (ch == '.') {
				if (label == 0 || key[i - 1] == '-')
					return "the prefix must be a DNS subdomain (lowercase letters, digits, '-' and '.', each label starting and ending with a letter or digit)";
				label = 0;
				continue;
			}
			if (!alnum && ch != '-')
				return "the prefix must be a DNS subdomain (lowercase letters, digits, '-' and '.', each label starting and ending with a letter or digit)";
			if (label == 0 && ch == '-')
				return "the prefix must be a DNS subdomain (lowercase letters, digits, '-' and '.', each label starting and ending with a letter or digit)";
			label++;
		}
		if (key[plen - 1] == '-' || key[plen - 1] == '.')
			return "the prefix must be a DNS subdomain (lowercase letters, digits, '-' and '.', each label starting and ending with a letter or digit)";
		name = slash + 1;
		nlen = len - plen - 1;
	}
	if (nlen == 0)
		return "the name must not be empty";
	if (nlen > 63)
		return "the name must be at most 63 bytes";
	for (size_t i = 0; i < nlen; i++) {
		char ch = name[i];
		bool alnum = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			     (ch >= '0' && ch <= '9');

		if (alnum)
			continue;
		if ((ch == '-' || ch == '_' || ch == '.') && i > 0 && i + 1 < nlen)
			continue;
		return "the name must consist of letters, digits, '-', '_' or '.', and start and end with a letter or digit";
	}
	return NULL;
}

static void check_annotations(struct check *c, const json_t *ann, const struct path *path,
			      struct loc ploc)
{
	struct loc loc = loc_of(c, ann, ploc);
	char q[CDI_QUOTE_MAX];
	size_t total = 0;

	if (!strict(c) || !ann)
		return;
	for (void *it = json_object_iter((json_t *)ann); it;
	     it = json_object_iter_next((json_t *)ann, it)) {
		const char *key = json_object_iter_key(it);
		size_t len = json_object_iter_key_len(it);
		json_t *v = json_object_iter_value(it);
		const char *why = annotation_key_problem(key, len);

		total += len + (json_is_string(v) ? json_string_length(v) : 0);
		if (why)
			problem(c, loc_of(c, v, loc), path, "invalid annotation key %s: %s",
				cdi_quote(q, sizeof(q), key, len), why);
	}
	if (total > 256 * 1024)
		problem(c, loc, path, "annotations take %zu bytes (at most 262144)", total);
}

/* ValidateVersion: a known version, and not older than what the content needs. */
static void check_version(struct check *c, const json_t *root, struct loc rloc)
{
	json_t *v = get(root, "cdiVersion", JSON_STRING);
	struct loc loc = loc_of(c, v, rloc);
	char q[CDI_QUOTE_MAX], hint[160] = "", why[PATH_SIZE];
	const char *declared, *min;

	if (!v)
		return;
	declared = json_string_value(v);
	if (has_nul(v) || cdi_version_index(declared) < 0) {
		const char *base = c->version_number[0] ? c->version_number : declared;
		char guess[80] = "";

		/* 1.0 (a number) and "1.0" both probably meant 1.0.0. */
		if (strlen(base) < 32)
			bprintf(guess, sizeof(guess), "%s%s", base,
				strchr(base, '.') ? ".0" : ".0.0");
		if (cdi_version_index(guess) < 0)
			guess[0] = '\0';
		if (c->version_number[0] && c->version_was_real)
			bprintf(hint, sizeof(hint),
				" (an unquoted %s reads as the number %s; write \"%s\")",
				c->version_number, declared, guess[0] ? guess : c->version_number);
		else if (c->version_number[0])
			bprintf(hint, sizeof(hint), " (an unquoted %s is a number; write \"%s\")",
				c->version_number, guess[0] ? guess : c->version_number);
		else if (!has_nul(v) && guess[0])
			bprintf(hint, sizeof(hint), " (did you mean \"%s\"?)", guess);
		problem(c, loc, AT(NULL, "cdiVersion"), "invalid version %s%s", quote_json(q, v),
			hint);
		return;
	}
	min = cdi_required_version(root, why, sizeof(why));
	if (cdi_version_index(min) >= cdi_version_index(declared))
		return;
	if (why[0])
		problem(c, loc, AT(NULL, "cdiVersion"),
			"the spec version must be at least v%s (%s needs it), got %s", min, why,
			declared);
	else
		problem(c, loc, AT(NULL, "cdiVersion"),
			"the spec version must be at least v%s (the earliest supported), got %s",
			min, declared);
}

/* ParseQualifier, then the vendor and the class rule. */
static void check_kind(struct check *c, const json_t *root, struct loc rloc)
{
	json_t *kind = get(root, "kind", JSON_STRING);
	struct loc loc = loc_of(c, kind, rloc);
	char q[CDI_QUOTE_MAX], msg[2 * CDI_QUOTE_MAX + 128];
	const char *s, *slash;
	size_t len;

	if (!kind)
		return;
	s = json_string_value(kind);
	len = json_string_length(kind);
	slash = memchr(s, '/', len);
	if (!slash || slash == s || slash + 1 == s + len) {
		problem(c, loc, AT(NULL, "kind"), "invalid kind %s (want vendor/class)",
			quote_json(q, kind));
		return;
	}
	if (cdi_name_message(msg, sizeof(msg), CDI_NAME_VENDOR, "vendor", s, (size_t)(slash - s)) >=
	    0)
		problem(c, loc, AT(NULL, "kind"), "%s", msg);
	if (cdi_name_message(msg, sizeof(msg), CDI_NAME_CLASS, "class", slash + 1,
			     len - (size_t)(slash - s) - 1) >= 0)
		problem(c, loc, AT(NULL, "kind"), "%s", msg);
}

static void check_devices(struct check *c, const json_t *root, struct loc rloc)
{
	json_t *devs = get(root, "devices", JSON_ARRAY), *dev;
	_cleanup_json_ json_t *seen = NULL;
	const struct path *top = AT(NULL, "devices");
	struct loc aloc = loc_of(c, devs, rloc);
	char at[PATH_SIZE], q[CDI_QUOTE_MAX], msg[2 * CDI_QUOTE_MAX + 128];
	size_t i;

	if (!devs)
		return;
	seen = json_object();
	if (!seen) {
		oom(c);
		return;
	}
	json_array_foreach(devs, i, dev)
	{
		const struct path *path = INDEX(top, i);
		struct loc dloc = loc_of(c, dev, aloc);
		json_t *name, *edits, *prev;

		if (!json_is_object(dev))
			continue;
		name = get(dev, "name", JSON_STRING);
		if (name &&
		    cdi_name_message(msg, sizeof(msg), CDI_NAME_DEVICE, "device name",
				     json_string_value(name), json_string_length(name)) >= 0)
			problem(c, loc_of(c, name, dloc), AT(path, "name"), "%s", msg);

		check_annotations(c, get(dev, "annotations", JSON_OBJECT), AT(path, "annotations"),
				  dloc);

		edits = json_object_get(dev, "containerEdits");
		if (!edits || (json_is_object(edits) && edits_empty(edits))) {
			if (name)
				problem(c, loc_of(c, edits, dloc), AT(path, "containerEdits"),
					"device %s has no container edits", quote_json(q, name));
			else
				problem(c, loc_of(c, edits, dloc), AT(path, "containerEdits"),
					"the device has no container edits");
		} else if (json_is_object(edits)) {
			check_edits(c, edits, AT(path, "containerEdits"), dloc);
		}

		if (!name)
			continue;
		prev = json_object_getn(seen, json_string_value(name), json_string_length(name));
		if (prev) {
			size_t first = (size_t)json_integer_value(prev);

			problem(c, loc_of(c, name, dloc), AT(path, "name"),
				"duplicate device name %s (first at %s)", quote_json(q, name),
				first_at(c, at,
					 get(json_array_get(devs, first), "name", JSON_STRING),
					 AT(INDEX(top, first), "name")));
		} else if (json_object_setn_new(seen, json_string_value(name),
						json_string_length(name),
						json_integer((json_int_t)i)) < 0) {
			oom(c);
			return;
		}
	}
	if (json_array_size(devs) == 0)
		problem(c, aloc, top, "no devices");
}

int cdi_spec_check(json_t *root, const char *file, struct cdi_marks *marks, unsigned flags,
		   bool coerce, struct cdi_error *err)
{
	struct check c = {
	    .file = file,
	    /* Only replaced nodes are added, under the positions of the nodes they replace. */
	    .marks = marks,
	    .flags = flags,
	    .coerce = coerce,
	    .err = err,
	};
	_cleanup_json_ json_t *replaced = json_array();
	struct loc rloc = {0, 0};
	json_t *edits;

	if (!replaced)
		return cdi_problem_add(err, -ENOMEM, file, 0, 0, NULL, "out of memory");
	c.replaced = replaced;
	if (!root)
		return cdi_problem_add(err, -EINVAL, file, 0, 0, NULL,
				       "no spec data (empty document)");
	rloc = loc_of(&c, root, rloc);
	if (!json_is_object(root))
		return cdi_problem_add(err, -EINVAL, file, rloc.line, rloc.column, NULL,
				       "expected an object, got %s", type_name(root));

	decode_object(&c, root, &spec_kind, NULL, rloc);
	if (c.r == -ENOMEM)
		return c.r;

	check_version(&c, root, rloc);
	check_kind(&c, root, rloc);
	check_annotations(&c, get(root, "annotations", JSON_OBJECT), AT(NULL, "annotations"), rloc);
	edits = get(root, "containerEdits", JSON_OBJECT);
	if (edits)
		check_edits(&c, edits, AT(NULL, "containerEdits"), rloc);
	check_devices(&c, root, rloc);

	if (c.n_dropped)
		cdi_problem_add(err, -EINVAL, file, 0, 0, NULL, "%zu more problems not shown",
				c.n_dropped);
	return c.r;
}
