# SPDX-License-Identifier: Apache-2.0
# Sourced by make-host: a Jetson AGX Orin on L4T R36.4 (JetPack 6, Ubuntu 22.04, aarch64).
# No NVML and no dGPU procfs (only the OpenRM display driver's /proc/driver/nvidia/version,
# which real Orins have): nvidia-container-toolkit's CSV mode injects what
# /etc/nvidia-container-runtime/host-files-for-container.d/*.csv list (rows "dev, /path",
# "lib, /path", "sym, /path", "dir, /path"; dev paths may be globs). JetPack 6 ships
# devices.csv and drivers.csv (JetPack 5 had them as one l4t.csv: --l4t r35 writes that).
# The rows are a subset of NVIDIA's own fixtures (nvidia-container-toolkit testdata/lookup/
# rootfs-orin devices.csv, csv-mode drivers.csv) at R36.4's version 540.4.0. Every listed path
# exists: libraries are text stand-ins (the host is aarch64; nothing here is executed).

jetson_ver=540.4.0
jetson_kernel=5.15.148-tegra

jetson_devices_csv='dev, /dev/dri/card*
dev, /dev/dri/renderD*
dir, /dev/dri/by-path
dev, /dev/fb0
dev, /dev/fb1
dev, /dev/host1x-fence
dev, /dev/nvhost-as-gpu
dev, /dev/nvhost-ctrl-gpu
dev, /dev/nvhost-ctrl-nvdla0
dev, /dev/nvhost-ctrl-nvdla1
dev, /dev/nvhost-ctrl-pva0
dev, /dev/nvhost-ctxsw-gpu
dev, /dev/nvhost-dbg-gpu
dev, /dev/nvhost-gpu
dev, /dev/nvhost-nvsched-gpu
dev, /dev/nvhost-power-gpu
dev, /dev/nvhost-prof-ctx-gpu
dev, /dev/nvhost-prof-dev-gpu
dev, /dev/nvhost-prof-gpu
dev, /dev/nvhost-sched-gpu
dev, /dev/nvhost-tsg-gpu
dev, /dev/nvgpu/igpu0/as
dev, /dev/nvgpu/igpu0/channel
dev, /dev/nvgpu/igpu0/ctrl
dev, /dev/nvgpu/igpu0/ctxsw
dev, /dev/nvgpu/igpu0/dbg
dev, /dev/nvgpu/igpu0/nvsched
dev, /dev/nvgpu/igpu0/power
dev, /dev/nvgpu/igpu0/prof
dev, /dev/nvgpu/igpu0/prof-ctx
dev, /dev/nvgpu/igpu0/prof-dev
dev, /dev/nvgpu/igpu0/sched
dev, /dev/nvgpu/igpu0/tsg
dev, /dev/nvidia-modeset
dev, /dev/nvidia0
dev, /dev/nvidiactl
dev, /dev/nvmap
dev, /dev/nvsciipc
dev, /dev/v4l2-nvdec
dev, /dev/v4l2-nvenc
'
L=/usr/lib/aarch64-linux-gnu
jetson_drivers_csv="lib, $L/libv4l2.so.0
lib, $L/nvidia/weston/weston
lib, $L/gstreamer-1.0/libgstnvvidconv.so
lib, $L/gstreamer-1.0/libgstnvvideo4linux2.so
lib, $L/gstreamer-1.0/nvgstcapture-1.0_README.txt
lib, $L/libgstnvegl-1.0.so.0
lib, $L/nvidia/libgstnvcustomhelper.so.1.0.0
sym, $L/nvidia/libgstnvcustomhelper.so
lib, /etc/vulkansc/icd.d/nvidia_icd_vksc.json
lib, $L/nvidia/ld.so.conf
lib, $L/nvidia/libcuda.so.1.1
lib, $L/nvidia/libGLX_nvidia.so.0
lib, $L/nvidia/libnvcucompat.so
lib, $L/nvidia/libnvcudla.so
lib, $L/nvidia/libnvdla_runtime.so
lib, $L/nvidia/libnvidia-allocator.so.1
lib, $L/nvidia/libnvidia-eglcore.so.$jetson_ver
lib, $L/nvidia/libnvidia-egl-gbm.so.1.1.0
lib, $L/nvidia/libnvidia-egl-wayland.so.1.1.11
lib, $L/nvidia/libnvidia-glcore.so.$jetson_ver
lib, $L/nvidia/libnvidia-glsi.so.$jetson_ver
lib, $L/nvidia/libnvidia-glvkspirv.so.$jetson_ver
lib, $L/nvidia/libnvidia-gpucomp.so.$jetson_ver
lib, $L/nvidia/libnvidia-kms.so.$jetson_ver
lib, $L/nvidia/libnvidia-ml.so.1
lib, $L/nvidia/libnvidia-nvvm.so.$jetson_ver
lib, $L/nvidia/libnvidia-ptxjitcompiler.so.$jetson_ver
lib, $L/nvidia/libnvidia-rmapi-tegra.so.$jetson_ver
lib, $L/nvidia/libnvidia-rtcore.so.$jetson_ver
lib, $L/nvidia/libnvidia-tls.so.$jetson_ver
lib, $L/nvidia/libnvidia-vksc-core.so.$jetson_ver
lib, $L/nvidia/libnvos.so
lib, $L/nvidia/libnvrm_gpu.so
lib, $L/nvidia/libnvrm_host1x.so
lib, $L/nvidia/libnvrm_mem.so
lib, $L/nvidia/libnvscibuf.so.1
lib, $L/nvidia/libnvsciipc.so
lib, $L/nvidia/nvidia_icd.json
lib, $L/tegra-egl/ld.so.conf
lib, $L/tegra-egl/libEGL_nvidia.so.0
lib, $L/tegra-egl/libGLESv1_CM_nvidia.so.1
lib, $L/tegra-egl/libGLESv2_nvidia.so.2
lib, $L/tegra-egl/nvidia.json
sym, /etc/vulkan/icd.d/nvidia_icd.json
sym, $L/gbm/nvidia-drm_gbm.so
sym, $L/gbm/tegra_gbm.so
sym, $L/libcuda.so
sym, $L/libnvcucompat.so
sym, $L/libnvcudla.so
sym, $L/nvidia/libcuda.so
sym, $L/nvidia/libcuda.so.1
sym, $L/nvidia/libnvidia-allocator.so
sym, $L/nvidia/libnvidia-egl-gbm.so.1
sym, $L/nvidia/libnvidia-egl-wayland.so.1
sym, $L/nvidia/libnvidia-kms.so
sym, $L/nvidia/libnvidia-nvvm.so.4
sym, $L/nvidia/libnvidia-ptxjitcompiler.so.1
sym, $L/nvidia/libnvidia-vksc-core.so.1
sym, $L/nvidia/libnvscibuf.so
sym, $L/tegra
sym, /usr/share/glvnd/egl_vendor.d/10_nvidia.json
lib, //lib/firmware/tegra19x/nvhost_nvdec040_ns.fw
lib, /lib/firmware/tegra23x/nvhost_nvdec050_desc_prod.bin
lib, /usr/sbin/nvidia-smi
"
unset L

