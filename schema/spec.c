/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The spec object: read a file, parse it, validate it, and keep the tree with what callers ask
 * for most (vendor, class, version, devices in file order).
 *
 * The format follows the content, not the name, as in the reference (which reads every spec
 * as YAML, JSON being YAML): text that starts with '{' is read by jansson, which is fast and
 * exact, and by the YAML loader when jansson refuses it (YAML flow style accepts what JSON
 * does not, a trailing comma for one). jansson records no positions, so when a JSON spec fails
 * validation it is read again as YAML and checked again, and those problems, which carry
 * line:column, are the ones reported.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cdi/spec.h>

#include "check.h"
#include "load.h"
#include "macro.h"
#include "marks.h"
#include "problem.h"
#include "spec_cache.h"

struct cdi_spec {
	json_t *root;
	char *path;
	char *vendor;
	char *class_name;
	char *version;
	size_t n_devices;
	const json_t **devices;
	const char **names;
};

static inline void cdi_spec_freep(cdi_spec **s)
{
	cdi_spec_free(*s);
}

_public_ void cdi_spec_free(cdi_spec *spec)
{
	if (!spec)
		return;
	json_decref(spec->root);
	free(spec->path);
	free(spec->vendor);
	free(spec->class_name);
	free(spec->version);
	free(spec->devices);
	free(spec->names);
	free(spec);
}

static bool looks_like_json(const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n')
			continue;
		return buf[i] == '{';
	}
	return false;
}

/* A validated tree: everything below has the type the check demanded. */
static int spec_new(const char *name, json_t *root, cdi_spec **ret)
{
	_cleanup_(cdi_spec_freep) cdi_spec *spec = NULL;
	const char *kind = json_string_value(json_object_get(root, "kind"));
	const char *version = json_string_value(json_object_get(root, "cdiVersion"));
	const json_t *devices = json_object_get(root, "devices"), *dev;
	const char *slash = strchr(kind, '/');
	size_t i;

	spec = calloc(1, sizeof(*spec));
	if (!spec)
		return -ENOMEM;
	spec->root = json_incref(root);
	spec->path = name ? strdup(name) : NULL;
	spec->vendor = strndup(kind, (size_t)(slash - kind));
	spec->class_name = strdup(slash + 1);
	spec->version = strdup(version[0] == 'v' ? version + 1 : version);
	spec->n_devices = json_array_size(devices);
	spec->devices = calloc(spec->n_devices ? spec->n_devices : 1, sizeof(*spec->devices));
	spec->names = calloc(spec->n_devices ? spec->n_devices : 1, sizeof(*spec->names));
	if ((name && !spec->path) || !spec->vendor || !spec->class_name || !spec->version ||
	    !spec->devices || !spec->names)
		return -ENOMEM;
	json_array_foreach (devices, i, dev) {
		spec->devices[i] = dev;
		spec->names[i] = json_string_value(json_object_get(dev, "name"));
	}
	*ret = TAKE_PTR(spec);
	return 0;
}

int cdi_spec_new_checked(const char *name, json_t *root, cdi_spec **ret)
{
	return spec_new(name, root, ret);
}

/*
 * Text to tree: JSON by jansson when the text looks like JSON (fast and exact) and by the YAML
 * loader when jansson refuses it (YAML flow style accepts what JSON does not, a trailing comma
 * for one; if YAML refuses it too, jansson's complaint is the one shown); YAML otherwise.
 * marks, with or without positions, goes to the YAML loader.
 */
static int parse(const char *name, const char *buf, size_t len, struct cdi_marks *marks,
		 json_t **ret_root, struct cdi_error *err)
{
	struct cdi_error json_err = CDI_ERROR_INIT, yaml_err = CDI_ERROR_INIT;
	int r;

	if (!looks_like_json(buf, len))
		return cdi_yaml_load(name, buf, len, ret_root, marks, err);
	r = cdi_json_load(name, buf, len, ret_root, &json_err);
	if (r == -EINVAL) {
		r = cdi_yaml_load(name, buf, len, ret_root, marks, &yaml_err);
		if (r < 0)
			r = -EINVAL;
		cdi_error_reset(&yaml_err);
	}
	if (r < 0)
		cdi_error_move(err, &json_err);
	cdi_error_reset(&json_err);
	return r;
}

/*
 * Positions are only needed for problems, and recording them is a good part of loading (a
 * table entry per node, an index on first lookup): so a spec is loaded without them, and only
 * one that fails the check is read again, as YAML with positions (jansson keeps none; JSON is
 * YAML), and checked again. Its problems replace the first check's if it finds any (it should
 * find the same); otherwise the first check's stand.
 */
static void recheck_with_positions(const char *name, const char *buf, size_t len, unsigned flags,
				   struct cdi_error *problems)
{
	_cleanup_marks_ struct cdi_marks *marks = cdi_marks_new(true);
	_cleanup_json_ json_t *root = NULL;
	struct cdi_error yaml_err = CDI_ERROR_INIT, again = CDI_ERROR_INIT;

