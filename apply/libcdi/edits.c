/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Applying CDI container edits to an OCI runtime spec held as a jansson tree, with the rules of
 * the reference library's ContainerEdits.Apply (pkg/cdi/container-edits.go, its _unix.go
 * fillMissingInfo and the runtime-tools generator it edits through).
 *
 * Fields we do not touch survive: the edits run on a shallow copy of the caller's tree in which
 * every container on the way to a change is copied before it is changed (copy on write), and the
 * result replaces the caller's top-level values only when every step succeeded.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cdi/registry.h>

#include "array.h"
#include "edits.h"
#include "path_clean.h"
#include "strmap.h"
#include "macro.h"
#include "problem.h"

#define NONE SIZE_MAX

/* ---- the editor ------------------------------------------------------------------------- */

struct editor {
	json_t *root; /* shallow copy of the caller's tree */
	const struct cdi_inject_options *opts;
	struct cdi_error *err;
};

static const char *type_word(json_type t)
{
	return t == JSON_OBJECT ? "an object" : t == JSON_ARRAY ? "an array" : "a scalar";
}

/*
 * parent[key] as a container of type t that we may change. A container still shared with the
 * caller's tree (refcount > 1: the caller's parent and our copy of it both hold it) is replaced
 * by a shallow copy first. Missing or null: created when create, else *ret = NULL.
 */
static int own_member(struct editor *ed, json_t *parent, const char *key, json_type t, bool create,
		      const char *where, json_t **ret)
{
	json_t *v = json_object_get(parent, key);

	if (!v || json_is_null(v)) {
		*ret = NULL;
		if (!create)
			return 0;
		v = t == JSON_OBJECT ? json_object() : json_array();
		if (!v || json_object_set_new(parent, key, v) < 0)
			return cdi_fail(ed->err, -ENOMEM, "out of memory");
		*ret = v;
		return 0;
	}
	if (json_typeof(v) != t)
		return cdi_problem_add(ed->err, -EINVAL, NULL, 0, 0, where,
				       "OCI spec field is not %s", type_word(t));
	if (v->refcount > 1) {
		json_t *c = json_copy(v);

		if (!c || json_object_set_new(parent, key, c) < 0)
			return cdi_fail(ed->err, -ENOMEM, "out of memory");
		v = c;
	}
	*ret = v;
	return 0;
}

/* True for an array of strings (what args, env, options and schemata are). */
static bool string_array(const json_t *a)
{
	const json_t *v;
	size_t i;

	if (!json_is_array(a))
		return false;
	json_array_foreach (a, i, v)
		if (!json_is_string(v))
			return false;
	return true;
}

/* A copy of an array of strings; json_deep_copy() is far slower for these small lists. */
static json_t *copy_strings(const json_t *a)
{
	json_t *copy = json_array(), *v;
	size_t i;

	if (!copy)
		return NULL;
	json_array_foreach (a, i, v) {
		if (json_array_append_new(copy, json_stringn_nocheck(json_string_value(v),
								     json_string_length(v))) < 0) {
			json_decref(copy);
			return NULL;
		}
	}
	return copy;
}

/* Set obj[key] to a new value (taking it), false on failure (the value is released). */
static bool set_new(json_t *obj, const char *key, json_t *value)
{
	return value && json_object_set_new_nocheck(obj, key, value) == 0;
}

static bool set_string(json_t *obj, const char *key, const char *value)
{
	return set_new(obj, key, json_string_nocheck(value));
}

static bool set_int(json_t *obj, const char *key, json_int_t value)
{
	return set_new(obj, key, json_integer(value));
}

/* The process object for changes; a new one carries what Go's zero Process marshals to. */
static int own_process(struct editor *ed, json_t **ret)
{
	json_t *p;
	int r;

	r = own_member(ed, ed->root, "process", JSON_OBJECT, false, "process", &p);
	if (r < 0)
		return r;
	if (!p) {
		p = json_pack("{s:{s:i,s:i},s:s}", "user", "uid", 0, "gid", 0, "cwd", "");
		if (!p || json_object_set_new(ed->root, "process", p) < 0)
			return cdi_fail(ed->err, -ENOMEM, "out of memory");
	}
	*ret = p;
	return 0;
}

/* A problem about one edit: file and field of its source, plus a suffix ("deviceNodes[2]"). */
static int edit_problemv(struct editor *ed, int code, const struct cdi_edit_source *s,
			 const char *suffix, const char *fmt, va_list ap)
{
	_cleanup_free_ char *field = NULL;

	if (s->field && *s->field && suffix && asprintf(&field, "%s.%s", s->field, suffix) < 0)
		field = NULL;
	return cdi_problem_addv(ed->err, code, s->file, 0, 0,
				field	 ? field
				: suffix ? suffix
					 : s->field,
				fmt, ap);
}

_printf_(5, 6) static int edit_problem(struct editor *ed, int code, const struct cdi_edit_source *s,
				       const char *suffix, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	code = edit_problemv(ed, code, s, suffix, fmt, ap);
	va_end(ap);
	return code;
}

/* The same for entry index of the list key; the label is only built for a problem. */
_printf_(6, 7) static int item_problem(struct editor *ed, int code, const struct cdi_edit_source *s,
				       const char *key, size_t index, const char *fmt, ...)
{
	char suffix[64];
	va_list ap;

	snprintf(suffix, sizeof(suffix), "%s[%zu]", key, index);
	va_start(ap, fmt);
	code = edit_problemv(ed, code, s, suffix, fmt, ap);
	va_end(ap);
	return code;
}

