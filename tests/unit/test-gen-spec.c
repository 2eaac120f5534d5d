/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Assembly (generate/assemble/spec_build.c, spec_mounts.c, facts.c) over inventories built by hand:
 * no host, no root, no device node. What discovery would have found is written down here, including
 * what it found wrong (a missing, linked or stale node), and the spec is judged on that alone.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assemble/facts.h"
#include "assemble/spec_build.h"
#include "macro.h"

#define MAJ_NVIDIA 195
#define MAJ_CAPS 235
#define MAJ_UVM 508
#define HOST "/host"

/* The kernel's mig-minors numbering (nv-caps.c). */
static unsigned gi_minor(unsigned gpu, unsigned gi)
{
	return 3 + 135 * gpu + 9 * gi;
}

static unsigned ci_minor(unsigned gpu, unsigned gi, unsigned ci)
{
	return 4 + 135 * gpu + 9 * gi + ci;
}

/* A node as discovery records a good one: under HOST, with its numbers. */
static size_t node(struct inventory *inv, enum node_role role, enum drv_cap cap, const char *path,
		   unsigned major, unsigned minor)
{
	char host[256];
	size_t index;

	snprintf(host, sizeof(host), HOST "%s", path);
	cr_assert_eq(inventory_add_node(inv, role, cap, path, host, &index, NULL), 0);
	inv->nodes[index].major = major;
	inv->nodes[index].minor = minor;
	inv->nodes[index].mode = 0666;
	return index;
}

static size_t gpu_node(struct inventory *inv, unsigned minor)
{
	char path[64];

	snprintf(path, sizeof(path), "/dev/nvidia%u", minor);
	return node(inv, NODE_GPU, DRV_CAP_UNKNOWN, path, MAJ_NVIDIA, minor);
}

static size_t cap_node(struct inventory *inv, unsigned minor)
{
	char path[64];

	snprintf(path, sizeof(path), "/dev/nvidia-caps/nvidia-cap%u", minor);
	return node(inv, NODE_MIG_CAP, DRV_CAP_UNKNOWN, path, MAJ_CAPS, minor);
}

static void control_nodes(struct inventory *inv)
{
	node(inv, NODE_CONTROL, DRV_CAP_COMPUTE, "/dev/nvidia-uvm", MAJ_UVM, 0);
	node(inv, NODE_CONTROL, DRV_CAP_UNKNOWN, "/dev/nvidiactl", MAJ_NVIDIA, 255);
}

static struct gpu_device *add_gpus(struct inventory *inv, size_t n)
{
	inv->gpus = calloc(n, sizeof(*inv->gpus));
	cr_assert_not_null(inv->gpus);
	inv->n_gpus = n;
	return inv->gpus;
}

/* A full GPU with its node. */
static void full_gpu(struct inventory *inv, size_t i, unsigned minor, const char *uuid)
{
	struct gpu_device *g = &inv->gpus[i];

	g->index = (unsigned)i;
	g->minor = minor;
	snprintf(g->uuid, sizeof(g->uuid), "%s", uuid);
	g->node = gpu_node(inv, minor);
}

static void add_mig(struct inventory *inv, size_t i, unsigned index, unsigned gi, unsigned ci,
		    const char *uuid)
{
	struct gpu_device *g = &inv->gpus[i];
	struct mig_device *m;

	g->mig_enabled = true;
	g->migs = realloc(g->migs, (g->n_migs + 1) * sizeof(*g->migs));
	cr_assert_not_null(g->migs);
	m = &g->migs[g->n_migs++];
	*m = (struct mig_device){ .index = index, .gi = gi, .ci = ci };
	snprintf(m->uuid, sizeof(m->uuid), "%s", uuid);
	m->gi_node = cap_node(inv, gi_minor(g->minor, gi));
	m->ci_node = cap_node(inv, ci_minor(g->minor, gi, ci));
}

/* Three GPUs by index 0, 1, 2 with minors 0, 3, 1; GPU 1 in MIG mode with MIG 0 and 2. */
static void topo3(struct inventory *inv)
{
	*inv = (struct inventory){ .driver_version = "550.54.15", .cuda_version = 12040 };
	control_nodes(inv);
	add_gpus(inv, 3);
	full_gpu(inv, 0, 0, "GPU-00000000-0000-0000-0000-000000000000");
	full_gpu(inv, 1, 3, "GPU-11111111-0000-0000-0000-000000000000");
	snprintf(inv->gpus[0].bus_id, GPU_BUSID_MAX, "0000:07:00.0");
	snprintf(inv->gpus[1].bus_id, GPU_BUSID_MAX, "0000:0f:00.0");
	add_mig(inv, 1, 0, 1, 0, "MIG-aaaaaaaa-0000-0000-0000-000000000000");
	add_mig(inv, 1, 2, 2, 1, "MIG-bbbbbbbb-0000-0000-0000-000000000000");
	full_gpu(inv, 2, 1, "GPU-22222222-0000-0000-0000-000000000000");
	snprintf(inv->gpus[2].bus_id, GPU_BUSID_MAX, "0000:b7:00.0");
}

static int build(const struct inventory *inv, const struct spec_options *o, struct spec_result *res,
		 struct cdi_error *warn, struct cdi_error *err)
{
	*res = (struct spec_result){ 0 };
	return spec_build(inv, o, res, warn, err);
}

/* The spec of inv, which must build. */
static json_t *spec_of(const struct inventory *inv, const struct spec_options *o,
		       struct cdi_error *warn)
{
	struct cdi_error e = { 0 };
	struct spec_result res;
	json_t *spec;
	int r = build(inv, o, &res, warn, &e);

	cr_assert_eq(r, 0, "spec_build: %d (%s)", r, cdi_error_message(&e));
	spec = json_incref(res.spec);
	spec_result_clear(&res);
	return spec;
}

static const char *dev_name(const json_t *spec, size_t i)
{
	return json_string_value(
		json_object_get(json_array_get(json_object_get(spec, "devices"), i), "name"));
}

static json_t *dev_edits(const json_t *spec, const char *name)
{
	size_t i;
	json_t *d;

	json_array_foreach (json_object_get(spec, "devices"), i, d)
		if (strcmp(json_string_value(json_object_get(d, "name")), name) == 0)
			return json_object_get(d, "containerEdits");
	return NULL;
}

static json_t *dev_nodes(const json_t *spec, const char *name)
{
	return json_object_get(dev_edits(spec, name), "deviceNodes");
}

static const char *node_path(const json_t *nodes, size_t i)
{
	return json_string_value(json_object_get(json_array_get(nodes, i), "path"));
}

static void assert_names(const json_t *spec, const char *const *want, size_t n)
{
	json_t *devs = json_object_get(spec, "devices");

	for (size_t i = 0; i < n && i < json_array_size(devs); i++)
		cr_assert_str_eq(dev_name(spec, i), want[i], "device %zu", i);
	cr_assert_eq(json_array_size(devs), n, "%zu devices, want %zu", json_array_size(devs), n);
}

