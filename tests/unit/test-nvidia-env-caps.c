/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NVIDIA_DRIVER_CAPABILITIES: parsing as nvidia-container-toolkit's image.DriverCapabilities,
 * and the files and nodes each request keeps from the spec cdi-generate writes for the
 * simulated DGX (tests/golden/dgx-mig.yaml), tagged as libnvidia-container's nvc_info.c groups
 * them (what the facts file records).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include <cdi/spec.h>

#include "nvidia/container_env.h"
#include "nvidia/driver_caps.h"
#include "../lib/testlib.h"
#include "load.h"
#include "strv.h"

/* The set a valid value names. */
static unsigned caps_of(const char *value)
{
	unsigned caps;

	cr_assert_eq(driver_caps_parse(value, &caps, NULL), 0, "%s", value);
	return caps;
}

Test(caps, parse)
{
	static const struct {
		const char *value;
		int ret;
		const char *caps; /* as driver_caps_name() writes it */
	} rows[] = {
		{ NULL, 0, "compute,utility" },
		{ "", 0, "compute,utility" },
		{ "all", 0, "all" },
		{ "utility,compute", 0, "compute,utility" },
		{ " compute , video ", 0, "compute,video" },
		{ "graphics,display,ngx,compat32", 0, "compat32,display,graphics,ngx" },
		{ "compat32", 0, "compat32" },
		{ " , ", 0, "" },
		{ "compute,,utility,", 0, "compute,utility" },
		{ "video,compute,compat32,utility,ngx,display,graphics", 0, "all" },
		{ "graphics,all,bogus", 0, "all" },
		{ "bogus", -EINVAL, NULL },
		{ "Compute", -EINVAL, NULL },
		{ "none", -EINVAL, NULL },
		{ "compute;utility", -EINVAL, NULL },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct cdi_error err = { 0 };
		char name[DRIVER_CAPS_NAME_MAX];
		unsigned caps = 12345;
		int r = driver_caps_parse(rows[i].value, &caps, &err);

		cr_expect_eq(r, rows[i].ret, "\"%s\": %d %s", rows[i].value, r,
			     cdi_error_message(&err));
		if (r == 0)
			cr_expect_str_eq(driver_caps_name(caps, name), rows[i].caps, "\"%s\"",
					 rows[i].value);
		cdi_error_reset(&err);
	}
	cr_assert_eq(caps_of(NULL), DRIVER_CAPS_DEFAULT);
	cr_assert_eq(caps_of("all"), DRIVER_CAPS_ALL);
}

Test(caps, unknown_is_named)
{
	struct cdi_error err = { 0 };
	unsigned caps;

	cr_assert_eq(driver_caps_parse("compute, gaming ,foo", &caps, &err), -EINVAL);
	cr_assert_str_eq(
		cdi_error_message(&err),
		"NVIDIA_DRIVER_CAPABILITIES: unknown capability \"gaming\" (compute, compat32, display, graphics, ngx, utility, video, all)");
	cdi_error_reset(&err);
}

