/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The mock libnvidia-ml (tests/simhost/mock-nvml.c) behaves as the NVML
 * documentation says the real one does, for the topologies the simulated
 * hosts use. Every test dlopens the built mock ($B/tests/mock-nvml/...) and
 * calls it through dlsym, as cdi-generate, libnvidia-container and nvidia-ctk
 * do; topologies are written to a temp file named by CDIKIT_MOCK_NVML_CONFIG.
 */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../simhost/mock-nvml.h"

#define SINGLE                                                                                     \
	"driver 550.54.15\n"                                                                       \
	"cuda 12040\n"                                                                             \
	"name NVIDIA A100-SXM4-40GB\n"                                                             \
	"pci-device-id 0x20B010DE\n"                                                               \
	"max-mig 7\n"                                                                              \
	"gpu 0 minor=0 pci=0000:07:00.0 uuid=GPU-54e67eb0-c6b5-d687-008a-2323a63630c7 mig=disabled\n"

/* The dgx-mig topology of tests/simhost/make-host, as it writes it. */
#define DGX_MIG                                                                                                        \
	"driver 550.54.15\n"                                                                                           \
	"nvml 12.550.54.15\n"                                                                                          \
	"cuda 12040\n"                                                                                                 \
	"name NVIDIA A100-SXM4-40GB\n"                                                                                 \
	"memory-mib 40960\n"                                                                                           \
	"max-mig 7\n"                                                                                                  \
	"gpu 0 minor=0 pci=0000:07:00.0 uuid=GPU-54e67eb0-c6b5-d687-008a-2323a63630c7 mig=disabled\n"                  \
	"gpu 1 minor=1 pci=0000:0f:00.0 uuid=GPU-67db9f65-c8d3-cab0-e7a3-172228c5b697 mig=disabled\n"                  \
	"gpu 2 minor=2 pci=0000:47:00.0 uuid=GPU-7ad0c01a-caf1-bed9-cebc-0b21ab553c68 mig=enabled\n"                   \
	"mig 2 gi=7 ci=0 giprofile=0 gistart=0 ciprofile=0 cistart=0 uuid=MIG-e8055dbf-d998-89d6-179d-90049a49fa6b\n"  \
	"mig 2 gi=8 ci=0 giprofile=0 gistart=1 ciprofile=0 cistart=0 uuid=MIG-a598a4d2-eec4-136c-1e97-17f7b3e53493\n"  \
	"mig 2 gi=9 ci=0 giprofile=0 gistart=2 ciprofile=0 cistart=0 uuid=MIG-632bebe6-03ef-9d02-2590-9fe9cd806ebb\n"  \
	"mig 2 gi=10 ci=0 giprofile=0 gistart=3 ciprofile=0 cistart=0 uuid=MIG-20bf32f9-191b-2698-2c8a-27dce71ba8e3\n" \
	"mig 2 gi=11 ci=0 giprofile=0 gistart=4 ciprofile=0 cistart=0 uuid=MIG-de527a0c-2e46-b02e-3383-afcf00b6e30b\n" \
	"mig 2 gi=12 ci=0 giprofile=0 gistart=5 ciprofile=0 cistart=0 uuid=MIG-9be5c120-4372-39c4-3a7d-37c21a521d34\n" \
	"mig 2 gi=13 ci=0 giprofile=0 gistart=6 ciprofile=0 cistart=0 uuid=MIG-59790833-589d-c35a-4176-bfb533ed575c\n" \
	"gpu 3 minor=3 pci=0000:4e:00.0 uuid=GPU-8dc5e0cf-cd0f-b301-b5d4-ff1f2de4c239 mig=disabled\n"                  \
	"gpu 4 minor=4 pci=0000:87:00.0 uuid=GPU-a0bb0184-cf2d-a72a-9ced-f31eb074480a mig=disabled\n"                  \
	"gpu 5 minor=5 pci=0000:90:00.0 uuid=GPU-b3b02239-d14b-9b52-8406-e71d3303cddb mig=enabled\n"                   \
	"mig 5 gi=1 ci=0 giprofile=2 gistart=0 ciprofile=2 cistart=0 uuid=MIG-9f28fe0a-2998-8c18-1a2f-b0f2028ec49b\n"  \
	"mig 5 gi=2 ci=0 giprofile=2 gistart=4 ciprofile=0 cistart=0 uuid=MIG-5cbc451e-3ec4-15ae-2129-38e51c29fec4\n"  \
	"mig 5 gi=2 ci=1 giprofile=2 gistart=4 ciprofile=0 cistart=1 uuid=MIG-6fb165d3-40e2-09d6-0842-2ce49eb98495\n"  \
	"gpu 6 minor=6 pci=0000:b7:00.0 uuid=GPU-c6a542ee-d369-8f7b-6b1f-db1bb59353ac mig=disabled\n"                  \
	"gpu 7 minor=7 pci=0000:bd:00.0 uuid=GPU-d99a63a4-d587-83a4-5238-cf1a3822d97c mig=disabled\n"

static char dir[PATH_MAX], config[PATH_MAX + 32];
static void *lib;

/* Every symbol, looked up by name as the loaders do; NULL when not exported. */
#define SYM(name) __typeof__(name) *name##_p
static struct {
	SYM(nvmlInit);
	SYM(nvmlInit_v2);
	SYM(nvmlInitWithFlags);
	SYM(nvmlShutdown);
	SYM(nvmlErrorString);
	SYM(nvmlSystemGetDriverVersion);
	SYM(nvmlSystemGetNVMLVersion);
	SYM(nvmlSystemGetCudaDriverVersion);
	SYM(nvmlSystemGetCudaDriverVersion_v2);
	SYM(nvmlDeviceGetCount);
	SYM(nvmlDeviceGetCount_v2);
	SYM(nvmlDeviceGetHandleByIndex);
	SYM(nvmlDeviceGetHandleByIndex_v2);
	SYM(nvmlDeviceGetHandleByUUID);
	SYM(nvmlDeviceGetHandleByPciBusId);
	SYM(nvmlDeviceGetHandleByPciBusId_v2);
	SYM(nvmlDeviceGetName);
	SYM(nvmlDeviceGetUUID);
	SYM(nvmlDeviceGetPciInfo);
	SYM(nvmlDeviceGetPciInfo_v2);
	SYM(nvmlDeviceGetPciInfo_v3);
	SYM(nvmlDeviceGetMinorNumber);
	SYM(nvmlDeviceGetIndex);
	SYM(nvmlDeviceGetCudaComputeCapability);
	SYM(nvmlDeviceGetMemoryInfo);
	SYM(nvmlDeviceGetBrand);
	SYM(nvmlDeviceGetArchitecture);
	SYM(nvmlDeviceGetMigMode);
	SYM(nvmlDeviceGetMaxMigDeviceCount);
	SYM(nvmlDeviceGetMigDeviceHandleByIndex);
	SYM(nvmlDeviceIsMigDeviceHandle);
	SYM(nvmlDeviceGetDeviceHandleFromMigDeviceHandle);
	SYM(nvmlDeviceGetGpuInstanceId);
	SYM(nvmlDeviceGetComputeInstanceId);
	SYM(nvmlDeviceGetAttributes);
	SYM(nvmlDeviceGetAttributes_v2);
	SYM(nvmlDeviceGetGpuInstanceProfileInfo);
	SYM(nvmlDeviceGetGpuInstances);
	SYM(nvmlDeviceGetGpuInstanceById);
	SYM(nvmlGpuInstanceGetInfo);
	SYM(nvmlGpuInstanceGetComputeInstanceProfileInfo);
	SYM(nvmlGpuInstanceGetComputeInstances);
	SYM(nvmlGpuInstanceGetComputeInstanceById);
	SYM(nvmlComputeInstanceGetInfo);
	SYM(nvmlComputeInstanceGetInfo_v2);
} n;

