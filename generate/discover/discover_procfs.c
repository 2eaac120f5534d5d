/* SPDX-License-Identifier: Apache-2.0 */
/*
 * GPUs from /proc: a discovery source for hosts without NVML. The kernel module publishes each
 * GPU's model, UUID, bus id and minor (nv-procfs.c), not its MIG devices.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dir_list.h"
#include "discover.h"
#include "host/host_file.h"
#include "macro.h"
#include "problem.h"
#include "host/procfs.h"
#include "strv.h"

/* NVML orders GPUs by PCI bus id; procfs mode numbers them the same way. */
static int gpu_cmp_bus(const void *a, const void *b)
{
	const struct gpu_device *x = a, *y = b;
	size_t lx = strlen(x->bus_id), ly = strlen(y->bus_id);

	/* Fixed-width lower-case hex compares as text; a longer (8-digit) domain is larger. */
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return strcmp(x->bus_id, y->bus_id);
}

/* The names in a /proc directory (resolved inside the root), sorted; -ENOENT with no problem. */
static int proc_dir_list(struct discovery *d, const char *path, dir_keep_fn keep, char ***ret_names,
			 size_t *ret_n)
{
	int r;

	r = root_fs_list(&d->host_fs, path, keep, NULL, ret_names, ret_n, NULL);
	if (r == -ENOENT)
		return r;
	if (r < 0) {
		_cleanup_free_ char *given = host_path(d->host->root, path);

		return cdi_problem_add(d->err, r, given, 0, 0, NULL,
				       "cannot read the directory: %s", strerror(-r));
	}
	return 0;
}

static bool is_gi_dir(const char *name, unsigned char d_type, void *userdata)
{
	(void)d_type;
	(void)userdata;
	return strncmp(name, "gi", 2) == 0 && isdigit((unsigned char)name[2]);
}

/*
 * Without NVML, MIG mode shows only through the GPU instances the driver publishes
 * (capabilities/gpu<minor>/mig/gi<G>). Such a GPU cannot run as a full GPU, so it is marked and
 * gets no full-GPU entry; its MIG devices need NVML (UUIDs, indexes). MIG mode with no instance
 * yet cannot be told apart.
 */
static int gpu_has_mig_instances(struct discovery *d, unsigned minor, bool *ret)
{
	_cleanup_strv_free_ char **names = NULL;
	char path[128];
	size_t n = 0;
	int r;

	snprintf(path, sizeof(path), PROCFS_DRIVER_DIR "/capabilities/gpu%u/mig", minor);
	r = proc_dir_list(d, path, is_gi_dir, &names, &n);
	if (r < 0 && r != -ENOENT)
		return r;
	*ret = r == 0 && n > 0;
	return 0;
}

static bool is_bus_dir(const char *name, unsigned char d_type, void *userdata)
{
	(void)userdata;
	return name[0] != '.' && (d_type == DT_DIR || d_type == DT_UNKNOWN || d_type == DT_LNK);
}

/* One gpus/<bus>/information file into gpu; *ret_skip for a GPU excluded from use. */
static int read_gpu(struct discovery *d, const char *bus, struct gpu_device *gpu, bool *ret_skip)
{
	_cleanup_free_ char *rel = NULL, *path = NULL, *buf = NULL;
	int r;

	if (asprintf(&rel, PROCFS_GPUS "/%s/information", bus) < 0 ||
	    !(path = host_path(d->host->root, rel)))
		return cdi_fail(d->err, -ENOMEM, "out of memory");
	r = host_file_read(d->host->root, rel, PROCFS_MAX_FILE, 0, &buf, NULL, d->err);
	if (r < 0)
		return r;
	*gpu = (struct gpu_device){ .node = INV_NO_NODE };
	r = procfs_parse_gpu_information(path, buf, gpu, ret_skip, d->err);
	if (r < 0 || *ret_skip)
		return r;
	return gpu_has_mig_instances(d, gpu->minor, &gpu->mig_enabled);
}

/* Number the GPUs in bus order, as NVML does; two with one minor or UUID are an error. */
static int number_gpus(struct discovery *d, struct gpu_device *gpus, size_t n)
{
	qsort(gpus, n, sizeof(*gpus), gpu_cmp_bus);
	for (size_t i = 0; i < n; i++) {
		gpus[i].index = (unsigned)i;
		for (size_t j = 0; j < i; j++)
			if (gpus[j].minor == gpus[i].minor ||
			    strcmp(gpus[j].uuid, gpus[i].uuid) == 0) {
				_cleanup_free_ char *dir = host_path(d->host->root, PROCFS_GPUS);

				return cdi_problem_add(
					d->err, -EINVAL, dir, 0, 0, NULL,
					"GPUs %s and %s share a device minor or UUID",
					gpus[j].bus_id, gpus[i].bus_id);
			}
	}
	return 0;
}

int discover_procfs_gpus(struct discovery *d)
{
	_cleanup_free_ char *dir = host_path(d->host->root, PROCFS_GPUS);
	_cleanup_strv_free_ char **buses = NULL;
	struct gpu_device *gpus = NULL;
	size_t n_buses = 0, n = 0;
	int r;

	if (!dir)
		return cdi_fail(d->err, -ENOMEM, "out of memory");
	r = proc_dir_list(d, PROCFS_GPUS, is_bus_dir, &buses, &n_buses);
	if (r == -ENOENT)
		return cdi_problem_add(d->err, r, dir, 0, 0, NULL,
				       "missing: the driver publishes no GPU");
	if (r < 0)
		return r;
	if (n_buses > GPU_MAX_COUNT)
		return cdi_problem_add(d->err, -E2BIG, dir, 0, 0, NULL, "more than %d GPUs",
				       GPU_MAX_COUNT);
	gpus = calloc(n_buses + 1, sizeof(*gpus));
	if (!gpus)
		return cdi_fail(d->err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < n_buses; i++) {
		bool excluded = false;

		r = read_gpu(d, buses[i], &gpus[n], &excluded);
		if (r < 0)
			break;
		/* An excluded GPU (NVreg_ExcludedGpus) is invisible to NVML and unusable. */
		if (!excluded)
			n++;
	}
	if (r >= 0)
		r = number_gpus(d, gpus, n);
	if (r < 0) {
		free(gpus);
		return r;
	}
	gpu_devices_free(d->inv->gpus, d->inv->n_gpus);
	d->inv->gpus = gpus;
	d->inv->n_gpus = n;
	return 0;
}
