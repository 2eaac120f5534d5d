/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Spec assembly (generate/spec_build.c) over a hand-made topology and a
 * temp root with real character device nodes (mknod: skipped when that is
 * not allowed), /proc/devices and mig-minors as the kernel numbers them.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../generate/procfs.h"
#include "../generate/spec_build.h"
#include "macro.h"

#define MAJ_NVIDIA 195
#define MAJ_CAPS 235
#define MAJ_UVM 508

static char root[64];
static struct gen_host host;

/* The kernel's mig-minors numbering (nv-caps.c). */
static unsigned gi_minor(unsigned gpu, unsigned gi)
{
	return 3 + 135 * gpu + 9 * gi;
}

static unsigned ci_minor(unsigned gpu, unsigned gi, unsigned ci)
{
	return 4 + 135 * gpu + 9 * gi + ci;
}

static void path_of(char *out, size_t size, const char *rel)
{
	snprintf(out, size, "%s%s", root, rel);
}

static void mkparents(const char *path)
{
	char tmp[512], *slash;

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (slash = strchr(tmp + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(tmp, 0755);
		*slash = '/';
	}
}

static void put(const char *rel, const char *content)
{
	char path[512];
	FILE *f;

	path_of(path, sizeof(path), rel);
	mkparents(path);
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs(content, f);
	fclose(f);
}

static void node(const char *rel, unsigned major, unsigned minor)
{
	char path[512];

	path_of(path, sizeof(path), rel);
	mkparents(path);
	unlink(path);
	if (mknod(path, S_IFCHR | 0666, makedev(major, minor)) < 0)
		cr_skip_test("mknod %s: %s (needs root/CAP_MKNOD)", path, strerror(errno));
}

static void cap(unsigned minor)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "/dev/nvidia-caps/nvidia-cap%u", minor);
	node(rel, MAJ_CAPS, minor);
}

static void gpu_node(unsigned minor)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "/dev/nvidia%u", minor);
	node(rel, MAJ_NVIDIA, minor);
}

static void make_root(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	strcpy(root, "/tmp/test-gen-spec.XXXXXX");
	cr_assert_not_null(mkdtemp(root));
	host = (struct gen_host){ .root = root, .driver_root = root, .dev_root = root };
	put("/proc/devices", "Character devices:\n  1 mem\n195 nvidia-frontend\n235 nvidia-caps\n"
			     "508 nvidia-uvm\n\nBlock devices:\n  8 sd\n");
	f = open_memstream(&buf, &len);
	fprintf(f, "config 1\nmonitor 2\n");
	for (unsigned n = 0; n < 8; n++)
		for (unsigned g = 0; g < 15; g++) {
			fprintf(f, "gpu%u/gi%u/access %u\n", n, g, gi_minor(n, g));
			for (unsigned c = 0; c < 8; c++)
				fprintf(f, "gpu%u/gi%u/ci%u/access %u\n", n, g, c, ci_minor(n, g, c));
		}
	fclose(f);
	put("/proc/driver/nvidia-caps/mig-minors", buf);
	free(buf);
	node("/dev/nvidiactl", MAJ_NVIDIA, 255);
	node("/dev/nvidia-uvm", MAJ_UVM, 0);
	put("/dev/nvidia-uvm-tools", "not a device\n"); /* skipped: not a char device */
}

