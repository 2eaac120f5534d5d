/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "driver_caps.h"
#include "host_root.h"
#include "mps.h"
#include "problem.h"

static int pipe_dir_edits(const char *root, const char *dir, json_t *edits)
{
	_cleanup_free_ char *host = host_root_join(root, dir), *env = NULL;
	json_t *mount;

	if (!host || asprintf(&env, MPS_PIPE_DIR_ENV "=%s", dir) < 0)
		return -ENOMEM;
	/* The IPC mount options of the generated spec, writable: clients create pipes in it. */
	mount = json_pack("{ss ss s[ssssss]}", "hostPath", host, "containerPath", dir, "options",
			  "rw", "nosuid", "nodev", "noexec", "rbind", "rprivate");
	if (!mount || json_object_set_new(edits, "mounts", json_pack("[o]", mount)) < 0 ||
	    json_object_set_new(edits, "env", json_pack("[s]", env)) < 0)
		return -ENOMEM;
	return 0;
}

int mps_edits(const char *root, const char *pipe_dir, unsigned caps, json_t **ret_edits,
	      struct cdi_error *err)
{
	_cleanup_json_ json_t *edits = json_object();
	_cleanup_close_ int root_fd = -1;
	const char *dir = pipe_dir ? pipe_dir : MPS_PIPE_DIR_DEFAULT;
	struct stat st;
	int r;

	if (!edits)
		return cdi_fail(err, -ENOMEM, "out of memory");
	if (dir[0] != '/')
		return cdi_problem_add(err, -EINVAL, NULL, 0, 0, MPS_PIPE_DIR_ENV,
				       "\"%.64s\" is not an absolute path", dir);
	/* An IPC path of compute, as libnvidia-container has it: compute or video bring it. */
	if (driver_caps_keep(caps, "compute", NULL)) {
		r = host_root_open(root, &root_fd, err);
		if (r < 0)
			return r;
		if (fstatat(root_fd, host_root_relative(dir), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISDIR(st.st_mode) && pipe_dir_edits(root, dir, edits) < 0)
			return cdi_fail(err, -ENOMEM, "out of memory");
	}
	*ret_edits = TAKE_PTR(edits);
	return 0;
}
