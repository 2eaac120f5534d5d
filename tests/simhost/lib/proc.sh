# SPDX-License-Identifier: Apache-2.0
# Sourced by make-host: /proc of a native NVIDIA host (devices, driver/nvidia, capabilities),
# /sys/module, and the nodes the driver creates under /dev.

# /proc/devices: the character section (sorted by major, as the kernel prints it; several
# regions may share one), a blank line, the block section. extra_chardevs holds "major name"
# pairs of the other drivers a topology loads (gds, gdrcopy, MOFED, Tegra).
write_proc_devices() {
	local -a c=(1 mem 4 /dev/vc/0 4 tty 4 ttyS 5 /dev/tty 5 /dev/console 5 /dev/ptmx
		5 ttyprintk 7 vcs 10 misc 13 input 21 sg 29 fb 89 i2c 128 ptm 136 pts 180 usb
		189 usb_device)
	if [ "$platform" != wsl ]; then
		if branch_has split-frontend; then
			c+=(195 nvidia 195 nvidia-modeset 195 nvidiactl)
		else
			c+=(195 nvidia-frontend)
		fi
	fi
	[ "$platform" = jetson ] || c+=(202 cpu/msr 203 cpu/cpuid) # x86 only
	c+=(226 drm)
	if [ "$platform" = native ]; then
		! branch_has caps || c+=("$caps_major" nvidia-caps)
		c+=(236 nvidia-nvlink 237 nvidia-nvswitch)
		! branch_has imex || c+=(238 nvidia-caps-imex-channels)
		c+=("$uvm_major" nvidia-uvm)
	fi
	# shellcheck disable=SC2206
	c+=($extra_chardevs 509 aux 510 cec 511 hidraw)
	{
		printf 'Character devices:\n'
		printf '%3d %s\n' "${c[@]}" | sort -s -n -k1,1
		printf '\nBlock devices:\n'
		printf '%3d %s\n' 7 loop 8 sd 9 md 11 sr 65 sd 66 sd 67 sd 128 sd 253 device-mapper \
			254 mdp 259 blkext
	} >"$R/proc/devices"
}

# /proc/driver/nvidia/params as R550 prints it; R535 predates the IMEX and GRDMA keys (the
# R440 host keeps R550's list, as it always had). --params KEY=VALUE replaces a value.
write_params() {
	local k
	{
		cat <<-'EOF'
			ResmanDebugLevel: 4294967295
			RmLogonRC: 1
			ModifyDeviceFiles: 1
			DeviceFileUID: 0
			DeviceFileGID: 0
			DeviceFileMode: 438
			InitializeSystemMemoryAllocations: 1
			UsePageAttributeTable: 4294967295
			EnableMSI: 1
			EnablePCIeGen3: 0
			MemoryPoolSize: 0
			KMallocHeapMaxSize: 0
			VMallocHeapMaxSize: 0
			IgnoreMMIOCheck: 0
			TCEBypassMode: 0
			EnableStreamMemOPs: 0
			EnableUserNUMAManagement: 0
			NvLinkDisable: 0
			RmProfilingAdminOnly: 1
			PreserveVideoMemoryAllocations: 0
			EnableS0ixPowerManagement: 0
			S0ixPowerManagementVideoMemoryThreshold: 256
			DynamicPowerManagement: 3
			DynamicPowerManagementVideoMemoryThreshold: 200
			RegisterPCIDriver: 1
			EnablePCIERelaxedOrderingMode: 0
			EnableResizableBar: 0
			EnableGpuFirmware: 18
			EnableGpuFirmwareLogs: 2
			RmNvlinkBandwidth: 0
			EnableDbgBreakpoint: 0
			OpenRmEnableUnsupportedGpus: 0
			DmaRemapPeerMmio: 1
			ImexChannelCount: 2048
			CreateImexChannel0: 0
			GrdmaPciTopoCheckOverride: 0
			RegistryDwords: ""
			RegistryDwordsPerDevice: ""
			RmMsg: ""
			GpuBlacklist: ""
			TemporaryFilePath: ""
			ExcludedGpus: ""
		EOF
	} | if [ "$branch" != 535 ]; then cat; else grep -v -e '^ImexChannelCount:' \
		-e '^CreateImexChannel0:' -e '^GrdmaPciTopoCheckOverride:'; fi >"$P/params"
	for k in "${!params_opt[@]}"; do
		sed -i "s/^$k: .*/$k: ${params_opt[$k]}/" "$P/params"
	done
}

# The kernel's format of /proc/driver/nvidia/gpus/<bus>/information (R550 adds GPU Firmware and
# GPU Excluded, R440 has Blacklisted), one per GPU, and the GPU nodes.
write_gpu_info() {
	local i d irq tail info
	local -a dirs=()
	for ((i = 0; i < ngpus; i++)); do dirs+=("$P/gpus/${gpu_bus[i]}"); done
	mkdir -p "${dirs[@]}"
	for ((i = 0; i < ngpus; i++)); do
		irq=$((80 + i * 17))
		if ((old)); then tail=$'Blacklisted:\t No'; else
			tail=$'GPU Firmware: \t '"$driver"$'\nGPU Excluded:\t No'
		fi
		info="Model: 		 $model
IRQ:   		 $irq
GPU UUID: 	 ${gpu_uuid[i]}
Video BIOS: 	 $vbios
Bus Type: 	 PCIe
DMA Size: 	 47 bits
DMA Mask: 	 0x7fffffffffff
Bus Location: 	 ${gpu_bus[i]}
Device Minor: 	 $i
$tail
"
		printf '%s' "$info" >"$P/gpus/${gpu_bus[i]}/information"
		op_node "dev/nvidia$i" 195 "$i" "$node_mode" "$node_uid" "$node_gid"
	done
}