static void remove_root(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(spec, .init = make_root, .fini = remove_root);

static struct mig_device migs1[] = {
	{ .index = 0, .gi = 1, .ci = 0, .uuid = "MIG-aaaaaaaa-0000-0000-0000-000000000000" },
	{ .index = 2, .gi = 2, .ci = 1, .uuid = "MIG-bbbbbbbb-0000-0000-0000-000000000000" },
};

static struct gpu_device gpus3[] = {
	{ .index = 0, .minor = 0, .uuid = "GPU-00000000-0000-0000-0000-000000000000", .bus_id = "0000:07:00.0" },
	{ .index = 1, .minor = 3, .uuid = "GPU-11111111-0000-0000-0000-000000000000", .bus_id = "0000:0f:00.0",
	  .mig_enabled = true, .migs = migs1, .n_migs = 2 },
	{ .index = 2, .minor = 1, .uuid = "GPU-22222222-0000-0000-0000-000000000000", .bus_id = "0000:b7:00.0" },
};

static struct gpu_topology topo3 = { .driver_version = "550.54.15", .gpus = gpus3, .n_gpus = 3 };

/* The nodes topo3 needs. */
static void topo3_nodes(void)
{
	gpu_node(0);
	gpu_node(3);
	gpu_node(1);
	cap(gi_minor(3, 1));
	cap(ci_minor(3, 1, 0));
	cap(gi_minor(3, 2));
	cap(ci_minor(3, 2, 1));
}

static json_t *build(const struct gpu_topology *t, const struct spec_options *o, int expect,
		     struct cdi_error *warn)
{
	struct cdi_error e = { 0 };
	json_t *spec = NULL;
	int r = spec_build_gpus(&host, t, NULL, o, &spec, warn, &e);

	cr_assert_eq(r, expect, "spec_build_gpus: %d (%s)", r, cdi_error_message(&e));
	if (expect == 0)
		cr_assert_not_null(spec);
	else
		cr_assert_null(spec);
	cdi_error_reset(&e);
	return spec;
}

static const char *dev_name(const json_t *spec, size_t i)
{
	return json_string_value(json_object_get(json_array_get(json_object_get(spec, "devices"), i), "name"));
}

static json_t *dev_nodes(const json_t *spec, const char *name)
{
	size_t i;
	json_t *d;

	json_array_foreach(json_object_get(spec, "devices"), i, d)
		if (strcmp(json_string_value(json_object_get(d, "name")), name) == 0)
			return json_object_get(json_object_get(d, "containerEdits"), "deviceNodes");
	return NULL;
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
		json_object_foreach((json_t *)j, k, v)
			if (strcmp(k, key) == 0 || has_key(v, key))
				return true;
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v)
			if (has_key(v, key))
				return true;
	}
	return false;
}

Test(spec, default_names_order_and_mig)
{
	static const char *const want[] = {
		"0", "1:0", "1:2", "2",
		"GPU-00000000-0000-0000-0000-000000000000", "GPU-22222222-0000-0000-0000-000000000000",
		"MIG-aaaaaaaa-0000-0000-0000-000000000000", "MIG-bbbbbbbb-0000-0000-0000-000000000000",
		"all",
	};
	struct spec_options o = { 0 };
	_cleanup_json_ json_t *spec = NULL;
	json_t *nodes;
	char want_path[128];

	topo3_nodes();
	spec = build(&topo3, &o, 0, NULL);
	assert_names(spec, want, ELEMENTSOF(want));
	cr_assert_str_eq(json_string_value(json_object_get(spec, "kind")), "nvidia.com/gpu");
	cr_assert_str_eq(json_string_value(json_object_get(spec, "cdiVersion")), "0.5.0");

	/* A full GPU: its node by minor (GPU index 2 has minor 1), hostPath under the root. */
	nodes = dev_nodes(spec, "2");
	cr_assert_eq(json_array_size(nodes), 1);
	cr_assert_str_eq(node_path(nodes, 0), "/dev/nvidia1");
	snprintf(want_path, sizeof(want_path), "%s/dev/nvidia1", root);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(nodes, 0), "hostPath")), want_path);
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
}

Test(spec, all_is_the_union_without_duplicates)
{
	struct spec_options o = { 0 };
	_cleanup_json_ json_t *spec = NULL;
	json_t *all;
	char p[128];

	topo3_nodes();
	spec = build(&topo3, &o, 0, NULL);
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
}

