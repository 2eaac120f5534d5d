/* SPDX-License-Identifier: Apache-2.0 */
/*
 * GPUs and MIG devices from NVML, loaded with dlopen and resolved symbol by
 * symbol with dlsym, so the generator neither links against the driver nor
 * fails on an old driver that lacks the MIG calls (nvidia-ctk #77).
 * MIG mode and MIG device walking follow libnvidia-container (nvc_info.c)
 * and go-nvlib (VisitMigDevices).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "nvml.h"
#include "nvml_api.h"
#include "problem.h"
#include "host/procfs.h"

struct nvml {
	const char *lib; /* labels problems */
	void *dl;
	nvmlInit_v2_fn init;
	nvmlShutdown_fn shutdown;
	nvmlErrorString_fn error_string;
	nvmlSystemGetDriverVersion_fn driver_version;
	nvmlSystemGetCudaDriverVersion_fn cuda_version;
	nvmlDeviceGetCount_v2_fn count;
	nvmlDeviceGetHandleByIndex_v2_fn handle_by_index;
	nvmlDeviceGetName_fn name;
	nvmlDeviceGetUUID_fn uuid;
	nvmlDeviceGetPciInfo_v3_fn pci_info;
	nvmlDeviceGetMinorNumber_fn minor;
	/* Optional: facts for NVIDIA_REQUIRE_* (absent: unknown). */
	nvmlDeviceGetBrand_fn brand;
	nvmlDeviceGetCudaComputeCapability_fn compute_capability;
	/* Optional: absent before R450 (MIG). */
	nvmlDeviceGetMigMode_fn mig_mode;
	nvmlDeviceGetMaxMigDeviceCount_fn max_mig_count;
	nvmlDeviceGetMigDeviceHandleByIndex_fn mig_handle_by_index;
	nvmlDeviceGetGpuInstanceId_fn gi_id;
	nvmlDeviceGetComputeInstanceId_fn ci_id;
};

/*
 * Every function by name, newest version first. nvmlDeviceGetPciInfo
 * (v1) and _v2 fill busId/domain/bus/device at offsets compatible with
 * nvmlPciInfo_t, so any of them will do.
 */
#define NAMES(...) ((const char *const[]){ __VA_ARGS__, NULL })
static const struct nvml_symbol {
	size_t offset;
	bool optional;
	const char *const *names;
} nvml_symbols[] = {
	{ offsetof(struct nvml, init), false, NAMES("nvmlInit_v2", "nvmlInit") },
	{ offsetof(struct nvml, shutdown), false, NAMES("nvmlShutdown") },
	{ offsetof(struct nvml, error_string), true, NAMES("nvmlErrorString") },
	{ offsetof(struct nvml, driver_version), false, NAMES("nvmlSystemGetDriverVersion") },
	{ offsetof(struct nvml, cuda_version), true,
	  NAMES("nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion") },
	{ offsetof(struct nvml, count), false,
	  NAMES("nvmlDeviceGetCount_v2", "nvmlDeviceGetCount") },
	{ offsetof(struct nvml, handle_by_index), false,
	  NAMES("nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex") },
	{ offsetof(struct nvml, name), false, NAMES("nvmlDeviceGetName") },
	{ offsetof(struct nvml, uuid), false, NAMES("nvmlDeviceGetUUID") },
	{ offsetof(struct nvml, pci_info), false,
	  NAMES("nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2", "nvmlDeviceGetPciInfo") },
	{ offsetof(struct nvml, minor), false, NAMES("nvmlDeviceGetMinorNumber") },
	{ offsetof(struct nvml, brand), true, NAMES("nvmlDeviceGetBrand") },
	{ offsetof(struct nvml, compute_capability), true,
	  NAMES("nvmlDeviceGetCudaComputeCapability") },
	{ offsetof(struct nvml, mig_mode), true, NAMES("nvmlDeviceGetMigMode") },
	{ offsetof(struct nvml, max_mig_count), true, NAMES("nvmlDeviceGetMaxMigDeviceCount") },
	{ offsetof(struct nvml, mig_handle_by_index), true,
	  NAMES("nvmlDeviceGetMigDeviceHandleByIndex") },
	{ offsetof(struct nvml, gi_id), true, NAMES("nvmlDeviceGetGpuInstanceId") },
	{ offsetof(struct nvml, ci_id), true, NAMES("nvmlDeviceGetComputeInstanceId") },
};

static const char *nvml_strerror(const struct nvml *n, nvmlReturn_t r)
{
	const char *s = n->error_string ? n->error_string(r) : NULL;

	return s && *s ? s : "unknown NVML error";
}

/* "lib: fn (GPU 3): text (NVML error 999)" */
static int nvml_fail(const struct nvml *n, const char *fn, long gpu, long mig, nvmlReturn_t r,
		     struct cdi_error *err)
{
	char where[48] = "";