Test(caps, keep_rules)
{
	static const struct {
		const char *caps, *tag, *path;
		bool keep;
	} rows[] = {
		/* video brings compute's libraries, not its binaries */
		{ "video", "compute", "/usr/lib/x86_64-linux-gnu/libcuda.so.1", true },
		{ "video", "compute", "/usr/bin/nvidia-cuda-mps-control", false },
		{ "compute", "compute", "/usr/bin/nvidia-cuda-mps-control", true },
		{ "video", "compute", "/tmp/nvidia-mps", true },
		{ "compute", "video", "/usr/lib/x86_64-linux-gnu/libnvcuvid.so.1", false },
		/* display brings graphics, not the other way round */
		{ "display", "graphics", "/usr/lib/x86_64-linux-gnu/libGLX_nvidia.so.0", true },
		{ "graphics", "display", "/dev/nvidia-modeset", false },
		{ "display", "display", "/dev/nvidia-modeset", true },
		/* compat32 adds the 32-bit copies of what is asked for, nothing else */
		{ "compute,compat32", "compute/32", "/usr/lib/i386-linux-gnu/libcuda.so.1", true },
		{ "compute", "compute/32", "/usr/lib/i386-linux-gnu/libcuda.so.1", false },
		{ "compat32", "compute/32", "/usr/lib/i386-linux-gnu/libcuda.so.1", false },
		{ "video,compat32", "compute/32", "/usr/lib/i386-linux-gnu/libcuda.so.1", true },
		{ "compat32", "compute", "/usr/lib/x86_64-linux-gnu/libcuda.so.1", false },
		/* the nodes libnvidia-container ties to capabilities, when the facts say nothing */
		{ "utility", NULL, "/dev/nvidia-uvm", false },
		{ "video", NULL, "/dev/nvidia-uvm-tools", true },
		{ "compute,compat32,graphics,ngx,utility,video", NULL, "/dev/nvidia-modeset",
		  false },
		{ "display", "display", "/dev/nvidia-modeset", true },
		{ "utility", "utility", "/dev/nvidia-uvm", true },
		/* unrecorded or unknown: with every selection */
		{ " , ", NULL, "/lib/firmware/nvidia/550.54.15/gsp_ga10x.bin", true },
		{ " , ", NULL, "/dev/nvidiactl", true },
		{ " , ", "bogus", "/usr/lib/x86_64-linux-gnu/libnew.so.1", true },
		{ " , ", "compute/64", "/usr/lib/x86_64-linux-gnu/libnew.so.1", true },
		{ " , ", "", "/x", true },
		{ "utility", "utility", "/usr/sbin/nvidia-x", true },
		{ "ngx", "ngx", "/usr/lib/x86_64-linux-gnu/libnvidia-ngx.so.1", true },
		{ "utility,compute", "ngx", "/usr/lib/x86_64-linux-gnu/libnvidia-ngx.so.1", false },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		cr_expect_eq(driver_caps_keep(caps_of(rows[i].caps), rows[i].tag, rows[i].path),
			     rows[i].keep, "row %zu: %s %s %s", i, rows[i].caps, rows[i].tag,
			     rows[i].path);
}

/* ---- the simulated DGX's spec ---- */

/* The groups of libnvidia-container's nvc_info.c (and nvidia-ctk's configs), by file stem. */
static const struct {
	const char *tag;
	const char *stems[24];
} groups[] = {
	{ "utility",
	  { "libnvidia-ml", "libnvidia-cfg", "libnvidia-nscq", "nvidia-smi", "nvidia-debugdump",
	    "nvidia-persistenced", "nv-fabricmanager", "nvidia-persistenced/socket",
	    "nvidia-fabricmanager/socket" } },
	{ "compute",
	  { "libcuda", "libcudadebugger", "libnvidia-opencl", "libnvidia-gpucomp",
	    "libnvidia-ptxjitcompiler", "libnvidia-fatbinaryloader", "libnvidia-allocator",
	    "libnvidia-compiler", "libnvidia-pkcs11", "libnvidia-pkcs11-openssl3", "libnvidia-nvvm",
	    "libnvidia-tileiras", "nvidia-cuda-mps-control", "nvidia-cuda-mps-server", "nvidia-mps",
	    "nvidia" /* OpenCL/vendors/nvidia.icd */ } },
	{ "video",
	  { "libvdpau_nvidia", "libnvidia-encode", "libnvidia-opticalflow", "libnvcuvid" } },
	{ "graphics",
	  { "libnvidia-eglcore",   "libnvidia-glcore", "libnvidia-tls",	    "libnvidia-glsi",
	    "libnvidia-fbc",	   "libnvidia-ifr",    "libnvidia-rtcore",  "libnvoptix",
	    "libGLX_nvidia",	   "libEGL_nvidia",    "libGLESv2_nvidia",  "libGLESv1_CM_nvidia",
	    "libnvidia-glvkspirv", "libnvidia-cbl",    "libnvidia-egl-gbm", "libnvidia-egl-wayland",
	    "10_nvidia",	   "15_nvidia_gbm",    "10_nvidia_wayland", "nvidia_icd",
	    "nvidia_layers",	   "nvoptix" } },
	{ "ngx", { "libnvidia-ngx" } },
	/* the Xorg modules, as cdi-generate files them */
	{ "display", { "nvidia_drv", "libglxserver_nvidia" } },
};

/* "libcuda" for .../i386-linux-gnu/libcuda.so.550.54.15 gets "/32"; a socket is named by its
 * directory. */
static char *file_label(const char *host_path)
{
	const char *base = strrchr(host_path, '/') + 1, *dir = base - 1;
	size_t stem =
		strstr(base, ".so") ? (size_t)(strstr(base, ".so") - base) : strcspn(base, ".");
	char *label;

	while (dir > host_path && dir[-1] != '/')
		dir--;
	if (!strcmp(base, "socket"))
		cr_assert(asprintf(&label, "%.*s", (int)(base - dir) + 6, dir) > 0);
	else
		cr_assert(asprintf(&label, "%.*s%s", (int)stem, base,
				   strstr(host_path, "/i386-linux-gnu/") ? "/32" : "") > 0);
	return label;
}

static const char *file_tag(const char *label)
{
	size_t len = strcspn(label, "/");
	static char tag[32];

	if (!strcmp(label + len, "/socket"))
		len = strlen(label);
	for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++)
		for (size_t j = 0; groups[i].stems[j]; j++)
			if (strlen(groups[i].stems[j]) == len &&
			    !strncmp(label, groups[i].stems[j], len)) {
				snprintf(tag, sizeof(tag), "%s%s", groups[i].tag,
					 label[len] == '/' && strcmp(label + len, "/socket") ? "/32"
											     : "");
				return tag;
			}
	return NULL;
}

