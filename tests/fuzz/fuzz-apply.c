/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The config.json applier on a fuzzed config with fixed spec edits. The first input byte picks
 * the devices asked for (bits over gpu=0, gpu=1, gpu=all and a device no spec defines); the rest
 * is the config, read as cdi-apply reads it. Properties:
 *   - all or nothing: when cdi_registry_inject or cdi_apply_edits fails, the config is exactly
 *     what it was, and the failure comes with a problem;
 *   - an edited config serialises (cdi_json_dump, as cdi-apply writes it) and reads back equal;
 *   - injecting what was injected already still succeeds (the edits are idempotent in shape).
 * The annotation and NVIDIA_* environment readers (devices, capabilities, NVIDIA_REQUIRE_*
 * against fixed driver facts; volume mounts, swarm-resource, IMEX channels and gated modes)
 * run on the same config. The config is also read as cdi-runtime reads it (Go's decoder,
 * OCI_CONFIG_GO_DECODER): refused with a problem, or a tree whose dump is strict JSON that
 * reads back as the same tree (what cdi-runtime writes, runc reads). Device nodes are
 * "looked up" by a stand-in lstat, never on this machine.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cdi/cdi.h>

#include "fuzz.h"
#include "libcdi/json_dump.h"
#include "libcdi/oci_config.h"
#include "nvidia/container_env.h"
#include "nvidia/env_requests.h"
#include "nvidia/env_trust.h"
#include "nvidia/require.h"

static const char spec_yaml[] =
	"cdiVersion: 1.1.0\n"
	"kind: nvidia.com/gpu\n"
	"devices:\n"
	"- name: \"0\"\n"
	"  containerEdits:\n"
	"    deviceNodes:\n"
	"    - {path: /dev/nvidia0}\n"
	"    - {path: /dev/dri/card1, hostPath: /dev/dri/card1, permissions: rw}\n"
	"    mounts:\n"
	"    - {hostPath: /usr/lib/libcuda.so.1, containerPath: /usr/lib/libcuda.so.1, options: [ro, nosuid, nodev, bind]}\n"
	"    env: [NVIDIA_VISIBLE_DEVICES=0, GPU0=yes]\n"
	"- name: \"1\"\n"
	"  containerEdits:\n"
	"    deviceNodes:\n"
	"    - {path: /dev/nvidia1, type: c, major: 195, minor: 1, fileMode: 0666, uid: 0, gid: 44}\n"
	"    hooks:\n"
	"    - {hookName: createContainer, path: /usr/bin/true, args: [true, one], env: [A=1], timeout: 5}\n"
	"    - {hookName: startContainer, path: /usr/bin/true}\n"
	"    additionalGids: [44, 109]\n"
	"- name: all\n"
	"  containerEdits:\n"
	"    deviceNodes:\n"
	"    - {path: /dev/nvidia0}\n"
	"    - {path: /dev/nvidia1, type: c, major: 195, minor: 1}\n"
	"    mounts:\n"
	"    - {hostPath: /run/nvidia, containerPath: /run/nvidia, type: tmpfs, options: [rw]}\n"
	"    - {hostPath: /usr/lib/libcuda.so.1, containerPath: /usr/lib/libcuda.so.1}\n"
	"    intelRdt: {closID: gpu, schemata: [L3:0=f], enableMonitoring: true}\n"
	"containerEdits:\n"
	"  env: [NVIDIA_DRIVER=550, PATH=/usr/local/nvidia/bin]\n"
	"  deviceNodes:\n"
	"  - {path: /dev/nvidiactl}\n"
	"  - {path: /dev/nvidia-uvm, type: c, major: 508, minor: 0, permissions: rwm}\n"
	"  hooks:\n"
	"  - {hookName: prestart, path: /usr/bin/nvidia-hook, args: [nvidia-hook, prestart]}\n"
	"  - {hookName: poststop, path: /usr/bin/nvidia-hook}\n"
	"  mounts:\n"
	"  - {hostPath: /usr/bin/nvidia-smi, containerPath: /usr/bin/nvidia-smi, options: [ro, rbind]}\n"
	"  - {hostPath: /run/nvidia-persistenced/socket, containerPath: /run/nvidia-persistenced/socket}\n";

