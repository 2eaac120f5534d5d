/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Driver capabilities as flags the way libnvidia-container's options.h expands them: each
 * capability the container asks for becomes the file groups it mounts, and each recorded tag
 * names the one group its file belongs to.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "driver_caps.h"
#include "problem.h"

/* The groups libnvidia-container mounts by (OPT_* of options.h). */
enum {
	G_UTILITY_BINS = 1u << 0,
	G_UTILITY_LIBS = 1u << 1,
	G_COMPUTE_BINS = 1u << 2,
	G_COMPUTE_LIBS = 1u << 3,
	G_VIDEO_LIBS = 1u << 4,
	G_GRAPHICS_LIBS = 1u << 5,
	G_DISPLAY = 1u << 6,
	G_NGX_LIBS = 1u << 7,
	G_COMPAT32 = 1u << 8,
};

/* Names in libnvidia-container's order, with the groups each brings. */
static const struct {
	const char *name;
	unsigned cap, groups;
} caps_table[] = {
	{ "compute", DRIVER_CAP_COMPUTE, G_COMPUTE_BINS | G_COMPUTE_LIBS },
	{ "compat32", DRIVER_CAP_COMPAT32, G_COMPAT32 },
	{ "display", DRIVER_CAP_DISPLAY, G_DISPLAY | G_GRAPHICS_LIBS },
	{ "graphics", DRIVER_CAP_GRAPHICS, G_GRAPHICS_LIBS },
	{ "ngx", DRIVER_CAP_NGX, G_NGX_LIBS },
	{ "utility", DRIVER_CAP_UTILITY, G_UTILITY_BINS | G_UTILITY_LIBS },
	{ "video", DRIVER_CAP_VIDEO, G_VIDEO_LIBS | G_COMPUTE_LIBS },
};

/* Nodes libnvidia-container ties to a group by their numbers (nvc_mount.c). */
static const struct {
	const char *path, *tag;
} node_defaults[] = {
	{ "/dev/nvidia-uvm", "compute" },
	{ "/dev/nvidia-uvm-tools", "compute" },
	{ "/dev/nvidia-modeset", "display" },
};

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

int driver_caps_parse(const char *value, unsigned *ret_caps, struct cdi_error *err)
{
	const char *s = value, *unknown = NULL;
	size_t unknown_len = 0;
	unsigned caps = 0;
	bool all = false;

	if (!value || !*value) {
		*ret_caps = DRIVER_CAPS_DEFAULT;
		return 0;
	}
	while (s) {
		const char *comma = strchr(s, ','), *end = comma ? comma : s + strlen(s);
		size_t i, len;

		while (s < end && is_space(*s))
			s++;
		while (end > s && is_space(end[-1]))
			end--;
		len = (size_t)(end - s);
		for (i = 0; len && i < ELEMENTSOF(caps_table); i++)
			if (strlen(caps_table[i].name) == len &&
			    !memcmp(s, caps_table[i].name, len))
				break;
		if (len == 3 && !memcmp(s, "all", 3))
			all = true;
		else if (len && i < ELEMENTSOF(caps_table))
			caps |= caps_table[i].cap;
		else if (len && !unknown) {
			unknown = s;
			unknown_len = len;
		}
		s = comma ? comma + 1 : NULL;
	}
	if (all) {
		*ret_caps = DRIVER_CAPS_ALL;
		return 0;
	}
	if (unknown)
		return cdi_problem_add(
			err, -EINVAL, NULL, 0, 0, DRIVER_CAPS_ENV,
			"unknown capability \"%.*s\" (compute, compat32, display, graphics, ngx, utility, video, all)",
			unknown_len > 64 ? 64 : (int)unknown_len, unknown);
	*ret_caps = caps;
	return 0;
}

char *driver_caps_name(unsigned caps, char buf[static DRIVER_CAPS_NAME_MAX])
{
	char *p = buf;

	*p = '\0';
	if ((caps & DRIVER_CAPS_ALL) == DRIVER_CAPS_ALL)
		return strcpy(buf, "all");
	for (size_t i = 0; i < ELEMENTSOF(caps_table); i++)
		if (caps & caps_table[i].cap)
			p += sprintf(p, "%s%s", p == buf ? "" : ",", caps_table[i].name);
	return buf;
}

