# SPDX-License-Identifier: Apache-2.0
# Sourced by make-host: the file sets of the driver branches a host can carry (440, 535, 550,
# 570), what each branch registers and ships, and how the libraries are installed.
# Sources per branch: tests/simhost/README.md ("Driver branches").

# name|dir|soname|dev link|DT_NEEDED (names of this table)|64-bit in branches|32-bit in
# branches. VER stands for the driver version; soname "-": the object has none; "all": 440,
# 535, 550 and 570. Dependencies first. R535: no libnvidia-gpucomp (545.29.02 added it),
# libnvidia-vulkan-producer (no SONAME) still shipped. R570: nvsandboxutils, the Vulkan SC ICD
# (since 560), a 32-bit libnvidia-allocator. The 550 set has no gtk2 and Wayland client (it is
# the set the first hosts were made with, kept as it was).
driver_libs='
libnvidia-ml|.|libnvidia-ml.so.1|libnvidia-ml.so||all|all
libnvidia-cfg|.|libnvidia-cfg.so.1|libnvidia-cfg.so||all|
libnvidia-sandboxutils|.|libnvidia-sandboxutils.so.1|libnvidia-sandboxutils.so||570|
libcuda|.|libcuda.so.1|libcuda.so||all|all
libcudadebugger|.|libcudadebugger.so.1|||535 550 570|
libnvidia-opencl|.|libnvidia-opencl.so.1|||all|all
libnvidia-gpucomp|.|libnvidia-gpucomp.so.VER|||550 570|550 570
libnvidia-ptxjitcompiler|.|libnvidia-ptxjitcompiler.so.1|libnvidia-ptxjitcompiler.so||all|all
libnvidia-fatbinaryloader|.|libnvidia-fatbinaryloader.so.VER|||440|440
libnvidia-allocator|.|libnvidia-allocator.so.1|libnvidia-allocator.so||535 550 570|570
libnvidia-pkcs11|.|libnvidia-pkcs11.so.VER|||535 550 570|
libnvidia-pkcs11-openssl3|.|libnvidia-pkcs11-openssl3.so.VER|||535 550 570|
libnvidia-nvvm|.|libnvidia-nvvm.so.4|libnvidia-nvvm.so||535 550 570|
libvdpau_nvidia|vdpau|libvdpau_nvidia.so.1|||all|all
libnvcuvid|.|libnvcuvid.so.1|libnvcuvid.so||all|all
libnvidia-encode|.|libnvidia-encode.so.1|libnvidia-encode.so|libnvcuvid|all|all
libnvidia-opticalflow|.|libnvidia-opticalflow.so.1|libnvidia-opticalflow.so||all|all
libnvidia-glsi|.|libnvidia-glsi.so.VER|||all|all
libnvidia-eglcore|.|libnvidia-eglcore.so.VER|||all|all
libnvidia-glcore|.|libnvidia-glcore.so.VER|||all|all
libnvidia-tls|.|libnvidia-tls.so.VER|||all|all
libnvidia-fbc|.|libnvidia-fbc.so.1|libnvidia-fbc.so||all|all
libnvidia-ifr|.|libnvidia-ifr.so.1|libnvidia-ifr.so||440|440
libnvidia-rtcore|.|libnvidia-rtcore.so.VER|||all|
libnvoptix|.|libnvoptix.so.1|||all|
libnvidia-cbl|.|libnvidia-cbl.so.VER|||440|
libGLX_nvidia|.|libGLX_nvidia.so.0||libnvidia-glcore libnvidia-tls|all|all
libEGL_nvidia|.|libEGL_nvidia.so.0||libnvidia-eglcore libnvidia-glsi|all|all
libGLESv2_nvidia|.|libGLESv2_nvidia.so.2||libnvidia-eglcore libnvidia-glsi|all|all
libGLESv1_CM_nvidia|.|libGLESv1_CM_nvidia.so.1||libnvidia-eglcore libnvidia-glsi|all|all
libnvidia-glvkspirv|.|libnvidia-glvkspirv.so.VER|||all|all
libnvidia-vulkan-producer|.|-|libnvidia-vulkan-producer.so||535|
libnvidia-vksc-core|.|libnvidia-vksc-core.so.1|||570|
libnvidia-ngx|.|libnvidia-ngx.so.1|||535 550 570|
libnvidia-gtk2|.|libnvidia-gtk2.so.VER|||535 570|
libnvidia-gtk3|.|libnvidia-gtk3.so.VER|||535 550 570|
libnvidia-wayland-client|.|libnvidia-wayland-client.so.VER|||535 570|
'