	if (gpu >= 0 && mig >= 0)
		snprintf(where, sizeof(where), " (GPU %ld, MIG %ld)", gpu, mig);
	else if (gpu >= 0)
		snprintf(where, sizeof(where), " (GPU %ld)", gpu);
	return cdi_problem_add(err, -EIO, n->lib, 0, 0, NULL, "%s%s: %s (NVML error %d)", fn, where,
			       nvml_strerror(n, r), (int)r);
}

static int nvml_open(const char *lib, struct nvml *ret, struct cdi_error *err)
{
	struct nvml n = { .lib = lib };

	n.dl = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!n.dl) {
		const char *e = dlerror();

		return cdi_problem_add(err, -ELIBACC, lib, 0, 0, NULL, "cannot load NVML: %s",
				       e ? e : "dlopen failed");
	}
	for (size_t i = 0; i < ELEMENTSOF(nvml_symbols); i++) {
		const struct nvml_symbol *s = &nvml_symbols[i];
		void *f = NULL;

		for (const char *const *name = s->names; *name && !f; name++)
			f = dlsym(n.dl, *name);
		if (!f && !s->optional) {
			dlclose(n.dl);
			return cdi_problem_add(err, -ELIBBAD, lib, 0, 0, NULL,
					       "NVML has no %s: not a usable libnvidia-ml",
					       s->names[0]);
		}
		memcpy((char *)&n + s->offset, &f, sizeof(f));
	}
	*ret = n;
	return 0;
}

/* NVML strings are NUL-terminated within the buffer; do not trust that. */
static void terminate(char *buf, size_t size)
{
	buf[size - 1] = '\0';
}

static int gpu_bus_id(const struct nvml *n, nvmlDevice_t dev, unsigned i, char out[GPU_BUSID_MAX],
		      struct cdi_error *err)
{
	nvmlPciInfo_t pci;
	nvmlReturn_t r;
	char tmp[GPU_BUSID_MAX];

	memset(&pci, 0, sizeof(pci));
	r = n->pci_info(dev, &pci);
	if (r != NVML_SUCCESS)
		return nvml_fail(n, "nvmlDeviceGetPciInfo", i, -1, r, err);
	terminate(pci.busId, sizeof(pci.busId));
	terminate(pci.busIdLegacy, sizeof(pci.busIdLegacy));
	if (pci_bus_id_normalize(pci.busId, out) == 0 ||
	    pci_bus_id_normalize(pci.busIdLegacy, out) == 0)
		return 0;
	snprintf(tmp, sizeof(tmp), "%08x:%02x:%02x.0", pci.domain, pci.bus & 0xff,
		 pci.device & 0x1f);
	if (pci_bus_id_normalize(tmp, out) == 0)
		return 0;
	return cdi_problem_add(err, -EIO, n->lib, 0, 0, NULL,
			       "nvmlDeviceGetPciInfo (GPU %u): no PCI bus id", i);
}

/* libnvidia-container's rule: enabled only when the current mode is ENABLE and no change is
 * pending. */
static int gpu_mig_enabled(const struct nvml *n, nvmlDevice_t dev, unsigned i, bool *ret,
			   struct cdi_error *err)
{
	unsigned current = NVML_DEVICE_MIG_DISABLE, pending = NVML_DEVICE_MIG_DISABLE;
	nvmlReturn_t r;

	*ret = false;
	if (!n->mig_mode)
		return 0;
	r = n->mig_mode(dev, &current, &pending);
	if (r == NVML_ERROR_NOT_SUPPORTED || r == NVML_ERROR_FUNCTION_NOT_FOUND)
		return 0;
	if (r != NVML_SUCCESS)
		return nvml_fail(n, "nvmlDeviceGetMigMode", i, -1, r, err);
	*ret = current == NVML_DEVICE_MIG_ENABLE && current == pending;
	return 0;
}

static int gpu_migs(const struct nvml *n, nvmlDevice_t dev, struct gpu_device *gpu,
		    struct cdi_error *err)
{
	const char *missing = !n->max_mig_count		? "nvmlDeviceGetMaxMigDeviceCount"
			      : !n->mig_handle_by_index ? "nvmlDeviceGetMigDeviceHandleByIndex"
			      : !n->gi_id		? "nvmlDeviceGetGpuInstanceId"
			      : !n->ci_id		? "nvmlDeviceGetComputeInstanceId"
							: NULL;
	unsigned count = 0;
	nvmlReturn_t r;

