/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Validation of a CDI spec held as a JSON tree, in two passes: decoding (check_decode.c),
 * then the rules (check_rules.c). This file runs them and reports what they find.
 *
 * Decoding: the tree is walked against one static description per CDI object (its fields,
 * their JSON types, which are required), as the reference's strict decoding does
 * (sigs.k8s.io/yaml UnmarshalStrict: YAML to JSON, then encoding/json with unknown fields
 * disallowed). Unknown fields, wrong types and numbers out of their Go type's range are
 * problems. With coerce, values are first converted as the reference's YAML-to-JSON step
 * converts them:
 *   - a number or boolean where a string belongs becomes a string: an integer in decimal, a
 *     real as Go's strconv.FormatFloat(v, 'g', -1, 32) (so 1.0 becomes "1" and 0.30 "0.3"),
 *     a boolean "true" or "false" (and that is still a problem where strictness asks for quotes;
 *     the conversion gives the rules, the minimum version and the messages the value the
 *     reference would have seen);
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

#include "check.h"
#include "check_decode.h"
#include "check_pass.h"
#include "check_rules.h"
#include "problem.h"

/* Beyond this many problems in one spec, only their number is reported. */
#define MAX_PROBLEMS 1000u

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
		.max_problems = flags & CDI_LOAD_FIRST_PROBLEM ? 1 : MAX_PROBLEMS,
	};
	_cleanup_json_ json_t *replaced = json_array();
	struct loc rloc = { 0, 0 };

	if (!replaced)
		return cdi_problem_add(err, -ENOMEM, file, 0, 0, NULL, "out of memory");
	c.replaced = replaced;
	if (!root)
		return cdi_problem_add(err, -EINVAL, file, 0, 0, NULL,
				       "no spec data (empty document)");
	rloc = loc_of(&c, root, rloc);
	if (!check_decode(&c, root, rloc) || c.r == -ENOMEM || c.done)
		return c.r;
	check_rules(&c, root, rloc);
	if (c.n_dropped && !(flags & CDI_LOAD_FIRST_PROBLEM))
		cdi_problem_add(err, -EINVAL, file, 0, 0, NULL, "%zu more problems not shown",
				c.n_dropped);
	return c.r;
}
