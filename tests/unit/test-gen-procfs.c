/* SPDX-License-Identifier: Apache-2.0 */
/* The /proc parsers of the generator: driver version, /proc/devices, GPU information, mig-minors.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "discover/discover.h"
#include "host/procfs.h"
#include "macro.h"

static char version[GPU_VERSION_MAX];

/* Formats as nv-procfs.c prints them (proprietary, open, aarch64). */
Test(driver_version, proprietary)
{
	struct cdi_error e = { 0 };
	const char *buf =
		"NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024\n"
		"GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n";

	cr_assert_eq(procfs_parse_driver_version("v", buf, version, &e), 0);
	cr_assert_str_eq(version, "550.54.15");
	cr_assert_eq(cdi_error_count(&e), 0);
}

Test(driver_version, open_kernel_module)
{
	struct cdi_error e = { 0 };
	const char *buf =
		"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  535.104.05  Release Build  (dvs-builder@U16-I3-B03-4-3)  Sat Aug 19 01:13:15 UTC 2023\n";

	cr_assert_eq(procfs_parse_driver_version("v", buf, version, &e), 0);
	cr_assert_str_eq(version, "535.104.05");
}

Test(driver_version, aarch64_two_components_and_later_line)
{
	struct cdi_error e = { 0 };
	const char *buf =
		"GCC version: 12.2\nNVRM version: NVIDIA UNIX aarch64 Kernel Module  555.42  Mon Jan  1 00:00:00 UTC 2024\n";

	cr_assert_eq(procfs_parse_driver_version("v", buf, version, &e), 0);
	cr_assert_str_eq(version, "555.42");
}

Test(driver_version, malformed)
{
	static const char *const bad[] = {
		"",
		"GCC version: 12.2.0\n",
		"NVRM version: NVIDIA UNIX x86_64 Kernel Module\n",
		"NVRM version: NVIDIA UNIX x86_64 Kernel Module  550..54  date\n",
		"NVRM version: NVIDIA UNIX x86_64 Kernel Module  .550  date\n",
	};

	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		struct cdi_error e = { 0 };

		strcpy(version, "unchanged");
		cr_assert_eq(procfs_parse_driver_version("/proc/driver/nvidia/version", bad[i],
							 version, &e),
			     -EINVAL, "case %zu", i);
		cr_assert_str_eq(version, "unchanged");
		cr_assert_eq(cdi_error_count(&e), 1);
		cr_assert(strstr(cdi_problem_text(cdi_error_problem(&e, 0)),
				 "/proc/driver/nvidia/version") != NULL);
		cdi_error_reset(&e);
	}
}

Test(driver_version, long_line_rejected)
{
	struct cdi_error e = { 0 };
	char buf[1024] = "NVRM version: ";

	memset(buf + strlen(buf), 'x', 600);
	strcat(buf, " 550.54.15\n");
	cr_assert_eq(procfs_parse_driver_version("v", buf, version, &e), -EINVAL);
	cdi_error_reset(&e);
}

static const char proc_devices[] = "Character devices:\n"
				   "  1 mem\n"
				   "195 nvidia-frontend\n"
				   "235 nvidia-caps\n"
				   "508 nvidia-uvm\n"
				   "\n"
				   "Block devices:\n"
				   "  8 sd\n"
				   "509 nvidia-uvm-block\n";

Test(proc_devices, majors_by_exact_name)
{
	unsigned major = 0;

	cr_assert_eq(procfs_parse_char_major("d", proc_devices, "nvidia-uvm", &major, NULL), 0);
	cr_assert_eq(major, 508);
	cr_assert_eq(procfs_parse_char_major("d", proc_devices, "nvidia-frontend", &major, NULL),
		     0);
	cr_assert_eq(major, 195);
	cr_assert_eq(procfs_parse_char_major("d", proc_devices, "mem", &major, NULL), 0);
	cr_assert_eq(major, 1);
	/* "nvidia" is not "nvidia-frontend"; block devices do not count. */
	cr_assert_eq(procfs_parse_char_major("d", proc_devices, "nvidia", &major, NULL), -ENOENT);
	cr_assert_eq(procfs_parse_char_major("d", proc_devices, "sd", &major, NULL), -ENOENT);
	cr_assert_eq(procfs_parse_char_major("d", proc_devices, "nvidia-uvm-block", &major, NULL),
		     -ENOENT);
	cr_assert_eq(procfs_parse_char_major("d", "", "mem", &major, NULL), -ENOENT);
}

