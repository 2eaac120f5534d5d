/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The JSON loader (cdi_json_load: jansson, duplicate keys refused, depth and node caps) and
 * cdi-apply's serialiser (cdi_json_dump): a loaded tree dumped compact, indented and with tabs
 * reads back as the same tree, and without tabs the text is what jansson's json_dumps writes.
 */
#include <errno.h>
#include <string.h>

#include <cdi/error.h>

#include "fuzz.h"
#include "libcdi/json_dump.h"
#include "load.h"

static void round_trip(const json_t *root, unsigned indent, bool tab)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_json_ json_t *again = NULL;
	json_error_t jerr;
	char why[1024];
	size_t len = 0;

	text = cdi_json_dump(root, indent, tab, &len);
	fuzz_assert(text, "cdi_json_dump failed");
	fuzz_assert(strlen(text) == len, "cdi_json_dump: length %zu, text %zu", len, strlen(text));
	again = json_loadb(text, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
	fuzz_assert(again, "dump (indent %u%s) does not read back: %s", indent, tab ? ", tabs" : "",
		    jerr.text);
	fuzz_assert(fuzz_json_same(root, again, NULL, NULL, why, sizeof(why)),
		    "dump (indent %u%s) reads back different: %s", indent, tab ? ", tabs" : "",
		    why);
	if (!tab) {
		size_t flags = JSON_ENCODE_ANY | (indent ? JSON_INDENT(indent) : JSON_COMPACT);
		_cleanup_json_text_ char *want = json_dumps(root, flags);

		fuzz_assert(want, "json_dumps failed");
		fuzz_assert(strcmp(text, want) == 0,
			    "dump (indent %u) differs from json_dumps:\n%s\n%s", indent, text,
			    want);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_free_ char *buf = fuzz_memdup(data, size);
	_cleanup_json_ json_t *root = NULL;
	struct cdi_error err = { 0 };
	int r;

	r = cdi_json_load("fuzz", buf, size, &root, &err);
	fuzz_assert(r == 0 || r == -ENODATA || cdi_error_count(&err) > 0, "%d without a problem",
		    r);
	cdi_error_reset(&err);
	if (r < 0)
		return 0;
	round_trip(root, 0, false);
	round_trip(root, 2, false);
	round_trip(root, 1, true);
	return 0;
}