static unsigned groups_of(unsigned caps)
{
	unsigned g = 0;

	for (size_t i = 0; i < ELEMENTSOF(caps_table); i++)
		if (caps & caps_table[i].cap)
			g |= caps_table[i].groups;
	return g;
}

/* A file mounted among the binaries: its directory is bin or sbin. */
static bool in_bin_dir(const char *path)
{
	const char *end = strrchr(path, '/'), *start = end;
	size_t len;

	if (!end)
		return false;
	while (start > path && start[-1] != '/')
		start--;
	len = (size_t)(end - start);
	return (len == 3 && !memcmp(start, "bin", 3)) || (len == 4 && !memcmp(start, "sbin", 4));
}

/* The groups of a tag's file: a library (or node, socket, config) and, under bin/, a binary. */
static const struct {
	const char *tag;
	unsigned lib, bin;
} tag_table[] = {
	{ "utility", G_UTILITY_LIBS, G_UTILITY_BINS },
	{ "compute", G_COMPUTE_LIBS, G_COMPUTE_BINS },
	{ "video", G_VIDEO_LIBS, G_VIDEO_LIBS },
	{ "graphics", G_GRAPHICS_LIBS, G_GRAPHICS_LIBS },
	{ "display", G_DISPLAY, G_DISPLAY },
	{ "ngx", G_NGX_LIBS, G_NGX_LIBS },
};

/* The groups a tag's file needs, all of them; 0 for a tag we do not know. */
static unsigned tag_groups(const char *tag, const char *path)
{
	size_t len = strcspn(tag, "/");

	if (tag[len] && strcmp(tag + len, "/32") != 0)
		return 0;
	for (size_t i = 0; i < ELEMENTSOF(tag_table); i++)
		if (strlen(tag_table[i].tag) == len && !memcmp(tag, tag_table[i].tag, len))
			return (in_bin_dir(path) ? tag_table[i].bin : tag_table[i].lib) |
			       (tag[len] ? G_COMPAT32 : 0);
	return 0;
}

bool driver_caps_keep(unsigned caps, const char *tag, const char *path)
{
	unsigned need;

	if (!path)
		path = "";
	for (size_t i = 0; !tag && i < ELEMENTSOF(node_defaults); i++)
		if (!strcmp(path, node_defaults[i].path))
			tag = node_defaults[i].tag;
	if (!tag)
		return true;
	need = tag_groups(tag, path);
	return !need || (groups_of(caps) & need) == need;
}

/* A copy of the array field of edits keeping the entries whose key path is kept. */
static int filter_array(json_t *out, const char *field, const char *key, const json_t *tags,
			unsigned caps, struct cdi_error *err)
{
	const json_t *in = json_object_get(out, field), *entry;
	json_t *kept;
	size_t i;

	if (!json_is_array(in))
		return 0;
	kept = json_array();
	if (!kept)
		return cdi_fail(err, -ENOMEM, "out of memory");
	json_array_foreach (in, i, entry) {
		const char *path = json_string_value(json_object_get(entry, key));

		if (!path ||
		    driver_caps_keep(caps, json_string_value(json_object_get(tags, path)), path)) {
			if (json_array_append(kept, (json_t *)entry) < 0) {
				json_decref(kept);
				return cdi_fail(err, -ENOMEM, "out of memory");
			}
		}
	}
	if (json_object_set_new(out, field, kept) < 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	return 0;
}

int driver_caps_filter_edits(const json_t *edits, const json_t *tags, unsigned caps,
			     json_t **ret_edits, struct cdi_error *err)
{
	_cleanup_json_ json_t *out = NULL;
	int r;

	if (!json_is_object(edits))
		return cdi_fail(err, -EINVAL, "containerEdits is not an object");
	out = json_copy((json_t *)edits);
	if (!out)
		return cdi_fail(err, -ENOMEM, "out of memory");
	if (tags) {
		r = filter_array(out, "deviceNodes", "path", tags, caps, err);
		if (r < 0)
			return r;
		r = filter_array(out, "mounts", "containerPath", tags, caps, err);
		if (r < 0)
			return r;
	}
	*ret_edits = TAKE_PTR(out);
	return 0;
}