#define LOAD(name) n.name##_p = (__typeof__(n.name##_p))dlsym(lib, #name)

static const char *mig_symbols[] = {
	"nvmlDeviceGetMigMode",
	"nvmlDeviceGetMaxMigDeviceCount",
	"nvmlDeviceGetMigDeviceHandleByIndex",
	"nvmlDeviceIsMigDeviceHandle",
	"nvmlDeviceGetDeviceHandleFromMigDeviceHandle",
	"nvmlDeviceGetGpuInstanceId",
	"nvmlDeviceGetComputeInstanceId",
	"nvmlDeviceGetGpuInstanceById",
	"nvmlGpuInstanceGetInfo",
	"nvmlComputeInstanceGetInfo_v2",
};

static char *lib_path(const char *variant)
{
	const char *b = getenv("B");
	char cwd[PATH_MAX], *path;

	if (!b || !*b)
		b = "build";
	cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
	cr_assert_geq(asprintf(&path, "%s%s%s/tests/mock-nvml/%slibnvidia-ml.so.1",
			       b[0] == '/' ? "" : cwd, b[0] == '/' ? "" : "/", b, variant),
		      0);
	cr_assert_eq(access(path, R_OK), 0, "%s missing: build the fixtures (make check)", path);
	return path;
}

static void load(const char *path)
{
	lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	cr_assert_not_null(lib, "dlopen %s: %s", path, dlerror());
	LOAD(nvmlInit);
	LOAD(nvmlInit_v2);
	LOAD(nvmlInitWithFlags);
	LOAD(nvmlShutdown);
	LOAD(nvmlErrorString);
	LOAD(nvmlSystemGetDriverVersion);
	LOAD(nvmlSystemGetNVMLVersion);
	LOAD(nvmlSystemGetCudaDriverVersion);
	LOAD(nvmlSystemGetCudaDriverVersion_v2);
	LOAD(nvmlDeviceGetCount);
	LOAD(nvmlDeviceGetCount_v2);
	LOAD(nvmlDeviceGetHandleByIndex);
	LOAD(nvmlDeviceGetHandleByIndex_v2);
	LOAD(nvmlDeviceGetHandleByUUID);
	LOAD(nvmlDeviceGetHandleByPciBusId);
	LOAD(nvmlDeviceGetHandleByPciBusId_v2);
	LOAD(nvmlDeviceGetName);
	LOAD(nvmlDeviceGetUUID);
	LOAD(nvmlDeviceGetPciInfo);
	LOAD(nvmlDeviceGetPciInfo_v2);
	LOAD(nvmlDeviceGetPciInfo_v3);
	LOAD(nvmlDeviceGetMinorNumber);
	LOAD(nvmlDeviceGetIndex);
	LOAD(nvmlDeviceGetCudaComputeCapability);
	LOAD(nvmlDeviceGetMemoryInfo);
	LOAD(nvmlDeviceGetBrand);
	LOAD(nvmlDeviceGetArchitecture);
	LOAD(nvmlDeviceGetMigMode);
	LOAD(nvmlDeviceGetMaxMigDeviceCount);
	LOAD(nvmlDeviceGetMigDeviceHandleByIndex);
	LOAD(nvmlDeviceIsMigDeviceHandle);
	LOAD(nvmlDeviceGetDeviceHandleFromMigDeviceHandle);
	LOAD(nvmlDeviceGetGpuInstanceId);
	LOAD(nvmlDeviceGetComputeInstanceId);
	LOAD(nvmlDeviceGetAttributes);
	LOAD(nvmlDeviceGetAttributes_v2);
	LOAD(nvmlDeviceGetGpuInstanceProfileInfo);
	LOAD(nvmlDeviceGetGpuInstances);
	LOAD(nvmlDeviceGetGpuInstanceById);
	LOAD(nvmlGpuInstanceGetInfo);
	LOAD(nvmlGpuInstanceGetComputeInstanceProfileInfo);
	LOAD(nvmlGpuInstanceGetComputeInstances);
	LOAD(nvmlGpuInstanceGetComputeInstanceById);
	LOAD(nvmlComputeInstanceGetInfo);
	LOAD(nvmlComputeInstanceGetInfo_v2);
}

