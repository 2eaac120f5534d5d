/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Assembly: the CDI spec of a host inventory, as a JSON tree: devices by name strategy, their
 * device nodes, the common edits. Follows what nvidia-ctk's nvml and management modes emit,
 * without hooks and, by default, without device numbers (the runtime stats hostPath at
 * container start, so a reboot that moves nvidia-uvm's dynamic major cannot make the spec lie).
 * A node only a group may use (DRI nodes: root:video, root:render 0660) carries its gid and
 * puts the group into additionalGids of the edits it is in, as nvidia-ctk does; that needs
 * cdiVersion 0.7.0, so only such specs declare it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cdi/names.h>
#include <cdi/spec.h>

#include "array.h"
#include "macro.h"
#include "problem.h"
#include "rules.h"
#include "spec_build.h"

#define DEFAULT_VENDOR "nvidia.com"
#define DEFAULT_CLASS "gpu"
#define SPEC_LABEL "generated spec"
/* What the legacy nvidia-container-runtime-hook reads: with it, such a hook does nothing. */
#define ENV_VOID "NVIDIA_VISIBLE_DEVICES=void"

/* A device entry sorted by name; edits shared between the names of one device. */
struct entry {
	const char *name; /* owned by dev */
	json_t *dev;
};

struct build {
	const struct inventory *inv;
	const struct spec_options *opts;
	struct cdi_error *warn, *err;
	struct device_selection sel;
	bool *used;	    /* nodes[i] is in the spec */
	json_t **node_json; /* nodes[i] as a spec object, built once */
	struct entry *entries;
	size_t n_entries, cap_entries;
	size_t n_gpu_entries; /* entries of GPUs and MIG devices (not "none") */
	size_t *all;	      /* the nodes of "all", in the order devices first use them */
	size_t n_all;
	bool *in_all;
	json_t *caps;
};

static void build_done(struct build *b)
{
	device_selection_clear(&b->sel);
	for (size_t i = 0; b->node_json && i < b->inv->n_nodes; i++)
		json_decref(b->node_json[i]);
	free(b->node_json);
	free(b->used);
	free(b->all);
	free(b->in_all);
	for (size_t i = 0; i < b->n_entries; i++)
		json_decref(b->entries[i].dev);
	free(b->entries);
	json_decref(b->caps);
}

static int oom(struct build *b)
{
	return cdi_fail(b->err, -ENOMEM, "out of memory");
}

static int set_new(json_t *obj, const char *key, json_t *val)
{
	return val && json_object_set_new(obj, key, val) == 0 ? 0 : -ENOMEM;
}

/* Mark a node used; a device whose node discovery did not record is an incomplete inventory. */
static int use_node(struct build *b, size_t index, const char *what, unsigned gpu)
{
	if (index == INV_NO_NODE || index >= b->inv->n_nodes)
		return cdi_fail(b->err, -EINVAL, "inventory: GPU %u has no %s node", gpu, what);
	b->used[index] = true;
	return 0;
}

/* The nodes a GPU spec uses: control nodes, and those of the selected devices. */
static int mark_used(struct build *b)
{
	const struct inventory *inv = b->inv;
	int r = 0;

	for (size_t i = 0; i < inv->n_nodes; i++)
		if (inv->nodes[i].role == NODE_CONTROL || b->opts->management)
			b->used[i] = true;
	for (size_t i = 0; r >= 0 && i < inv->n_gpus && !b->opts->management; i++) {
		const struct gpu_device *gpu = &inv->gpus[i];

		if (b->sel.gpus[i]) {
			r = use_node(b, gpu->node, "GPU", gpu->index);
			for (size_t k = 0; r >= 0 && k < gpu->n_drm && k < GPU_MAX_DRM; k++)
				r = use_node(b, gpu->drm[k], "DRM", gpu->index);
		}
		for (size_t j = 0; r >= 0 && j < gpu->n_migs && j < GPU_MAX_MIGS; j++) {
			if (!b->sel.migs[i * GPU_MAX_MIGS + j])
				continue;
			r = use_node(b, gpu->node, "GPU", gpu->index);
			if (r >= 0)
				r = use_node(b, gpu->migs[j].gi_node, "GPU instance", gpu->index);
			if (r >= 0)
				r = use_node(b, gpu->migs[j].ci_node, "compute instance",
					     gpu->index);
		}
	}
	return r;
}

/* What discovery found wrong with a used node: an error, or for a missing one on request a
 * warning (the node is written without numbers). */
static int report_node(struct build *b, const struct inv_node *n)
{
	if (n->error == -ENOENT && b->opts->allow_missing_nodes) {
		cdi_problem_add(
			b->warn, n->error, n->host_path, 0, 0, NULL,
			"%s; written to the spec anyway (the runtime will look for it at container start)",
			n->problem);
		return 0;
	}
	if (n->error == -ENOENT && n->role == NODE_CONTROL)
		return cdi_problem_add(
			b->err, n->error, n->host_path, 0, 0, NULL,
			"%s (the driver creates control nodes on first use, not when it loads): create it with --create-device-nodes or nvidia-modprobe, or pass --allow-missing-nodes to write the spec anyway",
			n->problem);
	if (n->error == -ENOENT)
		return cdi_problem_add(
			b->err, n->error, n->host_path, 0, 0, NULL,
			"%s (create it with nvidia-modprobe or nvidia-smi, or pass --allow-missing-nodes to write the spec anyway)",
			n->problem);
	return cdi_problem_add(b->err, n->error, n->host_path, 0, 0, NULL, "%s", n->problem);
}

/* Every used node that is not right, reported; the first error's code. */
static int check_nodes(struct build *b)
{
	int first = 0;

	for (size_t i = 0; i < b->inv->n_nodes; i++) {
		const struct inv_node *n = &b->inv->nodes[i];
		int r;

		if (!b->used[i] || n->error == 0)
			continue;
		r = report_node(b, n);
		if (r < 0 && first == 0)
			first = r;
	}
	return first;
}

/* A node as the spec has it: {path, hostPath} (+ numbers on request), built once. */
static json_t *node_get(struct build *b, size_t index)
{
	const struct inv_node *n = &b->inv->nodes[index];
	json_t *node;

	if (b->node_json[index])
		return b->node_json[index];
	node = json_object();
	if (!node || set_new(node, "path", json_string(n->path)) < 0 ||
	    (strcmp(n->host_path, n->path) != 0 &&
	     set_new(node, "hostPath", json_string(n->host_path)) < 0) ||
	    (b->opts->with_device_numbers && n->error == 0 &&
	     (set_new(node, "type", json_string("c")) < 0 ||
	      set_new(node, "major", json_integer(n->major)) < 0 ||
	      set_new(node, "minor", json_integer(n->minor)) < 0 ||
	      set_new(node, "fileMode", json_integer(n->mode)) < 0)) ||
	    (!b->opts->no_additional_gids && inv_node_needs_group(n) &&
	     set_new(node, "gid", json_integer(n->gid)) < 0)) {
		json_decref(node);
		return NULL;
	}
	if (b->caps && drv_cap_name(n->cap) &&
	    json_object_set_new(b->caps, n->path, json_string(drv_cap_name(n->cap))) < 0) {
		json_decref(node);
		return NULL;
	}
	b->node_json[index] = node;
	return node;
}

static int gid_cmp(const void *a, const void *b)
{
	gid_t x = *(const gid_t *)a, y = *(const gid_t *)b;

	return x < y ? -1 : x > y;
}

/* additionalGids in edits: the groups of the nodes that only a group may use, sorted, once. */
static int add_gids(struct build *b, json_t *edits, const size_t *nodes, size_t n)
{
	_cleanup_free_ gid_t *gids = calloc(n + 1, sizeof(*gids));
	_cleanup_json_ json_t *list = json_array();
	size_t n_gids = 0;

	if (!gids || !list)
		return oom(b);
	if (b->opts->no_additional_gids)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (inv_node_needs_group(&b->inv->nodes[nodes[i]]))
			gids[n_gids++] = b->inv->nodes[nodes[i]].gid;
	if (n_gids == 0)
		return 0;
	qsort(gids, n_gids, sizeof(*gids), gid_cmp);
	for (size_t i = 0; i < n_gids; i++)
		if ((i == 0 || gids[i] != gids[i - 1]) &&
		    json_array_append_new(list, json_integer(gids[i])) < 0)
			return oom(b);
	return set_new(edits, "additionalGids", TAKE_PTR(list)) < 0 ? oom(b) : 0;
}

/* {deviceNodes: [the nodes], additionalGids: [their groups, if any]} */
static int node_edits(struct build *b, const size_t *nodes, size_t n, json_t **ret)
{
	_cleanup_json_ json_t *edits = json_object(), *list = json_array();
	int r;

	if (!edits || !list)
		return oom(b);
	for (size_t i = 0; i < n; i++) {
		json_t *node = node_get(b, nodes[i]);

		if (!node || json_array_append(list, node) < 0)
			return oom(b);
	}
	if (set_new(edits, "deviceNodes", TAKE_PTR(list)) < 0)
		return oom(b);
	r = add_gids(b, edits, nodes, n);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(edits);
	return 0;
}

static int entry_add(struct build *b, const char *name, json_t *edits)
{
	_cleanup_json_ json_t *dev = json_object();
	const char *problem = cdi_name_problem(CDI_NAME_DEVICE, name, strlen(name), NULL);

	if (problem) {
		/* e.g. R450's "MIG-GPU-<uuid>/<gi>/<ci>": not a CDI name; the other names stay. */
		cdi_problem_add(b->warn, -EINVAL, NULL, 0, 0, NULL,
				"device name \"%s\" left out: %s", name, problem);
		return 0;
	}
	if (!dev || ARRAY_RESERVE(b->entries, b->cap_entries, b->n_entries + 1) < 0 ||
	    set_new(dev, "name", json_string(name)) < 0 ||
	    set_new(dev, "containerEdits", json_incref(edits)) < 0)
		return oom(b);
	b->entries[b->n_entries].name = json_string_value(json_object_get(dev, "name"));
	b->entries[b->n_entries].dev = TAKE_PTR(dev);
	b->n_entries++;
	return 0;
}

/*
 * A full GPU's EGL application profile (app_profile.c) at the path NVIDIA's EGL reads, so that
 * EGL and Vulkan see only this GPU; a MIG device has no graphics engine and gets none, and "all"
 * needs none (every GPU visible is the driver's default).
 */
static int app_profile_mount(struct build *b, const struct gpu_device *gpu, json_t *edits)
{
	json_t *opts = spec_mount_options(false);

	if (!opts || set_new(edits, "mounts",
			     json_pack("[{s:s,s:s,s:o}]", "hostPath", gpu->app_profile,
				       "containerPath", APP_PROFILE_PATH, "options", opts)) < 0)
		return oom(b);
	if (b->caps && json_object_set_new(b->caps, APP_PROFILE_PATH, json_string("graphics")) < 0)
		return oom(b);
	return 0;
}

/* A full GPU (mig NULL) or MIG device under every strategy, with its nodes. */
static int device_entries(struct build *b, const struct gpu_device *gpu,
			  const struct mig_device *mig)
{
	char names[NAME_MAX_STRATEGIES][DEVICE_NAME_MAX];
	size_t nodes[1 + GPU_MAX_DRM] = { gpu->node }, n, n_nodes = 1;
	_cleanup_json_ json_t *edits = NULL;
	int r;

	/* DRM nodes go with the full GPU: a MIG device has no graphics engine of its own. */
	if (mig) {
		nodes[n_nodes++] = mig->gi_node;
		nodes[n_nodes++] = mig->ci_node;
	} else
		for (size_t i = 0; i < gpu->n_drm && i < GPU_MAX_DRM; i++)
			nodes[n_nodes++] = gpu->drm[i];
	r = node_edits(b, nodes, n_nodes, &edits);
	if (r >= 0 && !mig && gpu->app_profile)
		r = app_profile_mount(b, gpu, edits);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n_nodes; i++)
		if (!b->in_all[nodes[i]]) {
			b->in_all[nodes[i]] = true;
			b->all[b->n_all++] = nodes[i];
		}
	n = device_names(b->opts->name_strategies, gpu, mig, names);
	for (size_t i = 0; r >= 0 && i < n; i++)
		r = entry_add(b, names[i], edits);
	return r;
}

