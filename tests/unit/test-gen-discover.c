/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Discovery (generate/discover/discover.c and its sources) against a simulated DGX A100 host from
 * tests/simhost/make-host: what the inventory holds, and what a damaged host makes of it.
 * Assembly plays no part here (tests/unit/test-gen-spec.c builds inventories by hand).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/simhost.h"
#include "../lib/testlib.h"
#include "discover/discover.h"

#define VER "550.54.15"

static char tmp[] = "/tmp/cdikit-discover.XXXXXX";
static char root[PATH_MAX];
static bool have_tmp, devnodes;

static void setup(void)
{
	cr_assert(mkdtemp(tmp));
	have_tmp = true;
	snprintf(root, sizeof(root), "%s/h", tmp);
	simhost_make(root, "--topology dgx-mig");
	devnodes = !simhost_has(root, ".simhost-no-devnodes");
}

static void teardown(void)
{
	if (have_tmp)
		sh("rm -rf '%s'", tmp);
}

TestSuite(discover, .init = setup, .fini = teardown, .timeout = 120);

static int run(enum gen_mode mode, struct inventory *inv, struct cdi_error *warn,
	       struct cdi_error *err)
{
	struct gen_host host = { .root = root, .driver_root = root, .dev_root = root };
	struct discover_options o = { .mode = mode };

	*inv = (struct inventory){ 0 };
	return discover(&host, &o, inv, warn, err);
}

static const struct inv_node *node_at(const struct inventory *inv, const char *path)
{
	for (size_t i = 0; i < inv->n_nodes; i++)
		if (strcmp(inv->nodes[i].path, path) == 0)
			return &inv->nodes[i];
	return NULL;
}

/* The file whose container paths include path. */
static const struct inv_file *file_at(const struct inventory *inv, const char *path)
{
	for (size_t i = 0; i < inv->n_files; i++)
		for (size_t k = 0; k < inv->files[i].n_container_paths; k++)
			if (strcmp(inv->files[i].container_paths[k], path) == 0)
				return &inv->files[i];
	return NULL;
}