static json_t *dgx_edits, *dgx_tags;

static void dgx_setup(void)
{
	static const char *const node_tags[][2] = {
		{ "/dev/nvidia-uvm", "compute" },
		{ "/dev/nvidia-uvm-tools", "compute" },
		{ "/dev/nvidia-modeset", "display" },
	};
	struct cdi_error err = { 0 };
	char *buf, *p;
	size_t len;
	cdi_spec *spec;
	const json_t *m;
	size_t i;

	cr_assert_eq(cdi_read_file("tests/golden/dgx-mig.yaml", 1 << 20, &buf, &len), 0,
		     "run from the repository root");
	while ((p = strstr(buf, "@ROOT@")))
		memcpy(p, "/host/", 6);
	cr_assert_eq(cdi_spec_load_buffer("dgx-mig.yaml", buf, len, 0, &spec, &err), 0, "%s",
		     cdi_error_message(&err));
	free(buf);
	dgx_edits = json_deep_copy(json_object_get(cdi_spec_json(spec), "containerEdits"));
	cdi_spec_free(spec);
	dgx_tags = json_object();
	json_array_foreach (json_object_get(dgx_edits, "mounts"), i, m) {
		char *label = file_label(json_string_value(json_object_get(m, "hostPath")));
		const char *tag = file_tag(label);

		if (tag)
			json_object_set_new(dgx_tags,
					    json_string_value(json_object_get(m, "containerPath")),
					    json_string(tag));
		free(label);
	}
	for (i = 0; i < sizeof(node_tags) / sizeof(node_tags[0]); i++)
		json_object_set_new(dgx_tags, node_tags[i][0], json_string(node_tags[i][1]));
}

static void dgx_teardown(void)
{
	json_decref(dgx_edits);
	json_decref(dgx_tags);
}

/* The labels of the files edits mounts and the paths of its nodes, sorted, one list. */
static char **contents(const json_t *edits)
{
	struct strv_builder b = { 0 };
	const json_t *e;
	char **v;
	size_t i, n;

	json_array_foreach (json_object_get(edits, "mounts"), i, e) {
		char *label = file_label(json_string_value(json_object_get(e, "hostPath")));

		if (!strv_contains(b.v, label))
			cr_assert_eq(strv_builder_add(&b, label), 0);
		free(label);
	}
	json_array_foreach (json_object_get(edits, "deviceNodes"), i, e)
		cr_assert_eq(strv_builder_add(&b, json_string_value(json_object_get(e, "path"))),
			     0);
	v = strv_builder_steal(&b, &n);
	strv_sort(v, n);
	return v;
}

#define UTILITY                                                                                    \
	"libnvidia-cfg", "libnvidia-ml", "nvidia-debugdump", "nvidia-persistenced", "nvidia-smi",  \
		"nvidia-persistenced/socket", "nvidia-fabricmanager/socket"
#define COMPUTE_LIBS                                                                               \
	"libcuda", "libcudadebugger", "libnvidia-allocator", "libnvidia-gpucomp",                  \
		"libnvidia-nvvm", "libnvidia-opencl", "libnvidia-pkcs11",                          \
		"libnvidia-pkcs11-openssl3", "libnvidia-ptxjitcompiler", "nvidia-mps", "nvidia"
#define COMPUTE_BINS "nvidia-cuda-mps-control", "nvidia-cuda-mps-server"
#define COMPUTE_NODES "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools"
#define COMPUTE32                                                                                  \
	"libcuda/32", "libnvidia-gpucomp/32", "libnvidia-opencl/32", "libnvidia-ptxjitcompiler/32"
#define VIDEO "libnvcuvid", "libnvidia-encode", "libnvidia-opticalflow", "libvdpau_nvidia"
#define VIDEO32                                                                                    \
	"libnvcuvid/32", "libnvidia-encode/32", "libnvidia-opticalflow/32", "libvdpau_nvidia/32"