/* edits[key] as an array (NULL when absent), or a problem when it is something else. */
static int edits_array(struct editor *ed, const struct cdi_edit_source *s, const char *key,
		       const json_t **ret)
{
	const json_t *v = json_is_object(s->edits) ? json_object_get(s->edits, key) : NULL;

	*ret = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_array(v))
		return edit_problem(ed, -EINVAL, s, key, "is not an array");
	*ret = v;
	return 0;
}

/*
 * A walk over every item of edits[key] in every source, in order: the list the reference's
 * merged ContainerEdits would hold. it.s and it.k say where the current item is.
 */
struct items {
	const struct cdi_edit_source *src, *s;
	size_t n, i;
	const char *key;
	const json_t *list;
	size_t k;
};

#define ITEMS(src_, n_, key_) ((struct items){ .src = (src_), .n = (n_), .key = (key_) })

/* The next item, or NULL at the end and when a list is not an array (then *r < 0). */
static const json_t *items_next(struct editor *ed, struct items *it, int *r)
{
	*r = 0;
	while (!it->list || it->k + 1 >= json_array_size(it->list)) {
		if (it->i >= it->n)
			return NULL;
		it->s = &it->src[it->i++];
		*r = edits_array(ed, it->s, it->key, &it->list);
		if (*r < 0)
			return NULL;
		it->k = SIZE_MAX;
	}
	return json_array_get(it->list, ++it->k);
}

static int check_sources(struct editor *ed, const struct cdi_edit_source *src, size_t n)
{
	int ret = 0;

	for (size_t i = 0; i < n; i++)
		if (src[i].edits && !json_is_null(src[i].edits) && !json_is_object(src[i].edits))
			ret = edit_problem(ed, -EINVAL, &src[i], NULL,
					   "containerEdits is not an object");
	return ret;
}

/* ---- 1. env ----------------------------------------------------------------------------- */

static size_t env_key_len(const char *s)
{
	const char *eq = strchr(s, '=');

	return eq ? (size_t)(eq - s) : strlen(s);
}

static int apply_env(struct editor *ed, const struct cdi_edit_source *src, size_t n)
{
	struct cdi_strmap index __attribute__((cleanup(cdi_strmap_free))) = { 0 };
	struct items it = ITEMS(src, n, "env");
	json_t *process, *env;
	size_t total = 0, k;
	const json_t *v;
	int r;

	while ((v = items_next(ed, &it, &r))) {
		if (!json_is_string(v))
			return edit_problem(ed, -EINVAL, it.s, "env", "entry %zu is not a string",
					    it.k);
		total++;
	}
	if (r < 0 || total == 0)
		return r;

	/* AddMultipleProcessEnv: index the existing entries (the last of a duplicate key wins),
	 * overwrite a known key in place, append the others. */
	if (!json_object_get(ed->root, "process") ||
	    json_is_null(json_object_get(ed->root, "process"))) {
		process = json_pack("{s:{s:i,s:i},s:[],s:s}", "user", "uid", 0, "gid", 0, "env",
				    "cwd", "");
		if (!process || json_object_set_new(ed->root, "process", process) < 0)
			return cdi_fail(ed->err, -ENOMEM, "out of memory");
	} else {
		r = own_process(ed, &process);
		if (r < 0)
			return r;
	}
	r = own_member(ed, process, "env", JSON_ARRAY, true, "process.env", &env);
	if (r < 0)
		return r;
	json_array_foreach (env, k, v) {
		if (!json_is_string(v))
			return cdi_problem_add(ed->err, -EINVAL, NULL, 0, 0, "process.env",
					       "OCI spec entry %zu is not a string", k);
		if (cdi_strmap_put(&index, json_string_value(v), env_key_len(json_string_value(v)),
				   k) < 0)
			return cdi_fail(ed->err, -ENOMEM, "out of memory");
	}
	it = ITEMS(src, n, "env");
	while ((v = items_next(ed, &it, &r))) {
		const char *s = json_string_value(v);
		size_t *at = cdi_strmap_get(&index, s, env_key_len(s));
		json_t *copy = json_string(s);

		if (!copy)
			return cdi_fail(ed->err, -ENOMEM, "out of memory");
		if (at) {
			json_array_set_new(env, *at, copy);
			continue;
		}
		if (json_array_append_new(env, copy) < 0 ||
		    cdi_strmap_put(&index, s, env_key_len(s), json_array_size(env) - 1) < 0)
			return cdi_fail(ed->err, -ENOMEM, "out of memory");
	}
	return r;
}

/* ---- 2. device nodes -------------------------------------------------------------------- */

struct node {
	const char *path, *host_path, *type, *permissions;
	json_int_t major, minor, file_mode, uid, gid;
	bool has_file_mode, has_uid, has_gid;
};

static int node_string(struct editor *ed, const struct cdi_edit_source *s, size_t k,
		       const json_t *o, const char *key, const char **ret)
{
	const json_t *v = json_object_get(o, key);

	*ret = "";
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return item_problem(ed, -EINVAL, s, "deviceNodes", k, "%s is not a string", key);
	*ret = json_string_value(v);
	return 0;
}

