/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A mock libnvidia-ml.so.1 for tests: the NVML calls cdikit (and
 * libnvidia-container / nvidia-ctk) make, answering from a topology file read
 * at nvmlInit. The file is $CDIKIT_MOCK_NVML_CONFIG, else mock-nvml.conf in
 * the directory of this library file (dladdr), so a simulated host that ships
 * the mock as its libnvidia-ml.so.<ver> with the config beside it works with
 * no environment. Format: tests/simhost/README.md.
 *
 * Behaviour follows the NVML documentation: calls before nvmlInit (or after
 * the last nvmlShutdown) return UNINITIALIZED, short buffers
 * INSUFFICIENT_SIZE, bad indexes and handles INVALID_ARGUMENT, a MIG slot
 * below the maximum that holds no MIG device NOT_FOUND, MIG queries on a GPU
 * that cannot do MIG NOT_SUPPORTED. Built with -DMOCK_OLD_DRIVER it exports no
 * MIG symbol at all, like drivers before R450 (nvidia-ctk issue #77).
 */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mock-nvml.h"

#define MOCK_API __attribute__((visibility("default")))
#define MOCK_ALIAS(name) __attribute__((visibility("default"), alias(#name)))

#define CONFIG_NAME "mock-nvml.conf"
#define CONFIG_MAX_BYTES (4 << 20)
#define MAX_GPUS 1024
#define MAX_MIG_SLOTS 8
#define UUID_MAX NVML_DEVICE_UUID_V2_BUFFER_SIZE
#define NAME_MAX_LEN NVML_DEVICE_NAME_V2_BUFFER_SIZE
#define VERSION_MAX NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE

/* What a config does not say: a DGX A100 on R550, or a DGX-1 V100 on R440. */
#ifndef MOCK_OLD_DRIVER
#define DEFAULT_DRIVER "550.54.15"
#define DEFAULT_NVML "12.550.54.15"
#define DEFAULT_CUDA 12040
#define DEFAULT_MAX_MIGS 7
#define DEFAULT_NAME "NVIDIA A100-SXM4-40GB"
#define DEFAULT_PCI_DEVICE_ID 0x20B010DE
#define DEFAULT_PCI_SUBSYSTEM_ID 0x134F10DE
#define DEFAULT_MEMORY_MB 40960
#define DEFAULT_CC_MAJOR 8
#define DEFAULT_BRAND NVML_BRAND_NVIDIA
#define DEFAULT_ARCH NVML_DEVICE_ARCH_AMPERE
#else
#define DEFAULT_DRIVER "440.118.02"
#define DEFAULT_NVML "10.440.118.02"
#define DEFAULT_CUDA 10020
#define DEFAULT_MAX_MIGS 0
#define DEFAULT_NAME "Tesla V100-SXM2-32GB"
#define DEFAULT_PCI_DEVICE_ID 0x1DB510DE
#define DEFAULT_PCI_SUBSYSTEM_ID 0x124910DE
#define DEFAULT_MEMORY_MB 32510
#define DEFAULT_CC_MAJOR 7
#define DEFAULT_BRAND NVML_BRAND_TESLA
#define DEFAULT_ARCH NVML_DEVICE_ARCH_VOLTA
#endif

/* A handle is the address of one of these, inside the arrays of struct mock. */
struct nvmlDevice_st {
	unsigned gpu; /* index of the GPU (the parent, for a MIG device) */
	int mig;      /* index into mock.migs, -1 for a full GPU */
};

struct nvmlGpuInstance_st {
	unsigned gpu;
	unsigned id;
	unsigned profile;
	unsigned start;
};

struct nvmlComputeInstance_st {
	size_t mig; /* index into mock.migs */
};

enum mig_support {
	MIG_UNSUPPORTED,
	MIG_DISABLED,
	MIG_ENABLED,
	MIG_PENDING_ENABLE,
	MIG_PENDING_DISABLE
};

struct mock_gpu {
	struct nvmlDevice_st handle; /* first: the handle's address is the entry's */
	unsigned minor;
	unsigned domain, bus, device;
	unsigned pci_device_id, pci_subsystem_id;
	char uuid[UUID_MAX];
	char name[NAME_MAX_LEN];
	unsigned long long memory_mb;
	int cc_major, cc_minor;
	unsigned brand, arch;
	enum mig_support mig;
	size_t first_mig, n_migs; /* range in mock.migs, in slot order */
	size_t first_gi, n_gis;	  /* range in mock.gis */
};

struct mock_mig {
	struct nvmlDevice_st handle; /* first, as in struct mock_gpu */
	struct nvmlComputeInstance_st ci_handle;
	unsigned slot; /* nvmlDeviceGetMigDeviceHandleByIndex index */
	unsigned ci, ci_profile, ci_start;
	size_t gi; /* index into mock.gis */
	char uuid[UUID_MAX];
};

struct mock_gi {
	struct nvmlGpuInstance_st handle; /* first */
};

struct mock {
	unsigned refcount;
	char driver[VERSION_MAX];
	char nvml[VERSION_MAX];
	int cuda;
	unsigned max_migs;
	nvmlReturn_t init_error;
	struct mock_gpu *gpus;
	size_t n_gpus;
	struct mock_mig *migs;
	size_t n_migs;
	struct mock_gi *gis;
	size_t n_gis;
};

static struct mock mock;

/*
 * A100 GPU instance profiles (go-nvml dgxa100 mock, NVIDIA MIG user guide),
 * indexed by NVML profile id. mem_40/mem_80: MiB for the 40 and 80 GB boards.
 */
struct gi_profile {
	bool valid;
	unsigned slices, mem_slices, instances, sms, ce, dec, enc, jpeg, ofa;
	unsigned mem_40, mem_80;
	const char *suffix; /* "+me" for the media-extension profile */
};

static const struct gi_profile gi_profiles[NVML_GPU_INSTANCE_PROFILE_COUNT] = {
	[0x0] = { true, 1, 1, 7, 14, 1, 0, 0, 0, 0, 4864, 9856, "" },
	[0x1] = { true, 2, 2, 3, 28, 2, 1, 0, 0, 0, 9856, 19968, "" },
	[0x2] = { true, 3, 4, 2, 42, 3, 2, 0, 0, 0, 19968, 40192, "" },
	[0x3] = { true, 4, 4, 1, 56, 4, 2, 0, 0, 0, 19968, 40192, "" },
	[0x4] = { true, 7, 8, 1, 98, 7, 5, 0, 1, 1, 40192, 80384, "" },
	[0x7] = { true, 1, 1, 1, 14, 1, 1, 0, 1, 1, 4864, 9856, "+me" },
	[0x9] = { true, 1, 2, 4, 14, 1, 1, 0, 0, 0, 9856, 19968, "" },
};

/* Compute instance profile id → compute slices. */
static const unsigned ci_slices[NVML_COMPUTE_INSTANCE_PROFILE_COUNT] = {
	1, 2, 3, 4, 7, 8, 6, 1, 7
};

static unsigned gi_profile_mem(const struct mock_gpu *gpu, unsigned profile)
{
	return gpu->memory_mb > 40960 ? gi_profiles[profile].mem_80 : gi_profiles[profile].mem_40;
}

static void mock_free(void)
{
	free(mock.gpus);
	free(mock.migs);
	free(mock.gis);
	memset(&mock, 0, sizeof(mock));
}

/* ---------------------------------------------------------------- config */

struct parser {
	const char *path;
	unsigned line;
	/* defaults applied to the gpu lines that follow */
	char name[NAME_MAX_LEN];
	unsigned pci_device_id, pci_subsystem_id;
	unsigned long long memory_mb;
	int cc_major, cc_minor;
	unsigned brand, arch;
	size_t cap_gpus, cap_migs, cap_gis;
	bool minor_used[256];
};

static nvmlReturn_t parse_error(const struct parser *p, const char *what, const char *arg)
{
	fprintf(stderr, "mock-nvml: %s:%u: %s%s%s\n", p->path, p->line, what, arg ? ": " : "",
		arg ? arg : "");
	return NVML_ERROR_UNKNOWN;
}

static bool parse_uint(const char *s, unsigned long max, unsigned *ret)
{
	char *end;
	unsigned long v;

	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || v > max)
		return false;
	*ret = (unsigned)v;
	return true;
}

