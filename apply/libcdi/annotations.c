/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CDI device requests carried in OCI annotations, "cdi.k8s.io/<plugin>_<id>": "v/c=a,v/c=b",
 * with the rules of the reference's pkg/cdi/annotations.go.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <cdi/annotations.h>
#include <cdi/names.h>

#include "macro.h"
#include "problem.h"
#include "strv.h"

#define ANNOTATION_NAME_MAX 63

static bool is_alnum(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* AnnotationKey's checks; name is plugin + "_" + device id with '/' as '_'. */
static int check_annotation_name(const char *name, struct cdi_error *err)
{
	size_t len = strlen(name);

	if (len > ANNOTATION_NAME_MAX)
		return cdi_fail(err, -EINVAL, "invalid plugin+deviceID \"%s\", too long", name);
	if (!is_alnum(name[0]))
		return cdi_fail(err, -EINVAL,
				"invalid name \"%s\", first '%c' should be alphanumeric", name,
				name[0]);
	for (size_t i = 1; i + 1 < len; i++)
		if (!is_alnum(name[i]) && name[i] != '_' && name[i] != '-' && name[i] != '.')
			return cdi_fail(err, -EINVAL, "invalid name \"%s\", invalid character '%c'",
					name, name[i]);
	if (!is_alnum(name[len - 1]))
		return cdi_fail(err, -EINVAL,
				"invalid name \"%s\", last '%c' should be alphanumeric", name,
				name[len - 1]);
	return 0;
}

_public_ int cdi_annotation_key(const char *plugin, const char *device_id, char **ret_key,
				struct cdi_error *err)
{
	_cleanup_free_ char *key = NULL;
	char *name;
	int r;

	if (!plugin || !*plugin)
		return cdi_fail(err, -EINVAL, "invalid plugin name, empty");
	if (!device_id || !*device_id)
		return cdi_fail(err, -EINVAL, "invalid deviceID, empty");
	if (!ret_key)
		return cdi_fail(err, -EINVAL, "no place for the annotation key");

	if (asprintf(&key, "%s%s_%s", CDI_ANNOTATION_PREFIX, plugin, device_id) < 0) {
		key = NULL;
		return cdi_fail(err, -ENOMEM, "out of memory");
	}
	name = key + strlen(CDI_ANNOTATION_PREFIX);
	for (char *p = name + strlen(plugin) + 1; *p; p++)
		if (*p == '/')
			*p = '_';
	r = check_annotation_name(name, err);
	if (r < 0)
		return r;
	*ret_key = TAKE_PTR(key);
	return 0;
}

_public_ int cdi_annotations_update(json_t *annotations, const char *plugin, const char *device_id,
				    const char *const *devices, size_t n_devices,
				    struct cdi_error *err)
{
	_cleanup_free_ char *key = NULL, *value = NULL;
	struct cdi_error sub = { 0 };
	size_t len = 0, at = 0;
	int r;

	if (!json_is_object(annotations))
		return cdi_fail(err, -EINVAL,
				"CDI annotation failed, annotations are not a JSON object");
	r = cdi_annotation_key(plugin, device_id, &key, &sub);
	if (r < 0)
		goto wrap;
	if (json_object_get(annotations, key))
		return cdi_fail(err, -EEXIST, "CDI annotation failed, key \"%s\" used", key);

	/* AnnotationValue: every device must be a qualified name; joined with ','. */
	for (size_t i = 0; i < n_devices; i++) {
		_cleanup_free_ char *vendor = NULL, *class_name = NULL, *name = NULL;

		if (!devices || !devices[i]) {
			r = cdi_fail(&sub, -EINVAL, "unqualified device \"\", missing vendor");
			goto wrap;
		}
		r = cdi_parse_qualified_name(devices[i], &vendor, &class_name, &name, &sub);
		if (r < 0)
			goto wrap;
		len += strlen(devices[i]) + 1;
	}
	value = malloc(len + 1);
	if (!value)
		return cdi_fail(err, -ENOMEM, "out of memory");
	value[0] = '\0';
	for (size_t i = 0; i < n_devices; i++) {
		size_t l = strlen(devices[i]);

		if (i > 0)
			value[at++] = ',';
		memcpy(value + at, devices[i], l);
		at += l;
	}
	value[at] = '\0';
	if (json_object_set_new(annotations, key, json_string(value)) < 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	return 0;

wrap:
	/* The reference wraps every cause: "CDI annotation failed: <cause>". */
	for (size_t i = 0; i < cdi_error_count(&sub); i++)
		cdi_fail(err, r, "CDI annotation failed: %s",
			 cdi_problem_message(cdi_error_problem(&sub, i)));
	if (cdi_error_count(&sub) == 0)
		cdi_fail(err, r, "CDI annotation failed");
	cdi_error_reset(&sub);
	return r;
}

_public_ int cdi_annotations_parse(const json_t *annotations, char ***ret_devices, size_t *ret_n,
				   struct cdi_error *err)
{
	_cleanup_strv_free_ char **devs = NULL;
	_cleanup_free_ const char **keys = NULL;
	size_t n_keys = 0, n = 0, cap = 0;
	const char *key;
	json_t *value;

	if (!ret_devices)
		return cdi_fail(err, -EINVAL, "no place for the parsed devices");
	if (annotations && !json_is_null(annotations) && !json_is_object(annotations))
		return cdi_fail(err, -EINVAL, "annotations are not a JSON object");

	/* The reference walks a Go map (random order); we take the keys in byte order, as
	 * nvidia-container-runtime does, so the result is reproducible. */
	keys = malloc((json_object_size(annotations) + 1) * sizeof(*keys));
	if (!keys)
		return cdi_fail(err, -ENOMEM, "out of memory");
	json_object_foreach ((json_t *)annotations, key, value)
		if (strncmp(key, CDI_ANNOTATION_PREFIX, strlen(CDI_ANNOTATION_PREFIX)) == 0)
			keys[n_keys++] = key;
	if (n_keys > 1)
		qsort(keys, n_keys, sizeof(*keys), strv_cmp);

	for (size_t i = 0; i < n_keys; i++) {
		const char *s = json_string_value(json_object_get(annotations, keys[i]));

		if (!s)
			return cdi_problem_add(err, -EINVAL, NULL, 0, 0, NULL,
					       "annotation \"%s\" is not a string", keys[i]);
		/* strings.Split: "" gives one empty item, which is not a qualified name. */
		for (;;) {
			const char *comma = strchr(s, ',');
			size_t len = comma ? (size_t)(comma - s) : strlen(s);
			_cleanup_free_ char *item = strndup(s, len);

			if (!item)
				return cdi_fail(err, -ENOMEM, "out of memory");
			if (!cdi_is_qualified_name(item))
				return cdi_fail(err, -EINVAL, "invalid CDI device name \"%s\"",
						item);
			if (n + 2 > cap) {
				size_t ncap = cap ? cap * 2 : 8;
				char **grown = realloc(devs, ncap * sizeof(*grown));

				if (!grown)
					return cdi_fail(err, -ENOMEM, "out of memory");
				devs = grown;
				cap = ncap;
			}
			devs[n++] = TAKE_PTR(item);
			devs[n] = NULL;
			if (!comma)
				break;
			s = comma + 1;
		}
	}
	if (!devs) {
		devs = calloc(1, sizeof(*devs));
		if (!devs)
			return cdi_fail(err, -ENOMEM, "out of memory");
	}
	*ret_devices = TAKE_PTR(devs);
	if (ret_n)
		*ret_n = n;
	return 0;
}