static int node_int(struct editor *ed, const struct cdi_edit_source *s, size_t k, const json_t *o,
		    const char *key, json_int_t min, json_int_t max, json_int_t *ret, bool *ret_has)
{
	const json_t *v = json_object_get(o, key);

	*ret = 0;
	if (ret_has)
		*ret_has = false;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max)
		return item_problem(ed, -EINVAL, s, "deviceNodes", k,
				    "%s is not an integer in [%lld, %lld]", key, (long long)min,
				    (long long)max);
	*ret = json_integer_value(v);
	if (ret_has)
		*ret_has = true;
	return 0;
}

static int node_parse(struct editor *ed, const struct cdi_edit_source *s, size_t k, const json_t *o,
		      struct node *nd)
{
	int r = 0;

	*nd = (struct node){ 0 };
	if (!json_is_object(o))
		return item_problem(ed, -EINVAL, s, "deviceNodes", k, "is not an object");
	if ((r = node_string(ed, s, k, o, "path", &nd->path)) < 0 ||
	    (r = node_string(ed, s, k, o, "hostPath", &nd->host_path)) < 0 ||
	    (r = node_string(ed, s, k, o, "type", &nd->type)) < 0 ||
	    (r = node_string(ed, s, k, o, "permissions", &nd->permissions)) < 0 ||
	    (r = node_int(ed, s, k, o, "major", INT64_MIN, INT64_MAX, &nd->major, NULL)) < 0 ||
	    (r = node_int(ed, s, k, o, "minor", INT64_MIN, INT64_MAX, &nd->minor, NULL)) < 0 ||
	    (r = node_int(ed, s, k, o, "fileMode", 0, UINT32_MAX, &nd->file_mode,
			  &nd->has_file_mode)) < 0 ||
	    (r = node_int(ed, s, k, o, "uid", 0, UINT32_MAX, &nd->uid, &nd->has_uid)) < 0 ||
	    (r = node_int(ed, s, k, o, "gid", 0, UINT32_MAX, &nd->gid, &nd->has_gid)) < 0)
		return r;
	if (!*nd->path)
		return item_problem(ed, -EINVAL, s, "deviceNodes", k,
				    "invalid (empty) device path");
	return 0;
}

static int call_lstat(const struct cdi_inject_options *opts, const char *path, struct stat *st)
{
	int r;

	errno = 0;
	if (opts && opts->lstat_fn)
		r = opts->lstat_fn(path, st, opts->userdata);
	else
		r = lstat(path, st);
	/* Accept both conventions for stand-ins: -1 + errno like lstat(2), or -errno. */
	if (r == -1)
		return errno > 0 ? -errno : -EIO;
	return r < 0 ? r : 0;
}

/* fillMissingInfo (container-edits_unix.go), on our copy of the node. */
static int node_fill(struct editor *ed, const struct cdi_edit_source *s, size_t k, struct node *nd)
{
	bool minimal = *nd->type && (nd->major != 0 || strcmp(nd->type, "p") == 0);
	const char *host_type;
	struct stat st;
	int r;

	if (!*nd->host_path)
		nd->host_path = nd->path;
	r = call_lstat(ed->opts, nd->host_path, &st);
	if (r == 0) {
		switch (st.st_mode & S_IFMT) {
		case S_IFBLK:
			host_type = "b";
			break;
		case S_IFCHR:
			host_type = "c";
			break;
		case S_IFIFO:
			host_type = "p";
			break;
		default:
			if (minimal)
				return 0;
			return item_problem(
				ed, -EINVAL, s, "deviceNodes", k,
				"failed to stat CDI host device \"%s\": not a device node",
				nd->host_path);
		}
	} else {
		if (minimal)
			return 0;
		return item_problem(ed, r, s, "deviceNodes", k,
				    "failed to stat CDI host device \"%s\": %s", nd->host_path,
				    strerror(-r));
	}

	if (!nd->has_file_mode) {
		nd->file_mode = st.st_mode & ~S_IFMT;
		nd->has_file_mode = true;
	}
	if (minimal)
		return 0;
	if (!*nd->type)
		nd->type = host_type;
	else if (strcmp(nd->type, host_type) != 0)
		return item_problem(ed, -EINVAL, s, "deviceNodes", k,
				    "CDI device (\"%s\", \"%s\"), host type mismatch (%s, %s)",
				    nd->path, nd->host_path, nd->type, host_type);
	if (strcmp(nd->type, "p") == 0)
		return 0;
	if (nd->major == 0) {
		nd->major = major(st.st_rdev);
		nd->minor = minor(st.st_rdev);
	}
	return 0;
}

/* process.user.<key> when the process exists and it is > 0, as the reference defaults it. */
static bool process_user_id(const json_t *root, const char *key, json_int_t *ret)
{
	const json_t *user = json_object_get(json_object_get(root, "process"), "user");
	const json_t *v = json_object_get(user, key);

	if (!json_is_integer(v) || json_integer_value(v) <= 0 || json_integer_value(v) > UINT32_MAX)
		return false;
	*ret = json_integer_value(v);
	return true;
}

/* One slot of an array being edited by path: removed entries stay until the end, so the map's
 * borrowed keys stay valid. */
struct slot {
	json_t *item;
	size_t next; /* next live slot with the same key, NONE at the end */
	bool dead;
};

struct chain {
	size_t head, tail;
};

struct keyed_list {
	struct slot *slots;
	size_t n, cap;
	struct chain *chains;
	size_t n_chains;
	struct cdi_strmap map; /* key -> chain index */
};

static void keyed_list_free(struct keyed_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		json_decref(l->slots[i].item);
	free(l->slots);
	free(l->chains);
	cdi_strmap_free(&l->map);
}