Test(discover, dgx_inventory)
{
	struct inventory inv;
	struct cdi_error err = { 0 }, warn = { 0 };
	const struct gpu_device *g2, *g5;
	const struct inv_node *n;
	const struct inv_file *f;

	cr_assert_eq(run(MODE_AUTO, &inv, &warn, &err), 0, "%s", cdi_error_message(&err));
	cr_assert_eq(cdi_error_count(&warn), 0, "%s", cdi_error_message(&warn));
	cr_assert_str_eq(inv.driver_version, VER);
	cr_assert_eq(inv.cuda_version, 12040);
	cr_assert_eq(inv.n_gpus, 8);
	g2 = &inv.gpus[2];
	g5 = &inv.gpus[5];
	cr_assert_str_eq(g2->uuid, "GPU-7ad0c01a-caf1-bed9-cebc-0b21ab553c68");
	cr_assert_str_eq(g2->bus_id, "0000:47:00.0");
	cr_assert_str_eq(g2->name, "NVIDIA A100-SXM4-40GB");
	cr_assert_str_eq(g2->brand, "Unknown");
	cr_assert_str_eq(g2->arch, "8.0");
	cr_assert(g2->mig_enabled && g2->n_migs == 7);
	cr_assert_eq(g2->migs[0].gi, 7);
	/* Cap minors from mig-minors: 3 + 135 * 2 + 9 * 7 and one more for the CI. */
	cr_assert_str_eq(inv.nodes[g2->migs[0].gi_node].path, "/dev/nvidia-caps/nvidia-cap336");
	cr_assert_str_eq(inv.nodes[g2->migs[0].ci_node].path, "/dev/nvidia-caps/nvidia-cap337");
	cr_assert_eq(g2->migs[0].gi_cap_minor, 336);
	cr_assert_eq(g2->migs[0].ci_cap_minor, 337);
	cr_assert_eq(g5->migs[2].gi_cap_minor, 696);
	cr_assert_eq(g5->migs[2].ci_cap_minor, 698);
	/* 5:1 and 5:2 share GPU instance 2: one node. */
	cr_assert_eq(g5->migs[1].gi_node, g5->migs[2].gi_node);
	cr_assert_neq(g5->migs[1].ci_node, g5->migs[2].ci_node);
	cr_assert_str_eq(inv.nodes[inv.gpus[7].node].path, "/dev/nvidia7");
	cr_assert_str_eq(inv.nodes[inv.gpus[7].node].host_path + strlen(root), "/dev/nvidia7");
	if (devnodes) {
		n = node_at(&inv, "/dev/nvidia-uvm");
		cr_assert(n && n->error == 0 && n->major == 508 && n->minor == 0 &&
			  n->cap == DRV_CAP_COMPUTE && n->role == NODE_CONTROL);
		n = node_at(&inv, "/dev/nvidiactl");
		cr_assert(n && n->error == 0 && n->major == 195 && n->minor == 255);
		cr_assert_eq(node_at(&inv, "/dev/nvidia-modeset")->cap, DRV_CAP_DISPLAY);
		for (size_t i = 0; i < inv.n_nodes; i++)
			cr_assert_eq(inv.nodes[i].error, 0, "%s: %s", inv.nodes[i].path,
				     inv.nodes[i].problem);
	}
	/* Files: kind, capability, 32-bit flag, host path inside the root. */
	f = file_at(&inv, "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
	cr_assert(f && f->kind == INV_LIBRARY && f->cap == DRV_CAP_COMPUTE && !f->is32);
	cr_assert_str_eq(f->container_paths[0], "/usr/lib/x86_64-linux-gnu/libcuda.so." VER);
	cr_assert_str_eq(f->host_path + strlen(root), "/usr/lib/x86_64-linux-gnu/libcuda.so." VER);
	f = file_at(&inv, "/usr/lib/i386-linux-gnu/libcuda.so.1");
	cr_assert(f && f->is32 && f->cap == DRV_CAP_COMPUTE);
	cr_assert_eq(file_at(&inv, "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1")->cap,
		     DRV_CAP_UTILITY);
	cr_assert_eq(file_at(&inv, "/usr/lib/x86_64-linux-gnu/libnvcuvid.so.1")->cap,
		     DRV_CAP_VIDEO);
	cr_assert_eq(file_at(&inv, "/usr/lib/x86_64-linux-gnu/libEGL_nvidia.so.0")->cap,
		     DRV_CAP_GRAPHICS);
	cr_assert_eq(file_at(&inv, "/usr/lib/x86_64-linux-gnu/libnvidia-ngx.so." VER)->cap,
		     DRV_CAP_NGX);
	f = file_at(&inv, "/usr/bin/nvidia-smi");
	cr_assert(f && f->kind == INV_BINARY && f->cap == DRV_CAP_UTILITY);
	cr_assert_eq(file_at(&inv, "/usr/bin/nvidia-cuda-mps-server")->cap, DRV_CAP_COMPUTE);
	f = file_at(&inv, "/lib/firmware/nvidia/" VER "/gsp_ga10x.bin");
	cr_assert(f && f->kind == INV_FIRMWARE && f->cap == DRV_CAP_UNKNOWN);
	f = file_at(&inv, "/run/nvidia-persistenced/socket");
	cr_assert(f && f->kind == INV_IPC && f->cap == DRV_CAP_UTILITY);
	cr_assert_eq(file_at(&inv, "/tmp/nvidia-mps")->cap, DRV_CAP_COMPUTE);
	f = file_at(&inv, "/etc/vulkan/icd.d/nvidia_icd.json");
	cr_assert(f && f->kind == INV_CONFIG && f->cap == DRV_CAP_GRAPHICS);
	cr_assert_eq(file_at(&inv, "/etc/OpenCL/vendors/nvidia.icd")->cap, DRV_CAP_COMPUTE);
	inventory_clear(&inv);
}

Test(discover, procfs_and_management)
{
	struct inventory inv;
	struct cdi_error err = { 0 };

	cr_assert_eq(run(MODE_PROCFS, &inv, NULL, &err), 0, "%s", cdi_error_message(&err));
	cr_assert_str_eq(inv.driver_version, VER);
	cr_assert_eq(inv.cuda_version, 0, "unknown without NVML");
	cr_assert_eq(inv.n_gpus, 8);
	cr_assert_null(inv.gpus[0].brand);
	cr_assert_str_eq(inv.gpus[0].arch, "");
	cr_assert(inv.gpus[2].mig_enabled && inv.gpus[2].n_migs == 0);
	cr_assert_str_eq(inv.gpus[0].name, "NVIDIA A100-SXM4-40GB");
	inventory_clear(&inv);

	cr_assert_eq(run(MODE_MANAGEMENT, &inv, NULL, &err), 0, "%s", cdi_error_message(&err));
	cr_assert_eq(inv.n_gpus, 0);
	cr_assert_not_null(node_at(&inv, "/dev/nvidia7"));
	cr_assert_not_null(node_at(&inv, "/dev/nvidia-caps/nvidia-cap1"));
	cr_assert_eq(node_at(&inv, "/dev/nvidia-uvm-tools")->cap, DRV_CAP_COMPUTE);
	cr_assert_gt(inv.n_files, 50, "%zu files", inv.n_files);
	inventory_clear(&inv);
}

Test(discover, no_driver)
{
	struct inventory inv;
	struct cdi_error err = { 0 };
	char want[PATH_MAX + 64];

	sh("mv '%s/proc/driver/nvidia' '%s/nv'", root, tmp);
	for (enum gen_mode m = MODE_AUTO; m <= MODE_MANAGEMENT; m++) {
		cr_assert_eq(run(m, &inv, NULL, &err), -ENODEV);
		snprintf(want, sizeof(want),
			 "no NVIDIA driver found: %s/proc/driver/nvidia is missing", root);
		cr_assert_str_eq(cdi_error_message(&err), want);
		cr_assert_eq(cdi_error_count(&err), 1);
		cdi_error_reset(&err);
		inventory_clear(&inv);
	}
}

/* What is wrong with a node is recorded for assembly to judge; the numbers are the root's. */
Test(discover, nodes_as_the_root_has_them)
{
	struct inventory inv;
	struct cdi_error err = { 0 };
	const struct inv_node *n;

	if (!devnodes)
		cr_skip_test("the simulated host has no device nodes (not root)");
	sh("set -e; cd '%s/dev'; rm nvidia0 nvidia-uvm nvidia-uvm-tools; ln -s /dev/null nvidia0; rm nvidia1; echo x > nvidia1; "
	   "rm nvidia-caps/nvidia-cap337; mknod nvidia-caps/nvidia-cap337 c 235 999",
	   root);
	cr_assert_eq(run(MODE_AUTO, &inv, NULL, &err), 0, "%s", cdi_error_message(&err));
	n = &inv.nodes[inv.gpus[0].node];
	cr_assert_eq(n->error, -ELOOP);
	cr_assert(strstr(n->problem, "symbolic link (to /dev/null)"), "%s", n->problem);
	cr_assert_eq(n->major, 0, "no numbers from the node a link names");
	cr_assert_eq(inv.nodes[inv.gpus[1].node].error, -ENOTTY);
	n = &inv.nodes[inv.gpus[2].migs[0].ci_node];
	cr_assert_eq(n->error, -ESTALE);
	cr_assert(strstr(n->problem, "235:999, but the driver's nvidia-caps is 235:337"), "%s",
		  n->problem);
	/* Required and missing: recorded as missing; optional and missing: not recorded. */
	cr_assert_eq(node_at(&inv, "/dev/nvidia-uvm")->error, -ENOENT);
	cr_assert_null(node_at(&inv, "/dev/nvidia-uvm-tools"));
	inventory_clear(&inv);
}

Test(discover, mig_minors_without_an_entry)
{
	struct inventory inv;
	struct cdi_error err = { 0 };

	sh("sed -i '/^gpu2\\/gi7\\/ci0\\/access /d' '%s/proc/driver/nvidia-caps/mig-minors'", root);
	cr_assert_eq(run(MODE_AUTO, &inv, NULL, &err), -ENOENT);
	cr_assert(strstr(cdi_error_message(&err),
			 "mig-minors: no gpu2/gi7/ci0/access (GPU 2, MIG 0)"),
		  "%s", cdi_error_message(&err));
	cdi_error_reset(&err);
	inventory_clear(&inv);
}

/* An ld.so.cache naming driver libraries in 80,000 directories: linear (a hashed memo). The
 * speed itself is a make bench budget; here, that it completes with the host's libraries. */
Test(discover, ldcache_flood)
{
	struct inventory inv;
	struct cdi_error err = { 0 }, warn = { 0 };

	sh("python3 tests/lib/ldcache-flood.py '%s/etc/ld.so.cache' 80000", root);
	cr_assert_eq(run(MODE_AUTO, &inv, &warn, &err), 0, "%s", cdi_error_message(&err));
	cr_assert_eq(cdi_error_count(&warn), 0);
	cr_assert_eq(inv.n_gpus, 8, "NVML found in the library directories");
	cr_assert_not_null(file_at(&inv, "/usr/lib/x86_64-linux-gnu/libcuda.so.1"));
	inventory_clear(&inv);
}

static size_t count_kind(const struct inventory *inv, enum inv_file_kind kind)
{
	size_t n = 0;

	for (size_t i = 0; i < inv->n_files; i++)
		n += inv->files[i].kind == kind;
	return n;
}

/* --no-ipc (nvidia-ctk's disable-ipc-discoverer): no socket, no MPS pipe directory, nothing
 * else missing. */
Test(discover, no_ipc)
{
	struct gen_host host = { .root = root, .driver_root = root, .dev_root = root };
	struct discover_options o = { .mode = MODE_AUTO, .no_ipc = true };
	struct inventory with, without = { 0 };
	struct cdi_error err = { 0 };

	cr_assert_eq(run(MODE_AUTO, &with, NULL, &err), 0, "%s", cdi_error_message(&err));
	cr_assert_not_null(file_at(&with, "/run/nvidia-persistenced/socket"));
	cr_assert_not_null(file_at(&with, "/run/nvidia-fabricmanager/socket"));
	cr_assert_not_null(file_at(&with, "/tmp/nvidia-mps"));
	cr_assert_eq(discover(&host, &o, &without, NULL, &err), 0, "%s", cdi_error_message(&err));
	cr_assert_eq(count_kind(&without, INV_IPC), 0);
	cr_assert_eq(without.n_files, with.n_files - count_kind(&with, INV_IPC));
	cr_assert_eq(without.n_nodes, with.n_nodes);
	inventory_clear(&with);
	inventory_clear(&without);
}