	if (missing)
		return cdi_problem_add(err, -ELIBBAD, n->lib, 0, 0, NULL,
				       "GPU %u is in MIG mode but NVML has no %s", gpu->index,
				       missing);
	r = n->max_mig_count(dev, &count);
	if (r != NVML_SUCCESS)
		return nvml_fail(n, "nvmlDeviceGetMaxMigDeviceCount", gpu->index, -1, r, err);
	if (count > GPU_MAX_MIGS)
		return cdi_problem_add(
			err, -E2BIG, n->lib, 0, 0, NULL,
			"nvmlDeviceGetMaxMigDeviceCount (GPU %u): %u, at most %d supported",
			gpu->index, count, GPU_MAX_MIGS);
	if (count == 0)
		return 0;
	gpu->migs = calloc(count, sizeof(*gpu->migs));
	if (!gpu->migs)
		return cdi_fail(err, -ENOMEM, "out of memory");
	for (unsigned j = 0; j < count; j++) {
		struct mig_device *mig = &gpu->migs[gpu->n_migs];
		nvmlDevice_t mdev = NULL;

		r = n->mig_handle_by_index(dev, j, &mdev);
		/* Slots without a MIG device: go-nvlib skips them and so do we. */
		if (r == NVML_ERROR_NOT_FOUND || r == NVML_ERROR_INVALID_ARGUMENT)
			continue;
		if (r != NVML_SUCCESS)
			return nvml_fail(n, "nvmlDeviceGetMigDeviceHandleByIndex", gpu->index, j, r,
					 err);
		mig->index = j;
		mig->gi_node = mig->ci_node = INV_NO_NODE;
		r = n->gi_id(mdev, &mig->gi);
		if (r != NVML_SUCCESS)
			return nvml_fail(n, "nvmlDeviceGetGpuInstanceId", gpu->index, j, r, err);
		r = n->ci_id(mdev, &mig->ci);
		if (r != NVML_SUCCESS)
			return nvml_fail(n, "nvmlDeviceGetComputeInstanceId", gpu->index, j, r,
					 err);
		r = n->uuid(mdev, mig->uuid, sizeof(mig->uuid));
		if (r != NVML_SUCCESS)
			return nvml_fail(n, "nvmlDeviceGetUUID", gpu->index, j, r, err);
		terminate(mig->uuid, sizeof(mig->uuid));
		if (strncmp(mig->uuid, "MIG-", 4) != 0)
			return cdi_problem_add(
				err, -EIO, n->lib, 0, 0, NULL,
				"nvmlDeviceGetUUID (GPU %u, MIG %u): \"%s\" is not a MIG UUID",
				gpu->index, j, mig->uuid);
		gpu->n_migs++;
	}
	return 0;
}

/* libnvidia-container's brand names (nvc_info.c): the others are all "Unknown". */
static const char *brand_name(nvmlBrandType_t brand)
{
	switch (brand) {
	case NVML_BRAND_QUADRO:
		return "Quadro";
	case NVML_BRAND_TESLA:
		return "Tesla";
	case NVML_BRAND_NVS:
		return "NVS";
	case NVML_BRAND_GRID:
		return "GRID";
	case NVML_BRAND_GEFORCE:
		return "GeForce";
	case NVML_BRAND_TITAN:
		return "TITAN";
	default:
		return "Unknown";
	}
}

/* Brand and compute capability: facts for NVIDIA_REQUIRE_*, left unknown when NVML lacks them. */
static void gpu_facts(const struct nvml *n, nvmlDevice_t dev, struct gpu_device *gpu)
{
	nvmlBrandType_t brand = NVML_BRAND_UNKNOWN;
	int major = 0, minor = 0;

	if (n->brand && n->brand(dev, &brand) == NVML_SUCCESS)
		gpu->brand = brand_name(brand);
	if (n->compute_capability && n->compute_capability(dev, &major, &minor) == NVML_SUCCESS &&
	    major >= 0 && major < 1000 && minor >= 0 && minor < 1000)
		snprintf(gpu->arch, sizeof(gpu->arch), "%d.%d", major, minor);
}

/* One GPU's identity: UUID, model, minor (unique among those before it), bus id. */
static int gpu_identity(const struct nvml *n, nvmlDevice_t dev, struct gpu_device *gpus, unsigned i,
			struct cdi_error *err)
{
	struct gpu_device *gpu = &gpus[i];
	nvmlReturn_t r;