static int keyed_list_init(struct keyed_list *l, size_t cap)
{
	*l = (struct keyed_list){ .cap = cap ? cap : 1 };
	l->slots = calloc(l->cap, sizeof(*l->slots));
	l->chains = calloc(l->cap, sizeof(*l->chains));
	return l->slots && l->chains && cdi_strmap_reserve(&l->map, l->cap) == 0 ? 0 : -ENOMEM;
}

/* Append item (a new reference is taken) with key (NULL: never matches). */
static int keyed_list_append(struct keyed_list *l, json_t *item, const char *key)
{
	size_t at = l->n, *c;

	if (l->n == l->cap)
		return -ENOMEM; /* sized up front */
	l->slots[at] = (struct slot){ .item = json_incref(item), .next = NONE };
	l->n++;
	if (!key)
		return 0;
	c = cdi_strmap_get(&l->map, key, strlen(key));
	if (!c) {
		if (cdi_strmap_put(&l->map, key, strlen(key), l->n_chains) < 0)
			return -ENOMEM;
		l->chains[l->n_chains++] = (struct chain){ .head = at, .tail = at };
		return 0;
	}
	if (l->chains[*c].head == NONE)
		l->chains[*c].head = at;
	else
		l->slots[l->chains[*c].tail].next = at;
	l->chains[*c].tail = at;
	return 0;
}

/* The chain of live slots for key, NULL when none ever existed. */
static struct chain *keyed_list_chain(struct keyed_list *l, const char *key)
{
	size_t *c = cdi_strmap_get(&l->map, key, strlen(key));

	return c ? &l->chains[*c] : NULL;
}

/* Remove the first live slot with key (runtime-tools RemoveDevice / RemoveMount). */
static void keyed_list_remove_first(struct keyed_list *l, const char *key)
{
	struct chain *c = keyed_list_chain(l, key);
	size_t head;

	if (!c || c->head == NONE)
		return;
	head = c->head;
	l->slots[head].dead = true;
	c->head = l->slots[head].next;
	if (c->head == NONE)
		c->tail = NONE;
}

static const char *item_key(const json_t *item, const char *field)
{
	return json_string_value(json_object_get(item, field));
}

/* Fill l from the array (the items' key field indexes them). */
static int keyed_list_load(struct keyed_list *l, const json_t *array, const char *field,
			   size_t extra)
{
	size_t i;
	json_t *v;

	if (keyed_list_init(l, json_array_size(array) + extra) < 0)
		return -ENOMEM;
	json_array_foreach (array, i, v)
		if (keyed_list_append(l, v, item_key(v, field)) < 0)
			return -ENOMEM;
	return 0;
}

/* Replace the contents of array by the live slots. */
static int keyed_list_store(struct keyed_list *l, json_t *array, const size_t *order,
			    size_t n_order)
{
	if (json_array_clear(array) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < n_order; i++)
		if (json_array_append(array, l->slots[order[i]].item) < 0)
			return -ENOMEM;
	return 0;
}

static size_t *keyed_list_live(const struct keyed_list *l, size_t *ret_n)
{
	size_t *order = malloc((l->n ? l->n : 1) * sizeof(*order)), n = 0;

	if (!order)
		return NULL;
	for (size_t i = 0; i < l->n; i++)
		if (!l->slots[i].dead)
			order[n++] = i;
	*ret_n = n;
	return order;
}

static json_t *oci_device(const struct node *nd, const json_t *root)
{
	json_int_t id;
	json_t *dev;

	/* LinuxDevice: path, type, major, minor always; fileMode, uid, gid omitempty (pointers). */
	dev = json_object();
	if (!dev || !set_string(dev, "path", nd->path) || !set_string(dev, "type", nd->type) ||
	    !set_int(dev, "major", nd->major) || !set_int(dev, "minor", nd->minor))
		goto fail;
	if (nd->has_file_mode && !set_int(dev, "fileMode", nd->file_mode))
		goto fail;
	if ((nd->has_uid || process_user_id(root, "uid", &id)) &&
	    !set_int(dev, "uid", nd->has_uid ? nd->uid : id))
		goto fail;
	if ((nd->has_gid || process_user_id(root, "gid", &id)) &&
	    !set_int(dev, "gid", nd->has_gid ? nd->gid : id))
		goto fail;
	return dev;
fail:
	json_decref(dev);
	return NULL;
}

static json_t *cgroup_rule(const struct node *nd)
{
	const char *access = nd->permissions;
	json_t *rule;

	/* LinuxDeviceCgroup: allow always; type, major, minor, access omitempty. "none" is the
	 * explicit empty access (reference PR #301), "" means rwm. */
	if (!*access)
		access = "rwm";
	else if (strcmp(access, "none") == 0)
		access = "";
	rule = json_object();
	if (!rule || !set_new(rule, "allow", json_true()) || !set_string(rule, "type", nd->type) ||
	    !set_int(rule, "major", nd->major) || !set_int(rule, "minor", nd->minor) ||
	    (*access && !set_string(rule, "access", access))) {
		json_decref(rule);
		return NULL;
	}
	return rule;
}