# branch_table BRANCH: the branch's rows as name|dir|soname|dev link|DT_NEEDED|32 ("32": also
# a 32-bit copy).
branch_table() {
	local name dir soname devlink deps in64 in32
	while IFS='|' read -r name dir soname devlink deps in64 in32; do
		[ -n "$name" ] || continue
		[[ " $in64 " == *" $1 "* || $in64 == all ]] || continue
		[[ " $in32 " == *" $1 "* || $in32 == all ]] && in32=32 || in32=
		printf '%s|%s|%s|%s|%s|%s\n' "$name" "$dir" "$soname" "$devlink" "$deps" "$in32"
	done <<<"$driver_libs"
}

# Libraries NVIDIA ships with versions of their own: file|soname|EGL platform json (or empty).
own_535='
libnvidia-egl-gbm.so.1.1.0|libnvidia-egl-gbm.so.1|15_nvidia_gbm.json
libnvidia-egl-wayland.so.1.1.11|libnvidia-egl-wayland.so.1|10_nvidia_wayland.json
libnvidia-api.so.1|libnvidia-api.so.1|
'
own_550='
libnvidia-egl-gbm.so.1.1.1|libnvidia-egl-gbm.so.1|15_nvidia_gbm.json
libnvidia-egl-wayland.so.1.1.13|libnvidia-egl-wayland.so.1|10_nvidia_wayland.json
libnvidia-api.so.1|libnvidia-api.so.1|
'
own_570='
libnvidia-egl-gbm.so.1.1.2|libnvidia-egl-gbm.so.1|15_nvidia_gbm.json
libnvidia-egl-wayland.so.1.1.19|libnvidia-egl-wayland.so.1|10_nvidia_wayland.json
libnvidia-egl-xcb.so.1.0.1|libnvidia-egl-xcb.so.1|20_nvidia_xcb.json
libnvidia-egl-xlib.so.1.0.1|libnvidia-egl-xlib.so.1|20_nvidia_xlib.json
libnvidia-api.so.1|libnvidia-api.so.1|
'
# Not the driver's: real file name|soname|dir (relative to the lib dir)|version tag
others_64='
libEGL_mesa.so.0.0.0|libEGL_mesa.so.0|.
libGLX_mesa.so.0.0.0|libGLX_mesa.so.0|.
libGLdispatch.so.0.0.0|libGLdispatch.so.0|.
libGLX.so.0.0.0|libGLX.so.0|.
libEGL.so.1.1.0|libEGL.so.1|.
libGL.so.1.7.0|libGL.so.1|.
libOpenGL.so.0.0.0|libOpenGL.so.0|.
libGLESv2.so.2.1.0|libGLESv2.so.2|.
libOpenCL.so.1.0.0|libOpenCL.so.1|.
libvdpau.so.1.0.0|libvdpau.so.1|.
libfoo.so.1.2.3|libfoo.so.1|.
'

# branch_select BRANCH: the file set, the default version of the branch and what it says.
branch_select() {
	build_date="Tue Mar  5 22:23:56 UTC 2024" gcc_line="gcc version 12.2.0 (Debian 12.2.0-14) "
	case $1 in
	440)
		own_libs= driver=440.118.02 cuda=10020 vk=1.1.119
		build_date="Thu Sep 24 03:22:16 UTC 2020" gcc_line="gcc version 8.3.0 (Debian 8.3.0-6) "
		;;
	535)
		own_libs=$own_535 driver=535.183.01 cuda=12020 vk=1.3.242
		build_date="Sun May 12 19:39:15 UTC 2024"
		;;
	550) own_libs=$own_550 driver=550.54.15 cuda=12040 vk=1.3.277 ;;
	570)
		own_libs=$own_570 driver=570.148.08 cuda=12080 vk=1.4.303
		build_date="Fri May  2 23:31:35 UTC 2025"
		;;
	*) die "--branch: 535, 550 or 570 (got $1)" ;;
	esac
	nvml_version=${cuda:0:2}.$driver
	libs=$(branch_table "$1")
}

