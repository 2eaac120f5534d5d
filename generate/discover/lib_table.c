/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The library table: nvidia-driver-layout.md §1.1 (libnvidia-container's utility, compute,
 * video, graphics and GLVND lists, each with its capability; the no-glvnd compat libGL/libEGL
 * are left out, they are GLVND's or mesa's on every current host), plus the newer libraries
 * nvidia-ctk knows, filed where libnvidia-container would file them. Each name is a prefix
 * ending in ".so", so no two overlap.
 */
#include <string.h>

#include "lib_table.h"
#include "macro.h"

#define LIB(prefix, cap, own)                                                                      \
	{                                                                                          \
		prefix, sizeof(prefix) - 1, cap, own                                               \
	}
static const struct lib_name lib_names[] = {
	LIB("libnvidia-ml.so", DRV_CAP_UTILITY, false),
	LIB("libnvidia-cfg.so", DRV_CAP_UTILITY, false),
	LIB("libnvidia-nscq.so", DRV_CAP_UTILITY, false),
	LIB("libnvidia-sandboxutils.so", DRV_CAP_UTILITY, false),
	LIB("libcuda.so", DRV_CAP_COMPUTE, false),
	LIB("libcudadebugger.so", DRV_CAP_COMPUTE, false),
	LIB("libnvidia-opencl.so", DRV_CAP_COMPUTE, false),
	LIB("libnvidia-gpucomp.so", DRV_CAP_COMPUTE, false),
	LIB("libnvidia-ptxjitcompiler.so", DRV_CAP_COMPUTE, false),
	LIB("libnvidia-fatbinaryloader.so", DRV_CAP_COMPUTE, false),
	LIB("libnvidia-allocator.so", DRV_CAP_COMPUTE, false),
	LIB("libnvidia-compiler.so", DRV_CAP_COMPUTE, false),
	LIB("libnvidia-pkcs11.so", DRV_CAP_COMPUTE, false),
	LIB("libnvidia-pkcs11-openssl3.so", DRV_CAP_COMPUTE, false),
	LIB("libnvidia-nvvm.so", DRV_CAP_COMPUTE, false),
	LIB("libnvidia-nvvm70.so", DRV_CAP_COMPUTE, true),
	LIB("libnvidia-tileiras.so", DRV_CAP_COMPUTE, false),
	LIB("libvdpau_nvidia.so", DRV_CAP_VIDEO, false),
	LIB("libnvidia-encode.so", DRV_CAP_VIDEO, false),
	LIB("libnvidia-opticalflow.so", DRV_CAP_VIDEO, false),
	LIB("libnvcuvid.so", DRV_CAP_VIDEO, false),
	LIB("libnvidia-eglcore.so", DRV_CAP_GRAPHICS, false),
	LIB("libnvidia-glcore.so", DRV_CAP_GRAPHICS, false),
	LIB("libnvidia-tls.so", DRV_CAP_GRAPHICS, false),
	LIB("libnvidia-glsi.so", DRV_CAP_GRAPHICS, false),
	LIB("libnvidia-fbc.so", DRV_CAP_GRAPHICS, false),
	LIB("libnvidia-ifr.so", DRV_CAP_GRAPHICS, false),
	LIB("libnvidia-rtcore.so", DRV_CAP_GRAPHICS, false),
	LIB("libnvoptix.so", DRV_CAP_GRAPHICS, false),
	LIB("libGLX_nvidia.so", DRV_CAP_GRAPHICS, false),
	LIB("libEGL_nvidia.so", DRV_CAP_GRAPHICS, false),
	LIB("libGLESv2_nvidia.so", DRV_CAP_GRAPHICS, false),
	LIB("libGLESv1_CM_nvidia.so", DRV_CAP_GRAPHICS, false),
	LIB("libnvidia-glvkspirv.so", DRV_CAP_GRAPHICS, false),
	LIB("libnvidia-cbl.so", DRV_CAP_GRAPHICS, false),
	LIB("libnvidia-vulkan-producer.so", DRV_CAP_GRAPHICS, false),
	LIB("libnvidia-present.so", DRV_CAP_GRAPHICS, false),
	LIB("libnvidia-vksc-core.so", DRV_CAP_GRAPHICS, false),
	LIB("libnvidia-wayland-client.so", DRV_CAP_GRAPHICS, false),
	LIB("libnvidia-egl-gbm.so", DRV_CAP_GRAPHICS, true),
	LIB("libnvidia-egl-wayland.so", DRV_CAP_GRAPHICS, true),
	LIB("libnvidia-egl-wayland2.so", DRV_CAP_GRAPHICS, true),
	LIB("libnvidia-egl-xcb.so", DRV_CAP_GRAPHICS, true),
	LIB("libnvidia-egl-xlib.so", DRV_CAP_GRAPHICS, true),
	LIB("libnvidia-ngx.so", DRV_CAP_NGX, false),
};

const struct lib_name *lib_name_match(const char *name)
{
	/*
	 * Every prefix starts with "lib"; comparing the next two bytes first turns away a
	 * system library directory's thousand entries cheaply.
	 */
	if (strncmp(name, "lib", 3) != 0)
		return NULL;
	/* "libnv..." or the 4th letter of libcuda, libvdpau_nvidia, libGL*_nvidia, libEGL_nvidia */
	if (!(name[3] == 'n' && name[4] == 'v') && (name[3] == '\0' || !strchr("cvGE", name[3])))
		return NULL;
	for (size_t i = 0; i < ELEMENTSOF(lib_names); i++) {
		const struct lib_name *ln = &lib_names[i];

		if (name[3] == ln->prefix[3] && name[4] == ln->prefix[4] &&
		    strncmp(name, ln->prefix, ln->len) == 0 &&
		    (name[ln->len] == '\0' || name[ln->len] == '.'))
			return ln;
	}
	return NULL;
}

const struct lib_name lib_name_unknown = { "", 0, DRV_CAP_UNKNOWN, false };

size_t lib_name_stem_len(const char *name)
{
	const char *so = strstr(name, ".so");

	while (so && so[3] != '\0' && so[3] != '.')
		so = strstr(so + 3, ".so");
	return strncmp(name, "lib", 3) == 0 && so && so > name + 3 ? (size_t)(so + 3 - name) : 0;
}

/* name ends in ".so.<version>" after a stem of its own. */
static bool has_versioned_so(const char *name, const char *version)
{
	size_t n = strlen(name), v = strlen(version);

	return n > v + 7 && name[n - v - 1] == '.' && memcmp(name + n - v, version, v) == 0 &&
	       lib_name_stem_len(name) == n - v - 1;
}

const struct lib_name *lib_name_classify(const char *name, const char *version)
{
	const struct lib_name *ln = lib_name_match(name);

	if (ln)
		return ln;
	return version && *version && has_versioned_so(name, version) ? &lib_name_unknown : NULL;
}

bool lib_name_has_own_version(const char *name, const struct lib_name *ln)
{
	const char *p = name + ln->len;
	bool digit = false;

	if (*p++ != '.')
		return false;
	for (; *p; p++) {
		if (*p >= '0' && *p <= '9')
			digit = true;
		else if (*p == '.' && digit)
			digit = false;
		else
			return false;
	}
	return digit;
}

bool lib_name_has_driver_version(const char *name, const struct lib_name *ln, const char *version)
{
	if (ln == &lib_name_unknown)
		return has_versioned_so(name, version);
	return name[ln->len] == '.' && strcmp(name + ln->len + 1, version) == 0;
}
