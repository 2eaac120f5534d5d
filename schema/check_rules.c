/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The second pass of the spec check: the reference's validation rules (pkg/cdi spec.go
 * validate, container-edits.go Validate, the name and version rules), on a tree whose types
 * the first pass has checked, in the reference's order: the version, the kind, the spec-level
 * edits, each device (name, edits present, edits valid, unique name) and "no devices".
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check_rules.h"
#include "check_pass.h"

static json_t *get(const json_t *obj, const char *key, json_type type)
{
	json_t *v = json_object_get(obj, key);

	return v && json_typeof(v) == type ? v : NULL;
}

static bool has_nul(const json_t *s)
{
	return memchr(json_string_value(s), '\0', json_string_length(s)) != NULL;
}

static bool str_is(const json_t *s, const char *want)
{
	return json_string_length(s) == strlen(want) &&
	       memcmp(json_string_value(s), want, strlen(want)) == 0;
}

/* Where an earlier node is, for "first at ...": its line when known, else its path. */
static const char *first_at(const struct check *c, char buf[static PATH_SIZE], const json_t *node,
			    const struct path *path)
{
	unsigned line, column;

	if (node && !json_is_boolean(node) && !json_is_null(node) &&
	    cdi_marks_find(c->marks, node, &line, &column))
		bprintf(buf, PATH_SIZE, "line %u", line);
	else
		render_path(path, buf, PATH_SIZE);
	return buf;
}

static void check_nonempty(struct check *c, const json_t *s, const struct path *path,
			   struct loc loc)
{
	if (s && json_string_length(s) == 0)
		problem(c, loc_of(c, s, loc), path, "must not be empty");
}

/* Strict: a path in the container or on the host must be absolute. */
static void check_absolute(struct check *c, const json_t *s, const struct path *path,
			   struct loc loc)
{
	char q[CDI_QUOTE_MAX];

	if (strict(c) && s && json_string_length(s) > 0 && json_string_value(s)[0] != '/')
		problem(c, loc_of(c, s, loc), path, "%s is not an absolute path", quote_json(q, s));
}

/* ValidateEnv: "=" at an index > 0. */
static void check_env(struct check *c, const json_t *env, const struct path *path, struct loc ploc)
{
	char q[CDI_QUOTE_MAX];
	struct loc loc = loc_of(c, env, ploc);
	size_t i;
	json_t *e;

	json_array_foreach (env, i, e) {
		const char *eq;

		if (!json_is_string(e))
			continue;
		eq = memchr(json_string_value(e), '=', json_string_length(e));
		if (eq && eq != json_string_value(e))
			continue;
		problem(c, loc_of(c, e, loc), INDEX(path, i), "%s is not NAME=VALUE%s",
			quote_json(q, e), eq ? " (the name is empty)" : "");
	}
}

static void check_device_node(struct check *c, const json_t *node, const struct path *path,
			      struct loc loc)
{
	json_t *p = get(node, "path", JSON_STRING), *type = get(node, "type", JSON_STRING);
	json_t *perms = get(node, "permissions", JSON_STRING), *mode;
	char q[CDI_QUOTE_MAX];

	check_nonempty(c, p, AT(path, "path"), loc);
	check_absolute(c, p, AT(path, "path"), loc);
	check_absolute(c, get(node, "hostPath", JSON_STRING), AT(path, "hostPath"), loc);

	if (type && !(json_string_length(type) == 0 ||
		      (json_string_length(type) == 1 && json_string_value(type)[0] &&
		       strchr("bcup", json_string_value(type)[0]))))
		problem(c, loc_of(c, type, loc), AT(path, "type"),
			"invalid device node type %s (want b, c, u or p)", quote_json(q, type));

	if (strict(c)) {
		static const char *const numbers[] = { "major", "minor" };

		for (size_t i = 0; i < ELEMENTSOF(numbers); i++) {
			json_t *n = get(node, numbers[i], JSON_INTEGER);

			/* -1 is the wildcard of device cgroup rules. */
			if (n && json_integer_value(n) < 0)
				problem(c, loc_of(c, n, loc), AT(path, numbers[i]),
					"negative device number %" JSON_INTEGER_FORMAT,
					json_integer_value(n));
		}
		mode = get(node, "fileMode", JSON_INTEGER);
		if (mode && (json_integer_value(mode) & ~(json_int_t)07777))
			problem(c, loc_of(c, mode, loc), AT(path, "fileMode"),
				"fileMode %#llo has bits beyond 07777",
				(unsigned long long)json_integer_value(mode));
	}

