/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The driver-files discovery source and the library search, assembled into mounts
 * (spec_mounts()), on a small driver host built here:
 * real ELF objects (64- and 32-bit) with the driver's sonames, the host's
 * symlinks in the shapes distributions make them (relative, absolute,
 * through /etc/alternatives, escaping the root), stale and foreign copies,
 * and an ld.so.cache written by the real `ldconfig -r`.
 */
#include <criterion/criterion.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "../lib/simhost.h"
#include "../lib/testlib.h"
#include "discover/discover.h"
#include "host/elf.h"
#include "discover/lib_search.h"
#include "assemble/spec_build.h"

#define VER "550.54.15"
#define ELEMENTSOF_(x) (sizeof(x) / sizeof((x)[0]))

static char tmp[] = "/tmp/cdikit-drv.XXXXXX";
static char root[PATH_MAX];
static bool have_tmp;

static void make_socket(const char *rel)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	cr_assert(fd >= 0);
	cr_assert_lt(snprintf(sa.sun_path, sizeof(sa.sun_path), "%s%s", root, rel),
		     (int)sizeof(sa.sun_path));
	cr_assert_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0, "bind %s", sa.sun_path);
	close(fd);
}

/* The host: see the comment on each line for what it is there to prove. */
static void build_host(void)
{
	sh("set -e; T='%s'; R=\"$T/root\"; cd \"$T\"; "
	   "printf '.text\\n.globl f\\nf: ret\\n' > f.s; as --64 -o f64.o f.s; as --32 -o f32.o f.s; "
	   "so64() { mkdir -p \"$(dirname \"$R$1\")\"; ld -m elf_x86_64 -shared -soname \"$2\" -o \"$R$1\" f64.o; }; "
	   "so32() { mkdir -p \"$(dirname \"$R$1\")\"; ld -m elf_i386 -shared -soname \"$2\" -o \"$R$1\" f32.o; }; "
	   "L=/usr/lib/x86_64-linux-gnu; L32=/usr/lib/i386-linux-gnu; "
	   "mkdir -p \"$R/etc\" \"$R/usr/lib\" \"$R/usr/bin\" \"$R/usr/sbin\" \"$R/usr/local/bin\" \"$T/outside\"; "
	   /* merged /usr: /lib and /var/run are links */
	   "ln -s usr/lib \"$R/lib\"; mkdir -p \"$R/run\" \"$R/var\" \"$R/tmp\"; ln -s ../run \"$R/var/run\"; "
	   /* libcuda with both links, and a stale 535 copy */
	   "so64 $L/libcuda.so." VER " libcuda.so.1; ln -s libcuda.so." VER
	   " $R$L/libcuda.so.1; ln -s libcuda.so.1 $R$L/libcuda.so; "
	   "so64 $L/libcuda.so.535.104.05 libcuda.so.1; "
	   /* an absolute link inside the root */
	   "so64 $L/libnvidia-ml.so." VER " libnvidia-ml.so.1; ln -s $L/libnvidia-ml.so." VER
	   " $R$L/libnvidia-ml.so.1; "
	   "so64 $L/libnvidia-ptxjitcompiler.so." VER
	   " libnvidia-ptxjitcompiler.so.1; ln -s libnvidia-ptxjitcompiler.so." VER
	   " $R$L/libnvidia-ptxjitcompiler.so.1; "
	   "so64 $L/libGLX_nvidia.so." VER " libGLX_nvidia.so.0; ln -s libGLX_nvidia.so." VER
	   " $R$L/libGLX_nvidia.so.0; "
	   "so64 $L/libnvidia-glcore.so." VER " libnvidia-glcore.so." VER "; "
	   "so64 $L/libnvidia-allocator.so." VER
	   " libnvidia-allocator.so.1; ln -s libnvidia-allocator.so." VER
	   " $R$L/libnvidia-allocator.so.1; "
	   "so64 $L/libnvidia-opticalflow.so." VER
	   " libnvidia-opticalflow.so.1; ln -s libnvidia-opticalflow.so." VER
	   " $R$L/libnvidia-opticalflow.so.1; "
	   /* a library of another machine (e_machine patched to aarch64) */
	   "so64 $L/libnvidia-tls.so." VER " libnvidia-tls.so." VER
	   "; printf '\\267\\000' | dd of=$R$L/libnvidia-tls.so." VER
	   " bs=1 seek=18 conv=notrunc status=none; "
	   /* GLVND and mesa: not the driver's */
	   "so64 $L/libGLX.so.0 libGLX.so.0; so64 $L/libGLX_mesa.so.0.0.0 libGLX_mesa.so.0; ln -s libGLX_mesa.so.0.0.0 $R$L/libGLX_mesa.so.0; "
	   "so64 $L/libEGL_mesa.so.0.0.0 libEGL_mesa.so.0; so64 $L/libfoo.so.1.2.3 libfoo.so.1; "
	   /* a library the table does not know, of this driver version: the driver's */
	   "so64 $L/libnvidia-gtk3.so." VER " libnvidia-gtk3.so." VER "; "
	   /* versioned on its own: the linked copy is kept, the stale one is not */
	   "so64 $L/libnvidia-egl-wayland.so.1.1.13 libnvidia-egl-wayland.so.1; ln -s libnvidia-egl-wayland.so.1.1.13 $R$L/libnvidia-egl-wayland.so.1; "
	   "so64 $L/libnvidia-egl-wayland.so.1.1.9 libnvidia-egl-wayland.so.1; "
	   /* vdpau driver in its subdirectory */
	   "so64 $L/vdpau/libvdpau_nvidia.so." VER
	   " libvdpau_nvidia.so.1; ln -s libvdpau_nvidia.so." VER
	   " $R$L/vdpau/libvdpau_nvidia.so.1; "
	   /* links that escape the root, relative and absolute, to files that exist outside it */
	   "so64 /../outside/libnvidia-encode.so." VER
	   " libnvidia-encode.so.1; ln -s ../../../../../../outside/libnvidia-encode.so." VER
	   " $R$L/libnvidia-encode.so.1; "
	   "cp $T/outside/libnvidia-encode.so." VER " $T/outside/libnvidia-fbc.so." VER
	   "; ln -s $T/outside/libnvidia-fbc.so." VER " $R$L/libnvidia-fbc.so.1; "
	   /* a relative link climbing above the root: clamped at it, so it lands inside */
	   "so64 $L/libnvidia-cfg.so." VER
	   " libnvidia-cfg.so.1; ln -s ../../../../../../../../usr/lib/x86_64-linux-gnu/libnvidia-cfg.so." VER
	   " $R$L/libnvidia-cfg.so.1; "
	   /* a symlink loop beside the libraries */
	   "ln -s libnvidia-ifr.so.2 $R$L/libnvidia-ifr.so.1; ln -s libnvidia-ifr.so.1 $R$L/libnvidia-ifr.so.2; "
	   /* a soname that would shadow libc: the file is mounted, the soname is not */
	   "so64 $L/libnvidia-ngx.so." VER " libc.so.6; "
	   /* Debian's packaging: nvidia/current and /etc/alternatives */
	   "so64 $L/nvidia/current/libnvcuvid.so." VER " libnvcuvid.so.1; ln -s libnvcuvid.so." VER
	   " $R$L/nvidia/current/libnvcuvid.so.1; "
	   "mkdir -p $R/etc/alternatives; ln -s $L/nvidia/current/libnvcuvid.so.1 $R/etc/alternatives/libnvcuvid.so.1; ln -s /etc/alternatives/libnvcuvid.so.1 $R$L/libnvcuvid.so.1; "
	   /* a non-standard directory known only to the cache */
	   "so64 /opt/nvidia/lib64/libnvidia-rtcore.so." VER " libnvidia-rtcore.so." VER "; "
	   /* 32-bit */
	   "so32 $L32/libcuda.so." VER " libcuda.so.1; ln -s libcuda.so." VER
	   " $R$L32/libcuda.so.1; "
	   "so32 $L32/libGLX_nvidia.so." VER " libGLX_nvidia.so.0; ln -s libGLX_nvidia.so." VER
	   " $R$L32/libGLX_nvidia.so.0; "
	   "printf '%%s\\n' $L32 /opt/nvidia/lib64 $L/nvidia/current > $R/etc/ld.so.conf; "
	   "ldconfig -X -r \"$R\"; "
	   /* only in a standard directory, not in the cache */
	   "so64 /usr/lib64/libnvidia-nvvm.so." VER " libnvidia-nvvm.so.4; "
	   /* binaries: executable, not executable, linked, and /usr/local first */
	   "printf '#!/bin/sh\\n' > $R/usr/bin/nvidia-smi; chmod 755 $R/usr/bin/nvidia-smi; "
	   "printf '#!/bin/sh\\n' > $R/usr/bin/nvidia-debugdump; chmod 644 $R/usr/bin/nvidia-debugdump; "
	   "install -m 755 $R/usr/bin/nvidia-smi $R/usr/bin/nvidia-persistenced.real; ln -s /usr/bin/nvidia-persistenced.real $R/usr/sbin/nvidia-persistenced; "
	   "install -m 755 $R/usr/bin/nvidia-smi $R/usr/bin/nvidia-cuda-mps-control; install -m 755 $R/usr/bin/nvidia-smi $R/usr/local/bin/nvidia-cuda-mps-control; "
	   "install -m 755 $R/usr/bin/nvidia-smi $R/usr/bin/nvidia-cuda-mps-server; "
	   /* firmware, this version and a stale one */
	   "mkdir -p $R/usr/lib/firmware/nvidia/" VER " $R/usr/lib/firmware/nvidia/535.104.05; "
	   "touch $R/usr/lib/firmware/nvidia/" VER "/gsp_ga10x.bin $R/usr/lib/firmware/nvidia/" VER
	   "/gsp_tu10x.bin $R/usr/lib/firmware/nvidia/" VER
	   "/README $R/usr/lib/firmware/nvidia/535.104.05/gsp_ga10x.bin; "
	   /* IPC: a regular file where a socket belongs is not one */
	   "mkdir -p $R/run/nvidia-persistenced $R/run/nvidia-fabricmanager $R/tmp/nvidia-mps; touch $R/run/nvidia-fabricmanager/socket; "
	   /* config files */
	   "mkdir -p $R/usr/share/glvnd/egl_vendor.d $R/usr/share/egl/egl_external_platform.d $R/etc/vulkan/icd.d $R/usr/share/vulkan/icd.d $R/usr/share/vulkan/implicit_layer.d $R/etc/OpenCL/vendors $R/usr/share/nvidia $R/usr/share/X11/xorg.conf.d; "
	   "cd $R/usr/share; touch glvnd/egl_vendor.d/10_nvidia.json glvnd/egl_vendor.d/50_mesa.json egl/egl_external_platform.d/10_nvidia_wayland.json egl/egl_external_platform.d/15_nvidia_gbm.json "
	   "vulkan/icd.d/nvidia_icd.json vulkan/icd.d/intel_icd.x86_64.json vulkan/implicit_layer.d/nvidia_layers.json nvidia/nvoptix.bin X11/xorg.conf.d/nvidia-drm-outputclass.conf "
	   "$R/etc/vulkan/icd.d/nvidia_icd.json $R/etc/OpenCL/vendors/nvidia.icd",
	   tmp);
	make_socket("/run/nvidia-persistenced/socket");
}