/* True if key appears anywhere in the tree. */
static bool has_key(const json_t *j, const char *key)
{
	const char *k;
	json_t *v;
	size_t i;

	if (json_is_object(j)) {
		json_object_foreach ((json_t *)j, k, v)
			if (strcmp(k, key) == 0 || has_key(v, key))
				return true;
	} else if (json_is_array(j)) {
		json_array_foreach (j, i, v)
			if (has_key(v, key))
				return true;
	}
	return false;
}

Test(spec, default_names_order_and_mig)
{
	static const char *const want[] = {
		"0",
		"1:0",
		"1:2",
		"2",
		"GPU-00000000-0000-0000-0000-000000000000",
		"GPU-22222222-0000-0000-0000-000000000000",
		"MIG-aaaaaaaa-0000-0000-0000-000000000000",
		"MIG-bbbbbbbb-0000-0000-0000-000000000000",
		"none",
		"all",
	};
	struct inventory inv;
	struct spec_options o = { 0 };
	_cleanup_json_ json_t *spec = NULL;
	json_t *nodes;
	char want_path[128];

	topo3(&inv);
	spec = spec_of(&inv, &o, NULL);
	assert_names(spec, want, ELEMENTSOF(want));
	cr_assert_str_eq(json_string_value(json_object_get(spec, "kind")), "nvidia.com/gpu");
	cr_assert_str_eq(json_string_value(json_object_get(spec, "cdiVersion")), "0.5.0");

	/* A full GPU: its node by minor (GPU index 2 has minor 1), hostPath as discovery said. */
	nodes = dev_nodes(spec, "2");
	cr_assert_eq(json_array_size(nodes), 1);
	cr_assert_str_eq(node_path(nodes, 0), "/dev/nvidia1");
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(nodes, 0), "hostPath")),
			 HOST "/dev/nvidia1");
	cr_assert(json_equal(nodes, dev_nodes(spec, "GPU-22222222-0000-0000-0000-000000000000")));

	/* MIG 1:2 = gi2/ci1 of the GPU whose minor is 3: parent node, GI cap, CI cap. */
	nodes = dev_nodes(spec, "1:2");
	cr_assert_eq(json_array_size(nodes), 3);
	cr_assert_str_eq(node_path(nodes, 0), "/dev/nvidia3");
	snprintf(want_path, sizeof(want_path), "/dev/nvidia-caps/nvidia-cap%u", gi_minor(3, 2));
	cr_assert_str_eq(node_path(nodes, 1), want_path);
	snprintf(want_path, sizeof(want_path), "/dev/nvidia-caps/nvidia-cap%u", ci_minor(3, 2, 1));
	cr_assert_str_eq(node_path(nodes, 2), want_path);
	cr_assert(json_equal(nodes, dev_nodes(spec, "MIG-bbbbbbbb-0000-0000-0000-000000000000")));

	/* No device numbers by default: the runtime reads them at container start. */
	cr_assert_not(has_key(spec, "major"));
	cr_assert_not(has_key(spec, "minor"));
	cr_assert_not(has_key(spec, "type"));
	cr_assert_not(has_key(spec, "hooks"));
	cr_assert_not(has_key(spec, "additionalGids"));
	inventory_clear(&inv);
}

Test(spec, all_is_the_union_without_duplicates)
{
	struct inventory inv;
	struct spec_options o = { 0 };
	_cleanup_json_ json_t *spec = NULL;
	json_t *all;
	char p[128];

	topo3(&inv);
	spec = spec_of(&inv, &o, NULL);
	all = dev_nodes(spec, "all");
	/* nvidia0, nvidia3 (once, shared by both MIG devices), 4 caps, nvidia1. */
	cr_assert_eq(json_array_size(all), 7);
	cr_assert_str_eq(node_path(all, 0), "/dev/nvidia0");
	cr_assert_str_eq(node_path(all, 1), "/dev/nvidia3");
	snprintf(p, sizeof(p), "/dev/nvidia-caps/nvidia-cap%u", gi_minor(3, 1));
	cr_assert_str_eq(node_path(all, 2), p);
	cr_assert_str_eq(node_path(all, 6), "/dev/nvidia1");
	for (size_t i = 0; i < json_array_size(all); i++)
		for (size_t j = 0; j < i; j++)
			cr_assert_str_neq(node_path(all, i), node_path(all, j));
	inventory_clear(&inv);
}

Test(spec, common_edits_and_counts)
{
	struct inventory inv;
	struct spec_options o = { .capabilities = true };
	struct spec_result res;
	struct inv_file *f;
	json_t *edits, *nodes, *mounts;

	topo3(&inv);
	node(&inv, NODE_CONTROL, DRV_CAP_DISPLAY, "/dev/nvidia-modeset", MAJ_NVIDIA, 254);
	cr_assert_eq(inventory_add_file(&inv, INV_LIBRARY, DRV_CAP_COMPUTE, false,
					"/x/libcuda.so.550.54.15", 0, &f, NULL),
		     0);
	cr_assert_eq(inv_file_add_path(f, "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15", "", "",
				       NULL),
		     0);
	cr_assert_eq(build(&inv, &o, &res, NULL, NULL), 0);
	edits = json_object_get(res.spec, "containerEdits");
	cr_assert_eq(json_array_size(json_object_get(edits, "env")), 1);
	cr_assert_str_eq(json_string_value(json_array_get(json_object_get(edits, "env"), 0)),
			 "NVIDIA_VISIBLE_DEVICES=void");
	/* The control nodes, sorted by path whatever order discovery found them in. */
	nodes = json_object_get(edits, "deviceNodes");
	cr_assert_eq(json_array_size(nodes), 3);
	cr_assert_str_eq(node_path(nodes, 0), "/dev/nvidia-modeset");
	cr_assert_str_eq(node_path(nodes, 1), "/dev/nvidia-uvm");
	cr_assert_str_eq(node_path(nodes, 2), "/dev/nvidiactl");
	mounts = json_object_get(edits, "mounts");
	cr_assert_eq(json_array_size(mounts), 1);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(mounts, 0), "hostPath")),
			 "/x/libcuda.so.550.54.15");
	/* 8 names + none + all; control 3 + GPU 3 + caps 4; one mount. */
	cr_assert_eq(res.n_devices, 10);
	cr_assert_eq(res.n_nodes, 10);
	cr_assert_eq(res.n_mounts, 1);
	/* Capabilities of the paths the spec has, for the facts file. */
	cr_assert_str_eq(
		json_string_value(json_object_get(
			res.capabilities, "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15")),
		"compute");
	cr_assert_str_eq(json_string_value(json_object_get(res.capabilities, "/dev/nvidia-uvm")),
			 "compute");
	cr_assert_str_eq(
		json_string_value(json_object_get(res.capabilities, "/dev/nvidia-modeset")),
		"display");
	cr_assert_null(json_object_get(res.capabilities, "/dev/nvidiactl"), "every capability's");
	spec_result_clear(&res);
	/* Not asked for: not made. */
	o.capabilities = false;
	cr_assert_eq(build(&inv, &o, &res, NULL, NULL), 0);
	cr_assert_null(res.capabilities);
	spec_result_clear(&res);
	inventory_clear(&inv);
}