Test(proc_devices, malformed)
{
	struct cdi_error e = { 0 };
	unsigned major = 7;

	cr_assert_eq(procfs_parse_char_major("/proc/devices", "Character devices:\nabc nvidia\n",
					     "nvidia", &major, &e),
		     -EINVAL);
	cr_assert_eq(major, 7);
	cr_assert(strstr(cdi_problem_text(cdi_error_problem(&e, 0)), "/proc/devices:2") != NULL,
		  "%s", cdi_problem_text(cdi_error_problem(&e, 0)));
	cdi_error_reset(&e);
	cr_assert_eq(
		procfs_parse_char_major("d", "Character devices:\n99999 big\n", "big", &major, &e),
		-EINVAL);
	cdi_error_reset(&e);
}

static const char information[] = "Model: \t\t NVIDIA A100-SXM4-40GB\n"
				  "IRQ:   \t\t 97\n"
				  "GPU UUID: \t GPU-4f2a8c7e-1b3d-4e5f-8a9b-0c1d2e3f4a5b\n"
				  "Video BIOS: \t 92.00.36.00.10\n"
				  "Bus Type: \t PCIe\n"
				  "DMA Size: \t 47 bits\n"
				  "DMA Mask: \t 0x7fffffffffff\n"
				  "Bus Location: \t 0000:07:00.0\n"
				  "Device Minor: \t 3\n"
				  "GPU Excluded:\t No\n";

Test(gpu_information, parse)
{
	struct gpu_device gpu = { .index = 42 };
	struct cdi_error e = { 0 };
	bool excluded = true;

	cr_assert_eq(procfs_parse_gpu_information("info", information, &gpu, &excluded, &e), 0);
	cr_assert_str_eq(gpu.name, "NVIDIA A100-SXM4-40GB");
	cr_assert_str_eq(gpu.uuid, "GPU-4f2a8c7e-1b3d-4e5f-8a9b-0c1d2e3f4a5b");
	cr_assert_str_eq(gpu.bus_id, "0000:07:00.0");
	cr_assert_eq(gpu.minor, 3);
	cr_assert_eq(gpu.index, 42, "index is the caller's");
	cr_assert_not(excluded);
	cr_assert_not(gpu.mig_enabled);
}

Test(gpu_information, excluded_and_long_domain)
{
	const char *buf =
		"GPU UUID: GPU-1\nBus Location: 00000000:B7:00.0\nDevice Minor: 0\nGPU Excluded: Yes\n";
	struct gpu_device gpu = { 0 };
	bool excluded = false;

	cr_assert_eq(procfs_parse_gpu_information("info", buf, &gpu, &excluded, NULL), 0);
	cr_assert(excluded);
	cr_assert_str_eq(gpu.bus_id, "0000:b7:00.0");
	cr_assert_str_eq(gpu.name, "");
}

/*
 * nv-procfs.c prints "GPU UUID" only when RM has one; a GPU excluded with
 * NVreg_ExcludedGpus is never initialised and has none. Its file must not
 * fail the whole enumeration.
 */
Test(gpu_information, excluded_without_uuid)
{
	const char *buf = "Model: \t\t NVIDIA A100-SXM4-40GB\n"
			  "IRQ:   \t\t 97\n"
			  "Video BIOS: \t ??.??.??.??.??\n"
			  "Bus Type: \t PCIe\n"
			  "Bus Location: \t 0000:0a:00.0\n"
			  "Device Minor: \t 4\n"
			  "GPU Excluded:\t Yes\n";
	struct gpu_device gpu = { 0 };
	struct cdi_error e = { 0 };
	bool excluded = false;

	cr_assert_eq(procfs_parse_gpu_information("info", buf, &gpu, &excluded, &e), 0, "%s",
		     cdi_error_message(&e));
	cr_assert(excluded);
	cr_assert_eq(cdi_error_count(&e), 0);
	cr_assert_str_eq(gpu.uuid, "");

	/* A GPU in use without a UUID is still an error. */
	buf = "Bus Location: \t 0000:0a:00.0\nDevice Minor: \t 4\nGPU Excluded:\t No\n";
	cr_assert_eq(procfs_parse_gpu_information("info", buf, &gpu, &excluded, &e), -EINVAL);
	cr_assert_str_eq(cdi_problem_field(cdi_error_problem(&e, 0)), "GPU UUID");
	cdi_error_reset(&e);
}