static void setup(void)
{
	cr_assert(mkdtemp(tmp));
	have_tmp = true;
	snprintf(root, sizeof(root), "%s/root", tmp);
	build_host();
}

static void teardown(void)
{
	if (have_tmp)
		sh("rm -rf '%s'", tmp);
}

TestSuite(driver, .init = setup, .fini = teardown);

/* "containerPath <- hostPath without the root" lines, checking options and the prefix on the way.
 */
static char **mount_lines(json_t *mounts, const char *prefix, size_t *ret_n)
{
	size_t n = json_array_size(mounts), plen = strlen(prefix);
	char **lines = calloc(n + 1, sizeof(*lines));
	json_t *m;
	size_t i;

	cr_assert(lines);
	json_array_foreach (mounts, i, m) {
		const char *host = json_string_value(json_object_get(m, "hostPath"));
		const char *cont = json_string_value(json_object_get(m, "containerPath"));
		json_t *opts = json_object_get(m, "options");
		bool ipc = strncmp(cont, "/run/", 5) == 0 || strncmp(cont, "/var/run/", 9) == 0 ||
			   strncmp(cont, "/tmp/", 5) == 0;
		const char *want = ipc ? "nosuid nodev rbind rprivate noexec"
				       : "ro nosuid nodev rbind rprivate";
		char got[128] = "";
		size_t j;
		json_t *o;

		cr_assert(host && cont && json_is_array(opts));
		cr_assert_eq(json_object_size(m), 3);
		cr_assert(strncmp(host, prefix, plen) == 0 && host[plen] == '/',
			  "hostPath %s is not under %s", host, prefix);
		cr_assert_eq(cont[0], '/');
		json_array_foreach (opts, j, o) {
			if (j)
				strcat(got, " ");
			strcat(got, json_string_value(o));
		}
		cr_assert_str_eq(got, want, "%s", cont);
		if (i > 0)
			cr_assert_lt(strcmp(lines[i - 1], cont), 0, "not sorted/unique at %s",
				     cont);
		cr_assert(asprintf(&lines[i], "%s <- %s", cont, host + plen) >= 0);
	}
	*ret_n = n;
	return lines;
}

