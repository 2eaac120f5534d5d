/* SPDX-License-Identifier: Apache-2.0 */
/*
 * env_inject: the NVIDIA_* decisions put together for devices a container's environment
 * selected, on a small spec and its facts file in a temp dir (the end-to-end suite
 * e2e-runtime-env.sh runs the same through cdi-runtime and runc on a generated one): capability
 * filtering only for the environment's devices, requirements against the facts, failing closed
 * without them or with stale ones, all or nothing.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include <cdi/registry.h>

#include "nvidia/container_env.h"
#include "nvidia/env_inject.h"
#include "../lib/testlib.h"

static char tmp[] = "/tmp/cdikit-env-inject.XXXXXX";
static char cdi[sizeof(tmp) + 8], spec[sizeof(cdi) + 16], host[sizeof(tmp) + 8];

static const char spec_text[] =
	"cdiVersion: \"0.5.0\"\n"
	"kind: nvidia.com/gpu\n"
	"containerEdits:\n"
	"  deviceNodes:\n"
	"    - {path: /dev/nvidiactl, type: c, major: 195, minor: 255}\n"
	"    - {path: /dev/nvidia-uvm, type: c, major: 508, minor: 0}\n"
	"  mounts:\n"
	"    - {hostPath: /drv/libcuda.so.1, containerPath: /usr/lib/libcuda.so.1, options: [ro, bind]}\n"
	"    - {hostPath: /drv/libnvidia-ml.so.1, containerPath: /usr/lib/libnvidia-ml.so.1, options: [ro, bind]}\n"
	"    - {hostPath: /drv/gsp.bin, containerPath: /lib/firmware/nvidia/gsp.bin, options: [ro, bind]}\n"
	"devices:\n"
	"  - name: \"0\"\n"
	"    containerEdits:\n"
	"      deviceNodes: [{path: /dev/nvidia0, type: c, major: 195, minor: 0}]\n"
	"  - name: \"1\"\n"
	"    containerEdits:\n"
	"      deviceNodes: [{path: /dev/nvidia1, type: c, major: 195, minor: 1}]\n"
	"  - name: all\n"
	"    containerEdits:\n"
	"      deviceNodes:\n"
	"        - {path: /dev/nvidia0, type: c, major: 195, minor: 0}\n"
	"        - {path: /dev/nvidia1, type: c, major: 195, minor: 1}\n";

/* GPU 1 is left out by the "undescribed" test. */
static const char facts_fmt[] =
	"{\"cdikitFacts\": 1, \"kind\": \"nvidia.com/gpu\",\n"
	" \"driver\": {\"version\": \"550.54.15\", \"cuda\": \"12.4\"},\n"
	" \"gpus\": [{\"index\": 0, \"minor\": 0, \"uuid\": \"GPU-a\", \"brand\": \"Tesla\", \"arch\": \"8.0\", \"devices\": [\"0\"]}%s],\n"
	" \"capabilities\": {\"/usr/lib/libcuda.so.1\": \"compute\", \"/usr/lib/libnvidia-ml.so.1\": \"utility\"}}\n";
static const char gpu1[] =
	", {\"index\": 1, \"minor\": 1, \"uuid\": \"GPU-b\", \"brand\": \"Tesla\", \"arch\": \"9.0\", \"devices\": [\"1\"]}";

static void write_facts(bool with_gpu1)
{
	char text[2048];

	snprintf(text, sizeof(text), facts_fmt, with_gpu1 ? gpu1 : "");
	free(write_file_in(cdi, "nvidia.yaml.cdikit", text));
}

static void running_driver(const char *version)
{
	sh("mkdir -p '%s/proc/driver/nvidia' && printf 'NVRM version: NVIDIA UNIX x86_64 Kernel Module  %s  Tue Mar  5 22:23:56 UTC 2024\\n' >'%s/proc/driver/nvidia/version'",
	   host, version, host);
}

static void setup(void)
{
	cr_assert_not_null(mkdtemp(tmp));
	snprintf(cdi, sizeof(cdi), "%s/cdi", tmp);
	snprintf(host, sizeof(host), "%s/host", tmp);
	snprintf(spec, sizeof(spec), "%s/nvidia.yaml", cdi);
	sh("mkdir -p '%s' '%s'", cdi, host);
	free(write_file_in(cdi, "nvidia.yaml", spec_text));
	write_facts(true);
	running_driver("550.54.15");
}

static void teardown(void)
{
	sh("rm -rf '%s'", tmp);
}

TestSuite(inject, .init = setup, .fini = teardown);

/*
 * env_inject() of devices (n_named of them exact names) into a config with the env list (NULL
 * terminated); 0 or the error, whose message goes to *ret_msg (malloc'd) when asked.
 */