Test(spec, strategies)
{
	static const char *const want[] = { "gpu0", "gpu2", "mig1:0", "mig1:2" };
	struct inventory inv;
	struct spec_options o = { .name_strategies = NAME_TYPE_INDEX, .no_all_device = true };
	_cleanup_json_ json_t *spec = NULL;
	unsigned s = 0;

	topo3(&inv);
	spec = spec_of(&inv, &o, NULL);
	assert_names(spec, want, ELEMENTSOF(want));
	cr_assert_eq(name_strategies_parse("index,uuid,type-index", &s, NULL), 0);
	cr_assert_eq(s, NAME_INDEX | NAME_UUID | NAME_TYPE_INDEX);
	s = 0;
	cr_assert_eq(name_strategies_parse("uuid", &s, NULL), 0);
	cr_assert_eq(s, NAME_UUID);
	cr_assert_eq(name_strategies_parse("index,", &s, NULL), -EINVAL);
	cr_assert_eq(name_strategies_parse("bogus", &s, NULL), -EINVAL);
	inventory_clear(&inv);
}

/* dev-root "/": hostPath would equal path and is left out, so nothing needs 0.5.0. */
Test(spec, uuid_only_without_root_prefix_is_0_3_0)
{
	static const char *const want[] = { "GPU-00000000-0000-0000-0000-000000000000", "none",
					    "all" };
	struct inventory inv = { .driver_version = "550.54.15" };
	struct spec_options o = { .name_strategies = NAME_UUID };
	_cleanup_json_ json_t *spec = NULL;
	size_t index;

	add_gpus(&inv, 1);
	snprintf(inv.gpus[0].uuid, GPU_UUID_MAX, "GPU-00000000-0000-0000-0000-000000000000");
	cr_assert_eq(inventory_add_node(&inv, NODE_GPU, DRV_CAP_UNKNOWN, "/dev/nvidia0",
					"/dev/nvidia0", &index, NULL),
		     0);
	inv.gpus[0].node = index;
	spec = spec_of(&inv, &o, NULL);
	assert_names(spec, want, ELEMENTSOF(want));
	cr_assert_null(json_object_get(json_array_get(dev_nodes(spec, "all"), 0), "hostPath"));
	cr_assert_str_eq(json_string_value(json_object_get(spec, "cdiVersion")), "0.3.0");
	inventory_clear(&inv);
}

Test(spec, device_numbers_on_request)
{
	struct inventory inv;
	struct spec_options o = { .with_device_numbers = true };
	_cleanup_json_ json_t *spec = NULL;
	json_t *n;

	topo3(&inv);
	spec = spec_of(&inv, &o, NULL);
	n = json_array_get(dev_nodes(spec, "1:0"), 2);
	cr_assert_str_eq(json_string_value(json_object_get(n, "type")), "c");
	cr_assert_eq(json_integer_value(json_object_get(n, "major")), MAJ_CAPS);
	cr_assert_eq(json_integer_value(json_object_get(n, "minor")), ci_minor(3, 1, 0));
	cr_assert_eq(json_integer_value(json_object_get(n, "fileMode")), 0666);
	n = json_array_get(dev_nodes(spec, "0"), 0);
	cr_assert_eq(json_integer_value(json_object_get(n, "major")), MAJ_NVIDIA);
	cr_assert_eq(json_integer_value(json_object_get(n, "minor")), 0);
	inventory_clear(&inv);
}

/* A DRM node as udev makes it on Debian: root:<gid> 0660; by_path_of: the real node's index for
 * a by-path name (its hostPath is that node's), INV_NO_NODE for the node itself. */
static size_t drm_node(struct inventory *inv, struct gpu_device *g, const char *path,
		       unsigned minor, gid_t gid, size_t by_path_of)
{
	size_t index;

	if (by_path_of == INV_NO_NODE)
		index = node(inv, NODE_DRM, DRV_CAP_GRAPHICS, path, 226, minor);
	else
		cr_assert_eq(inventory_add_node(inv, NODE_DRM, DRV_CAP_GRAPHICS, path,
						inv->nodes[by_path_of].host_path, &index, NULL),
			     0);
	inv->nodes[index].major = 226;
	inv->nodes[index].minor = minor;
	inv->nodes[index].mode = 0660;
	inv->nodes[index].gid = gid;
	g->drm[g->n_drm++] = index;
	return index;
}

/* topo3 with DRM on GPU 0 (card1, renderD128 and by-path names) and GPU 1 (in MIG mode). */
static void topo3_drm(struct inventory *inv)
{
	size_t card, render;

	topo3(inv);
	card = drm_node(inv, &inv->gpus[0], "/dev/dri/card1", 1, 44, INV_NO_NODE);
	render = drm_node(inv, &inv->gpus[0], "/dev/dri/renderD128", 128, 105, INV_NO_NODE);
	drm_node(inv, &inv->gpus[0], "/dev/dri/by-path/pci-0000:07:00.0-card", 1, 44, card);
	drm_node(inv, &inv->gpus[0], "/dev/dri/by-path/pci-0000:07:00.0-render", 128, 105, render);
	drm_node(inv, &inv->gpus[1], "/dev/dri/card2", 2, 44, INV_NO_NODE);
	drm_node(inv, &inv->gpus[1], "/dev/dri/renderD129", 129, 105, INV_NO_NODE);
	inv->gpus[0].app_profile = strdup(HOST "/usr/share/cdikit/application-profiles/gpu0.conf");
	inv->gpus[1].app_profile = strdup(HOST "/usr/share/cdikit/application-profiles/gpu3.conf");
	cr_assert(inv->gpus[0].app_profile && inv->gpus[1].app_profile);
}

static json_int_t int_at(const json_t *array, size_t i)
{
	return json_integer_value(json_array_get(array, i));
}