static int gpu_entries(struct build *b)
{
	int r = 0;

	for (size_t i = 0; r >= 0 && i < b->inv->n_gpus; i++) {
		const struct gpu_device *gpu = &b->inv->gpus[i];

		if (gpu->mig_enabled && gpu->n_migs == 0 && b->opts->n_device_ids == 0)
			cdi_problem_add(
				b->warn, 0, NULL, 0, 0, NULL,
				"GPU %u (%s) is in MIG mode and has no MIG device to describe (none configured, or enumerated without NVML)",
				gpu->index, gpu->uuid);
		if (b->sel.gpus[i])
			r = device_entries(b, gpu, NULL);
		for (size_t j = 0; r >= 0 && j < gpu->n_migs && j < GPU_MAX_MIGS; j++)
			if (b->sel.migs[i * GPU_MAX_MIGS + j])
				r = device_entries(b, gpu, &gpu->migs[j]);
	}
	b->n_gpu_entries = b->n_entries;
	return r;
}

/*
 * "none": the spec's common edits (control nodes, driver files) and no GPU. A device needs
 * edits of its own (the reference rejects one without), and the only one that is true of it
 * is the common edits' NVIDIA_VISIBLE_DEVICES=void, which repeats harmlessly.
 */
static int none_entry(struct build *b)
{
	_cleanup_json_ json_t *edits = json_pack("{s:[s]}", "env", ENV_VOID);

	if (!edits)
		return oom(b);
	return entry_add(b, DEVICE_NONE, edits);
}