static bool copy_str(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);

	if (n == 0 || n >= size)
		return false;
	memcpy(dst, src, n + 1);
	return true;
}

static void *grow(void *array, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 8;
	void *p;

	if (need <= *cap)
		return array;
	while (n < need)
		n *= 2;
	p = realloc(array, n * elem);
	if (!p)
		return NULL;
	memset((char *)p + *cap * elem, 0, (n - *cap) * elem);
	*cap = n;
	return p;
}

/* "gpu <index> minor=<n> pci=<domain>:<bus>:<dev>.0 uuid=GPU-... mig=<mode>" */
static nvmlReturn_t parse_gpu(struct parser *p, char *args)
{
	struct mock_gpu *gpu;
	char *save = NULL, *tok;
	unsigned index;
	bool have_minor = false, have_pci = false, have_uuid = false;

	tok = strtok_r(args, " \t", &save);
	if (!parse_uint(tok, MAX_GPUS - 1, &index) || index != mock.n_gpus)
		return parse_error(p, "gpu lines must number GPUs 0, 1, ... in order", tok);
	mock.gpus = grow(mock.gpus, &p->cap_gpus, mock.n_gpus + 1, sizeof(*mock.gpus));
	if (!mock.gpus)
		return NVML_ERROR_UNKNOWN;
	gpu = &mock.gpus[mock.n_gpus];
	*gpu = (struct mock_gpu){
		.handle = { .gpu = index, .mig = -1 },
		.pci_device_id = p->pci_device_id,
		.pci_subsystem_id = p->pci_subsystem_id,
		.memory_mb = p->memory_mb,
		.cc_major = p->cc_major,
		.cc_minor = p->cc_minor,
		.brand = p->brand,
		.arch = p->arch,
		.mig = MIG_UNSUPPORTED,
		.first_mig = mock.n_migs,
		.first_gi = mock.n_gis,
	};
	memcpy(gpu->name, p->name, sizeof(gpu->name));

	while ((tok = strtok_r(NULL, " \t", &save))) {
		char *val = strchr(tok, '=');

		if (!val)
			return parse_error(p, "expected key=value", tok);
		*val++ = '\0';
		if (!strcmp(tok, "minor")) {
			if (!parse_uint(val, 253, &gpu->minor))
				return parse_error(p, "bad minor (0..253)", val);
			have_minor = true;
		} else if (!strcmp(tok, "pci")) {
			char tail;

			if (sscanf(val, "%x:%x:%x.0%c", &gpu->domain, &gpu->bus, &gpu->device,
				   &tail) != 3 ||
			    gpu->domain > 0xffff || gpu->bus > 0xff || gpu->device > 0x1f)
				return parse_error(p, "bad pci bus id (dddd:bb:dd.0)", val);
			have_pci = true;
		} else if (!strcmp(tok, "uuid")) {
			if (strncmp(val, "GPU-", 4) || !copy_str(gpu->uuid, sizeof(gpu->uuid), val))
				return parse_error(p, "bad GPU uuid", val);
			have_uuid = true;
		} else if (!strcmp(tok, "mig")) {
			if (!strcmp(val, "unsupported"))
				gpu->mig = MIG_UNSUPPORTED;
			else if (!strcmp(val, "disabled"))
				gpu->mig = MIG_DISABLED;
			else if (!strcmp(val, "enabled"))
				gpu->mig = MIG_ENABLED;
			else if (!strcmp(val, "pending-enable"))
				gpu->mig = MIG_PENDING_ENABLE;
			else if (!strcmp(val, "pending-disable"))
				gpu->mig = MIG_PENDING_DISABLE;
			else
				return parse_error(p, "bad mig mode", val);
#ifdef MOCK_OLD_DRIVER
			if (gpu->mig != MIG_UNSUPPORTED)
				return parse_error(p, "this driver predates MIG", val);
#endif
		} else {
			return parse_error(p, "unknown gpu key", tok);
		}
	}
	if (!have_minor || !have_pci || !have_uuid)
		return parse_error(p, "gpu needs minor=, pci= and uuid=", NULL);
	if (p->minor_used[gpu->minor])
		return parse_error(p, "duplicate minor", NULL);
	p->minor_used[gpu->minor] = true;
	mock.n_gpus++;
	return NVML_SUCCESS;
}

/* Lookups stay within one GPU's entries, so a 64-GPU topology costs linear time. */
static size_t find_gi(unsigned gpu, unsigned id)
{
	const struct mock_gpu *g = &mock.gpus[gpu];

	for (size_t i = g->first_gi; i < g->first_gi + g->n_gis; i++)
		if (mock.gis[i].handle.id == id)
			return i;
	return SIZE_MAX;
}

/*
 * "mig <gpu> gi=<G> ci=<C> giprofile=<p> gistart=<s> ciprofile=<p> cistart=<s>
 *  uuid=MIG-... [slot=<n>]": one MIG device of the last GPU; slots default to
 * 0, 1, ... in line order.
 */