	if (perms && !str_is(perms, "none")) {
		for (size_t i = 0; i < json_string_length(perms); i++) {
			char ch = json_string_value(perms)[i];

			if (ch == 'r' || ch == 'w' || ch == 'm')
				continue;
			problem(c, loc_of(c, perms, loc), AT(path, "permissions"),
				"invalid permissions %s (want r, w and m, or \"none\")",
				quote_json(q, perms));
			break;
		}
	}
}

static void check_hook(struct check *c, const json_t *hook, const struct path *path, struct loc loc)
{
	static const char *const names[] = { "prestart",       "createRuntime", "createContainer",
					     "startContainer", "poststart",	"poststop" };
	json_t *name = get(hook, "hookName", JSON_STRING), *p = get(hook, "path", JSON_STRING);
	json_t *env = get(hook, "env", JSON_ARRAY), *timeout;
	char q[CDI_QUOTE_MAX];

	if (name) {
		bool known = false;

		for (size_t i = 0; i < ELEMENTSOF(names) && !known; i++)
			known = str_is(name, names[i]);
		if (!known)
			problem(c, loc_of(c, name, loc), AT(path, "hookName"),
				"invalid hook name %s (want prestart, createRuntime, createContainer, startContainer, poststart or poststop)",
				quote_json(q, name));
	}
	check_nonempty(c, p, AT(path, "path"), loc);
	check_absolute(c, p, AT(path, "path"), loc);
	if (env)
		check_env(c, env, AT(path, "env"), loc);
	timeout = get(hook, "timeout", JSON_INTEGER);
	if (strict(c) && timeout && json_integer_value(timeout) <= 0)
		problem(c, loc_of(c, timeout, loc), AT(path, "timeout"),
			"timeout %" JSON_INTEGER_FORMAT " is not positive",
			json_integer_value(timeout));
}

/* A bind mount's hostPath is a host path; other mounts' is a source name ("tmpfs"). */
static bool is_bind_mount(const json_t *mount)
{
	json_t *type = get(mount, "type", JSON_STRING),
	       *options = get(mount, "options", JSON_ARRAY);
	size_t i;
	json_t *o;

	if (type && str_is(type, "bind"))
		return true;
	json_array_foreach (options, i, o)
		if (json_is_string(o) && (str_is(o, "bind") || str_is(o, "rbind")))
			return true;
	return false;
}

static void check_mount(struct check *c, const json_t *mount, const struct path *path,
			struct loc loc)
{
	json_t *host = get(mount, "hostPath", JSON_STRING);
	json_t *ctr = get(mount, "containerPath", JSON_STRING);

	check_nonempty(c, host, AT(path, "hostPath"), loc);
	if (is_bind_mount(mount))
		check_absolute(c, host, AT(path, "hostPath"), loc);
	check_nonempty(c, ctr, AT(path, "containerPath"), loc);
	check_absolute(c, ctr, AT(path, "containerPath"), loc);
}

/* The reference: closID is "/" (the root group) or a valid file name. */
static void check_intel_rdt(struct check *c, const json_t *rdt, const struct path *path,
			    struct loc ploc)
{
	json_t *id = get(rdt, "closID", JSON_STRING);
	struct loc loc = loc_of(c, id, loc_of(c, rdt, ploc));
	const struct path *sub = AT(path, "closID");
	char q[CDI_QUOTE_MAX];
	size_t len;

	if (!id || str_is(id, "/"))
		return;
	len = json_string_length(id);
	if (len >= 4096)
		problem(c, loc, sub, "closID is %zu bytes long (at most 4095)", len);
	else if (str_is(id, ".") || str_is(id, ".."))
		problem(c, loc, sub, "invalid closID %s (must be a file name)", quote_json(q, id));
	else if (memchr(json_string_value(id), '/', len))
		problem(c, loc, sub,
			"invalid closID %s (contains '/'; only \"/\" alone names the root group)",
			quote_json(q, id));
	else if (memchr(json_string_value(id), '\n', len))
		problem(c, loc, sub, "invalid closID %s (contains a newline)", quote_json(q, id));
}

/* Strict: what the kernel's dev_valid_name() accepts. */
static void check_ifname(struct check *c, const json_t *s, const struct path *path, struct loc loc)
{
	const char *v = json_string_value(s);
	size_t len = json_string_length(s);
	char q[CDI_QUOTE_MAX];
	bool ok = len > 0 && len < 16 && !str_is(s, ".") && !str_is(s, "..");

	for (size_t i = 0; i < len && ok; i++)
		ok = v[i] != '/' && v[i] != ':' && v[i] != '\0' && v[i] != ' ' &&
		     !(v[i] >= '\t' && v[i] <= '\r');
	if (!ok)
		problem(c, loc_of(c, s, loc), path,
			"invalid network interface name %s (1 to 15 bytes, no '/', ':' or whitespace, not \".\" or \"..\")",
			quote_json(q, s));
}