static void free_lines(char **lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}

#define L64 "/usr/lib/x86_64-linux-gnu"
#define L32 "/usr/lib/i386-linux-gnu"
#define CUDA L64 "/libcuda.so." VER
#define CUDA32 L32 "/libcuda.so." VER

/* What this host must give, all of it, in containerPath order. */
static const char *const expected[] = {
	"/etc/OpenCL/vendors/nvidia.icd <- /etc/OpenCL/vendors/nvidia.icd",
	"/etc/vulkan/icd.d/nvidia_icd.json <- /etc/vulkan/icd.d/nvidia_icd.json",
	"/etc/vulkan/implicit_layer.d/nvidia_layers.json <- /usr/share/vulkan/implicit_layer.d/nvidia_layers.json",
	"/lib/firmware/nvidia/" VER "/gsp_ga10x.bin <- /usr/lib/firmware/nvidia/" VER
	"/gsp_ga10x.bin",
	"/lib/firmware/nvidia/" VER "/gsp_tu10x.bin <- /usr/lib/firmware/nvidia/" VER
	"/gsp_tu10x.bin",
	"/opt/nvidia/lib64/libnvidia-rtcore.so." VER
	" <- /opt/nvidia/lib64/libnvidia-rtcore.so." VER,
	"/run/nvidia-persistenced/socket <- /run/nvidia-persistenced/socket",
	"/tmp/nvidia-mps <- /tmp/nvidia-mps",
	"/usr/bin/nvidia-cuda-mps-control <- /usr/local/bin/nvidia-cuda-mps-control",
	"/usr/bin/nvidia-cuda-mps-server <- /usr/bin/nvidia-cuda-mps-server",
	"/usr/bin/nvidia-persistenced <- /usr/bin/nvidia-persistenced.real",
	"/usr/bin/nvidia-smi <- /usr/bin/nvidia-smi",
	"/usr/lib/gbm/nvidia-drm_gbm.so <- " L64 "/libnvidia-allocator.so." VER,
	"/usr/lib/i386-linux-gnu/libGLX_indirect.so.0 <- " L32 "/libGLX_nvidia.so." VER,
	"/usr/lib/i386-linux-gnu/libGLX_nvidia.so.0 <- " L32 "/libGLX_nvidia.so." VER,
	"/usr/lib/i386-linux-gnu/libGLX_nvidia.so." VER " <- " L32 "/libGLX_nvidia.so." VER,
	"/usr/lib/i386-linux-gnu/libcuda.so <- " CUDA32,
	"/usr/lib/i386-linux-gnu/libcuda.so.1 <- " CUDA32,
	"/usr/lib/i386-linux-gnu/libcuda.so." VER " <- " CUDA32,
	"/usr/lib/libGLX_indirect.so.0 <- " L64 "/libGLX_nvidia.so." VER,
	"/usr/lib/libGLX_nvidia.so.0 <- " L64 "/libGLX_nvidia.so." VER,
	"/usr/lib/libcuda.so <- " CUDA,
	"/usr/lib/libcuda.so.1 <- " CUDA,
	"/usr/lib/libnvcuvid.so.1 <- " L64 "/nvidia/current/libnvcuvid.so." VER,
	"/usr/lib/libnvidia-allocator.so.1 <- " L64 "/libnvidia-allocator.so." VER,
	"/usr/lib/libnvidia-cfg.so.1 <- " L64 "/libnvidia-cfg.so." VER,
	"/usr/lib/libnvidia-egl-wayland.so.1 <- " L64 "/libnvidia-egl-wayland.so.1.1.13",
	"/usr/lib/libnvidia-glcore.so." VER " <- " L64 "/libnvidia-glcore.so." VER,
	"/usr/lib/libnvidia-gtk3.so." VER " <- " L64 "/libnvidia-gtk3.so." VER,
	"/usr/lib/libnvidia-ml.so.1 <- " L64 "/libnvidia-ml.so." VER,
	"/usr/lib/libnvidia-nvvm.so.4 <- /usr/lib64/libnvidia-nvvm.so." VER,
	"/usr/lib/libnvidia-opticalflow.so <- " L64 "/libnvidia-opticalflow.so." VER,
	"/usr/lib/libnvidia-opticalflow.so.1 <- " L64 "/libnvidia-opticalflow.so." VER,
	"/usr/lib/libnvidia-ptxjitcompiler.so.1 <- " L64 "/libnvidia-ptxjitcompiler.so." VER,
	"/usr/lib/libnvidia-rtcore.so." VER " <- /opt/nvidia/lib64/libnvidia-rtcore.so." VER,
	"/usr/lib/vdpau/libvdpau_nvidia.so.1 <- " L64 "/vdpau/libvdpau_nvidia.so." VER,
	"/usr/lib/x86_64-linux-gnu/gbm/nvidia-drm_gbm.so <- " L64 "/libnvidia-allocator.so." VER,
	"/usr/lib/x86_64-linux-gnu/libGLX_indirect.so.0 <- " L64 "/libGLX_nvidia.so." VER,
	"/usr/lib/x86_64-linux-gnu/libGLX_nvidia.so.0 <- " L64 "/libGLX_nvidia.so." VER,
	"/usr/lib/x86_64-linux-gnu/libGLX_nvidia.so." VER " <- " L64 "/libGLX_nvidia.so." VER,
	"/usr/lib/x86_64-linux-gnu/libcuda.so <- " CUDA,
	"/usr/lib/x86_64-linux-gnu/libcuda.so.1 <- " CUDA,
	"/usr/lib/x86_64-linux-gnu/libcuda.so." VER " <- " CUDA,
	"/usr/lib/x86_64-linux-gnu/libnvcuvid.so.1 <- " L64 "/nvidia/current/libnvcuvid.so." VER,
	"/usr/lib/x86_64-linux-gnu/libnvidia-allocator.so.1 <- " L64 "/libnvidia-allocator.so." VER,
	"/usr/lib/x86_64-linux-gnu/libnvidia-allocator.so." VER " <- " L64
	"/libnvidia-allocator.so." VER,
	"/usr/lib/x86_64-linux-gnu/libnvidia-cfg.so.1 <- " L64 "/libnvidia-cfg.so." VER,
	"/usr/lib/x86_64-linux-gnu/libnvidia-cfg.so." VER " <- " L64 "/libnvidia-cfg.so." VER,
	"/usr/lib/x86_64-linux-gnu/libnvidia-egl-wayland.so.1 <- " L64
	"/libnvidia-egl-wayland.so.1.1.13",
	"/usr/lib/x86_64-linux-gnu/libnvidia-egl-wayland.so.1.1.13 <- " L64
	"/libnvidia-egl-wayland.so.1.1.13",
	"/usr/lib/x86_64-linux-gnu/libnvidia-glcore.so." VER " <- " L64 "/libnvidia-glcore.so." VER,
	"/usr/lib/x86_64-linux-gnu/libnvidia-gtk3.so." VER " <- " L64 "/libnvidia-gtk3.so." VER,
	"/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1 <- " L64 "/libnvidia-ml.so." VER,
	"/usr/lib/x86_64-linux-gnu/libnvidia-ml.so." VER " <- " L64 "/libnvidia-ml.so." VER,
	"/usr/lib/x86_64-linux-gnu/libnvidia-ngx.so." VER " <- " L64 "/libnvidia-ngx.so." VER,
	"/usr/lib/x86_64-linux-gnu/libnvidia-nvvm.so.4 <- /usr/lib64/libnvidia-nvvm.so." VER,
	"/usr/lib/x86_64-linux-gnu/libnvidia-opticalflow.so <- " L64
	"/libnvidia-opticalflow.so." VER,
	"/usr/lib/x86_64-linux-gnu/libnvidia-opticalflow.so.1 <- " L64
	"/libnvidia-opticalflow.so." VER,
	"/usr/lib/x86_64-linux-gnu/libnvidia-opticalflow.so." VER " <- " L64
	"/libnvidia-opticalflow.so." VER,
	"/usr/lib/x86_64-linux-gnu/libnvidia-ptxjitcompiler.so.1 <- " L64
	"/libnvidia-ptxjitcompiler.so." VER,
	"/usr/lib/x86_64-linux-gnu/libnvidia-ptxjitcompiler.so." VER " <- " L64
	"/libnvidia-ptxjitcompiler.so." VER,
	"/usr/lib/x86_64-linux-gnu/libnvidia-rtcore.so." VER
	" <- /opt/nvidia/lib64/libnvidia-rtcore.so." VER,
	"/usr/lib/x86_64-linux-gnu/nvidia/current/libnvcuvid.so." VER " <- " L64
	"/nvidia/current/libnvcuvid.so." VER,
	"/usr/lib/x86_64-linux-gnu/vdpau/libvdpau_nvidia.so.1 <- " L64
	"/vdpau/libvdpau_nvidia.so." VER,
	"/usr/lib/x86_64-linux-gnu/vdpau/libvdpau_nvidia.so." VER " <- " L64
	"/vdpau/libvdpau_nvidia.so." VER,
	"/usr/lib64/gbm/nvidia-drm_gbm.so <- " L64 "/libnvidia-allocator.so." VER,
	"/usr/lib64/libGLX_indirect.so.0 <- " L64 "/libGLX_nvidia.so." VER,
	"/usr/lib64/libGLX_nvidia.so.0 <- " L64 "/libGLX_nvidia.so." VER,
	"/usr/lib64/libcuda.so <- " CUDA,
	"/usr/lib64/libcuda.so.1 <- " CUDA,
	"/usr/lib64/libnvcuvid.so.1 <- " L64 "/nvidia/current/libnvcuvid.so." VER,
	"/usr/lib64/libnvidia-allocator.so.1 <- " L64 "/libnvidia-allocator.so." VER,
	"/usr/lib64/libnvidia-cfg.so.1 <- " L64 "/libnvidia-cfg.so." VER,
	"/usr/lib64/libnvidia-egl-wayland.so.1 <- " L64 "/libnvidia-egl-wayland.so.1.1.13",
	"/usr/lib64/libnvidia-glcore.so." VER " <- " L64 "/libnvidia-glcore.so." VER,
	"/usr/lib64/libnvidia-gtk3.so." VER " <- " L64 "/libnvidia-gtk3.so." VER,
	"/usr/lib64/libnvidia-ml.so.1 <- " L64 "/libnvidia-ml.so." VER,
	"/usr/lib64/libnvidia-nvvm.so.4 <- /usr/lib64/libnvidia-nvvm.so." VER,
	"/usr/lib64/libnvidia-nvvm.so." VER " <- /usr/lib64/libnvidia-nvvm.so." VER,
	"/usr/lib64/libnvidia-opticalflow.so <- " L64 "/libnvidia-opticalflow.so." VER,
	"/usr/lib64/libnvidia-opticalflow.so.1 <- " L64 "/libnvidia-opticalflow.so." VER,
	"/usr/lib64/libnvidia-ptxjitcompiler.so.1 <- " L64 "/libnvidia-ptxjitcompiler.so." VER,
	"/usr/lib64/libnvidia-rtcore.so." VER " <- /opt/nvidia/lib64/libnvidia-rtcore.so." VER,
	"/usr/lib64/vdpau/libvdpau_nvidia.so.1 <- " L64 "/vdpau/libvdpau_nvidia.so." VER,
	"/usr/share/X11/xorg.conf.d/nvidia-drm-outputclass.conf <- /usr/share/X11/xorg.conf.d/nvidia-drm-outputclass.conf",
	"/usr/share/egl/egl_external_platform.d/10_nvidia_wayland.json <- /usr/share/egl/egl_external_platform.d/10_nvidia_wayland.json",
	"/usr/share/egl/egl_external_platform.d/15_nvidia_gbm.json <- /usr/share/egl/egl_external_platform.d/15_nvidia_gbm.json",
	"/usr/share/glvnd/egl_vendor.d/10_nvidia.json <- /usr/share/glvnd/egl_vendor.d/10_nvidia.json",
	"/usr/share/nvidia/nvoptix.bin <- /usr/share/nvidia/nvoptix.bin",
};

