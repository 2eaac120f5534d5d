/* SPDX-License-Identifier: Apache-2.0 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "bundle/app_profile.h"
#include "bundle/rootfs.h"
#include "dir_list.h"
#include "hook_profile.h"
#include "macro.h"
#include "problem.h"
#include "strv.h"

#define MAX_MINOR 64u

/* ^nvidia[0-9]+$, character devices (or of a type the directory does not say). */
static bool keep_gpu_node(const char *name, unsigned char d_type, void *userdata)
{
	(void)userdata;
	if (d_type != DT_CHR && d_type != DT_UNKNOWN)
		return false;
	if (strncmp(name, "nvidia", 6) != 0 || !name[6])
		return false;
	return strspn(name + 6, "0123456789") == strlen(name + 6);
}

uint64_t profile_gpu_mask(int root_fd, struct cdi_error *warnings)
{
	_cleanup_strv_free_ char **names = NULL;
	_cleanup_close_ int dfd = rootfs_open(root_fd, "/dev", O_RDONLY | O_DIRECTORY);
	uint64_t mask = 0;
	size_t n = 0;

	if (dfd < 0 || dir_list_fd(dfd, keep_gpu_node, NULL, &names, &n) < 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		struct stat st;

		if (fstatat(dfd, names[i], &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISCHR(st.st_mode))
			continue;
		if (minor(st.st_rdev) >= MAX_MINOR) {
			cdi_fail(
				warnings, -ERANGE,
				"dropping invalid minor number %u of /dev/%s: must be in range [0, 63]",
				minor(st.st_rdev), names[i]);
			continue;
		}
		mask |= UINT64_C(1) << minor(st.st_rdev);
	}
	return mask;
}

/* The profile's directory: each component made where missing, as MkdirAll(dir, 0555). */
static int profile_dir(int root_fd, const char *file, struct cdi_error *err)
{
	_cleanup_free_ char *dir = strndup(file, (size_t)(strrchr(file, '/') - file));
	int fd = -1;

	if (!dir)
		return cdi_fail(err, -ENOMEM, "out of memory");
	for (char *slash = dir + 1;; slash++) {
		bool last = !(slash = strchr(slash, '/'));
		int probe;

		if (!last)
			*slash = '\0';
		probe = rootfs_open(root_fd, dir, O_PATH | O_DIRECTORY);
		if (probe >= 0)
			close(probe);
		else if ((fd = rootfs_open_dir(root_fd, dir, 1)) >= 0) {
			fchmod(fd, 0555);
			close(fd);
		}
		if (last)
			break;
		*slash = '/';
	}
	fd = rootfs_open_dir(root_fd, dir, 0);
	if (fd < 0)
		return cdi_problem_add(err, fd, dir, 0, 0, NULL, "%s", strerror(-fd));
	return fd;
}

int hook_update_application_profile(int root_fd, struct cdi_error *warnings, struct cdi_error *err)
{
	const char *path = APP_PROFILE_CONTAINER_PATH, *name = strrchr(path, '/') + 1;
	_cleanup_close_ int dfd = -1;
	char text[APP_PROFILE_MAX];
	uint64_t mask = profile_gpu_mask(root_fd, warnings);
	mode_t mode = 0444;
	struct stat st;
	int n;

	if (mask == 0)
		return 0;
	n = app_profile_format(mask, text);
	if (n < 0)
		return cdi_fail(err, n, "application profile: mask too long");
	/* NVIDIA's hook writes the profile without the newline the bundle's copy has. */
	if (n > 0 && text[n - 1] == '\n')
		n--;
	dfd = profile_dir(root_fd, path, err);
	if (dfd < 0)
		return dfd;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
		mode = st.st_mode & 07777;
	return rootfs_replace_file(dfd, name, text, (size_t)n, mode, path, err);
}
