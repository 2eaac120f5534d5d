/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Volume-mount device requests, read as nvidia-container-runtime reads them, with one
 * deliberate difference: the runtime compares the destination with the root as a string
 * prefix, so /var/run/nvidia-container-devicesX/0 asks for "X/0"; here the destination must
 * lie under the root directory. The device plugin joins the root and the id, so nothing it
 * writes reads differently.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cdi/names.h>

#include "macro.h"
#include "mount_requests.h"
#include "path_clean.h"
#include "problem.h"
#include "strv.h"
#include "visible_devices.h"

#define CDI_PREFIX "cdi/"
#define IMEX_PREFIX "imex/"

void mount_requests_done(struct mount_requests *m)
{
	if (!m)
		return;
	strv_free(m->gpus);
	strv_free(m->imex);
	strv_free(m->imex_paths);
	*m = (struct mount_requests){ 0 };
}

/* What was read so far. */
struct reader {
	struct strv_set gpus, imex, seen;
	struct strv_builder imex_paths;
};

static void reader_clear(struct reader *rd)
{
	strv_set_clear(&rd->gpus);
	strv_set_clear(&rd->imex);
	strv_set_clear(&rd->seen);
	strv_builder_clear(&rd->imex_paths);
}

/* cdi/<vendor>/<class>/<device> or cdi/<vendor>/<class>=<device> (cdiDeviceMountRequest):
 * the qualified name in *ret; -EINVAL for neither form, -ENOMEM. */
static int cdi_request_name(const char *request, char **ret)
{
	const char *slash1 = strchr(request, '/'), *slash2;

	if (cdi_is_qualified_name(request)) {
		*ret = strdup(request);
		return *ret ? 0 : -ENOMEM;
	}
	slash2 = slash1 ? strchr(slash1 + 1, '/') : NULL;
	if (!slash2 || !slash2[1])
		return -EINVAL;
	if (asprintf(ret, "%.*s=%s", (int)(slash2 - request), request, slash2 + 1) < 0) {
		*ret = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* One mount that is a request: what it asks for (rest: the destination past the root). */
static int read_request(struct reader *rd, const char *dest, const char *rest,
			struct cdi_error *err)
{
	_cleanup_free_ char *name = NULL, *what = NULL;
	int r;

	if (strncmp(rest, IMEX_PREFIX, strlen(IMEX_PREFIX)) == 0) {
		r = strv_set_add(&rd->imex, rest + strlen(IMEX_PREFIX));
		if (r > 0)
			r = strv_builder_add(&rd->imex_paths, dest);
		return r < 0 ? cdi_fail(err, -ENOMEM, "out of memory") : 0;
	}
	if (strncmp(rest, CDI_PREFIX, strlen(CDI_PREFIX)) == 0) {
		r = cdi_request_name(rest + strlen(CDI_PREFIX), &name);
		if (r == -EINVAL && asprintf(&what, "volume mount %.256s", dest) < 0) {
			what = NULL;
			r = -ENOMEM;
		}
		if (r == -ENOMEM)
			return cdi_fail(err, -ENOMEM, "out of memory");
		if (r < 0)
			return cdi_problem_add(
				err, -EINVAL, NULL, 0, 0, what,
				"not a CDI device request (" VOLUME_MOUNTS_ROOT
				"/cdi/<vendor>/<class>/<device> or .../cdi/<vendor>/<class>=<device>)");
	} else {
		name = visible_device_name(rest);
		if (!name)
			return cdi_fail(err, -ENOMEM, "out of memory");
	}
	return strv_set_add(&rd->gpus, name) < 0 ? cdi_fail(err, -ENOMEM, "out of memory") : 0;
}

static int read_mount(struct reader *rd, const json_t *mount, struct cdi_error *err)
{
	const char *source = json_string_value(json_object_get(mount, "source"));
	const char *dest = json_string_value(json_object_get(mount, "destination"));
	const size_t root_len = strlen(VOLUME_MOUNTS_ROOT);
	_cleanup_free_ char *src = NULL, *dst = NULL;
	int r;

	if (!source || !dest)
		return 0;
	src = cdi_path_clean(source);
	dst = cdi_path_clean(dest);
	if (!src || !dst)
		return cdi_fail(err, -ENOMEM, "out of memory");
	if (strcmp(src, "/dev/null") != 0 || strncmp(dst, VOLUME_MOUNTS_ROOT, root_len) != 0 ||
	    dst[root_len] != '/')
		return 0;
	/* The runtime reads each destination once. */
	r = strv_set_add(&rd->seen, dst);
	if (r <= 0)
		return r < 0 ? cdi_fail(err, -ENOMEM, "out of memory") : 0;
	return read_request(rd, dst, dst + root_len + 1, err);
}

int mount_requests_read(const json_t *oci, struct mount_requests *ret, struct cdi_error *err)
{
	const json_t *mounts = json_object_get(oci, "mounts"), *m;
	struct reader rd = { 0 };
	struct mount_requests out = { 0 };
	size_t i;
	int r;

	json_array_foreach (mounts, i, m) {
		r = read_mount(&rd, m, err);
		if (r < 0) {
			reader_clear(&rd);
			return r;
		}
	}
	out.gpus = strv_set_steal(&rd.gpus, &out.n_gpus);
	out.imex = strv_set_steal(&rd.imex, &out.n_imex);
	out.imex_paths = strv_builder_steal(&rd.imex_paths, NULL);
	reader_clear(&rd);
	if (!out.gpus || !out.imex || !out.imex_paths) {
		mount_requests_done(&out);
		return cdi_fail(err, -ENOMEM, "out of memory");
	}
	*ret = out;
	return 0;
}
