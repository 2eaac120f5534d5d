/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "host_driver.h"
#include "host_root.h"
#include "macro.h"
#include "problem.h"

/* The file is two short lines. */
#define VERSION_FILE_MAX 4096

/* The driver version on the "NVRM version:" line: its first dotted number. */
static bool version_of(const char *buf, char *ret, size_t size)
{
	const char *p = strstr(buf, "NVRM version:");
	const char *eol = p ? p + strcspn(p, "\n") : NULL;

	while (p && p < eol) {
		size_t len = strspn(p, "0123456789.");

		if (len > 2 && memchr(p, '.', len) && len < size) {
			memcpy(ret, p, len);
			ret[len] = '\0';
			return true;
		}
		p += len ? len : 1;
	}
	return false;
}

int host_driver_version(const char *host_root, char ret[HOST_DRIVER_VERSION_MAX],
			struct cdi_error *err)
{
	struct cdi_error read_err = CDI_ERROR_INIT;
	_cleanup_close_ int root_fd = -1;
	char buf[VERSION_FILE_MAX];
	int r;

	r = host_root_open(host_root, &root_fd, err);
	if (r < 0)
		return r;
	r = host_root_read_small(root_fd, HOST_DRIVER_VERSION_PROC, buf, sizeof(buf), &read_err);
	cdi_error_reset(&read_err);
	if (r < 0 || !version_of(buf, ret, HOST_DRIVER_VERSION_MAX))
		return -ENOENT;
	return 0;
}