static nvmlReturn_t parse_mig(struct parser *p, char *args)
{
	struct mock_gpu *gpu;
	struct mock_mig *mig;
	char *save = NULL, *tok;
	unsigned gpu_index, gi = UINT_MAX, gi_profile = UINT_MAX, gi_start = UINT_MAX;
	bool have_ci = false, have_uuid = false, have_ci_profile = false, have_slot = false;
	size_t gi_idx;

#ifdef MOCK_OLD_DRIVER
	return parse_error(p, "this driver predates MIG", NULL);
#endif
	tok = strtok_r(args, " \t", &save);
	if (!parse_uint(tok, MAX_GPUS - 1, &gpu_index) || mock.n_gpus == 0 ||
	    gpu_index != mock.n_gpus - 1)
		return parse_error(p, "mig lines follow the gpu line they belong to", tok);
	gpu = &mock.gpus[gpu_index];
	if (gpu->n_migs >= MAX_MIG_SLOTS)
		return parse_error(p, "too many MIG devices on one GPU", NULL);
	mock.migs = grow(mock.migs, &p->cap_migs, mock.n_migs + 1, sizeof(*mock.migs));
	if (!mock.migs)
		return NVML_ERROR_UNKNOWN;
	mig = &mock.migs[mock.n_migs];
	*mig = (struct mock_mig){
		.handle = { .gpu = gpu_index, .mig = (int)mock.n_migs },
		.ci_handle = { .mig = mock.n_migs },
		.slot = (unsigned)gpu->n_migs,
	};

	while ((tok = strtok_r(NULL, " \t", &save))) {
		char *val = strchr(tok, '=');
		bool ok;

		if (!val)
			return parse_error(p, "expected key=value", tok);
		*val++ = '\0';
		if (!strcmp(tok, "gi"))
			ok = parse_uint(val, 14, &gi);
		else if (!strcmp(tok, "ci"))
			ok = have_ci = parse_uint(val, 7, &mig->ci);
		else if (!strcmp(tok, "giprofile"))
			ok = parse_uint(val, NVML_GPU_INSTANCE_PROFILE_COUNT - 1, &gi_profile) &&
			     gi_profiles[gi_profile].valid;
		else if (!strcmp(tok, "gistart"))
			ok = parse_uint(val, 7, &gi_start);
		else if (!strcmp(tok, "ciprofile"))
			ok = have_ci_profile = parse_uint(
				val, NVML_COMPUTE_INSTANCE_PROFILE_COUNT - 1, &mig->ci_profile);
		else if (!strcmp(tok, "cistart"))
			ok = parse_uint(val, 7, &mig->ci_start);
		else if (!strcmp(tok, "slot"))
			ok = have_slot = parse_uint(val, MAX_MIG_SLOTS - 1, &mig->slot);
		else if (!strcmp(tok, "uuid"))
			ok = have_uuid = !strncmp(val, "MIG-", 4) &&
					 copy_str(mig->uuid, sizeof(mig->uuid), val);
		else
			return parse_error(p, "unknown mig key", tok);
		if (!ok)
			return parse_error(p, "bad value", tok);
	}
	if (gi == UINT_MAX || gi_profile == UINT_MAX || gi_start == UINT_MAX || !have_ci ||
	    !have_ci_profile || !have_uuid)
		return parse_error(
			p, "mig needs gi=, ci=, giprofile=, gistart=, ciprofile=, uuid=", NULL);
	if (have_slot && gpu->n_migs > 0 && mig->slot <= mock.migs[mock.n_migs - 1].slot)
		return parse_error(p, "mig slots must increase", NULL);

	gi_idx = find_gi(gpu_index, gi);
	if (gi_idx == SIZE_MAX) {
		mock.gis = grow(mock.gis, &p->cap_gis, mock.n_gis + 1, sizeof(*mock.gis));
		if (!mock.gis)
			return NVML_ERROR_UNKNOWN;
		gi_idx = mock.n_gis++;
		gpu->n_gis++;
		mock.gis[gi_idx].handle = (struct nvmlGpuInstance_st){
			.gpu = gpu_index, .id = gi, .profile = gi_profile, .start = gi_start
		};
	} else if (mock.gis[gi_idx].handle.profile != gi_profile ||
		   mock.gis[gi_idx].handle.start != gi_start) {
		return parse_error(p, "one GI, two profiles or placements", NULL);
	}
	mig->gi = gi_idx;
	for (size_t i = gpu->first_mig; i < mock.n_migs; i++) {
		if (mock.migs[i].gi == gi_idx && mock.migs[i].ci == mig->ci)
			return parse_error(p, "duplicate gi/ci", NULL);
	}
	gpu->n_migs++;
	mock.n_migs++;
	return NVML_SUCCESS;
}

static nvmlReturn_t parse_line(struct parser *p, char *line)
{
	char *key, *rest;
	unsigned v;

	while (isspace((unsigned char)*line))
		line++;
	if (*line == '\0' || *line == '#')
		return NVML_SUCCESS;
	rest = line + strcspn(line, " \t");
	if (*rest)
		*rest++ = '\0';
	while (isspace((unsigned char)*rest))
		rest++;
	key = line;

	if (!strcmp(key, "gpu"))
		return parse_gpu(p, rest);
	if (!strcmp(key, "mig"))
		return parse_mig(p, rest);
	if (!strcmp(key, "name"))
		return copy_str(p->name, sizeof(p->name), rest) ? NVML_SUCCESS
								: parse_error(p, "bad name", rest);
	if (!strcmp(key, "driver"))
		return copy_str(mock.driver, sizeof(mock.driver), rest)
			       ? NVML_SUCCESS
			       : parse_error(p, "bad driver version", rest);
	if (!strcmp(key, "nvml"))
		return copy_str(mock.nvml, sizeof(mock.nvml), rest)
			       ? NVML_SUCCESS
			       : parse_error(p, "bad NVML version", rest);
	if (!strcmp(key, "cuda")) {
		if (!parse_uint(rest, INT_MAX, &v))
			return parse_error(p, "bad cuda version", rest);
		mock.cuda = (int)v;
		return NVML_SUCCESS;
	}
	if (!strcmp(key, "max-mig")) {
		if (!parse_uint(rest, MAX_MIG_SLOTS, &mock.max_migs))
			return parse_error(p, "bad max-mig (0..8)", rest);
		return NVML_SUCCESS;
	}
	if (!strcmp(key, "init-error")) {
		if (!parse_uint(rest, 999, &v))
			return parse_error(p, "bad init-error", rest);
		mock.init_error = (nvmlReturn_t)v;
		return NVML_SUCCESS;
	}
	if (!strcmp(key, "pci-device-id"))
		return parse_uint(rest, UINT_MAX, &p->pci_device_id)
			       ? NVML_SUCCESS
			       : parse_error(p, "bad pci-device-id", rest);
	if (!strcmp(key, "pci-subsystem-id"))
		return parse_uint(rest, UINT_MAX, &p->pci_subsystem_id)
			       ? NVML_SUCCESS
			       : parse_error(p, "bad pci-subsystem-id", rest);
	if (!strcmp(key, "memory-mib")) {
		if (!parse_uint(rest, 1u << 24, &v) || v == 0)
			return parse_error(p, "bad memory-mib", rest);
		p->memory_mb = v;
		return NVML_SUCCESS;
	}
	if (!strcmp(key, "compute-capability")) {
		int a, b;
		char tail;

		if (sscanf(rest, "%d.%d%c", &a, &b, &tail) != 2 || a < 1 || a > 99 || b < 0 ||
		    b > 9)
			return parse_error(p, "bad compute-capability (M.m)", rest);
		p->cc_major = a;
		p->cc_minor = b;
		return NVML_SUCCESS;
	}
	if (!strcmp(key, "brand"))
		return parse_uint(rest, 17, &p->brand) ? NVML_SUCCESS
						       : parse_error(p, "bad brand", rest);
	if (!strcmp(key, "architecture"))
		return parse_uint(rest, UINT_MAX, &p->arch)
			       ? NVML_SUCCESS
			       : parse_error(p, "bad architecture", rest);
	return parse_error(p, "unknown key", key);
}