Test(gpu_information, malformed)
{
	static const struct {
		const char *buf, *field;
	} bad[] = {
		{ "Bus Location: 0000:07:00.0\nDevice Minor: 3\n", "GPU UUID" },
		{ "GPU UUID: GPU-1\nDevice Minor: 3\n", "Bus Location" },
		{ "GPU UUID: GPU-1\nBus Location: 0000:07:00.0\n", "Device Minor" },
		{ "GPU UUID: 4f2a\nBus Location: 0000:07:00.0\nDevice Minor: 3\n", "GPU UUID" },
		{ "GPU UUID: GPU-1/2\nBus Location: 0000:07:00.0\nDevice Minor: 3\n", "GPU UUID" },
		{ "GPU UUID: GPU-1\nBus Location: 07:00.0\nDevice Minor: 3\n", "Bus Location" },
		{ "GPU UUID: GPU-1\nBus Location: 0000:07:00.0\nDevice Minor: 255\n",
		  "Device Minor" },
		{ "GPU UUID: GPU-1\nBus Location: 0000:07:00.0\nDevice Minor: -1\n",
		  "Device Minor" },
		{ "GPU UUID: GPU-1\nBus Location: 0000:07:00.0\nDevice Minor: 3x\n",
		  "Device Minor" },
	};

	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		struct gpu_device gpu = { 0 };
		struct cdi_error e = { 0 };

		cr_assert_eq(procfs_parse_gpu_information("info", bad[i].buf, &gpu, NULL, &e),
			     -EINVAL, "case %zu", i);
		cr_assert_str_eq(cdi_problem_field(cdi_error_problem(&e, 0)), bad[i].field,
				 "case %zu: %s", i, cdi_problem_text(cdi_error_problem(&e, 0)));
		cr_assert_str_eq(gpu.uuid, "", "nothing written on error");
		cdi_error_reset(&e);
	}
}

Test(pci_bus_id, normalize)
{
	char out[GPU_BUSID_MAX];

	cr_assert_eq(pci_bus_id_normalize("00000000:07:00.0", out), 0);
	cr_assert_str_eq(out, "0000:07:00.0");
	cr_assert_eq(pci_bus_id_normalize("0000:B7:1F.7", out), 0);
	cr_assert_str_eq(out, "0000:b7:1f.7");
	cr_assert_eq(pci_bus_id_normalize("00010000:07:00.0", out), 0);
	cr_assert_str_eq(out, "00010000:07:00.0");
	cr_assert_eq(pci_bus_id_normalize("1:2:3.0", out), 0);
	cr_assert_str_eq(out, "0001:02:03.0");
	cr_assert_eq(pci_bus_id_normalize("", out), -EINVAL);
	cr_assert_eq(pci_bus_id_normalize("0000:07:00", out), -EINVAL);
	cr_assert_eq(pci_bus_id_normalize("0000:07:00.0x", out), -EINVAL);
	cr_assert_eq(pci_bus_id_normalize("0000:107:00.0", out), -EINVAL);
	cr_assert_eq(pci_bus_id_normalize("000000000:07:00.0", out), -EINVAL);
	cr_assert_eq(pci_bus_id_normalize("0000:07:20.0", out), -EINVAL);
	cr_assert_eq(pci_bus_id_normalize("GPU-1", out), -EINVAL);
	cr_assert_eq(pci_bus_id_normalize("0", out), -EINVAL);
}

