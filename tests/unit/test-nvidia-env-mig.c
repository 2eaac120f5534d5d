/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NVIDIA_MIG_CONFIG_DEVICES / NVIDIA_MIG_MONITOR_DEVICES: the cap nodes a privileged container
 * gets, as libnvidia-container selects them (cli/common.c select_mig_*_devices, nvc_mount.c),
 * on the simulated DGX of tests/simhost (GPUs 2 and 5 in MIG mode, every GPU MIG-capable).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "nvidia/mig_admin.h"
#include "../lib/testlib.h"

static char tmp[] = "/tmp/cdikit-migadmin.XXXXXX";
static char root[PATH_MAX];

static void tmp_setup(void)
{
	cr_assert_not_null(mkdtemp(tmp));
	snprintf(root, sizeof(root), "%s/h", tmp);
}

static void tmp_teardown(void)
{
	sh("rm -rf '%s'", tmp);
}

/* The simulated DGX's GPUs as the facts file lists them. */
static const struct mig_admin_gpu dgx[] = {
	{ 0, "0", "GPU-54e67eb0-c6b5-d687-008a-2323a63630c7" },
	{ 1, "1", "GPU-67db9f65-c8d3-cab0-e7a3-172228c5b697" },
	{ 2, "2", "GPU-7ad0c01a-caf1-bed9-cebc-0b21ab553c68" },
	{ 3, "3", "GPU-8dc5e0cf-cd0f-b301-b5d4-ff1f2de4c239" },
	{ 4, "4", "GPU-a0bb0184-cf2d-a72a-9ced-f31eb074480a" },
	{ 5, "5", "GPU-b3b02239-d14b-9b52-8406-e71d3303cddb" },
	{ 6, "6", "GPU-c6a542ee-d369-8f7b-6b1f-db1bb59353ac" },
	{ 7, "7", "GPU-d99a63a4-d587-83a4-5238-cf1a3822d97c" },
};

/* Cap minors of the simulated host (its README): config 1, monitor 2, GPU 2's seven 1g
 * instances, GPU 5's 3g instance and its two 1c compute instances. */
#define GPU2_CAPS 336, 337, 345, 346, 354, 355, 363, 364, 372, 373, 381, 382, 390, 391
#define GPU5_CAPS 687, 688, 696, 697, 698

/* {"deviceNodes": [...]} of the minors (ending at 0), with hostPath under root. */
static json_t *nodes_of(const unsigned *minors)
{
	json_t *nodes = json_array(), *edits = json_object();

	for (size_t i = 0; minors[i]; i++) {
		char path[64], host[PATH_MAX + 64];

		snprintf(path, sizeof(path), "/dev/nvidia-caps/nvidia-cap%u", minors[i]);
		snprintf(host, sizeof(host), "%s%s", root, path);
		json_array_append_new(nodes, json_pack("{ssss}", "path", path, "hostPath", host));
	}
	if (json_array_size(nodes))
		json_object_set(edits, "deviceNodes", nodes);
	json_decref(nodes);
	return edits;
}

struct row {
	const char *config, *monitor;
	bool privileged;
	size_t first_gpu, n_gpus; /* visible: dgx[first_gpu .. first_gpu + n_gpus) */
	bool all;
	size_t n_mig;
	int ret;
	unsigned want[32]; /* minors, 0-terminated; or a piece of the message when ret < 0 */
	const char *message;
};