static int apply_device_nodes(struct editor *ed, const struct cdi_edit_source *src, size_t n)
{
	struct keyed_list devs __attribute__((cleanup(keyed_list_free))) = { 0 };
	struct items it = ITEMS(src, n, "deviceNodes");
	_cleanup_free_ size_t *order = NULL;
	json_t *lnx, *devices, *resources = NULL, *rules = NULL;
	size_t total = 0, n_order;
	const json_t *v;
	int r, ret = 0;

	while (items_next(ed, &it, &r))
		total++;
	if (r < 0 || total == 0)
		return r;

	if ((r = own_member(ed, ed->root, "linux", JSON_OBJECT, true, "linux", &lnx)) < 0 ||
	    (r = own_member(ed, lnx, "devices", JSON_ARRAY, true, "linux.devices", &devices)) < 0)
		return r;
	if (keyed_list_load(&devs, devices, "path", total) < 0)
		return cdi_fail(ed->err, -ENOMEM, "out of memory");

	it = ITEMS(src, n, "deviceNodes");
	while ((v = items_next(ed, &it, &r))) {
		struct node nd;
		_cleanup_json_ json_t *dev = NULL;
		json_t *rule;
		struct chain *c;

		r = node_parse(ed, it.s, it.k, v, &nd);
		if (r == 0)
			r = node_fill(ed, it.s, it.k, &nd);
		if (r < 0) {
			/* Keep going: every bad node is worth one line. */
			ret = ret ? ret : r;
			continue;
		}
		if (ret < 0)
			continue;

		dev = oci_device(&nd, ed->root);
		if (!dev)
			return cdi_fail(ed->err, -ENOMEM, "out of memory");
		/* RemoveDevice(path) then AddDevice: the first entry with this path goes, a second
		 * one is replaced in place, else the device is appended. */
		keyed_list_remove_first(&devs, nd.path);
		c = keyed_list_chain(&devs, nd.path);
		if (c && c->head != NONE) {
			json_decref(devs.slots[c->head].item);
			devs.slots[c->head].item = json_incref(dev);
		} else if (keyed_list_append(&devs, dev, nd.path) < 0) {
			return cdi_fail(ed->err, -ENOMEM, "out of memory");
		}

		if (strcmp(nd.type, "b") != 0 && strcmp(nd.type, "c") != 0)
			continue;
		if (!rules && ((r = own_member(ed, lnx, "resources", JSON_OBJECT, true,
					       "linux.resources", &resources)) < 0 ||
			       (r = own_member(ed, resources, "devices", JSON_ARRAY, true,
					       "linux.resources.devices", &rules)) < 0))
			return r;
		rule = cgroup_rule(&nd);
		if (!rule || json_array_append_new(rules, rule) < 0)
			return cdi_fail(ed->err, -ENOMEM, "out of memory");
	}
	if (ret < 0)
		return ret;

	order = keyed_list_live(&devs, &n_order);
	if (!order || keyed_list_store(&devs, devices, order, n_order) < 0)
		return cdi_fail(ed->err, -ENOMEM, "out of memory");
	return 0;
}

/* ---- 3. netDevices ---------------------------------------------------------------------- */

static int apply_net_devices(struct editor *ed, const struct cdi_edit_source *src, size_t n)
{
	struct items it = ITEMS(src, n, "netDevices");
	json_t *lnx = NULL, *netdevs = NULL;
	const json_t *v;
	int r;

	while ((v = items_next(ed, &it, &r))) {
		const json_t *host = json_object_get(v, "hostInterfaceName");
		const json_t *name = json_object_get(v, "name");
		json_t *dev;

		if (!json_is_string(host) || !json_is_string(name))
			return item_problem(ed, -EINVAL, it.s, "netDevices", it.k,
					    "hostInterfaceName and name must be strings");
		if (!netdevs && ((r = own_member(ed, ed->root, "linux", JSON_OBJECT, true, "linux",
						 &lnx)) < 0 ||
				 (r = own_member(ed, lnx, "netDevices", JSON_OBJECT, true,
						 "linux.netDevices", &netdevs)) < 0))
			return r;
		/* LinuxNetDevice: name omitempty. Set or overwrite. */
		dev = json_object();
		if (!dev || (*json_string_value(name) &&
			     !set_string(dev, "name", json_string_value(name)))) {
			json_decref(dev);
			return cdi_fail(ed->err, -ENOMEM, "out of memory");
		}
		if (json_object_set_new(netdevs, json_string_value(host), dev) < 0)
			return cdi_fail(ed->err, -ENOMEM, "out of memory");
	}
	return r;
}

/* ---- 4. mounts -------------------------------------------------------------------------- */

static bool has_user_namespace(const json_t *root)
{
	const json_t *ns = json_object_get(json_object_get(root, "linux"), "namespaces"), *v;
	size_t i;

	json_array_foreach (ns, i, v) {
		const char *t = json_string_value(json_object_get(v, "type"));

		if (t && strcmp(t, "user") == 0)
			return true;
	}
	return false;
}

/* Under a user namespace a bind mount needs an ID-mapped mount: "idmap" for bind, "ridmap"
 * for rbind (the last of bind/rbind wins), nothing when the options already ask for one. */
static const char *idmap_option(const char *type, const json_t *options)
{
	const char *opt = type && strcmp(type, "bind") == 0 ? "idmap" : NULL;
	const json_t *v;
	size_t i;

	json_array_foreach (options, i, v) {
		const char *o = json_string_value(v);

		if (!o)
			continue;
		if (strcmp(o, "idmap") == 0 || strcmp(o, "ridmap") == 0)
			return NULL;
		if (strcmp(o, "bind") == 0)
			opt = "idmap";
		else if (strcmp(o, "rbind") == 0)
			opt = "ridmap";
	}
	return opt;
}