static int uuid_cmp(const void *a, const void *b)
{
	return strcasecmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * Every populated MIG slot must be below max-mig; a MIG GPU needs a MIG mode;
 * UUIDs are unique (sorted once: O(n log n) for big topologies).
 */
static nvmlReturn_t check_config(struct parser *p)
{
	const char **uuids;
	size_t n = 0;

	uuids = malloc((mock.n_gpus + mock.n_migs + 1) * sizeof(*uuids));
	if (!uuids)
		return NVML_ERROR_UNKNOWN;
	for (size_t i = 0; i < mock.n_gpus; i++)
		uuids[n++] = mock.gpus[i].uuid;
	for (size_t i = 0; i < mock.n_migs; i++)
		uuids[n++] = mock.migs[i].uuid;
	qsort(uuids, n, sizeof(*uuids), uuid_cmp);
	for (size_t i = 1; i < n; i++) {
		if (!strcasecmp(uuids[i - 1], uuids[i])) {
			nvmlReturn_t r = parse_error(p, "duplicate uuid", uuids[i]);

			free(uuids);
			return r;
		}
	}
	free(uuids);
	for (size_t i = 0; i < mock.n_gpus; i++) {
		const struct mock_gpu *gpu = &mock.gpus[i];

		if (gpu->n_migs == 0)
			continue;
		if (gpu->mig != MIG_ENABLED && gpu->mig != MIG_PENDING_DISABLE)
			return parse_error(p, "MIG devices on a GPU whose MIG mode is not enabled",
					   gpu->uuid);
		if (mock.migs[gpu->first_mig + gpu->n_migs - 1].slot >= mock.max_migs)
			return parse_error(p, "MIG slot beyond max-mig", gpu->uuid);
	}
	return NVML_SUCCESS;
}

static char *config_path(void)
{
	const char *env = getenv("CDIKIT_MOCK_NVML_CONFIG");
	Dl_info info;
	const char *slash;
	char *path;

	if (env && *env)
		return strdup(env);
	if (!dladdr((void *)nvmlInit_v2, &info) || !info.dli_fname)
		return NULL;
	slash = strrchr(info.dli_fname, '/');
	if (!slash)
		return strdup(CONFIG_NAME);
	if (asprintf(&path, "%.*s/%s", (int)(slash - info.dli_fname), info.dli_fname, CONFIG_NAME) <
	    0)
		return NULL;
	return path;
}

static nvmlReturn_t mock_load(void)
{
	struct parser p = {
		.name = DEFAULT_NAME,
		.pci_device_id = DEFAULT_PCI_DEVICE_ID,
		.pci_subsystem_id = DEFAULT_PCI_SUBSYSTEM_ID,
		.memory_mb = DEFAULT_MEMORY_MB,
		.cc_major = DEFAULT_CC_MAJOR,
		.cc_minor = 0,
		.brand = DEFAULT_BRAND,
		.arch = DEFAULT_ARCH,
	};
	char *path, *line = NULL;
	size_t cap = 0, total = 0;
	ssize_t n;
	FILE *f;
	nvmlReturn_t r = NVML_SUCCESS;

	mock_free();
	strcpy(mock.driver, DEFAULT_DRIVER);
	strcpy(mock.nvml, DEFAULT_NVML);
	mock.cuda = DEFAULT_CUDA;
	mock.max_migs = DEFAULT_MAX_MIGS;

	path = config_path();
	if (!path)
		return NVML_ERROR_UNKNOWN;
	p.path = path;
	f = fopen(path, "re");
	if (!f) {
		/* No topology: as if the kernel module were not loaded. */
		free(path);
		return NVML_ERROR_DRIVER_NOT_LOADED;
	}
	while ((n = getline(&line, &cap, f)) > 0) {
		p.line++;
		total += (size_t)n;
		if (total > CONFIG_MAX_BYTES) {
			r = parse_error(&p, "file too large", NULL);
			break;
		}
		line[strcspn(line, "\r\n")] = '\0';
		r = parse_line(&p, line);
		if (r != NVML_SUCCESS)
			break;
	}
	if (r == NVML_SUCCESS)
		r = check_config(&p);
	free(line);
	fclose(f);
	free(path);
	if (r == NVML_SUCCESS && mock.init_error != NVML_SUCCESS)
		r = mock.init_error;
	if (r != NVML_SUCCESS)
		mock_free();
	return r;
}

/* ---------------------------------------------------------------- helpers */

static struct mock_gpu *as_gpu(nvmlDevice_t device)
{
	uintptr_t p = (uintptr_t)device, base = (uintptr_t)mock.gpus;

	if (!device || !mock.gpus || p < base || p >= base + mock.n_gpus * sizeof(*mock.gpus) ||
	    (p - base) % sizeof(*mock.gpus))
		return NULL;
	return (struct mock_gpu *)device;
}

static struct mock_mig *as_mig(nvmlDevice_t device)
{
	uintptr_t p = (uintptr_t)device, base = (uintptr_t)mock.migs;

	if (!device || !mock.migs || p < base || p >= base + mock.n_migs * sizeof(*mock.migs) ||
	    (p - base) % sizeof(*mock.migs))
		return NULL;
	return (struct mock_mig *)device;
}

/* The GPU a handle is or belongs to. */
static struct mock_gpu *any_gpu(nvmlDevice_t device)
{
	struct mock_gpu *gpu = as_gpu(device);
	struct mock_mig *mig;

	if (gpu)
		return gpu;
	mig = as_mig(device);
	return mig ? &mock.gpus[mig->handle.gpu] : NULL;
}

#ifndef MOCK_OLD_DRIVER
static struct mock_gi *as_gi(nvmlGpuInstance_t gi)
{
	uintptr_t p = (uintptr_t)gi, base = (uintptr_t)mock.gis;

	if (!gi || !mock.gis || p < base || p >= base + mock.n_gis * sizeof(*mock.gis) ||
	    (p - base) % sizeof(*mock.gis))
		return NULL;
	return (struct mock_gi *)gi;
}
#endif

#ifndef MOCK_OLD_DRIVER
static struct mock_mig *ci_mig(nvmlComputeInstance_t ci)
{
	uintptr_t p = (uintptr_t)ci, base = (uintptr_t)mock.migs;
	const size_t off = offsetof(struct mock_mig, ci_handle);

	if (!ci || !mock.migs || p < base + off || p >= base + mock.n_migs * sizeof(*mock.migs) ||
	    (p - base - off) % sizeof(*mock.migs))
		return NULL;
	return (struct mock_mig *)(p - off);
}
#endif

static nvmlReturn_t put_string(char *dst, unsigned length, const char *src)
{
	size_t n = strlen(src);

	if (!dst)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (n + 1 > length)
		return NVML_ERROR_INSUFFICIENT_SIZE;
	memcpy(dst, src, n + 1);
	return NVML_SUCCESS;
}

#ifndef MOCK_OLD_DRIVER
static bool mig_enabled(const struct mock_gpu *gpu)
{
	return gpu->mig == MIG_ENABLED || gpu->mig == MIG_PENDING_DISABLE;
}
#endif

#define CHECK_INIT()                                                                               \
	do {                                                                                       \
		if (mock.refcount == 0)                                                            \
			return NVML_ERROR_UNINITIALIZED;                                           \
	} while (0)

/* ---------------------------------------------------------------- system */

MOCK_API nvmlReturn_t nvmlInit_v2(void)
{
	nvmlReturn_t r;

	if (mock.refcount > 0) {
		mock.refcount++;
		return NVML_SUCCESS;
	}
	r = mock_load();
	if (r == NVML_SUCCESS)
		mock.refcount = 1;
	return r;
}

MOCK_ALIAS(nvmlInit_v2) nvmlReturn_t nvmlInit(void);

MOCK_API nvmlReturn_t nvmlInitWithFlags(unsigned int flags)
{
	(void)flags;
	return nvmlInit_v2();
}

MOCK_API nvmlReturn_t nvmlShutdown(void)
{
	CHECK_INIT();
	if (--mock.refcount == 0)
		mock_free();
	return NVML_SUCCESS;
}

MOCK_API const char *nvmlErrorString(nvmlReturn_t result)
{
	switch ((int)result) {
	case NVML_SUCCESS:
		return "Success";
	case NVML_ERROR_UNINITIALIZED:
		return "Uninitialized";
	case NVML_ERROR_INVALID_ARGUMENT:
		return "Invalid Argument";
	case NVML_ERROR_NOT_SUPPORTED:
		return "Not Supported";
	case NVML_ERROR_NO_PERMISSION:
		return "Insufficient Permissions";
	case NVML_ERROR_ALREADY_INITIALIZED:
		return "Already Initialized";
	case NVML_ERROR_NOT_FOUND:
		return "Not Found";
	case NVML_ERROR_INSUFFICIENT_SIZE:
		return "Insufficient Size";
	case 8:
		return "Insufficient External Power";
	case NVML_ERROR_DRIVER_NOT_LOADED:
		return "Driver Not Loaded";
	case 10:
		return "Timeout";
	case 11:
		return "Interrupted by system";
	case NVML_ERROR_LIBRARY_NOT_FOUND:
		return "NVML Shared Library Not Found";
	case NVML_ERROR_FUNCTION_NOT_FOUND:
		return "Function Not Found";
	case 14:
		return "Corrupted infoROM";
	case NVML_ERROR_GPU_IS_LOST:
		return "GPU is lost";
	case 16:
		return "GPU requires restart";
	case 17:
		return "Operating System Not Supported";
	case NVML_ERROR_LIB_RM_VERSION_MISMATCH:
		return "RM has detected an NVML/RM version mismatch.";
	default:
		return "Unknown Error";
	}
}

MOCK_API nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
	CHECK_INIT();
	return put_string(version, length, mock.driver);
}

