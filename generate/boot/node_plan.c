/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The device nodes a loaded NVIDIA driver calls for, read from /proc as nvidia-modprobe and
 * libnvidia-container's --load-kmods find them: majors from /proc/devices, GPU minors from
 * /proc/driver/nvidia/gpus, MIG capability minors and modes from the capability files.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "array.h"
#include "dir_list.h"
#include "host/host.h"
#include "load.h"
#include "macro.h"
#include "node_plan.h"
#include "problem.h"
#include "host/procfs.h"
#include "strv.h"

#define CTL_MINOR 255u
#define MODESET_MINOR 254u
#define CAPS_PROC "/proc/driver/nvidia/capabilities"

struct planner {
	const char *root;
	struct node_plan plan;
	char *devices_path, *devices; /* /proc/devices */
	struct cdi_error *warn, *err;
};

static int plan_add(struct planner *p, char *name, bool in_caps, unsigned major, unsigned minor,
		    const struct dev_file_params *perms, const char *perms_from)
{
	struct node_plan_entry *e;

	if (!name)
		return -ENOMEM;
	if (ARRAY_RESERVE(p->plan.entries, p->plan.cap, p->plan.n + 1) < 0) {
		free(name);
		return -ENOMEM;
	}
	e = &p->plan.entries[p->plan.n];
	*e = (struct node_plan_entry){
		.name = name, .in_caps = in_caps, .major = major, .minor = minor, .perms = *perms
	};
	if (perms_from && !(e->perms_from = strdup(perms_from))) {
		free(name);
		return -ENOMEM;
	}
	p->plan.n++;
	return 0;
}

static char *printf_name(const char *fmt, unsigned n)
{
	char *s;

	return asprintf(&s, fmt, n) < 0 ? NULL : s;
}

/* The major of the first of names listed in /proc/devices: 0, -ENOENT (none), or an error. */
static int char_major(struct planner *p, const char *const *names, size_t n_names, unsigned *ret)
{
	for (size_t i = 0; i < n_names; i++) {
		int r = procfs_parse_char_major(p->devices_path, p->devices, names[i], ret, p->err);

		if (r != -ENOENT)
			return r;
	}
	return -ENOENT;
}

/* A directory entry named prefix + decimal digits (gpu0, gi12, ci3). */
static bool keep_numbered(const char *name, unsigned char d_type _unused_, void *prefix)
{
	size_t n = strlen(prefix);

	if (strncmp(name, prefix, n) != 0 || !name[n])
		return false;
	for (name += n; *name; name++)
		if (!isdigit((unsigned char)*name))
			return false;
	return true;
}

/* The device minors of the GPUs in /proc/driver/nvidia/gpus, sorted; excluded GPUs left out. */
static int gpu_minors(struct planner *p, unsigned **ret, size_t *ret_n)
{
	_cleanup_free_ char *dir = host_path(p->root, "/proc/driver/nvidia/gpus");
	_cleanup_strv_free_ char **names = NULL;
	_cleanup_free_ unsigned *minors = NULL;
	size_t n_names = 0, n = 0;
	int r;

	if (!dir)
		return -ENOMEM;
	r = dir_list_at(AT_FDCWD, dir, 0, NULL, NULL, &names, &n_names);
	if (r == -ENOENT)
		n_names = 0; /* a driver with no GPU bound */
	else if (r < 0)
		return cdi_problem_add(p->err, r, dir, 0, 0, NULL, "cannot list: %s", strerror(-r));
	minors = calloc(n_names + 1, sizeof(*minors));
	if (!minors)
		return -ENOMEM;
	for (size_t i = 0; i < n_names; i++) {
		_cleanup_free_ char *path = NULL, *buf = NULL;
		struct gpu_device gpu = { 0 };
		bool excluded = false;

		if (asprintf(&path, "%s/%s/information", dir, names[i]) < 0)
			return -ENOMEM;
		r = cdi_read_file(path, PROCFS_MAX_FILE, &buf, NULL);
		if (r < 0)
			return cdi_problem_add(p->err, r, path, 0, 0, NULL, "cannot read: %s",
					       strerror(-r));
		r = procfs_parse_gpu_information(path, buf, &gpu, &excluded, p->err);
		if (r < 0)
			return r;
		if (!excluded)
			minors[n++] = gpu.minor;
	}
	qsort(minors, n, sizeof(*minors), cmp_unsigned);
	*ret = TAKE_PTR(minors);
	*ret_n = n;
	return 0;
}