/*
 * The OCI mount for a CDI one. Strings and the options list are shared with the spec, not
 * copied (a spec's mounts are most of an injection's work): they are never changed in place,
 * and a list that gains an ID-map option is a new one. (Taking a reference only counts it:
 * jansson has no const json_incref(), hence the casts.)
 */
/* A CDI mount's members, in one walk over it (a lookup by name hashes the name each time). */
struct cdi_mount {
	json_t *dest, *source, *type, *options;
};

static void cdi_mount_of(const json_t *m, struct cdi_mount *ret)
{
	const char *key;
	json_t *v;

	*ret = (struct cdi_mount){ 0 };
	json_object_foreach ((json_t *)m, key, v) {
		if (strcmp(key, "containerPath") == 0)
			ret->dest = v;
		else if (strcmp(key, "hostPath") == 0)
			ret->source = v;
		else if (strcmp(key, "type") == 0)
			ret->type = v;
		else if (strcmp(key, "options") == 0)
			ret->options = v;
	}
}

static json_t *oci_mount(const struct cdi_mount *cm, bool userns)
{
	json_t *dest = cm->dest, *source = cm->source, *type = cm->type, *options = cm->options;
	const char *idmap;
	json_t *mnt, *opts;

	idmap = userns ? idmap_option(json_string_value(type), options) : NULL;

	/* Mount: destination always; type, source, options omitempty. */
	mnt = json_object();
	if (!mnt || json_object_set(mnt, "destination", dest) < 0)
		goto fail;
	if (json_string_length(type) > 0 && json_object_set(mnt, "type", type) < 0)
		goto fail;
	if (json_string_length(source) > 0 && json_object_set(mnt, "source", source) < 0)
		goto fail;
	if (idmap) {
		opts = copy_strings(options);
		if (!set_new(mnt, "options", opts) ||
		    json_array_append_new(opts, json_string_nocheck(idmap)) < 0)
			goto fail;
	} else if (json_array_size(options) > 0 && json_object_set(mnt, "options", options) < 0) {
		goto fail;
	}
	return mnt;
fail:
	json_decref(mnt);
	return NULL;
}

struct depth_order {
	size_t depth, index;
};

static int apply_mounts(struct editor *ed, const struct cdi_edit_source *src, size_t n)
{
	struct keyed_list mnts __attribute__((cleanup(keyed_list_free))) = { 0 };
	struct items it = ITEMS(src, n, "mounts");
	_cleanup_free_ struct depth_order *sorted = NULL;
	_cleanup_free_ size_t *order = NULL, *starts = NULL;
	_cleanup_free_ struct cdi_mount *cms = NULL; /* every mount of the sources, in order */
	size_t total = 0, cap_cms = 0, i, n_order, max_depth = 0;
	const json_t *v;
	json_t *mounts;
	bool userns;
	int r;

	while ((v = items_next(ed, &it, &r))) {
		struct cdi_mount *cm;

		if (ARRAY_RESERVE(cms, cap_cms, total + 1) < 0)
			return cdi_fail(ed->err, -ENOMEM, "out of memory");
		cm = &cms[total];
		cdi_mount_of(v, cm);
		if (!json_is_string(cm->dest) || !json_is_string(cm->source))
			return item_problem(ed, -EINVAL, it.s, "mounts", it.k,
					    "hostPath and containerPath must be strings");
		if ((cm->type && !json_is_null(cm->type) && !json_is_string(cm->type)) ||
		    (cm->options && !json_is_null(cm->options) && !string_array(cm->options)))
			return item_problem(
				ed, -EINVAL, it.s, "mounts", it.k,
				"type must be a string and options an array of strings");
		total++;
	}
	if (r < 0 || total == 0)
		return r;

	userns = has_user_namespace(ed->root);
	r = own_member(ed, ed->root, "mounts", JSON_ARRAY, true, "mounts", &mounts);
	if (r < 0)
		return r;
	if (keyed_list_load(&mnts, mounts, "destination", total) < 0)
		return cdi_fail(ed->err, -ENOMEM, "out of memory");

	for (size_t k = 0; k < total; k++) {
		_cleanup_json_ json_t *mnt = oci_mount(&cms[k], userns);
		const char *dest;

		if (!mnt)
			return cdi_fail(ed->err, -ENOMEM, "out of memory");
		/* RemoveMount: the first exact match of the destination, no cleaning. */
		dest = json_string_value(cms[k].dest);
		keyed_list_remove_first(&mnts, dest);
		if (keyed_list_append(&mnts, mnt, dest) < 0)
			return cdi_fail(ed->err, -ENOMEM, "out of memory");
	}

	/* Stable sort of every mount by the depth of filepath.Clean(destination) (PR #241): by
	 * counting, as depths are small and the live slots come in list order. */
	order = keyed_list_live(&mnts, &n_order);
	sorted = malloc((n_order ? n_order : 1) * sizeof(*sorted));
	if (!order || !sorted)
		return cdi_fail(ed->err, -ENOMEM, "out of memory");
	for (i = 0; i < n_order; i++) {
		const char *d = item_key(mnts.slots[order[i]].item, "destination");

		sorted[i] =
			(struct depth_order){ .depth = d ? cdi_path_clean_depth(d, strlen(d)) : 0,
					      .index = order[i] };
		max_depth = sorted[i].depth > max_depth ? sorted[i].depth : max_depth;
	}
	starts = calloc(max_depth + 2, sizeof(*starts));
	if (!starts)
		return cdi_fail(ed->err, -ENOMEM, "out of memory");
	for (i = 0; i < n_order; i++)
		starts[sorted[i].depth + 1]++;
	for (size_t d = 1; d <= max_depth + 1; d++)
		starts[d] += starts[d - 1];
	for (i = 0; i < n_order; i++)
		order[starts[sorted[i].depth]++] = sorted[i].index;
	if (keyed_list_store(&mnts, mounts, order, n_order) < 0)
		return cdi_fail(ed->err, -ENOMEM, "out of memory");
	return 0;
}

