/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The YAML fast path (schema/yaml_fast.c) against the libyaml event path (yaml_load.c), which
 * is the oracle: whenever the fast path accepts a text, the tree (values, types, key order) and
 * the position of every node must be what the libyaml path gives; when the libyaml path fails,
 * the fast path must decline. Inputs: every spec in the tree (corpus, golden files, examples),
 * hand-picked corner cases, thousands of random CDI-shaped trees written by cdi_spec_emit and
 * by a go-yaml-like writer with random styles, and byte mutations of the golden files.
 * Seed: CDI_FASTPATH_SEED (default fixed, so failures reproduce).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cdi/spec.h>

#include "load.h"
#include "macro.h"
#include "marks.h"
#include "yaml_events.h"
#include "yaml_fast.h"

struct stats {
	unsigned fast;	   /* the fast path accepted: compared */
	unsigned declined; /* the fast path declined, libyaml loaded it */
	unsigned errors;   /* the fast path declined, libyaml failed */
	unsigned empty;	   /* both: -ENODATA */
};

static void report(const char *what, const struct stats *s)
{
	fprintf(stderr,
		"fastpath %s: %u fast, %u declined (loaded by libyaml), %u errors, %u empty\n",
		what, s->fast, s->declined, s->errors, s->empty);
}

/* Same values, same types, same key order, same marks, all the way down. */
static void same_tree(const char *what, const json_t *a, const json_t *b, struct cdi_marks *ma,
		      struct cdi_marks *mb, const char *path)
{
	unsigned la = 0, ca = 0, lb = 0, cb = 0;
	bool fa, fb;

	cr_assert_eq(json_typeof(a), json_typeof(b), "%s: %s: type %d, fast path %d", what, path,
		     json_typeof(a), json_typeof(b));
	fa = cdi_marks_find(ma, a, &la, &ca);
	fb = cdi_marks_find(mb, b, &lb, &cb);
	cr_assert(fa == fb && la == lb && ca == cb, "%s: %s: mark %s%u:%u, fast path %s%u:%u", what,
		  path, fa ? "" : "none ", la, ca, fb ? "" : "none ", lb, cb);
	if (json_is_object(a)) {
		void *ia = json_object_iter((json_t *)a), *ib = json_object_iter((json_t *)b);

		cr_assert_eq(json_object_size(a), json_object_size(b), "%s: %s: object sizes", what,
			     path);
		for (; ia && ib; ia = json_object_iter_next((json_t *)a, ia),
				 ib = json_object_iter_next((json_t *)b, ib)) {
			char sub[256];

			cr_assert_str_eq(json_object_iter_key(ia), json_object_iter_key(ib),
					 "%s: %s: key order", what, path);
			snprintf(sub, sizeof(sub), "%s.%s", path, json_object_iter_key(ia));
			same_tree(what, json_object_iter_value(ia), json_object_iter_value(ib), ma,
				  mb, sub);
		}
	} else if (json_is_array(a)) {
		cr_assert_eq(json_array_size(a), json_array_size(b), "%s: %s: array sizes", what,
			     path);
		for (size_t i = 0; i < json_array_size(a); i++) {
			char sub[256];

			snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
			same_tree(what, json_array_get(a, i), json_array_get(b, i), ma, mb, sub);
		}
	} else {
		cr_assert(json_equal((json_t *)a, (json_t *)b), "%s: %s: values differ", what,
			  path);
	}
}

/* Load text both ways and compare; returns the fast path's result. */
static int compare(const char *what, const char *buf, size_t len, struct stats *s)
{
	struct cdi_marks *me = cdi_marks_new(true), *mf = cdi_marks_new(true);
	struct cdi_error err = { 0 };
	json_t *te = NULL, *tf = NULL;
	int re, rf;

	cr_assert(me && mf);
	re = cdi_yaml_load_events(what, buf, len, &te, me, &err);
	rf = cdi_yaml_load_fast(buf, len, &tf, mf);
	cr_assert(rf == 0 || rf == -ENODATA || rf == -EOPNOTSUPP, "%s: fast path returned %d", what,
		  rf);
	if (rf == -ENODATA) {
		cr_assert_eq(re, -ENODATA, "%s: fast path says empty, libyaml %d (%s)", what, re,
			     cdi_error_message(&err));
		s->empty++;
	} else if (rf == 0) {
		json_t *tn = NULL;

		cr_assert_eq(re, 0, "%s: fast path accepted, libyaml failed: %s", what,
			     cdi_error_message(&err));
		same_tree(what, te, tf, me, mf, "$");
		/* Without marks, short strings are shared: the tree must not change. */
		cr_assert_eq(cdi_yaml_load_fast(buf, len, &tn, NULL), 0, "%s: no marks", what);
		same_tree(what, te, tn, NULL, NULL, "$");
		json_decref(tn);
		s->fast++;
	} else if (re == 0 || re == -ENODATA) {
		s->declined++;
	} else {
		s->errors++;
	}
	json_decref(te);
	json_decref(tf);
	cdi_marks_free(me);
	cdi_marks_free(mf);
	cdi_error_reset(&err);
	return rf;
}