/* The driver files of a host (root r, driver root driver_root), as discovery and assembly
 * make them; warnings (may be NULL) and errors in err. */
static int files_for(const char *r, const char *driver_root, const char *version,
		     json_t **ret_mounts, struct cdi_error *warn, struct cdi_error *err)
{
	struct gen_host host = { .root = r, .driver_root = driver_root, .dev_root = r };
	struct inventory inv = { 0 };
	struct discovery d;
	int ret;

	snprintf(inv.driver_version, sizeof(inv.driver_version), "%s", version);
	discovery_init(&d, &host, &inv, warn, err);
	ret = discovery_load_cache(&d);
	if (ret >= 0)
		ret = discover_driver_files(&d);
	discovery_done(&d);
	if (ret >= 0)
		ret = spec_mounts(&inv, ret_mounts, NULL, err);
	inventory_clear(&inv);
	return ret;
}

static json_t *mounts_for(const char *r, const char *driver_root, const char *version,
			  struct cdi_error *err)
{
	json_t *mounts = NULL;
	int ret = files_for(r, driver_root, version, &mounts, NULL, err);

	cr_assert_eq(ret, 0, "driver files: %d %s", ret, cdi_error_message(err));
	cr_assert(json_is_array(mounts));
	return mounts;
}

/* The library search alone, with the host's cache. */
static int find_libs(const char *r, const char *version, struct driver_libs *libs,
		     struct cdi_error *err)
{
	struct gen_host host = { .root = r, .driver_root = r, .dev_root = r };
	struct inventory inv = { 0 };
	struct discovery d;
	int ret;