static void setup(void)
{
	strcpy(dir, "/tmp/test-gen-mock-nvml.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(config, sizeof(config), "%s/topology.conf", dir);
	setenv("CDIKIT_MOCK_NVML_CONFIG", config, 1);
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];

	/* Tests may end with NVML initialised; leave none of its state to leak checkers. */
	if (lib && n.nvmlShutdown_p)
		while (n.nvmlShutdown_p() == NVML_SUCCESS)
			;
	if (lib)
		dlclose(lib);
	lib = NULL;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

/* Write the topology, load the current-driver mock, nvmlInit_v2 it. */
static void start(const char *topology)
{
	char *path = lib_path("");

	write_file(config, topology);
	load(path);
	free(path);
	cr_assert_eq(n.nvmlInit_v2_p(), NVML_SUCCESS);
}

static nvmlDevice_t gpu(unsigned index)
{
	nvmlDevice_t d = NULL;

	cr_assert_eq(n.nvmlDeviceGetHandleByIndex_v2_p(index, &d), NVML_SUCCESS, "GPU %u", index);
	cr_assert_not_null(d);
	return d;
}

static nvmlDevice_t mig(nvmlDevice_t parent, unsigned index)
{
	nvmlDevice_t d = NULL;

	cr_assert_eq(n.nvmlDeviceGetMigDeviceHandleByIndex_p(parent, index, &d), NVML_SUCCESS,
		     "MIG %u", index);
	cr_assert_not_null(d);
	return d;
}

TestSuite(mock_nvml, .init = setup, .fini = teardown);

Test(mock_nvml, exports_versioned_and_unversioned_names)
{
	char *path = lib_path("");

	load(path);
	free(path);
	cr_assert_not_null(n.nvmlInit_p);
	cr_assert_eq((void *)n.nvmlInit_p, (void *)n.nvmlInit_v2_p);
	cr_assert_eq((void *)n.nvmlDeviceGetCount_p, (void *)n.nvmlDeviceGetCount_v2_p);
	cr_assert_eq((void *)n.nvmlDeviceGetHandleByIndex_p,
		     (void *)n.nvmlDeviceGetHandleByIndex_v2_p);
	cr_assert_not_null(n.nvmlDeviceGetPciInfo_p);
	cr_assert_not_null(n.nvmlDeviceGetPciInfo_v2_p);
	cr_assert_not_null(n.nvmlDeviceGetPciInfo_v3_p);
	cr_assert_not_null(n.nvmlDeviceGetHandleByPciBusId_p);
	cr_assert_not_null(n.nvmlSystemGetCudaDriverVersion_v2_p);
	cr_assert_not_null(n.nvmlComputeInstanceGetInfo_p);
	cr_assert_not_null(n.nvmlDeviceGetAttributes_p);
	for (size_t i = 0; i < sizeof(mig_symbols) / sizeof(mig_symbols[0]); i++)
		cr_assert_not_null(dlsym(lib, mig_symbols[i]), "%s", mig_symbols[i]);
	/* Nothing but NVML leaves the library (built with -fvisibility=hidden). */
	cr_assert_null(dlsym(lib, "mock_load"));
	cr_assert_null(dlsym(lib, "parse_line"));
}

Test(mock_nvml, calls_before_init_are_uninitialized)
{
	char *path = lib_path("");
	unsigned count = 99;
	nvmlDevice_t d = NULL;
	char buf[80];
	int cuda;

	write_file(config, SINGLE);
	load(path);
	free(path);
	cr_assert_eq(n.nvmlDeviceGetCount_v2_p(&count), NVML_ERROR_UNINITIALIZED);
	cr_assert_eq(count, 99, "untouched on error");
	cr_assert_eq(n.nvmlDeviceGetHandleByIndex_v2_p(0, &d), NVML_ERROR_UNINITIALIZED);
	cr_assert_eq(n.nvmlSystemGetDriverVersion_p(buf, sizeof(buf)), NVML_ERROR_UNINITIALIZED);
	cr_assert_eq(n.nvmlSystemGetCudaDriverVersion_p(&cuda), NVML_ERROR_UNINITIALIZED);
	cr_assert_eq(n.nvmlShutdown_p(), NVML_ERROR_UNINITIALIZED);
}

Test(mock_nvml, init_is_reference_counted)
{
	unsigned count;
	nvmlDevice_t d;

	start(SINGLE);
	d = gpu(0);
	cr_assert_eq(n.nvmlInit_p(), NVML_SUCCESS);
	cr_assert_eq(n.nvmlInitWithFlags_p(0), NVML_SUCCESS);
	cr_assert_eq(n.nvmlShutdown_p(), NVML_SUCCESS);
	cr_assert_eq(n.nvmlShutdown_p(), NVML_SUCCESS);
	cr_assert_eq(n.nvmlDeviceGetCount_v2_p(&count), NVML_SUCCESS, "one reference left");
	cr_assert_eq(gpu(0), d, "handles are stable while initialised");
	cr_assert_eq(n.nvmlShutdown_p(), NVML_SUCCESS);
	cr_assert_eq(n.nvmlDeviceGetCount_v2_p(&count), NVML_ERROR_UNINITIALIZED);
	cr_assert_eq(n.nvmlShutdown_p(), NVML_ERROR_UNINITIALIZED);
	/* A second session reads the topology again. */
	write_file(config, DGX_MIG);
	cr_assert_eq(n.nvmlInit_v2_p(), NVML_SUCCESS);
	cr_assert_eq(n.nvmlDeviceGetCount_v2_p(&count), NVML_SUCCESS);
	cr_assert_eq(count, 8);
	cr_assert_eq(n.nvmlShutdown_p(), NVML_SUCCESS);
}

Test(mock_nvml, missing_topology_is_driver_not_loaded)
{
	char *path = lib_path("");

	load(path);
	free(path);
	cr_assert_eq(n.nvmlInit_v2_p(), NVML_ERROR_DRIVER_NOT_LOADED);
	cr_assert_str_eq(n.nvmlErrorString_p(NVML_ERROR_DRIVER_NOT_LOADED), "Driver Not Loaded");
	write_file(config, SINGLE "init-error 18\n");
	cr_assert_eq(n.nvmlInit_v2_p(), NVML_ERROR_LIB_RM_VERSION_MISMATCH);
	write_file(config, SINGLE);
	cr_assert_eq(n.nvmlInit_v2_p(), NVML_SUCCESS, "a failed init leaves no state behind");
	cr_assert_eq(n.nvmlShutdown_p(), NVML_SUCCESS);
}

Test(mock_nvml, bad_topologies_are_rejected)
{
	static const char *const bad[] = {
		"gpu 1 minor=0 pci=0000:07:00.0 uuid=GPU-a\n",	      /* index not 0 */
		"gpu 0 minor=0 pci=0000:07:00.0\n",		      /* no uuid */
		"gpu 0 minor=0 pci=07:00 uuid=GPU-a\n",		      /* bad bus id */
		"gpu 0 minor=254 pci=0000:07:00.0 uuid=GPU-a\n",      /* modeset's minor */
		"gpu 0 minor=0 pci=0000:07:00.0 uuid=MIG-a\n",	      /* not a GPU uuid */
		"gpu 0 minor=0 pci=0000:07:00.0 uuid=GPU-a mig=on\n", /* unknown mode */
		"gpu 0 minor=0 pci=0000:07:00.0 uuid=GPU-a\ngpu 1 minor=0 pci=0000:0f:00.0 uuid=GPU-b\n",
		"gpu 0 minor=0 pci=0000:07:00.0 uuid=GPU-a mig=disabled\n"
		"mig 0 gi=7 ci=0 giprofile=0 gistart=0 ciprofile=0 cistart=0 uuid=MIG-a\n",
		"gpu 0 minor=0 pci=0000:07:00.0 uuid=GPU-a mig=enabled\n"
		"mig 0 gi=7 ci=0 giprofile=0 gistart=0 ciprofile=0 cistart=0 uuid=MIG-a\n"
		"mig 0 gi=7 ci=0 giprofile=0 gistart=0 ciprofile=0 cistart=0 uuid=MIG-b\n",
		"gpu 0 minor=0 pci=0000:07:00.0 uuid=GPU-a mig=enabled\n"
		"mig 0 gi=7 ci=0 giprofile=5 gistart=0 ciprofile=0 cistart=0 uuid=MIG-a\n",
		"gpu 0 minor=0 pci=0000:07:00.0 uuid=GPU-a mig=enabled\n"
		"mig 1 gi=7 ci=0 giprofile=0 gistart=0 ciprofile=0 cistart=0 uuid=MIG-a\n",
		"max-mig 2\ngpu 0 minor=0 pci=0000:07:00.0 uuid=GPU-a mig=enabled\n"
		"mig 0 gi=7 ci=0 giprofile=0 gistart=0 ciprofile=0 cistart=0 uuid=MIG-a slot=2\n",
		"colour blue\n",
		"cuda twelve\n",
	};
	char *path = lib_path("");
	unsigned count;

	load(path);
	free(path);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_file(config, bad[i]);
		cr_expect_eq(n.nvmlInit_v2_p(), NVML_ERROR_UNKNOWN, "accepted: %s", bad[i]);
		cr_expect_eq(n.nvmlDeviceGetCount_v2_p(&count), NVML_ERROR_UNINITIALIZED);
	}
}

