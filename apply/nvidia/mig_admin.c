/* SPDX-License-Identifier: Apache-2.0 */
/*
 * MIG administration nodes for a container. libnvidia-container bind-mounts the whole
 * /dev/nvidia-caps directory and allows every cap minor of the GPU in the device cgroup, so
 * instances created later inside the container are usable at once. A CDI edit can only name
 * nodes that exist, so the container gets the global cap node and the instance cap nodes that
 * exist when it starts. /proc/driver/nvidia/capabilities needs no mount: runc refuses mounts
 * inside /proc, and the container's procfs shows the driver's files anyway.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "array.h"
#include "dir_list.h"
#include "host_root.h"
#include "mig_admin.h"
#include "problem.h"
#include "strv.h"

#define CAPS_PROC "/proc/driver/nvidia/capabilities"
#define CAPS_DEV "/dev/nvidia-caps"
/* A cap file is three short lines. */
#define CAP_FILE_MAX 1024
/* The kernel's cap minors stay far below this (32 GPUs x 135 + a few). */
#define CAP_MINOR_MAX (1u << 20)

struct mig_admin {
	const struct mig_admin_request *req;
	int root_fd;
	bool dev_style; /* /dev/nvidia-caps exists: caps are device nodes */
	unsigned *minors;
	size_t n_minors, cap_minors;
	struct cdi_error *err;
};

/* The DeviceFileMinor of the cap file at proc_path. */
static int cap_minor(struct mig_admin *m, const char *var, const char *proc_path, unsigned *ret)
{
	struct cdi_error read_err = { 0 };
	char buf[CAP_FILE_MAX], *line, *end;
	unsigned long minor;
	int r;

	r = host_root_read_small(m->root_fd, proc_path, buf, sizeof(buf), &read_err);
	if (r < 0) {
		r = cdi_problem_add(m->err, r, NULL, 0, 0, var, "%s", cdi_error_message(&read_err));
		cdi_error_reset(&read_err);
		return r;
	}
	for (line = buf; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (strncmp(line, "DeviceFileMinor:", 16) != 0)
			continue;
		line += 16 + strspn(line + 16, " \t");
		minor = strtoul(line, &end, 10);
		if (end == line || (*end && *end != '\n') || minor >= CAP_MINOR_MAX)
			return cdi_problem_add(m->err, -EINVAL, NULL, 0, 0, var,
					       "%s: DeviceFileMinor is not a minor number",
					       proc_path);
		*ret = (unsigned)minor;
		return 0;
	}
	return cdi_problem_add(m->err, -EINVAL, NULL, 0, 0, var, "%s: no DeviceFileMinor line",
			       proc_path);
}

/* Add the node of a cap minor once; in the device style it must exist on the host. */
static int add_minor(struct mig_admin *m, const char *var, unsigned minor, const char *what)
{
	char node[64];
	struct stat st;

	for (size_t i = 0; i < m->n_minors; i++)
		if (m->minors[i] == minor)
			return 0;
	snprintf(node, sizeof(node), CAPS_DEV "/nvidia-cap%u", minor);
	if (fstatat(m->root_fd, host_root_relative(node), &st, AT_SYMLINK_NOFOLLOW) < 0)
		return cdi_problem_add(m->err, -ENOENT, NULL, 0, 0, var,
				       "%s (the %s capability) does not exist on the host", node,
				       what);
	if (ARRAY_RESERVE(m->minors, m->cap_minors, m->n_minors + 1) < 0)
		return cdi_fail(m->err, -ENOMEM, "out of memory");
	m->minors[m->n_minors++] = minor;
	return 0;
}

static bool is_dir_at(int fd, const char *abs_path)
{
	struct stat st;

	return fstatat(fd, host_root_relative(abs_path), &st, 0) == 0 && S_ISDIR(st.st_mode);
}

/* The driver lists MIG capabilities only for GPUs that can do MIG. */
static bool mig_capable(struct mig_admin *m, unsigned gpu_minor)
{
	char dir[64];

	snprintf(dir, sizeof(dir), CAPS_PROC "/gpu%u/mig", gpu_minor);
	return is_dir_at(m->root_fd, dir);
}