/* nvidiactl, nvidia<minor>, nvidia-modeset: the nvidia major, perms from the params file. */
static int plan_nvidia(struct planner *p)
{
	static const char *const names[] = { "nvidiactl", "nvidia", "nvidia-frontend" };
	static const char *const modeset[] = { "nvidia-modeset" };
	_cleanup_free_ char *params = host_path(p->root, DRIVER_PARAMS_PATH);
	_cleanup_free_ char *sys_modeset = host_path(p->root, "/sys/module/nvidia_modeset");
	_cleanup_free_ unsigned *minors = NULL;
	struct dev_file_params perms;
	struct stat st;
	unsigned major, m;
	size_t n = 0;
	int r;

	if (!params || !sys_modeset)
		return -ENOMEM;
	r = char_major(p, names, ELEMENTSOF(names), &major);
	if (r == -ENOENT) {
		cdi_problem_add(
			p->warn, 0, p->devices_path, 0, 0, NULL,
			"no nvidia device (the nvidia module is not loaded): /dev/nvidiactl and the GPU nodes not made");
		return 0;
	}
	if (r < 0)
		return r;
	r = driver_params_read(params, true, &perms, p->err);
	if (r >= 0)
		r = gpu_minors(p, &minors, &n);
	if (r >= 0)
		r = plan_add(p, strdup("nvidiactl"), false, major, CTL_MINOR, &perms, params);
	for (size_t i = 0; r >= 0 && i < n; i++)
		r = plan_add(p, printf_name("nvidia%u", minors[i]), false, major, minors[i], &perms,
			     params);
	if (r < 0)
		return r;
	/* From R545 nvidia-modeset has its own /proc/devices line; before, only /sys/module. */
	r = char_major(p, modeset, ELEMENTSOF(modeset), &m);
	if (r < 0 && r != -ENOENT)
		return r;
	if (r == 0 || (stat(sys_modeset, &st) == 0 && S_ISDIR(st.st_mode)))
		return plan_add(p, strdup("nvidia-modeset"), false, major, MODESET_MINOR, &perms,
				params);
	return 0;
}

/* nvidia-uvm and -uvm-tools: the nvidia-uvm major; nvidia-modprobe gives them the defaults. */
static int plan_uvm(struct planner *p)
{
	static const char *const names[] = { "nvidia-uvm" };
	const struct dev_file_params perms = DEV_FILE_PARAMS_DEFAULT;
	unsigned major;
	int r;

	r = char_major(p, names, ELEMENTSOF(names), &major);
	if (r == -ENOENT) {
		cdi_problem_add(
			p->warn, 0, p->devices_path, 0, 0, NULL,
			"no nvidia-uvm device (the nvidia_uvm module is not loaded): /dev/nvidia-uvm and /dev/nvidia-uvm-tools not made");
		return 0;
	}
	if (r >= 0)
		r = plan_add(p, strdup("nvidia-uvm"), false, major, 0, &perms, NULL);
	if (r >= 0)
		r = plan_add(p, strdup("nvidia-uvm-tools"), false, major, 1, &perms, NULL);
	return r < 0 ? r : 0;
}

/* One capability file (rel under the capabilities directory): its node, if the file exists. */
static int plan_cap(struct planner *p, const char *capdir, const char *rel, unsigned major)
{
	_cleanup_free_ char *path = NULL, *buf = NULL;
	struct dev_file_params perms;
	size_t len;
	int r;

	if (asprintf(&path, "%s/%s", capdir, rel) < 0)
		return -ENOMEM;
	r = cdi_read_file(path, DRIVER_PARAMS_MAX_FILE, &buf, &len);
	if (r == -ENOENT)
		return 0; /* no such capability (config/monitor on a GPU without MIG) */
	if (r < 0)
		return cdi_problem_add(p->err, r, path, 0, 0, NULL, "cannot read: %s",
				       strerror(-r));
	r = driver_params_parse(path, buf, len, &perms, p->err);
	if (r < 0)
		return r;
	if (!perms.has_minor)
		return cdi_problem_add(p->err, -EINVAL, path, 0, 0, "DeviceFileMinor", "missing");
	return plan_add(p, printf_name("nvidia-cap%u", perms.minor), true, major, perms.minor,
			&perms, path);
}

