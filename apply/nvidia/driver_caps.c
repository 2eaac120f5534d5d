/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Driver capabilities as libnvidia-container's options.h expands them into the groups of files
 * it mounts: each recorded tag says which capabilities bring its file (any one of them will do;
 * a 32-bit file needs compat32 as well).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "driver_caps.h"
#include "problem.h"

#define U DRIVER_CAP_UTILITY
#define C DRIVER_CAP_COMPUTE
#define V DRIVER_CAP_VIDEO
#define G DRIVER_CAP_GRAPHICS
#define D DRIVER_CAP_DISPLAY
#define N DRIVER_CAP_NGX

/* Names in libnvidia-container's order. */
static const struct {
	const char *name;
	unsigned cap;
} caps_table[] = {
	{ "compute", C }, { "compat32", DRIVER_CAP_COMPAT32 },
	{ "display", D }, { "graphics", G },
	{ "ngx", N },	  { "utility", U },
	{ "video", V },
};

/*
 * What brings a tag's file, for a library (or node, socket, config file) and for a binary:
 * video brings compute's libraries but not its binaries (OPT_COMPUTE_LIBS without
 * OPT_COMPUTE_BINS), display brings graphics' libraries.
 */
static const struct {
	const char *tag;
	unsigned lib, bin;
} tag_table[] = {
	{ "utility", U, U },	      { "compute", C | V, C }, { "video", V, V },
	{ "graphics", G | D, G | D }, { "display", D, D },     { "ngx", N, N },
};

/* Nodes libnvidia-container ties to a capability by their numbers (nvc_mount.c). */
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

/* Whether caps bring a file of this tag; an unknown tag goes with every selection. */
static bool tag_kept(unsigned caps, const char *tag, const char *path)
{
	size_t len = strcspn(tag, "/");
	bool bits32 = tag[len] != '\0';

	if (bits32 && strcmp(tag + len, "/32") != 0)
		return true;
	for (size_t i = 0; i < ELEMENTSOF(tag_table); i++)
		if (strlen(tag_table[i].tag) == len && !memcmp(tag, tag_table[i].tag, len))
			return (caps & (in_bin_dir(path) ? tag_table[i].bin : tag_table[i].lib)) &&
			       (!bits32 || (caps & DRIVER_CAP_COMPAT32));
	return true;
}

bool driver_caps_keep(unsigned caps, const char *tag, const char *path)
{
	if (!path)
		path = "";
	for (size_t i = 0; !tag && i < ELEMENTSOF(node_defaults); i++)
		if (!strcmp(path, node_defaults[i].path))
			tag = node_defaults[i].tag;
	return !tag || tag_kept(caps, tag, path);
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