	discovery_init(&d, &host, &inv, NULL, err);
	ret = discovery_load_cache(&d);
	if (ret >= 0)
		ret = driver_libs_find(&d.driver_fs, d.cache, version, libs, err);
	discovery_done(&d);
	return ret;
}

Test(driver, whole_host)
{
	struct cdi_error err = { 0 };
	json_t *mounts = mounts_for(root, root, VER, &err);
	size_t n, n_expected = sizeof(expected) / sizeof(expected[0]);
	char **lines = mount_lines(mounts, root, &n);

	for (size_t i = 0; i < n || i < n_expected; i++)
		cr_assert_str_eq(i < n ? lines[i] : "(none)",
				 i < n_expected ? expected[i] : "(none)", "mount %zu", i);
	cr_assert_eq(cdi_error_count(&err), 0);
	free_lines(lines, n);
	json_decref(mounts);
}

/* The acceptance rules one by one, so a failure names the rule. */
Test(driver, rejects)
{
	struct cdi_error err = { 0 };
	json_t *mounts = mounts_for(root, root, VER, &err);
	size_t n;
	char **lines = mount_lines(mounts, root, &n);
	const char *absent[] = {
		"535.104.05", /* stale driver copy and stale firmware */
		"mesa",
		"libGLX.so", /* not the driver's */
		"libfoo",
		"libnvidia-tls", /* another machine's */
		"1.1.9",	 /* own-versioned, not linked by the host */
		"encode",
		"fbc",		 /* only reachable by escaping the root */
		"libnvidia-ifr", /* a symlink loop */
		"libc.so.6",	 /* a soname that is not the library's name */
		"debugdump",	 /* not executable */
		"fabricmanager", /* not a socket */
		"mesa.json",
		"intel_icd",
		"README",
		"/var/run",		   /* the same socket as /run */
		"/usr/share/vulkan/icd.d", /* mounted at /etc/vulkan from the first base that has it
					    */
	};

	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < sizeof(absent) / sizeof(absent[0]); j++)
			cr_assert(!strstr(lines[i], absent[j]), "%s should not be mounted (%s)",
				  lines[i], absent[j]);
	free_lines(lines, n);
	json_decref(mounts);
}

/* Every hostPath is a regular file (or the IPC socket and MPS dir) inside the root, never a link.
 */
