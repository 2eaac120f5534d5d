/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nvml_enumerate against the mock libnvidia-ml (tests/simhost/mock-nvml.c),
 * built by tests/fixtures.mk into $B/tests/mock-nvml/ (current driver) and
 * $B/tests/mock-nvml/old/ (440-era driver without MIG symbols). Each test
 * writes a topology and points the mock at it with CDIKIT_MOCK_NVML_CONFIG.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "discover/nvml.h"
#include "macro.h"

static char *mock_lib, *old_lib, config[64];

static void setup(void)
{
	const char *b = getenv("B");
	char cwd[PATH_MAX];

	if (!b)
		b = "build";
	cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
	/* dlopen by path: make it absolute so the search rules play no part. */
	cr_assert_geq(asprintf(&mock_lib, "%s%s%s/tests/mock-nvml/libnvidia-ml.so.1",
			       b[0] == '/' ? "" : cwd, b[0] == '/' ? "" : "/", b),
		      0);
	cr_assert_geq(asprintf(&old_lib, "%s%s%s/tests/mock-nvml/old/libnvidia-ml.so.1",
			       b[0] == '/' ? "" : cwd, b[0] == '/' ? "" : "/", b),
		      0);
	cr_assert_eq(access(mock_lib, R_OK), 0, "%s missing: build the fixtures (make check)",
		     mock_lib);
	strcpy(config, "/tmp/test-gen-nvml.XXXXXX");
	cr_assert_geq(mkstemp(config), 0);
	setenv("CDIKIT_MOCK_NVML_CONFIG", config, 1);
}

static void teardown(void)
{
	unlink(config);
	free(mock_lib);
	free(old_lib);
}