/* The kernel's numbering (nv-caps.c): config 1, monitor 2, then 135 per GPU, 9 per GI. */
static char *kernel_mig_minors(unsigned gpus, size_t *ret_len)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	fprintf(f, "config 1\nmonitor 2\n");
	for (unsigned n = 0; n < gpus; n++)
		for (unsigned g = 0; g < 15; g++) {
			fprintf(f, "gpu%u/gi%u/access %u\n", n, g, 3 + 135 * n + 9 * g);
			for (unsigned c = 0; c < 8; c++)
				fprintf(f, "gpu%u/gi%u/ci%u/access %u\n", n, g, c,
					4 + 135 * n + 9 * g + c);
		}
	fclose(f);
	*ret_len = len;
	return buf;
}

Test(mig_minors, kernel_layout)
{
	struct mig_minors mm = { 0 };
	struct cdi_error e = { 0 };
	size_t len;
	_cleanup_free_ char *buf = kernel_mig_minors(32, &len);
	unsigned minor = 0;

	cr_assert_eq(mig_minors_parse("mm", buf, len, &mm, &e), 0);
	cr_assert_eq(mm.n, 32 * 15 * 9);
	cr_assert(mm.has_config && mm.config == 1);
	cr_assert(mm.has_monitor && mm.monitor == 2);
	/* nvidia-driver-layout.md: gpu0 gi1 = 12, gi1/ci0 = 13, gi2 = 21. */
	cr_assert_eq(mig_minors_lookup(&mm, 0, 1, -1, &minor), 0);
	cr_assert_eq(minor, 12);
	cr_assert_eq(mig_minors_lookup(&mm, 0, 1, 0, &minor), 0);
	cr_assert_eq(minor, 13);
	cr_assert_eq(mig_minors_lookup(&mm, 0, 2, -1, &minor), 0);
	cr_assert_eq(minor, 21);
	cr_assert_eq(mig_minors_lookup(&mm, 31, 14, 7, &minor), 0);
	cr_assert_eq(minor, 4 + 135 * 31 + 9 * 14 + 7);
	cr_assert_eq(mig_minors_lookup(&mm, 32, 0, -1, &minor), -ENOENT);
	cr_assert_eq(mig_minors_lookup(&mm, 0, 15, -1, &minor), -ENOENT);
	cr_assert_eq(mig_minors_lookup(&mm, 0, 1, 8, &minor), -ENOENT);
	cr_assert_eq(mig_minors_lookup(&mm, 1000, 1, 0, &minor), -ENOENT);
	mig_minors_clear(&mm);
	cr_assert_eq(mm.n, 0);
}

Test(mig_minors, unsorted_unknown_and_empty)
{
	const char buf[] = "gpu1/gi2/access 156\nfabric-imex-mgmt 4323\ngpu0/gi1/ci0/access 13\n\n"
			   "gpu0/gi1/access 12\n";
	struct mig_minors mm = { 0 };
	unsigned minor = 0;

	cr_assert_eq(mig_minors_parse("mm", buf, strlen(buf), &mm, NULL), 0);
	cr_assert_eq(mm.n, 3);
	cr_assert_not(mm.has_config);
	cr_assert_eq(mig_minors_lookup(&mm, 1, 2, -1, &minor), 0);
	cr_assert_eq(minor, 156);
	cr_assert_eq(mig_minors_lookup(&mm, 0, 1, -1, &minor), 0);
	cr_assert_eq(minor, 12);
	mig_minors_clear(&mm);
	cr_assert_eq(mig_minors_parse("mm", "", 0, &mm, NULL), 0);
	cr_assert_eq(mm.n, 0);
	cr_assert_eq(mig_minors_lookup(&mm, 0, 1, -1, &minor), -ENOENT);
	mig_minors_clear(&mm);
}