/* ---- 5. hooks --------------------------------------------------------------------------- */

static const char *const hook_names[] = {
	"prestart", "createRuntime", "createContainer", "startContainer", "poststart", "poststop",
};

static json_t *oci_hook(const json_t *h)
{
	const json_t *args = json_object_get(h, "args"), *env = json_object_get(h, "env");
	const json_t *timeout = json_object_get(h, "timeout");
	json_t *hook = json_object();

	/* Hook: path always; args, env omitempty; timeout a pointer (present even when 0). */
	if (!hook || !set_string(hook, "path", json_string_value(json_object_get(h, "path"))))
		goto fail;
	if (json_array_size(args) > 0 && !set_new(hook, "args", copy_strings(args)))
		goto fail;
	if (json_array_size(env) > 0 && !set_new(hook, "env", copy_strings(env)))
		goto fail;
	if (json_is_integer(timeout) && !set_int(hook, "timeout", json_integer_value(timeout)))
		goto fail;
	return hook;
fail:
	json_decref(hook);
	return NULL;
}

static int apply_hooks(struct editor *ed, const struct cdi_edit_source *src, size_t n)
{
	struct items it = ITEMS(src, n, "hooks");
	json_t *hooks = NULL, *stages[ELEMENTSOF(hook_names)] = { 0 };
	const json_t *v;
	size_t h;
	int r;

	while ((v = items_next(ed, &it, &r))) {
		const char *name = json_string_value(json_object_get(v, "hookName"));
		const json_t *args = json_object_get(v, "args"), *env = json_object_get(v, "env");
		const json_t *timeout = json_object_get(v, "timeout");
		char field[64];
		json_t *hook;

		if (!json_is_string(json_object_get(v, "path")) ||
		    (args && !json_is_null(args) && !string_array(args)) ||
		    (env && !json_is_null(env) && !string_array(env)) ||
		    (timeout && !json_is_null(timeout) && !json_is_integer(timeout)))
			return item_problem(
				ed, -EINVAL, it.s, "hooks", it.k,
				"path must be a string, args and env arrays of strings, timeout an integer");
		for (h = 0; h < ELEMENTSOF(hook_names); h++)
			if (name && strcmp(name, hook_names[h]) == 0)
				break;
		if (h == ELEMENTSOF(hook_names))
			return item_problem(ed, -EINVAL, it.s, "hooks", it.k,
					    "unknown hook name \"%s\"", name ? name : "");
		if (!hooks &&
		    (r = own_member(ed, ed->root, "hooks", JSON_OBJECT, true, "hooks", &hooks)) < 0)
			return r;
		snprintf(field, sizeof(field), "hooks.%s", hook_names[h]);
		if (!stages[h] && (r = own_member(ed, hooks, hook_names[h], JSON_ARRAY, true, field,
						  &stages[h])) < 0)
			return r;
		hook = oci_hook(v);
		if (!hook || json_array_append_new(stages[h], hook) < 0)
			return cdi_fail(ed->err, -ENOMEM, "out of memory");
	}
	return r;
}

/* ---- 6. intelRdt ------------------------------------------------------------------------ */

static int apply_intel_rdt(struct editor *ed, const struct cdi_edit_source *src, size_t n)
{
	static const char *const strings[] = { "closID", "l3CacheSchema", "memBwSchema" };
	const struct cdi_edit_source *last = NULL;
	const json_t *rdt = NULL, *v;
	json_t *lnx, *out;
	int r;

	/* Append: the last intelRdt wins, no merge. */
	for (size_t i = 0; i < n; i++) {
		v = json_is_object(src[i].edits) ? json_object_get(src[i].edits, "intelRdt") : NULL;
		if (v && !json_is_null(v)) {
			rdt = v;
			last = &src[i];
		}
	}
	if (!rdt)
		return 0;
	if (!json_is_object(rdt))
		return edit_problem(ed, -EINVAL, last, "intelRdt", "is not an object");

	/* IntelRdt: every field omitempty; the whole object is replaced. */
	out = json_object();
	if (!out)
		return cdi_fail(ed->err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < ELEMENTSOF(strings); i++) {
		v = json_object_get(rdt, strings[i]);
		if (v && !json_is_null(v) && !json_is_string(v)) {
			json_decref(out);
			return edit_problem(ed, -EINVAL, last, "intelRdt", "%s is not a string",
					    strings[i]);
		}
		if (json_string_length(v) > 0 &&
		    json_object_set_new(out, strings[i], json_string(json_string_value(v))) < 0)
			goto oom;
	}
	v = json_object_get(rdt, "schemata");
	if (v && !json_is_null(v) && !string_array(v)) {
		json_decref(out);
		return edit_problem(ed, -EINVAL, last, "intelRdt",
				    "schemata is not an array of strings");
	}
	if (json_array_size(v) > 0 && !set_new(out, "schemata", copy_strings(v)))
		goto oom;
	v = json_object_get(rdt, "enableMonitoring");
	if (json_is_true(v) && json_object_set_new(out, "enableMonitoring", json_true()) < 0)
		goto oom;

	r = own_member(ed, ed->root, "linux", JSON_OBJECT, true, "linux", &lnx);
	if (r < 0) {
		json_decref(out);
		return r;
	}
	if (json_object_set_new(lnx, "intelRdt", out) < 0)
		return cdi_fail(ed->err, -ENOMEM, "out of memory");
	return 0;
oom:
	json_decref(out);
	return cdi_fail(ed->err, -ENOMEM, "out of memory");
}

