/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers of the fuzz targets (fuzz.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "marks.h"

void fuzz_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

char *fuzz_memdup(const uint8_t *data, size_t size)
{
	/* malloc(0) may return NULL: keep one byte, still out of bounds for the parser. */
	char *p = malloc(size ? size : 1);

	if (!p)
		abort();
	if (size)
		memcpy(p, data, size);
	return p;
}

char *fuzz_strndup(const uint8_t *data, size_t size)
{
	char *p = malloc(size + 1);

	if (!p)
		abort();
	if (size)
		memcpy(p, data, size);
	p[size] = '\0';
	return p;
}

struct walk {
	bool any_order; /* object keys in any order */
	const struct cdi_marks *ma, *mb;
	char *why;
	size_t why_size;
};

static bool differ(struct walk *w, const char *path, const char *fmt, ...) _printf_(3, 4);
static bool differ(struct walk *w, const char *path, const char *fmt, ...)
{
	int n = snprintf(w->why, w->why_size, "%s: ", path);
	va_list ap;

	if (n >= 0 && (size_t)n < w->why_size) {
		va_start(ap, fmt);
		vsnprintf(w->why + n, w->why_size - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return false;
}

static bool same_marks(struct walk *w, const json_t *a, const json_t *b, const char *path)
{
	unsigned la = 0, ca = 0, lb = 0, cb = 0;
	bool fa, fb;

	if (!w->ma && !w->mb)
		return true;
	fa = cdi_marks_find(w->ma, a, &la, &ca);
	fb = cdi_marks_find(w->mb, b, &lb, &cb);
	if (fa != fb || la != lb || ca != cb)
		return differ(w, path, "mark %s%u:%u against %s%u:%u", fa ? "" : "none ", la, ca,
			      fb ? "" : "none ", lb, cb);
	return true;
}

static bool same(struct walk *w, const json_t *a, const json_t *b, const char *path)
{
	char sub[512];

	if (json_typeof(a) != json_typeof(b))
		return differ(w, path, "type %d against %d", json_typeof(a), json_typeof(b));
	if (!same_marks(w, a, b, path))
		return false;
	if (json_is_object(a)) {
		void *ia = json_object_iter((json_t *)a), *ib = json_object_iter((json_t *)b);

		if (json_object_size(a) != json_object_size(b))
			return differ(w, path, "%zu keys against %zu", json_object_size(a),
				      json_object_size(b));
		for (; w->any_order && ia; ia = json_object_iter_next((json_t *)a, ia)) {
			const char *key = json_object_iter_key(ia);
			const json_t *vb = json_object_get(b, key);

			snprintf(sub, sizeof(sub), "%s.%s", path, key);
			if (!vb)
				return differ(w, sub, "missing");
			if (!same(w, json_object_iter_value(ia), vb, sub))
				return false;
		}
		for (; ia && ib; ia = json_object_iter_next((json_t *)a, ia),
				 ib = json_object_iter_next((json_t *)b, ib)) {
			const char *key = json_object_iter_key(ia);

			snprintf(sub, sizeof(sub), "%s.%s", path, key);
			if (strcmp(key, json_object_iter_key(ib)) != 0)
				return differ(w, sub, "key order (against \"%s\")",
					      json_object_iter_key(ib));
			if (!same(w, json_object_iter_value(ia), json_object_iter_value(ib), sub))
				return false;
		}
		return true;
	}
	if (json_is_array(a)) {
		if (json_array_size(a) != json_array_size(b))
			return differ(w, path, "%zu items against %zu", json_array_size(a),
				      json_array_size(b));
		for (size_t i = 0; i < json_array_size(a); i++) {
			snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
			if (!same(w, json_array_get(a, i), json_array_get(b, i), sub))
				return false;
		}
		return true;
	}
	if (!json_equal((json_t *)a, (json_t *)b))
		return differ(w, path, "values differ");
	return true;
}

bool fuzz_json_same(const json_t *a, const json_t *b, const struct cdi_marks *ma,
		    const struct cdi_marks *mb, char *why, size_t why_size)
{
	struct walk w = { .ma = ma, .mb = mb, .why = why, .why_size = why_size };

	if (why_size)
		why[0] = '\0';
	return same(&w, a, b, "$");
}

bool fuzz_json_equal(const json_t *a, const json_t *b, char *why, size_t why_size)
{
	struct walk w = { .any_order = true, .why = why, .why_size = why_size };

	if (why_size)
		why[0] = '\0';
	return same(&w, a, b, "$");
}