Test(mock_nvml, config_beside_the_library_without_environment)
{
	char *path = lib_path(""), copy[PATH_MAX + 64], conf[PATH_MAX + 64], cmd[3 * PATH_MAX];
	unsigned count = 0;

	/* A simulated host: libnvidia-ml.so.<ver> with mock-nvml.conf next to it. */
	snprintf(copy, sizeof(copy), "%s/libnvidia-ml.so.550.54.15", dir);
	snprintf(conf, sizeof(conf), "%s/mock-nvml.conf", dir);
	snprintf(cmd, sizeof(cmd),
		 "cp '%s' '%s' && ln -s libnvidia-ml.so.550.54.15 '%s/libnvidia-ml.so.1'", path,
		 copy, dir);
	free(path);
	cr_assert_eq(system(cmd), 0);
	write_file(conf, DGX_MIG);
	unsetenv("CDIKIT_MOCK_NVML_CONFIG");
	snprintf(copy, sizeof(copy), "%s/libnvidia-ml.so.1", dir);
	load(copy);
	cr_assert_eq(n.nvmlInit_v2_p(), NVML_SUCCESS);
	cr_assert_eq(n.nvmlDeviceGetCount_v2_p(&count), NVML_SUCCESS);
	cr_assert_eq(count, 8);
	cr_assert_eq(n.nvmlShutdown_p(), NVML_SUCCESS);
}

