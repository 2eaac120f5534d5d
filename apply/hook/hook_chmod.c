/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/rootfs.h"
#include "hook_chmod.h"
#include "macro.h"
#include "problem.h"

#define MODE_BITS (S_IRWXU | S_IRWXG | S_IRWXO | S_ISUID | S_ISGID | S_ISVTX)

int chmod_mode_parse(const char *text, mode_t *ret, struct cdi_error *err)
{
	unsigned long v;
	char *end;

	while (text && (*text == ' ' || *text == '\t'))
		text++;
	if (!text || !*text)
		return cdi_fail(err, -EINVAL, "a non-empty mode must be specified");
	errno = 0;
	v = strtoul(text, &end, 8);
	if (errno || *end || v > 07777 || *text == '-' || *text == '+')
		return cdi_fail(err, -EINVAL, "failed to parse mode as octal: %s", text);
	*ret = (mode_t)v;
	return 0;
}

int hook_chmod(int root_fd, mode_t mode, char *const *paths, size_t n, struct cdi_error *err)
{
	int ret = 0;

	for (size_t i = 0; i < n; i++) {
		_cleanup_close_ int fd = -1;
		char proc[32];
		struct stat st;
		int r;

		if (!*paths[i])
			return cdi_fail(err, -EINVAL, "paths must not be empty");
		fd = rootfs_open(root_fd, paths[i], O_PATH);
		if (fd == -ENOENT)
			continue;
		if (fd < 0 || fstat(fd, &st) < 0) {
			r = fd < 0 ? fd : negative_errno();
			ret = cdi_problem_add(err, r, paths[i], 0, 0, NULL, "%s", strerror(-r));
			continue;
		}
		if ((st.st_mode & MODE_BITS) == mode)
			continue;
		/* An O_PATH fd takes no fchmod: its /proc/self/fd link does, on the file. */
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		if (chmod(proc, mode) == 0 || errno == EPERM || errno == EACCES)
			continue;
		ret = cdi_problem_add(err, negative_errno(), paths[i], 0, 0, NULL,
				      "cannot change its mode: %s", strerror(errno));
	}
	return ret;
}