# Where each sym row points (as the L4T packages make the links).
declare -A jetson_links=(
	[/usr/lib/aarch64-linux-gnu/nvidia/libgstnvcustomhelper.so]=libgstnvcustomhelper.so.1.0.0
	[/etc/vulkan/icd.d/nvidia_icd.json]=/usr/lib/aarch64-linux-gnu/nvidia/nvidia_icd.json
	[/usr/lib/aarch64-linux-gnu/gbm/nvidia-drm_gbm.so]=../nvidia/libnvidia-allocator.so.1
	[/usr/lib/aarch64-linux-gnu/gbm/tegra_gbm.so]=../nvidia/libnvidia-allocator.so.1
	[/usr/lib/aarch64-linux-gnu/libcuda.so]=nvidia/libcuda.so
	[/usr/lib/aarch64-linux-gnu/libnvcucompat.so]=nvidia/libnvcucompat.so
	[/usr/lib/aarch64-linux-gnu/libnvcudla.so]=nvidia/libnvcudla.so
	[/usr/lib/aarch64-linux-gnu/nvidia/libcuda.so]=libcuda.so.1.1
	[/usr/lib/aarch64-linux-gnu/nvidia/libcuda.so.1]=libcuda.so.1.1
	[/usr/lib/aarch64-linux-gnu/nvidia/libnvidia-allocator.so]=libnvidia-allocator.so.1
	[/usr/lib/aarch64-linux-gnu/nvidia/libnvidia-egl-gbm.so.1]=libnvidia-egl-gbm.so.1.1.0
	[/usr/lib/aarch64-linux-gnu/nvidia/libnvidia-egl-wayland.so.1]=libnvidia-egl-wayland.so.1.1.11
	[/usr/lib/aarch64-linux-gnu/nvidia/libnvidia-kms.so]=libnvidia-kms.so.540.4.0
	[/usr/lib/aarch64-linux-gnu/nvidia/libnvidia-nvvm.so.4]=libnvidia-nvvm.so.540.4.0
	[/usr/lib/aarch64-linux-gnu/nvidia/libnvidia-ptxjitcompiler.so.1]=libnvidia-ptxjitcompiler.so.540.4.0
	[/usr/lib/aarch64-linux-gnu/nvidia/libnvidia-vksc-core.so.1]=libnvidia-vksc-core.so.540.4.0
	[/usr/lib/aarch64-linux-gnu/nvidia/libnvscibuf.so]=libnvscibuf.so.1
	[/usr/lib/aarch64-linux-gnu/tegra]=nvidia
	[/usr/share/glvnd/egl_vendor.d/10_nvidia.json]=/usr/lib/aarch64-linux-gnu/tegra-egl/nvidia.json
)

