/* SPDX-License-Identifier: Apache-2.0 */
/*
 * In a user namespace the kernel refuses init_module and mknod of real devices, and the modules
 * and nodes would be the host's anyway: the boot steps skip themselves there, as
 * libnvidia-container's --load-kmods does (init_within_userns in nvc.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"
#include "macro.h"
#include "problem.h"
#include "userns.h"

#define MAP_MAX_FILE 4096u

int userns_parse_map(const char *buf, size_t len, bool *ret_initial)
{
	char line[128];
	const char *nl = memchr(buf, '\n', len);
	size_t n = nl ? (size_t)(nl - buf) : len;
	uint32_t inside, outside, count;
	char extra;

	if (n == 0) {
		*ret_initial = false;
		return 0;
	}
	if (n >= sizeof(line))
		return -EINVAL;
	memcpy(line, buf, n);
	line[n] = '\0';
	if (sscanf(line, "%" SCNu32 " %" SCNu32 " %" SCNu32 " %c", &inside, &outside, &count,
		   &extra) != 3)
		return -EINVAL;
	*ret_initial = inside == 0 && outside == 0 && count == UINT32_MAX;
	return 0;
}

/* Whether the map file at proc_dir/self/<file> is the identity; a missing file counts as one. */
static int map_is_initial(const char *proc_dir, const char *file, bool *ret, struct cdi_error *err)
{
	_cleanup_free_ char *path = NULL, *buf = NULL;
	size_t len;
	int r;

	if (asprintf(&path, "%s/self/%s", proc_dir, file) < 0)
		return -ENOMEM;
	r = cdi_read_file(path, MAP_MAX_FILE, &buf, &len);
	if (r == -ENOENT) {
		*ret = true; /* no user namespaces in this kernel */
		return 0;
	}
	if (r < 0)
		return cdi_problem_add(err, r, path, 0, 0, NULL, "cannot read: %s", strerror(-r));
	r = userns_parse_map(buf, len, ret);
	if (r < 0)
		return cdi_problem_add(err, r, path, 1, 0, NULL,
				       "not \"<inside> <outside> <count>\"");
	return 0;
}

int userns_detect(const char *proc_dir, bool *ret_in_userns, struct cdi_error *err)
{
	bool uid_initial, gid_initial;
	int r;

	r = map_is_initial(proc_dir, "uid_map", &uid_initial, err);
	if (r < 0)
		return r;
	r = map_is_initial(proc_dir, "gid_map", &gid_initial, err);
	if (r < 0)
		return r;
	*ret_in_userns = !uid_initial || !gid_initial;
	return 0;
}
