/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CDI spec versions: the ordered table of the reference's specs-go/version.go, newest first,
 * with one predicate per version saying whether a spec uses something that version added.
 * The minimum version of a spec is the first version whose predicate holds (requiredVersion),
 * else 0.3.0. A future version (1.2.0) is one more row with its predicate on top.
 *
 * Every predicate looks at the spec-level edits and at every device's, as the reference does,
 * in the reference's order, so the first feature found is the one it would have tripped on.
 * Nodes of the wrong type count as absent (the validator reports them).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cdi/spec.h>

#include "macro.h"
#include "rules.h"

struct why {
	char *buf;
	size_t size;
};

typedef bool (*required_fn)(const json_t *spec, struct why *why);
typedef bool (*edits_fn)(const json_t *edits, size_t dev, struct why *why);

_printf_(2, 3) static bool because(struct why *why, const char *fmt, ...)
{
	va_list ap;

	if (why->buf && why->size) {
		va_start(ap, fmt);
		vsnprintf(why->buf, why->size, fmt, ap);
		va_end(ap);
	}
	return true;
}

/* The same inside an edits block: device dev's, or the spec's when dev is SPEC_EDITS. The
 * prefix is only formatted when a predicate holds. */
#define SPEC_EDITS SIZE_MAX

_printf_(3, 4) static bool because_in(struct why *why, size_t dev, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!why->buf || !why->size)
		return true;
	if (dev == SPEC_EDITS)
		n = snprintf(why->buf, why->size, "containerEdits");
	else
		n = snprintf(why->buf, why->size, "devices[%zu].containerEdits", dev);
	if (n >= 0 && (size_t)n < why->size) {
		va_start(ap, fmt);
		vsnprintf(why->buf + n, why->size - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return true;
}

static const json_t *member(const json_t *obj, const char *key, json_type type)
{
	const json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;

	return v && json_typeof(v) == type ? v : NULL;
}

static size_t array_len(const json_t *obj, const char *key)
{
	return json_array_size(member(obj, key, JSON_ARRAY));
}

static const json_t *devices(const json_t *spec)
{
	return member(spec, "devices", JSON_ARRAY);
}

static const json_t *edits_of(const json_t *obj)
{
	return member(obj, "containerEdits", JSON_OBJECT);
}

/*
 * The edits blocks to look at, in the order of the reference's v0.4.0/v0.5.0 predicates:
 * every device's, then the spec's. Calls fn until it returns true.
 */
static bool any_edits(const json_t *spec, struct why *why, edits_fn fn)
{
	const json_t *devs = devices(spec), *dev;
	size_t i;

	json_array_foreach (devs, i, dev)
		if (fn(edits_of(dev), i, why))
			return true;
	return fn(edits_of(spec), SPEC_EDITS, why);
}

/* The reference's v1.1.0 and v0.7.0 predicates look at the spec first, then the devices. */
static bool spec_then_devices(const json_t *spec, struct why *why, edits_fn fn)
{
	const json_t *devs = devices(spec), *dev;
	size_t i;

	if (fn(edits_of(spec), SPEC_EDITS, why))
		return true;
	json_array_foreach (devs, i, dev)
		if (fn(edits_of(dev), i, why))
			return true;
	return false;
}

/* v1.1.0: intelRdt.schemata (even an empty list) or enableMonitoring, or netDevices. */
static bool edits_v110(const json_t *edits, size_t dev, struct why *why)
{
	const json_t *rdt = member(edits, "intelRdt", JSON_OBJECT);

	if (member(rdt, "schemata", JSON_ARRAY))
		return because_in(why, dev, ".intelRdt.schemata");
	if (json_is_true(json_object_get(rdt, "enableMonitoring")))
		return because_in(why, dev, ".intelRdt.enableMonitoring");
	if (array_len(edits, "netDevices") > 0)
		return because_in(why, dev, ".netDevices");
	return false;
}

/* v0.7.0: intelRdt (even {}), or additionalGids. */
static bool edits_v070(const json_t *edits, size_t dev, struct why *why)
{
	if (member(edits, "intelRdt", JSON_OBJECT))
		return because_in(why, dev, ".intelRdt");
	if (array_len(edits, "additionalGids") > 0)
		return because_in(why, dev, ".additionalGids");
	return false;
}

/* v0.6.0: spec or device annotations, or a '.' in the class part of kind. */
static bool requires_v060(const json_t *spec, struct why *why)
{
	const json_t *devs = devices(spec), *dev, *kind;
	const char *slash;
	size_t i;

	if (json_object_size(member(spec, "annotations", JSON_OBJECT)) > 0)
		return because(why, "annotations");
	json_array_foreach (devs, i, dev)
		if (json_object_size(member(dev, "annotations", JSON_OBJECT)) > 0)
			return because(why, "devices[%zu].annotations", i);
	kind = member(spec, "kind", JSON_STRING);
	slash = kind ? strchr(json_string_value(kind), '/') : NULL;
	if (slash && strchr(slash + 1, '.'))
		return because(why, "the '.' in class \"%.64s\"", slash + 1);
	return false;
}

/* Whether an item of edits[list] has a non-empty string field: the reason of two versions. */
static bool item_field_set(const json_t *edits, size_t dev, struct why *why, const char *list,
			   const char *field)
{
	const json_t *items = member(edits, list, JSON_ARRAY), *item, *v;
	size_t i;

	json_array_foreach (items, i, item) {
		v = member(item, field, JSON_STRING);
		if (v && json_string_length(v) > 0)
			return because_in(why, dev, ".%s[%zu].%s", list, i, field);
	}
	return false;
}

static bool edits_v050(const json_t *edits, size_t dev, struct why *why)
{
	return item_field_set(edits, dev, why, "deviceNodes", "hostPath");
}

/* v0.5.0: a device name starting with a digit, or a deviceNode hostPath (even == path). */
static bool requires_v050(const json_t *spec, struct why *why)
{
	const json_t *devs = devices(spec), *dev, *name;
	size_t i;

	json_array_foreach (devs, i, dev) {
		name = member(dev, "name", JSON_STRING);
		if (name && json_string_value(name)[0] >= '0' && json_string_value(name)[0] <= '9')
			return because(why, "devices[%zu].name \"%.64s\" starting with a digit", i,
				       json_string_value(name));
	}
	return any_edits(spec, why, edits_v050);
}

static bool edits_v040(const json_t *edits, size_t dev, struct why *why)
{
	return item_field_set(edits, dev, why, "mounts", "type");
}

/*
 * Newest first. A version's rule is a predicate on the whole spec (required), or on each edits
 * block (edits: the spec's first, then the devices', as the reference's v1.1.0 and v0.7.0
 * predicates do; or the devices' first, as its v0.4.0 does). Neither: the version added nothing
 * a spec can show (0.8.0 and 1.0.0 changed the Go API only; 0.1.0 and 0.2.0 predate the
 * earliest supported 0.3.0).
 */
static const struct {
	const char *version;
	required_fn required;
	edits_fn edits;
	bool spec_first;
} versions[] = {
	/* clang-format off */
	{ "1.1.0", NULL, edits_v110, true },
	{ "1.0.0", NULL, NULL, false },
	{ "0.8.0", NULL, NULL, false },
	{ "0.7.0", NULL, edits_v070, true },
	{ "0.6.0", requires_v060, NULL, false },
	{ "0.5.0", requires_v050, NULL, false },
	{ "0.4.0", NULL, edits_v040, false },
	{ "0.3.0", NULL, NULL, false },
	{ "0.2.0", NULL, NULL, false },
	{ "0.1.0", NULL, NULL, false },
	/* clang-format on */
};

static bool version_required(size_t i, const json_t *spec, struct why *why)
{
	if (versions[i].required)
		return versions[i].required(spec, why);
	if (!versions[i].edits)
		return false;
	return versions[i].spec_first ? spec_then_devices(spec, why, versions[i].edits)
				      : any_edits(spec, why, versions[i].edits);
}

const char *cdi_required_version(const json_t *spec, char *why, size_t why_size)
{
	struct why w = { why, why_size };

	if (why && why_size)
		why[0] = '\0';
	for (size_t i = 0; i < ELEMENTSOF(versions); i++)
		if (version_required(i, spec, &w))
			return versions[i].version;
	return CDI_VERSION_EARLIEST;
}

int cdi_version_index(const char *version)
{
	if (!version)
		return -1;
	/* newVersion(): strings.TrimPrefix(v, "v") removes one "v". */
	if (version[0] == 'v')
		version++;
	for (size_t i = 0; i < ELEMENTSOF(versions); i++)
		if (strcmp(versions[i].version, version) == 0)
			return (int)i;
	return -1;
}

_public_ const char *cdi_minimum_version(const json_t *spec)
{
	return cdi_required_version(spec, NULL, 0);
}

_public_ bool cdi_version_known(const char *version)
{
	return cdi_version_index(version) >= 0;
}

/* Unknown versions sort before every known one (and equal to each other). */
_public_ int cdi_version_compare(const char *a, const char *b)
{
	int ia = cdi_version_index(a), ib = cdi_version_index(b);

	if (ia < 0)
		ia = (int)ELEMENTSOF(versions);
	if (ib < 0)
		ib = (int)ELEMENTSOF(versions);
	/* The table is newest first: a smaller index is a newer version. */
	return (ia < ib) - (ia > ib);
}