static int compare_str(const char *text, struct stats *s)
{
	return compare(text, text, strlen(text), s);
}

/* A file's text with @ROOT@ (golden files) replaced by a path. */
static char *read_text(const char *path, size_t *ret_len)
{
	char *buf = NULL, *out, *at;
	size_t len = 0, o = 0;

	cr_assert_eq(cdi_read_file(path, CDI_SPEC_MAX_BYTES, &buf, &len), 0, "%s", path);
	out = malloc(2 * len + 1);
	cr_assert_not_null(out);
	for (size_t i = 0; i < len;) {
		at = memmem(buf + i, len - i, "@ROOT@", 6);
		if (at != buf + i) {
			out[o++] = buf[i++];
			continue;
		}
		memcpy(out + o, "/run/root", 9);
		o += 9;
		i += 6;
	}
	out[o] = '\0';
	free(buf);
	*ret_len = o;
	return out;
}

static void compare_dir(const char *dir, struct stats *s, unsigned *ret_files)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	cr_assert_not_null(d, "%s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		char path[512];
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		cr_assert_eq(stat(path, &st), 0, "%s", path);
		if (S_ISDIR(st.st_mode)) {
			compare_dir(path, s, ret_files);
		} else if (S_ISREG(st.st_mode)) {
			size_t len;
			char *text = read_text(path, &len);

			compare(path, text, len, s);
			free(text);
			(*ret_files)++;
		}
	}
	closedir(d);
}

Test(fastpath, every_spec_in_the_tree)
{
	struct stats s = { 0 }, golden = { 0 };
	unsigned files = 0, golden_files = 0;

	compare_dir("tests/corpus/specs", &s, &files);
	compare_dir("examples", &s, &files);
	compare_dir("tests/golden", &golden, &golden_files);
	report("corpus and examples", &s);
	report("golden", &golden);
	cr_expect_gt(files, 100);
	/* The generator's own output is what the fast path is for. */
	cr_expect_eq(golden.fast, golden_files, "golden files: %u of %u on the fast path",
		     golden.fast, golden_files);
	cr_expect_gt(s.fast, 0);
}

/* Texts that must take the fast path, with the marks libyaml gives. */
Test(fastpath, accepted_corner_cases)
{
	static const char *const docs[] = {
		"a: 1\n",
		"a: 1",
		"---\na: 1\n",
		"--- # header\na: 1\n",
		"# c\n\n---\n\n# c\na: 1\n",
		"a:\n- 1\n- 2\nb: x\n",
		"a:\n  - 1\n  - 2\nb: x\n",
		"a:\n    -   x: 1\n        y: 2\n    -   z\n",
		"- a: 1\n  b: 2\n- c\n-\n- - \n",
		"- - - x\n    - y\n  - z: 1\n    w: 2\n- v\n",
		"-\n  - x\n  -\n-\n",
		"a:\nb:\n  c:\n  d: ~\n",
		"\"q\": \"a\\\"b\\\\c\\n\\t\\x41\\u00e9\\U0001F600\\N\\_\\L\\P\\/\\ \"\n",
		"e: \"\\a\\b\\v\\f\\r\\e\\x7f\\u0001\\U0010FFFF\\t\"\n",
		"'s': 'it''s'\nt: ''''\nu: ''\nv: \"\"\n",
		"k : v\n\"k2\"  : 'v'\n",
		"a: b # c\nd: e#f\ng: h:i\nj: -k\nl: --m\n",
		"é: ü\nx: 日本 # c\n\"ö\": \"ä\"\ny:\n- 😀: 1\n  z: \"😀\"\n",
		"n: 1\nf: 1.5\ne: 1e3\nx: 0x1F\no: 0o17\nl: 017\nu: 1_000\ni: .inf\nm: -.Inf\nnan: "
		".nan\nb: true\nB: False\nnu: null\nt: ~\nneg: "
		"-9223372036854775808\ns: 1.2.3\n",
		"a: [x\n", /* a plain scalar that starts with '[' is declined, see below */
		"  a: 1\n  b:\n    c: 2\n",
		"a: 1\n   # indented comment\nb: 2\n# c\n",
		"a: 1   \nb: 'x'   \n",
		"a: \"\"\nb: ''\n",
		"a: x\n\n\n",
		"\n\na: x",
	};
	struct stats s = { 0 };

	for (size_t i = 0; i < ELEMENTSOF(docs); i++) {
		int r = compare_str(docs[i], &s);

		if (strcmp(docs[i], "a: [x\n") != 0)
			cr_expect_eq(r, 0, "not on the fast path:\n%s", docs[i]);
	}
	report("accepted corner cases", &s);
}

