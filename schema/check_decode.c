/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The first pass of the spec check: every field against one static description per CDI object
 * (its fields, their JSON types, which are required), as the reference's strict decoding does
 * (sigs.k8s.io/yaml UnmarshalStrict: YAML to JSON, then encoding/json with unknown fields
 * disallowed), with the reference's conversions when coercing (check.c says which).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "check_decode.h"
#include "check_pass.h"
#include "number_text.h"

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
	REQUIRED("path", V_STRING), STRING("hostPath"), STRING("type"),
	INT64("major"), INT64("minor"), UINT32("fileMode"), STRING("permissions"),
	UINT32("uid"), UINT32("gid"),
};
static const struct kind device_node_kind = KIND(device_node_fields);

static const struct field mount_fields[] = {
	REQUIRED("hostPath", V_STRING), REQUIRED("containerPath", V_STRING),
	ARRAY("options", V_STRING), STRING("type"),
};
static const struct kind mount_kind = KIND(mount_fields);

/* timeout is a Go int: int64 here; SPEC.md's "> 0" is a strict rule. */
static const struct field hook_fields[] = {
	REQUIRED("hookName", V_STRING), REQUIRED("path", V_STRING),
	ARRAY("args", V_STRING), ARRAY("env", V_STRING), INT64("timeout"),
};
static const struct kind hook_kind = KIND(hook_fields);

/* enableCMT and enableMBM were dropped in 1.1.0: unknown fields now. */
static const struct field intel_rdt_fields[] = {
	STRING("closID"), STRING("l3CacheSchema"), STRING("memBwSchema"), ARRAY("schemata", V_STRING),
	BOOL("enableMonitoring"),
};
static const struct kind intel_rdt_kind = KIND(intel_rdt_fields);

static const struct field net_device_fields[] = {
	REQUIRED("hostInterfaceName", V_STRING), REQUIRED("name", V_STRING),
};
static const struct kind net_device_kind = KIND(net_device_fields);

static const struct field edits_fields[] = {
	ARRAY("env", V_STRING), OBJECTS("deviceNodes", &device_node_kind),
	OBJECTS("netDevices", &net_device_kind), OBJECTS("hooks", &hook_kind),
	OBJECTS("mounts", &mount_kind), OBJECT("intelRdt", &intel_rdt_kind),
	ARRAY("additionalGids", V_UINT32),
};
static const struct kind edits_kind = KIND(edits_fields);

/* containerEdits is not required here: a device without it gets the clearer "has no
 * container edits" (the reference's "empty device edits"). */
static const struct field device_fields[] = {
	REQUIRED("name", V_STRING), MAP("annotations"), OBJECT("containerEdits", &edits_kind),
};
static const struct kind device_kind = KIND(device_fields);

static const struct field spec_fields[] = {
	REQUIRED("cdiVersion", V_STRING), REQUIRED("kind", V_STRING), MAP("annotations"),
	FIELD("devices", .type = V_ARRAY, .elem = V_OBJECT, .kind = &device_kind, .required = true),
	OBJECT("containerEdits", &edits_kind),
};
static const struct kind spec_kind = KIND(spec_fields);
/* clang-format on */

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

/* Where a value is: parent[iter] for an object member, parent[index] for an array element. */
struct place {
	json_t *parent;
	void *iter;
	size_t index;
	const struct path *path;
	struct loc ploc; /* the parent's position, for a value without one of its own */
};

/* A node's position is looked up only when it is used: most values have no problem. */
static struct loc place_loc(const struct check *c, const json_t *v, const struct place *pl)
{
	return loc_of(c, v, pl->ploc);
}

static bool big_integer(const struct check *c, const json_t *v)
{
	return json_is_string(v) && (cdi_marks_flags(c->marks, v) & CDI_MARK_BIG_INTEGER);
}

/* A string field: true when v is (or became) one. */
static bool decode_string(struct check *c, json_t *v, const struct place *pl)
{
	char num[64];

	if (json_is_string(v)) {
		if (strict(c) && big_integer(c, v))
			problem(c, place_loc(c, v, pl), pl->path,
				"expected a string, got the number %s (write \"%s\" in quotes)",
				json_string_value(v), json_string_value(v));
		return true;
	}
	if (!c->coerce || !(json_is_number(v) || json_is_boolean(v)))
		return false;
	/* The reference converts (name: 0 is the device "0"), so a spec podman accepts resolves
	 * here too; strict asks for the quotes. cdiVersion never converts to a valid version: its
	 * rule explains why. */
	if (strict(c) && !is_top_field(pl->path, "cdiVersion")) {
		as_written(num, sizeof(num), v);
		problem(c, place_loc(c, v, pl), pl->path,
			"expected a string, got the %s %s (write \"%s\" in quotes)",
			json_is_boolean(v) ? "boolean" : "number", num, num);
	}
	replace(c, pl->parent, pl->iter, pl->index, v, coerce_to_string(c, v, pl->path),
		place_loc(c, v, pl));
	return true;
}

