/* SPDX-License-Identifier: Apache-2.0 */
/* JSON to a jansson tree, with the same bounds and return rules as the YAML loader. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <cdi/spec.h>

#include "load.h"
#include "macro.h"
#include "problem.h"

/*
 * jansson bounds nesting at JSON_PARSER_MAX_DEPTH (2048), so this recursion
 * is bounded too; it stops at the first node beyond our own limits.
 */
static int check_bounds(const json_t *node, unsigned depth, size_t *nodes)
{
	const char *key;
	json_t *value;
	size_t i;
	int r;

	if (++*nodes > CDI_SPEC_MAX_NODES)
		return -E2BIG;
	if (!json_is_object(node) && !json_is_array(node))
		return 0;
	if (depth >= CDI_SPEC_MAX_DEPTH)
		return -ELOOP;
	if (json_is_object(node)) {
		json_object_foreach ((json_t *)node, key, value) {
			r = check_bounds(value, depth + 1, nodes);
			if (r < 0)
				return r;
		}
	} else {
		json_array_foreach (node, i, value) {
			r = check_bounds(value, depth + 1, nodes);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

static bool blank(const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!strchr(" \t\r\n", buf[i]) || buf[i] == '\0')
			return false;
	return true;
}

int cdi_json_load(const char *name, const char *buf, size_t len, json_t **ret_root,
		  struct cdi_error *err)
{
	_cleanup_json_ json_t *root = NULL;
	json_error_t error;
	size_t nodes = 0;
	int r;

	if (len > CDI_SPEC_MAX_BYTES)
		return cdi_problem_add(err, -EFBIG, name, 0, 0, NULL, "larger than %u bytes",
				       CDI_SPEC_MAX_BYTES);
	/* An empty file is an empty document, as it is for YAML. */
	if (blank(buf, len))
		return -ENODATA;

	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &error);
	if (!root) {
		int code = json_error_code(&error) == json_error_out_of_memory ? -ENOMEM : -EINVAL;

		/* jansson names its flag; say what is wrong, as the YAML loader does. */
		if (json_error_code(&error) == json_error_null_character)
			snprintf(error.text, sizeof(error.text),
				 "string contains a NUL character (\\u0000)");
		if (error.line > 0)
			return cdi_problem_add(err, code, name, (unsigned)error.line,
					       error.column > 0 ? (unsigned)error.column : 0, NULL,
					       "%s", error.text);
		return cdi_problem_add(err, code, name, 0, 0, NULL, "%s", error.text);
	}
	if (json_is_null(root))
		return -ENODATA;

	r = check_bounds(root, 0, &nodes);
	if (r == -ELOOP)
		return cdi_problem_add(err, -EINVAL, name, 0, 0, NULL,
				       "nested deeper than %u levels", CDI_SPEC_MAX_DEPTH);
	if (r < 0)
		return cdi_problem_add(err, -EINVAL, name, 0, 0, NULL,
				       "too large: more than %u nodes (the limit)",
				       CDI_SPEC_MAX_NODES);

	*ret_root = TAKE_PTR(root);
	return 0;
}