/* Texts outside the subset: the fast path declines, the libyaml path decides. */
Test(fastpath, declined_corner_cases)
{
	static const char *const docs[] = {
		"a: {b: 1}\n",
		"a: [1]\n",
		"a: &x 1\nb: *x\n",
		"a: !!str 1\n",
		"<<: {a: 1}\n",
		"a: |\n  x\n",
		"a: >\n  x\n",
		"a: x\n  y\n",
		"a: \"x\n  y\"\n",
		"a:\tx\n",
		"\ta: x\n",
		"? a\n: b\n",
		"a: 1\n...\n",
		"a: 1\n---\nb: 2\n",
		"%YAML 1.1\n---\na: 1\n",
		"a: 1\r\nb: 2\r\n",
		"\uFEFFa: 1\n", /* a BOM */
		"a: 1\na: 2\n",
		"a: b: c\n",
		"a: 1\n- b\n",
		"- a\nb: 1\n",
		"a: \"\\0\"\n",
		"a: \"\\x00\"\n",
		"a: \"\\ud800\"\n",
		"a: \"\\q\"\n",
		"a: \"\\'\"\n",
		"a: \"x\" y\n",
		"a: 'x'y\n",
		"a: \xc3\n",
		"a: \x01\n",
		"a: \x7f\n",
		"a: \xc2\x85\n",
		"1: x\n",
		"true: x\n",
		"~: x\n",
		"just a scalar\n",
		"~\n",
		"a: - x\n",
		"a: @x\n",
		"a: `x\n",
		"a: %x\n",
		"a:\n  b\n",
		"a: 1\n b: 2\n",
		/* beyond int64: the libyaml path notes it as a number, not a string */
		"big: 18446744073709551615\n",
	};
	struct stats s = { 0 };

	for (size_t i = 0; i < ELEMENTSOF(docs); i++)
		cr_expect_eq(compare_str(docs[i], &s), -EOPNOTSUPP, "took the fast path:\n%s",
			     docs[i]);
	report("declined corner cases", &s);
}

Test(fastpath, empty_documents_agree)
{
	static const char *const docs[] = {
		"", "\n", "  \n\n", "# only a comment\n", "---\n", "--- # c\n", "# c\n---\n# c\n"
	};
	struct stats s = { 0 };

	for (size_t i = 0; i < ELEMENTSOF(docs); i++)
		cr_expect_eq(compare_str(docs[i], &s), -ENODATA, "%s", docs[i]);
	/* No buffer at all: libyaml's parser refuses a NULL input, the fast path reads nothing. */
	json_t *root = NULL;

	cr_expect_eq(cdi_yaml_load_fast(NULL, 0, &root, NULL), -ENODATA);
}