/* ValidateNetDevices: both names set, each unique within the edits. */
static void check_net_devices(struct check *c, const json_t *devs, const struct path *path,
			      struct loc ploc)
{
	static const char *const keys[] = { "hostInterfaceName", "name" };
	_cleanup_json_ json_t *hosts = json_object(), *names = json_object();
	json_t *seen[2] = { hosts, names };
	struct loc loc = loc_of(c, devs, ploc);
	char at[PATH_SIZE], q[CDI_QUOTE_MAX];
	size_t i;
	json_t *dev;

	if (!hosts || !names) {
		oom(c);
		return;
	}
	json_array_foreach (devs, i, dev) {
		struct loc dloc = loc_of(c, dev, loc);

		if (!json_is_object(dev))
			continue;
		for (size_t k = 0; k < ELEMENTSOF(keys); k++) {
			json_t *s = get(dev, keys[k], JSON_STRING), *prev;
			const struct path *field = AT(INDEX(path, i), keys[k]);

			if (!s)
				continue;
			if (json_string_length(s) == 0) {
				problem(c, loc_of(c, s, dloc), field, "must not be empty");
				continue;
			}
			if (strict(c))
				check_ifname(c, s, field, dloc);
			prev = json_object_getn(seen[k], json_string_value(s),
						json_string_length(s));
			if (prev) {
				size_t first = (size_t)json_integer_value(prev);

				problem(c, loc_of(c, s, dloc), field,
					"duplicate %s %s (first at %s)", keys[k], quote_json(q, s),
					first_at(c, at,
						 get(json_array_get(devs, first), keys[k],
						     JSON_STRING),
						 AT(INDEX(path, first), keys[k])));
			} else if (json_object_setn_new(seen[k], json_string_value(s),
							json_string_length(s),
							json_integer((json_int_t)i)) < 0) {
				oom(c);
				return;
			}
		}
	}
}

static void check_objects(struct check *c, const json_t *edits, const char *key,
			  const struct path *path, struct loc loc,
			  void (*fn)(struct check *, const json_t *, const struct path *,
				     struct loc))
{
	json_t *arr = get(edits, key, JSON_ARRAY), *e;
	const struct path *apath = AT(path, key);
	struct loc aloc = loc_of(c, arr, loc);
	size_t i;

	json_array_foreach (arr, i, e)
		if (json_is_object(e))
			fn(c, e, INDEX(apath, i), loc_of(c, e, aloc));
}

/* ContainerEdits.Validate, in its order. */
static void check_edits(struct check *c, const json_t *edits, const struct path *path,
			struct loc ploc)
{
	struct loc loc = loc_of(c, edits, ploc);
	json_t *env = get(edits, "env", JSON_ARRAY), *rdt = get(edits, "intelRdt", JSON_OBJECT);
	json_t *net = get(edits, "netDevices", JSON_ARRAY);

	if (env)
		check_env(c, env, AT(path, "env"), loc);
	check_objects(c, edits, "deviceNodes", path, loc, check_device_node);
	check_objects(c, edits, "hooks", path, loc, check_hook);
	check_objects(c, edits, "mounts", path, loc, check_mount);
	if (rdt)
		check_intel_rdt(c, rdt, AT(path, "intelRdt"), loc);
	if (net)
		check_net_devices(c, net, AT(path, "netDevices"), loc);
}

/*
 * isEmpty: no env, deviceNodes, hooks, mounts, additionalGids, netDevices (empty lists count
 * as none) and no intelRdt. A member of the wrong type or an unknown one was reported already
 * and counts as an edit: "no container edits" on top would only repeat it.
 */
static bool edits_empty(const json_t *edits)
{
	const char *key;
	json_t *v;

	json_object_foreach ((json_t *)edits, key, v)
		if (!json_is_array(v) || json_array_size(v) > 0 || strcmp(key, "intelRdt") == 0)
			return false;
	return true;
}

/*
 * Strict: the annotation rule the reference means to apply (k8s ValidateAnnotations, a no-op
 * in the reference when loading): each key, lowercased, a qualified name, and at most 256 KiB
 * of keys and values in all.
 */