static int entry_cmp(const void *a, const void *b)
{
	return device_name_cmp(((const struct entry *)a)->name, ((const struct entry *)b)->name);
}

/* The "all" device: every node the devices use, in the order they first use them. */
static int all_entry(struct build *b, json_t *devices)
{
	_cleanup_json_ json_t *all = json_object(), *edits = NULL;
	int r;

	if (b->n_all == 0)
		return 0; /* "none" alone: nothing to merge */
	r = node_edits(b, b->all, b->n_all, &edits);
	if (r < 0)
		return r;
	if (!all || set_new(all, "name", json_string("all")) < 0 ||
	    set_new(all, "containerEdits", TAKE_PTR(edits)) < 0 ||
	    json_array_append(devices, all) < 0)
		return oom(b);
	return 0;
}

static int path_index_cmp(const void *a, const void *b, void *nodes)
{
	const struct inv_node *n = nodes;

	return device_name_cmp(n[*(const size_t *)a].path, n[*(const size_t *)b].path);
}

/* The used nodes of a role (or all of them: role < 0), sorted by path, as edits' deviceNodes
 * (when there are any) and additionalGids. */
static int used_node_edits(struct build *b, int role, json_t *edits)
{
	_cleanup_free_ size_t *idx = calloc(b->inv->n_nodes + 1, sizeof(*idx));
	_cleanup_json_ json_t *list = json_array();
	size_t n = 0;

	if (!idx || !list)
		return oom(b);
	for (size_t i = 0; i < b->inv->n_nodes; i++)
		if (b->used[i] && (role < 0 || b->inv->nodes[i].role == (enum node_role)role))
			idx[n++] = i;
	qsort_r(idx, n, sizeof(*idx), path_index_cmp, b->inv->nodes);
	for (size_t i = 0; i < n; i++) {
		json_t *node = node_get(b, idx[i]);

		if (!node || json_array_append(list, node) < 0)
			return oom(b);
	}
	if (n > 0 && set_new(edits, "deviceNodes", TAKE_PTR(list)) < 0)
		return oom(b);
	return add_gids(b, edits, idx, n);
}