Test(spec, drm_nodes_carry_their_groups_as_additional_gids)
{
	static const char *const gpu0[] = {
		"/dev/nvidia0",
		"/dev/dri/card1",
		"/dev/dri/renderD128",
		"/dev/dri/by-path/pci-0000:07:00.0-card",
		"/dev/dri/by-path/pci-0000:07:00.0-render",
	};
	struct inventory inv;
	struct spec_options o = { 0 };
	_cleanup_json_ json_t *spec = NULL;
	json_t *nodes, *gids, *mounts;

	topo3_drm(&inv);
	spec = spec_of(&inv, &o, NULL);
	cr_assert_str_eq(json_string_value(json_object_get(spec, "cdiVersion")), "0.7.0");
	nodes = dev_nodes(spec, "0");
	cr_assert_eq(json_array_size(nodes), ELEMENTSOF(gpu0));
	for (size_t i = 0; i < ELEMENTSOF(gpu0); i++)
		cr_assert_str_eq(node_path(nodes, i), gpu0[i], "node %zu", i);
	/* The by-path name is a node of its own whose host side is the real node. */
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(nodes, 4), "hostPath")),
			 HOST "/dev/dri/renderD128");
	cr_assert_null(json_object_get(json_array_get(nodes, 0), "gid"), "/dev/nvidia0 is 0666");
	cr_assert_eq(json_integer_value(json_object_get(json_array_get(nodes, 1), "gid")), 44);
	cr_assert_eq(json_integer_value(json_object_get(json_array_get(nodes, 2), "gid")), 105);
	gids = json_object_get(dev_edits(spec, "0"), "additionalGids");
	cr_assert_eq(json_array_size(gids), 2);
	cr_assert(int_at(gids, 0) == 44 && int_at(gids, 1) == 105);
	/* A MIG device has no graphics engine: no DRM nodes, no groups. */
	nodes = dev_nodes(spec, "1:0");
	for (size_t i = 0; i < json_array_size(nodes); i++)
		cr_assert(strncmp(node_path(nodes, i), "/dev/dri/", 9) != 0, "%s",
			  node_path(nodes, i));
	cr_assert_null(json_object_get(dev_edits(spec, "1:0"), "additionalGids"));
	/* GPU 0's EGL application profile, at the path the driver reads; none for a MIG device
	 * (no graphics engine), GPU 2 (none installed) or all (every GPU is the default). */
	mounts = json_object_get(dev_edits(spec, "0"), "mounts");
	cr_assert_eq(json_array_size(mounts), 1);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(mounts, 0), "hostPath")),
			 HOST "/usr/share/cdikit/application-profiles/gpu0.conf");
	cr_assert_str_eq(
		json_string_value(json_object_get(json_array_get(mounts, 0), "containerPath")),
		"/etc/nvidia/nvidia-application-profiles-rc.d/10-container.conf");
	cr_assert_null(json_object_get(dev_edits(spec, "1:0"), "mounts"));
	cr_assert_null(json_object_get(dev_edits(spec, "2"), "mounts"));
	cr_assert_null(json_object_get(dev_edits(spec, "all"), "mounts"));
	/* GPU 2 has no DRM (nvidia-drm did not register one): no groups either. */
	cr_assert_eq(json_array_size(dev_nodes(spec, "2")), 1);
	cr_assert_null(json_object_get(dev_edits(spec, "2"), "additionalGids"));
	/* all: the union, groups once each; the common edits need none. */
	gids = json_object_get(dev_edits(spec, "all"), "additionalGids");
	cr_assert(json_array_size(gids) == 2 && int_at(gids, 0) == 44 && int_at(gids, 1) == 105);
	cr_assert_null(json_object_get(json_object_get(spec, "containerEdits"), "additionalGids"));
	json_decref(spec);

	/* Without the groups: the same nodes, no gid anywhere, cdiVersion 0.5.0 for podman 4. */
	o.no_additional_gids = true;
	spec = spec_of(&inv, &o, NULL);
	cr_assert_str_eq(json_string_value(json_object_get(spec, "cdiVersion")), "0.5.0");
	cr_assert_eq(json_array_size(dev_nodes(spec, "0")), ELEMENTSOF(gpu0));
	cr_assert_not(has_key(spec, "additionalGids"));
	cr_assert_not(has_key(spec, "gid"));
	inventory_clear(&inv);
}

Test(spec, only_group_nodes_need_additional_gids)
{
	struct inventory inv;
	struct spec_options o = { .device_ids = (const char *const[]){ "2" }, .n_device_ids = 1 };
	_cleanup_json_ json_t *spec = NULL;
	json_t *gids;

	topo3_drm(&inv);
	/* nvidiactl as --params DeviceFileMode=432 DeviceFileGID=44 makes it: the common edits. */
	inv.nodes[1].mode = 0660;
	inv.nodes[1].gid = 44;
	/* 0666 with a group, 0660 of root's group: anyone, or root only; no group helps. */
	inv.nodes[0].gid = 27;
	inv.nodes[inv.gpus[2].node].mode = 0660;
	spec = spec_of(&inv, &o, NULL);
	gids = json_object_get(json_object_get(spec, "containerEdits"), "additionalGids");
	cr_assert(json_array_size(gids) == 1 && int_at(gids, 0) == 44);
	cr_assert_null(json_object_get(dev_edits(spec, "2"), "additionalGids"));
	/* GPU 0's DRM nodes are not selected, so "all" has neither them nor their groups. */
	cr_assert_null(json_object_get(dev_edits(spec, "all"), "additionalGids"));
	cr_assert_eq(json_array_size(dev_nodes(spec, "all")), 1);
	cr_assert_str_eq(json_string_value(json_object_get(spec, "cdiVersion")), "0.7.0");
	inventory_clear(&inv);
}

Test(spec, device_id_selection)
{
	static const struct {
		const char *id;
		const char *names[4];
	} cases[] = {
		{ "2", { "2", "GPU-22222222-0000-0000-0000-000000000000", "none", "all" } },
		{ "gpu2", { "2", "GPU-22222222-0000-0000-0000-000000000000", "none", "all" } },
		{ "GPU-00000000-0000-0000-0000-000000000000",
		  { "0", "GPU-00000000-0000-0000-0000-000000000000", "none", "all" } },
		{ "0000:b7:00.0",
		  { "2", "GPU-22222222-0000-0000-0000-000000000000", "none", "all" } },
		{ "1:2", { "1:2", "MIG-bbbbbbbb-0000-0000-0000-000000000000", "none", "all" } },
		{ "mig1:0", { "1:0", "MIG-aaaaaaaa-0000-0000-0000-000000000000", "none", "all" } },
		{ "MIG-aaaaaaaa-0000-0000-0000-000000000000",
		  { "1:0", "MIG-aaaaaaaa-0000-0000-0000-000000000000", "none", "all" } },
	};
	struct inventory inv;

	topo3(&inv);
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		const char *ids[] = { cases[i].id, cases[i].id };
		struct spec_options o = { .device_ids = ids, .n_device_ids = 2 };
		_cleanup_json_ json_t *spec = spec_of(&inv, &o, NULL);

		assert_names(spec, cases[i].names, 4);
	}
	{
		const char *ids[] = { "0", "all" };
		struct spec_options o = { .device_ids = ids, .n_device_ids = 2 };
		_cleanup_json_ json_t *spec = spec_of(&inv, &o, NULL);

		cr_assert_eq(json_array_size(json_object_get(spec, "devices")), 10,
			     "all selects everything");
	}
	inventory_clear(&inv);
}