# What the branch's kernel module registers in /proc/devices (beyond uvm): 545.29 and later
# name the 195 regions nvidia, nvidia-modeset (NVKMS) and nvidiactl where older ones had one
# nvidia-frontend; nvidia-caps came with MIG (450), the IMEX channels with 550.
branch_major() { echo "${1%%.*}"; }
branch_has() { # feature -> status
	local m
	m=$(branch_major "$driver")
	case $1 in
	split-frontend) ((m >= 545)) || [ "$platform" = jetson ] ;;
	caps) ((m >= 450)) ;;
	imex) ((m >= 550)) ;;
	gsp) ((m >= 510)) ;;
	sandboxutils | vksc) ((m >= 570)) ;;
	*) return 1 ;;
	esac
}

# Install one library: file, soname link, dev link (to the soname, or the file without one).
install_lib() { # cachedir destdir file soname devlink
	op_cp "$1/$3" "$2/$3"
	if [ "$4" = - ]; then
		[ -z "$5" ] || op_ln "$3" "$2/$5"
		return 0
	fi
	[ "$4" = "$3" ] || op_ln "$3" "$2/$4"
	[ -z "$5" ] || op_ln "$4" "$2/$5"
}

# The driver's libraries, with the mock as libnvidia-ml (unless the host has no NVML).
install_driver_libs() {
	local name dir soname devlink deps b32 file p json
	while IFS='|' read -r name dir soname devlink deps b32; do
		[ -n "$name" ] || continue
		soname=${soname//VER/$driver}
		file=$name.so.$driver
		if [ "$name" = libnvidia-ml ]; then
			((with_nvml)) || continue
			op_cp "$mock_lib" "$R/$L64/$file"
			op_ln "$file" "$R/$L64/$soname"
			op_ln "$soname" "$R/$L64/$devlink"
		else
			install_lib "$cache/64" "$R/$L64/$dir" "$file" "$soname" "$devlink"
		fi
		if [ -n "$b32" ]; then install_lib "$cache/32" "$R/$L32/$dir" "$file" "$soname" "$devlink"; fi
	done <<<"$libs"
	while IFS='|' read -r file soname dir; do
		[ -n "$file" ] || continue
		install_lib "$cache/64" "$R/$L64" "$file" "$soname" ""
	done <<<"$others_64"
	op_ln libOpenCL.so.1 "$R/$L64/libOpenCL.so"
	((!old)) || return 0
	op_ln libGLX_nvidia.so.$driver "$R/$L64/libGLX_indirect.so.0"
	op_ln ../libnvidia-allocator.so.1 "$R/$L64/gbm/nvidia-drm_gbm.so"
	if ((legacy)); then
		# The EGL external platforms ship with their own versions, not the driver's.
		for p in libnvidia-egl-gbm.so.1.1.1 libnvidia-egl-wayland.so.1.1.13; do
			op_cp "$cache/64/libnvidia-cfg.so.$driver" "$R/$L64/$p"
			op_ln "$p" "$R/$L64/${p%.so.*}.so.1"
		done
	else
		while IFS='|' read -r file soname json; do
			[ -n "$file" ] || continue
			install_lib "$cache/64" "$R/$L64" "$file" "$soname" ""
		done <<<"$own_libs"
	fi
	op_cp "$cache/64/libglxserver_nvidia.so.$driver" "$R/usr/lib/xorg/modules/extensions/libglxserver_nvidia.so.$driver"
	op_ln "libglxserver_nvidia.so.$driver" "$R/usr/lib/xorg/modules/extensions/libglxserver_nvidia.so"
	op_cp "$cache/64/nvidia_drv.so" "$R/usr/lib/xorg/modules/drivers/nvidia_drv.so"
	# NvAPI for Wine: NVIDIA's, but named without the driver version.
	((!legacy)) || op_cp "$cache/64/libfoo.so.1.2.3" "$R/$L64/libnvidia-api.so.1"
}

# EGL external platform files: the one of each own-version EGL library.
egl_platform_json() { # json library-soname
	egl_json_text "$2" >"$R/usr/share/egl/egl_external_platform.d/$1"
}