/* Depth and node bounds: beyond them the fast path leaves the error to libyaml. */
Test(fastpath, bounds)
{
	struct stats s = { 0 };
	char *doc = malloc(200 * 70);
	size_t o = 0;

	cr_assert_not_null(doc);
	for (unsigned depth = 62; depth <= 66; depth++) {
		o = 0;
		for (unsigned i = 0; i < depth; i++)
			o += (size_t)sprintf(doc + o, "%*sk:\n", (int)i, "");
		o += (size_t)sprintf(doc + o, "%*sv: 1\n", (int)depth, "");
		compare("deep", doc, o, &s);
	}
	free(doc);

	/* Long keys (libyaml gives up on simple keys past 1024 characters) and long lines. */
	doc = malloc(100000);
	cr_assert_not_null(doc);
	for (size_t n = 900; n <= 1100; n += 100) {
		memset(doc, 'k', n);
		memcpy(doc + n, ": v\n", 4);
		compare("long key", doc, n + 4, &s);
	}
	memcpy(doc, "k: ", 3);
	memset(doc + 3, 'v', 99990);
	compare("long line", doc, 99993, &s);
	free(doc);
	report("bounds", &s);
	cr_expect_gt(s.fast, 0);
	cr_expect_gt(s.errors, 0);

	/* A root sequence and n items: n + 1 nodes, at and just over the budget. */
	for (size_t n = CDI_SPEC_MAX_NODES - 1; n <= CDI_SPEC_MAX_NODES; n++) {
		struct stats b = { 0 };

		doc = malloc(4 * n);
		cr_assert_not_null(doc);
		for (size_t i = 0; i < n; i++)
			memcpy(doc + 4 * i, "- x\n", 4);
		compare("node budget", doc, 4 * n, &b);
		cr_expect_eq(n < CDI_SPEC_MAX_NODES ? b.fast : b.errors, 1, "%zu items", n);
		free(doc);
	}
}

/* Random numbers: xorshift64*, seeded for reproducibility. */
static uint64_t rng_state;

static void rng_seed(void)
{
	const char *e = getenv("CDI_FASTPATH_SEED");

	rng_state = e ? strtoull(e, NULL, 0) : 0x9e3779b97f4a7c15ull;
	if (!rng_state)
		rng_state = 1;
}

static unsigned rnd(unsigned n)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return n ? (unsigned)((rng_state * 0x2545f4914f6cdd1dull) >> 33) % n : 0;
}

/* clang-format off */
static const char *const nasty[] = {
    "",	       " ",	   "a",	       "true",	   "False",    "yes",	   "no",      "on",
    "null",    "~",	   "NULL",     "0",	   "1",	       "-1",	   "+1",      "0x1F",
    "0o17",    "017",	   "1e3",      ".5",	   "1_000",    ".inf",	   "-.Inf",   ".nan",
    "1.0",     "0b101",	   "-",	       "--",	   "---",      "...",	   "- a",     "a: b",
    "a:b",     ":",	   "::",       "a:",	   "#",	       "a #b",	   "a#b",     "#a",
    "'",       "\"",	   "''",       "a'b",	   "a\"b",     "\\",	   "\\n",     "\n",
    "a\nb",    "\t",	   "a\tb",     "é",	   "日本",     "😀",	   "\u00a0",  "\u2028",
    "\x01",    "\x7f",	   "\r",       "[",	   "]",	       "{}",	   "[]",      "{a",
    "&a",      "*a",	   "!a",       "!!str",	   "|",	       ">",	   "?",	      "? a",
    "%",       "@",	   "`",	       "<<",	   "=",	       "a=b",	   "A=1",     "/dev/nvidia0",
    "/usr/lib/x86_64-linux-gnu/libcuda.so.1", "rw,nosuid", "  lead", "trail  ", "a  b", "2:0",
    "GPU-8ec4c1a2-3b5c-4d5e-8f90-123456789abc", "nvidia.com/gpu", "\xc2\x85", "\xef\xbb\xbf",
    "a,b",     "x]",	   "x}",       "k: v # c", "-x",	"--flag",  "0.5.0",   "1:2:3",
};
/* clang-format on */

/* What real specs hold: plain in any style. */
/* clang-format off */
static const char *const tame[] = {
    "/dev/nvidia0", "/dev/nvidia-caps/nvidia-cap1", "nvidia-ctk", "--link", "hook", "ro",
    "nosuid", "bind", "NVIDIA_VISIBLE_DEVICES=void", "/usr/lib/x86_64-linux-gnu/libcuda.so.570",
    "c", "createContainer", "update-ldcache", "--folder", "0", "GPU-2:0", "a b c", "x:y",
};
/* clang-format on */