static const struct row dgx_rows[] = {
	{ "all", NULL, true, 0, 8, true, 0, 0, { 1, GPU2_CAPS, GPU5_CAPS }, NULL },
	{ NULL, "all", true, 0, 1, false, 0, 0, { 2 }, NULL },
	{ "all", "all", true, 2, 1, false, 0, 0, { 1, 2, GPU2_CAPS }, NULL },
	{ "ALL", " all ", true, 5, 1, false, 0, 0, { 1, 2, GPU5_CAPS }, NULL },
	/* a list of visible GPUs, by index or UUID in any case (an extension) */
	{ "5", NULL, true, 0, 8, true, 0, 0, { 1, GPU5_CAPS }, NULL },
	{ "GPU-B3B02239-D14B-9B52-8406-E71D3303CDDB,0",
	  NULL,
	  true,
	  0,
	  8,
	  true,
	  0,
	  0,
	  { 1, GPU5_CAPS },
	  NULL },
	{ NULL, "2,5", true, 2, 4, false, 0, 0, { 2, GPU2_CAPS, GPU5_CAPS }, NULL },
	/* not asked */
	{ NULL, NULL, false, 0, 8, true, 0, 0, { 0 }, NULL },
	{ "", "", false, 0, 8, true, 0, 0, { 0 }, NULL },
	/* no GPU visible: nothing, not even the global cap */
	{ "all", NULL, true, 0, 0, false, 0, 0, { 0 }, NULL },
	/* refusals */
	{ "all",
	  NULL,
	  false,
	  0,
	  8,
	  true,
	  0,
	  -EPERM,
	  { 0 },
	  "NVIDIA_MIG_CONFIG_DEVICES: refused: MIG config access needs a privileged container (CAP_SYS_ADMIN in its bounding capabilities)" },
	{ NULL,
	  "0",
	  false,
	  0,
	  8,
	  true,
	  0,
	  -EPERM,
	  { 0 },
	  "NVIDIA_MIG_MONITOR_DEVICES: refused: MIG monitor access needs a privileged container (CAP_SYS_ADMIN in its bounding capabilities)" },
	{ "all",
	  NULL,
	  true,
	  2,
	  1,
	  false,
	  1,
	  -EINVAL,
	  { 0 },
	  "NVIDIA_MIG_CONFIG_DEVICES: cannot enable mig-config with specific MIG devices selected" },
	{ NULL,
	  "3",
	  true,
	  0,
	  2,
	  false,
	  0,
	  -EINVAL,
	  { 0 },
	  "NVIDIA_MIG_MONITOR_DEVICES: \"3\" is not a GPU the container sees (NVIDIA_VISIBLE_DEVICES)" },
	{ "none",
	  NULL,
	  true,
	  0,
	  8,
	  true,
	  0,
	  -EINVAL,
	  { 0 },
	  "NVIDIA_MIG_CONFIG_DEVICES: \"none\" is not a GPU the container sees (NVIDIA_VISIBLE_DEVICES)" },
};

static void run_row(const struct row *row, size_t i)
{
	struct mig_admin_request req = {
		.config_devices = row->config,
		.monitor_devices = row->monitor,
		.privileged = row->privileged,
		.gpus = dgx + row->first_gpu,
		.n_gpus = row->n_gpus,
		.all_selected = row->all,
		.n_mig_devices = row->n_mig,
		.root = root,
	};
	struct cdi_error err = { 0 };
	json_t *edits = NULL;
	int r = mig_admin_edits(&req, &edits, &err);

	cr_assert_eq(r, row->ret, "row %zu: %d %s", i, r, cdi_error_message(&err));
	if (r == 0) {
		json_t *want = nodes_of(row->want);

		cr_assert(json_equal(edits, want), "row %zu: %s", i,
			  json_dumps(edits, JSON_COMPACT));
		json_decref(want);
		json_decref(edits);
	} else {
		cr_assert_str_eq(cdi_error_message(&err), row->message, "row %zu", i);
	}
	cdi_error_reset(&err);
}

TestSuite(mig, .init = tmp_setup, .fini = tmp_teardown, .timeout = 60);

Test(mig, simulated_dgx)
{
	const char *b = getenv("B") ? getenv("B") : "build";
	char mock[PATH_MAX];

	snprintf(mock, sizeof(mock), "%s/tests/mock-nvml/libnvidia-ml.so.1", b);
	if (access("tests/simhost/make-host", X_OK) != 0 || access(mock, R_OK) != 0)
		cr_skip_test(
			"no simulated host: run from the repository root after make check has built %s",
			mock);
	sh("tests/simhost/make-host --topology dgx-mig --no-devnodes --mock-dir '%s/tests/mock-nvml' --out '%s' >/dev/null",
	   b, root);
	for (size_t i = 0; i < sizeof(dgx_rows) / sizeof(dgx_rows[0]); i++)
		run_row(&dgx_rows[i], i);
}

/* A host by hand: GPU 0 MIG-capable with one instance, GPU 1 not MIG-capable. */
static void small_host(void)
{
	sh("set -e; cd '%s'; mkdir -p h/proc/driver/nvidia/capabilities/mig "
	   "h/proc/driver/nvidia/capabilities/gpu0/mig/gi1/ci0 h/dev/nvidia-caps; cd h; "
	   "c=proc/driver/nvidia/capabilities; "
	   "printf 'DeviceFileMinor: 1\\nDeviceFileMode: 256\\nDeviceFileModify: 1\\n' >$c/mig/config; "
	   "printf 'DeviceFileMinor: 2\\nDeviceFileMode: 292\\nDeviceFileModify: 1\\n' >$c/mig/monitor; "
	   "printf 'DeviceFileMinor: 12\\nDeviceFileMode: 292\\n' >$c/gpu0/mig/gi1/access; "
	   "printf 'DeviceFileMode: 292\\nDeviceFileMinor:  13\\n' >$c/gpu0/mig/gi1/ci0/access; "
	   "touch dev/nvidia-caps/nvidia-cap1 dev/nvidia-caps/nvidia-cap2 "
	   "dev/nvidia-caps/nvidia-cap12 dev/nvidia-caps/nvidia-cap13",
	   tmp);
}