Test(mig_minors, malformed)
{
	static const char *const bad[] = {
		"gpu0/gi1/access\n",
		"gpu0/gi1/access abc\n",
		"gpu0/gi1/access 12 13\n",
		"gpu0/gi1/access -12\n",
		"gpu0/gi1/access 1048576\n",
		"gpu0/gi1/acces 12\n",
		"gpu0/gi1/ci/access 12\n",
		"gpu0/gi1/ci0/access/x 12\n",
		"gpuX/gi1/access 12\n",
		"gpu256/gi1/access 12\n",
		"gpu0/gi1/access 12\ngpu0/gi1/access 13\n",
		" 12\n",
		"config x\n",
	};

	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		struct mig_minors mm = { 0 };
		struct cdi_error e = { 0 };

		cr_assert_eq(mig_minors_parse("/proc/driver/nvidia-caps/mig-minors", bad[i],
					      strlen(bad[i]), &mm, &e),
			     -EINVAL, "case %zu: %s", i, bad[i]);
		cr_assert_null(mm.entries);
		cr_assert(strstr(cdi_problem_text(cdi_error_problem(&e, 0)), "mig-minors") != NULL);
		cdi_error_reset(&e);
	}
}

Test(mig_minors, bounds)
{
	struct mig_minors mm = { 0 };
	struct cdi_error e = { 0 };
	char line[400];

	memset(line, 'g', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	cr_assert_eq(mig_minors_parse("mm", line, strlen(line), &mm, &e), -EINVAL);
	cdi_error_reset(&e);

	/* More entries than any kernel writes: refused, not grown without end. */
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		for (unsigned n = 0; n < 256; n++)
			for (unsigned g = 0; g < 256; g++)
				fprintf(f, "gpu%u/gi%u/access 1\n", n, g);
		fprintf(f, "gpu0/gi0/ci0/access 1\n");
		fclose(f);
		cr_assert_eq(mig_minors_parse("mm", buf, len, &mm, &e), -E2BIG);
		cr_assert_null(mm.entries);
		free(buf);
		cdi_error_reset(&e);
	}
}

/* A /proc tree under a temp root. */
static char root[64];