Test(spec, device_id_errors)
{
	static const char *const bad[] = { "99",     "3",	 "1:1", "1",  "gpu1",
					   "mig0:0", "GPU-nope", "1:",	":1", "x" };
	struct inventory inv;

	topo3(&inv);
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		const char *ids[] = { bad[i] };
		struct spec_options o = { .device_ids = ids, .n_device_ids = 1 };
		struct cdi_error e = { 0 };
		struct spec_result res;

		cr_assert_lt(build(&inv, &o, &res, NULL, &e), 0, "%s", bad[i]);
		cr_assert_null(res.spec);
		cr_assert_str_eq(cdi_problem_field(cdi_error_problem(&e, 0)), "--device-id");
		cr_assert(strstr(cdi_problem_message(cdi_error_problem(&e, 0)), bad[i]) != NULL,
			  "%s", cdi_problem_text(cdi_error_problem(&e, 0)));
		cdi_error_reset(&e);
	}
	inventory_clear(&inv);
}

/* "none": the common edits and no GPU, for NVIDIA_VISIBLE_DEVICES=none. */
Test(spec, none_device)
{
	struct inventory inv;
	struct spec_options o = { 0 };
	_cleanup_json_ json_t *spec = NULL, *only = NULL, *without = NULL;
	const char *ids[] = { "none" };
	json_t *edits;

	topo3(&inv);
	spec = spec_of(&inv, &o, NULL);
	edits = dev_edits(spec, "none");
	cr_assert_not_null(edits);
	/* The reference rejects a device without edits: it has one, harmless and true. */
	cr_assert_eq(json_object_size(edits), 1);
	cr_assert_str_eq(json_string_value(json_array_get(json_object_get(edits, "env"), 0)),
			 "NVIDIA_VISIBLE_DEVICES=void");
	cr_assert_null(json_object_get(edits, "deviceNodes"));

	/* --device-id none alone (as nvidia-ctk's): just it, no "all" of nothing. */
	o = (struct spec_options){ .device_ids = ids, .n_device_ids = 1 };
	only = spec_of(&inv, &o, NULL);
	assert_names(only, (const char *const[]){ "none" }, 1);
	cr_assert_eq(json_array_size(json_object_get(json_object_get(only, "containerEdits"),
						     "deviceNodes")),
		     2, "the control nodes come with it");

	/* --no-all-device leaves out both aggregate devices. */
	o = (struct spec_options){ .no_all_device = true };
	without = spec_of(&inv, &o, NULL);
	cr_assert_null(dev_edits(without, "none"));
	cr_assert_null(dev_edits(without, "all"));
	inventory_clear(&inv);
}

Test(spec, missing_node_is_an_error_or_a_warning)
{
	struct inventory inv;
	struct spec_options o = { 0 };
	struct cdi_error e = { 0 }, warn = { 0 };
	struct spec_result res;
	_cleanup_json_ json_t *spec = NULL;
	struct inv_node *n;
	json_t *nodes;

	topo3(&inv);
	o.with_device_numbers = true;
	n = &inv.nodes[inv.gpus[1].migs[1].ci_node];
	cr_assert_eq(inv_node_set_problem(n, -ENOENT, NULL, "%s", strerror(ENOENT)), 0);
	cr_assert_eq(build(&inv, &o, &res, NULL, &e), -ENOENT);
	cr_assert_null(res.spec);
	cr_assert(strstr(cdi_error_message(&e), n->host_path) != NULL, "%s", cdi_error_message(&e));
	cr_assert(strstr(cdi_error_message(&e), "--allow-missing-nodes") != NULL);
	cdi_error_reset(&e);

	/* Opt-out: written anyway (no numbers to give), and said so. */
	o.allow_missing_nodes = true;
	spec = spec_of(&inv, &o, &warn);
	cr_assert_eq(cdi_error_count(&warn), 1);
	cr_assert(strstr(cdi_problem_text(cdi_error_problem(&warn, 0)), n->host_path) != NULL);
	nodes = dev_nodes(spec, "1:2");
	cr_assert_eq(json_array_size(nodes), 3);
	cr_assert_null(json_object_get(json_array_get(nodes, 2), "major"));
	cr_assert_not_null(json_object_get(json_array_get(nodes, 1), "major"));
	cdi_error_reset(&warn);

	/* A device not selected does not care about its missing node. */
	o = (struct spec_options){ .device_ids = (const char *const[]){ "0" }, .n_device_ids = 1 };
	json_decref(spec_of(&inv, &o, NULL));
	inventory_clear(&inv);
}

/* What discovery found wrong with a node is an error naming it, even with allow_missing_nodes. */
Test(spec, linked_stale_and_wrong_nodes_are_errors)
{
	static const struct {
		int error;
		const char *problem;
	} cases[] = {
		{ -ELOOP, "is a symbolic link (to /dev/kvm), not a device node; not followed" },
		{ -ESTALE,
		  "character device 235:999, but the driver's nvidia-caps is 235:12 (stale device node)" },
		{ -ENOTTY, "not a character device" },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		struct inventory inv;
		struct spec_options o = { .allow_missing_nodes = true };
		struct cdi_error e = { 0 };
		struct spec_result res;
		struct inv_node *n, *m;

		topo3(&inv);
		n = &inv.nodes[inv.gpus[0].node];
		m = &inv.nodes[inv.gpus[1].migs[0].gi_node];
		cr_assert_eq(inv_node_set_problem(n, cases[i].error, NULL, "%s", cases[i].problem),
			     0);
		cr_assert_eq(inv_node_set_problem(m, cases[i].error, NULL, "%s", cases[i].problem),
			     0);
		cr_assert_eq(build(&inv, &o, &res, NULL, &e), cases[i].error);
		/* Every bad node is reported, each by its host path. */
		cr_assert_eq(cdi_error_count(&e), 2);
		cr_assert_str_eq(cdi_problem_file(cdi_error_problem(&e, 0)), n->host_path);
		cr_assert_str_eq(cdi_problem_file(cdi_error_problem(&e, 1)), m->host_path);
		cr_assert_str_eq(cdi_problem_message(cdi_error_problem(&e, 0)), cases[i].problem);
		cdi_error_reset(&e);
		inventory_clear(&inv);
	}
}

/* A host where the driver did not create nvidia-uvm yet: never silently without it. */
Test(spec, missing_control_node_names_the_options)
{
	struct inventory inv;
	struct spec_options o = { 0 };
	struct cdi_error e = { 0 };
	struct spec_result res;

	topo3(&inv);
	cr_assert_str_eq(inv.nodes[0].path, "/dev/nvidia-uvm");
	cr_assert_eq(inv_node_set_problem(&inv.nodes[0], -ENOENT, NULL, "%s", strerror(ENOENT)), 0);
	cr_assert_eq(build(&inv, &o, &res, NULL, &e), -ENOENT);
	cr_assert_str_eq(cdi_problem_file(cdi_error_problem(&e, 0)), HOST "/dev/nvidia-uvm");
	cr_assert(strstr(cdi_problem_message(cdi_error_problem(&e, 0)), "--create-device-nodes") !=
			  NULL,
		  "%s", cdi_problem_text(cdi_error_problem(&e, 0)));
	cr_assert(strstr(cdi_problem_message(cdi_error_problem(&e, 0)), "--allow-missing-nodes") !=
		  NULL);
	cdi_error_reset(&e);
	inventory_clear(&inv);
}