static int inject(json_t *oci, const char *const *devices, size_t n, size_t n_named, char **ret_msg,
		  ...)
{
	const char *dirs[] = { cdi };
	const struct env_inject_options opts = { .host_root = host };
	json_t *env_list = json_object_get(json_object_get(oci, "process"), "env");
	struct container_env env;
	struct cdi_error err = { 0 };
	cdi_registry *reg = NULL;
	va_list ap;
	int r;

	va_start(ap, ret_msg);
	for (const char *s; (s = va_arg(ap, const char *));)
		json_array_append_new(env_list, json_string(s));
	va_end(ap);
	cr_assert_eq(cdi_registry_new(dirs, 1, 0, &reg, &err), 0, "%s", cdi_error_message(&err));
	cr_assert_eq(container_env_read(oci, &env, &err), 0);
	r = env_inject(reg, oci, &env, devices, n, n_named, &opts, &err);
	if (ret_msg)
		*ret_msg = r < 0 ? strdup(cdi_error_message(&err)) : NULL;
	cdi_error_reset(&err);
	container_env_done(&env);
	cdi_registry_free(reg);
	return r;
}

static json_t *new_config(void)
{
	return load(
		"{'ociVersion': '1.0.2', 'process': {'env': [], 'capabilities': {'bounding': []}}}");
}

static bool mounted(const json_t *oci, const char *path)
{
	const json_t *m;
	size_t i;

	json_array_foreach (json_object_get(oci, "mounts"), i, m)
		if (!strcmp(json_string_value(json_object_get(m, "destination")), path))
			return true;
	return false;
}

static bool has_node(const json_t *oci, const char *path)
{
	const json_t *d;
	size_t i;

	json_array_foreach (json_object_get(json_object_get(oci, "linux"), "devices"), i, d)
		if (!strcmp(json_string_value(json_object_get(d, "path")), path))
			return true;
	return false;
}

static const char *const gpu0[] = { "nvidia.com/gpu=0" };

/* A new config the devices went into, with NVIDIA_DRIVER_CAPABILITIES=caps. */
static json_t *with_caps(const char *const *devices, size_t n, size_t n_named, const char *caps)
{
	json_t *oci = new_config();
	char var[64];

	snprintf(var, sizeof(var), "NVIDIA_DRIVER_CAPABILITIES=%s", caps);
	cr_assert_eq(inject(oci, devices, n, n_named, NULL, var, NULL), 0, "%s", caps);
	return oci;
}

Test(inject, environment_devices_get_their_capabilities_files)
{
	_cleanup_json_ json_t *oci = with_caps(gpu0, 1, 0, "utility");

	cr_assert(mounted(oci, "/usr/lib/libnvidia-ml.so.1"));
	cr_assert_not(mounted(oci, "/usr/lib/libcuda.so.1"));
	cr_assert(mounted(oci, "/lib/firmware/nvidia/gsp.bin"), "unrecorded files always go");
	cr_assert(has_node(oci, "/dev/nvidia0"));
	cr_assert(has_node(oci, "/dev/nvidiactl"));
	cr_assert_not(has_node(oci, "/dev/nvidia-uvm"), "uvm needs compute");
}

Test(inject, default_capabilities_are_utility_and_compute)
{
	_cleanup_json_ json_t *oci = new_config();

	cr_assert_eq(inject(oci, gpu0, 1, 0, NULL, NULL), 0);
	cr_assert(mounted(oci, "/usr/lib/libcuda.so.1"));
	cr_assert(mounted(oci, "/usr/lib/libnvidia-ml.so.1"));
	cr_assert(has_node(oci, "/dev/nvidia-uvm"));
}

Test(inject, named_devices_get_every_file)
{
	_cleanup_json_ json_t *oci = with_caps(gpu0, 1, 1, "utility");
	const char *const mixed[] = { "nvidia.com/gpu=1", "nvidia.com/gpu=0" };

	cr_assert(mounted(oci, "/usr/lib/libcuda.so.1"));
	json_decref(oci);

	/* A named device shares its spec's edits with an environment one: they stay whole. */
	oci = with_caps(mixed, 2, 1, "utility");
	cr_assert(mounted(oci, "/usr/lib/libcuda.so.1"));
	cr_assert(has_node(oci, "/dev/nvidia0"));
	cr_assert(has_node(oci, "/dev/nvidia1"));
}