static const char *const requests[] = {
	"nvidia.com/gpu=0",
	"nvidia.com/gpu=1",
	"nvidia.com/gpu=all",
	"nvidia.com/gpu=none-such",
};

static cdi_registry *registry;
static json_t *spec_edits;

/* Every node a character device 195:<hash of the path>; "/dev/dri/..." a block device. */
static int fake_lstat(const char *path, struct stat *st, void *userdata)
{
	unsigned h = 0;

	(void)userdata;
	for (const char *p = path; *p; p++)
		h = h * 31 + (unsigned char)*p;
	memset(st, 0, sizeof(*st));
	st->st_mode = (strncmp(path, "/dev/dri/", 9) == 0 ? S_IFBLK : S_IFCHR) | 0666;
	st->st_rdev = makedev(195, h % 256);
	return 0;
}

static const struct cdi_inject_options inject_opts = { .lstat_fn = fake_lstat };

/* The registry, from the spec above in a directory that is gone again once it is read. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char dir[] = "/tmp/cdikit-fuzz-apply.XXXXXX", path[64];
	const char *dirs[1] = { dir };
	struct cdi_error err = { 0 };
	json_error_t jerr;
	FILE *f;
	int r;

	(void)argc;
	(void)argv;
	fuzz_assert(mkdtemp(dir), "mkdtemp: %m");
	snprintf(path, sizeof(path), "%s/nvidia.yaml", dir);
	f = fopen(path, "w");
	fuzz_assert(f && fputs(spec_yaml, f) >= 0 && fclose(f) == 0, "%s: %m", path);
	r = cdi_registry_new(dirs, 1, 0, &registry, &err);
	unlink(path);
	rmdir(dir);
	fuzz_assert(r == 0 && cdi_error_count(cdi_registry_errors(registry)) == 0, "registry: %s",
		    r < 0 ? cdi_error_message(&err)
			  : cdi_error_message(cdi_registry_errors(registry)));
	spec_edits = json_loads("{\"env\": [\"X=1\", \"PATH=/x\"], \"mounts\": [{\"hostPath\": "
				"\"/a\", \"containerPath\": \"/b\", \"options\": [\"ro\"]}], "
				"\"deviceNodes\": [{\"path\": \"/dev/nvidia7\"}], "
				"\"additionalGids\": [5]}",
				0, &jerr);
	fuzz_assert(spec_edits, "edits: %s", jerr.text);
	return 0;
}

static void check_serialises(const json_t *oci)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_json_ json_t *again = NULL;
	json_error_t jerr;
	char why[1024];
	size_t len;

	text = cdi_json_dump(oci, 4, false, &len);
	fuzz_assert(text, "cdi_json_dump failed");
	again = json_loadb(text, len, 0, &jerr);
	fuzz_assert(again, "the edited config does not read back: %s", jerr.text);
	fuzz_assert(fuzz_json_same(oci, again, NULL, NULL, why, sizeof(why)),
		    "the edited config reads back different: %s", why);
}

/* r from an edit of oci, before a deep copy of it taken first. */
static void check_all_or_nothing(const char *what, int r, const json_t *oci, const json_t *before,
				 struct cdi_error *err)
{
	char why[1024];

	if (r < 0) {
		fuzz_assert(cdi_error_count(err) > 0, "%s failed (%d) without a problem", what, r);
		fuzz_assert(fuzz_json_same(before, oci, NULL, NULL, why, sizeof(why)),
			    "%s failed (%s) but changed the config: %s", what,
			    cdi_error_message(err), why);
	} else {
		check_serialises(oci);
	}
	cdi_error_reset(err);
}

