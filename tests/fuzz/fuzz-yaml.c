/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The YAML fast path against the libyaml event path, its oracle (schema/yaml_fast.h): on any
 * text the fast path either declines (-EOPNOTSUPP, changing nothing) or gives exactly what
 * libyaml gives: the same tree (values, types, key order) and the same mark for every node;
 * -ENODATA from the fast path only where libyaml also finds an empty document. Without marks
 * (short strings are then shared) the fast path must build the same tree again.
 */
#include <errno.h>
#include <stdbool.h>

#include <cdi/error.h>

#include "fuzz.h"
#include "marks.h"
#include "yaml_events.h"
#include "yaml_fast.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_marks_ struct cdi_marks *me = cdi_marks_new(true);
	_cleanup_marks_ struct cdi_marks *mf = cdi_marks_new(true);
	_cleanup_json_ json_t *te = NULL, *tf = NULL, *tn = NULL;
	_cleanup_free_ char *buf = fuzz_memdup(data, size);
	json_t *const untouched = (json_t *)&te; /* any address no loader returns */
	struct cdi_error err = { 0 };
	char why[1024];
	int re, rf, rn;

	fuzz_assert(me && mf, "out of memory");
	tf = untouched;
	rf = cdi_yaml_load_fast(buf, size, &tf, mf);
	fuzz_assert(rf == 0 || rf == -ENODATA || rf == -EOPNOTSUPP, "fast path returned %d", rf);
	if (rf != 0) {
		fuzz_assert(tf == untouched, "fast path returned %d but set the tree", rf);
		tf = NULL;
	}
	re = cdi_yaml_load_events("fuzz", buf, size, &te, me, &err);
	fuzz_assert(re == 0 || cdi_error_count(&err) > 0 || re == -ENODATA,
		    "libyaml path returned %d without a problem", re);
	cdi_error_reset(&err);

	if (rf == -ENODATA)
		fuzz_assert(re == -ENODATA, "fast path: empty document, libyaml path: %d", re);
	if (rf != 0)
		return 0;
	fuzz_assert(re == 0, "fast path accepted what the libyaml path refuses (%d)", re);
	fuzz_assert(fuzz_json_same(te, tf, me, mf, why, sizeof(why)), "trees differ: %s", why);

	rn = cdi_yaml_load_fast(buf, size, &tn, NULL);
	fuzz_assert(rn == 0, "fast path without marks returned %d", rn);
	fuzz_assert(fuzz_json_same(te, tn, NULL, NULL, why, sizeof(why)),
		    "trees differ without marks: %s", why);
	return 0;
}