/* The numbered subdirectories of capdir/rel (gpu0, gi1, ci0), sorted; none when it is missing. */
static int list_numbered(struct planner *p, const char *capdir, const char *rel, const char *prefix,
			 char ***ret, size_t *ret_n)
{
	_cleanup_free_ char *dir = NULL;
	int r;

	if (asprintf(&dir, "%s%s%s", capdir, *rel ? "/" : "", rel) < 0)
		return -ENOMEM;
	r = dir_list_at(AT_FDCWD, dir, 0, keep_numbered, (void *)prefix, ret, ret_n);
	if (r == -ENOENT || r == -ENOTDIR) {
		*ret = NULL;
		*ret_n = 0;
		return 0;
	}
	if (r < 0)
		return cdi_problem_add(p->err, r, dir, 0, 0, NULL, "cannot list: %s", strerror(-r));
	return 0;
}

/* gpu<N>/mig/gi<G>/access and gpu<N>/mig/gi<G>/ci<C>/access of one GPU. */
static int plan_gpu_caps(struct planner *p, const char *capdir, const char *gpu, unsigned major)
{
	_cleanup_strv_free_ char **gis = NULL;
	_cleanup_free_ char *mig = NULL;
	size_t n_gis;
	int r;

	if (asprintf(&mig, "%s/mig", gpu) < 0)
		return -ENOMEM;
	r = list_numbered(p, capdir, mig, "gi", &gis, &n_gis);
	for (size_t g = 0; r >= 0 && g < n_gis; g++) {
		_cleanup_strv_free_ char **cis = NULL;
		_cleanup_free_ char *gi = NULL, *access = NULL;
		size_t n_cis;

		if (asprintf(&gi, "%s/%s", mig, gis[g]) < 0 ||
		    asprintf(&access, "%s/access", gi) < 0)
			return -ENOMEM;
		r = plan_cap(p, capdir, access, major);
		if (r >= 0)
			r = list_numbered(p, capdir, gi, "ci", &cis, &n_cis);
		for (size_t c = 0; r >= 0 && c < n_cis; c++) {
			_cleanup_free_ char *ci = NULL;

			if (asprintf(&ci, "%s/%s/access", gi, cis[c]) < 0)
				return -ENOMEM;
			r = plan_cap(p, capdir, ci, major);
		}
	}
	return r;
}

/* The MIG capability nodes whose files exist: config, monitor, then each GPU's instances. */
static int plan_caps(struct planner *p)
{
	static const char *const names[] = { "nvidia-caps" };
	_cleanup_free_ char *capdir = host_path(p->root, CAPS_PROC);
	_cleanup_strv_free_ char **gpus = NULL;
	unsigned major;
	size_t n_gpus;
	int r;

	if (!capdir)
		return -ENOMEM;
	r = char_major(p, names, ELEMENTSOF(names), &major);
	if (r == -ENOENT)
		return 0; /* a driver before R450, or capabilities in /proc only */
	if (r >= 0)
		r = plan_cap(p, capdir, "mig/config", major);
	if (r >= 0)
		r = plan_cap(p, capdir, "mig/monitor", major);
	if (r >= 0)
		r = list_numbered(p, capdir, "", "gpu", &gpus, &n_gpus);
	for (size_t i = 0; r >= 0 && i < n_gpus; i++)
		r = plan_gpu_caps(p, capdir, gpus[i], major);
	return r < 0 ? r : 0;
}

int node_plan_nvidia(const char *root, struct node_plan *ret, struct cdi_error *warn,
		     struct cdi_error *err)
{
	struct planner p = { .root = root, .warn = warn, .err = err };
	int r;

	p.devices_path = host_path(root, "/proc/devices");
	if (!p.devices_path)
		return -ENOMEM;
	r = cdi_read_file(p.devices_path, PROCFS_MAX_FILE, &p.devices, NULL);
	if (r < 0)
		cdi_problem_add(err, r, p.devices_path, 0, 0, NULL, "cannot read: %s",
				strerror(-r));
	if (r >= 0)
		r = plan_nvidia(&p);
	if (r >= 0)
		r = plan_uvm(&p);
	if (r >= 0)
		r = plan_caps(&p);
	free(p.devices_path);
	free(p.devices);
	if (r < 0) {
		node_plan_clear(&p.plan);
		/* Every failure but ENOMEM has added its problem. */
		return r == -ENOMEM ? cdi_fail(err, r, "%s", strerror(-r)) : r;
	}
	*ret = p.plan;
	return 0;
}

void node_plan_clear(struct node_plan *plan)
{
	if (!plan)
		return;
	for (size_t i = 0; i < plan->n; i++) {
		free(plan->entries[i].name);
		free(plan->entries[i].perms_from);
	}
	free(plan->entries);
	*plan = (struct node_plan){ 0 };
}