static bool keep_numbered(const char *name, unsigned char d_type, void *prefix)
{
	size_t len = strlen(prefix);

	return (d_type == DT_DIR || d_type == DT_UNKNOWN) && !strncmp(name, prefix, len) &&
	       name[len] && name[len + strspn(name + len, "0123456789")] == '\0';
}

/* The cap of each gi<G> (or ci<C>) directory under dir: dir/<entry>/access. */
static int add_instance_caps(struct mig_admin *m, const char *var, const char *dir,
			     const char *prefix, char ***ret_entries, size_t *ret_n)
{
	_cleanup_strv_free_ char **entries = NULL;
	size_t n;
	int r;

	r = dir_list_at(m->root_fd, host_root_relative(dir), O_NOFOLLOW, keep_numbered,
			(void *)prefix, &entries, &n);
	if (r < 0)
		return cdi_problem_add(m->err, r, NULL, 0, 0, var, "%s: cannot list: %s", dir,
				       strerror(-r));
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *path = NULL;
		unsigned minor;

		if (asprintf(&path, "%s/%s/access", dir, entries[i]) < 0)
			return cdi_fail(m->err, -ENOMEM, "out of memory");
		r = cap_minor(m, var, path, &minor);
		if (r < 0)
			return r;
		r = add_minor(m, var, minor, path + strlen(CAPS_PROC "/"));
		if (r < 0)
			return r;
	}
	if (ret_entries) {
		*ret_entries = TAKE_PTR(entries);
		*ret_n = n;
	}
	return 0;
}

/* Every existing GPU- and compute-instance cap of one GPU. */
static int add_gpu_caps(struct mig_admin *m, const char *var, unsigned gpu_minor)
{
	_cleanup_strv_free_ char **gis = NULL;
	char dir[64];
	size_t n;
	int r;

	snprintf(dir, sizeof(dir), CAPS_PROC "/gpu%u/mig", gpu_minor);
	r = add_instance_caps(m, var, dir, "gi", &gis, &n);
	for (size_t i = 0; r >= 0 && i < n; i++) {
		_cleanup_free_ char *gi_dir = NULL;

		if (asprintf(&gi_dir, "%s/%s", dir, gis[i]) < 0)
			return cdi_fail(m->err, -ENOMEM, "out of memory");
		r = add_instance_caps(m, var, gi_dir, "ci", NULL, NULL);
	}
	return r;
}

static const struct mig_admin_gpu *find_gpu(const struct mig_admin_request *req, const char *id)
{
	for (size_t i = 0; i < req->n_gpus; i++)
		if ((req->gpus[i].index && !strcmp(req->gpus[i].index, id)) ||
		    (req->gpus[i].uuid && !strcasecmp(req->gpus[i].uuid, id)))
			return &req->gpus[i];
	return NULL;
}

/* Mark in chosen the GPUs value names: "all" (the MIG-capable ones) or a list. */
static int choose_gpus(struct mig_admin *m, const char *var, const char *value, bool *chosen)
{
	_cleanup_free_ char *copy = strdup(value);
	char *items = copy, *item;

	if (!copy)
		return cdi_fail(m->err, -ENOMEM, "out of memory");
	while ((item = strsep(&items, ","))) {
		const struct mig_admin_gpu *gpu;
		size_t len;

		item += strspn(item, " \t");
		for (len = strlen(item); len && (item[len - 1] == ' ' || item[len - 1] == '\t');)
			item[--len] = '\0';
		if (!*item)
			continue;
		if (!strcasecmp(item, "all")) {
			for (size_t i = 0; i < m->req->n_gpus; i++)
				chosen[i] = chosen[i] || mig_capable(m, m->req->gpus[i].minor);
			break;
		}
		gpu = find_gpu(m->req, item);
		if (!gpu)
			return cdi_problem_add(
				m->err, -EINVAL, NULL, 0, 0, var,
				"\"%.64s\" is not a GPU the container sees (NVIDIA_VISIBLE_DEVICES)",
				item);
		if (!mig_capable(m, gpu->minor))
			return cdi_problem_add(m->err, -EINVAL, NULL, 0, 0, var,
					       "GPU %s cannot do MIG (no " CAPS_PROC "/gpu%u/mig)",
					       item, gpu->minor);
		chosen[gpu - m->req->gpus] = true;
	}
	return 0;
}