static const char *range_name(enum vtype type)
{
	return type == V_UINT32 ? "a uint32 (0 to 4294967295)" : "an int64";
}

/* An integer field: true when v was an integer (in range or not) or a real made one. */
static bool decode_integer(struct check *c, json_t *v, enum vtype type, const struct place *pl)
{
	char num[NUMBER_TEXT_MAX];
	json_int_t n;
	double d;

	if (json_is_integer(v)) {
		n = json_integer_value(v);
		if (type == V_UINT32 && (n < 0 || n > (json_int_t)UINT32_MAX))
			problem(c, place_loc(c, v, pl), pl->path,
				"%" JSON_INTEGER_FORMAT " is out of range for %s", n,
				range_name(type));
		return true;
	}
	if (big_integer(c, v)) {
		problem(c, place_loc(c, v, pl), pl->path, "%s is out of range for %s",
			json_string_value(v), range_name(type));
		return true;
	}
	if (!json_is_real(v))
		return false;
	d = json_real_value(v);
	format_double_shortest(num, sizeof(num), d);
	if (!c->coerce || !is_integral(d))
		problem(c, place_loc(c, v, pl), pl->path, "expected an integer, got %s", num);
	else if (d < -9223372036854775808.0 || d >= 9223372036854775808.0 ||
		 (type == V_UINT32 && (d < 0 || d > UINT32_MAX)))
		problem(c, place_loc(c, v, pl), pl->path, "%s is out of range for %s", num,
			range_name(type));
	else
		replace(c, pl->parent, pl->iter, pl->index, v, json_integer((json_int_t)d),
			place_loc(c, v, pl));
	return true;
}

static void decode_value(struct check *c, json_t *v, const struct field *f, bool element,
			 const struct place *pl);

/* A map of strings or an array of f->elem: true when v is one. */
static bool decode_container(struct check *c, json_t *v, const struct field *f, enum vtype type,
			     const struct place *pl)
{
	static const struct field map_value = STRING("");
	struct loc vloc;
	size_t i;
	json_t *e;

	if (type == V_MAP ? !json_is_object(v) : !json_is_array(v))
		return false;
	vloc = place_loc(c, v, pl);
	if (type == V_ARRAY) {
		json_array_foreach (v, i, e)
			decode_value(c, e, f, true,
				     &(struct place){ v, NULL, i, INDEX(pl->path, i), vloc });
		return true;
	}
	for (void *it = json_object_iter(v); it; it = json_object_iter_next(v, it))
		decode_value(c, json_object_iter_value(it), &map_value, false,
			     &(struct place){ v, it, 0,
					      MAP_KEY(pl->path, json_object_iter_key(it),
						      json_object_iter_key_len(it)),
					      vloc });
	return true;
}

/* Check one value against its field's type (the element type for an array element); convert
 * it when coercing. */
static void decode_value(struct check *c, json_t *v, const struct field *f, bool element,
			 const struct place *pl)
{
	enum vtype type = element ? f->elem : f->type;
	char q[CDI_QUOTE_MAX];
	bool ok = false;

	if (c->done)
		return;
	if (json_is_null(v) && c->coerce &&
	    (type == V_STRING || type == V_INT64 || type == V_UINT32)) {
		/* Only array elements and map values get here: Go leaves its zero value. */
		replace(c, pl->parent, pl->iter, pl->index, v,
			type == V_STRING ? json_string("") : json_integer(0), place_loc(c, v, pl));
		return;
	}
	switch (type) {
	case V_STRING:
		ok = decode_string(c, v, pl);
		break;
	case V_INT64:
	case V_UINT32:
		ok = decode_integer(c, v, type, pl);
		break;
	case V_BOOL:
		ok = json_is_boolean(v);
		break;
	case V_OBJECT:
		ok = json_is_object(v);
		if (ok)
			decode_object(c, v, f->kind, pl->path, place_loc(c, v, pl));
		break;
	case V_MAP:
	case V_ARRAY:
		ok = decode_container(c, v, f, type, pl);
		break;
	}
	if (ok)
		return;
	if (json_is_string(v))
		problem(c, place_loc(c, v, pl), pl->path, "expected %s, got the string %s",
			expected_name(type), quote_json(q, v));
	else
		problem(c, place_loc(c, v, pl), pl->path, "expected %s, got %s",
			expected_name(type), type_name(v));
}

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

	for (it = json_object_iter(obj); it && !c->done; it = next) {
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
		decode_value(c, v, f, false, &(struct place){ obj, it, 0, AT(path, f->name), loc });
	}

	for (size_t i = 0; i < kind->n_fields; i++)
		if (kind->fields[i].required && !json_object_get(obj, kind->fields[i].name))
			problem(c, loc, path, "missing required field \"%s\"",
				kind->fields[i].name);
}

bool check_decode(struct check *c, json_t *root, struct loc rloc)
{
	if (!json_is_object(root)) {
		problem(c, rloc, NULL, "expected an object, got %s", type_name(root));
		return false;
	}
	decode_object(c, root, &spec_kind, NULL, rloc);
	return true;
}