/* The spec-wide edits: the env, the control nodes (GPU specs), the driver's files. */
static int common_edits(struct build *b, json_t *mounts, json_t **ret)
{
	_cleanup_json_ json_t *edits = json_pack("{s:[s]}", "env", ENV_VOID);
	int r;

	if (!edits)
		return oom(b);
	if (!b->opts->management) {
		r = used_node_edits(b, NODE_CONTROL, edits);
		if (r < 0)
			return r;
	}
	if (json_array_size(mounts) > 0 && set_new(edits, "mounts", json_incref(mounts)) < 0)
		return oom(b);
	*ret = TAKE_PTR(edits);
	return 0;
}

/*
 * The spec around devices: kind, the common edits, the minimum cdiVersion; validated strictly,
 * as every path we write is absolute: never write what we would reject.
 */
static int spec_assemble(struct build *b, json_t *devices, json_t *edits, json_t **ret)
{
	const struct spec_options *o = b->opts;
	_cleanup_json_ json_t *spec = json_object();
	_cleanup_free_ char *kind = NULL;
	const char *version;
	int r;

	if (!spec || asprintf(&kind, "%s/%s", o->vendor ? o->vendor : DEFAULT_VENDOR,
			      o->class_name ? o->class_name : DEFAULT_CLASS) < 0)
		return oom(b);
	/* cdiVersion first, so the tree reads in the order the file will. */
	if (set_new(spec, "cdiVersion", json_string("0.3.0")) < 0 ||
	    set_new(spec, "kind", json_string(kind)) < 0 ||
	    set_new(spec, "devices", json_incref(devices)) < 0 ||
	    set_new(spec, "containerEdits", json_incref(edits)) < 0)
		return oom(b);
	version = cdi_minimum_version(spec);
	if (!version || set_new(spec, "cdiVersion", json_string(version)) < 0)
		return oom(b);
	r = cdi_spec_validate_json(spec, SPEC_LABEL, CDI_LOAD_STRICT, b->err);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(spec);
	return 0;
}

