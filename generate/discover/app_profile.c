/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The EGL application profile of each GPU: a discovery source.
 *
 * NVIDIA's EGL and Vulkan drivers enumerate every GPU the kernel module knows, including those
 * whose /dev/nvidia<minor> a container lacks, and fail on them. nvidia-ctk (v1.20) runs an
 * update-application-profile hook at container start that writes
 * /etc/nvidia/nvidia-application-profiles-rc.d/10-container.conf with EGLVisibleDGPUDevices,
 * a bitmask of the /dev/nvidia<minor> minors in the container. Without hooks the same file
 * comes from the host: cdikit installs one per minor (share/cdikit/application-profiles/
 * gpu<minor>.conf, mask 1 << minor, mk/app_profiles.mk), and each GPU's device mounts its own.
 * A runtime that knows the container's whole set of GPUs (cdi-runtime, cdi-apply) replaces it
 * with the combined mask; one that does not (podman, containerd) gets the file of the last GPU
 * device it applied, so EGL sees one GPU of several (docs/graphics.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "discover.h"
#include "macro.h"
#include "problem.h"

/* Where `make install` puts the profiles, for PREFIX=/usr/local and PREFIX=/usr. */
static const char *const profile_dirs[] = {
	"/usr/local/share/cdikit/application-profiles",
	"/usr/share/cdikit/application-profiles",
};

int discover_app_profiles(struct discovery *d)
{
	for (size_t i = 0; i < d->inv->n_gpus; i++) {
		struct gpu_device *gpu = &d->inv->gpus[i];

		/* The mask has 64 bits: a higher minor cannot be named in it. */
		if (gpu->minor >= APP_PROFILE_MAX_MINOR)
			continue;
		for (size_t k = 0; k < ELEMENTSOF(profile_dirs) && !gpu->app_profile; k++) {
			const struct stat *st;
			const char *real;
			char path[128];
			int r;

			snprintf(path, sizeof(path), "%s/gpu%u.conf", profile_dirs[k], gpu->minor);
			r = root_fs_file(&d->host_fs, path, &real, &st);
			if (r == -ENOMEM)
				return cdi_fail(d->err, r, "out of memory");
			if (r < 0 || !S_ISREG(st->st_mode))
				continue;
			if (asprintf(&gpu->app_profile, "%s%s", d->host_fs.root, real) < 0) {
				gpu->app_profile = NULL;
				return cdi_fail(d->err, -ENOMEM, "out of memory");
			}
		}
	}
	return 0;
}