#define GRAPHICS                                                                                   \
	"libEGL_nvidia", "libGLESv1_CM_nvidia", "libGLESv2_nvidia", "libGLX_nvidia",               \
		"libnvidia-eglcore", "libnvidia-glcore", "libnvidia-glsi", "libnvidia-glvkspirv",  \
		"libnvidia-fbc", "libnvidia-rtcore", "libnvidia-tls", "libnvoptix",                \
		"libnvidia-egl-gbm", "libnvidia-egl-wayland", "10_nvidia", "15_nvidia_gbm",        \
		"10_nvidia_wayland", "nvidia_icd", "nvidia_layers", "nvoptix"
#define GRAPHICS32                                                                                 \
	"libEGL_nvidia/32", "libGLESv1_CM_nvidia/32", "libGLESv2_nvidia/32", "libGLX_nvidia/32",   \
		"libnvidia-eglcore/32", "libnvidia-glcore/32", "libnvidia-glsi/32",                \
		"libnvidia-glvkspirv/32", "libnvidia-fbc/32", "libnvidia-tls/32"
#define DISPLAY "/dev/nvidia-modeset", "nvidia_drv", "libglxserver_nvidia"
/* libnvidia-gtk3: a library of the driver's version the table does not know (no capability) */
#define ALWAYS "gsp_ga10x", "gsp_tu10x", "/dev/nvidiactl", "libnvidia-gtk3"

static const struct {
	const char *env[4];
	const char *want[80];
} rows[] = {
	{ { NULL }, { UTILITY, COMPUTE_LIBS, COMPUTE_BINS, COMPUTE_NODES, ALWAYS } },
	{ { "NVIDIA_DRIVER_CAPABILITIES=" },
	  { UTILITY, COMPUTE_LIBS, COMPUTE_BINS, COMPUTE_NODES, ALWAYS } },
	{ { "NVIDIA_DRIVER_CAPABILITIES=utility" }, { UTILITY, ALWAYS } },
	{ { "NVIDIA_DRIVER_CAPABILITIES=compute" },
	  { COMPUTE_LIBS, COMPUTE_BINS, COMPUTE_NODES, ALWAYS } },
	{ { "NVIDIA_DRIVER_CAPABILITIES=video" }, { COMPUTE_LIBS, VIDEO, COMPUTE_NODES, ALWAYS } },
	{ { "NVIDIA_DRIVER_CAPABILITIES=compute,video" },
	  { COMPUTE_LIBS, COMPUTE_BINS, VIDEO, COMPUTE_NODES, ALWAYS } },
	{ { "NVIDIA_DRIVER_CAPABILITIES=graphics" }, { GRAPHICS, ALWAYS } },
	{ { "NVIDIA_DRIVER_CAPABILITIES=display" }, { GRAPHICS, DISPLAY, ALWAYS } },
	{ { "NVIDIA_DRIVER_CAPABILITIES=ngx" }, { "libnvidia-ngx", ALWAYS } },
	{ { "NVIDIA_DRIVER_CAPABILITIES=compat32" }, { ALWAYS } },
	{ { "NVIDIA_DRIVER_CAPABILITIES=compute,compat32" },
	  { COMPUTE_LIBS, COMPUTE_BINS, COMPUTE32, COMPUTE_NODES, ALWAYS } },
	{ { "NVIDIA_DRIVER_CAPABILITIES=video,graphics,compat32" },
	  { COMPUTE_LIBS, COMPUTE32, VIDEO, VIDEO32, GRAPHICS, GRAPHICS32, COMPUTE_NODES,
	    ALWAYS } },
	{ { "NVIDIA_DRIVER_CAPABILITIES=utility,compat32" },
	  { UTILITY, "libnvidia-ml/32", ALWAYS } },
	{ { "NVIDIA_DRIVER_CAPABILITIES=all" },
	  { UTILITY, "libnvidia-ml/32", COMPUTE_LIBS, COMPUTE_BINS, COMPUTE32, VIDEO, VIDEO32,
	    GRAPHICS, GRAPHICS32, "libnvidia-ngx", COMPUTE_NODES, DISPLAY, ALWAYS } },
	/* the last assignment counts */
	{ { "NVIDIA_DRIVER_CAPABILITIES=compute", "NVIDIA_DRIVER_CAPABILITIES=utility" },
	  { UTILITY, ALWAYS } },
	/* a legacy image (CUDA_VERSION, no NVIDIA_REQUIRE_CUDA) that does not say: all */
	{ { "CUDA_VERSION=10.2.89" },
	  { UTILITY, "libnvidia-ml/32", COMPUTE_LIBS, COMPUTE_BINS, COMPUTE32, VIDEO, VIDEO32,
	    GRAPHICS, GRAPHICS32, "libnvidia-ngx", COMPUTE_NODES, DISPLAY, ALWAYS } },
	{ { "CUDA_VERSION=10.2.89", "NVIDIA_DRIVER_CAPABILITIES=utility" }, { UTILITY, ALWAYS } },
	{ { "CUDA_VERSION=12.4.1", "NVIDIA_REQUIRE_CUDA=cuda>=12.4" },
	  { UTILITY, COMPUTE_LIBS, COMPUTE_BINS, COMPUTE_NODES, ALWAYS } },
};

