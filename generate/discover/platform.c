/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What kind of NVIDIA host --mode auto is on. nvidia-ctk asks libdxcore and NVML (go-nvlib's
 * ResolvePlatform); we look at files under the roots, so a --root decides as the host would:
 * - WSL2: /dev/dxg is a character device and there is no /proc/driver/nvidia (a WSL guest has
 *   no NVIDIA kernel module);
 * - Tegra: /etc/nv_tegra_release exists or /sys/devices/soc0/family starts with "tegra", and
 *   the driver lists no GPU in /proc/driver/nvidia/gpus. An Orin's OpenRM display driver has
 *   /proc/driver/nvidia/version but drives no GPU of its own (the iGPU is nvgpu's); a Thor, or
 *   an IGX with a discrete GPU, lists it and is enumerated as a GPU host.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "dir_list.h"
#include "discover.h"
#include "host/host_file.h"
#include "macro.h"
#include "host/procfs.h"
#include "strv.h"

const char *gen_mode_name(enum gen_mode mode)
{
	static const char *const names[] = {
		[MODE_AUTO] = "auto",	    [MODE_NVML] = "nvml",
		[MODE_PROCFS] = "procfs",   [MODE_MANAGEMENT] = "management",
		[MODE_WSL] = "wsl",	    [MODE_CSV] = "csv",
		[MODE_IMEX] = "imex",	    [MODE_NVSWITCH] = "nvswitch",
		[MODE_GDS] = "gds",	    [MODE_MOFED] = "mofed",
		[MODE_GDRCOPY] = "gdrcopy",
	};

	return (size_t)mode < ELEMENTSOF(names) ? names[mode] : NULL;
}

static bool exists(struct root_fs *fs, const char *path, mode_t type)
{
	const struct stat *st;
	const char *real;

	return root_fs_file(fs, path, &real, &st) == 0 && (st->st_mode & S_IFMT) == type;
}

static bool is_tegra(struct discovery *d)
{
	_cleanup_free_ char *family = NULL;
	struct cdi_error ignored = { 0 };

	if (exists(&d->driver_fs, "/etc/nv_tegra_release", S_IFREG))
		return true;
	if (host_file_read(d->host->root, "/sys/devices/soc0/family", 4096, HOST_FILE_OPTIONAL,
			   &family, NULL, &ignored) < 0) {
		cdi_error_reset(&ignored);
		return false;
	}
	return strncasecmp(family, "tegra", 5) == 0;
}

static bool keep_any(const char *name, unsigned char d_type, void *userdata)
{
	(void)d_type;
	(void)userdata;
	return name[0] != '.';
}

/* Whether /proc/driver/nvidia/gpus lists a GPU. */
static bool driver_has_gpus(struct discovery *d)
{
	_cleanup_strv_free_ char **names = NULL;
	size_t n = 0;

	return root_fs_list(&d->host_fs, PROCFS_GPUS, keep_any, NULL, &names, &n, NULL) == 0 &&
	       n > 0;
}

enum gen_mode discover_platform(struct discovery *d)
{
	struct root_fs dev_fs;
	bool dxg;

	root_fs_init(&dev_fs, d->host->dev_root);
	dxg = exists(&dev_fs, "/dev/dxg", S_IFCHR);
	root_fs_clear(&dev_fs);
	/* root_fs_file() resolves the name: a link at /dev/dxg is judged by its target, which
	 * stays inside the root; only the kind of host is decided here, nothing is mounted. */
	if (dxg && !exists(&d->host_fs, PROCFS_DRIVER_DIR, S_IFDIR))
		return MODE_WSL;
	if (is_tegra(d) && !driver_has_gpus(d))
		return MODE_CSV;
	return MODE_AUTO;
}