Test(spec, inventory_without_a_gpu_node_is_refused)
{
	struct inventory inv;
	struct spec_options o = { 0 };
	struct cdi_error e = { 0 };
	struct spec_result res;

	topo3(&inv);
	inv.gpus[2].node = INV_NO_NODE;
	cr_assert_eq(build(&inv, &o, &res, NULL, &e), -EINVAL);
	cr_assert(strstr(cdi_error_message(&e), "GPU 2 has no GPU node") != NULL, "%s",
		  cdi_error_message(&e));
	cdi_error_reset(&e);
	inventory_clear(&inv);
}

Test(spec, nothing_to_describe)
{
	struct inventory inv = { .driver_version = "550.54.15" };
	struct spec_options o = { 0 };
	struct cdi_error e = { 0 }, warn = { 0 };
	struct spec_result res;

	add_gpus(&inv, 1);
	snprintf(inv.gpus[0].uuid, GPU_UUID_MAX, "GPU-x");
	inv.gpus[0].mig_enabled = true;
	inv.gpus[0].node = gpu_node(&inv, 0);
	cr_assert_eq(build(&inv, &o, &res, &warn, &e), -ENODEV);
	cr_assert_eq(cdi_error_count(&warn), 1);
	cr_assert(strstr(cdi_problem_text(cdi_error_problem(&warn, 0)),
			 "is in MIG mode and has no MIG device to describe") != NULL);
	cdi_error_reset(&e);
	cdi_error_reset(&warn);
	inv.n_gpus = 0;
	cr_assert_eq(build(&inv, &o, &res, NULL, &e), -ENODEV);
	inv.n_gpus = 1;
	cdi_error_reset(&e);
	inventory_clear(&inv);
}

Test(spec, numeric_order_of_many_gpus)
{
	struct inventory inv = { .driver_version = "550.54.15" };
	struct spec_options o = { .name_strategies = NAME_INDEX, .no_all_device = true };
	_cleanup_json_ json_t *spec = NULL;

	add_gpus(&inv, 12);
	for (unsigned i = 0; i < 12; i++) {
		char uuid[32];

		snprintf(uuid, sizeof(uuid), "GPU-%u", i);
		full_gpu(&inv, i, i, uuid);
	}
	spec = spec_of(&inv, &o, NULL);
	for (unsigned i = 0; i < 12; i++) {
		char want[8];

		snprintf(want, sizeof(want), "%u", i);
		cr_assert_str_eq(dev_name(spec, i), want);
	}
	inventory_clear(&inv);
}

Test(spec, old_mig_uuid_is_not_a_name)
{
	static const char *const want[] = { "0:0", "none", "all" };
	struct inventory inv = { .driver_version = "550.54.15" };
	struct spec_options o = { 0 };
	struct cdi_error warn = { 0 };
	_cleanup_json_ json_t *spec = NULL;

	add_gpus(&inv, 1);
	full_gpu(&inv, 0, 3, "GPU-11111111-0000-0000-0000-000000000000");
	add_mig(&inv, 0, 0, 1, 0, "MIG-GPU-11111111-0000-0000-0000-000000000000/1/0");
	spec = spec_of(&inv, &o, &warn);
	assert_names(spec, want, ELEMENTSOF(want));
	cr_assert_eq(cdi_error_count(&warn), 1);
	cr_assert(strstr(cdi_problem_text(cdi_error_problem(&warn, 0)), "MIG-GPU-") != NULL);
	cdi_error_reset(&warn);
	inventory_clear(&inv);
}

Test(spec, invalid_kind_is_never_returned)
{
	struct inventory inv;
	struct spec_options o = { .vendor = "-bad" };
	struct spec_result res;
	struct cdi_error e = { 0 };

	topo3(&inv);
	cr_assert_eq(build(&inv, &o, &res, NULL, &e), -EINVAL);
	cr_assert_null(res.spec);
	cdi_error_reset(&e);
	inventory_clear(&inv);
}

Test(spec, management)
{
	static const char *const want[] = {
		"/dev/nvidia-caps-imex-channels/channel0",
		"/dev/nvidia-caps/nvidia-cap1",
		"/dev/nvidia-caps/nvidia-cap2",
		"/dev/nvidia-caps/nvidia-cap12",
		"/dev/nvidia-uvm",
		"/dev/nvidia0",
		"/dev/nvidia2",
		"/dev/nvidia10",
		"/dev/nvidiactl",
	};
	struct inventory inv = { .driver_version = "550.54.15" };
	struct spec_options o = { .management = true };
	_cleanup_json_ json_t *spec = NULL;
	json_t *nodes;

	/* In the order a directory scan may give them: assembly sorts. */
	gpu_node(&inv, 10);
	gpu_node(&inv, 0);
	cap_node(&inv, 12);
	cap_node(&inv, 1);
	control_nodes(&inv);
	gpu_node(&inv, 2);
	cap_node(&inv, 2);
	node(&inv, NODE_OTHER, DRV_CAP_UNKNOWN, "/dev/nvidia-caps-imex-channels/channel0", 234, 0);
	spec = spec_of(&inv, &o, NULL);
	assert_names(spec, (const char *const[]){ "all" }, 1);
	nodes = dev_nodes(spec, "all");
	for (size_t i = 0; i < ELEMENTSOF(want) && i < json_array_size(nodes); i++)
		cr_assert_str_eq(node_path(nodes, i), want[i], "node %zu", i);
	cr_assert_eq(json_array_size(nodes), ELEMENTSOF(want));
	cr_assert_null(json_object_get(json_object_get(spec, "containerEdits"), "deviceNodes"));
	cr_assert_str_eq(
		json_string_value(json_array_get(
			json_object_get(json_object_get(spec, "containerEdits"), "env"), 0)),
		"NVIDIA_VISIBLE_DEVICES=void");
	cr_assert_not(has_key(spec, "hooks"));
	inventory_clear(&inv);
}

Test(device_name_cmp, order)
{
	static const char *const sorted[] = { "0",	"1",	    "1:0",	"1:1",	 "1:10",
					      "2",	"9",	    "10",	"10:0",	 "64",
					      "GPU-0",	"GPU-54e6", "GPU-8dc5", "GPU-a", "MIG-0",
					      "MIG-10", "MIG-9",    "gpu0",	"gpu2",	 "gpu10",
					      "mig0:1", "mig2:0",   "none" };

	for (size_t i = 0; i < ELEMENTSOF(sorted); i++)
		for (size_t j = 0; j < ELEMENTSOF(sorted); j++) {
			int c = device_name_cmp(sorted[i], sorted[j]);

			cr_assert(i < j	  ? c < 0
				  : i > j ? c > 0
					  : c == 0,
				  "%s vs %s: %d", sorted[i], sorted[j], c);
		}
	cr_assert_neq(device_name_cmp("01", "1"), 0, "a total order");
}