	if (!marks)
		return;
	if (cdi_yaml_load(name, buf, len, &root, marks, &yaml_err) == 0 &&
	    cdi_spec_check(root, name, marks, flags, true, &again) == -EINVAL &&
	    cdi_error_count(&again)) {
		cdi_error_reset(problems);
		cdi_error_move(problems, &again);
	}
	cdi_error_reset(&yaml_err);
	cdi_error_reset(&again);
}

_public_ int cdi_spec_load_buffer(const char *name, const char *buf, size_t len, unsigned flags,
				  cdi_spec **ret, struct cdi_error *err)
{
	/* Without positions: only what the check needs beyond the values (big integers). */
	_cleanup_marks_ struct cdi_marks *notes = NULL;
	_cleanup_json_ json_t *root = NULL;
	struct cdi_error problems = CDI_ERROR_INIT;
	int r;

	if (!ret)
		return cdi_problem_add(err, -EINVAL, name, 0, 0, NULL, "no place for the spec");
	if (!buf && len)
		return cdi_problem_add(err, -EINVAL, name, 0, 0, NULL, "no buffer");
	if (len > CDI_SPEC_MAX_BYTES)
		return cdi_problem_add(err, -EFBIG, name, 0, 0, NULL,
				       "the spec is %zu bytes, more than the limit of %u bytes",
				       len, CDI_SPEC_MAX_BYTES);
	notes = cdi_marks_new(false);
	if (!notes)
		return cdi_problem_add(err, -ENOMEM, name, 0, 0, NULL, "out of memory");

	r = parse(name, buf, len, notes, &root, err);
	if (r == -ENODATA)
		return cdi_problem_add(err, -ENODATA, name, 0, 0, NULL,
				       "no spec data (empty document)");
	if (r < 0)
		return r;

	r = cdi_spec_check(root, name, notes, flags, true, &problems);
	if (r == -EINVAL && !(flags & CDI_LOAD_FIRST_PROBLEM))
		recheck_with_positions(name, buf, len, flags, &problems);
	cdi_error_move(err, &problems);
	if (r < 0)
		return r;

	r = spec_new(name, root, ret);
	if (r < 0)
		return cdi_problem_add(err, r, name, 0, 0, NULL, "out of memory");
	return 0;
}

/* The message for a spec file that cannot be read. */
int cdi_spec_read_problem(struct cdi_error *err, const char *path, int r)
{
	switch (r) {
	case -EFBIG:
		return cdi_problem_add(err, r, path, 0, 0, NULL,
				       "the spec is larger than the limit of %u bytes",
				       CDI_SPEC_MAX_BYTES);
	case -EINVAL:
		return cdi_problem_add(err, r, path, 0, 0, NULL,
				       "not a regular file (a spec must be one)");
	case -EISDIR:
		return cdi_problem_add(err, r, path, 0, 0, NULL, "is a directory");
	default:
		return cdi_problem_add(err, r, path, 0, 0, NULL, "cannot read: %s", strerror(-r));
	}
}

_public_ int cdi_spec_load_file(const char *path, unsigned flags, cdi_spec **ret,
				struct cdi_error *err)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	int r;

	if (!path)
		return cdi_problem_add(err, -EINVAL, NULL, 0, 0, NULL, "no spec file named");
	if (!ret)
		return cdi_problem_add(err, -EINVAL, path, 0, 0, NULL, "no place for the spec");
	r = cdi_read_file(path, CDI_SPEC_MAX_BYTES, &buf, &len);
	if (r < 0)
		return cdi_spec_read_problem(err, path, r);
	return cdi_spec_load_buffer(path, buf, len, flags, ret, err);
}

_public_ int cdi_spec_validate_json(const json_t *spec, const char *name, unsigned flags,
				    struct cdi_error *err)
{
	/* Without coerce the check changes nothing in the tree. */
	return cdi_spec_check((json_t *)spec, name, NULL, flags, false, err);
}

PUBLIC_GETTER(const json_t *, cdi_spec_json, cdi_spec, root, NULL)
PUBLIC_GETTER(const char *, cdi_spec_path, cdi_spec, path, NULL)
PUBLIC_GETTER(const char *, cdi_spec_vendor, cdi_spec, vendor, NULL)
PUBLIC_GETTER(const char *, cdi_spec_class, cdi_spec, class_name, NULL)
PUBLIC_GETTER(const char *, cdi_spec_version, cdi_spec, version, NULL)
PUBLIC_GETTER(size_t, cdi_spec_device_count, cdi_spec, n_devices, 0)

_public_ const json_t *cdi_spec_device(const cdi_spec *spec, size_t i)
{
	return spec && i < spec->n_devices ? spec->devices[i] : NULL;
}

_public_ const char *cdi_spec_device_name(const cdi_spec *spec, size_t i)
{
	return spec && i < spec->n_devices ? spec->names[i] : NULL;
}