static char *random_string(char *buf, size_t size)
{
	size_t o = 0;
	unsigned parts = 1 + rnd(3);

	buf[0] = '\0';
	if (rnd(2)) {
		snprintf(buf, size, "%s", tame[rnd(ELEMENTSOF(tame))]);
		return buf;
	}
	for (unsigned i = 0; i < parts; i++) {
		const char *p = nasty[rnd(ELEMENTSOF(nasty))];
		size_t n = strlen(p);

		if (o + n + 1 >= size)
			break;
		memcpy(buf + o, p, n + 1);
		o += n;
	}
	return buf;
}

static json_t *random_scalar(void)
{
	char s[128];

	switch (rnd(12)) {
	case 0:
		return json_integer((json_int_t)rnd(100000) - 5000);
	case 1:
		return json_real((double)rnd(100000) / 7.0);
	case 2:
		return json_boolean(rnd(2));
	case 3:
		return json_null();
	default:
		return json_string(random_string(s, sizeof(s)));
	}
}

static json_t *random_node(unsigned depth);

static json_t *random_object(unsigned depth, const char *const *fields, size_t n_fields)
{
	json_t *o = json_object();
	unsigned n = rnd(100) ? 1 + rnd(4) : 0;
	char k[128];

	for (unsigned i = 0; i < n; i++) {
		const char *key = n_fields && rnd(4) ? fields[rnd((unsigned)n_fields)]
						     : random_string(k, sizeof(k));

		json_object_set_new(o, key, random_node(depth + 1));
	}
	return o;
}

static json_t *random_node(unsigned depth)
{
	unsigned n;
	json_t *a;

	if (depth > 5 || rnd(3))
		return random_scalar();
	if (rnd(2))
		return random_object(depth, NULL, 0);
	a = json_array();
	n = rnd(100) ? 1 + rnd(3) : 0;
	for (unsigned i = 0; i < n; i++)
		json_array_append_new(a, random_node(depth + 1));
	return a;
}

static json_t *random_strings(void)
{
	json_t *a = json_array();
	char s[128];
	unsigned n = rnd(100) ? 1 + rnd(3) : 0;

	for (unsigned i = 0; i < n; i++)
		json_array_append_new(a, rnd(8) ? json_string(random_string(s, sizeof(s)))
						: random_scalar());
	return a;
}

static json_t *random_edits(void)
{
	static const char *const node_fields[] = { "path",  "hostPath", "type",	       "major",
						   "minor", "fileMode", "permissions", "uid" };
	json_t *e = json_object(), *a;
	char s[128];
	unsigned n;

	if (rnd(2))
		json_object_set_new(e, "env", random_strings());
	if (rnd(2)) {
		a = json_array();
		n = 1 + rnd(3);
		for (unsigned i = 0; i < n; i++) {
			json_t *d = random_object(2, node_fields, ELEMENTSOF(node_fields));

			json_object_set_new(d, "path", json_string(random_string(s, sizeof(s))));
			json_array_append_new(a, d);
		}
		json_object_set_new(e, "deviceNodes", a);
	}
	if (rnd(2)) {
		a = json_array();
		n = 1 + rnd(2);
		for (unsigned i = 0; i < n; i++)
			json_array_append_new(a, json_pack("{s:s,s:s,s:o}", "hostPath",
							   random_string(s, sizeof(s)),
							   "containerPath", "/x", "options",
							   random_strings()));
		json_object_set_new(e, "mounts", a);
	}
	if (rnd(4) == 0)
		json_object_set_new(e, "hooks",
				    json_pack("[{s:s,s:s,s:o}]", "hookName", "createContainer",
					      "path", "/bin/hook", "args", random_strings()));
	if (rnd(5) == 0)
		json_object_set_new(e, random_string(s, sizeof(s)), random_node(2));
	return e;
}