/* ---- 7. additionalGids ------------------------------------------------------------------ */

static bool gid_listed(const json_t *gids, json_int_t gid)
{
	const json_t *v;
	size_t i;

	/* Group lists are short (NGROUPS_MAX is 65536 but real ones hold a handful). */
	json_array_foreach (gids, i, v)
		if (json_is_integer(v) && json_integer_value(v) == gid)
			return true;
	return false;
}

/* process.user.additionalGids to change, made (with a Go zero User) when missing. */
static int own_gids(struct editor *ed, json_t **ret)
{
	json_t *process = NULL, *user = NULL;
	int r;

	if ((r = own_process(ed, &process)) < 0 ||
	    (r = own_member(ed, process, "user", JSON_OBJECT, false, "process.user", &user)) < 0)
		return r;
	if (!user) {
		user = json_pack("{s:i,s:i}", "uid", 0, "gid", 0);
		if (!user || json_object_set_new(process, "user", user) < 0)
			return cdi_fail(ed->err, -ENOMEM, "out of memory");
	}
	return own_member(ed, user, "additionalGids", JSON_ARRAY, true,
			  "process.user.additionalGids", ret);
}

static int apply_additional_gids(struct editor *ed, const struct cdi_edit_source *src, size_t n)
{
	struct items it = ITEMS(src, n, "additionalGids");
	json_t *gids = NULL;
	const json_t *v;
	int r;

	while ((v = items_next(ed, &it, &r))) {
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) > UINT32_MAX)
			return edit_problem(ed, -EINVAL, it.s, "additionalGids",
					    "entry %zu is not a uint32", it.k);
		if (json_integer_value(v) == 0)
			continue;
		if (!gids && (r = own_gids(ed, &gids)) < 0)
			return r;
		if (gid_listed(gids, json_integer_value(v)))
			continue;
		if (json_array_append_new(gids, json_integer(json_integer_value(v))) < 0)
			return cdi_fail(ed->err, -ENOMEM, "out of memory");
	}
	return r;
}

/* ---- apply ------------------------------------------------------------------------------ */

/* Make the caller's top-level values those of root; nothing changes on failure. */
static int commit(json_t *oci, json_t *root, struct cdi_error *err)
{
	_cleanup_free_ const char **added = calloc(json_object_size(root) + 1, sizeof(*added));
	size_t n_added = 0;
	const char *key;
	json_t *v;

	if (!added)
		return cdi_fail(err, -ENOMEM, "out of memory");
	/* New keys first: that can fail, and is undone by deleting them. Replacing the value of
	 * an existing key keeps its position and cannot fail in jansson. */
	json_object_foreach (root, key, v) {
		if (json_object_get(oci, key))
			continue;
		if (json_object_set(oci, key, v) < 0) {
			while (n_added > 0)
				json_object_del(oci, added[--n_added]);
			return cdi_fail(err, -ENOMEM, "out of memory");
		}
		added[n_added++] = key;
	}
	json_object_foreach (root, key, v)
		if (json_object_get(oci, key) != v)
			json_object_set(oci, key, v);
	return 0;
}

int cdi_apply_edit_sources(json_t *oci, const struct cdi_edit_source *src, size_t n,
			   const struct cdi_inject_options *opts, struct cdi_error *err)
{
	static int (*const steps[])(struct editor *, const struct cdi_edit_source *, size_t) = {
		apply_env,   apply_device_nodes, apply_net_devices,	apply_mounts,
		apply_hooks, apply_intel_rdt,	 apply_additional_gids,
	};
	_cleanup_json_ json_t *root = NULL;
	struct editor ed;
	int r;

	if (!json_is_object(oci))
		return cdi_fail(err, -EINVAL, "can't edit OCI spec: not a JSON object");
	if (n > 0 && !src)
		return cdi_fail(err, -EINVAL, "can't apply edits: none given");
	root = json_copy(oci);
	if (!root)
		return cdi_fail(err, -ENOMEM, "out of memory");
	ed = (struct editor){ .root = root, .opts = opts, .err = err };

	r = check_sources(&ed, src, n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < ELEMENTSOF(steps); i++) {
		r = steps[i](&ed, src, n);
		if (r < 0)
			return r;
	}
	return commit(oci, root, err);
}

_public_ int cdi_apply_edits(json_t *oci, const json_t *edits,
			     const struct cdi_inject_options *opts, struct cdi_error *err)
{
	struct cdi_edit_source src = { .edits = edits, .field = "containerEdits" };

	if (!edits || json_is_null(edits)) {
		if (!json_is_object(oci))
			return cdi_fail(err, -EINVAL, "can't edit OCI spec: not a JSON object");
		return 0;
	}
	return cdi_apply_edit_sources(oci, &src, 1, opts, err);
}