static void put(const char *rel, const char *content)
{
	char path[512], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	for (slash = strchr(path + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs(content, f);
	fclose(f);
}

static void put_gpu(const char *bus, unsigned minor, const char *uuid, bool excluded)
{
	char rel[128], content[512];

	snprintf(rel, sizeof(rel), "/proc/driver/nvidia/gpus/%s/information", bus);
	snprintf(
		content, sizeof(content),
		"Model: \t\t NVIDIA A100\nGPU UUID: \t %s\nBus Location: \t %s\nDevice Minor: \t %u\nGPU Excluded:\t %s\n",
		uuid, bus, minor, excluded ? "Yes" : "No");
	put(rel, content);
}

static void make_root(void)
{
	strcpy(root, "/tmp/test-gen-procfs.XXXXXX");
	cr_assert_not_null(mkdtemp(root));
	put("/proc/driver/nvidia/version",
	    "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024\n");
}

static void remove_root(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	cr_assert_eq(system(cmd), 0);
}

/* The /proc GPU source on its own, over the temp root. */
static int procfs_enumerate(struct inventory *inv, struct cdi_error *e)
{
	struct gen_host host = { .root = root, .driver_root = root, .dev_root = root };
	struct discovery d = { .host = &host, .inv = inv, .err = e };
	int r;

	root_fs_init(&d.host_fs, root);
	root_fs_init(&d.driver_fs, root);
	r = discover_procfs_gpus(&d);
	root_fs_clear(&d.host_fs);
	root_fs_clear(&d.driver_fs);
	return r;
}

Test(procfs_enumerate, sorted_by_bus_excluded_skipped, .init = make_root, .fini = remove_root)
{
	struct inventory topo = { 0 };
	struct cdi_error e = { 0 };

	put_gpu("0000:b7:00.0", 2, "GPU-c", false);
	put_gpu("0000:07:00.0", 5, "GPU-a", false);
	put_gpu("0000:0f:00.0", 1, "GPU-b", false);
	put_gpu("0000:0a:00.0", 0, "GPU-x", true);
	/* Excluded and never initialised: no GPU UUID line at all (nv-procfs.c). */
	put("/proc/driver/nvidia/gpus/0000:0b:00.0/information",
	    "Model: \t\t NVIDIA A100\nBus Location: \t 0000:0b:00.0\nDevice Minor: \t 6\nGPU Excluded:\t Yes\n");
	cr_assert_eq(procfs_enumerate(&topo, &e), 0, "%s", cdi_error_message(&e));
	cr_assert_eq(topo.n_gpus, 3);
	cr_assert_str_eq(topo.gpus[0].uuid, "GPU-a");
	cr_assert_eq(topo.gpus[0].minor, 5);
	cr_assert_eq(topo.gpus[0].index, 0);
	cr_assert_str_eq(topo.gpus[1].uuid, "GPU-b");
	cr_assert_eq(topo.gpus[1].index, 1);
	cr_assert_str_eq(topo.gpus[2].uuid, "GPU-c");
	cr_assert_eq(topo.gpus[2].index, 2);
	for (size_t i = 0; i < topo.n_gpus; i++)
		cr_assert(!topo.gpus[i].mig_enabled && topo.gpus[i].n_migs == 0);
	inventory_clear(&topo);

	/* GPU instances published for minor 5 (GPU-a): in MIG mode, no full GPU. A bare mig/ dir is
	 * not. */
	put("/proc/driver/nvidia/capabilities/gpu5/mig/gi1/access", "DeviceFileMinor: 12\n");
	put("/proc/driver/nvidia/capabilities/gpu1/mig/x", "");
	cr_assert_eq(procfs_enumerate(&topo, &e), 0, "%s", cdi_error_message(&e));
	cr_assert(topo.gpus[0].mig_enabled);
	cr_assert_eq(topo.gpus[0].n_migs, 0);
	cr_assert_not(topo.gpus[1].mig_enabled);
	inventory_clear(&topo);
}

Test(procfs_enumerate, errors_name_the_file, .init = make_root, .fini = remove_root)
{
	struct inventory topo = { 0 };
	struct cdi_error e = { 0 };

	/* No gpus directory: no driver. */
	cr_assert_lt(procfs_enumerate(&topo, &e), 0);
	cr_assert(strstr(cdi_error_message(&e), "/proc/driver/nvidia/gpus") != NULL, "%s",
		  cdi_error_message(&e));
	cdi_error_reset(&e);

	put_gpu("0000:07:00.0", 1, "GPU-a", false);
	put_gpu("0000:08:00.0", 1, "GPU-b", false);
	cr_assert_eq(procfs_enumerate(&topo, &e), -EINVAL);
	cr_assert(strstr(cdi_error_message(&e), "share a device minor") != NULL);
	cr_assert_eq(topo.n_gpus, 0);
	cdi_error_reset(&e);

	put_gpu("0000:08:00.0", 2, "GPU-b", false);
	put("/proc/driver/nvidia/gpus/0000:09:00.0/information", "GPU UUID: GPU-c\n");
	cr_assert_eq(procfs_enumerate(&topo, &e), -EINVAL);
	cr_assert(strstr(cdi_error_message(&e), "0000:09:00.0/information") != NULL, "%s",
		  cdi_error_message(&e));
	cdi_error_reset(&e);
}

Test(procfs_enumerate, at_most_64_gpus, .init = make_root, .fini = remove_root)
{
	struct inventory topo = { 0 };
	struct cdi_error e = { 0 };

	for (unsigned i = 0; i <= GPU_MAX_COUNT; i++) {
		char bus[32], uuid[32];

		snprintf(bus, sizeof(bus), "0000:%02x:00.0", i + 1);
		snprintf(uuid, sizeof(uuid), "GPU-%u", i);
		put_gpu(bus, i, uuid, false);
	}
	cr_assert_eq(procfs_enumerate(&topo, &e), -E2BIG);
	cdi_error_reset(&e);
}

Test(procfs_enumerate, driver_version_file, .init = make_root, .fini = remove_root)
{
	struct cdi_error e = { 0 };

	cr_assert_eq(procfs_driver_version(root, version, &e), 0);
	cr_assert_str_eq(version, "550.54.15");
	unlink(strcat(strcpy((char[128]){ 0 }, root), "/proc/driver/nvidia/version"));
	cr_assert_eq(procfs_driver_version(root, version, &e), -ENOENT);
	cr_assert(strstr(cdi_error_message(&e),
			 "/proc/driver/nvidia/version: cannot open: No such file") != NULL,
		  "%s", cdi_error_message(&e));
	cdi_error_reset(&e);
}