TestSuite(dgx, .init = dgx_setup, .fini = dgx_teardown);

Test(dgx, rows)
{
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		_cleanup_json_ json_t *oci = json_pack("{s{s[]}}", "process", "env");
		_cleanup_json_ json_t *before = json_deep_copy(dgx_edits), *kept = NULL;
		struct container_env env;
		struct cdi_error err = { 0 };
		struct strv_builder want = { 0 };
		char **got, **w;
		size_t n_want, i;
		unsigned caps;

		for (i = 0; rows[r].env[i]; i++)
			json_array_append_new(
				json_object_get(json_object_get(oci, "process"), "env"),
				json_string(rows[r].env[i]));
		cr_assert_eq(container_env_read(oci, &env, &err), 0);
		cr_assert_eq(container_env_driver_caps(&env, &caps, &err), 0, "row %zu: %s", r,
			     cdi_error_message(&err));
		cr_assert_eq(driver_caps_filter_edits(dgx_edits, dgx_tags, caps, &kept, &err), 0);
		cr_assert(json_equal(dgx_edits, before), "row %zu: the spec's edits changed", r);
		cr_assert(json_equal(json_object_get(kept, "env"),
				     json_object_get(dgx_edits, "env")));
		for (i = 0; rows[r].want[i]; i++)
			if (!strv_contains(want.v, rows[r].want[i]))
				strv_builder_add(&want, rows[r].want[i]);
		w = strv_builder_steal(&want, &n_want);
		strv_sort(w, n_want);
		got = contents(kept);
		for (i = 0; got[i] || w[i]; i++)
			cr_assert(got[i] && w[i] && !strcmp(got[i], w[i]),
				  "row %zu (%s): got %s, want %s", r, rows[r].env[0],
				  got[i] ? got[i] : "(end)", w[i] ? w[i] : "(end)");
		strv_free(got);
		strv_free(w);
		container_env_done(&env);
	}
}

Test(dgx, all_keeps_everything_and_no_facts_filter_nothing)
{
	_cleanup_json_ json_t *all = NULL, *none = NULL;
	struct cdi_error err = { 0 };

	cr_assert_eq(driver_caps_filter_edits(dgx_edits, dgx_tags, DRIVER_CAPS_ALL, &all, &err), 0);
	assert_json_eq(all, dgx_edits);
	cr_assert_eq(driver_caps_filter_edits(dgx_edits, NULL, 0, &none, &err), 0);
	assert_json_eq(none, dgx_edits);
}

Test(dgx, nodes_without_tags)
{
	_cleanup_json_ json_t *tags = json_object(), *kept = NULL;
	_cleanup_json_ json_t *want = load("['/dev/nvidiactl']");
	struct cdi_error err = { 0 };
	const json_t *node;
	json_t *paths = json_array();
	size_t i;

	/* facts that record no node: libnvidia-container's rules for uvm and modeset hold */
	cr_assert_eq(driver_caps_filter_edits(dgx_edits, tags, caps_of("utility"), &kept, &err), 0);
	json_array_foreach (json_object_get(kept, "deviceNodes"), i, node)
		json_array_append(paths, json_object_get(node, "path"));
	assert_json_eq(paths, want);
	json_decref(paths);
}

Test(dgx, device_edits_are_untouched)
{
	_cleanup_json_ json_t *dev = load(
		"{'deviceNodes': [{'path': '/dev/nvidia2'}, {'path': '/dev/nvidia-caps/nvidia-cap336'}]}");
	_cleanup_json_ json_t *kept = NULL;
	struct cdi_error err = { 0 };

	cr_assert_eq(driver_caps_filter_edits(dev, dgx_tags, 0, &kept, &err), 0);
	assert_json_eq(kept, dev);
	cr_assert_eq(driver_caps_filter_edits(json_object_get(dev, "deviceNodes"), dgx_tags, 0,
					      &kept, &err),
		     -EINVAL);
	cdi_error_reset(&err);
}