MOCK_API nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length)
{
	CHECK_INIT();
	return put_string(version, length, mock.nvml);
}

MOCK_API nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *cudaDriverVersion)
{
	CHECK_INIT();
	if (!cudaDriverVersion)
		return NVML_ERROR_INVALID_ARGUMENT;
	*cudaDriverVersion = mock.cuda;
	return NVML_SUCCESS;
}

MOCK_ALIAS(nvmlSystemGetCudaDriverVersion)
nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *cudaDriverVersion);

/* ---------------------------------------------------------------- devices */

MOCK_API nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount)
{
	CHECK_INIT();
	if (!deviceCount)
		return NVML_ERROR_INVALID_ARGUMENT;
	*deviceCount = (unsigned)mock.n_gpus;
	return NVML_SUCCESS;
}

MOCK_ALIAS(nvmlDeviceGetCount_v2) nvmlReturn_t nvmlDeviceGetCount(unsigned int *deviceCount);

MOCK_API nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
	CHECK_INIT();
	if (!device || index >= mock.n_gpus)
		return NVML_ERROR_INVALID_ARGUMENT;
	*device = &mock.gpus[index].handle;
	return NVML_SUCCESS;
}

MOCK_ALIAS(nvmlDeviceGetHandleByIndex_v2)
nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device);

MOCK_API nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device)
{
	CHECK_INIT();
	if (!uuid || !device)
		return NVML_ERROR_INVALID_ARGUMENT;
	for (size_t i = 0; i < mock.n_gpus; i++) {
		if (!strcasecmp(mock.gpus[i].uuid, uuid)) {
			*device = &mock.gpus[i].handle;
			return NVML_SUCCESS;
		}
	}
	for (size_t i = 0; i < mock.n_migs; i++) {
		if (!strcasecmp(mock.migs[i].uuid, uuid)) {
			*device = &mock.migs[i].handle;
			return NVML_SUCCESS;
		}
	}
	return NVML_ERROR_NOT_FOUND;
}

/* Accepts "dddddddd:bb:dd.f" and "dddd:bb:dd.f", any case. */
MOCK_API nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId, nvmlDevice_t *device)
{
	unsigned domain, bus, dev, fn;
	char tail;

	CHECK_INIT();
	if (!pciBusId || !device ||
	    sscanf(pciBusId, "%x:%x:%x.%x%c", &domain, &bus, &dev, &fn, &tail) != 4)
		return NVML_ERROR_INVALID_ARGUMENT;
	for (size_t i = 0; i < mock.n_gpus; i++) {
		const struct mock_gpu *gpu = &mock.gpus[i];

		if (gpu->domain == domain && gpu->bus == bus && gpu->device == dev && fn == 0) {
			*device = (nvmlDevice_t)&gpu->handle;
			return NVML_SUCCESS;
		}
	}
	return NVML_ERROR_NOT_FOUND;
}

MOCK_ALIAS(nvmlDeviceGetHandleByPciBusId_v2)
nvmlReturn_t nvmlDeviceGetHandleByPciBusId(const char *pciBusId, nvmlDevice_t *device);