Test(mock_nvml, system_versions_and_buffer_sizes)
{
	char buf[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
	int cuda = 0;

	start(DGX_MIG);
	cr_assert_eq(n.nvmlSystemGetDriverVersion_p(buf, sizeof(buf)), NVML_SUCCESS);
	cr_assert_str_eq(buf, "550.54.15");
	cr_assert_eq(n.nvmlSystemGetDriverVersion_p(buf, 10), NVML_SUCCESS, "exactly enough");
	cr_assert_eq(n.nvmlSystemGetDriverVersion_p(buf, 9), NVML_ERROR_INSUFFICIENT_SIZE);
	cr_assert_eq(n.nvmlSystemGetDriverVersion_p(NULL, 80), NVML_ERROR_INVALID_ARGUMENT);
	cr_assert_eq(n.nvmlSystemGetNVMLVersion_p(buf, sizeof(buf)), NVML_SUCCESS);
	cr_assert_str_eq(buf, "12.550.54.15");
	cr_assert_eq(n.nvmlSystemGetCudaDriverVersion_p(&cuda), NVML_SUCCESS);
	cr_assert_eq(cuda, 12040);
	cr_assert_eq(n.nvmlSystemGetCudaDriverVersion_v2_p(NULL), NVML_ERROR_INVALID_ARGUMENT);
	cr_assert_str_eq(n.nvmlErrorString_p(NVML_SUCCESS), "Success");
	cr_assert_str_eq(n.nvmlErrorString_p(NVML_ERROR_INSUFFICIENT_SIZE), "Insufficient Size");
	cr_assert_str_eq(n.nvmlErrorString_p((nvmlReturn_t)12345), "Unknown Error");
}

Test(mock_nvml, full_gpu_properties)
{
	char buf[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
	nvmlPciInfo_t pci;
	nvmlMemory_t mem;
	nvmlBrandType_t brand;
	nvmlDeviceArchitecture_t arch;
	unsigned u, count;
	int major, minor;
	nvmlDevice_t d;

	start(DGX_MIG);
	cr_assert_eq(n.nvmlDeviceGetCount_p(&count), NVML_SUCCESS);
	cr_assert_eq(count, 8);
	d = gpu(3);
	cr_assert_eq(n.nvmlDeviceGetName_p(d, buf, NVML_DEVICE_NAME_BUFFER_SIZE), NVML_SUCCESS);
	cr_assert_str_eq(buf, "NVIDIA A100-SXM4-40GB");
	cr_assert_eq(n.nvmlDeviceGetUUID_p(d, buf, sizeof(buf)), NVML_SUCCESS);
	cr_assert_str_eq(buf, "GPU-8dc5e0cf-cd0f-b301-b5d4-ff1f2de4c239");
	cr_assert_eq(n.nvmlDeviceGetUUID_p(d, buf, 40), NVML_ERROR_INSUFFICIENT_SIZE);
	cr_assert_eq(n.nvmlDeviceGetUUID_p(d, buf, 41), NVML_SUCCESS);
	cr_assert_eq(n.nvmlDeviceGetMinorNumber_p(d, &u), NVML_SUCCESS);
	cr_assert_eq(u, 3);
	cr_assert_eq(n.nvmlDeviceGetIndex_p(d, &u), NVML_SUCCESS);
	cr_assert_eq(u, 3);
	cr_assert_eq(n.nvmlDeviceGetPciInfo_v3_p(d, &pci), NVML_SUCCESS);
	cr_assert_str_eq(pci.busId, "00000000:4E:00.0");
	cr_assert_str_eq(pci.busIdLegacy, "0000:4E:00.0");
	cr_assert_eq(pci.domain, 0);
	cr_assert_eq(pci.bus, 0x4e);
	cr_assert_eq(pci.device, 0);
	cr_assert_eq(pci.pciDeviceId, 0x20B010DE);
	cr_assert_eq(n.nvmlDeviceGetCudaComputeCapability_p(d, &major, &minor), NVML_SUCCESS);
	cr_assert_eq(major, 8);
	cr_assert_eq(minor, 0);
	cr_assert_eq(n.nvmlDeviceGetMemoryInfo_p(d, &mem), NVML_SUCCESS);
	cr_assert_eq(mem.total, 40960ull << 20);
	cr_assert_eq(mem.free + mem.used, mem.total);
	cr_assert_eq(n.nvmlDeviceGetBrand_p(d, &brand), NVML_SUCCESS);
	cr_assert_eq(brand, NVML_BRAND_NVIDIA);
	cr_assert_eq(n.nvmlDeviceGetArchitecture_p(d, &arch), NVML_SUCCESS);
	cr_assert_eq(arch, NVML_DEVICE_ARCH_AMPERE);
	/* A full GPU is no MIG device and has no GI/CI/attributes. */
	cr_assert_eq(n.nvmlDeviceIsMigDeviceHandle_p(d, &u), NVML_SUCCESS);
	cr_assert_eq(u, 0);
	cr_assert_eq(n.nvmlDeviceGetGpuInstanceId_p(d, &u), NVML_ERROR_NOT_SUPPORTED);
	cr_assert_eq(n.nvmlDeviceGetComputeInstanceId_p(d, &u), NVML_ERROR_NOT_SUPPORTED);
}

/* nvmlDeviceGetPciInfo (v1) and _v2 fill the 52-byte struct of their era, no more. */
Test(mock_nvml, legacy_pci_info_writes_the_old_struct_only)
{
	struct {
		mock_nvmlPciInfo_v1_t pci;
		unsigned char guard[32];
	} buf;
	nvmlDevice_t d;

	start(DGX_MIG);
	d = gpu(7);
	cr_assert_eq(sizeof(buf.pci), 52);
	for (int v = 1; v <= 2; v++) {
		memset(&buf, 0xa5, sizeof(buf));
		cr_assert_eq((v == 1 ? n.nvmlDeviceGetPciInfo_p
				     : n.nvmlDeviceGetPciInfo_v2_p)(d, &buf.pci),
			     NVML_SUCCESS);
		cr_assert_str_eq(buf.pci.busId, "0000:BD:00.0");
		cr_assert_eq(buf.pci.bus, 0xbd);
		cr_assert_eq(buf.pci.pciDeviceId, 0x20B010DE);
		for (size_t i = 0; i < sizeof(buf.guard); i++)
			cr_assert_eq(buf.guard[i], 0xa5, "v%d wrote past the v1 struct", v);
	}
}

Test(mock_nvml, bad_indexes_and_handles)
{
	nvmlDevice_t d = NULL, bogus = (nvmlDevice_t)&d;
	unsigned u;
	char buf[96];

	start(DGX_MIG);
	cr_assert_eq(n.nvmlDeviceGetHandleByIndex_v2_p(8, &d), NVML_ERROR_INVALID_ARGUMENT);
	cr_assert_eq(n.nvmlDeviceGetHandleByIndex_v2_p(UINT_MAX, &d), NVML_ERROR_INVALID_ARGUMENT);
	cr_assert_eq(n.nvmlDeviceGetHandleByIndex_v2_p(0, NULL), NVML_ERROR_INVALID_ARGUMENT);
	cr_assert_eq(n.nvmlDeviceGetCount_v2_p(NULL), NVML_ERROR_INVALID_ARGUMENT);
	cr_assert_eq(n.nvmlDeviceGetMinorNumber_p(NULL, &u), NVML_ERROR_INVALID_ARGUMENT);
	cr_assert_eq(n.nvmlDeviceGetMinorNumber_p(bogus, &u), NVML_ERROR_INVALID_ARGUMENT);
	cr_assert_eq(n.nvmlDeviceGetUUID_p(bogus, buf, sizeof(buf)), NVML_ERROR_INVALID_ARGUMENT);
	cr_assert_eq(n.nvmlDeviceGetMigMode_p(bogus, &u, &u), NVML_ERROR_INVALID_ARGUMENT);
	cr_assert_eq(n.nvmlDeviceGetMinorNumber_p(gpu(0), NULL), NVML_ERROR_INVALID_ARGUMENT);
	/* A handle from a finished session is not valid in the next. */
	d = gpu(0);
	cr_assert_eq(n.nvmlShutdown_p(), NVML_SUCCESS);
	cr_assert_eq(n.nvmlDeviceGetMinorNumber_p(d, &u), NVML_ERROR_UNINITIALIZED);
}

Test(mock_nvml, lookup_by_uuid_and_bus_id)
{
	nvmlDevice_t d = NULL;
	char buf[96];
	unsigned u;

	start(DGX_MIG);
	cr_assert_eq(n.nvmlDeviceGetHandleByUUID_p("GPU-b3b02239-d14b-9b52-8406-e71d3303cddb", &d),
		     NVML_SUCCESS);
	cr_assert_eq(d, gpu(5));
	cr_assert_eq(n.nvmlDeviceGetHandleByUUID_p("MIG-6fb165d3-40e2-09d6-0842-2ce49eb98495", &d),
		     NVML_SUCCESS);
	cr_assert_eq(d, mig(gpu(5), 2));
	cr_assert_eq(n.nvmlDeviceGetHandleByUUID_p("GPU-00000000-0000-0000-0000-000000000000", &d),
		     NVML_ERROR_NOT_FOUND);
	cr_assert_eq(n.nvmlDeviceGetHandleByUUID_p(NULL, &d), NVML_ERROR_INVALID_ARGUMENT);
	cr_assert_eq(n.nvmlDeviceGetHandleByPciBusId_v2_p("00000000:B7:00.0", &d), NVML_SUCCESS);
	cr_assert_eq(d, gpu(6));
	cr_assert_eq(n.nvmlDeviceGetHandleByPciBusId_p("0000:0f:00.0", &d), NVML_SUCCESS);
	cr_assert_eq(d, gpu(1));
	cr_assert_eq(n.nvmlDeviceGetHandleByPciBusId_v2_p("0000:10:00.0", &d),
		     NVML_ERROR_NOT_FOUND);
	cr_assert_eq(n.nvmlDeviceGetHandleByPciBusId_v2_p("garbage", &d),
		     NVML_ERROR_INVALID_ARGUMENT);
	cr_assert_eq(n.nvmlDeviceGetUUID_p(gpu(1), buf, sizeof(buf)), NVML_SUCCESS);
	cr_assert_eq(n.nvmlDeviceGetMinorNumber_p(d, &u), NVML_SUCCESS);
	cr_assert_eq(u, 1);
}

Test(mock_nvml, mig_mode_and_devices)
{
	static const unsigned gi2[] = { 7, 8, 9, 10, 11, 12, 13 };
	unsigned cur = 9, pend = 9, max = 0, u;
	nvmlDevice_t d, m, parent = NULL;
	char buf[96];
	int major, minor;
	nvmlMemory_t mem;

	start(DGX_MIG);
	/* GPU 0: MIG-capable A100, MIG off. */
	d = gpu(0);
	cr_assert_eq(n.nvmlDeviceGetMigMode_p(d, &cur, &pend), NVML_SUCCESS);
	cr_assert_eq(cur, NVML_DEVICE_MIG_DISABLE);
	cr_assert_eq(pend, NVML_DEVICE_MIG_DISABLE);
	cr_assert_eq(n.nvmlDeviceGetMaxMigDeviceCount_p(d, &max), NVML_SUCCESS);
	cr_assert_eq(max, 0);
	cr_assert_eq(n.nvmlDeviceGetMigDeviceHandleByIndex_p(d, 0, &m),
		     NVML_ERROR_INVALID_ARGUMENT);

	/* GPU 2: seven 1g.5gb, GI 7..13. */
	d = gpu(2);
	cr_assert_eq(n.nvmlDeviceGetMigMode_p(d, &cur, &pend), NVML_SUCCESS);
	cr_assert_eq(cur, NVML_DEVICE_MIG_ENABLE);
	cr_assert_eq(pend, NVML_DEVICE_MIG_ENABLE);
	cr_assert_eq(n.nvmlDeviceGetMaxMigDeviceCount_p(d, &max), NVML_SUCCESS);
	cr_assert_eq(max, 7);
	for (unsigned i = 0; i < 7; i++) {
		m = mig(d, i);
		cr_assert_eq(n.nvmlDeviceIsMigDeviceHandle_p(m, &u), NVML_SUCCESS);
		cr_assert_eq(u, 1);
		cr_assert_eq(n.nvmlDeviceGetGpuInstanceId_p(m, &u), NVML_SUCCESS);
		cr_assert_eq(u, gi2[i]);
		cr_assert_eq(n.nvmlDeviceGetComputeInstanceId_p(m, &u), NVML_SUCCESS);
		cr_assert_eq(u, 0);
		cr_assert_eq(n.nvmlDeviceGetDeviceHandleFromMigDeviceHandle_p(m, &parent),
			     NVML_SUCCESS);
		cr_assert_eq(parent, d);
		cr_assert_eq(n.nvmlDeviceGetName_p(m, buf, sizeof(buf)), NVML_SUCCESS);
		cr_assert_str_eq(buf, "NVIDIA A100-SXM4-40GB MIG 1g.5gb");
		cr_assert_eq(n.nvmlDeviceGetUUID_p(m, buf, sizeof(buf)), NVML_SUCCESS);
		cr_assert_eq(strncmp(buf, "MIG-", 4), 0);
		/* Minor and index belong to the parent. */
		cr_assert_eq(n.nvmlDeviceGetMinorNumber_p(m, &u), NVML_ERROR_NOT_SUPPORTED);
		cr_assert_eq(n.nvmlDeviceGetMigMode_p(m, &cur, &pend), NVML_ERROR_NOT_SUPPORTED);
	}
	m = mig(d, 0);
	cr_assert_eq(n.nvmlDeviceGetUUID_p(m, buf, sizeof(buf)), NVML_SUCCESS);
	cr_assert_str_eq(buf, "MIG-e8055dbf-d998-89d6-179d-90049a49fa6b");
	cr_assert_eq(n.nvmlDeviceGetCudaComputeCapability_p(m, &major, &minor), NVML_SUCCESS);
	cr_assert_eq(major, 8);
	cr_assert_eq(n.nvmlDeviceGetMemoryInfo_p(m, &mem), NVML_SUCCESS);
	cr_assert_eq(mem.total, 4864ull << 20);
	cr_assert_eq(n.nvmlDeviceGetMigDeviceHandleByIndex_p(d, 7, &m), NVML_ERROR_INVALID_ARGUMENT,
		     "index 7 is past the maximum of 7");
	cr_assert_eq(n.nvmlDeviceGetDeviceHandleFromMigDeviceHandle_p(d, &parent),
		     NVML_ERROR_INVALID_ARGUMENT, "a full GPU has no parent");

	/* GPU 5: 3g.20gb (GI 1, CI 0) and GI 2 split into two 1c.3g.20gb (CI 0, 1). */
	d = gpu(5);
	m = mig(d, 0);
	cr_assert_eq(n.nvmlDeviceGetName_p(m, buf, sizeof(buf)), NVML_SUCCESS);
	cr_assert_str_eq(buf, "NVIDIA A100-SXM4-40GB MIG 3g.20gb");
	cr_assert_eq(n.nvmlDeviceGetGpuInstanceId_p(m, &u), NVML_SUCCESS);
	cr_assert_eq(u, 1);
	m = mig(d, 2);
	cr_assert_eq(n.nvmlDeviceGetName_p(m, buf, sizeof(buf)), NVML_SUCCESS);
	cr_assert_str_eq(buf, "NVIDIA A100-SXM4-40GB MIG 1c.3g.20gb");
	cr_assert_eq(n.nvmlDeviceGetGpuInstanceId_p(m, &u), NVML_SUCCESS);
	cr_assert_eq(u, 2);
	cr_assert_eq(n.nvmlDeviceGetComputeInstanceId_p(m, &u), NVML_SUCCESS);
	cr_assert_eq(u, 1);
	for (unsigned i = 3; i < 7; i++)
		cr_assert_eq(n.nvmlDeviceGetMigDeviceHandleByIndex_p(d, i, &m),
			     NVML_ERROR_NOT_FOUND, "slot %u is empty", i);
	cr_assert_eq(n.nvmlDeviceGetMigDeviceHandleByIndex_p(d, 0, NULL),
		     NVML_ERROR_INVALID_ARGUMENT);
}

Test(mock_nvml, mig_not_supported_and_pending)
{
	unsigned cur, pend, max = 9;
	nvmlDevice_t m;

	start("name Tesla V100-SXM2-32GB\n"
	      "gpu 0 minor=0 pci=0000:06:00.0 uuid=GPU-11111111-2222-3333-4444-555555555555\n"
	      "gpu 1 minor=1 pci=0000:07:00.0 uuid=GPU-11111111-2222-3333-4444-555555555556 "
	      "mig=pending-enable\n"
	      "gpu 2 minor=2 pci=0000:0a:00.0 uuid=GPU-11111111-2222-3333-4444-555555555557 "
	      "mig=pending-disable\n"
	      "mig 2 gi=0 ci=0 giprofile=4 gistart=0 ciprofile=4 cistart=0 "
	      "uuid=MIG-11111111-2222-3333-4444-555555555558\n");
	cr_assert_eq(n.nvmlDeviceGetMigMode_p(gpu(0), &cur, &pend), NVML_ERROR_NOT_SUPPORTED);
	cr_assert_eq(n.nvmlDeviceGetMaxMigDeviceCount_p(gpu(0), &max), NVML_SUCCESS);
	cr_assert_eq(max, 0);
	cr_assert_eq(n.nvmlDeviceGetMigDeviceHandleByIndex_p(gpu(0), 0, &m),
		     NVML_ERROR_NOT_SUPPORTED);
	/* Enabled but not yet applied (needs a GPU reset): still a full GPU. */
	cr_assert_eq(n.nvmlDeviceGetMigMode_p(gpu(1), &cur, &pend), NVML_SUCCESS);
	cr_assert_eq(cur, NVML_DEVICE_MIG_DISABLE);
	cr_assert_eq(pend, NVML_DEVICE_MIG_ENABLE);
	cr_assert_eq(n.nvmlDeviceGetMaxMigDeviceCount_p(gpu(1), &max), NVML_SUCCESS);
	cr_assert_eq(max, 0);
	/* Disable pending: MIG still on, its devices still there. */
	cr_assert_eq(n.nvmlDeviceGetMigMode_p(gpu(2), &cur, &pend), NVML_SUCCESS);
	cr_assert_eq(cur, NVML_DEVICE_MIG_ENABLE);
	cr_assert_eq(pend, NVML_DEVICE_MIG_DISABLE);
	m = mig(gpu(2), 0);
	cr_assert_not_null(m);
}

/* go-nvlib skips NOT_FOUND slots, libnvidia-container stops at the first: holes matter. */
Test(mock_nvml, mig_slots_may_have_holes)
{
	nvmlDevice_t d, m;
	unsigned u;

	start("gpu 0 minor=0 pci=0000:07:00.0 uuid=GPU-11111111-2222-3333-4444-555555555555 "
	      "mig=enabled\n"
	      "mig 0 gi=7 ci=0 giprofile=0 gistart=0 ciprofile=0 cistart=0 slot=0 "
	      "uuid=MIG-11111111-2222-3333-4444-000000000000\n"
	      "mig 0 gi=10 ci=0 giprofile=0 gistart=3 ciprofile=0 cistart=0 slot=3 "
	      "uuid=MIG-11111111-2222-3333-4444-000000000003\n");
	d = gpu(0);
	cr_assert_not_null(mig(d, 0));
	cr_assert_eq(n.nvmlDeviceGetMigDeviceHandleByIndex_p(d, 1, &m), NVML_ERROR_NOT_FOUND);
	cr_assert_eq(n.nvmlDeviceGetMigDeviceHandleByIndex_p(d, 2, &m), NVML_ERROR_NOT_FOUND);
	m = mig(d, 3);
	cr_assert_eq(n.nvmlDeviceGetGpuInstanceId_p(m, &u), NVML_SUCCESS);
	cr_assert_eq(u, 10);
}

/* The instance API go-nvlib uses to name MIG profiles (nvidia-ctk's gfx check). */
Test(mock_nvml, gpu_and_compute_instances)
{
	nvmlDeviceAttributes_t attr;
	nvmlGpuInstanceProfileInfo_t gp;
	nvmlComputeInstanceProfileInfo_t cp;
	nvmlGpuInstanceInfo_t gii;
	nvmlComputeInstanceInfo_t cii;
	nvmlGpuInstance_t gi, gis[8];
	nvmlComputeInstance_t ci, cis[8];
	unsigned count;
	nvmlDevice_t d;

	start(DGX_MIG);
	d = gpu(5);
	cr_assert_eq(n.nvmlDeviceGetAttributes_v2_p(mig(d, 0), &attr), NVML_SUCCESS);
	cr_assert_eq(attr.gpuInstanceSliceCount, 3);
	cr_assert_eq(attr.computeInstanceSliceCount, 3);
	cr_assert_eq(attr.multiprocessorCount, 42);
	cr_assert_eq(attr.memorySizeMB, 19968);
	cr_assert_eq(n.nvmlDeviceGetAttributes_p(mig(d, 1), &attr), NVML_SUCCESS);
	cr_assert_eq(attr.computeInstanceSliceCount, 1);
	cr_assert_eq(n.nvmlDeviceGetAttributes_v2_p(d, &attr), NVML_ERROR_NOT_SUPPORTED);

	cr_assert_eq(
		n.nvmlDeviceGetGpuInstanceProfileInfo_p(d, NVML_GPU_INSTANCE_PROFILE_1_SLICE, &gp),
		NVML_SUCCESS);
	cr_assert_eq(gp.sliceCount, 1);
	cr_assert_eq(gp.instanceCount, 7);
	cr_assert_eq(gp.memorySizeMB, 4864);
	cr_assert_eq(n.nvmlDeviceGetGpuInstanceProfileInfo_p(d, 5, &gp), NVML_ERROR_NOT_SUPPORTED);

	cr_assert_eq(
		n.nvmlDeviceGetGpuInstances_p(d, NVML_GPU_INSTANCE_PROFILE_3_SLICE, gis, &count),
		NVML_SUCCESS);
	cr_assert_eq(count, 2);
	cr_assert_eq(n.nvmlDeviceGetGpuInstanceById_p(d, 2, &gi), NVML_SUCCESS);
	cr_assert_eq(n.nvmlDeviceGetGpuInstanceById_p(d, 3, &gi), NVML_ERROR_NOT_FOUND);
	cr_assert_eq(n.nvmlDeviceGetGpuInstanceById_p(d, 2, &gi), NVML_SUCCESS);
	cr_assert_eq(n.nvmlGpuInstanceGetInfo_p(gi, &gii), NVML_SUCCESS);
	cr_assert_eq(gii.device, d);
	cr_assert_eq(gii.id, 2);
	cr_assert_eq(gii.profileId, NVML_GPU_INSTANCE_PROFILE_3_SLICE);
	cr_assert_eq(gii.placement.start, 4);
	cr_assert_eq(gii.placement.size, 4, "a 3g.20gb spans four memory slices");

	cr_assert_eq(n.nvmlGpuInstanceGetComputeInstances_p(
			     gi, NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE, cis, &count),
		     NVML_SUCCESS);
	cr_assert_eq(count, 2);
	cr_assert_eq(n.nvmlGpuInstanceGetComputeInstanceById_p(gi, 1, &ci), NVML_SUCCESS);
	cr_assert_eq(n.nvmlGpuInstanceGetComputeInstanceById_p(gi, 2, &ci), NVML_ERROR_NOT_FOUND);
	cr_assert_eq(n.nvmlGpuInstanceGetComputeInstanceById_p(gi, 1, &ci), NVML_SUCCESS);
	cr_assert_eq(n.nvmlComputeInstanceGetInfo_v2_p(ci, &cii), NVML_SUCCESS);
	cr_assert_eq(cii.device, d);
	cr_assert_eq(cii.gpuInstance, gi);
	cr_assert_eq(cii.id, 1);
	cr_assert_eq(cii.placement.start, 1);
	cr_assert_eq(cii.placement.size, 1);
	cr_assert_eq(n.nvmlGpuInstanceGetComputeInstanceProfileInfo_p(
			     gi, NVML_COMPUTE_INSTANCE_PROFILE_3_SLICE,
			     NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED, &cp),
		     NVML_SUCCESS);
	cr_assert_eq(cp.sliceCount, 3);
	cr_assert_eq(cp.multiprocessorCount, 42);
	cr_assert_eq(n.nvmlGpuInstanceGetComputeInstanceProfileInfo_p(
			     gi, NVML_COMPUTE_INSTANCE_PROFILE_4_SLICE,
			     NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED, &cp),
		     NVML_ERROR_NOT_SUPPORTED, "a 4-slice CI does not fit a 3-slice GI");
	cr_assert_eq(n.nvmlDeviceGetGpuInstanceById_p(gpu(0), 1, &gi), NVML_ERROR_INVALID_ARGUMENT,
		     "MIG is off on GPU 0");
}

/* 64 GPUs x 7 MIG devices, as the big64 host: every handle distinct and consistent. */
Test(mock_nvml, sixty_four_gpus)
{
	size_t cap = 1 << 17, len = 0;
	char *text = malloc(cap), buf[96];
	unsigned count, u;
	nvmlDevice_t d, m, parent;

	cr_assert_not_null(text);
	len += (size_t)snprintf(text + len, cap - len, "max-mig 7\n");
	for (unsigned g = 0; g < 64; g++) {
		len += (size_t)snprintf(text + len, cap - len,
					"gpu %u minor=%u pci=%04x:%02x:00.0 "
					"uuid=GPU-00000000-0000-0000-0000-%012x mig=enabled\n",
					g, g, g / 8, 0x07 + g % 8, g);
		for (unsigned s = 0; s < 7; s++)
			len += (size_t)snprintf(
				text + len, cap - len,
				"mig %u gi=%u ci=0 giprofile=0 gistart=%u ciprofile=0 "
				"cistart=0 uuid=MIG-00000000-0000-0000-%04x-%012x\n",
				g, 7 + s, s, s, g);
	}
	cr_assert_lt(len, cap);
	start(text);
	free(text);
	cr_assert_eq(n.nvmlDeviceGetCount_v2_p(&count), NVML_SUCCESS);
	cr_assert_eq(count, 64);
	for (unsigned g = 0; g < 64; g++) {
		d = gpu(g);
		cr_assert_eq(n.nvmlDeviceGetMinorNumber_p(d, &u), NVML_SUCCESS);
		cr_assert_eq(u, g);
		for (unsigned s = 0; s < 7; s++) {
			m = mig(d, s);
			cr_assert_eq(n.nvmlDeviceGetDeviceHandleFromMigDeviceHandle_p(m, &parent),
				     NVML_SUCCESS);
			cr_assert_eq(parent, d);
			cr_assert_eq(n.nvmlDeviceGetGpuInstanceId_p(m, &u), NVML_SUCCESS);
			cr_assert_eq(u, 7 + s);
		}
	}
	cr_assert_eq(n.nvmlDeviceGetUUID_p(mig(gpu(63), 6), buf, sizeof(buf)), NVML_SUCCESS);
	cr_assert_str_eq(buf, "MIG-00000000-0000-0000-0006-00000000003f");
}

/* nvidia-ctk #77: drivers before R450 have no MIG symbols at all. */
Test(mock_nvml, old_driver_has_no_mig_symbols)
{
	char *path = lib_path("old/"), buf[80];
	unsigned count, u;
	int cuda;
	mock_nvmlPciInfo_v1_t pci;

	write_file(
		config,
		"driver 440.118.02\n"
		"cuda 10020\n"
		"name Tesla V100-SXM2-32GB\n"
		"gpu 0 minor=0 pci=0000:06:00.0 uuid=GPU-11111111-2222-3333-4444-555555555555\n"
		"gpu 1 minor=1 pci=0000:07:00.0 uuid=GPU-11111111-2222-3333-4444-555555555556\n");
	load(path);
	free(path);
	for (size_t i = 0; i < sizeof(mig_symbols) / sizeof(mig_symbols[0]); i++)
		cr_assert_null(dlsym(lib, mig_symbols[i]), "%s exported", mig_symbols[i]);
	cr_assert_null(n.nvmlDeviceGetAttributes_v2_p);
	cr_assert_null(n.nvmlDeviceGetArchitecture_p);
	cr_assert_eq(n.nvmlInit_v2_p(), NVML_SUCCESS);
	cr_assert_eq(n.nvmlSystemGetDriverVersion_p(buf, sizeof(buf)), NVML_SUCCESS);
	cr_assert_str_eq(buf, "440.118.02");
	cr_assert_eq(n.nvmlSystemGetCudaDriverVersion_p(&cuda), NVML_SUCCESS);
	cr_assert_eq(cuda, 10020);
	cr_assert_eq(n.nvmlDeviceGetCount_v2_p(&count), NVML_SUCCESS);
	cr_assert_eq(count, 2);
	cr_assert_eq(n.nvmlDeviceGetMinorNumber_p(gpu(1), &u), NVML_SUCCESS);
	cr_assert_eq(u, 1);
	cr_assert_eq(n.nvmlDeviceGetPciInfo_p(gpu(1), &pci), NVML_SUCCESS);
	cr_assert_str_eq(pci.busId, "0000:07:00.0");
	cr_assert_eq(n.nvmlDeviceGetName_p(gpu(0), buf, sizeof(buf)), NVML_SUCCESS);
	cr_assert_str_eq(buf, "Tesla V100-SXM2-32GB");
	cr_assert_eq(n.nvmlShutdown_p(), NVML_SUCCESS);
	/* Such a driver knows nothing of MIG: a topology with MIG devices is an error. */
	write_file(config,
		   "gpu 0 minor=0 pci=0000:06:00.0 uuid=GPU-a mig=enabled\n"
		   "mig 0 gi=0 ci=0 giprofile=4 gistart=0 ciprofile=4 cistart=0 uuid=MIG-a\n");
	cr_assert_eq(n.nvmlInit_v2_p(), NVML_ERROR_UNKNOWN);
}

Test(mock_nvml, old_driver_defaults)
{
	char *path = lib_path("old/"), buf[80];

	write_file(config, "gpu 0 minor=0 pci=0000:06:00.0 uuid=GPU-a\n");
	load(path);
	free(path);
	cr_assert_eq(n.nvmlInit_v2_p(), NVML_SUCCESS);
	cr_assert_eq(n.nvmlSystemGetDriverVersion_p(buf, sizeof(buf)), NVML_SUCCESS);
	cr_assert_str_eq(buf, "440.118.02");
}