# The nodes of devices.csv: path major minor mode gid. The GPU's nvgpu and nvhost nodes, nvmap
# and the Tegra regions are the video group's (L4T's udev rules), the OpenRM display driver's
# 195 nodes world-accessible. Dynamic majors (host1x-fence 498, nvhost 497, nvgpu 496,
# nvsciipc 495) and the misc minor of nvmap are illustrative.
jetson_nodes() {
	local i=0 n
	echo "dev/dri/card0 226 0 0660 $gid_video"
	echo "dev/dri/renderD128 226 128 0660 $gid_render"
	echo "dev/fb0 29 0 0660 $gid_video"
	echo "dev/fb1 29 1 0660 $gid_video"
	echo "dev/host1x-fence 498 0 0660 $gid_video"
	for n in as-gpu ctrl-gpu ctrl-nvdla0 ctrl-nvdla1 ctrl-pva0 ctxsw-gpu dbg-gpu gpu nvsched-gpu \
		power-gpu prof-ctx-gpu prof-dev-gpu prof-gpu sched-gpu tsg-gpu; do
		echo "dev/nvhost-$n 497 $i 0660 $gid_video"
		i=$((i + 1))
	done
	i=0
	for n in as channel ctrl ctxsw dbg nvsched power prof prof-ctx prof-dev sched tsg; do
		echo "dev/nvgpu/igpu0/$n 496 $i 0660 $gid_video"
		i=$((i + 1))
	done
	echo "dev/nvidia-modeset 195 254 0666 0"
	echo "dev/nvidia0 195 0 0666 0"
	echo "dev/nvidiactl 195 255 0666 0"
	echo "dev/nvmap 10 124 0660 $gid_video"
	echo "dev/nvsciipc 495 0 0660 $gid_video"
	echo "dev/v4l2-nvdec 81 0 0660 $gid_video"
	echo "dev/v4l2-nvenc 81 1 0660 $gid_video"
}

# A stand-in for a lib row: JSON where the file is JSON, the search path of an ld.so.conf.
jetson_file() { # path
	local p=$1
	case $p in
	*/nvidia/ld.so.conf) printf '/usr/lib/aarch64-linux-gnu/nvidia\n' ;;
	*/tegra-egl/ld.so.conf) printf '/usr/lib/aarch64-linux-gnu/tegra-egl\n' ;;
	*nvidia_icd_vksc.json) egl_json_text libnvidia-vksc-core.so.1 ;;
	*nvidia_icd.json) egl_json_text libGLX_nvidia.so.0 ;;
	*/nvidia.json) egl_json_text libEGL_nvidia.so.0 ;;
	*) printf 'cdikit simulated L4T R36.4 file %s\n' "${p##*/}" ;;
	esac >"$R$p"
}