/* What the config asks for besides DEVICE arguments: annotations and the NVIDIA_* variables. */
static void read_requests(const json_t *oci)
{
	static const struct require_driver driver = { .version = "550.54.15", .cuda = "12.4" };
	static const struct require_device gpu = { .label = "GPU 0",
						   .arch = "8.0",
						   .brand = "Tesla" };
	struct container_env env = { 0 };
	struct cdi_error err = { 0 };
	const struct requirement *reqs = NULL;
	char **devices = NULL;
	size_t n = 0, n_reqs = 0;
	unsigned caps = 0;

	if (cdi_annotations_parse(json_object_get(oci, "annotations"), &devices, &n, &err) == 0)
		cdi_strv_free(devices);
	cdi_error_reset(&err);
	fuzz_assert(container_env_read(oci, &env, &err) == 0, "container_env_read: %s",
		    cdi_error_message(&err));
	devices = NULL;
	if (container_env_visible_device_names(&env, &devices, &n, &err) == 0)
		cdi_strv_free(devices);
	cdi_error_reset(&err);
	(void)container_env_driver_caps(&env, &caps, &err);
	cdi_error_reset(&err);
	(void)env_trust_visible_devices(oci, false);
	for (int k = 0; k < 2; k++) {
		static const struct env_request_options opts[2] = {
			{ .accept_env_unprivileged = true, .none_asks_nothing = true },
			{ .accept_mounts = true, .swarm_resource = "DOCKER_RESOURCE_GPU, X" },
		};
		struct env_requests er = { 0 };

		if (env_requests_read(oci, &env, &opts[k], &er, &err) == 0) {
			fuzz_assert(er.gpus && !er.gpus[er.n_gpus],
				    "env_requests: gpus not terminated");
			fuzz_assert(er.n_gpus || er.modes.n == 0,
				    "env_requests: modes without GPUs");
			env_requests_done(&er);
		} else {
			fuzz_assert(cdi_error_count(&err) > 0,
				    "env_requests failed without a problem");
		}
		cdi_error_reset(&err);
	}
	if (container_env_requirements(&env, &reqs, &n_reqs, &err) == 0)
		(void)require_check(reqs, n_reqs, &driver, &gpu, 1, &err);
	cdi_error_reset(&err);
	container_env_done(&env);
}

/* The config as runc reads it: what cdi-runtime writes from that reading is strict JSON that
 * reads back the same. */
static void read_as_runc(const char *text, size_t len)
{
	_cleanup_json_ json_t *go = NULL, *again = NULL;
	_cleanup_free_ char *out = NULL;
	struct cdi_error err = { 0 };
	char why[1024];
	size_t out_len;
	int r = oci_config_parse_flags("c.json", text, len, OCI_CONFIG_GO_DECODER, &go, &err);

	if (r < 0) {
		fuzz_assert(cdi_error_count(&err) > 0, "Go reading failed without a problem");
		cdi_error_reset(&err);
		return;
	}
	out = cdi_json_dump(go, 0, false, &out_len);
	fuzz_assert(out, "out of memory");
	r = oci_config_parse("again", out, out_len, &again, &err);
	fuzz_assert(r == 0, "the Go reading does not write strict JSON: %s",
		    cdi_error_message(&err));
	fuzz_assert(fuzz_json_same(go, again, NULL, NULL, why, sizeof(why)),
		    "the Go reading reads back different: %s", why);
	read_requests(go);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_json_ json_t *oci = NULL, *before = NULL;
	struct cdi_error err = { 0 };
	const char *devices[ELEMENTSOF(requests)];
	size_t n = 0;
	json_error_t jerr;
	int r;

	if (size < 1)
		return 0;
	read_as_runc((const char *)data + 1, size - 1);
	for (size_t i = 0; i < ELEMENTSOF(requests); i++)
		if (data[0] & (1u << i))
			devices[n++] = requests[i];
	oci = json_loadb((const char *)data + 1, size - 1, 0, &jerr);
	if (!oci || !json_is_object(oci))
		return 0;
	read_requests(oci);

	before = json_deep_copy(oci);
	fuzz_assert(before, "out of memory");
	r = cdi_apply_edits(oci, spec_edits, &inject_opts, &err);
	check_all_or_nothing("cdi_apply_edits", r, oci, before, &err);

	json_decref(before);
	before = json_deep_copy(oci);
	fuzz_assert(before, "out of memory");
	r = cdi_registry_inject(registry, oci, devices, n, &inject_opts, &err);
	check_all_or_nothing("cdi_registry_inject", r, oci, before, &err);
	if (r == 0 && n > 0) {
		r = cdi_registry_inject(registry, oci, devices, n, &inject_opts, &err);
		fuzz_assert(r == 0, "injecting again fails: %s", cdi_error_message(&err));
		check_serialises(oci);
	}
	return 0;
}
