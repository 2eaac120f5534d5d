/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/rootfs.h"
#include "hook_params.h"
#include "io.h"
#include "macro.h"
#include "problem.h"
#include "read_file.h"

#ifndef MS_NOSYMFOLLOW
#define MS_NOSYMFOLLOW 256
#endif

#define PARAMS_MAX_BYTES (64u * 1024)
#define MODIFY_KEY "ModifyDeviceFiles: "

int params_disable_modification(const char *text, size_t len, char **ret, size_t *ret_len)
{
	_cleanup_free_ char *out = NULL;
	const char *line = text, *end = text + len;
	bool changed = false;
	size_t n = 0;

	out = malloc(len + 2);
	if (!out)
		return -ENOMEM;
	while (line < end) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		size_t l = (size_t)((nl ? nl : end) - line);
		const char *next = nl ? nl + 1 : end;

		/* bufio.ScanLines drops a \r before the newline. */
		if (l > 0 && line[l - 1] == '\r')
			l--;
		if (l >= strlen(MODIFY_KEY) && memcmp(line, MODIFY_KEY, strlen(MODIFY_KEY)) == 0) {
			if (l == strlen(MODIFY_KEY) + 1 && line[l - 1] == '0')
				return 0;
			if (l == strlen(MODIFY_KEY) + 1 && line[l - 1] == '1') {
				memcpy(out + n, MODIFY_KEY "0", l);
				n += l;
				out[n++] = '\n';
				changed = true;
				line = next;
				continue;
			}
		}
		memcpy(out + n, line, l);
		n += l;
		out[n++] = '\n';
		line = next;
	}
	if (!changed)
		return 0;
	out[n] = '\0';
	*ret_len = n;
	*ret = TAKE_PTR(out);
	return 1;
}

int hook_params_read(const char *path, char **ret, size_t *ret_len, struct cdi_error *err)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	int r;

	r = read_regular_at(AT_FDCWD, path, path, PARAMS_MAX_BYTES, READ_MISSING_OK, &text, &len,
			    NULL, err);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	r = params_disable_modification(text, len, ret, ret_len);
	return r < 0 ? cdi_fail(err, r, "out of memory") : r;
}

/* A version 4 UUID, as NVIDIA names the scratch directory. */
static void uuid4(char out[37])
{
	uint8_t b[16] = { 0 };

	if (getrandom(b, sizeof(b), 0) != sizeof(b))
		for (size_t i = 0; i < sizeof(b); i++)
			b[i] = (uint8_t)(getpid() * 131u + i * 7u);
	b[6] = (uint8_t)((b[6] & 0x0f) | 0x40);
	b[8] = (uint8_t)((b[8] & 0x3f) | 0x80);
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
		 b[13], b[14], b[15]);
}

static const char *fd_path(int fd, char buf[32])
{
	snprintf(buf, 32, "/proc/self/fd/%d", fd);
	return buf;
}

/* A tmpfs of size bytes on the scratch directory, and the file in it holding text. */
static int write_scratch(int root_fd, const char *scratch, const char *text, size_t len,
			 struct cdi_error *err)
{
	_cleanup_close_ int dfd = -1, fd = -1;
	char opts[64], p[32];
	int r;

	dfd = rootfs_open_dir(root_fd, scratch, 1);
	if (dfd < 0)
		return cdi_problem_add(err, dfd, scratch, 0, 0, NULL, "%s", strerror(-dfd));
	snprintf(opts, sizeof(opts), "size=%zu", len);
	if (mount("tmpfs", fd_path(dfd, p), "tmpfs", 0, opts) < 0)
		return cdi_problem_add(err, negative_errno(), scratch, 0, 0, NULL,
				       "cannot mount a tmpfs: %s", strerror(errno));
	close(TAKE_FD(dfd));
	/* The tmpfs, not the directory under it. */
	dfd = rootfs_open(root_fd, scratch, O_RDONLY | O_DIRECTORY);
	if (dfd < 0)
		return cdi_problem_add(err, dfd, scratch, 0, 0, NULL, "%s", strerror(-dfd));
	fd = openat(dfd, PARAMS_FILE, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);
	r = fd < 0 ? negative_errno() : cdi_write_all(fd, text, len);
	if (r < 0)
		return cdi_problem_add(err, r, scratch, 0, 0, NULL, "cannot write %s: %s",
				       PARAMS_FILE, strerror(-r));
	return 0;
}

int hook_params_mount(int root_fd, const char *text, size_t len, struct cdi_error *err)
{
	_cleanup_free_ char *scratch = NULL, *file = NULL;
	_cleanup_close_ int src = -1, dst = -1;
	char uuid[37], ps[32], pd[32];
	int r;

	uuid4(uuid);
	if (asprintf(&scratch, PARAMS_SCRATCH_DIR "/%s", uuid) < 0) {
		scratch = NULL;
		return cdi_fail(err, -ENOMEM, "out of memory");
	}
	/* The container's own params file first: without it there is nothing to cover. */
	dst = rootfs_open(root_fd, NVIDIA_PARAMS, O_PATH);
	if (dst < 0)
		return cdi_problem_add(err, dst, NVIDIA_PARAMS, 0, 0, NULL, "in the container: %s",
				       strerror(-dst));
	r = write_scratch(root_fd, scratch, text, len, err);
	if (r < 0)
		return r;
	if (asprintf(&file, "%s/%s", scratch, PARAMS_FILE) < 0) {
		file = NULL;
		return cdi_fail(err, -ENOMEM, "out of memory");
	}
	src = rootfs_open(root_fd, file, O_PATH | O_NOFOLLOW);
	if (src < 0)
		return cdi_problem_add(err, src, file, 0, 0, NULL, "%s", strerror(-src));
	if (mount(fd_path(src, ps), fd_path(dst, pd), NULL, MS_BIND, NULL) < 0)
		return cdi_problem_add(err, negative_errno(), NVIDIA_PARAMS, 0, 0, NULL,
				       "cannot mount %s over it: %s", file, strerror(errno));
	/* The flags go on the new mount: reached through the path again, not the old fd. */
	close(TAKE_FD(dst));
	dst = rootfs_open(root_fd, NVIDIA_PARAMS, O_PATH);
	if (dst < 0 ||
	    mount(NULL, fd_path(dst, pd), NULL,
		  MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NODEV | MS_NOSYMFOLLOW, NULL) < 0 ||
	    mount(NULL, pd, NULL, MS_PRIVATE, NULL) < 0)
		return cdi_problem_add(err, dst < 0 ? dst : negative_errno(), NVIDIA_PARAMS, 0, 0,
				       NULL, "cannot make its mount read-only: %s",
				       strerror(dst < 0 ? -dst : errno));
	return 0;
}