Test(spec, common_edits)
{
	struct spec_options o = { 0 };
	_cleanup_json_ json_t *spec = NULL, *mounts = json_pack("[{s:s,s:s,s:[s,s]}]", "hostPath", "/x/libcuda.so.550.54.15",
								  "containerPath", "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15",
								  "options", "ro", "bind");
	struct cdi_error e = { 0 };
	json_t *edits, *nodes;

	topo3_nodes();
	node("/dev/nvidia-modeset", MAJ_NVIDIA, 254);
	cr_assert_eq(spec_build_gpus(&host, &topo3, mounts, &o, &spec, NULL, &e), 0, "%s",
		     cdi_error_message(&e));
	edits = json_object_get(spec, "containerEdits");
	cr_assert_eq(json_array_size(json_object_get(edits, "env")), 1);
	cr_assert_str_eq(json_string_value(json_array_get(json_object_get(edits, "env"), 0)),
			 "NVIDIA_VISIBLE_DEVICES=void");
	/* Control nodes that exist as char devices, sorted; uvm-tools is a regular file here. */
	nodes = json_object_get(edits, "deviceNodes");
	cr_assert_eq(json_array_size(nodes), 3);
	cr_assert_str_eq(node_path(nodes, 0), "/dev/nvidia-modeset");
	cr_assert_str_eq(node_path(nodes, 1), "/dev/nvidia-uvm");
	cr_assert_str_eq(node_path(nodes, 2), "/dev/nvidiactl");
	cr_assert(json_equal(json_object_get(edits, "mounts"), mounts));
}

Test(spec, strategies)
{
	static const char *const want[] = { "gpu0", "gpu2", "mig1:0", "mig1:2" };
	struct spec_options o = { .name_strategies = NAME_TYPE_INDEX, .no_all_device = true };
	_cleanup_json_ json_t *spec = NULL;
	unsigned s = 0;

	topo3_nodes();
	spec = build(&topo3, &o, 0, NULL);
	assert_names(spec, want, ELEMENTSOF(want));
	cr_assert_eq(name_strategies_parse("index,uuid,type-index", &s, NULL), 0);
	cr_assert_eq(s, NAME_INDEX | NAME_UUID | NAME_TYPE_INDEX);
	s = 0;
	cr_assert_eq(name_strategies_parse("uuid", &s, NULL), 0);
	cr_assert_eq(s, NAME_UUID);
	cr_assert_eq(name_strategies_parse("index,", &s, NULL), -EINVAL);
	cr_assert_eq(name_strategies_parse("bogus", &s, NULL), -EINVAL);
}

Test(spec, uuid_only_without_root_prefix_is_0_3_0)
{
	static const char *const want[] = { "GPU-00000000-0000-0000-0000-000000000000", "all" };
	static struct gpu_device one[] = { { .index = 0, .minor = 0, .uuid = "GPU-00000000-0000-0000-0000-000000000000" } };
	struct gpu_topology t = { .gpus = one, .n_gpus = 1 };
	struct spec_options o = { .name_strategies = NAME_UUID, .allow_missing_nodes = true };
	struct gen_host real = { .root = root, .driver_root = root, .dev_root = "" };
	struct cdi_error e = { 0 }, warn = { 0 };
	_cleanup_json_ json_t *spec = NULL;
	json_t *nodes;

	/* dev-root "/": hostPath would equal path and is left out, so nothing needs 0.5.0.
	 * This machine has no /dev/nvidia0: allowed, with a warning. */
	if (access("/dev/nvidia0", F_OK) == 0)
		cr_skip_test("this machine has a real /dev/nvidia0");
	cr_assert_eq(spec_build_gpus(&real, &t, NULL, &o, &spec, &warn, &e), 0, "%s", cdi_error_message(&e));
	assert_names(spec, want, ELEMENTSOF(want));
	nodes = dev_nodes(spec, "all");
	cr_assert_null(json_object_get(json_array_get(nodes, 0), "hostPath"));
	cr_assert_str_eq(json_string_value(json_object_get(spec, "cdiVersion")), "0.3.0");
	cr_assert_eq(cdi_error_count(&warn), 1);
	cr_assert(strstr(cdi_problem_text(cdi_error_problem(&warn, 0)), "/dev/nvidia0") != NULL);
	cdi_error_reset(&warn);
}