/* The devices of a GPU spec: GPUs and MIG devices, "none", sorted, then "all". */
static int gpu_devices(struct build *b, json_t *devices)
{
	int r;

	r = gpu_entries(b);
	if (r >= 0 && b->n_gpu_entries == 0 && !b->sel.none)
		r = cdi_fail(b->err, -ENODEV, "no GPU or MIG device to describe (%zu GPUs found)",
			     b->inv->n_gpus);
	if (r >= 0 && (!b->opts->no_all_device || b->sel.none))
		r = none_entry(b);
	if (r < 0)
		return r;
	qsort(b->entries, b->n_entries, sizeof(*b->entries), entry_cmp);
	for (size_t k = 0; k < b->n_entries; k++)
		if (json_array_append(devices, b->entries[k].dev) < 0)
			return oom(b);
	return b->opts->no_all_device ? 0 : all_entry(b, devices);
}

/* The management spec's one device: "all", every node. */
static int management_devices(struct build *b, json_t *devices)
{
	_cleanup_json_ json_t *all = json_object(), *edits = json_object();
	int r;

	if (!all || !edits)
		return oom(b);
	r = used_node_edits(b, -1, edits);
	if (r < 0)
		return r;
	if (set_new(all, "name", json_string("all")) < 0 ||
	    set_new(all, "containerEdits", TAKE_PTR(edits)) < 0 ||
	    json_array_append(devices, all) < 0)
		return oom(b);
	return 0;
}

static int build_init(struct build *b)
{
	size_t n = b->inv->n_nodes + 1;
	int r;

	b->used = calloc(n, sizeof(*b->used));
	b->in_all = calloc(n, sizeof(*b->in_all));
	b->all = calloc(n, sizeof(*b->all));
	b->node_json = calloc(n, sizeof(*b->node_json));
	b->caps = b->opts->capabilities ? json_object() : NULL;
	if (!b->used || !b->in_all || !b->all || !b->node_json ||
	    (b->opts->capabilities && !b->caps))
		return oom(b);
	if (!b->opts->management) {
		r = device_select(b->inv, b->opts->device_ids, b->opts->n_device_ids, &b->sel,
				  b->err);
		if (r < 0)
			return r;
	}
	r = mark_used(b);
	return r < 0 ? r : check_nodes(b);
}

int spec_build(const struct inventory *inv, const struct spec_options *opts,
	       struct spec_result *ret, struct cdi_error *warn, struct cdi_error *err)
{
	struct build b = { .inv = inv, .opts = opts, .warn = warn, .err = err };
	_cleanup_json_ json_t *devices = json_array(), *mounts = NULL, *edits = NULL, *spec = NULL;
	int r;

	if (inv->n_devices > 0)
		return spec_build_devices(inv, opts, ret, err);

	r = build_init(&b);
	if (r >= 0 && !devices)
		r = oom(&b);
	if (r >= 0)
		r = spec_mounts(inv, &mounts, b.caps, err);
	if (r >= 0)
		r = opts->management ? management_devices(&b, devices) : gpu_devices(&b, devices);
	if (r >= 0)
		r = common_edits(&b, mounts, &edits);
	if (r >= 0)
		r = spec_assemble(&b, devices, edits, &spec);
	if (r >= 0) {
		*ret = (struct spec_result){ .spec = TAKE_PTR(spec),
					     .capabilities = TAKE_PTR(b.caps),
					     .n_devices = json_array_size(devices),
					     .n_mounts = json_array_size(mounts) };
		for (size_t i = 0; i < inv->n_nodes; i++)
			ret->n_nodes += b.used[i];
	}
	build_done(&b);
	return r < 0 ? r : 0;
}

void spec_result_clear(struct spec_result *res)
{
	json_decref(res->spec);
	json_decref(res->capabilities);
	*res = (struct spec_result){ 0 };
}