build_jetson_root() {
	local D=$R/etc/nvidia-container-runtime/host-files-for-container.d kind path rest
	mkdir -p "$D" "$R/sys/devices/soc0" "$R/proc/device-tree" "$R/proc/sys/kernel"
	if [ "$l4t" = r35 ]; then
		printf '%s%s' "$jetson_devices_csv" "$jetson_drivers_csv" >"$D/l4t.csv"
	else
		printf '%s' "$jetson_devices_csv" >"$D/devices.csv"
		printf '%s' "$jetson_drivers_csv" >"$D/drivers.csv"
	fi
	local -a dirs=() files=()
	while IFS=, read -r kind rest; do
		path=${rest# }
		case $kind in
		lib) dirs+=("$R${path%/*}") files+=("$path") ;;
		sym) op_ln "${jetson_links[$path]:?no link target for $path}" "$R$path" ;;
		dir) dirs+=("$R$path") ;;
		esac
	done <<<"$jetson_drivers_csv$jetson_devices_csv"
	mkdir -p "${dirs[@]}"
	for path in "${files[@]}"; do jetson_file "$path"; done
	chmod 755 "$R/usr/sbin/nvidia-smi"
	while read -r path major minor mode gid; do
		op_node "$path" "$major" "$minor" "$mode" 0 "$gid"
	done < <(jetson_nodes)
	op_dir dev/dri 0755
	op_ln ../card0 "$R/dev/dri/by-path/platform-13800000.display-card"
	op_ln ../renderD128 "$R/dev/dri/by-path/platform-13800000.display-render"
	# The linker configuration (no cache is built: the libraries here are stand-ins).
	printf 'include /etc/ld.so.conf.d/*.conf\n\n' >"$R/etc/ld.so.conf"
	printf '# libc default configuration\n/usr/local/lib\n' >"$R/etc/ld.so.conf.d/libc.conf"
	printf '# Multiarch support\n/usr/local/lib/aarch64-linux-gnu\n/lib/aarch64-linux-gnu\n/usr/lib/aarch64-linux-gnu\n' \
		>"$R/etc/ld.so.conf.d/aarch64-linux-gnu.conf"
	ln -s ../../usr/lib/aarch64-linux-gnu/nvidia/ld.so.conf "$R/etc/ld.so.conf.d/nvidia-tegra.conf"

	# What tells a Tegra host apart: nv_tegra_release and the SoC family (nvidia-ctk's checks).
	cat >"$R/etc/nv_tegra_release" <<-'EOF'
		# R36 (release), REVISION: 4.3, GCID: 38968081, BOARD: generic, EABI: aarch64, DATE: Wed Jan  8 01:49:37 UTC 2025
		# KERNEL_VARIANT: oot
		TARGET_USERSPACE_LIB_DIR=nvidia
		TARGET_USERSPACE_LIB_DIR_PATH=usr/lib/aarch64-linux-gnu/nvidia
	EOF
	printf 'Tegra\n' >"$R/sys/devices/soc0/family"
	printf '35\n' >"$R/sys/devices/soc0/soc_id"
	printf 'NVIDIA Jetson AGX Orin Developer Kit\n' >"$R/sys/devices/soc0/machine"
	printf 'NVIDIA Jetson AGX Orin Developer Kit\0' >"$R/proc/device-tree/model"
	printf 'nvidia,p3737-0000+p3701-0005\0nvidia,p3701-0005\0nvidia,tegra234\0' >"$R/proc/device-tree/compatible"
	local m
	for m in nvgpu nvidia nvidia_modeset nvidia_drm nvmap; do op_file "sys/module/$m/initstate" 'live\n'; done
	# nvidia.ko here is the OpenRM display driver: it has /proc/driver/nvidia/version (in the
	# open module's format, the L4T release as version) but no GPUs, params or capabilities.
	mkdir -p "$R/proc/driver/nvidia"
	printf 'NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  36.4.3  Release Build  (buildbrain@mobile-u64-6354-d7000)  Wed Jan  8 01:42:39 PST 2025\nGCC version:  gcc version 11.3.0 (Buildroot 2022.08) \n' \
		>"$R/proc/driver/nvidia/version"
	printf '%s\n' "$jetson_kernel" >"$R/proc/sys/kernel/osrelease"
	printf 'Linux version %s (buildbrain@mobile-u64-6354-d7000) (aarch64-buildroot-linux-gnu-gcc.br_real (Buildroot 2022.08) 11.3.0, GNU ld (GNU Binutils) 2.38) #1 SMP PREEMPT Wed Jan  8 01:48:29 PST 2025\n' \
		"$jetson_kernel" >"$R/proc/version"
}
