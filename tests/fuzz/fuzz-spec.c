/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The whole spec path: loader (either format), validator, emitter. Properties:
 *   - a refused spec comes with at least one problem, each naming the file;
 *   - what --strict accepts, the default accepts too;
 *   - an accepted spec passes cdi_spec_validate_json as loaded (the coerced tree is the model);
 *   - it emits as YAML and as JSON, and each reads back as the same tree (keys in the schema's
 *     order, so compared in any order) and emits the same bytes again (a fixed point).
 */
#include <errno.h>
#include <string.h>

#include <cdi/spec.h>

#include "fuzz.h"

#define NAME "fuzz.yaml"

static void spec_freep(cdi_spec **s)
{
	cdi_spec_free(*s);
}

static int load(const char *buf, size_t size, unsigned flags, cdi_spec **ret)
{
	struct cdi_error err = { 0 };
	int r;

	r = cdi_spec_load_buffer(NAME, buf, size, flags, ret, &err);
	fuzz_assert(r == 0 || cdi_error_count(&err) > 0, "refused (%d) without a problem", r);
	for (size_t i = 0; i < cdi_error_count(&err); i++)
		fuzz_assert(cdi_problem_file(cdi_error_problem(&err, i)) &&
				    strcmp(cdi_problem_file(cdi_error_problem(&err, i)), NAME) == 0,
			    "problem %zu does not name the file: %s", i,
			    cdi_problem_text(cdi_error_problem(&err, i)));
	fuzz_assert(r < 0 || cdi_error_count(&err) == 0, "accepted with %zu problems: %s",
		    cdi_error_count(&err), cdi_error_message(&err));
	cdi_error_reset(&err);
	return r;
}

static void emit_and_reload(const json_t *tree, enum cdi_format format)
{
	_cleanup_(spec_freep) cdi_spec *again = NULL;
	_cleanup_free_ char *text = NULL, *text2 = NULL;
	struct cdi_error err = { 0 };
	size_t len = 0, len2 = 0;
	char why[1024];
	int r;

	r = cdi_spec_emit(tree, format, &text, &len, &err);
	fuzz_assert(r == 0, "a valid spec does not emit as %s: %s", format ? "JSON" : "YAML",
		    cdi_error_message(&err));
	r = cdi_spec_load_buffer(NAME, text, len, 0, &again, &err);
	fuzz_assert(r == 0, "emitted %s does not load: %s\n%s", format ? "JSON" : "YAML",
		    cdi_error_message(&err), text);
	fuzz_assert(fuzz_json_equal(tree, cdi_spec_json(again), why, sizeof(why)),
		    "emitted %s reads back different: %s\n%s", format ? "JSON" : "YAML", why, text);
	r = cdi_spec_emit(cdi_spec_json(again), format, &text2, &len2, &err);
	fuzz_assert(r == 0 && len == len2 && memcmp(text, text2, len) == 0,
		    "emitting the reloaded %s gives other bytes", format ? "JSON" : "YAML");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_(spec_freep) cdi_spec *spec = NULL, *strict = NULL;
	_cleanup_free_ char *buf = fuzz_memdup(data, size);
	struct cdi_error err = { 0 };
	int r, rs;

	r = load(buf, size, 0, &spec);
	rs = load(buf, size, CDI_LOAD_STRICT, &strict);
	fuzz_assert(rs < 0 || r == 0, "--strict accepts what the default refuses");
	if (r < 0)
		return 0;

	r = cdi_spec_validate_json(cdi_spec_json(spec), NAME, 0, &err);
	fuzz_assert(r == 0, "a loaded spec fails cdi_spec_validate_json: %s",
		    cdi_error_message(&err));
	fuzz_assert(cdi_minimum_version(cdi_spec_json(spec)), "no minimum version");
	emit_and_reload(cdi_spec_json(spec), CDI_FORMAT_YAML);
	emit_and_reload(cdi_spec_json(spec), CDI_FORMAT_JSON);
	return 0;
}
