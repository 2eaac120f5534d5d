/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The /proc parsers on any text, each on the same input: driver version
 * (/proc/driver/nvidia/version), character device majors (/proc/devices), GPU information
 * (/proc/driver/nvidia/gpus/<bus>/information) and mig-minors
 * (/proc/driver/nvidia-caps/mig-minors). A refusal comes with a problem; what is accepted is
 * in range and normalised: a version of digits and dots, a bus id that normalises to itself,
 * mig-minors sorted with every entry found by its own key.
 */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include <cdi/error.h>

#include "fuzz.h"
#include "host/procfs.h"

static void refused_with_problem(int r, struct cdi_error *err, const char *what)
{
	fuzz_assert(r == 0 || (r == -ENOENT && strcmp(what, "char major") == 0) ||
			    cdi_error_count(err) > 0,
		    "%s: refused (%d) without a problem", what, r);
	cdi_error_reset(err);
}

static void driver_version(const char *text)
{
	struct cdi_error err = { 0 };
	char version[GPU_VERSION_MAX];
	int r;

	r = procfs_parse_driver_version("version", text, version, &err);
	refused_with_problem(r, &err, "driver version");
	if (r < 0)
		return;
	fuzz_assert(strnlen(version, sizeof(version)) < sizeof(version) && version[0],
		    "version not a string");
	for (const char *c = version; *c; c++)
		fuzz_assert(isdigit((unsigned char)*c) || *c == '.', "version \"%s\"", version);
}

static void char_majors(const char *text)
{
	static const char *const names[] = { "nvidia-frontend", "nvidia-uvm", "nvidia-caps" };

	for (size_t i = 0; i < ELEMENTSOF(names); i++) {
		struct cdi_error err = { 0 };
		unsigned major = 0;
		int r;

		r = procfs_parse_char_major("devices", text, names[i], &major, &err);
		refused_with_problem(r, &err, "char major");
		fuzz_assert(r < 0 || major <= 4095, "major %u", major);
	}
}

static void gpu_information(const char *text)
{
	struct cdi_error err = { 0 };
	struct gpu_device gpu = { 0 };
	char again[GPU_BUSID_MAX];
	bool excluded = false;
	int r;

	r = procfs_parse_gpu_information("information", text, &gpu, &excluded, &err);
	refused_with_problem(r, &err, "gpu information");
	if (r < 0)
		return;
	fuzz_assert(strnlen(gpu.name, sizeof(gpu.name)) < sizeof(gpu.name), "name");
	fuzz_assert(strnlen(gpu.uuid, sizeof(gpu.uuid)) < sizeof(gpu.uuid), "uuid");
	fuzz_assert(excluded || strncmp(gpu.uuid, "GPU-", 4) == 0, "uuid \"%s\"", gpu.uuid);
	fuzz_assert(gpu.minor <= PROCFS_MAX_DEVICE_MINOR, "minor %u", gpu.minor);
	fuzz_assert(pci_bus_id_normalize(gpu.bus_id, again) == 0 && strcmp(gpu.bus_id, again) == 0,
		    "bus id \"%s\" is not normal", gpu.bus_id);
}

static void mig_minors(const char *text, size_t len)
{
	struct cdi_error err = { 0 };
	struct mig_minors mm = { 0 };
	int r;

	r = mig_minors_parse("mig-minors", text, len, &mm, &err);
	refused_with_problem(r, &err, "mig-minors");
	if (r < 0)
		return;
	for (size_t i = 0; i < mm.n; i++) {
		uint32_t key = mm.entries[i].key;
		unsigned ci1 = key & 0xff, minor = 0;

		fuzz_assert(i == 0 || mm.entries[i - 1].key < key, "entries not sorted");
		fuzz_assert(mm.entries[i].minor <= PROCFS_MAX_CAP_MINOR, "minor %u",
			    mm.entries[i].minor);
		r = mig_minors_lookup(&mm, key >> 16, (key >> 8) & 0xff, (int)ci1 - 1, &minor);
		fuzz_assert(r == 0 && minor == mm.entries[i].minor, "entry %zu not found", i);
	}
	mig_minors_clear(&mm);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_free_ char *text = fuzz_strndup(data, size), *exact = fuzz_memdup(data, size);

	driver_version(text);
	char_majors(text);
	gpu_information(text);
	mig_minors(exact, size); /* the one that takes a length: no NUL after the text */
	return 0;
}