/* ---- mounts ---- */

static struct inv_file *file(struct inventory *inv, enum inv_file_kind kind, enum drv_cap cap,
			     bool is32, const char *host, unsigned rank, const char *const *paths)
{
	struct inv_file *f;

	cr_assert_eq(inventory_add_file(inv, kind, cap, is32, host, rank, &f, NULL), 0);
	for (const char *const *p = paths; *p; p++)
		cr_assert_eq(inv_file_add_path(f, *p, "", "", NULL), 0);
	return f;
}

static const char *mount_host(const json_t *mounts, const char *container)
{
	size_t i;
	json_t *m;

	json_array_foreach (mounts, i, m)
		if (strcmp(json_string_value(json_object_get(m, "containerPath")), container) == 0)
			return json_string_value(json_object_get(m, "hostPath"));
	return NULL;
}

/* One file per containerPath: the own place beats a name, 64-bit beats 32-bit, then rank. */
Test(mounts, clashes_sorted_and_options)
{
	struct inventory inv = { 0 };
	_cleanup_json_ json_t *mounts = NULL, *caps = json_object();
	const char *prev = "";
	size_t i;
	json_t *m;

	file(&inv, INV_LIBRARY, DRV_CAP_GRAPHICS, true, "/h/32/libGLX_nvidia.so.1", 0,
	     (const char *const[]){ "/usr/lib/i386-linux-gnu/libGLX_nvidia.so.1", "/usr/lib/x.so",
				    NULL });
	file(&inv, INV_LIBRARY, DRV_CAP_COMPUTE, false, "/h/libcuda.so.2", 2,
	     (const char *const[]){ "/usr/lib/libcuda.so.2", "/usr/lib/libcuda.so.1", NULL });
	file(&inv, INV_LIBRARY, DRV_CAP_COMPUTE, false, "/h/libcuda.so.1", 1,
	     (const char *const[]){ "/usr/lib/libcuda.so.1.own", "/usr/lib/libcuda.so.1",
				    "/usr/lib/x.so", NULL });
	file(&inv, INV_LIBRARY, DRV_CAP_GRAPHICS, false, "/h/own", 9,
	     (const char *const[]){ "/usr/lib/i386-linux-gnu/libGLX_nvidia.so.1", NULL });
	file(&inv, INV_IPC, DRV_CAP_UTILITY, false, "/h/run/socket", 0,
	     (const char *const[]){ "/run/nvidia-persistenced/socket", NULL });
	file(&inv, INV_FIRMWARE, DRV_CAP_UNKNOWN, false, "/h/fw/gsp.bin", 0,
	     (const char *const[]){ "/lib/firmware/nvidia/550.54.15/gsp.bin", NULL });
	file(&inv, INV_CONFIG, DRV_CAP_GRAPHICS, false, "/h/bad\xff", 0,
	     (const char *const[]){ "/etc/bad", NULL });
	cr_assert_eq(spec_mounts(&inv, &mounts, caps, NULL), 0);
	json_array_foreach (mounts, i, m) {
		const char *c = json_string_value(json_object_get(m, "containerPath"));
		json_t *opts = json_object_get(m, "options");

		cr_assert_lt(strcmp(prev, c), 0, "sorted, unique: %s after %s", c, prev);
		prev = c;
		cr_assert_str_eq(json_string_value(json_array_get(opts, 0)),
				 strncmp(c, "/run/", 5) == 0 ? "nosuid" : "ro", "%s", c);
	}
	cr_assert_eq(json_array_size(mounts), 7);
	/* Both names: the lower rank. */
	cr_assert_str_eq(mount_host(mounts, "/usr/lib/libcuda.so.1"), "/h/libcuda.so.1");
	/* A 64-bit file's own place beats a 32-bit file's own place. */
	cr_assert_str_eq(mount_host(mounts, "/usr/lib/i386-linux-gnu/libGLX_nvidia.so.1"),
			 "/h/own");
	/* A 64-bit name beats a 32-bit name. */
	cr_assert_str_eq(mount_host(mounts, "/usr/lib/x.so"), "/h/libcuda.so.1");
	/* Not UTF-8: not in a spec (JSON could not hold it). */
	cr_assert_null(mount_host(mounts, "/etc/bad"));
	cr_assert_str_eq(json_string_value(json_object_get(caps, "/usr/lib/libcuda.so.2")),
			 "compute");
	cr_assert_str_eq(
		json_string_value(json_object_get(caps, "/run/nvidia-persistenced/socket")),
		"utility");
	cr_assert_null(json_object_get(caps, "/lib/firmware/nvidia/550.54.15/gsp.bin"));
	inventory_clear(&inv);
}

Test(mounts, thirty_two_bit_capability)
{
	struct inventory inv = { 0 };
	_cleanup_json_ json_t *mounts = NULL, *caps = json_object();

	file(&inv, INV_LIBRARY, DRV_CAP_COMPUTE, true, "/h/32/libcuda.so.550.54.15", 0,
	     (const char *const[]){ "/usr/lib/i386-linux-gnu/libcuda.so.1", NULL });
	cr_assert_eq(spec_mounts(&inv, &mounts, caps, NULL), 0);
	cr_assert_str_eq(
		json_string_value(json_object_get(caps, "/usr/lib/i386-linux-gnu/libcuda.so.1")),
		"compute/32");
	inventory_clear(&inv);
}

/* ---- the facts file ---- */

static json_t *facts_of(const struct inventory *inv, const struct spec_options *o)
{
	struct spec_result res;
	json_t *facts = NULL;

	cr_assert_eq(build(inv, o, &res, NULL, NULL), 0);
	cr_assert_eq(facts_build(inv, o, &res, &facts, NULL), 0);
	spec_result_clear(&res);
	return facts;
}

static void assert_strings(const json_t *a, const char *const *want, size_t n)
{
	cr_assert_eq(json_array_size(a), n, "%zu, want %zu", json_array_size(a), n);
	for (size_t i = 0; i < n; i++)
		cr_assert_str_eq(json_string_value(json_array_get(a, i)), want[i]);
}

