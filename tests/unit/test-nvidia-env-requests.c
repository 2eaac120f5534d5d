/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ways nvidia-container-runtime v1.20 lets a container ask for devices beside
 * NVIDIA_VISIBLE_DEVICES (apply/nvidia/env_requests.c, mount_requests.c, mode_devices.c),
 * with its rules (internal/config/image/cuda_image.go, internal/modifier/cdi.go):
 *   - /dev/null volume mounts under /var/run/nvidia-container-devices, when accepted: GPU ids,
 *     cdi/<vendor>/<class>/<device> and cdi/<vendor>/<class>=<device>, imex/<channel>; they
 *     replace the variables kind by kind and are not subject to the trust rule;
 *   - swarm-resource: the first listed variable the container sets replaces
 *     NVIDIA_VISIBLE_DEVICES (values as Docker Swarm's generic resources write them);
 *   - NVIDIA_IMEX_CHANNELS: "all" ignored, the trust rule, channel ids checked;
 *   - NVIDIA_GDS/MOFED/GDRCOPY/NVSWITCH: exactly "enabled";
 *   - channels and gated modes only beside GPUs, named first (exact CDI names) in the request;
 *   - a channel or mode the specs lack: one line naming it and cdi-generate --mode.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include <cdi/cdi.h>

#include "nvidia/device_requests.h"
#include "nvidia/mount_requests.h"
#include "strv.h"
#include "../lib/testlib.h"

#define UUID_A "GPU-45cbf7b3-f919-7228-7a26-b06628ebefa1"
#define UUID_B "GPU-dcd4a2b4-2b43-21d8-b3ab-3a3b1e69f1b5"
#define ROOT "/var/run/nvidia-container-devices"

static const char dev_null_mount[] = "{'source': '/dev/null', 'destination': '%s', 'type': 'bind',"
				     " 'options': ['ro', 'nosuid', 'nodev', 'bind']}";

/* A config: privileged or not, its env entries and the destinations of /dev/null mounts, each
 * list NULL-terminated, env first. */
static json_t *config(bool privileged, ...)
{
	char *text = NULL, *p;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	const char *s, *sep = "";
	va_list ap;
	json_t *j;

	cr_assert_not_null(f);
	fprintf(f, "{'process': {'capabilities': {'bounding': ['CAP_CHOWN'%s]}, 'env': [",
		privileged ? ", 'CAP_SYS_ADMIN'" : "");
	va_start(ap, privileged);
	while ((s = va_arg(ap, const char *))) {
		fprintf(f, "%s'%s'", sep, s);
		sep = ", ";
	}
	fputs("]}, 'mounts': [{'source': 'proc', 'destination': '/proc', 'type': 'proc'}", f);
	while ((s = va_arg(ap, const char *))) {
		fputs(", ", f);
		fprintf(f, dev_null_mount, s);
	}
	va_end(ap);
	fputs("]}", f);
	cr_assert_eq(fclose(f), 0);
	for (p = text; *p; p++)
		if (*p == '\'')
			*p = '"';
	j = json_loads(text, 0, NULL);
	cr_assert_not_null(j, "%s", text);
	free(text);
	return j;
}

static struct device_requests take(json_t *oci, const struct env_request_options *o)
{
	struct container_env env = { 0 };
	struct device_requests r = { 0 };
	struct cdi_error err = { 0 };

	cr_assert_eq(container_env_read(oci, &env, &err), 0);
	cr_assert_eq(device_requests_take(oci, &env, o, &r, &err), 0, "%s",
		     cdi_error_message(&err));
	container_env_done(&env);
	return r;
}

/* The requests oci makes under o: want, NULL-terminated, is every device in order; named how
 * many come first as exact names. */
static void expect(json_t *oci, const struct env_request_options *o, size_t named, ...)
{
	struct device_requests r = take(oci, o);
	const char *want;
	size_t i = 0;
	va_list ap;

	va_start(ap, named);
	while ((want = va_arg(ap, const char *))) {
		cr_assert_lt(i, r.n, "missing %s", want);
		cr_expect_str_eq(r.devices[i], want, "item %zu", i);
		i++;
	}
	va_end(ap);
	cr_expect_eq(r.n, i, "%zu devices, want %zu (first extra: %s)", r.n, i,
		     r.n > i ? r.devices[i] : "");
	cr_expect_eq(r.n_named, named);
	cr_expect_eq(r.source, r.n ? DEVICE_REQUEST_ENV : DEVICE_REQUEST_NONE);
	device_requests_done(&r);
	json_decref(oci);
}

static void expect_error(json_t *oci, const struct env_request_options *o, const char *message)
{
	struct container_env env = { 0 };
	struct device_requests r = { 0 };
	struct cdi_error err = { 0 };

	cr_assert_eq(container_env_read(oci, &env, &err), 0);
	cr_expect_eq(device_requests_take(oci, &env, o, &r, &err), -EINVAL);
	cr_expect_str_eq(cdi_error_message(&err), message);
	cdi_error_reset(&err);
	container_env_done(&env);
	json_decref(oci);
}

static const struct env_request_options trusting = { .accept_env_unprivileged = true };
static const struct env_request_options mounts_trusting = { .accept_mounts = true,
							    .accept_env_unprivileged = true };
/* The secure Kubernetes setup: the plugin's mounts, never the pod's own variables. */
static const struct env_request_options secure = { .accept_mounts = true };

Test(mounts, the_device_plugins_forms)
{
	/* volume-mounts strategy: one mount per device, NVIDIA_VISIBLE_DEVICES pointing at the
	 * root (NVIDIA/k8s-device-plugin, updateResponseForDeviceMounts). */
	expect(config(false, "NVIDIA_VISIBLE_DEVICES=" ROOT, NULL, ROOT "/" UUID_A, ROOT "/" UUID_B,
		      NULL),
	       &secure, 0, "nvidia.com/gpu=" UUID_A, "nvidia.com/gpu=" UUID_B, NULL);
	/* The same with the variables trusted: the mounts still win. */
	expect(config(false, "NVIDIA_VISIBLE_DEVICES=all", NULL, ROOT "/1", NULL), &mounts_trusting,
	       0, "nvidia.com/gpu=1", NULL);
	/* CDI names, both spellings; repeats dropped; MIG devices by index. */
	expect(config(false, NULL, ROOT "/cdi/nvidia.com/gpu/0", ROOT "/cdi/nvidia.com/gpu=0",
		      ROOT "/cdi/vendor.com/fpga=x", ROOT "/2:1", ROOT "/0", NULL),
	       &secure, 0, "nvidia.com/gpu=0", "vendor.com/fpga=x", "nvidia.com/gpu=2:1", NULL);
	/* A device part may hold '/' (cdi.go: SplitN 3). */
	expect(config(false, NULL, ROOT "/cdi/nvidia.com/gpu/MIG-x/1/2", NULL), &secure, 0,
	       "nvidia.com/gpu=MIG-x/1/2", NULL);
}

Test(mounts, only_dev_null_under_the_root_cleaned)
{
	/* Go's filepath.Clean on both sides; the same destination twice counts once. */
	expect(config(false, NULL, ROOT "//0/", "/var/run/../run/nvidia-container-devices/./1",
		      ROOT "/0", NULL),
	       &secure, 0, "nvidia.com/gpu=0", "nvidia.com/gpu=1", NULL);
	/* Not requests: the root itself, a sibling sharing its prefix (the runtime compares
	 * strings there; cdikit wants a path under the root), /run instead of /var/run. */
	expect(config(false, NULL, ROOT, ROOT "X/0", "/run/nvidia-container-devices/0", NULL),
	       &secure, 0, NULL);
	/* Not requests: another source. */
	json_t *oci = config(false, NULL, NULL);
	json_array_append_new(
		json_object_get(oci, "mounts"),
		json_pack("{s:s, s:s}", "source", "/dev/zero", "destination", ROOT "/0"));
	json_array_append_new(
		json_object_get(oci, "mounts"),
		json_pack("{s:s, s:s}", "source", "/dev//./null", "destination", ROOT "/3"));
	expect(oci, &secure, 0, "nvidia.com/gpu=3", NULL);
}

Test(mounts, left_in_the_config)
{
	json_t *oci = config(false, NULL, ROOT "/0", NULL);
	json_t *before = json_deep_copy(oci);
	struct device_requests r = take(oci, &secure);

	/* As NVIDIA's runtime leaves them: /dev/null at a path nothing reads. */
	assert_json_eq(oci, before);
	device_requests_done(&r);
	json_decref(oci);
	json_decref(before);
}

Test(mounts, not_read_unless_accepted)
{
	expect(config(false, NULL, ROOT "/0", NULL), &trusting, 0, NULL);
	/* The device plugin's variable is then a request for a device no spec has (the runtime
	 * fails on it as unresolvable): say what it means. */
	expect_error(
		config(false, "NVIDIA_VISIBLE_DEVICES=" ROOT, NULL, ROOT "/0", NULL), &trusting,
		"NVIDIA_VISIBLE_DEVICES=" ROOT
		": the devices are listed as volume mounts, which are read only with accept-nvidia-visible-devices-as-volume-mounts = true (cdi-runtime's runtime.conf)");
	expect_error(
		config(false, "NVIDIA_VISIBLE_DEVICES=" ROOT, NULL, NULL), &mounts_trusting,
		"NVIDIA_VISIBLE_DEVICES=" ROOT
		": the devices are listed as volume mounts, and there is none (no /dev/null mount under " ROOT
		")");
	/* Untrusted, it is ignored like any other value of the variable. */
	expect(config(false, "NVIDIA_VISIBLE_DEVICES=" ROOT, NULL, NULL),
	       &(struct env_request_options){ 0 }, 0, NULL);
}

Test(mounts, a_bad_cdi_request_is_named)
{
	expect_error(config(false, NULL, ROOT "/cdi/nvidia.com", NULL), &secure,
		     "volume mount " ROOT "/cdi/nvidia.com: not a CDI device request (" ROOT
		     "/cdi/<vendor>/<class>/<device> or .../cdi/<vendor>/<class>=<device>)");
}

/* accept-nvidia-visible-devices-envvar-when-unprivileged with and without mounts. */
Test(trust, both_settings_together)
{
	/* Secure: the pod's own variable selects nothing, the plugin's mounts do. */
	expect(config(false, "NVIDIA_VISIBLE_DEVICES=all", NULL, NULL), &secure, 0, NULL);
	expect(config(false, "NVIDIA_VISIBLE_DEVICES=all", NULL, ROOT "/0", NULL), &secure, 0,
	       "nvidia.com/gpu=0", NULL);
	/* A privileged container is trusted. */
	expect(config(true, "NVIDIA_VISIBLE_DEVICES=all", NULL, NULL), &secure, 0,
	       "nvidia.com/gpu=all", NULL);
	/* Mounts accepted, variables trusted, no mount: the variable. */
	expect(config(false, "NVIDIA_VISIBLE_DEVICES=3", NULL, NULL), &mounts_trusting, 0,
	       "nvidia.com/gpu=3", NULL);

	json_t *oci =
		config(false, "NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_IMEX_CHANNELS=0", NULL, NULL);
	struct device_requests r = take(oci, &secure);

	cr_expect_eq(r.n, 0);
	cr_expect(r.env.ignored);
	cr_expect_str_eq(r.env.var, "NVIDIA_VISIBLE_DEVICES");
	cr_expect_str_eq(r.env.value, "all");
	device_requests_done(&r);
	json_decref(oci);
}

/* Docker Swarm: node-generic-resources ["gpu=GPU-45cbf7b", ...] give DOCKER_RESOURCE_GPU, the
 * assigned values joined by commas (swarmkit api/genericresource EnvFormat). */
Test(swarm, first_listed_variable_replaces_nvidia_visible_devices)
{
	const struct env_request_options swarm = { .accept_env_unprivileged = true,
						   .swarm_resource = "DOCKER_RESOURCE_GPU" };
	const struct env_request_options two = {
		.accept_env_unprivileged = true,
		.swarm_resource = " DOCKER_RESOURCE_NVIDIA-GPU , DOCKER_RESOURCE_GPU"
	};

	expect(config(false, "NVIDIA_VISIBLE_DEVICES=all", "DOCKER_RESOURCE_GPU=" UUID_A "," UUID_B,
		      NULL, NULL),
	       &swarm, 0, "nvidia.com/gpu=" UUID_A, "nvidia.com/gpu=" UUID_B, NULL);
	/* Without the variable: NVIDIA_VISIBLE_DEVICES. */
	expect(config(false, "NVIDIA_VISIBLE_DEVICES=1", NULL, NULL), &swarm, 0, "nvidia.com/gpu=1",
	       NULL);
	/* The first of the list the container has. */
	expect(config(false, "DOCKER_RESOURCE_GPU=" UUID_A, "DOCKER_RESOURCE_NVIDIA-GPU=" UUID_B,
		      NULL, NULL),
	       &two, 0, "nvidia.com/gpu=" UUID_B, NULL);
	/* Set but empty: it still replaces NVIDIA_VISIBLE_DEVICES, and asks for nothing. */
	expect(config(false, "NVIDIA_VISIBLE_DEVICES=all", "DOCKER_RESOURCE_GPU=", NULL, NULL),
	       &swarm, 0, NULL);
	/* Not set by that name (case matters), or no setting: NVIDIA_VISIBLE_DEVICES. */
	expect(config(false, "NVIDIA_VISIBLE_DEVICES=2", "docker_resource_gpu=0", NULL, NULL),
	       &swarm, 0, "nvidia.com/gpu=2", NULL);
	expect(config(false, "NVIDIA_VISIBLE_DEVICES=2", "DOCKER_RESOURCE_GPU=0", NULL, NULL),
	       &trusting, 0, "nvidia.com/gpu=2", NULL);
}

Test(swarm, same_trust_rule)
{
	const struct env_request_options swarm = { .swarm_resource = "DOCKER_RESOURCE_GPU" };
	json_t *oci = config(false, "DOCKER_RESOURCE_GPU=" UUID_A, NULL, NULL);
	struct device_requests r = take(oci, &swarm);

	cr_expect_eq(r.n, 0);
	cr_expect(r.env.ignored);
	cr_expect_str_eq(r.env.var, "DOCKER_RESOURCE_GPU");
	cr_expect_str_eq(r.env.value, UUID_A);
	device_requests_done(&r);
	json_decref(oci);
	expect(config(true, "DOCKER_RESOURCE_GPU=" UUID_A, NULL, NULL), &swarm, 0,
	       "nvidia.com/gpu=" UUID_A, NULL);
}

Test(imex, channels_beside_gpus)
{
	expect(config(false, "NVIDIA_VISIBLE_DEVICES=0", "NVIDIA_IMEX_CHANNELS=0,3, 3 ,channel7",
		      NULL, NULL),
	       &trusting, 3, "nvidia.com/imex-channel=0", "nvidia.com/imex-channel=3",
	       "nvidia.com/imex-channel=7", "nvidia.com/gpu=0", NULL);
	/* No GPU asked for: no channel either (the runtime adds them to a GPU request only). */
	expect(config(false, "NVIDIA_IMEX_CHANNELS=0", NULL, NULL), &trusting, 0, NULL);
	/* "all" is ignored, as are void and none, wherever they are in the list. */
	expect(config(false, "NVIDIA_VISIBLE_DEVICES=0", "NVIDIA_IMEX_CHANNELS=all", NULL, NULL),
	       &trusting, 0, "nvidia.com/gpu=0", NULL);
	expect(config(false, "NVIDIA_VISIBLE_DEVICES=0", "NVIDIA_IMEX_CHANNELS=1,all", NULL, NULL),
	       &trusting, 0, "nvidia.com/gpu=0", NULL);
	expect(config(false, "NVIDIA_VISIBLE_DEVICES=0", "NVIDIA_IMEX_CHANNELS=1,none", NULL, NULL),
	       &trusting, 0, "nvidia.com/gpu=0", NULL);
	expect(config(false, "NVIDIA_VISIBLE_DEVICES=0", "NVIDIA_IMEX_CHANNELS=void", NULL, NULL),
	       &trusting, 0, "nvidia.com/gpu=0", NULL);
	/* A legacy image: all GPUs, and its unset channels are the runtime's ignored "all". */
	expect(config(false, "CUDA_VERSION=12.2.0", NULL, NULL), &trusting, 0, "nvidia.com/gpu=all",
	       NULL);
}

Test(imex, trust_and_mounts)
{
	/* The pod's own variable is not trusted; the plugin's imex/ mounts are. */
	json_t *oci = config(false, "NVIDIA_IMEX_CHANNELS=5", NULL, ROOT "/0", NULL);
	struct device_requests r = take(oci, &secure);

	cr_expect_eq(r.n, 1);
	cr_expect_str_eq(r.devices[0], "nvidia.com/gpu=0");
	cr_expect_str_eq(r.env.ignored_imex, "5");
	device_requests_done(&r);
	json_decref(oci);
	expect(config(false, "NVIDIA_IMEX_CHANNELS=5", NULL, ROOT "/0", ROOT "/imex/2", NULL),
	       &secure, 1, "nvidia.com/imex-channel=2", "nvidia.com/gpu=0", NULL);
	/* Mounted channels replace the variable's; imex/all is every channel. */
	expect(config(false, "NVIDIA_VISIBLE_DEVICES=0", "NVIDIA_IMEX_CHANNELS=5", NULL,
		      ROOT "/imex/all", NULL),
	       &mounts_trusting, 1, "nvidia.com/imex-channel=all", "nvidia.com/gpu=0", NULL);
	/* Channel mounts alone do not make a GPU request. */
	expect(config(false, NULL, ROOT "/imex/2", NULL), &secure, 0, NULL);
}

Test(imex, channel_ids_checked)
{
	expect_error(
		config(false, "NVIDIA_VISIBLE_DEVICES=0", "NVIDIA_IMEX_CHANNELS=0,x1", NULL, NULL),
		&trusting,
		"NVIDIA_IMEX_CHANNELS=0,x1: \"x1\" is not an IMEX channel (a number from 0 to 1048575)");
	expect_error(
		config(false, "NVIDIA_VISIBLE_DEVICES=0", "NVIDIA_IMEX_CHANNELS=1048576", NULL,
		       NULL),
		&trusting,
		"NVIDIA_IMEX_CHANNELS=1048576: \"1048576\" is not an IMEX channel (a number from 0 to 1048575)");
	expect_error(config(false, NULL, ROOT "/0", ROOT "/imex/-1", NULL), &secure,
		     ROOT "/imex/-1: \"-1\" is not an IMEX channel (a number from 0 to 1048575)");
	expect(config(false, "NVIDIA_VISIBLE_DEVICES=0", "NVIDIA_IMEX_CHANNELS=1048575", NULL,
		      NULL),
	       &trusting, 1, "nvidia.com/imex-channel=1048575", "nvidia.com/gpu=0", NULL);
}

Test(gated, exactly_enabled)
{
	expect(config(false, "NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_NVSWITCH=enabled",
		      "NVIDIA_GDS=enabled", "NVIDIA_MOFED=enabled", "NVIDIA_GDRCOPY=enabled",
		      "NVIDIA_IMEX_CHANNELS=1", NULL, NULL),
	       &trusting, 5, "nvidia.com/imex-channel=1", "nvidia.com/gds=all",
	       "nvidia.com/mofed=all", "nvidia.com/gdrcopy=all", "nvidia.com/nvswitch=all",
	       "nvidia.com/gpu=all", NULL);
	/* Any other value asks for nothing. */
	expect(config(false, "NVIDIA_VISIBLE_DEVICES=0", "NVIDIA_GDS=true", "NVIDIA_MOFED=Enabled",
		      "NVIDIA_GDRCOPY=", "NVIDIA_NVSWITCH= enabled", NULL, NULL),
	       &trusting, 0, "nvidia.com/gpu=0", NULL);
	/* The last assignment counts; no GPU, no mode. */
	expect(config(false, "NVIDIA_VISIBLE_DEVICES=0", "NVIDIA_GDS=enabled", "NVIDIA_GDS=no",
		      NULL, NULL),
	       &trusting, 0, "nvidia.com/gpu=0", NULL);
	expect(config(false, "NVIDIA_GDS=enabled", NULL, NULL), &trusting, 0, NULL);
	/* Beside GPUs from mounts too, with the variable read as it is (no trust rule, as the
	 * runtime); and beside NVIDIA_VISIBLE_DEVICES=none. */
	expect(config(false, "NVIDIA_GDS=enabled", NULL, ROOT "/0", NULL), &secure, 1,
	       "nvidia.com/gds=all", "nvidia.com/gpu=0", NULL);
	expect(config(false, "NVIDIA_VISIBLE_DEVICES=none", "NVIDIA_MOFED=enabled", NULL, NULL),
	       &trusting, 1, "nvidia.com/mofed=all", "nvidia.com/gpu=none", NULL);
}

/* The check against the specs: one line naming what asked, the device and the command. */
static struct scratch scratch;

static void setup(void)
{
	scratch_make(&scratch, "envreq");
}

static void teardown(void)
{
	scratch_remove(&scratch);
}

TestSuite(modes, .init = setup, .fini = teardown);

/* want: the message with %s for the spec directory, or NULL for no problem. */
static void check_modes(const char *env_imex, const char *gds, const char *want)
{
	const char *dirs[] = { scratch.path };
	const char *values[GATED_N] = { [GATED_GDS] = gds };
	struct mode_devices d = { 0 };
	struct cdi_error err = { 0 };
	_cleanup_strv_free_ char **ids = NULL;
	_cleanup_free_ char *message = NULL;
	cdi_registry *reg = NULL;

	cr_assert_eq(cdi_registry_new(dirs, 1, 0, &reg, &err), 0, "%s", cdi_error_message(&err));
	cr_assert_eq(imex_channels_parse(env_imex, &ids, NULL, &err), 0);
	for (char **id = ids; *id; id++)
		cr_assert_eq(mode_devices_add_imex(&d, *id, false, "NVIDIA_IMEX_CHANNELS=x", &err),
			     0);
	cr_assert_eq(mode_devices_add_gated(&d, values, &err), 0);
	if (want) {
		cr_assert(asprintf(&message, want, scratch.path) > 0);
		cr_expect_eq(mode_devices_check(&d, reg, &err), -ENOENT);
		cr_expect_str_eq(cdi_error_message(&err), message);
		cr_expect_eq(cdi_error_count(&err), 1);
	} else {
		cr_expect_eq(mode_devices_check(&d, reg, &err), 0, "%s", cdi_error_message(&err));
	}
	cdi_error_reset(&err);
	mode_devices_done(&d);
	cdi_registry_free(reg);
}

Test(modes, missing_spec_or_channel_is_one_line)
{
	check_modes(
		"0", NULL,
		"NVIDIA_IMEX_CHANNELS=x: IMEX channel 0 is not in the CDI specs (no nvidia.com/imex-channel=0 in %s): cdi-generate --mode imex writes them");
	check_modes(
		"", "enabled",
		"NVIDIA_GDS=enabled: no spec of the gds mode (no nvidia.com/gds=all in %s): cdi-generate --mode gds writes it");
	free(write_file_in(scratch.path, "nvidia-imex.yaml",
			   "cdiVersion: 0.5.0\nkind: nvidia.com/imex-channel\ndevices:\n"
			   "- name: \"0\"\n  containerEdits:\n    env: [C0=1]\n"
			   "- name: all\n  containerEdits:\n    env: [C0=1]\n"));
	check_modes("0", NULL, NULL);
	check_modes(
		"0,3", NULL,
		"NVIDIA_IMEX_CHANNELS=x: IMEX channel 3 is not in the CDI specs (no nvidia.com/imex-channel=3 in %s): cdi-generate --mode imex writes them");
	check_modes(
		"0", "enabled",
		"NVIDIA_GDS=enabled: no spec of the gds mode (no nvidia.com/gds=all in %s): cdi-generate --mode gds writes it");
	free(write_file_in(scratch.path, "nvidia-gds.yaml",
			   "cdiVersion: 0.5.0\nkind: nvidia.com/gds\ndevices:\n"
			   "- name: all\n  containerEdits:\n    env: [GDS=1]\n"));
	check_modes("0", "enabled", NULL);
}