static const struct mig_admin_gpu small[] = { { 0, "0", NULL }, { 1, "1", "GPU-1" } };

static int small_run(const char *config, const char *monitor, json_t **ret, struct cdi_error *err)
{
	struct mig_admin_request req = {
		.config_devices = config,
		.monitor_devices = monitor,
		.privileged = true,
		.gpus = small,
		.n_gpus = 2,
		.all_selected = true,
		.root = root,
	};

	*ret = NULL;
	return mig_admin_edits(&req, ret, err);
}

Test(mig, by_hand)
{
	static const unsigned both[] = { 1, 2, 12, 13, 0 }, monitor[] = { 2, 12, 13, 0 };
	_cleanup_json_ json_t *want_both = NULL, *want_monitor = NULL;
	struct cdi_error err = { 0 };
	json_t *edits;

	small_host();
	want_both = nodes_of(both);
	want_monitor = nodes_of(monitor);
	cr_assert_eq(small_run("all", "all", &edits, &err), 0, "%s", cdi_error_message(&err));
	assert_json_eq(edits, want_both);
	json_decref(edits);
	/* a GPU that cannot do MIG: skipped by all, refused by name */
	cr_assert_eq(small_run(NULL, "1,all", &edits, &err), -EINVAL);
	cr_assert_str_eq(
		cdi_error_message(&err),
		"NVIDIA_MIG_MONITOR_DEVICES: GPU 1 cannot do MIG (no /proc/driver/nvidia/capabilities/gpu1/mig)");
	cdi_error_reset(&err);
	cr_assert_eq(small_run(NULL, "all,1", &edits, &err), 0);
	assert_json_eq(edits, want_monitor);
	json_decref(edits);
	/* a cap node missing on the host */
	sh("rm '%s/dev/nvidia-caps/nvidia-cap13'", root);
	cr_assert_eq(small_run(NULL, "all", &edits, &err), -ENOENT);
	cr_assert_str_eq(
		cdi_error_message(&err),
		"NVIDIA_MIG_MONITOR_DEVICES: /dev/nvidia-caps/nvidia-cap13 (the gpu0/mig/gi1/ci0/access capability) does not exist on the host");
	cdi_error_reset(&err);
	/* a cap file without its minor */
	sh("printf 'DeviceFileMode: 256\\n' >'%s/proc/driver/nvidia/capabilities/mig/config'",
	   root);
	cr_assert_eq(small_run("all", NULL, &edits, &err), -EINVAL);
	cr_assert_str_eq(
		cdi_error_message(&err),
		"NVIDIA_MIG_CONFIG_DEVICES: /proc/driver/nvidia/capabilities/mig/config: no DeviceFileMinor line");
	cdi_error_reset(&err);
	sh("printf 'DeviceFileMinor: x1\\n' >'%s/proc/driver/nvidia/capabilities/mig/config'",
	   root);
	cr_assert_eq(small_run("all", NULL, &edits, &err), -EINVAL);
	cdi_error_reset(&err);
	/* a symlink where a cap file should be is not followed */
	sh("cd '%s/proc/driver/nvidia/capabilities/mig' && rm config && ln -s monitor config",
	   root);
	cr_assert_eq(small_run("all", NULL, &edits, &err), -ELOOP);
	cr_assert(
		strstr(cdi_error_message(&err),
		       "NVIDIA_MIG_CONFIG_DEVICES: /proc/driver/nvidia/capabilities/mig/config: cannot open"),
		"%s", cdi_error_message(&err));
	cdi_error_reset(&err);
}

Test(mig, procfs_style_needs_no_nodes)
{
	struct cdi_error err = { 0 };
	json_t *edits;

	small_host();
	sh("rm -r '%s/dev/nvidia-caps'", root);
	cr_assert_eq(small_run("all", "0", &edits, &err), 0, "%s", cdi_error_message(&err));
	cr_assert_eq(json_object_size(edits), 0);
	json_decref(edits);
	/* the variable is still checked */
	cr_assert_eq(small_run("7", NULL, &edits, &err), -EINVAL);
	cdi_error_reset(&err);
}

Test(mig, real_root_has_no_host_path)
{
	struct mig_admin_request req = { .monitor_devices = "all", .privileged = true };
	struct cdi_error err = { 0 };
	json_t *edits;

	/* no GPU: nothing to read on this machine, and no hostPath anywhere */
	cr_assert_eq(mig_admin_edits(&req, &edits, &err), 0);
	cr_assert_eq(json_object_size(edits), 0);
	json_decref(edits);
}