Test(driver, host_paths_are_real_files_inside_root)
{
	struct cdi_error err = { 0 };
	json_t *mounts = mounts_for(root, root, VER, &err);
	json_t *m;
	size_t i;

	json_array_foreach (mounts, i, m) {
		const char *host = json_string_value(json_object_get(m, "hostPath"));
		char real[PATH_MAX];
		struct stat st;

		cr_assert_eq(lstat(host, &st), 0, "%s", host);
		cr_assert(S_ISREG(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISDIR(st.st_mode), "%s",
			  host);
		cr_assert(realpath(host, real));
		cr_assert_str_eq(real, host);
	}
	json_decref(mounts);
}

Test(driver, library_search)
{
	struct cdi_error err = { 0 };
	struct driver_libs libs = { 0 };
	const struct driver_lib *cuda = NULL, *cuda32 = NULL, *ngx = NULL;

	cr_assert_eq(find_libs(root, VER, &libs, &err), 0, "%s", cdi_error_message(&err));
	for (size_t i = 0; i < libs.n_libs; i++) {
		const struct driver_lib *l = &libs.libs[i];

		if (strcmp(l->path, CUDA) == 0)
			cuda = l;
		if (strcmp(l->path, CUDA32) == 0)
			cuda32 = l;
		if (strstr(l->path, "libnvidia-ngx"))
			ngx = l;
		/* 64-bit first, then by rank */
		if (i > 0 && libs.libs[i - 1].is32 == l->is32)
			cr_assert_lt(libs.libs[i - 1].rank, l->rank);
		if (i > 0)
			cr_assert(!libs.libs[i - 1].is32 || l->is32);
	}
	cr_assert(cuda && cuda32 && ngx);
	cr_assert_not(cuda->is32);
	cr_assert(cuda32->is32);
	cr_assert_str_eq(cuda->soname, "libcuda.so.1");
	cr_assert_str_eq(cuda->ln->prefix, "libcuda.so");
	cr_assert_eq(cuda->ln->cap, DRV_CAP_COMPUTE);
	cr_assert_eq(cuda->n_links, 2);
	cr_assert_str_eq(cuda->links[0], "libcuda.so");
	cr_assert_str_eq(cuda->links[1], "libcuda.so.1");
	cr_assert_eq(ngx->soname, NULL);
	driver_libs_clear(&libs);
}

/* Without ld.so.cache the standard directories still give the libraries there. */
Test(driver, no_cache)
{
	struct cdi_error err = { 0 };
	json_t *mounts;
	size_t n;
	char **lines;
	bool cuda = false, cuda32 = false, rtcore = false;

	sh("rm '%s/etc/ld.so.cache'", root);
	mounts = mounts_for(root, root, VER, &err);
	lines = mount_lines(mounts, root, &n);
	for (size_t i = 0; i < n; i++) {
		cuda |= strcmp(lines[i], "/usr/lib64/libcuda.so.1 <- " CUDA) == 0;
		cuda32 |= strcmp(lines[i], "/usr/lib/i386-linux-gnu/libcuda.so.1 <- " CUDA32) == 0;
		rtcore |= strstr(lines[i], "rtcore") != NULL;
	}
	cr_assert(cuda && cuda32);
	cr_assert_not(rtcore, "/opt/nvidia/lib64 is known only to the cache");
	free_lines(lines, n);
	json_decref(mounts);
}

/* An empty or corrupt cache: one warning naming it, then the same fallback as a missing one. */
Test(driver, corrupt_cache_is_a_warning_and_the_fallback)
{
	static const char *const damage[] = { "truncate -s 100", "truncate -s 0" };

	for (size_t k = 0; k < ELEMENTSOF_(damage); k++) {
		struct cdi_error err = { 0 }, warn = { 0 };
		json_t *mounts = NULL;
		bool cuda = false;
		size_t n;
		char **lines;

		sh("%s '%s/etc/ld.so.cache'", damage[k], root);
		cr_assert_eq(files_for(root, root, VER, &mounts, &warn, &err), 0, "%s",
			     cdi_error_message(&err));
		cr_assert_eq(cdi_error_count(&warn), 1, "%s", cdi_error_message(&warn));
		cr_assert(strstr(cdi_problem_text(cdi_error_problem(&warn, 0)),
				 "/etc/ld.so.cache") != NULL,
			  "%s", cdi_problem_text(cdi_error_problem(&warn, 0)));
		cr_assert(strstr(cdi_problem_text(cdi_error_problem(&warn, 0)),
				 "standard library directories") != NULL);
		lines = mount_lines(mounts, root, &n);
		for (size_t i = 0; i < n; i++)
			cuda |= strcmp(lines[i], "/usr/lib64/libcuda.so.1 <- " CUDA) == 0;
		cr_assert(cuda, "the standard directories were searched");
		free_lines(lines, n);
		json_decref(mounts);
		cdi_error_reset(&warn);
	}
}

/* A FIFO where the cache should be is not opened for reading (that would hang): an error. */
Test(driver, fifo_cache_is_an_error_not_a_hang, .timeout = 10)
{
	struct cdi_error err = { 0 };
	json_t *mounts = NULL;

	sh("rm '%s/etc/ld.so.cache' && mkfifo '%s/etc/ld.so.cache'", root, root);
	cr_assert_lt(files_for(root, root, VER, &mounts, NULL, &err), 0);
	cr_assert(strstr(cdi_error_message(&err), "/etc/ld.so.cache") != NULL, "%s",
		  cdi_error_message(&err));
	cr_assert(strstr(cdi_error_message(&err), "a FIFO") != NULL, "%s", cdi_error_message(&err));
	cdi_error_reset(&err);
}

/* Another driver version: only what carries it (and the own-versioned linked library). */
Test(driver, other_version)
{
	struct cdi_error err = { 0 };
	json_t *mounts = mounts_for(root, root, "535.104.05", &err);
	size_t n;
	char **lines = mount_lines(mounts, root, &n);
	bool stale_cuda = false;

	for (size_t i = 0; i < n; i++) {
		cr_assert(!strstr(lines[i], VER), "%s", lines[i]);
		stale_cuda |= strcmp(lines[i], "/usr/lib/x86_64-linux-gnu/libcuda.so.1 <- " L64
					       "/libcuda.so.535.104.05") == 0;
	}
	cr_assert(stale_cuda);
	free_lines(lines, n);
	json_decref(mounts);
}

/* The driver in its own root (a driver container): libraries from there, IPC from the host root. */
Test(driver, separate_driver_root)
{
	struct cdi_error err = { 0 };
	char host_root[PATH_MAX];
	json_t *mounts, *m;
	size_t i;
	bool socket = false, cuda = false;

	snprintf(host_root, sizeof(host_root), "%s/host", tmp);
	sh("mkdir -p '%s/run/nvidia-persistenced' && mv '%s/run/nvidia-persistenced/socket' '%s/run/nvidia-persistenced/'",
	   host_root, root, host_root);
	mounts = mounts_for(host_root, root, VER, &err);
	json_array_foreach (mounts, i, m) {
		const char *hp = json_string_value(json_object_get(m, "hostPath"));
		const char *cp = json_string_value(json_object_get(m, "containerPath"));

		if (strcmp(cp, "/run/nvidia-persistenced/socket") == 0) {
			cr_assert(strncmp(hp, host_root, strlen(host_root)) == 0, "%s", hp);
			socket = true;
		}
		if (strcmp(cp, "/usr/lib64/libcuda.so.1") == 0) {
			cr_assert(strncmp(hp, root, strlen(root)) == 0, "%s", hp);
			cuda = true;
		}
	}
	cr_assert(socket && cuda);
	json_decref(mounts);
}

Test(driver, root_resolve_stays_inside)
{
	char *real = NULL;
	struct stat st;

	sh("set -e; cd '%s'; ln -s /etc/passwd etc/pw; ln -s ../../../../../../etc/passwd usr/pw2; echo x > etc/passwd; "
	   "ln -s loop1 etc/loop2; ln -s loop2 etc/loop1; ln -s /nonexistent etc/dangling; ln -s . etc/self",
	   root);
	cr_assert_eq(root_resolve(root, "/etc/pw", &real, &st), 0);
	cr_assert_str_eq(real, "/etc/passwd");
	cr_assert(S_ISREG(st.st_mode) && st.st_size == 2, "the root's passwd, not the machine's");
	free(real);
	cr_assert_eq(root_resolve(root, "/usr/pw2", &real, NULL), 0);
	cr_assert_str_eq(real, "/etc/passwd");
	free(real);
	cr_assert_eq(root_resolve(root,
				  "/lib/x86_64-linux-gnu/../../lib/./x86_64-linux-gnu/libcuda.so",
				  &real, &st),
		     0);
	cr_assert_str_eq(real, CUDA);
	free(real);
	cr_assert_eq(root_resolve(root, "/etc/self/self/self/pw", &real, NULL), 0);
	cr_assert_str_eq(real, "/etc/passwd");
	free(real);
	cr_assert_eq(root_resolve(root, "/..", &real, &st), 0);
	cr_assert_str_eq(real, "/");
	cr_assert(S_ISDIR(st.st_mode));
	free(real);
	cr_assert_eq(root_resolve(root, "/etc/loop1", &real, NULL), -ELOOP);
	cr_assert_eq(root_resolve(root, "/etc/dangling", &real, NULL), -ENOENT);
	cr_assert_eq(root_resolve(root, "/etc/passwd/x", &real, NULL), -ENOTDIR);
	cr_assert_eq(root_resolve(root, "relative", &real, NULL), -EINVAL);
	/* the empty root is "/" */
	cr_assert_eq(root_resolve("", "/", &real, &st), 0);
	cr_assert_str_eq(real, "/");
	free(real);
}

Test(driver, bad_arguments)
{
	struct cdi_error err = { 0 };
	json_t *mounts = NULL;

	cr_assert_eq(files_for(root, root, "", &mounts, NULL, &err), -EINVAL);
	cdi_error_reset(&err);
	cr_assert_eq(files_for(root, root, "../../x", &mounts, NULL, &err), -EINVAL);
	cr_assert_eq(mounts, NULL);
	cdi_error_reset(&err);
}

/* ---- the simulated DGX host of tests/simhost (G1's make-host) ---- */

static char sim[] = "/tmp/cdikit-drvsim.XXXXXX";
static char sim_root[PATH_MAX];
static bool have_sim;

static void sim_setup(void)
{
	cr_assert(mkdtemp(sim));
	have_sim = true;
	snprintf(sim_root, sizeof(sim_root), "%s/h", sim);
	simhost_make(sim_root, "--topology dgx-mig --no-devnodes");
	if (simhost_has(sim_root, ".simhost-no-ldcache"))
		cr_skip_test("make-host could not run ldconfig here");
}

static void sim_teardown(void)
{
	if (have_sim)
		sh("rm -rf '%s'", sim);
}

/* A 550 driver's libraries as nvidia-driver-layout.md §1.1 lists them (what the simulated host
 * installs). */
static const char *const sim_libs64[] = {
	"libEGL_nvidia.so." VER,
	"libGLESv1_CM_nvidia.so." VER,
	"libGLESv2_nvidia.so." VER,
	"libGLX_nvidia.so." VER,
	"libcuda.so." VER,
	"libcudadebugger.so." VER,
	"libnvcuvid.so." VER,
	"libnvidia-allocator.so." VER,
	"libnvidia-cfg.so." VER,
	"libnvidia-egl-gbm.so.1.1.1",
	"libnvidia-egl-wayland.so.1.1.13",
	"libnvidia-eglcore.so." VER,
	"libnvidia-encode.so." VER,
	"libnvidia-fbc.so." VER,
	"libnvidia-glcore.so." VER,
	"libnvidia-glsi.so." VER,
	"libnvidia-glvkspirv.so." VER,
	"libnvidia-gpucomp.so." VER,
	"libnvidia-gtk3.so." VER,
	"libnvidia-ml.so." VER,
	"libnvidia-ngx.so." VER,
	"libnvidia-nvvm.so." VER,
	"libnvidia-opencl.so." VER,
	"libnvidia-opticalflow.so." VER,
	"libnvidia-pkcs11-openssl3.so." VER,
	"libnvidia-pkcs11.so." VER,
	"libnvidia-ptxjitcompiler.so." VER,
	"libnvidia-rtcore.so." VER,
	"libnvidia-tls.so." VER,
	"libnvoptix.so." VER,
	"vdpau/libvdpau_nvidia.so." VER,
};
static const char *const sim_libs32[] = {
	"libEGL_nvidia.so." VER,
	"libGLESv1_CM_nvidia.so." VER,
	"libGLESv2_nvidia.so." VER,
	"libGLX_nvidia.so." VER,
	"libcuda.so." VER,
	"libnvcuvid.so." VER,
	"libnvidia-eglcore.so." VER,
	"libnvidia-encode.so." VER,
	"libnvidia-fbc.so." VER,
	"libnvidia-glcore.so." VER,
	"libnvidia-glsi.so." VER,
	"libnvidia-glvkspirv.so." VER,
	"libnvidia-gpucomp.so." VER,
	"libnvidia-ml.so." VER,
	"libnvidia-opencl.so." VER,
	"libnvidia-opticalflow.so." VER,
	"libnvidia-ptxjitcompiler.so." VER,
	"libnvidia-tls.so." VER,
	"vdpau/libvdpau_nvidia.so." VER,
};

static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

TestSuite(simhost, .init = sim_setup, .fini = sim_teardown, .timeout = 120);

Test(simhost, full_library_set)
{
	struct cdi_error err = { 0 };
	struct driver_libs libs = { 0 };
	const char *got64[64], *got32[64];
	size_t n64 = 0, n32 = 0;

	cr_assert_eq(find_libs(sim_root, VER, &libs, &err), 0, "%s", cdi_error_message(&err));
	for (size_t i = 0; i < libs.n_libs; i++) {
		const struct driver_lib *l = &libs.libs[i];
		const char *dir = l->is32 ? L32 "/" : L64 "/";

		cr_assert(strncmp(l->path, dir, strlen(dir)) == 0, "%s outside %s", l->path, dir);
		cr_assert_lt(n64, 64);
		cr_assert_lt(n32, 64);
		if (l->is32)
			got32[n32++] = l->path + strlen(dir);
		else
			got64[n64++] = l->path + strlen(dir);
		/* every library with a soname the host links gets it from its ELF header */
		if (strstr(l->path, "libcuda.so"))
			cr_assert_str_eq(l->soname, "libcuda.so.1");
	}
	qsort(got64, n64, sizeof(*got64), cmp_strp);
	qsort(got32, n32, sizeof(*got32), cmp_strp);
	for (size_t i = 0; i < n64 || i < ELEMENTSOF_(sim_libs64); i++)
		cr_assert_str_eq(i < n64 ? got64[i] : "(none)",
				 i < ELEMENTSOF_(sim_libs64) ? sim_libs64[i] : "(none)",
				 "64-bit %zu", i);
	for (size_t i = 0; i < n32 || i < ELEMENTSOF_(sim_libs32); i++)
		cr_assert_str_eq(i < n32 ? got32[i] : "(none)",
				 i < ELEMENTSOF_(sim_libs32) ? sim_libs32[i] : "(none)",
				 "32-bit %zu", i);
	driver_libs_clear(&libs);
}

/* The mounts of libcuda, exactly: the hook-free answer to dlopen("libcuda.so.1") and -lcuda. */
Test(simhost, libcuda_mounts)
{
	struct cdi_error err = { 0 };
	json_t *mounts = mounts_for(sim_root, sim_root, VER, &err);
	size_t n, k = 0;
	char **lines = mount_lines(mounts, sim_root, &n);
	static const char *const want[] = {
		"/usr/lib/i386-linux-gnu/libcuda.so <- " CUDA32,
		"/usr/lib/i386-linux-gnu/libcuda.so.1 <- " CUDA32,
		"/usr/lib/i386-linux-gnu/libcuda.so." VER " <- " CUDA32,
		"/usr/lib/libcuda.so <- " CUDA,
		"/usr/lib/libcuda.so.1 <- " CUDA,
		"/usr/lib/x86_64-linux-gnu/libcuda.so <- " CUDA,
		"/usr/lib/x86_64-linux-gnu/libcuda.so.1 <- " CUDA,
		"/usr/lib/x86_64-linux-gnu/libcuda.so." VER " <- " CUDA,
		"/usr/lib64/libcuda.so <- " CUDA,
		"/usr/lib64/libcuda.so.1 <- " CUDA,
	};

	for (size_t i = 0; i < n; i++) {
		/* no stale copy (the 535 compat and glcore files of the host) anywhere */
		cr_assert(!strstr(lines[i], "535.104.05"), "%s", lines[i]);
		cr_assert(!strstr(lines[i], "mesa") && !strstr(lines[i], "libnvidia-api"), "%s",
			  lines[i]);
		if (strncmp(lines[i], "/usr/lib", 8) != 0 || !strstr(lines[i], "/libcuda.so"))
			continue;
		cr_assert_lt(k, ELEMENTSOF_(want), "extra: %s", lines[i]);
		cr_assert_str_eq(lines[i], want[k]);
		k++;
	}
	cr_assert_eq(k, ELEMENTSOF_(want));
	free_lines(lines, n);
	json_decref(mounts);
}

/*
 * The point of it all: with the mounts as the only change to an image that
 * has glibc and no ld.so.cache (no ldconfig hook, no symlink hook), the
 * dynamic linker finds the driver's libraries by soname, dependencies
 * included. A copy of each hostPath at its containerPath stands in for the
 * bind mount (the linker cannot tell them apart); chroot needs root.
 */
enum image_mounts { ALL_MOUNTS, NO_MULTIARCH, OWN_PATHS_ONLY };

/* Under make check SANITIZE=1 the mock NVML needs libasan, which the image does not have. */
static bool sanitizer_free(const char *r, const char *path)
{
	struct cdi_error err = { 0 };
	struct elf_info info;
	char full[PATH_MAX + 64];
	bool clean = true;

	cr_assert_lt(snprintf(full, sizeof(full), "%s%s", r, path), (int)sizeof(full));
	cr_assert_eq(elf_read_file(full, ELF_READ_NEEDED, &info, &err), 0, "%s",
		     cdi_error_message(&err));
	for (size_t i = 0; i < info.n_needed; i++)
		if (strncmp(info.needed[i], "libasan", 7) == 0 ||
		    strncmp(info.needed[i], "libubsan", 8) == 0)
			clean = false;
	elf_info_clear(&info);
	return clean;
}

static void check_dlopen_in_image(enum image_mounts which)
{
	struct cdi_error err = { 0 };
	json_t *mounts = mounts_for(sim_root, sim_root, VER, &err), *m;
	char img[PATH_MAX], *script = NULL;
	const char *nvml;
	size_t len = 0, i;
	FILE *f;

	if (geteuid() != 0)
		cr_skip_test("chroot needs root");
	nvml = sanitizer_free(sim_root, L64 "/libnvidia-ml.so." VER) ? "libnvidia-ml.so.1" : "";
	snprintf(img, sizeof(img), "%s/img", sim);
	f = open_memstream(&script, &len);
	cr_assert(f);
	fprintf(f,
		"set -e; I='%s'; mkdir -p \"$I/lib64\" \"$I/usr/lib/x86_64-linux-gnu\"; "
		"cp -L /lib64/ld-linux-x86-64.so.2 \"$I/lib64/\"; cp -L /lib/x86_64-linux-gnu/libc.so.6 \"$I/usr/lib/x86_64-linux-gnu/\"; ",
		img);
	json_array_foreach (mounts, i, m) {
		const char *cp = json_string_value(json_object_get(m, "containerPath"));

		if (strncmp(cp, "/usr/lib", 8) != 0)
			continue;
		if (which == NO_MULTIARCH && strncmp(cp, L64 "/", strlen(L64) + 1) == 0)
			continue;
		/* what a hook-needing spec gives without its hooks: the versioned files only */
		if (which == OWN_PATHS_ONLY &&
		    strcmp(cp, json_string_value(json_object_get(m, "hostPath")) +
				       strlen(sim_root)) != 0)
			continue;
		fprintf(f, "mkdir -p \"$(dirname \"$I%s\")\"; cp '%s' \"$I%s\"; ", cp,
			json_string_value(json_object_get(m, "hostPath")), cp);
	}
	fprintf(f,
		"printf '%%s\\n' '#include <dlfcn.h>' '#include <stdio.h>' "
		"'int main(int c, char **v) { for (int i = 1; i < c; i++) if (!dlopen(v[i], RTLD_NOW)) { printf(\"%%s\\n\", dlerror()); return 1; } return 0; }' > \"$I.c\"; "
		"cc -o \"$I/t\" \"$I.c\"; test ! -e \"$I/etc/ld.so.cache\"; "
		"%schroot \"$I\" /t libcuda.so.1 %s libGLX_nvidia.so.0 libGLX_indirect.so.0 libEGL_nvidia.so.0 libnvidia-ptxjitcompiler.so.1 libcuda.so",
		which == OWN_PATHS_ONLY ? "! " : "", nvml);
	fclose(f);
	sh("%s", script);
	free(script);
	json_decref(mounts);
}

Test(simhost, dlopen_without_ldconfig_multiarch)
{
	check_dlopen_in_image(ALL_MOUNTS);
}

/* Only the /usr/lib names (musl's directory; Debian's glibc searches it after multiarch). */
Test(simhost, dlopen_without_ldconfig_usr_lib)
{
	check_dlopen_in_image(NO_MULTIARCH);
}

/* The control: the versioned files alone (nvidia-ctk's mounts without its hooks) do not load. */
Test(simhost, dlopen_fails_with_own_paths_only)
{
	check_dlopen_in_image(OWN_PATHS_ONLY);
}

/* Any driver branch: a name the table does not know is the driver's when it carries the exact
 * driver version after a stem of its own (nvidia-ctk's *.so.<ver>); known names keep their
 * entry and capability. */
Test(lib_names, unknown_libraries_by_driver_version)
{
	cr_assert_eq(lib_name_classify("libnvidia-vksc-core.so." VER, VER)->cap, DRV_CAP_GRAPHICS);
	cr_assert_eq(lib_name_classify("libcuda.so.1", VER)->cap, DRV_CAP_COMPUTE);
	cr_assert_eq(lib_name_classify("libnvidia-future.so." VER, VER), &lib_name_unknown);
	cr_assert_eq(lib_name_classify("libnvidia-future.so." VER, VER)->cap, DRV_CAP_UNKNOWN);
	cr_assert_null(lib_name_classify("libnvidia-future.so.1", VER));
	cr_assert_null(lib_name_classify("libnvidia-future.so." VER "0", VER));
	cr_assert_null(lib_name_classify("libnvidia-future.so.1." VER, VER));
	cr_assert_null(lib_name_classify("lib.so." VER, VER));
	cr_assert_null(lib_name_classify("nvidia_drv.so." VER, VER));
	cr_assert_null(lib_name_classify("libnvidia-future.so." VER, ""));
	cr_assert_eq(lib_name_stem_len("libnvidia-future.so." VER), strlen("libnvidia-future.so"));
	cr_assert_eq(lib_name_stem_len("libsocket.sock.so.1"), strlen("libsocket.sock.so"));
	cr_assert_eq(lib_name_stem_len("libfoo"), 0);
}
