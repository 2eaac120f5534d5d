/* SPDX-License-Identifier: Apache-2.0 */
/* Discovery: the sources a mode needs, run in order over one host. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "discover.h"
#include "host/host_file.h"
#include "lib_search.h"
#include "macro.h"
#include "nvml.h"
#include "problem.h"
#include "host/procfs.h"

#define FALLBACK_NOTE "enumerating full GPUs from /proc (no MIG devices)"

/* The kernel module publishes /proc/driver/nvidia as soon as it is loaded. */
static int driver_present(struct discovery *d)
{
	_cleanup_free_ char *path = host_path(d->host->root, PROCFS_DRIVER_DIR);
	struct stat st;
	int r;

	if (!path)
		return cdi_fail(d->err, -ENOMEM, "out of memory");
	r = root_resolve(d->host->root, PROCFS_DRIVER_DIR, NULL, &st);
	if (r == -ENOENT)
		return cdi_fail(d->err, -ENODEV, "no NVIDIA driver found: %s is missing", path);
	if (r < 0)
		return cdi_problem_add(d->err, r, path, 0, 0, NULL, "%s", strerror(-r));
	if (!S_ISDIR(st.st_mode))
		return cdi_problem_add(d->err, -ENOTDIR, path, 0, 0, NULL, "not a directory");
	return 0;
}

/*
 * The driver root's ld.so.cache. Missing is fine; empty or corrupt is one warning and the same
 * fallback (the standard library directories); one that cannot be read safely (a FIFO, a
 * device) is an error.
 */
int discovery_load_cache(struct discovery *d)
{
	_cleanup_free_ char *path = host_path(d->host->driver_root, "/etc/ld.so.cache");
	_cleanup_free_ char *buf = NULL;
	struct cdi_error perr = { 0 };
	size_t len = 0;
	int r;

	if (!path)
		return cdi_fail(d->err, -ENOMEM, "out of memory");
	r = host_file_read(d->host->driver_root, "/etc/ld.so.cache", LDCACHE_MAX_SIZE,
			   HOST_FILE_OPTIONAL, &buf, &len, &perr);
	if (r == -ENOENT)
		return 0;
	/* Too big to be a real cache: corrupt, as far as we are concerned. */
	if (r < 0 && r != -EFBIG) {
		cdi_error_move(d->err, &perr);
		return r;
	}
	if (r == 0 && len == 0)
		r = cdi_problem_add(&perr, -EINVAL, path, 0, 0, NULL, "empty");
	else if (r == 0)
		r = ldcache_parse(buf, len, path, &d->cache, &perr);
	if (r == -ENOMEM) {
		cdi_error_move(d->err, &perr);
		return r;
	}
	if (r < 0)
		cdi_fail(d->warn, r, "%s; searching the standard library directories instead",
			 cdi_error_message(&perr));
	cdi_error_reset(&perr);
	return 0;
}

/* Auto mode without a usable NVML: /proc, and a warning saying why. */
static int procfs_fallback(struct discovery *d, const char *why, const char *proc_version)
{
	cdi_fail(d->warn, 0, "%s; " FALLBACK_NOTE, why);
	memcpy(d->inv->driver_version, proc_version, GPU_VERSION_MAX);
	return discover_procfs_gpus(d);
}

/* The NVML library to load: --nvml-lib, else libnvidia-ml.so.1 of the driver root. */
static int nvml_library(struct discovery *d, const struct discover_options *o, char **ret)
{
	_cleanup_free_ char *real = NULL;
	int r;

	if (o->nvml_lib) {
		*ret = strdup(o->nvml_lib);
		return *ret ? 0 : cdi_fail(d->err, -ENOMEM, "out of memory");
	}
	/* Its real file by its full host path, so a --root never loads the machine's own copy. */
	r = lib_locate(&d->driver_fs, d->cache, NVML_SONAME, &real);
	if (r == -ENOMEM)
		return cdi_fail(d->err, r, "out of memory");
	if (r < 0)
		return r;
	*ret = host_path(d->host->driver_root, real);
	return *ret ? 0 : cdi_fail(d->err, -ENOMEM, "out of memory");
}

