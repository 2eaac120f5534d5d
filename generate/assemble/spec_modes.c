/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Assembly of the specs that do not enumerate GPUs (wsl, csv, imex, nvswitch, gds, mofed,
 * gdrcopy): the inventory's devices as discovery named them, each with its nodes, "all" the
 * union of them (unless a device is "all" already), the files as common mounts. Like nvidia-ctk:
 * an IMEX channel is the device "<N>" of kind nvidia.com/imex-channel, a Jetson's GPU "0" (and
 * "gpu0" under type-index) of nvidia.com/gpu, the others one device "all".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cdi/spec.h>

#include "array.h"
#include "macro.h"
#include "problem.h"
#include "spec_build.h"

struct named {
	char name[DEVICE_NAME_MAX];
	const struct inv_device *dev;
};

/* {path, hostPath} of a node (numbers on request); NULL on ENOMEM. */
static json_t *node_json(const struct inv_node *n, bool numbers)
{
	_cleanup_json_ json_t *o = json_pack("{s:s}", "path", n->path);

	if (!o || (strcmp(n->path, n->host_path) != 0 &&
		   json_object_set_new(o, "hostPath", json_string(n->host_path)) < 0))
		return NULL;
	if (numbers && n->error == 0 &&
	    (json_object_set_new(o, "type", json_string("c")) < 0 ||
	     json_object_set_new(o, "major", json_integer(n->major)) < 0 ||
	     json_object_set_new(o, "minor", json_integer(n->minor)) < 0 ||
	     json_object_set_new(o, "fileMode", json_integer(n->mode)) < 0))
		return NULL;
	return TAKE_PTR(o);
}

/* {deviceNodes: [nodes first .. first + n]} */
static json_t *nodes_edits(const struct inventory *inv, const bool *pick, size_t first, size_t n,
			   bool numbers)
{
	_cleanup_json_ json_t *list = json_array();

	for (size_t i = first; list && i < first + n; i++)
		if ((!pick || pick[i]) &&
		    json_array_append_new(list, node_json(&inv->nodes[i], numbers)) < 0)
			return NULL;
	return list ? json_pack("{s:O}", "deviceNodes", list) : NULL;
}

static int named_cmp(const void *a, const void *b)
{
	return device_name_cmp(((const struct named *)a)->name, ((const struct named *)b)->name);
}

/* The inventory's devices under their names (a GPU index by every strategy that names one). */
static int device_list(const struct inventory *inv, unsigned strategies, struct named **ret,
		       size_t *ret_n)
{
	struct named *v = calloc(inv->n_devices * 2 + 1, sizeof(*v));
	size_t n = 0;

	if (!v)
		return -ENOMEM;
	if (!strategies)
		strategies = NAME_DEFAULT;
	for (size_t i = 0; i < inv->n_devices; i++) {
		const struct inv_device *dev = &inv->devices[i];
		bool index = !dev->gpu_index || (strategies & NAME_INDEX) ||
			     !(strategies & NAME_TYPE_INDEX);

		if (index) {
			v[n].dev = dev;
			snprintf(v[n++].name, DEVICE_NAME_MAX, "%s", dev->name);
		}
		if (dev->gpu_index && (strategies & NAME_TYPE_INDEX)) {
			v[n].dev = dev;
			snprintf(v[n++].name, DEVICE_NAME_MAX, "gpu%s", dev->name);
		}
	}
	qsort(v, n, sizeof(*v), named_cmp);
	*ret = v;
	*ret_n = n;
	return 0;
}

/* Every node that discovery found wrong, reported; the first code. */
static int check_nodes(const struct inventory *inv, struct cdi_error *err)
{
	int first = 0;

	for (size_t i = 0; i < inv->n_nodes; i++) {
		const struct inv_node *n = &inv->nodes[i];
		int r;

		if (!n->error)
			continue;
		r = cdi_problem_add(err, n->error, n->host_path, 0, 0, NULL, "%s", n->problem);
		if (first == 0)
			first = r;
	}
	return first;
}

/* The devices in order, then "all" (every node a device has) unless one is "all" already. */
static int devices_json(const struct inventory *inv, const struct spec_options *o, json_t **ret)
{
	_cleanup_free_ struct named *v = NULL;
	_cleanup_free_ bool *in_all = calloc(inv->n_nodes + 1, sizeof(*in_all));
	_cleanup_json_ json_t *devices = json_array();
	bool has_all = false;
	size_t n = 0;

	if (!in_all || !devices || device_list(inv, o->name_strategies, &v, &n) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct inv_device *dev = v[i].dev;

		has_all = has_all || strcmp(v[i].name, "all") == 0;
		if (json_array_append_new(
			    devices, json_pack("{s:s, s:o}", "name", v[i].name, "containerEdits",
					       nodes_edits(inv, NULL, dev->first_node, dev->n_nodes,
							   o->with_device_numbers))) < 0)
			return -ENOMEM;
		for (size_t k = dev->first_node; k < dev->first_node + dev->n_nodes; k++)
			in_all[k] = true;
	}
	if (!has_all && !o->no_all_device &&
	    json_array_append_new(devices, json_pack("{s:s, s:o}", "name", "all", "containerEdits",
						     nodes_edits(inv, in_all, 0, inv->n_nodes,
								 o->with_device_numbers))) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(devices);
	return 0;
}

int spec_build_devices(const struct inventory *inv, const struct spec_options *o,
		       struct spec_result *ret, struct cdi_error *err)
{
	const char *class_name = o->class_name ? o->class_name : "gpu";
	_cleanup_json_ json_t *devices = NULL, *mounts = NULL, *edits = json_object(), *spec = NULL;
	/* A driver's spec (WSL, Jetson) has a facts file: its files' capabilities (none known). */
	_cleanup_json_ json_t *caps = o->capabilities && inv->has_driver ? json_object() : NULL;
	int r;

	r = check_nodes(inv, err);
	if (r < 0)
		return r;
	r = spec_mounts(inv, &mounts, caps, err);
	if (r < 0)
		return r;
	if (!edits || devices_json(inv, o, &devices) < 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	/* A GPU spec tells a legacy nvidia-container-runtime-hook to stand down, as ours does. */
	if (strcmp(class_name, "gpu") == 0 &&
	    json_object_set_new(edits, "env", json_pack("[s]", "NVIDIA_VISIBLE_DEVICES=void")) < 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	if (json_array_size(mounts) > 0 && json_object_set(edits, "mounts", mounts) < 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	spec = json_pack("{s:s, s:s++, s:O}", "cdiVersion", "0.3.0", "kind",
			 o->vendor ? o->vendor : "nvidia.com", "/", class_name, "devices", devices);
	if (!spec ||
	    (json_object_size(edits) > 0 && json_object_set(spec, "containerEdits", edits) < 0) ||
	    json_object_set_new(spec, "cdiVersion", json_string(cdi_minimum_version(spec))) < 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	r = cdi_spec_validate_json(spec, "generated spec", CDI_LOAD_STRICT, err);
	if (r < 0)
		return r;
	*ret = (struct spec_result){ .n_devices = json_array_size(devices),
				     .n_nodes = inv->n_nodes,
				     .n_mounts = json_array_size(mounts),
				     .capabilities = TAKE_PTR(caps) };
	ret->spec = TAKE_PTR(spec);
	return 0;
}
