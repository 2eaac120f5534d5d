/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver_caps.h"
#include "lib_tree.h"
#include "macro.h"
#include "problem.h"

#define GROUPS "caps"

struct tree {
	const char *container, *host;
	size_t host_len;
	const json_t *groups;
};

static int oom(struct cdi_error *err)
{
	return cdi_fail(err, -ENOMEM, "out of memory");
}

/* Whether caps bring a group's part: its path in a container decides (bin/: a binary). */
static bool part_kept(const struct tree *t, unsigned caps, const char *group, const json_t *tag,
		      const char *part)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/" GROUPS "/%s/%s/file", t->container, group, part);
	return driver_caps_keep(caps, json_string_value(tag), path);
}

/* Whether caps bring every part of every group: then nothing is split. Every capability does. */
static bool every_group_whole(const struct tree *t, unsigned caps)
{
	const json_t *g, *part;
	const char *name;
	size_t i;

	if ((caps & DRIVER_CAPS_ALL) == DRIVER_CAPS_ALL)
		return true;
	json_object_foreach ((json_t *)t->groups, name, g)
		json_array_foreach (json_object_get(g, "parts"), i, part)
			if (!part_kept(t, caps, name, json_object_get(g, "tag"),
				       json_string_value(part)))
				return false;
	return true;
}

/* A bind mount like model (its options and type) of source at dest. */
static json_t *mount_like(const json_t *model, const char *source, const char *dest)
{
	json_t *m = json_copy((json_t *)model);

	if (!m || json_object_set_new(m, "hostPath", json_string(source)) < 0 ||
	    json_object_set_new(m, "containerPath", json_string(dest)) < 0) {
		json_decref(m);
		return NULL;
	}
	return m;
}

/* The mounts of the groups caps brings into out; *ret_whole when that is every group, whole. */
static int group_mounts(const struct tree *t, const json_t *model, unsigned caps, json_t *out,
			bool *ret_whole)
{
	const json_t *g, *part;
	const char *name;
	size_t i;

	*ret_whole = true;
	json_object_foreach ((json_t *)t->groups, name, g) {
		const json_t *tag = json_object_get(g, "tag"), *parts = json_object_get(g, "parts");
		size_t kept = 0;
		char src[4096], dst[4096];

		json_array_foreach (parts, i, part)
			kept += part_kept(t, caps, name, tag, json_string_value(part));
		if (kept < json_array_size(parts))
			*ret_whole = false;
		if (kept == json_array_size(parts) && kept > 0) {
			snprintf(src, sizeof(src), "%s/" GROUPS "/%s", t->host, name);
			snprintf(dst, sizeof(dst), "%s/" GROUPS "/%s", t->container, name);
			if (json_array_append_new(out, mount_like(model, src, dst)) < 0)
				return -ENOMEM;
			continue;
		}
		json_array_foreach (parts, i, part) {
			const char *p = json_string_value(part);

			if (!part_kept(t, caps, name, tag, p))
				continue;
			snprintf(src, sizeof(src), "%s/" GROUPS "/%s/%s", t->host, name, p);
			snprintf(dst, sizeof(dst), "%s/" GROUPS "/%s/%s", t->container, name, p);
			if (json_array_append_new(out, mount_like(model, src, dst)) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

/* The group whose tag is tag (NULL: the group of files every selection gets). */
static const char *group_of_tag(const struct tree *t, const char *tag)
{
	const json_t *g;
	const char *name;

	json_object_foreach ((json_t *)t->groups, name, g) {
		const char *gt = json_string_value(json_object_get(g, "tag"));

		if ((!gt && !tag) || (gt && tag && strcmp(gt, tag) == 0))
			return name;
	}
	return NULL;
}

/* Whether the group holds the part rel starts with, and caps bring that part. */
static bool group_part_kept(const struct tree *t, unsigned caps, const char *group, const char *rel)
{
	const json_t *g = json_object_get(t->groups, group), *part;
	size_t n = strcspn(rel, "/"), i;

	json_array_foreach (json_object_get(g, "parts"), i, part) {
		const char *p = json_string_value(part);

		if (strlen(p) == n && strncmp(p, rel, n) == 0)
			return part_kept(t, caps, group, json_object_get(g, "tag"), p);
	}
	return false;
}

/* A mount of one of the directory's files, its source moved to its group's copy; NULL when it
 * stays as it is (not the directory's, or no mounted group holds it). */
static json_t *moved_to_group(const struct tree *t, const json_t *mount, const json_t *tags,
			      unsigned caps, bool *ret_oom)
{
	const char *src = json_string_value(json_object_get(mount, "hostPath"));
	const char *dst = json_string_value(json_object_get(mount, "containerPath"));
	const char *rel, *group;
	char moved[4096];
	json_t *m;

	*ret_oom = false;
	if (!src || !dst || strncmp(src, t->host, t->host_len) != 0 || src[t->host_len] != '/')
		return NULL;
	rel = src + t->host_len + 1;
	if (strncmp(rel, GROUPS "/", strlen(GROUPS) + 1) == 0)
		return NULL;
	group = group_of_tag(t, json_string_value(json_object_get(tags, dst)));
	if (!group || !group_part_kept(t, caps, group, rel))
		return NULL;
	snprintf(moved, sizeof(moved), "%s/" GROUPS "/%s/%s", t->host, group, rel);
	m = mount_like(mount, moved, dst);
	*ret_oom = !m;
	return m;
}

int lib_tree_select(json_t *edits, const json_t *tree, const json_t *tags, unsigned caps,
		    struct cdi_error *err)
{
	struct tree t = {
		.container = json_string_value(json_object_get(tree, "containerPath")),
		.host = json_string_value(json_object_get(tree, "hostPath")),
		.groups = json_object_get(tree, "groups"),
	};
	json_t *mounts = json_object_get(edits, "mounts"), *m;
	_cleanup_json_ json_t *out = NULL, *groups = NULL;
	const json_t *dir = NULL;
	bool whole, no_mem;
	size_t i;

	if (!t.container || !t.host || !json_is_object(t.groups) || !json_is_array(mounts))
		return 0;
	t.host_len = strlen(t.host);
	json_array_foreach (mounts, i, m)
		if (json_equal(json_object_get(m, "containerPath"),
			       json_object_get(tree, "containerPath")) &&
		    json_equal(json_object_get(m, "hostPath"), json_object_get(tree, "hostPath")))
			dir = m;
	if (!dir)
		return 0;
	if (every_group_whole(&t, caps))
		return 0; /* the one mount of the directory */
	groups = json_array();
	if (!groups || group_mounts(&t, dir, caps, groups, &whole) < 0)
		return oom(err);
	out = json_array();
	if (!out)
		return oom(err);
	json_array_foreach (mounts, i, m) {
		json_t *moved = m == dir ? NULL : moved_to_group(&t, m, tags, caps, &no_mem);

		if (m == dir ? json_array_extend(out, groups) < 0
			     : no_mem || json_array_append_new(out,
							       moved ? moved : json_incref(m)) < 0)
			return oom(err);
	}
	if (json_object_set(edits, "mounts", out) < 0)
		return oom(err);
	return 0;
}