/* A MIG device is named after its parent and profile: "NVIDIA A100-SXM4-40GB MIG 1g.5gb". */
static void mig_profile_name(const struct mock_mig *mig, char *buf, size_t size)
{
	const struct nvmlGpuInstance_st *gi = &mock.gis[mig->gi].handle;
	const struct mock_gpu *gpu = &mock.gpus[mig->handle.gpu];
	const struct gi_profile *prof = &gi_profiles[gi->profile];
	unsigned gb = (gi_profile_mem(gpu, gi->profile) + 1023) / 1024;
	unsigned cis = ci_slices[mig->ci_profile];

	if (cis < prof->slices)
		snprintf(buf, size, "%uc.%ug.%ugb%s", cis, prof->slices, gb, prof->suffix);
	else
		snprintf(buf, size, "%ug.%ugb%s", prof->slices, gb, prof->suffix);
}

MOCK_API nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length)
{
	struct mock_gpu *gpu;
	struct mock_mig *mig;
	char buf[NAME_MAX_LEN + 64], profile[48];

	CHECK_INIT();
	gpu = as_gpu(device);
	if (gpu)
		return put_string(name, length, gpu->name);
	mig = as_mig(device);
	if (!mig)
		return NVML_ERROR_INVALID_ARGUMENT;
	mig_profile_name(mig, profile, sizeof(profile));
	snprintf(buf, sizeof(buf), "%s MIG %s", mock.gpus[mig->handle.gpu].name, profile);
	return put_string(name, length, buf);
}

MOCK_API nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length)
{
	struct mock_gpu *gpu;
	struct mock_mig *mig;

	CHECK_INIT();
	gpu = as_gpu(device);
	if (gpu)
		return put_string(uuid, length, gpu->uuid);
	mig = as_mig(device);
	if (!mig)
		return NVML_ERROR_INVALID_ARGUMENT;
	return put_string(uuid, length, mig->uuid);
}

/* A MIG handle reports its parent's PCI location. */
MOCK_API nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
	struct mock_gpu *gpu;

	CHECK_INIT();
	gpu = any_gpu(device);
	if (!gpu || !pci)
		return NVML_ERROR_INVALID_ARGUMENT;
	memset(pci, 0, sizeof(*pci));
	snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "%04X:%02X:%02X.0", gpu->domain,
		 gpu->bus, gpu->device);
	snprintf(pci->busId, sizeof(pci->busId), "%08X:%02X:%02X.0", gpu->domain, gpu->bus,
		 gpu->device);
	pci->domain = gpu->domain;
	pci->bus = gpu->bus;
	pci->device = gpu->device;
	pci->pciDeviceId = gpu->pci_device_id;
	pci->pciSubSystemId = gpu->pci_subsystem_id;
	return NVML_SUCCESS;
}

/* v1 and v2 callers pass the older 52-byte struct: write only that much. */
MOCK_API nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, mock_nvmlPciInfo_v1_t *pci)
{
	nvmlPciInfo_t v3;
	nvmlReturn_t r;

	CHECK_INIT();
	if (!pci)
		return NVML_ERROR_INVALID_ARGUMENT;
	r = nvmlDeviceGetPciInfo_v3(device, &v3);
	if (r != NVML_SUCCESS)
		return r;
	memset(pci, 0, sizeof(*pci));
	memcpy(pci->busId, v3.busIdLegacy, sizeof(pci->busId));
	pci->domain = v3.domain;
	pci->bus = v3.bus;
	pci->device = v3.device;
	pci->pciDeviceId = v3.pciDeviceId;
	pci->pciSubSystemId = v3.pciSubSystemId;
	return NVML_SUCCESS;
}

MOCK_ALIAS(nvmlDeviceGetPciInfo_v2)
nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t device, mock_nvmlPciInfo_v1_t *pci);

/* Minor and index belong to physical GPUs; MIG handles do not have them. */
MOCK_API nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int *minorNumber)
{
	struct mock_gpu *gpu;

	CHECK_INIT();
	gpu = as_gpu(device);
	if (!gpu) {
		if (as_mig(device) && minorNumber)
			return NVML_ERROR_NOT_SUPPORTED;
		return NVML_ERROR_INVALID_ARGUMENT;
	}
	if (!minorNumber)
		return NVML_ERROR_INVALID_ARGUMENT;
	*minorNumber = gpu->minor;
	return NVML_SUCCESS;
}

MOCK_API nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int *index)
{
	struct mock_gpu *gpu;

	CHECK_INIT();
	gpu = as_gpu(device);
	if (!gpu) {
		if (as_mig(device) && index)
			return NVML_ERROR_NOT_SUPPORTED;
		return NVML_ERROR_INVALID_ARGUMENT;
	}
	if (!index)
		return NVML_ERROR_INVALID_ARGUMENT;
	*index = gpu->handle.gpu;
	return NVML_SUCCESS;
}

MOCK_API nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major,
							 int *minor)
{
	struct mock_gpu *gpu;

	CHECK_INIT();
	gpu = any_gpu(device);
	if (!gpu || !major || !minor)
		return NVML_ERROR_INVALID_ARGUMENT;
	*major = gpu->cc_major;
	*minor = gpu->cc_minor;
	return NVML_SUCCESS;
}

MOCK_API nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{
	struct mock_gpu *gpu;
	struct mock_mig *mig;
	unsigned long long mb;

	CHECK_INIT();
	if (!memory)
		return NVML_ERROR_INVALID_ARGUMENT;
	gpu = as_gpu(device);
	mig = as_mig(device);
	if (gpu)
		mb = gpu->memory_mb;
	else if (mig)
		mb = gi_profile_mem(&mock.gpus[mig->handle.gpu], mock.gis[mig->gi].handle.profile);
	else
		return NVML_ERROR_INVALID_ARGUMENT;
	/* An idle board: the driver reserves a little. */
	memory->total = mb << 20;
	memory->used = gpu ? 425ull << 20 : 13ull << 20;
	memory->free = memory->total - memory->used;
	return NVML_SUCCESS;
}

MOCK_API nvmlReturn_t nvmlDeviceGetBrand(nvmlDevice_t device, nvmlBrandType_t *type)
{
	struct mock_gpu *gpu;

	CHECK_INIT();
	gpu = any_gpu(device);
	if (!gpu || !type)
		return NVML_ERROR_INVALID_ARGUMENT;
	*type = (nvmlBrandType_t)gpu->brand;
	return NVML_SUCCESS;
}

#ifndef MOCK_OLD_DRIVER
MOCK_API nvmlReturn_t nvmlDeviceGetArchitecture(nvmlDevice_t device, nvmlDeviceArchitecture_t *arch)
{
	struct mock_gpu *gpu;

	CHECK_INIT();
	gpu = any_gpu(device);
	if (!gpu || !arch)
		return NVML_ERROR_INVALID_ARGUMENT;
	*arch = gpu->arch;
	return NVML_SUCCESS;
}

/* ---------------------------------------------------------------- MIG */