static json_t *random_spec(void)
{
	json_t *spec = json_object(), *devs = json_array(), *ann;
	char s[128], k[128];
	unsigned n = rnd(5);

	json_object_set_new(spec, "cdiVersion", json_string(rnd(2) ? "0.5.0" : "0.3.0"));
	json_object_set_new(spec, "kind", json_string("nvidia.com/gpu"));
	if (rnd(3) == 0) {
		ann = json_object();
		for (unsigned i = rnd(4); i > 0; i--)
			json_object_set_new(ann, random_string(k, sizeof(k)),
					    json_string(random_string(s, sizeof(s))));
		json_object_set_new(spec, "annotations", ann);
	}
	for (unsigned i = 0; i < n; i++)
		json_array_append_new(devs,
				      json_pack("{s:s,s:o}", "name", random_string(s, sizeof(s)),
						"containerEdits", random_edits()));
	json_object_set_new(spec, "devices", devs);
	if (rnd(2))
		json_object_set_new(spec, "containerEdits", random_edits());
	return spec;
}

/* A growing text buffer for the go-yaml-like writer. */
struct text {
	char *s;
	size_t len, cap;
};

static void put(struct text *t, const char *s, size_t n)
{
	if (t->len + n + 1 > t->cap) {
		t->cap = (t->len + n + 1) * 2;
		t->s = realloc(t->s, t->cap);
		cr_assert_not_null(t->s);
	}
	memcpy(t->s + t->len, s, n);
	t->len += n;
	t->s[t->len] = '\0';
}

static void puts_(struct text *t, const char *s)
{
	put(t, s, strlen(s));
}

static void indent(struct text *t, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		put(t, " ", 1);
}

/* Write strings plain whatever they hold (in a quarter of the documents). */
static bool reckless;

static bool looks_plain(const char *s)
{
	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '/'))
		return false;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/_.=-",
			    *s))
			return false;
	return true;
}

/* A scalar in a random style; the oracle decides what the text means, valid or not. */
static void write_scalar(struct text *t, const json_t *v)
{
	char buf[64];
	const char *s;
	size_t len;

	switch (json_typeof(v)) {
	case JSON_INTEGER:
		snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
		puts_(t, buf);
		return;
	case JSON_REAL:
		snprintf(buf, sizeof(buf), "%.17g", json_real_value(v));
		puts_(t, buf);
		return;
	case JSON_TRUE:
		puts_(t, rnd(2) ? "true" : "True");
		return;
	case JSON_FALSE:
		puts_(t, "false");
		return;
	case JSON_NULL:
		puts_(t, rnd(2) ? "null" : "");
		return;
	default:
		break;
	}
	s = json_string_value(v);
	len = json_string_length(v);
	switch (reckless ? rnd(6) : looks_plain(s) ? rnd(2) : 1 + rnd(5)) {
	case 0: /* plain, as is: whatever that means */
		put(t, s, len);
		return;
	case 1: /* single-quoted */
		put(t, "'", 1);
		for (size_t i = 0; i < len; i++)
			put(t, s[i] == '\'' ? "''" : s + i, s[i] == '\'' ? 2 : 1);
		put(t, "'", 1);
		return;
	default: /* double-quoted, escaping what must be */
		put(t, "\"", 1);
		for (size_t i = 0; i < len; i++) {
			/* Now and then an escape of any kind (invalid ones in reckless documents).
			 */
			static const char *const escapes[] = {
				"\\x7f",       "\\xe9",	      "\\xE9", "\\u00E9", "\\ufeff",
				"\\U0001F600", "\\N",	      "\\_",   "\\L",	  "\\P",
				"\\/",	       "\\ ",	      "\\e",   "\\a",	  "\\t",
				"\\\t",	       "\\'",	      "\\0",   "\\q",	  "\\x00",
				"\\uD800",     "\\U00110000", "\\x4",  "\\xg0"
			};
			unsigned char c = (unsigned char)s[i];

			if (rnd(25) == 0)
				puts_(t, escapes[rnd(reckless ? ELEMENTSOF(escapes) : 15)]);

			if (c == '"' || c == '\\') {
				put(t, "\\", 1);
				put(t, s + i, 1);
			} else if (c == '\n') {
				puts_(t, "\\n");
			} else if (c < 0x20 || c == 0x7f) {
				snprintf(buf, sizeof(buf), rnd(2) ? "\\x%02x" : "\\u%04X", c);
				puts_(t, buf);
			} else {
				put(t, s + i, 1);
			}
		}
		put(t, "\"", 1);
		return;
	}
}

static void maybe_comment(struct text *t)
{
	if (rnd(10) == 0)
		puts_(t, rnd(2) ? " # note: x" : "   ");
	put(t, "\n", 1);
	if (rnd(15) == 0)
		puts_(t, rnd(2) ? "\n" : "    # a comment line\n");
}