	r = n->uuid(dev, gpu->uuid, sizeof(gpu->uuid));
	if (r != NVML_SUCCESS)
		return nvml_fail(n, "nvmlDeviceGetUUID", i, -1, r, err);
	terminate(gpu->uuid, sizeof(gpu->uuid));
	if (strncmp(gpu->uuid, "GPU-", 4) != 0)
		return cdi_problem_add(err, -EIO, n->lib, 0, 0, NULL,
				       "nvmlDeviceGetUUID (GPU %u): \"%s\" is not a GPU UUID", i,
				       gpu->uuid);
	r = n->name(dev, gpu->name, sizeof(gpu->name));
	if (r != NVML_SUCCESS)
		return nvml_fail(n, "nvmlDeviceGetName", i, -1, r, err);
	terminate(gpu->name, sizeof(gpu->name));
	r = n->minor(dev, &gpu->minor);
	if (r != NVML_SUCCESS)
		return nvml_fail(n, "nvmlDeviceGetMinorNumber", i, -1, r, err);
	if (gpu->minor > PROCFS_MAX_DEVICE_MINOR)
		return cdi_problem_add(err, -EIO, n->lib, 0, 0, NULL,
				       "nvmlDeviceGetMinorNumber (GPU %u): %u is not a GPU minor",
				       i, gpu->minor);
	for (unsigned j = 0; j < i; j++)
		if (gpus[j].minor == gpu->minor)
			return cdi_problem_add(
				err, -EIO, n->lib, 0, 0, NULL,
				"nvmlDeviceGetMinorNumber: GPUs %u and %u both have minor %u", j, i,
				gpu->minor);
	return gpu_bus_id(n, dev, i, gpu->bus_id, err);
}

static int nvml_gpu(const struct nvml *n, struct gpu_device *gpus, unsigned i,
		    struct cdi_error *err)
{
	struct gpu_device *gpu = &gpus[i];
	nvmlDevice_t dev = NULL;
	nvmlReturn_t r;
	int k;

	gpu->index = i;
	gpu->node = INV_NO_NODE;
	r = n->handle_by_index(i, &dev);
	if (r != NVML_SUCCESS)
		return nvml_fail(n, "nvmlDeviceGetHandleByIndex", i, -1, r, err);
	k = gpu_identity(n, dev, gpus, i, err);
	if (k < 0)
		return k;
	gpu_facts(n, dev, gpu);
	k = gpu_mig_enabled(n, dev, i, &gpu->mig_enabled, err);
	if (k < 0 || !gpu->mig_enabled)
		return k;
	return gpu_migs(n, dev, gpu, err);
}

/* Driver and CUDA versions, then every GPU. */
static int nvml_walk(const struct nvml *n, struct inventory *inv, struct cdi_error *err)
{
	unsigned count = 0;
	nvmlReturn_t r;
	int k;

	r = n->driver_version(inv->driver_version, sizeof(inv->driver_version));
	if (r != NVML_SUCCESS)
		return nvml_fail(n, "nvmlSystemGetDriverVersion", -1, -1, r, err);
	terminate(inv->driver_version, sizeof(inv->driver_version));
	if (inv->driver_version[0] == '\0')
		return cdi_problem_add(err, -EIO, n->lib, 0, 0, NULL,
				       "nvmlSystemGetDriverVersion: empty version");
	if (n->cuda_version && n->cuda_version(&inv->cuda_version) != NVML_SUCCESS)
		inv->cuda_version = 0; /* a fact for NVIDIA_REQUIRE_CUDA; unknown is allowed */

	r = n->count(&count);
	if (r != NVML_SUCCESS)
		return nvml_fail(n, "nvmlDeviceGetCount", -1, -1, r, err);
	if (count > GPU_MAX_COUNT)
		return cdi_problem_add(err, -E2BIG, n->lib, 0, 0, NULL,
				       "nvmlDeviceGetCount: %u GPUs, at most %d supported", count,
				       GPU_MAX_COUNT);
	if (count == 0)
		return 0;
	inv->gpus = calloc(count, sizeof(*inv->gpus));
	if (!inv->gpus)
		return cdi_fail(err, -ENOMEM, "out of memory");
	for (unsigned i = 0; i < count; i++) {
		inv->n_gpus = i + 1;
		k = nvml_gpu(n, inv->gpus, i, err);
		if (k < 0)
			return k;
	}
	return 0;
}

int nvml_enumerate(const char *lib_path, struct inventory *inv, struct cdi_error *err)
{
	struct inventory found = { 0 };
	struct nvml n;
	nvmlReturn_t r;
	int k;

	k = nvml_open(lib_path, &n, err);
	if (k < 0)
		return k;
	r = n.init();
	if (r != NVML_SUCCESS) {
		k = nvml_fail(&n, "nvmlInit", -1, -1, r, err);
		dlclose(n.dl);
		return k;
	}
	k = nvml_walk(&n, &found, err);
	n.shutdown();
	dlclose(n.dl);
	if (k < 0) {
		gpu_devices_free(found.gpus, found.n_gpus);
		return k;
	}
	memcpy(inv->driver_version, found.driver_version, sizeof(inv->driver_version));
	inv->cuda_version = found.cuda_version;
	gpu_devices_free(inv->gpus, inv->n_gpus);
	inv->gpus = found.gpus;
	inv->n_gpus = found.n_gpus;
	return 0;
}
