/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reading the facts file. Fields this version does not know are ignored (a newer generator
 * may add some within version 1); the ones it knows must have their types. Every string the
 * caller sees points into the JSON tree, which the facts keep.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "facts.h"
#include "read_file.h"
#include "macro.h"
#include "libcdi/oci_config.h"
#include "problem.h"
#include "spec_cache.h"

static const char *const capability_names[] = {
	"utility", "compute", "video", "graphics", "display", "ngx",
};

/* One parse: the file name and a field path buffer for messages. */
struct facts_parser {
	const char *name;
	struct cdi_error *err;
	char field[128];
};

_printf_(3, 4) static int bad(struct facts_parser *p, const char *field, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cdi_problem_addv(p->err, -EINVAL, p->name, 0, 0, field, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* "at.key", for a message: formatted only then (the facts are read at every container start). */
static const char *field(struct facts_parser *p, const char *at, const char *key)
{
	snprintf(p->field, sizeof(p->field), "%s%s%s", at, *at ? "." : "", key);
	return p->field;
}

/* The string at key of obj: NULL and 0 when absent and optional. */
static int get_string(struct facts_parser *p, const json_t *obj, const char *key, bool required,
		      const char *at, const char **ret)
{
	const json_t *v = json_object_get(obj, key);

	*ret = NULL;
	if (!v && !required)
		return 0;
	if (!json_is_string(v))
		return bad(p, field(p, at, key), v ? "must be a string" : "missing");
	*ret = json_string_value(v);
	return 0;
}

static int get_integer(struct facts_parser *p, const json_t *obj, const char *key, bool required,
		       const char *at, long long *ret)
{
	const json_t *v = json_object_get(obj, key);

	*ret = -1;
	if (!v && !required)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return bad(p, field(p, at, key), v ? "must be an integer >= 0" : "missing");
	*ret = json_integer_value(v);
	return 0;
}

/* The names at key (an array of strings, optional) into the next free slots of store. */
static int get_names(struct facts_parser *p, const json_t *obj, const char *at, const char **store,
		     size_t *used, const char *const **ret, size_t *ret_n)
{
	const json_t *v = json_object_get(obj, "devices"), *item;
	size_t i;

	*ret = store + *used;
	*ret_n = 0;
	if (!v)
		return 0;
	if (!json_is_array(v))
		return bad(p, field(p, at, "devices"), "must be an array of device names");
	json_array_foreach (v, i, item) {
		if (!json_is_string(item))
			return bad(p, field(p, at, "devices"), "must be an array of device names");
		store[(*used)++] = json_string_value(item);
	}
	*ret_n = json_array_size(v);
	return 0;
}

static size_t count_names(const json_t *obj)
{
	const json_t *v = json_object_get(obj, "devices");

	return json_is_array(v) ? json_array_size(v) : 0;
}

static int parse_mig(struct facts_parser *p, const json_t *obj, const char *at,
		     struct cdi_facts_mig *m, const char **store, size_t *used)
{
	if (!json_is_object(obj))
		return bad(p, at, "must be an object");
	if (get_string(p, obj, "index", true, at, &m->index) < 0 ||
	    get_string(p, obj, "uuid", true, at, &m->uuid) < 0 ||
	    get_integer(p, obj, "gi", false, at, &m->gi) < 0 ||
	    get_integer(p, obj, "ci", false, at, &m->ci) < 0)
		return -EINVAL;
	return get_names(p, obj, at, store, used, &m->devices, &m->n_devices);
}

static int parse_gpu(struct facts_parser *p, const json_t *obj, size_t i, struct cdi_facts_gpu *g,
		     const char **store, size_t *used)
{
	const json_t *mig, *migs, *m;
	char at[32], mat[80];
	size_t k;

	snprintf(at, sizeof(at), "gpus[%zu]", i);
	if (!json_is_object(obj))
		return bad(p, at, "must be an object");
	if (get_integer(p, obj, "index", true, at, &g->index) < 0 ||
	    get_integer(p, obj, "minor", false, at, &g->minor) < 0 ||
	    get_string(p, obj, "uuid", true, at, &g->uuid) < 0 ||
	    get_string(p, obj, "busId", false, at, &g->bus_id) < 0 ||
	    get_string(p, obj, "model", false, at, &g->model) < 0 ||
	    get_string(p, obj, "brand", false, at, &g->brand) < 0 ||
	    get_string(p, obj, "arch", false, at, &g->arch) < 0 ||
	    get_names(p, obj, at, store, used, &g->devices, &g->n_devices) < 0)
		return -EINVAL;
	mig = json_object_get(obj, "mig");
	if (mig && !json_is_boolean(mig))
		return bad(p, at, "mig: must be true or false");
	g->mig = json_is_true(mig);
	migs = json_object_get(obj, "migDevices");
	if (!migs)
		return 0;
	if (!json_is_array(migs))
		return bad(p, at, "migDevices: must be an array");
	g->mig_devices = calloc(json_array_size(migs) + 1, sizeof(*g->mig_devices));
	if (!g->mig_devices)
		return cdi_fail(p->err, -ENOMEM, "out of memory");
	json_array_foreach (migs, k, m) {
		snprintf(mat, sizeof(mat), "%s.migDevices[%zu]", at, k);
		if (parse_mig(p, m, mat, &g->mig_devices[k], store, used) < 0)
			return -EINVAL;
		g->n_mig_devices++;
	}
	return 0;
}

/* libraryTree: {"containerPath": absolute, "hostPath": absolute, "groups": {NAME: {"tag":
 * a capability tag or null, "parts": [NAME...]}}}; group and part names are single components. */
static bool plain_name(const char *s)
{
	return s && *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

static int check_library_tree(struct facts_parser *p, const json_t *tree)
{
	const char *cpath = json_string_value(json_object_get(tree, "containerPath"));
	const char *hpath = json_string_value(json_object_get(tree, "hostPath"));
	const json_t *groups = json_object_get(tree, "groups"), *g, *part;
	const char *name;
	size_t i;

	if (!tree)
		return 0;
	if (!json_is_object(tree) || !cpath || cpath[0] != '/' || !hpath || hpath[0] != '/' ||
	    !json_is_object(groups))
		return bad(
			p, "libraryTree",
			"must be an object with absolute containerPath and hostPath, and groups");
	json_object_foreach ((json_t *)groups, name, g) {
		const json_t *tag = json_object_get(g, "tag"), *parts = json_object_get(g, "parts");

		if (!plain_name(name) || !json_is_array(parts) ||
		    !(json_is_null(tag) || json_is_string(tag)))
			return bad(p, "libraryTree", "group \"%s\": needs a tag and parts", name);
		json_array_foreach (parts, i, part)
			if (!plain_name(json_string_value(part)))
				return bad(p, "libraryTree", "group \"%s\": a part is no name",
					   name);
	}
	return 0;
}

static int check_capabilities(struct facts_parser *p, const json_t *caps)
{
	const char *path;
	const json_t *v;

	if (!caps)
		return 0;
	if (!json_is_object(caps))
		return bad(p, "capabilities", "must be an object of path: capability");
	json_object_foreach ((json_t *)caps, path, v) {
		const char *s = json_string_value(v);
		size_t len = s ? strcspn(s, "/") : 0, i;

		for (i = 0; s && i < ELEMENTSOF(capability_names); i++)
			if (strlen(capability_names[i]) == len &&
			    strncmp(s, capability_names[i], len) == 0)
				break;
		if (!s || i == ELEMENTSOF(capability_names) || (s[len] && strcmp(s + len, "/32")))
			return bad(
				p, "capabilities",
				"\"%s\": not one of utility, compute, video, graphics, display, ngx (with /32 for a 32-bit file)",
				path);
	}
	return 0;
}

/* Room for every device name of the file, so the lists can point into one array. */
static size_t count_all_names(const json_t *gpus)
{
	const json_t *g, *m;
	size_t i, k, n = 0;

	json_array_foreach (gpus, i, g) {
		n += count_names(g);
		json_array_foreach (json_object_get(g, "migDevices"), k, m)
			n += count_names(m);
	}
	return n;
}

static int parse_tree(struct facts_parser *p, struct cdi_facts *f)
{
	const json_t *version = json_object_get(f->root, "cdikitFacts"), *driver, *gpus, *g;
	size_t i, used = 0;

	if (!json_is_object(f->root))
		return bad(p, NULL, "not a cdikit facts file (a JSON object)");
	if (!json_is_integer(version))
		return bad(p, "cdikitFacts", "missing: not a cdikit facts file");
	if (json_integer_value(version) != CDI_FACTS_VERSION)
		return bad(p, "cdikitFacts", "version %lld, this cdikit reads version %d",
			   json_integer_value(version), CDI_FACTS_VERSION);
	if (get_string(p, f->root, "kind", true, "", &f->kind) < 0)
		return -EINVAL;
	driver = json_object_get(f->root, "driver");
	if (driver && !json_is_object(driver))
		return bad(p, "driver", "must be an object");
	if (get_string(p, driver, "version", false, "driver", &f->driver_version) < 0 ||
	    get_string(p, driver, "cuda", false, "driver", &f->cuda) < 0)
		return -EINVAL;
	gpus = json_object_get(f->root, "gpus");
	if (!json_is_array(gpus))
		return bad(p, "gpus", gpus ? "must be an array" : "missing");
	f->capabilities = json_object_get(f->root, "capabilities");
	f->library_tree = json_object_get(f->root, "libraryTree");
	if (check_library_tree(p, f->library_tree) < 0)
		return -EINVAL;
	if (check_capabilities(p, f->capabilities) < 0)
		return -EINVAL;

	f->strings = calloc(count_all_names(gpus) + 1, sizeof(*f->strings));
	f->gpus = calloc(json_array_size(gpus) + 1, sizeof(*f->gpus));
	if (!f->strings || !f->gpus)
		return cdi_fail(p->err, -ENOMEM, "out of memory");
	json_array_foreach (gpus, i, g) {
		if (parse_gpu(p, g, i, &f->gpus[i], f->strings, &used) < 0) {
			f->n_gpus = i + 1; /* its MIG list is freed with the rest */
			return -EINVAL;
		}
		f->n_gpus++;
	}
	return 0;
}

void cdi_facts_free(struct cdi_facts *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n_gpus; i++)
		free(f->gpus[i].mig_devices);
	free(f->gpus);
	free(f->strings);
	json_decref(f->root);
	free(f->path);
	free(f);
}

/* The facts of the tree root (taken), which came from name. */
static int facts_of_tree(const char *name, json_t *root, struct cdi_facts **ret,
			 struct cdi_error *err)
{
	struct facts_parser p = { .name = name, .err = err };
	struct cdi_facts *f;
	int r;

	f = calloc(1, sizeof(*f));
	if (!f || !(f->path = strdup(name))) {
		free(f);
		json_decref(root);
		return cdi_fail(err, -ENOMEM, "out of memory");
	}
	f->root = root;
	r = parse_tree(&p, f);
	if (r < 0) {
		cdi_facts_free(f);
		return r;
	}
	*ret = f;
	return 0;
}

int cdi_facts_parse(const char *name, const char *buf, size_t len, struct cdi_facts **ret,
		    struct cdi_error *err)
{
	json_t *root;
	size_t i = 0;
	int r;

	/* Read at every container start: the config reader, a quarter of json_loadb's cost (it
	 * wants an object at the top, which a facts file is too). */
	while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n'))
		i++;
	if (i == len || buf[i] != '{')
		return cdi_problem_add(err, -EINVAL, name, 0, 0, NULL,
				       "not a cdikit facts file (a JSON object)");
	r = oci_config_parse(name, buf, len, &root, err);
	if (r < 0)
		return r;
	return facts_of_tree(name, root, ret, err);
}

int cdi_facts_load(const char *path, struct cdi_facts **ret, struct cdi_error *err)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r;

	r = read_regular_at(AT_FDCWD, path, path, CDI_FACTS_MAX_BYTES, READ_MISSING_OK, &buf, &len,
			    NULL, err);
	if (r < 0)
		return r;
	return cdi_facts_parse(path, buf, len, ret, err);
}

int cdi_facts_load_for_spec(const char *spec_path, struct cdi_facts **ret, struct cdi_error *err)
{
	_cleanup_free_ char *path = NULL;
	json_t *root;

	if (asprintf(&path, "%s" CDI_FACTS_SUFFIX, spec_path) < 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	/* The tree cdi-generate cached beside the spec, while the facts file is the one it was
	 * made from (spec_cache.h); its checks below are the same. */
	if (spec_cache_load_companion(spec_path, path, &root) == 0)
		return facts_of_tree(path, root, ret, err);
	return cdi_facts_load(path, ret, err);
}

const struct cdi_facts_gpu *cdi_facts_gpu_by_uuid(const struct cdi_facts *f, const char *uuid)
{
	for (size_t i = 0; f && i < f->n_gpus; i++)
		if (strcmp(f->gpus[i].uuid, uuid) == 0)
			return &f->gpus[i];
	return NULL;
}

const struct cdi_facts_gpu *cdi_facts_gpu_by_index(const struct cdi_facts *f, long long index)
{
	for (size_t i = 0; f && i < f->n_gpus; i++)
		if (f->gpus[i].index == index)
			return &f->gpus[i];
	return NULL;
}

const char *cdi_facts_capability(const struct cdi_facts *f, const char *path)
{
	return f ? json_string_value(json_object_get(f->capabilities, path)) : NULL;
}

void cdi_facts_memo_done(struct cdi_facts_memo *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->spec[i]);
		cdi_facts_free(m->facts[i]);
	}
	m->n = 0;
}