static void write_node(struct text *t, const json_t *v, unsigned col, unsigned step);

/* A key with its value; the line is open at col. */
static void write_entry(struct text *t, const char *key, const json_t *v, unsigned col,
			unsigned step)
{
	json_t *k = json_string(key);

	write_scalar(t, k);
	json_decref(k);
	puts_(t, rnd(20) ? ":" : " :");
	if ((json_is_object(v) && json_object_size(v)) ||
	    (json_is_array(v) && json_array_size(v))) {
		maybe_comment(t);
		/* go-yaml indents sequences under their key, libyaml's emitter does not. */
		if (json_is_array(v) && rnd(2)) {
			indent(t, col);
			write_node(t, v, col, step);
		} else {
			indent(t, col + step);
			write_node(t, v, col + step, step);
		}
		return;
	}
	if (json_is_object(v) || json_is_array(v)) {
		puts_(t, json_is_object(v) ? " {}\n" : " []\n");
		return;
	}
	put(t, " ", 1);
	write_scalar(t, v);
	maybe_comment(t);
}

/* A node whose first line is open at col (already indented). */
static void write_node(struct text *t, const json_t *v, unsigned col, unsigned step)
{
	if (json_is_object(v)) {
		const char *key;
		json_t *value;
		bool first = true;

		json_object_foreach ((json_t *)v, key, value) {
			if (!first)
				indent(t, col);
			first = false;
			write_entry(t, key, value, col, step);
		}
	} else if (json_is_array(v)) {
		size_t i;
		json_t *item;

		json_array_foreach (v, i, item) {
			unsigned gap = 1 + (rnd(8) == 0 ? rnd(3) : 0);

			if (i)
				indent(t, col);
			puts_(t, "-");
			if ((json_is_object(item) && json_object_size(item)) ||
			    (json_is_array(item) && json_array_size(item))) {
				if (json_is_object(item) && rnd(4)) {
					indent(t, gap);
					write_node(t, item, col + 1 + gap, step);
				} else {
					put(t, "\n", 1);
					indent(t, col + step);
					write_node(t, item, col + step, step);
				}
			} else if (json_is_object(item) || json_is_array(item)) {
				puts_(t, json_is_object(item) ? " {}\n" : " []\n");
			} else {
				indent(t, gap);
				write_scalar(t, item);
				maybe_comment(t);
			}
		}
	} else {
		write_scalar(t, v);
		put(t, "\n", 1);
	}
}

static char *goyaml_like(const json_t *spec, size_t *ret_len)
{
	struct text t = { 0 };

	reckless = rnd(4) == 0;
	if (rnd(2))
		puts_(&t, rnd(4) ? "---\n" : "--- # generated\n");
	write_node(&t, spec, 0, 1 + rnd(4));
	if (rnd(4) == 0 && t.len)
		t.s[--t.len] = '\0'; /* no final newline */
	*ret_len = t.len;
	return t.s;
}

static bool has_empty_container(const json_t *v)
{
	const char *key;
	json_t *value;
	size_t i;

	if (json_is_object(v)) {
		if (!json_object_size(v))
			return true;
		json_object_foreach ((json_t *)v, key, value)
			if (has_empty_container(value))
				return true;
	} else if (json_is_array(v)) {
		if (!json_array_size(v))
			return true;
		json_array_foreach (v, i, value)
			if (has_empty_container(value))
				return true;
	}
	return false;
}

Test(fastpath, random_trees)
{
	struct stats emitted = { 0 }, written = { 0 };
	unsigned must = 0;

	rng_seed();
	for (unsigned i = 0; i < 4000; i++) {
		json_t *spec = random_spec();
		struct cdi_error err = { 0 };
		char *text = NULL, what[64];
		size_t len = 0;
		int r;

		snprintf(what, sizeof(what), "random tree %u (emitted)", i);
		cr_assert_eq(cdi_spec_emit(spec, CDI_FORMAT_YAML, &text, &len, &err), 0, "%s",
			     cdi_error_message(&err));
		r = compare(what, text, len, &emitted);
		/*
		 * Our emitter writes block style, but {} and [] for empty containers and
		 * "? key" for keys longer than 128 characters or with a line break.
		 */
		if (!has_empty_container(spec) && !strstr(text, "? ") && strncmp(text, "? ", 2)) {
			cr_expect_eq(r, 0, "%s: not on the fast path:\n%s", what, text);
			must++;
		}
		free(text);
		snprintf(what, sizeof(what), "random tree %u (go-yaml-like)", i);
		text = goyaml_like(spec, &len);
		compare(what, text, len, &written);
		free(text);
		json_decref(spec);
	}
	report("cdi_spec_emit of random trees", &emitted);
	report("go-yaml-like writing of random trees", &written);
	cr_expect_gt(must, 100);
	cr_expect_gt(written.fast, 400);
	cr_expect_gt(emitted.fast, 1000);
}