static void topology(const char *text)
{
	FILE *f = fopen(config, "w");

	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

TestSuite(nvml, .init = setup, .fini = teardown);

Test(nvml, one_gpu)
{
	struct inventory t = { 0 };
	struct cdi_error e = { 0 };

	topology("name NVIDIA A100-SXM4-40GB\n"
		 "gpu 0 minor=0 pci=0000:07:00.0 uuid=GPU-4f2a8c7e-1b3d-4e5f-8a9b-0c1d2e3f4a5b\n");
	cr_assert_eq(nvml_enumerate(mock_lib, &t, &e), 0, "%s", cdi_error_message(&e));
	cr_assert_str_eq(t.driver_version, "550.54.15");
	cr_assert_eq(t.cuda_version, 12040);
	cr_assert_eq(t.n_gpus, 1);
	cr_assert_eq(t.gpus[0].index, 0);
	cr_assert_eq(t.gpus[0].minor, 0);
	cr_assert_str_eq(t.gpus[0].uuid, "GPU-4f2a8c7e-1b3d-4e5f-8a9b-0c1d2e3f4a5b");
	cr_assert_str_eq(t.gpus[0].name, "NVIDIA A100-SXM4-40GB");
	/* NVML's "00000000:07:00.0" → procfs style, as nvidia-ctk normalises it. */
	cr_assert_str_eq(t.gpus[0].bus_id, "0000:07:00.0");
	cr_assert_not(t.gpus[0].mig_enabled);
	cr_assert_eq(t.gpus[0].n_migs, 0);
	inventory_clear(&t);
	cr_assert_eq(t.n_gpus, 0);
	cr_assert_null(t.gpus);
}

Test(nvml, mig_devices_with_gaps_and_modes)
{
	struct inventory t = { 0 };
	struct cdi_error e = { 0 };

	topology(
		"driver 555.42.02\n"
		"gpu 0 minor=4 pci=0000:B7:00.0 uuid=GPU-00000000-0000-0000-0000-000000000000 mig=enabled\n"
		"mig 0 gi=1 ci=0 giprofile=2 gistart=0 ciprofile=2 cistart=0 uuid=MIG-11111111-1111-1111-1111-111111111111 slot=0\n"
		"mig 0 gi=2 ci=0 giprofile=0 gistart=4 ciprofile=0 cistart=0 uuid=MIG-22222222-2222-2222-2222-222222222222 slot=3\n"
		"gpu 1 minor=1 pci=0000:bd:00.0 uuid=GPU-11111111-0000-0000-0000-000000000000 mig=disabled\n"
		"gpu 2 minor=2 pci=0000:c0:00.0 uuid=GPU-22222222-0000-0000-0000-000000000000 mig=pending-enable\n"
		"gpu 3 minor=3 pci=0000:c1:00.0 uuid=GPU-33333333-0000-0000-0000-000000000000 mig=pending-disable\n"
		"mig 3 gi=7 ci=0 giprofile=0 gistart=6 ciprofile=0 cistart=0 uuid=MIG-33333333-3333-3333-3333-333333333333\n"
		"gpu 4 minor=5 pci=0000:c2:00.0 uuid=GPU-44444444-0000-0000-0000-000000000000 mig=enabled\n");
	cr_assert_eq(nvml_enumerate(mock_lib, &t, &e), 0, "%s", cdi_error_message(&e));
	cr_assert_str_eq(t.driver_version, "555.42.02");
	cr_assert_eq(t.n_gpus, 5);

	cr_assert(t.gpus[0].mig_enabled);
	cr_assert_eq(t.gpus[0].minor, 4);
	cr_assert_str_eq(t.gpus[0].bus_id, "0000:b7:00.0");
	cr_assert_eq(t.gpus[0].n_migs, 2);
	/* Empty slots 1 and 2 are skipped (NOT_FOUND), indexes keep the slot number. */
	cr_assert_eq(t.gpus[0].migs[0].index, 0);
	cr_assert_eq(t.gpus[0].migs[0].gi, 1);
	cr_assert_eq(t.gpus[0].migs[0].ci, 0);
	cr_assert_str_eq(t.gpus[0].migs[0].uuid, "MIG-11111111-1111-1111-1111-111111111111");
	cr_assert_eq(t.gpus[0].migs[1].index, 3);
	cr_assert_eq(t.gpus[0].migs[1].gi, 2);
	cr_assert_str_eq(t.gpus[0].migs[1].uuid, "MIG-22222222-2222-2222-2222-222222222222");

	cr_assert_not(t.gpus[1].mig_enabled);
	/* libnvidia-container: enabled only when current == ENABLE == pending. */
	cr_assert_not(t.gpus[2].mig_enabled, "pending enable is not enabled yet");
	cr_assert_not(t.gpus[3].mig_enabled, "pending disable counts as disabled");
	cr_assert_eq(t.gpus[3].n_migs, 0);
	cr_assert(t.gpus[4].mig_enabled, "enabled with no MIG devices");
	cr_assert_eq(t.gpus[4].n_migs, 0);
	inventory_clear(&t);
}

/* The facts NVIDIA_REQUIRE_* compares: libnvidia-container's brand names and "major.minor". */
Test(nvml, brand_and_compute_capability)
{
	struct inventory t = { 0 };
	struct cdi_error e = { 0 };
	char cuda[16];

	topology("cuda 12040\n"
		 "brand 14\ncompute-capability 8.0\n"
		 "gpu 0 minor=0 pci=0000:07:00.0 uuid=GPU-00000000-0000-0000-0000-000000000000\n"
		 "brand 2\ncompute-capability 7.0\n"
		 "gpu 1 minor=1 pci=0000:08:00.0 uuid=GPU-11111111-0000-0000-0000-000000000000\n"
		 "brand 5\ncompute-capability 8.6\n"
		 "gpu 2 minor=2 pci=0000:09:00.0 uuid=GPU-22222222-0000-0000-0000-000000000000\n"
		 "brand 1\n"
		 "gpu 3 minor=3 pci=0000:0a:00.0 uuid=GPU-33333333-0000-0000-0000-000000000000\n");
	cr_assert_eq(nvml_enumerate(mock_lib, &t, &e), 0, "%s", cdi_error_message(&e));
	cr_assert_eq(t.n_gpus, 4);
	/* An A100 says NVML_BRAND_NVIDIA, which libnvidia-container calls "Unknown". */
	cr_assert_str_eq(t.gpus[0].brand, "Unknown");
	cr_assert_str_eq(t.gpus[0].arch, "8.0");
	cr_assert_str_eq(t.gpus[1].brand, "Tesla");
	cr_assert_str_eq(t.gpus[1].arch, "7.0");
	cr_assert_str_eq(t.gpus[2].brand, "GeForce");
	cr_assert_str_eq(t.gpus[2].arch, "8.6");
	cr_assert_str_eq(t.gpus[3].brand, "Quadro");
	cr_assert(inventory_cuda_version(&t, cuda, sizeof(cuda)));
	cr_assert_str_eq(cuda, "12.4");
	for (size_t i = 0; i < t.n_gpus; i++)
		cr_assert_eq(t.gpus[i].node, INV_NO_NODE, "nodes are discovery's, not NVML's");
	inventory_clear(&t);
}

Test(nvml, old_driver_without_mig_symbols)
{
	struct inventory t = { 0 };
	struct cdi_error e = { 0 };

	cr_assert_eq(access(old_lib, R_OK), 0, "%s missing", old_lib);
	topology("driver 440.118.02\n"
		 "gpu 0 minor=0 pci=0000:07:00.0 uuid=GPU-00000000-0000-0000-0000-000000000000\n"
		 "gpu 1 minor=1 pci=0000:08:00.0 uuid=GPU-11111111-0000-0000-0000-000000000000\n");
	cr_assert_eq(nvml_enumerate(old_lib, &t, &e), 0, "%s", cdi_error_message(&e));
	cr_assert_str_eq(t.driver_version, "440.118.02");
	cr_assert_eq(t.n_gpus, 2);
	cr_assert_not(t.gpus[0].mig_enabled);
	cr_assert_not(t.gpus[1].mig_enabled);
	inventory_clear(&t);
}

Test(nvml, missing_library)
{
	struct inventory t = { 0 };
	struct cdi_error e = { 0 };

	cr_assert_eq(nvml_enumerate("/nonexistent/libnvidia-ml.so.1", &t, &e), -ELIBACC);
	cr_assert(strstr(cdi_error_message(&e),
			 "/nonexistent/libnvidia-ml.so.1: cannot load NVML") != NULL,
		  "%s", cdi_error_message(&e));
	cr_assert_eq(t.n_gpus, 0);
	cdi_error_reset(&e);
}

Test(nvml, not_nvml)
{
	struct inventory t = { 0 };
	struct cdi_error e = { 0 };

	/* A real library that is not NVML: the required symbol is named. */
	cr_assert_eq(nvml_enumerate("libjansson.so.4", &t, &e), -ELIBBAD);
	cr_assert(strstr(cdi_error_message(&e), "nvmlInit_v2") != NULL, "%s",
		  cdi_error_message(&e));
	cdi_error_reset(&e);
}

Test(nvml, init_errors_name_function_and_text)
{
	struct inventory t = { 0 };
	struct cdi_error e = { 0 };

	topology("init-error 18\ngpu 0 minor=0 pci=0000:07:00.0 uuid=GPU-0\n");
	cr_assert_eq(nvml_enumerate(mock_lib, &t, &e), -EIO);
	cr_assert(strstr(cdi_error_message(&e), "nvmlInit") != NULL);
	cr_assert(strstr(cdi_error_message(&e), "RM has detected an NVML/RM version mismatch") !=
			  NULL,
		  "%s", cdi_error_message(&e));
	cdi_error_reset(&e);

	/* No topology at all: the mock answers like a host whose module is not loaded. */
	unlink(config);
	cr_assert_eq(nvml_enumerate(mock_lib, &t, &e), -EIO);
	cr_assert(strstr(cdi_error_message(&e), "Driver Not Loaded") != NULL, "%s",
		  cdi_error_message(&e));
	cdi_error_reset(&e);
}

Test(nvml, no_gpus)
{
	struct inventory t = { 0 };

	topology("driver 550.54.15\n");
	cr_assert_eq(nvml_enumerate(mock_lib, &t, NULL), 0);
	cr_assert_eq(t.n_gpus, 0);
	cr_assert_str_eq(t.driver_version, "550.54.15");
}

static void many_gpus(unsigned n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	for (unsigned i = 0; i < n; i++)
		fprintf(f,
			"gpu %u minor=%u pci=0000:%02x:00.0 uuid=GPU-%08u-0000-0000-0000-000000000000\n",
			i, i, i + 1, i);
	fclose(f);
	topology(buf);
	free(buf);
}

Test(nvml, sixty_four_gpus_and_no_more)
{
	struct inventory t = { 0 };
	struct cdi_error e = { 0 };

	many_gpus(64);
	cr_assert_eq(nvml_enumerate(mock_lib, &t, &e), 0, "%s", cdi_error_message(&e));
	cr_assert_eq(t.n_gpus, 64);
	cr_assert_eq(t.gpus[63].minor, 63);
	cr_assert_eq(t.gpus[63].index, 63);
	inventory_clear(&t);

	many_gpus(65);
	cr_assert_eq(nvml_enumerate(mock_lib, &t, &e), -E2BIG);
	cr_assert(strstr(cdi_error_message(&e), "nvmlDeviceGetCount: 65 GPUs") != NULL, "%s",
		  cdi_error_message(&e));
	cr_assert_eq(t.n_gpus, 0);
	cdi_error_reset(&e);
}

Test(nvml, repeated_enumeration_is_stable)
{
	struct inventory a = { 0 }, b = { 0 };

	many_gpus(8);
	cr_assert_eq(nvml_enumerate(mock_lib, &a, NULL), 0);
	cr_assert_eq(nvml_enumerate(mock_lib, &b, NULL), 0,
		     "shut down and closed: a second run works");
	cr_assert_eq(a.n_gpus, b.n_gpus);
	for (size_t i = 0; i < a.n_gpus; i++)
		cr_assert_str_eq(a.gpus[i].uuid, b.gpus[i].uuid);
	inventory_clear(&a);
	inventory_clear(&b);
}
