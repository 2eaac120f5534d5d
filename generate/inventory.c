/* SPDX-License-Identifier: Apache-2.0 */
/* The host inventory: growing and freeing it. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "inventory.h"
#include "macro.h"
#include "problem.h"
#include "strv.h"

const char *drv_cap_name(enum drv_cap cap)
{
	static const char *const names[] = {
		[DRV_CAP_UTILITY] = "utility", [DRV_CAP_COMPUTE] = "compute",
		[DRV_CAP_VIDEO] = "video",     [DRV_CAP_GRAPHICS] = "graphics",
		[DRV_CAP_DISPLAY] = "display", [DRV_CAP_NGX] = "ngx",
	};

	return (size_t)cap < ELEMENTSOF(names) ? names[cap] : NULL;
}

bool inv_node_needs_group(const struct inv_node *node)
{
	return node->error == 0 && node->gid != 0 && (node->mode & 0006) != 0006;
}

void gpu_devices_free(struct gpu_device *gpus, size_t n)
{
	for (size_t i = 0; gpus && i < n; i++) {
		free(gpus[i].migs);
		free(gpus[i].app_profile);
	}
	free(gpus);
}

void inventory_clear(struct inventory *inv)
{
	if (!inv)
		return;
	gpu_devices_free(inv->gpus, inv->n_gpus);
	for (size_t i = 0; i < inv->n_nodes; i++) {
		free(inv->nodes[i].path); /* host_path too */
		free(inv->nodes[i].problem);
	}
	free(inv->nodes);
	for (size_t i = 0; i < inv->n_files; i++) {
		free(inv->files[i].host_path);
		free(inv->files[i].soname);
		strv_free_n(inv->files[i].container_paths, inv->files[i].n_container_paths);
	}
	free(inv->files);
	free(inv->devices);
	*inv = (struct inventory){ 0 };
}

int inventory_add_node(struct inventory *inv, enum node_role role, enum drv_cap cap,
		       const char *path, const char *host_path, size_t *ret_index,
		       struct cdi_error *err)
{
	size_t lp = strlen(path) + 1, lh = strlen(host_path) + 1;
	struct inv_node *node;

	if (ARRAY_RESERVE(inv->nodes, inv->cap_nodes, inv->n_nodes + 1) < 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	node = &inv->nodes[inv->n_nodes];
	*node = (struct inv_node){ .role = role, .cap = cap };
	/* One allocation for both: a big host has a thousand nodes. */
	node->path = malloc(lp + lh);
	if (!node->path)
		return cdi_fail(err, -ENOMEM, "out of memory");
	node->host_path = memcpy(node->path + lp, host_path, lh);
	memcpy(node->path, path, lp);
	if (ret_index)
		*ret_index = inv->n_nodes;
	inv->n_nodes++;
	return 0;
}

int inv_node_set_problem(struct inv_node *node, int error, struct cdi_error *err, const char *fmt,
			 ...)
{
	va_list ap;
	int r;

	free(node->problem);
	node->problem = NULL;
	node->error = error;
	va_start(ap, fmt);
	r = vasprintf(&node->problem, fmt, ap);
	va_end(ap);
	if (r < 0) {
		node->problem = NULL;
		return cdi_fail(err, -ENOMEM, "out of memory");
	}
	return 0;
}

int inventory_add_file(struct inventory *inv, enum inv_file_kind kind, enum drv_cap cap, bool is32,
		       const char *host_path, unsigned rank, struct inv_file **ret,
		       struct cdi_error *err)
{
	struct inv_file *file;

	if (ARRAY_RESERVE(inv->files, inv->cap_files, inv->n_files + 1) < 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	file = &inv->files[inv->n_files];
	*file = (struct inv_file){
		.kind = kind, .cap = cap, .is32 = is32, .rank = rank, .ldflags = -1
	};
	file->host_path = strdup(host_path);
	if (!file->host_path)
		return cdi_fail(err, -ENOMEM, "out of memory");
	inv->n_files++;
	*ret = file;
	return 0;
}

int inv_file_add_path(struct inv_file *file, const char *a, const char *b, const char *c,
		      struct cdi_error *err)
{
	size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
	char *path;

	if (ARRAY_RESERVE(file->container_paths, file->cap_container_paths,
			  file->n_container_paths + 1) < 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	path = malloc(la + lb + lc + 1);
	if (!path)
		return cdi_fail(err, -ENOMEM, "out of memory");
	memcpy(path, a, la);
	memcpy(path + la, b, lb);
	memcpy(path + la + lb, c, lc + 1);
	for (size_t i = 0; i < file->n_container_paths; i++)
		if (strcmp(file->container_paths[i], path) == 0) {
			free(path);
			return 0;
		}
	file->container_paths[file->n_container_paths++] = path;
	return 0;
}

int inv_file_standing_cmp(const struct inv_file *a, unsigned prio_a, const struct inv_file *b,
			  unsigned prio_b)
{
	if (prio_a != prio_b)
		return prio_a < prio_b ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return strcmp(a->host_path, b->host_path);
}

int inventory_add_device(struct inventory *inv, const char *name, bool gpu_index, size_t first_node,
			 size_t n_nodes, struct cdi_error *err)
{
	struct inv_device *dev;

	if (strlen(name) >= sizeof(dev->name) || first_node + n_nodes > inv->n_nodes)
		return cdi_fail(err, -EINVAL, "inventory: bad device \"%s\"", name);
	if (ARRAY_RESERVE(inv->devices, inv->cap_devices, inv->n_devices + 1) < 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	dev = &inv->devices[inv->n_devices++];
	*dev = (struct inv_device){ .gpu_index = gpu_index,
				    .first_node = first_node,
				    .n_nodes = n_nodes };
	strcpy(dev->name, name);
	return 0;
}

bool inventory_cuda_version(const struct inventory *inv, char *buf, size_t size)
{
	if (inv->cuda_version <= 0)
		return false;
	/* NVML_CUDA_DRIVER_VERSION_MAJOR/_MINOR: 12040 is 12.4. */
	snprintf(buf, size, "%d.%d", inv->cuda_version / 1000, inv->cuda_version % 1000 / 10);
	return true;
}