static const char *annotation_key_problem(const char *key, size_t len)
{
	const char *slash = memchr(key, '/', len), *name = key;
	size_t nlen = len;

	if (slash) {
		size_t plen = (size_t)(slash - key);

		if (memchr(slash + 1, '/', len - plen - 1))
			return "a qualified name has at most one '/'";
		if (plen == 0)
			return "the prefix before '/' must not be empty";
		if (plen > 253)
			return "the prefix before '/' must be at most 253 bytes";
		/* DNS-1123 subdomain, on the lowercased key. */
		for (size_t i = 0, label = 0; i < plen; i++) {
			char ch = (char)((key[i] >= 'A' && key[i] <= 'Z') ? key[i] - 'A' + 'a'
									  : key[i]);
			bool alnum = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');

			if (ch == '.') {
				if (label == 0 || key[i - 1] == '-')
					return "the prefix must be a DNS subdomain (lowercase letters, digits, '-' and '.', each label starting and ending with a letter or digit)";
				label = 0;
				continue;
			}
			if (!alnum && ch != '-')
				return "the prefix must be a DNS subdomain (lowercase letters, digits, '-' and '.', each label starting and ending with a letter or digit)";
			if (label == 0 && ch == '-')
				return "the prefix must be a DNS subdomain (lowercase letters, digits, '-' and '.', each label starting and ending with a letter or digit)";
			label++;
		}
		if (key[plen - 1] == '-' || key[plen - 1] == '.')
			return "the prefix must be a DNS subdomain (lowercase letters, digits, '-' and '.', each label starting and ending with a letter or digit)";
		name = slash + 1;
		nlen = len - plen - 1;
	}
	if (nlen == 0)
		return "the name must not be empty";
	if (nlen > 63)
		return "the name must be at most 63 bytes";
	for (size_t i = 0; i < nlen; i++) {
		char ch = name[i];
		bool alnum = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			     (ch >= '0' && ch <= '9');

		if (alnum)
			continue;
		if ((ch == '-' || ch == '_' || ch == '.') && i > 0 && i + 1 < nlen)
			continue;
		return "the name must consist of letters, digits, '-', '_' or '.', and start and end with a letter or digit";
	}
	return NULL;
}

static void check_annotations(struct check *c, const json_t *ann, const struct path *path,
			      struct loc ploc)
{
	struct loc loc = loc_of(c, ann, ploc);
	char q[CDI_QUOTE_MAX];
	size_t total = 0;

	if (!strict(c) || !ann)
		return;
	for (void *it = json_object_iter((json_t *)ann); it;
	     it = json_object_iter_next((json_t *)ann, it)) {
		const char *key = json_object_iter_key(it);
		size_t len = json_object_iter_key_len(it);
		json_t *v = json_object_iter_value(it);
		const char *why = annotation_key_problem(key, len);

		total += len + (json_is_string(v) ? json_string_length(v) : 0);
		if (why)
			problem(c, loc_of(c, v, loc), path, "invalid annotation key %s: %s",
				cdi_quote(q, sizeof(q), key, len), why);
	}
	if (total > 256 * 1024)
		problem(c, loc, path, "annotations take %zu bytes (at most 262144)", total);
}

/* ValidateVersion: a known version, and not older than what the content needs. */
static void check_version(struct check *c, const json_t *root, struct loc rloc)
{
	json_t *v = get(root, "cdiVersion", JSON_STRING);
	struct loc loc = loc_of(c, v, rloc);
	char q[CDI_QUOTE_MAX], hint[160] = "", why[PATH_SIZE];
	const char *declared, *min;

	if (!v)
		return;
	declared = json_string_value(v);
	if (has_nul(v) || cdi_version_index(declared) < 0) {
		const char *base = c->version_number[0] ? c->version_number : declared;
		char guess[80] = "";

		/* 1.0 (a number) and "1.0" both probably meant 1.0.0. */
		if (strlen(base) < 32)
			bprintf(guess, sizeof(guess), "%s%s", base,
				strchr(base, '.') ? ".0" : ".0.0");
		if (cdi_version_index(guess) < 0)
			guess[0] = '\0';
		if (c->version_number[0] && c->version_was_real)
			bprintf(hint, sizeof(hint),
				" (an unquoted %s reads as the number %s; write \"%s\")",
				c->version_number, declared, guess[0] ? guess : c->version_number);
		else if (c->version_number[0])
			bprintf(hint, sizeof(hint), " (an unquoted %s is a number; write \"%s\")",
				c->version_number, guess[0] ? guess : c->version_number);
		else if (!has_nul(v) && guess[0])
			bprintf(hint, sizeof(hint), " (did you mean \"%s\"?)", guess);
		problem(c, loc, AT(NULL, "cdiVersion"), "invalid version %s%s", quote_json(q, v),
			hint);
		return;
	}
	min = cdi_required_version(root, why, sizeof(why));
	if (cdi_version_index(min) >= cdi_version_index(declared))
		return;
	if (why[0])
		problem(c, loc, AT(NULL, "cdiVersion"),
			"the spec version must be at least v%s (%s needs it), got %s", min, why,
			declared);
	else
		problem(c, loc, AT(NULL, "cdiVersion"),
			"the spec version must be at least v%s (the earliest supported), got %s",
			min, declared);
}