/* A window of a golden file with a few random byte changes. */
Test(fastpath, golden_mutations)
{
	static const char *const files[] = { "tests/golden/single.yaml",
					     "tests/golden/dgx-mig.yaml",
					     "tests/golden/old-driver.yaml",
					     "tests/golden/dgx-mig-management.yaml" };
	static const char bytes[] = " -:#\"'\t\n\r[]{}&*!|>?%@\\0a.,~\xc3\xa9";
	struct stats s = { 0 };

	rng_seed();
	for (size_t f = 0; f < ELEMENTSOF(files); f++) {
		size_t len;
		char *text = read_text(files[f], &len);

		for (unsigned i = 0; i < 800; i++) {
			size_t start = rnd(4) ? 0 : rnd((unsigned)len), n, o = 0;
			char *doc, what[128];
			unsigned edits = 1 + rnd(3);

			/* Up to 3 KiB from a random start: a window, so each case is cheap. */
			n = len - start < 3072 ? len - start : 1024 + rnd(2048);
			doc = malloc(n + 16);
			cr_assert_not_null(doc);
			memcpy(doc, text + start, n);
			o = n;
			for (unsigned e = 0; e < edits && o > 0; e++) {
				size_t at = rnd((unsigned)o);
				char c = bytes[rnd(sizeof(bytes) - 1)];

				switch (rnd(4)) {
				case 0: /* replace */
					doc[at] = c;
					break;
				case 1: /* insert */
					memmove(doc + at + 1, doc + at, o - at);
					doc[at] = c;
					o++;
					break;
				case 2: /* delete */
					memmove(doc + at, doc + at + 1, o - at - 1);
					o--;
					break;
				default: /* indent or dedent the line */
					while (at > 0 && doc[at - 1] != '\n')
						at--;
					if (doc[at] == ' ' && rnd(2)) {
						memmove(doc + at, doc + at + 1, o - at - 1);
						o--;
					} else {
						memmove(doc + at + 1, doc + at, o - at);
						doc[at] = ' ';
						o++;
					}
					break;
				}
			}
			snprintf(what, sizeof(what), "%s mutation %u", files[f], i);
			compare(what, doc, o, &s);
			free(doc);
		}
		free(text);
	}
	report("golden mutations", &s);
	cr_expect_gt(s.fast, 100);
}

/* Every awkward byte at every offset: the fast path reads 8 bytes at a time, the edges matter. */
Test(fastpath, bytes_at_every_offset)
{
	static const char *const bad[] = { "\x01",
					   "\t",
					   "\r",
					   "\x1f",
					   "\x7f",
					   "\x80",
					   "\xff",
					   "\xc2\x85",
					   "\xc3",
					   "\xe2\x80\xa8",
					   "\xed\xa0\x80",
					   "\xef\xbb\xbf",
					   "\xc3\xa9",
					   "\n",
					   " ",
					   ":",
					   "#",
					   "\"",
					   "'" };
	struct stats s = { 0 };
	char doc[64];

	for (size_t b = 0; b < ELEMENTSOF(bad); b++)
		for (size_t at = 0; at < 24; at++) {
			const char *base = "key: abcdefghijklmnopqrstuvw\nk2: v\n";
			size_t n = strlen(bad[b]), len = strlen(base);

			memcpy(doc, base, at);
			memcpy(doc + at, bad[b], n);
			memcpy(doc + at + n, base + at, len - at);
			compare("byte at offset", doc, len + n, &s);
		}
	report("bytes at every offset", &s);
	cr_expect_gt(s.fast, 0);
}