Test(spec, device_numbers_on_request)
{
	struct spec_options o = { .with_device_numbers = true };
	_cleanup_json_ json_t *spec = NULL;
	json_t *n;

	topo3_nodes();
	spec = build(&topo3, &o, 0, NULL);
	n = json_array_get(dev_nodes(spec, "1:0"), 2);
	cr_assert_str_eq(json_string_value(json_object_get(n, "type")), "c");
	cr_assert_eq(json_integer_value(json_object_get(n, "major")), MAJ_CAPS);
	cr_assert_eq(json_integer_value(json_object_get(n, "minor")), ci_minor(3, 1, 0));
	cr_assert_eq(json_integer_value(json_object_get(n, "fileMode")), 0666 & ~(unsigned)umask(0));
	n = json_array_get(dev_nodes(spec, "0"), 0);
	cr_assert_eq(json_integer_value(json_object_get(n, "major")), MAJ_NVIDIA);
	cr_assert_eq(json_integer_value(json_object_get(n, "minor")), 0);
}

Test(spec, device_id_selection)
{
	static const struct {
		const char *id;
		const char *names[3];
	} cases[] = {
		{ "2", { "2", "GPU-22222222-0000-0000-0000-000000000000", "all" } },
		{ "gpu2", { "2", "GPU-22222222-0000-0000-0000-000000000000", "all" } },
		{ "GPU-00000000-0000-0000-0000-000000000000", { "0", "GPU-00000000-0000-0000-0000-000000000000", "all" } },
		{ "0000:b7:00.0", { "2", "GPU-22222222-0000-0000-0000-000000000000", "all" } },
		{ "1:2", { "1:2", "MIG-bbbbbbbb-0000-0000-0000-000000000000", "all" } },
		{ "mig1:0", { "1:0", "MIG-aaaaaaaa-0000-0000-0000-000000000000", "all" } },
		{ "MIG-aaaaaaaa-0000-0000-0000-000000000000", { "1:0", "MIG-aaaaaaaa-0000-0000-0000-000000000000", "all" } },
	};

	topo3_nodes();
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		const char *ids[] = { cases[i].id, cases[i].id };
		struct spec_options o = { .device_ids = ids, .n_device_ids = 2 };
		_cleanup_json_ json_t *spec = build(&topo3, &o, 0, NULL);

		assert_names(spec, cases[i].names, 3);
	}
	{
		const char *ids[] = { "0", "all" };
		struct spec_options o = { .device_ids = ids, .n_device_ids = 2 };
		_cleanup_json_ json_t *spec = build(&topo3, &o, 0, NULL);

		cr_assert_eq(json_array_size(json_object_get(spec, "devices")), 9, "all selects everything");
	}
}

Test(spec, device_id_errors)
{
	static const char *const bad[] = { "99", "3", "1:1", "1", "gpu1", "mig0:0", "GPU-nope", "1:", ":1", "x" };

	topo3_nodes();
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		const char *ids[] = { bad[i] };
		struct spec_options o = { .device_ids = ids, .n_device_ids = 1 };
		struct cdi_error e = { 0 };
		json_t *spec = NULL;

		cr_assert_lt(spec_build_gpus(&host, &topo3, NULL, &o, &spec, NULL, &e), 0, "%s", bad[i]);
		cr_assert_null(spec);
		cr_assert_str_eq(cdi_problem_field(cdi_error_problem(&e, 0)), "--device-id");
		cr_assert(strstr(cdi_problem_message(cdi_error_problem(&e, 0)), bad[i]) != NULL, "%s", cdi_problem_text(cdi_error_problem(&e, 0)));
		cdi_error_reset(&e);
	}
}

Test(spec, missing_cap_node_is_an_error)
{
	struct spec_options o = { 0 };
	struct cdi_error warn = { 0 };
	char path[256];
	_cleanup_json_ json_t *spec = NULL;
	json_t *nodes;
	struct cdi_error e = { 0 };

	topo3_nodes();
	snprintf(path, sizeof(path), "%s/dev/nvidia-caps/nvidia-cap%u", root, ci_minor(3, 2, 1));
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(spec_build_gpus(&host, &topo3, NULL, &o, &spec, NULL, &e), -ENOENT);
	cr_assert_null(spec);
	cr_assert(strstr(cdi_error_message(&e), path) != NULL, "%s", cdi_error_message(&e));
	cdi_error_reset(&e);

	/* Opt-out: written anyway (no numbers to stat), and said so. */
	o.allow_missing_nodes = true;
	o.with_device_numbers = true;
	spec = build(&topo3, &o, 0, &warn);
	cr_assert_eq(cdi_error_count(&warn), 1);
	cr_assert(strstr(cdi_problem_text(cdi_error_problem(&warn, 0)), path) != NULL);
	nodes = dev_nodes(spec, "1:2");
	cr_assert_eq(json_array_size(nodes), 3);
	cr_assert_null(json_object_get(json_array_get(nodes, 2), "major"));
	cr_assert_not_null(json_object_get(json_array_get(nodes, 1), "major"));
	cdi_error_reset(&warn);
}