MOCK_API nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *currentMode,
					   unsigned int *pendingMode)
{
	struct mock_gpu *gpu;

	CHECK_INIT();
	gpu = as_gpu(device);
	if (!gpu) {
		if (as_mig(device))
			return NVML_ERROR_NOT_SUPPORTED;
		return NVML_ERROR_INVALID_ARGUMENT;
	}
	if (!currentMode || !pendingMode)
		return NVML_ERROR_INVALID_ARGUMENT;
	switch (gpu->mig) {
	case MIG_UNSUPPORTED:
		return NVML_ERROR_NOT_SUPPORTED;
	case MIG_DISABLED:
		*currentMode = *pendingMode = NVML_DEVICE_MIG_DISABLE;
		break;
	case MIG_ENABLED:
		*currentMode = *pendingMode = NVML_DEVICE_MIG_ENABLE;
		break;
	case MIG_PENDING_ENABLE:
		*currentMode = NVML_DEVICE_MIG_DISABLE;
		*pendingMode = NVML_DEVICE_MIG_ENABLE;
		break;
	case MIG_PENDING_DISABLE:
		*currentMode = NVML_DEVICE_MIG_ENABLE;
		*pendingMode = NVML_DEVICE_MIG_DISABLE;
		break;
	}
	return NVML_SUCCESS;
}

/* "Returns zero if MIG is not supported or enabled" (nvml.h). */
MOCK_API nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count)
{
	struct mock_gpu *gpu;

	CHECK_INIT();
	gpu = as_gpu(device);
	if (!gpu || !count)
		return NVML_ERROR_INVALID_ARGUMENT;
	*count = mig_enabled(gpu) ? mock.max_migs : 0;
	return NVML_SUCCESS;
}

MOCK_API nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index,
							  nvmlDevice_t *migDevice)
{
	struct mock_gpu *gpu;

	CHECK_INIT();
	gpu = as_gpu(device);
	if (!gpu || !migDevice)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (gpu->mig == MIG_UNSUPPORTED)
		return NVML_ERROR_NOT_SUPPORTED;
	if (!mig_enabled(gpu) || index >= mock.max_migs)
		return NVML_ERROR_INVALID_ARGUMENT;
	for (size_t i = gpu->first_mig; i < gpu->first_mig + gpu->n_migs; i++) {
		if (mock.migs[i].slot == index) {
			*migDevice = &mock.migs[i].handle;
			return NVML_SUCCESS;
		}
	}
	return NVML_ERROR_NOT_FOUND;
}

MOCK_API nvmlReturn_t nvmlDeviceIsMigDeviceHandle(nvmlDevice_t device, unsigned int *isMigDevice)
{
	CHECK_INIT();
	if (!isMigDevice)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (as_mig(device))
		*isMigDevice = 1;
	else if (as_gpu(device))
		*isMigDevice = 0;
	else
		return NVML_ERROR_INVALID_ARGUMENT;
	return NVML_SUCCESS;
}

MOCK_API nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nvmlDevice_t migDevice,
								   nvmlDevice_t *device)
{
	struct mock_mig *mig;

	CHECK_INIT();
	mig = as_mig(migDevice);
	if (!mig || !device)
		return NVML_ERROR_INVALID_ARGUMENT;
	*device = &mock.gpus[mig->handle.gpu].handle;
	return NVML_SUCCESS;
}

/* GI/CI ids belong to MIG handles; a full GPU is "not supported". */
MOCK_API nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int *id)
{
	struct mock_mig *mig;

	CHECK_INIT();
	if (!id)
		return NVML_ERROR_INVALID_ARGUMENT;
	mig = as_mig(device);
	if (!mig)
		return as_gpu(device) ? NVML_ERROR_NOT_SUPPORTED : NVML_ERROR_INVALID_ARGUMENT;
	*id = mock.gis[mig->gi].handle.id;
	return NVML_SUCCESS;
}

MOCK_API nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int *id)
{
	struct mock_mig *mig;

	CHECK_INIT();
	if (!id)
		return NVML_ERROR_INVALID_ARGUMENT;
	mig = as_mig(device);
	if (!mig)
		return as_gpu(device) ? NVML_ERROR_NOT_SUPPORTED : NVML_ERROR_INVALID_ARGUMENT;
	*id = mig->ci;
	return NVML_SUCCESS;
}

/* Attributes exist for MIG handles only. */
MOCK_API nvmlReturn_t nvmlDeviceGetAttributes_v2(nvmlDevice_t device,
						 nvmlDeviceAttributes_t *attributes)
{
	const struct gi_profile *prof;
	struct mock_mig *mig;
	unsigned cis;

	CHECK_INIT();
	if (!attributes)
		return NVML_ERROR_INVALID_ARGUMENT;
	mig = as_mig(device);
	if (!mig)
		return as_gpu(device) ? NVML_ERROR_NOT_SUPPORTED : NVML_ERROR_INVALID_ARGUMENT;
	prof = &gi_profiles[mock.gis[mig->gi].handle.profile];
	cis = ci_slices[mig->ci_profile];
	*attributes = (nvmlDeviceAttributes_t){
		.multiprocessorCount = 14 * cis,
		.sharedCopyEngineCount = prof->ce,
		.sharedDecoderCount = prof->dec,
		.sharedEncoderCount = prof->enc,
		.sharedJpegCount = prof->jpeg,
		.sharedOfaCount = prof->ofa,
		.gpuInstanceSliceCount = prof->slices,
		.computeInstanceSliceCount = cis,
		.memorySizeMB = gi_profile_mem(&mock.gpus[mig->handle.gpu],
					       mock.gis[mig->gi].handle.profile),
	};
	return NVML_SUCCESS;
}

MOCK_ALIAS(nvmlDeviceGetAttributes_v2)
nvmlReturn_t nvmlDeviceGetAttributes(nvmlDevice_t device, nvmlDeviceAttributes_t *attributes);

MOCK_API nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfo(nvmlDevice_t device, unsigned int profile,
							  nvmlGpuInstanceProfileInfo_t *info)
{
	const struct gi_profile *prof;
	struct mock_gpu *gpu;

	CHECK_INIT();
	gpu = as_gpu(device);
	if (!gpu || !info || profile >= NVML_GPU_INSTANCE_PROFILE_COUNT)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (gpu->mig == MIG_UNSUPPORTED)
		return NVML_ERROR_NOT_SUPPORTED;
	prof = &gi_profiles[profile];
	if (!prof->valid)
		return NVML_ERROR_NOT_SUPPORTED;
	*info = (nvmlGpuInstanceProfileInfo_t){
		.id = profile,
		.isP2pSupported = 0,
		.sliceCount = prof->slices,
		.instanceCount = prof->instances,
		.multiprocessorCount = prof->sms,
		.copyEngineCount = prof->ce,
		.decoderCount = prof->dec,
		.encoderCount = prof->enc,
		.jpegCount = prof->jpeg,
		.ofaCount = prof->ofa,
		.memorySizeMB = gi_profile_mem(gpu, profile),
	};
	return NVML_SUCCESS;
}

