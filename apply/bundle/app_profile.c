/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app_profile.h"
#include "bundle_config.h"
#include "macro.h"
#include "problem.h"

#define NVIDIA_MAJOR 195
#define MAX_MINOR 64u

static bool gpu_minor(const json_t *dev, unsigned *ret)
{
	const char *path = json_string_value(json_object_get(dev, "path"));
	const char *type = json_string_value(json_object_get(dev, "type"));
	const json_t *major = json_object_get(dev, "major");
	char *end;
	unsigned long n;

	if (!path || strncmp(path, "/dev/nvidia", 11) != 0 || path[11] < '0' || path[11] > '9')
		return false;
	if (type && strcmp(type, "c") != 0)
		return false;
	if (json_is_integer(major) && json_integer_value(major) != NVIDIA_MAJOR)
		return false;
	errno = 0;
	n = strtoul(path + 11, &end, 10);
	if (errno || *end || n >= MAX_MINOR)
		return false;
	*ret = (unsigned)n;
	return true;
}

uint64_t app_profile_gpu_mask(const json_t *oci)
{
	const json_t *devs = json_object_get(json_object_get(oci, "linux"), "devices");
	const json_t *dev;
	uint64_t mask = 0;
	unsigned minor;
	size_t i;

	json_array_foreach (devs, i, dev)
		if (gpu_minor(dev, &minor))
			mask |= UINT64_C(1) << minor;
	return mask;
}

int app_profile_format(uint64_t mask, char ret[APP_PROFILE_MAX])
{
	int n = snprintf(ret, APP_PROFILE_MAX,
			 "{\"profiles\":[{\"name\":\"_container_\",\"settings\":"
			 "[\"EGLVisibleDGPUDevices\",0x%llx]}],"
			 "\"rules\":[{\"pattern\":[],\"profile\":\"_container_\"}]}\n",
			 (unsigned long long)mask);
	return n > 0 && n < APP_PROFILE_MAX ? n : -EOVERFLOW;
}

static json_t *profile_mount(json_t *oci)
{
	json_t *mounts = json_object_get(oci, "mounts"), *m, *found = NULL;
	size_t i;

	/* The last one wins, as it does for the runtime. */
	json_array_foreach (mounts, i, m)
		if (json_is_string(json_object_get(m, "destination")) &&
		    strcmp(json_string_value(json_object_get(m, "destination")),
			   APP_PROFILE_CONTAINER_PATH) == 0)
			found = m;
	return found;
}

int bundle_app_profile(json_t *oci, const char *bundle, struct cdi_error *err)
{
	_cleanup_free_ char *dir = NULL, *source = NULL;
	_cleanup_close_ int dfd = -1;
	char text[APP_PROFILE_MAX];
	struct stat like = { .st_mode = S_IFREG | 0644, .st_uid = geteuid(), .st_gid = getegid() };
	json_t *mount = profile_mount(oci);
	uint64_t mask;
	int n, r;

	if (!mount)
		return 0;
	mask = app_profile_gpu_mask(oci);
	if (mask == 0)
		return 0;
	n = app_profile_format(mask, text);
	if (n < 0)
		return cdi_fail(err, n, "application profile: mask too long");
	dir = realpath(bundle, NULL);
	if (!dir)
		return cdi_problem_add(err, negative_errno(), bundle, 0, 0, NULL,
				       "cannot resolve the bundle: %s", strerror(errno));
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return cdi_problem_add(err, negative_errno(), dir, 0, 0, NULL,
				       "cannot open the bundle: %s", strerror(errno));
	if (asprintf(&source, "%s/%s", dir, APP_PROFILE_BUNDLE_NAME) < 0) {
		source = NULL;
		return cdi_fail(err, -ENOMEM, "out of memory");
	}
	r = bundle_replace_at(dfd, APP_PROFILE_BUNDLE_NAME, source, text, (size_t)n, &like, 0, err);
	if (r < 0)
		return r;
	if (json_object_set_new(mount, "source", json_string(source)) < 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	return 0;
}