Test(spec, stale_cap_node_is_an_error)
{
	struct spec_options o = { .allow_missing_nodes = true };
	struct cdi_error e = { 0 };
	json_t *spec = NULL;
	char rel[64];

	topo3_nodes();
	/* Right path, wrong minor: the container would get another MIG device's capability. */
	snprintf(rel, sizeof(rel), "/dev/nvidia-caps/nvidia-cap%u", gi_minor(3, 1));
	node(rel, MAJ_CAPS, 999);
	cr_assert_eq(spec_build_gpus(&host, &topo3, NULL, &o, &spec, NULL, &e), -ESTALE);
	cr_assert(strstr(cdi_error_message(&e), "stale") != NULL, "%s", cdi_error_message(&e));
	cdi_error_reset(&e);
}

Test(spec, mig_minors_missing_entry)
{
	static struct mig_device m[] = { { .index = 0, .gi = 1, .ci = 0, .uuid = "MIG-x" } };
	static struct gpu_device g[] = { { .index = 0, .minor = 9, .uuid = "GPU-x", .mig_enabled = true, .migs = m, .n_migs = 1 } };
	struct gpu_topology t = { .gpus = g, .n_gpus = 1 };
	struct spec_options o = { 0 };
	struct cdi_error e = { 0 };
	json_t *spec = NULL;

	gpu_node(9);
	cr_assert_eq(spec_build_gpus(&host, &t, NULL, &o, &spec, NULL, &e), -ENOENT);
	cr_assert(strstr(cdi_error_message(&e), "mig-minors: no gpu9/gi1/access") != NULL, "%s",
		  cdi_error_message(&e));
	cdi_error_reset(&e);
}

Test(spec, nothing_to_describe)
{
	static struct gpu_device g[] = { { .index = 0, .minor = 0, .uuid = "GPU-x", .mig_enabled = true } };
	struct gpu_topology t = { .gpus = g, .n_gpus = 1 };
	struct spec_options o = { 0 };
	struct cdi_error e = { 0 }, warn = { 0 };
	json_t *spec = NULL;

	cr_assert_eq(spec_build_gpus(&host, &t, NULL, &o, &spec, &warn, &e), -ENODEV);
	cr_assert_eq(cdi_error_count(&warn), 1);
	cr_assert(strstr(cdi_problem_text(cdi_error_problem(&warn, 0)), "is in MIG mode and has no MIG device to describe") != NULL);
	cdi_error_reset(&e);
	cdi_error_reset(&warn);
	t.n_gpus = 0;
	cr_assert_eq(spec_build_gpus(&host, &t, NULL, &o, &spec, NULL, &e), -ENODEV);
	cdi_error_reset(&e);
}

Test(spec, numeric_order_of_many_gpus)
{
	struct gpu_device g[12];
	struct gpu_topology t = { .gpus = g, .n_gpus = 12 };
	struct spec_options o = { .name_strategies = NAME_INDEX, .no_all_device = true };
	_cleanup_json_ json_t *spec = NULL;

	memset(g, 0, sizeof(g));
	for (unsigned i = 0; i < 12; i++) {
		g[i].index = i;
		g[i].minor = i;
		snprintf(g[i].uuid, sizeof(g[i].uuid), "GPU-%u", i);
		gpu_node(i);
	}
	spec = build(&t, &o, 0, NULL);
	for (unsigned i = 0; i < 12; i++) {
		char want[8];

		snprintf(want, sizeof(want), "%u", i);
		cr_assert_str_eq(dev_name(spec, i), want);
	}
}