MOCK_API nvmlReturn_t nvmlDeviceGetGpuInstances(nvmlDevice_t device, unsigned int profileId,
						nvmlGpuInstance_t *gpuInstances,
						unsigned int *count)
{
	struct mock_gpu *gpu;
	unsigned n = 0;

	CHECK_INIT();
	gpu = as_gpu(device);
	if (!gpu || !gpuInstances || !count || profileId >= NVML_GPU_INSTANCE_PROFILE_COUNT)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (gpu->mig == MIG_UNSUPPORTED)
		return NVML_ERROR_NOT_SUPPORTED;
	if (!gi_profiles[profileId].valid)
		return NVML_ERROR_NOT_SUPPORTED;
	for (size_t i = gpu->first_gi; i < gpu->first_gi + gpu->n_gis; i++) {
		struct nvmlGpuInstance_st *gi = &mock.gis[i].handle;

		if (gi->profile == profileId)
			gpuInstances[n++] = gi;
	}
	*count = n;
	return NVML_SUCCESS;
}

MOCK_API nvmlReturn_t nvmlDeviceGetGpuInstanceById(nvmlDevice_t device, unsigned int id,
						   nvmlGpuInstance_t *gpuInstance)
{
	struct mock_gpu *gpu;
	size_t i;

	CHECK_INIT();
	gpu = as_gpu(device);
	if (!gpu || !gpuInstance)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (gpu->mig == MIG_UNSUPPORTED)
		return NVML_ERROR_NOT_SUPPORTED;
	if (!mig_enabled(gpu))
		return NVML_ERROR_INVALID_ARGUMENT;
	i = find_gi(gpu->handle.gpu, id);
	if (i == SIZE_MAX)
		return NVML_ERROR_NOT_FOUND;
	*gpuInstance = &mock.gis[i].handle;
	return NVML_SUCCESS;
}

MOCK_API nvmlReturn_t nvmlGpuInstanceGetInfo(nvmlGpuInstance_t gpuInstance,
					     nvmlGpuInstanceInfo_t *info)
{
	struct mock_gi *gi;

	CHECK_INIT();
	gi = as_gi(gpuInstance);
	if (!gi || !info)
		return NVML_ERROR_INVALID_ARGUMENT;
	*info = (nvmlGpuInstanceInfo_t){
		.device = &mock.gpus[gi->handle.gpu].handle,
		.id = gi->handle.id,
		.profileId = gi->handle.profile,
		/* placements count memory slices: a 3g.20gb spans four */
		.placement = { gi->handle.start, gi_profiles[gi->handle.profile].mem_slices },
	};
	return NVML_SUCCESS;
}

MOCK_API nvmlReturn_t nvmlGpuInstanceGetComputeInstanceProfileInfo(
	nvmlGpuInstance_t gpuInstance, unsigned int profile, unsigned int engProfile,
	nvmlComputeInstanceProfileInfo_t *info)
{
	const struct gi_profile *prof;
	struct mock_gi *gi;

	CHECK_INIT();
	gi = as_gi(gpuInstance);
	if (!gi || !info || profile >= NVML_COMPUTE_INSTANCE_PROFILE_COUNT)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (engProfile != NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED)
		return NVML_ERROR_NOT_SUPPORTED;
	prof = &gi_profiles[gi->handle.profile];
	if (ci_slices[profile] > prof->slices || profile > NVML_COMPUTE_INSTANCE_PROFILE_7_SLICE)
		return NVML_ERROR_NOT_SUPPORTED;
	*info = (nvmlComputeInstanceProfileInfo_t){
		.id = profile,
		.sliceCount = ci_slices[profile],
		.instanceCount = prof->slices / ci_slices[profile],
		.multiprocessorCount = 14 * ci_slices[profile],
		.sharedCopyEngineCount = prof->ce,
		.sharedDecoderCount = prof->dec,
		.sharedEncoderCount = prof->enc,
		.sharedJpegCount = prof->jpeg,
		.sharedOfaCount = prof->ofa,
	};
	return NVML_SUCCESS;
}

MOCK_API nvmlReturn_t nvmlGpuInstanceGetComputeInstances(nvmlGpuInstance_t gpuInstance,
							 unsigned int profileId,
							 nvmlComputeInstance_t *computeInstances,
							 unsigned int *count)
{
	const struct mock_gpu *parent;
	struct mock_gi *gi;
	unsigned n = 0;

	CHECK_INIT();
	gi = as_gi(gpuInstance);
	if (!gi || !computeInstances || !count || profileId >= NVML_COMPUTE_INSTANCE_PROFILE_COUNT)
		return NVML_ERROR_INVALID_ARGUMENT;
	parent = &mock.gpus[gi->handle.gpu];
	for (size_t i = parent->first_mig; i < parent->first_mig + parent->n_migs; i++) {
		struct mock_mig *mig = &mock.migs[i];

		if (&mock.gis[mig->gi] == gi && mig->ci_profile == profileId)
			computeInstances[n++] = &mig->ci_handle;
	}
	*count = n;
	return NVML_SUCCESS;
}

MOCK_API nvmlReturn_t nvmlGpuInstanceGetComputeInstanceById(nvmlGpuInstance_t gpuInstance,
							    unsigned int id,
							    nvmlComputeInstance_t *computeInstance)
{
	const struct mock_gpu *parent;
	struct mock_gi *gi;

	CHECK_INIT();
	gi = as_gi(gpuInstance);
	if (!gi || !computeInstance)
		return NVML_ERROR_INVALID_ARGUMENT;
	parent = &mock.gpus[gi->handle.gpu];
	for (size_t i = parent->first_mig; i < parent->first_mig + parent->n_migs; i++) {
		struct mock_mig *mig = &mock.migs[i];

		if (&mock.gis[mig->gi] == gi && mig->ci == id) {
			*computeInstance = &mig->ci_handle;
			return NVML_SUCCESS;
		}
	}
	return NVML_ERROR_NOT_FOUND;
}

MOCK_API nvmlReturn_t nvmlComputeInstanceGetInfo_v2(nvmlComputeInstance_t computeInstance,
						    nvmlComputeInstanceInfo_t *info)
{
	struct mock_mig *mig;

	CHECK_INIT();
	mig = ci_mig(computeInstance);
	if (!mig || !info)
		return NVML_ERROR_INVALID_ARGUMENT;
	*info = (nvmlComputeInstanceInfo_t){
		.device = &mock.gpus[mig->handle.gpu].handle,
		.gpuInstance = &mock.gis[mig->gi].handle,
		.id = mig->ci,
		.profileId = mig->ci_profile,
		.placement = { mig->ci_start, ci_slices[mig->ci_profile] },
	};
	return NVML_SUCCESS;
}

MOCK_ALIAS(nvmlComputeInstanceGetInfo_v2)
nvmlReturn_t nvmlComputeInstanceGetInfo(nvmlComputeInstance_t computeInstance,
					nvmlComputeInstanceInfo_t *info);
#endif /* MOCK_OLD_DRIVER */
