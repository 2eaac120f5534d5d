/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host_root.h"
#include "problem.h"

/* "file: what: strerror(errno)", returning -errno. */
static int fail_errno(struct cdi_error *err, const char *file, const char *what)
{
	int r = negative_errno();

	return cdi_problem_add(err, r, file, 0, 0, NULL, "%s: %s", what, strerror(-r));
}

bool host_root_is_real(const char *root)
{
	return !root || root[strspn(root, "/")] == '\0';
}

int host_root_open(const char *root, int *ret_fd, struct cdi_error *err)
{
	const char *dir = host_root_is_real(root) ? "/" : root;
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return fail_errno(err, dir, "cannot open");
	*ret_fd = fd;
	return 0;
}

char *host_root_join(const char *root, const char *abs_path)
{
	size_t len;
	char *s;

	if (host_root_is_real(root))
		return strdup(abs_path);
	len = strlen(root);
	while (len > 1 && root[len - 1] == '/')
		len--;
	if (asprintf(&s, "%.*s/%s", (int)len, root, host_root_relative(abs_path)) < 0)
		return NULL;
	return s;
}

const char *host_root_relative(const char *abs_path)
{
	abs_path += strspn(abs_path, "/");
	return *abs_path ? abs_path : ".";
}

int host_root_read_small(int root_fd, const char *abs_path, char *buf, size_t size,
			 struct cdi_error *err)
{
	_cleanup_close_ int fd = -1;
	size_t len = 0;
	struct stat st;

	fd = openat(root_fd, host_root_relative(abs_path),
		    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return fail_errno(err, abs_path, "cannot open");
	if (fstat(fd, &st) < 0)
		return fail_errno(err, abs_path, "cannot stat");
	if (!S_ISREG(st.st_mode))
		return cdi_problem_add(err, -EINVAL, abs_path, 0, 0, NULL, "not a regular file");
	for (;;) {
		ssize_t n = read(fd, buf + len, size - 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail_errno(err, abs_path, "cannot read");
		if (n == 0)
			break;
		len += (size_t)n;
		if (len == size - 1)
			return cdi_problem_add(err, -EFBIG, abs_path, 0, 0, NULL,
					       "%zu bytes or more", size - 1);
	}
	buf[len] = '\0';
	return 0;
}