Test(spec, old_mig_uuid_is_not_a_name)
{
	static struct mig_device m[] = { { .index = 0, .gi = 1, .ci = 0,
					   .uuid = "MIG-GPU-11111111-0000-0000-0000-000000000000/1/0" } };
	static struct gpu_device g[] = { { .index = 0, .minor = 3, .uuid = "GPU-11111111-0000-0000-0000-000000000000",
					   .mig_enabled = true, .migs = m, .n_migs = 1 } };
	static const char *const want[] = { "0:0", "all" };
	struct gpu_topology t = { .gpus = g, .n_gpus = 1 };
	struct spec_options o = { 0 };
	struct cdi_error warn = { 0 };
	_cleanup_json_ json_t *spec = NULL;

	gpu_node(3);
	cap(gi_minor(3, 1));
	cap(ci_minor(3, 1, 0));
	spec = build(&t, &o, 0, &warn);
	assert_names(spec, want, ELEMENTSOF(want));
	cr_assert_eq(cdi_error_count(&warn), 1);
	cr_assert(strstr(cdi_problem_text(cdi_error_problem(&warn, 0)), "MIG-GPU-") != NULL);
	cdi_error_reset(&warn);
}

Test(spec, invalid_kind_is_never_returned)
{
	struct spec_options o = { .vendor = "-bad" };

	topo3_nodes();
	build(&topo3, &o, -EINVAL, NULL);
}

Test(spec, management)
{
	struct spec_options o = { 0 };
	struct cdi_error e = { 0 };
	_cleanup_json_ json_t *spec = NULL;
	json_t *nodes;
	static const char *const want[] = {
		"/dev/nvidia-caps-imex-channels/channel0", "/dev/nvidia-caps/nvidia-cap1",
		"/dev/nvidia-caps/nvidia-cap2", "/dev/nvidia-caps/nvidia-cap12", "/dev/nvidia-uvm",
		"/dev/nvidia0", "/dev/nvidia2", "/dev/nvidia10", "/dev/nvidiactl",
	};

	gpu_node(0);
	gpu_node(2);
	gpu_node(10);
	cap(1);
	cap(2);
	cap(12);
	node("/dev/nvidia-caps-imex-channels/channel0", 234, 0);
	node("/dev/nvidia-fs0", 240, 0);
	node("/dev/nvidia-nvswitch0", 241, 0);
	node("/dev/nvidia-nvlink", 242, 0);
	put("/dev/nvidia-caps/nvidia-cap99", "regular file\n");
	cr_assert_eq(spec_build_management(&host, NULL, &o, &spec, NULL, &e), 0, "%s", cdi_error_message(&e));
	cr_assert_eq(json_array_size(json_object_get(spec, "devices")), 1);
	cr_assert_str_eq(dev_name(spec, 0), "all");
	nodes = dev_nodes(spec, "all");
	for (size_t i = 0; i < ELEMENTSOF(want) && i < json_array_size(nodes); i++)
		cr_assert_str_eq(node_path(nodes, i), want[i], "node %zu", i);
	cr_assert_eq(json_array_size(nodes), ELEMENTSOF(want));
	cr_assert_str_eq(json_string_value(json_array_get(json_object_get(json_object_get(spec, "containerEdits"), "env"), 0)),
			 "NVIDIA_VISIBLE_DEVICES=void");
	cr_assert_not(has_key(spec, "hooks"));
}

Test(device_name_cmp, order)
{
	static const char *const sorted[] = { "0", "1", "1:0", "1:1", "1:10", "2", "9", "10", "10:0", "64",
					      "GPU-0", "GPU-54e6", "GPU-8dc5", "GPU-a", "MIG-0", "MIG-10", "MIG-9", "gpu0", "gpu2", "gpu10", "mig0:1", "mig2:0" };

	for (size_t i = 0; i < ELEMENTSOF(sorted); i++)
		for (size_t j = 0; j < ELEMENTSOF(sorted); j++) {
			int c = device_name_cmp(sorted[i], sorted[j]);

			cr_assert(i < j ? c < 0 : i > j ? c > 0 : c == 0, "%s vs %s: %d", sorted[i], sorted[j], c);
		}
	cr_assert_neq(device_name_cmp("01", "1"), 0, "a total order");
}