/* ParseQualifier, then the vendor and the class rule. */
static void check_kind(struct check *c, const json_t *root, struct loc rloc)
{
	json_t *kind = get(root, "kind", JSON_STRING);
	struct loc loc = loc_of(c, kind, rloc);
	char q[CDI_QUOTE_MAX], msg[2 * CDI_QUOTE_MAX + 128];
	const char *s, *slash;
	size_t len;

	if (!kind)
		return;
	s = json_string_value(kind);
	len = json_string_length(kind);
	slash = memchr(s, '/', len);
	if (!slash || slash == s || slash + 1 == s + len) {
		problem(c, loc, AT(NULL, "kind"), "invalid kind %s (want vendor/class)",
			quote_json(q, kind));
		return;
	}
	if (cdi_name_message(msg, sizeof(msg), CDI_NAME_VENDOR, "vendor", s, (size_t)(slash - s)) >=
	    0)
		problem(c, loc, AT(NULL, "kind"), "%s", msg);
	if (cdi_name_message(msg, sizeof(msg), CDI_NAME_CLASS, "class", slash + 1,
			     len - (size_t)(slash - s) - 1) >= 0)
		problem(c, loc, AT(NULL, "kind"), "%s", msg);
}

static void check_devices(struct check *c, const json_t *root, struct loc rloc)
{
	json_t *devs = get(root, "devices", JSON_ARRAY), *dev;
	_cleanup_json_ json_t *seen = NULL;
	const struct path *top = AT(NULL, "devices");
	struct loc aloc = loc_of(c, devs, rloc);
	char at[PATH_SIZE], q[CDI_QUOTE_MAX], msg[2 * CDI_QUOTE_MAX + 128];
	size_t i;

	if (!devs)
		return;
	seen = json_object();
	if (!seen) {
		oom(c);
		return;
	}
	json_array_foreach (devs, i, dev) {
		const struct path *path = INDEX(top, i);
		struct loc dloc = loc_of(c, dev, aloc);
		json_t *name, *edits, *prev;

		if (!json_is_object(dev))
			continue;
		name = get(dev, "name", JSON_STRING);
		if (name &&
		    cdi_name_message(msg, sizeof(msg), CDI_NAME_DEVICE, "device name",
				     json_string_value(name), json_string_length(name)) >= 0)
			problem(c, loc_of(c, name, dloc), AT(path, "name"), "%s", msg);

		check_annotations(c, get(dev, "annotations", JSON_OBJECT), AT(path, "annotations"),
				  dloc);

		edits = json_object_get(dev, "containerEdits");
		if (!edits || (json_is_object(edits) && edits_empty(edits))) {
			if (name)
				problem(c, loc_of(c, edits, dloc), AT(path, "containerEdits"),
					"device %s has no container edits", quote_json(q, name));
			else
				problem(c, loc_of(c, edits, dloc), AT(path, "containerEdits"),
					"the device has no container edits");
		} else if (json_is_object(edits)) {
			check_edits(c, edits, AT(path, "containerEdits"), dloc);
		}

		if (!name)
			continue;
		prev = json_object_getn(seen, json_string_value(name), json_string_length(name));
		if (prev) {
			size_t first = (size_t)json_integer_value(prev);

			problem(c, loc_of(c, name, dloc), AT(path, "name"),
				"duplicate device name %s (first at %s)", quote_json(q, name),
				first_at(c, at,
					 get(json_array_get(devs, first), "name", JSON_STRING),
					 AT(INDEX(top, first), "name")));
		} else if (json_object_setn_new(seen, json_string_value(name),
						json_string_length(name),
						json_integer((json_int_t)i)) < 0) {
			oom(c);
			return;
		}
	}
	if (json_array_size(devs) == 0)
		problem(c, aloc, top, "no devices");
}

void check_rules(struct check *c, const json_t *root, struct loc rloc)
{
	json_t *edits = get(root, "containerEdits", JSON_OBJECT);

	check_version(c, root, rloc);
	check_kind(c, root, rloc);
	check_annotations(c, get(root, "annotations", JSON_OBJECT), AT(NULL, "annotations"), rloc);
	if (edits)
		check_edits(c, edits, AT(NULL, "containerEdits"), rloc);
	check_devices(c, root, rloc);
}