Test(inject, requirements_per_selected_gpu)
{
	_cleanup_json_ json_t *oci = new_config(), *before = NULL;
	const char *const gpu1_only[] = { "nvidia.com/gpu=1" }, *const all[] = {
		"nvidia.com/gpu=all"
	};
	_cleanup_free_ char *msg = NULL;

	before = json_deep_copy(oci);
	cr_assert_eq(inject(oci, all, 1, 0, &msg, "NVIDIA_REQUIRE_ARCH=arch>=9.0", NULL),
		     REQUIRE_UNMET);
	cr_assert_str_eq(
		msg,
		"NVIDIA_REQUIRE_ARCH: unsatisfied condition: arch>=9.0 (GPU 0 has compute capability 8.0)");
	/* All or nothing: only the env the test appended differs. */
	json_array_clear(json_object_get(json_object_get(oci, "process"), "env"));
	assert_json_eq(oci, before);

	cr_assert_eq(inject(oci, gpu1_only, 1, 0, NULL, "NVIDIA_REQUIRE_ARCH=arch>=9.0",
			    "NVIDIA_REQUIRE_CUDA=cuda>=12.0 brand=grid",
			    "NVIDIA_REQUIRE_X=brand=tesla", NULL),
		     0);
	cr_assert(has_node(oci, "/dev/nvidia1"));
}

Test(inject, requirements_without_facts_fail_closed)
{
	_cleanup_json_ json_t *oci = new_config();
	_cleanup_free_ char *msg = NULL, *want = NULL;

	sh("rm '%s.cdikit'", spec);
	cr_assert_eq(inject(oci, gpu0, 1, 0, &msg, "NVIDIA_REQUIRE_CUDA=cuda>=12.0", NULL),
		     -ENOENT);
	cr_assert_geq(
		asprintf(
			&want,
			"NVIDIA_REQUIRE_CUDA: cannot check \"cuda>=12.0\": no facts file %s.cdikit beside the spec (cdi-generate writes it), so the driver and GPUs are unknown; or set NVIDIA_DISABLE_REQUIRE=true",
			spec),
		0);
	cr_assert_str_eq(msg, want);
	json_decref(oci);

	/* Without requirements nothing needs the facts: every file goes. */
	oci = new_config();
	cr_assert_eq(inject(oci, gpu0, 1, 0, NULL, "NVIDIA_DRIVER_CAPABILITIES=utility",
			    "NVIDIA_REQUIRE_CUDA=cuda>=99", "NVIDIA_DISABLE_REQUIRE=1", NULL),
		     0);
	cr_assert(mounted(oci, "/usr/lib/libcuda.so.1"));
}

Test(inject, stale_facts_are_named)
{
	_cleanup_json_ json_t *oci = new_config();
	_cleanup_free_ char *msg = NULL, *want = NULL;

	running_driver("555.42.02");
	cr_assert_eq(inject(oci, gpu0, 1, 0, &msg, "NVIDIA_REQUIRE_CUDA=cuda>=12.0", NULL),
		     -ESTALE);
	cr_assert_geq(
		asprintf(
			&want,
			"%s.cdikit: recorded for driver 550.54.15, but the running driver is 555.42.02 (/proc/driver/nvidia/version): run cdi-generate again, or set NVIDIA_DISABLE_REQUIRE=true",
			spec),
		0);
	cr_assert_str_eq(msg, want);
}

Test(inject, a_device_the_facts_do_not_describe)
{
	_cleanup_json_ json_t *oci = new_config();
	const char *const gpu1_only[] = { "nvidia.com/gpu=1" };
	_cleanup_free_ char *msg = NULL, *want = NULL;

	write_facts(false);
	cr_assert_eq(inject(oci, gpu1_only, 1, 0, &msg, "NVIDIA_REQUIRE_CUDA=cuda>=12.0", NULL),
		     -ENOENT);
	cr_assert_geq(
		asprintf(
			&want,
			"%s.cdikit: nvidia.com/gpu=1: not described, so NVIDIA_REQUIRE_CUDA cannot be checked: run cdi-generate again",
			spec),
		0);
	cr_assert_str_eq(msg, want);
}

Test(inject, mig_admin_refused_unprivileged)
{
	_cleanup_json_ json_t *oci = new_config();
	_cleanup_free_ char *msg = NULL;

	cr_assert_eq(inject(oci, gpu0, 1, 0, &msg, "NVIDIA_MIG_MONITOR_DEVICES=all", NULL), -EPERM);
	cr_assert_str_eq(
		msg,
		"NVIDIA_MIG_MONITOR_DEVICES: refused: MIG monitor access needs a privileged container (CAP_SYS_ADMIN in its bounding capabilities)");
}

Test(inject, mps_directory_under_the_host_root)
{
	_cleanup_json_ json_t *oci = NULL;

	sh("mkdir -p '%s/tmp/nvidia-mps'", host);
	oci = with_caps(gpu0, 1, 0, "compute");
	cr_assert(mounted(oci, "/tmp/nvidia-mps"));
	json_decref(oci);
	oci = with_caps(gpu0, 1, 0, "utility");
	cr_assert_not(mounted(oci, "/tmp/nvidia-mps"));
}