/* One variable: its GPUs, then their nodes. */
static int add_variable(struct mig_admin *m, const char *var, const char *value, const char *cap)
{
	_cleanup_free_ bool *chosen = calloc(m->req->n_gpus + 1, sizeof(*chosen));
	char global[64];
	bool any = false;
	unsigned minor;
	int r;

	if (!chosen)
		return cdi_fail(m->err, -ENOMEM, "out of memory");
	r = choose_gpus(m, var, value, chosen);
	if (r < 0)
		return r;
	for (size_t i = 0; i < m->req->n_gpus; i++)
		any = any || chosen[i];
	/* As libnvidia-container: no chosen GPU, no global cap either. */
	if (!any || !m->dev_style)
		return 0;
	snprintf(global, sizeof(global), CAPS_PROC "/mig/%s", cap);
	r = cap_minor(m, var, global, &minor);
	if (r >= 0)
		r = add_minor(m, var, minor, global + strlen(CAPS_PROC "/"));
	for (size_t i = 0; r >= 0 && i < m->req->n_gpus; i++)
		if (chosen[i])
			r = add_gpu_caps(m, var, m->req->gpus[i].minor);
	return r;
}

static int nodes_json(struct mig_admin *m, json_t *edits)
{
	json_t *nodes;

	if (m->n_minors == 0)
		return 0;
	qsort(m->minors, m->n_minors, sizeof(*m->minors), cmp_unsigned);
	nodes = json_array();
	if (!nodes || json_object_set_new(edits, "deviceNodes", nodes) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < m->n_minors; i++) {
		_cleanup_free_ char *host = NULL;
		char path[64];
		json_t *node;

		snprintf(path, sizeof(path), CAPS_DEV "/nvidia-cap%u", m->minors[i]);
		node = json_pack("{ss}", "path", path);
		if (!node || json_array_append_new(nodes, node) < 0)
			return -ENOMEM;
		if (host_root_is_real(m->req->root))
			continue;
		host = host_root_join(m->req->root, path);
		if (!host || json_object_set_new(node, "hostPath", json_string(host)) < 0)
			return -ENOMEM;
	}
	return 0;
}

int mig_admin_edits(const struct mig_admin_request *req, json_t **ret_edits, struct cdi_error *err)
{
	const char *vars[][3] = {
		{ MIG_CONFIG_ENV, req->config_devices, "config" },
		{ MIG_MONITOR_ENV, req->monitor_devices, "monitor" },
	};
	struct mig_admin m = { .req = req, .root_fd = -1, .err = err };
	_cleanup_json_ json_t *edits = json_object();
	int r = 0;

	if (!edits)
		return cdi_fail(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < ELEMENTSOF(vars); i++) {
		if (!vars[i][1] || !*vars[i][1])
			continue;
		if (!req->privileged)
			return cdi_problem_add(
				err, -EPERM, NULL, 0, 0, vars[i][0],
				"refused: MIG %s access needs a privileged container (CAP_SYS_ADMIN in its bounding capabilities)",
				vars[i][2]);
		if (!req->all_selected && req->n_mig_devices)
			return cdi_problem_add(
				err, -EINVAL, NULL, 0, 0, vars[i][0],
				"cannot enable mig-%s with specific MIG devices selected",
				vars[i][2]);
		if (m.root_fd < 0) {
			r = host_root_open(req->root, &m.root_fd, err);
			if (r < 0)
				return r;
			m.dev_style = is_dir_at(m.root_fd, CAPS_DEV);
		}
		r = add_variable(&m, vars[i][0], vars[i][1], vars[i][2]);
		if (r < 0)
			break;
	}
	if (r >= 0 && nodes_json(&m, edits) < 0)
		r = cdi_fail(err, -ENOMEM, "out of memory");
	closep(&m.root_fd);
	free(m.minors);
	if (r < 0)
		return r;
	*ret_edits = TAKE_PTR(edits);
	return 0;
}