int cdi_facts_memo_put(struct cdi_facts_memo *m, const char *spec_path, struct cdi_facts *facts)
{
	if (m->n == CDI_FACTS_MEMO_MAX || !(m->spec[m->n] = strdup(spec_path))) {
		cdi_facts_free(facts);
		return m->n == CDI_FACTS_MEMO_MAX ? -ENOSPC : -ENOMEM;
	}
	m->facts[m->n++] = facts;
	return 0;
}

int cdi_facts_memo_get(struct cdi_facts_memo *m, const char *spec_path, struct cdi_facts **ret,
		       struct cdi_error *err)
{
	struct cdi_facts *f = NULL;
	int r;

	*ret = NULL;
	if (!spec_path)
		return 0;
	for (size_t i = 0; i < m->n; i++)
		if (strcmp(m->spec[i], spec_path) == 0) {
			*ret = m->facts[i];
			return 0;
		}
	if (m->n == CDI_FACTS_MEMO_MAX)
		return 0; /* unreachable in practice; such a spec is treated as having no facts */
	r = cdi_facts_load_for_spec(spec_path, &f, err);
	if (r < 0 && r != -ENOENT)
		return r;
	r = cdi_facts_memo_put(m, spec_path, f);
	if (r < 0)
		return cdi_fail(err, r, "out of memory");
	*ret = f;
	return 0;
}