/* GPUs by the mode asked for; auto falls back to /proc when NVML cannot be loaded. */
static int discover_gpus(struct discovery *d, const struct discover_options *o,
			 const char *proc_version)
{
	_cleanup_free_ char *lib = NULL, *why = NULL;
	struct cdi_error nerr = { 0 };
	int r;

	if (o->mode == MODE_PROCFS) {
		memcpy(d->inv->driver_version, proc_version, GPU_VERSION_MAX);
		return discover_procfs_gpus(d);
	}
	r = nvml_library(d, o, &lib);
	if (r == -ENOENT) {
		const char *root = *d->host->driver_root ? d->host->driver_root : "/";

		if (o->mode == MODE_AUTO &&
		    asprintf(&why, "no " NVML_SONAME " under %s", root) >= 0)
			return procfs_fallback(d, why, proc_version);
		return cdi_fail(d->err, r,
				"no " NVML_SONAME
				" in %s/etc/ld.so.cache or the library directories",
				d->host->driver_root);
	}
	if (r < 0)
		return r;
	r = nvml_enumerate(lib, d->inv, &nerr);
	if (r == -ELIBACC && o->mode == MODE_AUTO) {
		r = procfs_fallback(d, cdi_error_message(&nerr), proc_version);
		cdi_error_reset(&nerr);
		return r;
	}
	cdi_error_move(d->err, &nerr);
	if (r < 0)
		return r;
	/* A driver upgraded without a reboot: the libraries and the kernel module disagree. */
	if (strcmp(proc_version, d->inv->driver_version) != 0)
		return cdi_fail(d->err, -ESTALE,
				"driver version mismatch: %s reports %s, %s" PROCFS_VERSION
				" %s (driver upgraded without a reboot?)",
				lib, d->inv->driver_version, d->host->root, proc_version);
	return 0;
}

/* The sources of a mode whose spec is not the GPU spec. */
static int run_mode_source(struct discovery *d, enum gen_mode mode)
{
	switch (mode) {
	case MODE_WSL:
		return discover_wsl(d);
	case MODE_CSV:
		return discover_csv(d);
	default:
		return discover_fabric(d, mode);
	}
}

static int run_sources(struct discovery *d, const struct discover_options *o)
{
	char proc_version[GPU_VERSION_MAX];
	enum gen_mode mode = o->mode == MODE_AUTO ? discover_platform(d) : o->mode;
	int r;

	if (mode >= MODE_WSL)
		return run_mode_source(d, mode);
	d->inv->has_driver = true;
	r = driver_present(d);
	if (r >= 0)
		r = procfs_driver_version(d->host->root, proc_version, d->err);
	if (r >= 0)
		r = discovery_load_cache(d);
	if (r < 0)
		return r;
	if (o->mode == MODE_MANAGEMENT) {
		memcpy(d->inv->driver_version, proc_version, GPU_VERSION_MAX);
		r = discover_all_nodes(d);
	} else {
		r = discover_gpus(d, o, proc_version);
		if (r >= 0)
			r = discover_gpu_nodes(d);
		if (r >= 0)
			r = discover_app_profiles(d);
	}
	if (r >= 0)
		r = discover_driver_files(d);
	return r;
}

void discovery_init(struct discovery *d, const struct gen_host *host, struct inventory *inv,
		    struct cdi_error *warn, struct cdi_error *err)
{
	*d = (struct discovery){ .host = host, .inv = inv, .warn = warn, .err = err };
	root_fs_init(&d->host_fs, host->root);
	root_fs_init(&d->driver_fs, host->driver_root);
}

void discovery_done(struct discovery *d)
{
	ldcache_free(d->cache);
	d->cache = NULL;
	root_fs_clear(&d->host_fs);
	root_fs_clear(&d->driver_fs);
}

int discover(const struct gen_host *host, const struct discover_options *opts,
	     struct inventory *inv, struct cdi_error *warn, struct cdi_error *err)
{
	struct discovery d;
	int r;

	discovery_init(&d, host, inv, warn, err);
	d.no_ipc = opts->no_ipc;
	r = run_sources(&d, opts);
	discovery_done(&d);
	return r;
}
