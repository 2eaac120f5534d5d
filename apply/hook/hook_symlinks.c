/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/rootfs.h"
#include "hook_symlinks.h"
#include "macro.h"
#include "path_clean.h"
#include "problem.h"

int symlink_replace_at(int dir_fd, const char *name, const char *target)
{
	char tmp[NAME_MAX + 1];
	unsigned rnd = 0;
	int r = -EEXIST;

	if (strlen(name) > NAME_MAX - 20)
		return -ENAMETOOLONG;
	for (unsigned attempt = 0; attempt < 16 && r == -EEXIST; attempt++) {
		if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
			rnd = (unsigned)getpid() * 2654435761u + attempt;
		snprintf(tmp, sizeof(tmp), ".%s.%08x.tmp", name, rnd);
		r = symlinkat(target, dir_fd, tmp) < 0 ? negative_errno() : 0;
	}
	if (r < 0)
		return r;
	if (renameat(dir_fd, tmp, dir_fd, name) == 0)
		return 0;
	r = negative_errno();
	/* ln -sf replaces an empty directory too (NVIDIA's hook removes one); a full one stays. */
	if (r == -EISDIR && unlinkat(dir_fd, name, AT_REMOVEDIR) == 0)
		r = renameat(dir_fd, tmp, dir_fd, name) == 0 ? 0 : negative_errno();
	if (r < 0)
		unlinkat(dir_fd, tmp, 0);
	return r;
}

/* Whether name in dir_fd is already a link saying target. */
static int link_says(int dir_fd, const char *name, const char *target)
{
	char buf[PATH_MAX];
	ssize_t n = readlinkat(dir_fd, name, buf, sizeof(buf));

	return n >= 0 && (size_t)n == strlen(target) && memcmp(buf, target, (size_t)n) == 0;
}

static int create_one(int root_fd, const char *spec, struct cdi_error *err)
{
	const char *sep = strstr(spec, "::");
	_cleanup_free_ char *target = NULL, *link = NULL, *rooted = NULL;
	_cleanup_close_ int dir_fd = -1;
	char *slash;
	const char *base;
	int r;

	if (!sep || sep == spec || !sep[2] || strstr(sep + 2, "::"))
		return cdi_fail(err, -EINVAL, "invalid symlink specification %s", spec);
	target = strndup(spec, (size_t)(sep - spec));
	/* LINK is a path in the container whether or not it starts with '/'. */
	if (!target || asprintf(&rooted, "/%s", sep + 2) < 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	link = cdi_path_clean(rooted);
	if (!link)
		return cdi_fail(err, -ENOMEM, "out of memory");
	slash = strrchr(link, '/');
	base = slash + 1;
	if (!*base)
		return cdi_fail(err, -EINVAL, "invalid symlink specification %s: no link name",
				spec);
	*slash = '\0';
	dir_fd = rootfs_open_dir(root_fd, *link ? link : "/", 1);
	*slash = '/';
	if (dir_fd < 0)
		return cdi_fail(err, dir_fd, "failed to create link [%s %s]: %s: %s", target, link,
				*link ? "its directory" : "the root", strerror(-dir_fd));
	if (link_says(dir_fd, base, target))
		return 0;
	r = symlink_replace_at(dir_fd, base, target);
	if (r < 0)
		return cdi_fail(err, r, "failed to create link [%s %s]: %s", target, link,
				strerror(-r));
	return 0;
}

int hook_create_symlinks(int root_fd, char *const *specs, size_t n, struct cdi_error *err)
{
	for (size_t i = 0; i < n; i++) {
		bool seen = false;
		int r;

		for (size_t j = 0; j < i && !seen; j++)
			seen = strcmp(specs[i], specs[j]) == 0;
		if (seen)
			continue;
		r = create_one(root_fd, specs[i], err);
		if (r < 0)
			return r;
	}
	return 0;
}