Test(facts, gpus_names_driver_and_capabilities)
{
	struct inventory inv;
	struct spec_options o = { .name_strategies = NAME_INDEX | NAME_UUID | NAME_TYPE_INDEX,
				  .capabilities = true };
	_cleanup_json_ json_t *facts = NULL, *driver = json_pack("{s:s, s:s}", "version",
								 "550.54.15", "cuda", "12.4");
	struct inv_file *f;
	json_t *g0, *g1, *mig, *caps;
	const char *key, *prev = "";
	json_t *v;

	topo3(&inv);
	inv.gpus[0].brand = "Tesla";
	snprintf(inv.gpus[0].arch, GPU_ARCH_MAX, "7.0");
	snprintf(inv.gpus[0].name, GPU_NAME_MAX, "Tesla V100-SXM2-32GB");
	node(&inv, NODE_CONTROL, DRV_CAP_DISPLAY, "/dev/nvidia-modeset", MAJ_NVIDIA, 254);
	cr_assert_eq(inventory_add_file(&inv, INV_LIBRARY, DRV_CAP_COMPUTE, true,
					"/x/libcuda.so.550.54.15", 0, &f, NULL),
		     0);
	cr_assert_eq(inv_file_add_path(f, "/usr/lib/i386-linux-gnu/libcuda.so.1", "", "", NULL), 0);
	cr_assert_eq(inventory_add_file(&inv, INV_BINARY, DRV_CAP_UTILITY, false, "/x/nvidia-smi",
					0, &f, NULL),
		     0);
	cr_assert_eq(inv_file_add_path(f, "/usr/bin/nvidia-smi", "", "", NULL), 0);
	facts = facts_of(&inv, &o);
	cr_assert_eq(json_integer_value(json_object_get(facts, "cdikitFacts")), 1);
	cr_assert_str_eq(json_string_value(json_object_get(facts, "kind")), "nvidia.com/gpu");
	cr_assert(json_equal(json_object_get(facts, "driver"), driver));
	cr_assert_eq(json_array_size(json_object_get(facts, "gpus")), 3);
	g0 = json_array_get(json_object_get(facts, "gpus"), 0);
	cr_assert_eq(json_integer_value(json_object_get(g0, "index")), 0);
	cr_assert_eq(json_integer_value(json_object_get(g0, "minor")), 0);
	cr_assert_str_eq(json_string_value(json_object_get(g0, "busId")), "0000:07:00.0");
	cr_assert_str_eq(json_string_value(json_object_get(g0, "model")), "Tesla V100-SXM2-32GB");
	cr_assert_str_eq(json_string_value(json_object_get(g0, "brand")), "Tesla");
	cr_assert_str_eq(json_string_value(json_object_get(g0, "arch")), "7.0");
	cr_assert(json_is_false(json_object_get(g0, "mig")));
	assert_strings(
		json_object_get(g0, "devices"),
		(const char *const[]){ "0", "GPU-00000000-0000-0000-0000-000000000000", "gpu0" },
		3);
	cr_assert_null(json_object_get(g0, "migDevices"));
	/* A GPU in MIG mode: no name of its own, its MIG devices with theirs. */
	g1 = json_array_get(json_object_get(facts, "gpus"), 1);
	cr_assert(json_is_true(json_object_get(g1, "mig")));
	cr_assert_null(json_object_get(g1, "brand"), "unknown: absent");
	cr_assert_null(json_object_get(g1, "arch"), "unknown: absent");
	assert_strings(json_object_get(g1, "devices"), NULL, 0);
	mig = json_array_get(json_object_get(g1, "migDevices"), 1);
	cr_assert_str_eq(json_string_value(json_object_get(mig, "index")), "1:2");
	cr_assert_str_eq(json_string_value(json_object_get(mig, "uuid")),
			 "MIG-bbbbbbbb-0000-0000-0000-000000000000");
	cr_assert_eq(json_integer_value(json_object_get(mig, "gi")), 2);
	cr_assert_eq(json_integer_value(json_object_get(mig, "ci")), 1);
	assert_strings(json_object_get(mig, "devices"),
		       (const char *const[]){ "1:2", "MIG-bbbbbbbb-0000-0000-0000-000000000000",
					      "mig1:2" },
		       3);
	caps = json_object_get(facts, "capabilities");
	cr_assert_str_eq(
		json_string_value(json_object_get(caps, "/usr/lib/i386-linux-gnu/libcuda.so.1")),
		"compute/32");
	cr_assert_str_eq(json_string_value(json_object_get(caps, "/usr/bin/nvidia-smi")),
			 "utility");
	cr_assert_str_eq(json_string_value(json_object_get(caps, "/dev/nvidia-uvm")), "compute");
	cr_assert_str_eq(json_string_value(json_object_get(caps, "/dev/nvidia-modeset")),
			 "display");
	cr_assert_eq(json_object_size(caps), 4);
	json_object_foreach (caps, key, v) {
		cr_assert_lt(strcmp(prev, key), 0, "keys sorted: %s after %s", key, prev);
		prev = key;
	}
	inventory_clear(&inv);
}

/* Only the names the spec has: the strategies it was made with, the devices selected. */
Test(facts, names_of_the_spec_only)
{
	struct inventory inv;
	const char *ids[] = { "1:0" };
	struct spec_options o = { .name_strategies = NAME_UUID,
				  .device_ids = ids,
				  .n_device_ids = 1,
				  .capabilities = true };
	_cleanup_json_ json_t *facts = NULL;
	json_t *gpus;

	topo3(&inv);
	facts = facts_of(&inv, &o);
	gpus = json_object_get(facts, "gpus");
	assert_strings(json_object_get(json_array_get(gpus, 0), "devices"), NULL, 0);
	assert_strings(
		json_object_get(
			json_array_get(json_object_get(json_array_get(gpus, 1), "migDevices"), 0),
			"devices"),
		(const char *const[]){ "MIG-aaaaaaaa-0000-0000-0000-000000000000" }, 1);
	assert_strings(
		json_object_get(
			json_array_get(json_object_get(json_array_get(gpus, 1), "migDevices"), 1),
			"devices"),
		NULL, 0);
	inventory_clear(&inv);
}

Test(facts, management_and_text)
{
	struct inventory inv = { .driver_version = "550.54.15" };
	struct spec_options o = { .management = true, .capabilities = true };
	_cleanup_json_ json_t *facts = NULL;
	_cleanup_free_ char *a = NULL, *b = NULL;
	size_t la = 0, lb = 0;

	control_nodes(&inv);
	gpu_node(&inv, 0);
	facts = facts_of(&inv, &o);
	cr_assert_eq(json_array_size(json_object_get(facts, "gpus")), 0);
	cr_assert_null(json_object_get(json_object_get(facts, "driver"), "cuda"),
		       "unknown: absent");
	cr_assert_eq(facts_emit(facts, &a, &la, NULL), 0);
	cr_assert_eq(facts_emit(facts, &b, &lb, NULL), 0);
	cr_assert(la == lb && memcmp(a, b, la) == 0);
	cr_assert_eq(a[la - 1], '\n');
	cr_assert_eq(strncmp(a, "{\n  \"cdikitFacts\": 1,\n  \"kind\": \"nvidia.com/gpu\"", 40), 0,
		     "%s", a);
	inventory_clear(&inv);
}