# The control nodes as nvidia-modprobe makes them (perms from params; uvm with the defaults).
# --no-ctl-node and --no-uvm-nodes leave some out while the module is loaded.
make_control_nodes() {
	((no_ctl)) || op_node dev/nvidiactl 195 255 "$node_mode" "$node_uid" "$node_gid"
	op_node dev/nvidia-modeset 195 254 "$node_mode" "$node_uid" "$node_gid"
	if ((!no_uvm)); then
		op_node dev/nvidia-uvm "$uvm_major" 0 0666
		op_node dev/nvidia-uvm-tools "$uvm_major" 1 0666
	fi
}

# MIG capabilities. Minors as nv-caps.c assigns them: config 1, monitor 2,
# gpuN/giG/access 3 + 135N + 9G, gpuN/giG/ciC/access 4 + 135N + 9G + C, for 32 GPUs
# (more when the topology has more, which real drivers do not support). R535 has no
# fabric-imex-mgmt capability (IMEX came with R550).
write_mig_caps() {
	local capgpus g gi b c C m gim cim i
	capgpus=$((ngpus > 32 ? ngpus : 32))
	{
		printf 'config 1\nmonitor 2\n'
		for ((g = 0; g < capgpus; g++)); do
			for ((gi = 0; gi < 15; gi++)); do
				b=$((3 + 135 * g + 9 * gi))
				printf 'gpu%d/gi%d/access %d\n' "$g" "$gi" "$b"
				for ((c = 0; c < 8; c++)); do
					printf 'gpu%d/gi%d/ci%d/access %d\n' "$g" "$gi" "$c" $((b + 1 + c))
				done
			done
		done
	} >"$R/proc/driver/nvidia-caps/mig-minors"
	printf 'fabric-mgmt 0\n' >"$R/proc/driver/nvidia-caps/nvlink-minors"
	! branch_has imex ||
		printf 'fabric-imex-mgmt %d\n' $((3 + 135 * capgpus)) >"$R/proc/driver/nvidia-caps/sys-minors"

	C=$P/capabilities
	local -a capdirs=("$C/mig")
	for ((i = 0; i < ngpus; i++)); do capdirs+=("$C/gpu$i/mig"); done
	for m in "${mig_lines[@]}"; do
		set -- $m
		capdirs+=("$C/gpu$1/mig/gi$2/ci$3")
	done
	mkdir -p "${capdirs[@]}"
	capfile "$C/mig/config" 1 256
	capfile "$C/mig/monitor" 2 292
	! branch_has imex || capfile "$C/fabric-imex-mgmt" $((3 + 135 * capgpus)) 256
	op_dir dev/nvidia-caps 0755
	op_node dev/nvidia-caps/nvidia-cap1 "$caps_major" 1 0400
	op_node dev/nvidia-caps/nvidia-cap2 "$caps_major" 2 0444
	local -A seen_gi=()
	for m in "${mig_lines[@]}"; do
		set -- $m
		gim=$((3 + 135 * $1 + 9 * $2))
		cim=$((gim + 1 + $3))
		if [ -z "${seen_gi[$1/$2]:-}" ]; then
			seen_gi[$1/$2]=1
			capfile "$C/gpu$1/mig/gi$2/access" "$gim" 292
			op_node "dev/nvidia-caps/nvidia-cap$gim" "$caps_major" "$gim" 0444
		fi
		capfile "$C/gpu$1/mig/gi$2/ci$3/access" "$cim" 292
		op_node "dev/nvidia-caps/nvidia-cap$cim" "$caps_major" "$cim" 0444
	done
}
capfile() { printf 'DeviceFileMinor: %d\nDeviceFileMode: %d\nDeviceFileModify: 1\n' "$2" "$3" >"$1"; }

# /proc/driver/nvidia and /proc/devices of a native host.
write_proc() {
	P=$R/proc/driver/nvidia
	write_proc_devices
	printf 'NVRM version: NVIDIA UNIX x86_64 Kernel Module  %s  %s\nGCC version:  %s\n' \
		"$driver" "$build_date" "$gcc_line" >"$P/version"
	write_params
	printf 'Binary: ""\n' >"$P/registry"
	write_gpu_info
	make_control_nodes
	((!mig_capable)) || write_mig_caps
}

# /sys/module: the loaded modules (initstate as the kernel reports it) and the firmware path.
write_sys_module() {
	local m
	mkdir -p "$R/sys/module/nvidia" "$R/sys/module/nvidia_uvm" "$R/sys/module/nvidia_modeset"
	printf '%s\n' "$driver" >"$R/sys/module/nvidia/version"
	for m in nvidia nvidia_uvm nvidia_modeset; do printf 'live\n' >"$R/sys/module/$m/initstate"; done
	for m in $extra_modules; do op_file "sys/module/$m/initstate" 'live\n'; done
	printf '%s\n' "$firmware_path" >"$R/sys/module/firmware_class/parameters/path"
}
