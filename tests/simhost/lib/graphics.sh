# SPDX-License-Identifier: Apache-2.0
# Sourced by make-host: sysfs PCI devices, DRM minors (/sys and /dev/dri as the kernel and
# udev lay them out on Debian 12) and the display-side configuration of a host.

# Debian 12: card* are root:video (video is gid 44 in base-passwd), renderD* root:render 0660
# (udev's 50-udev-default.rules; render is a dynamic system group the udev postinst adds,
# gid 105 on a typical install). Both 0660, udev's default mode.
gid_video=44 gid_render=105

# sys_pci bdf vendor device subvendor subdevice class driver: /sys/devices/pci<dom>:<bus>/<bdf>
# with the attributes nvidia-modprobe and generators read, linked from /sys/bus/pci/devices.
sys_pci() {
	local bdf=$1 rel d
	rel=devices/pci${bdf:0:7}/$bdf
	d=sys/$rel
	op_file "$d/vendor" "$2\n"
	op_file "$d/device" "$3\n"
	op_file "$d/subsystem_vendor" "$4\n"
	op_file "$d/subsystem_device" "$5\n"
	op_file "$d/class" "$6\n"
	op_dir "sys/bus/pci/drivers/$7" 0755
	op_ln "../../../$rel" "$R/sys/bus/pci/devices/$bdf"
	op_ln "../../../bus/pci/drivers/$7" "$R/$d/driver"
	op_ln "../../../../$rel" "$R/sys/bus/pci/drivers/$7/$bdf"
}

# drm_minor sysdev name minor id_path: a DRM minor of a device (sysdev relative to /sys),
# its node and the by-path link 60-drm.rules makes (ID_PATH from udev's path_id).
drm_minor() {
	local sysdev=$1 name=$2 minor=$3 idpath=$4 d gid kind
	d=sys/$sysdev/drm/$name
	op_file "$d/dev" "226:$minor\n"
	op_file "$d/uevent" "MAJOR=226\nMINOR=$minor\nDEVNAME=dri/$name\nDEVTYPE=drm_minor\n"
	op_ln "../../$sysdev/drm/$name" "$R/sys/class/drm/$name"
	op_ln "../../$sysdev/drm/$name" "$R/sys/dev/char/226:$minor"
	case $name in
	renderD*) gid=$gid_render kind=render ;;
	*) gid=$gid_video kind=card ;;
	esac
	op_node "dev/dri/$name" 226 "$minor" 0660 0 "$gid"
	op_ln "../$name" "$R/dev/dri/by-path/$idpath-$kind"
}

# The NVIDIA GPUs' PCI functions, and with nvidia-drm loaded their DRM minors: GPU i gets
# card<i + first_card> and renderD<128 + i> (first_card 1: card0 belongs to a device that
# probed earlier, the firmware framebuffer or the BMC's VGA).
write_gpu_sysfs() {
	local i bdf dev=${pci_id:2:4} subdev=${pci_subsys:2:4}
	for ((i = 0; i < ngpus; i++)); do
		bdf=${gpu_bus[i]}
		sys_pci "$bdf" 0x10de "0x${dev,,}" 0x10de "0x${subdev,,}" "$pci_class" nvidia
		((drm)) || continue
		drm_minor "devices/pci${bdf:0:7}/$bdf" "card$((i + first_card))" $((i + first_card)) "pci-$bdf"
		drm_minor "devices/pci${bdf:0:7}/$bdf" "renderD$((128 + i))" $((128 + i)) "pci-$bdf"
	done
	((!drm)) || op_dir dev/dri 0755
}

# card0 of a device that is not an NVIDIA GPU: simpledrm on the firmware framebuffer of a
# workstation, or the ASPEED BMC (ast, no render node) of an HGX server.
write_other_card0() {
	case $1 in
	simpledrm)
		drm_minor devices/platform/simple-framebuffer.0 card0 0 platform-simple-framebuffer.0
		;;
	ast)
		sys_pci 0000:03:00.0 0x1a03 0x2000 0x1a03 0x2000 0x030000 ast
		drm_minor devices/pci0000:03/0000:03:00.0 card0 0 pci-0000:03:00.0
		;;
	esac
}

# X11 and application-profile files of a display host (what the .run installer adds).
write_display_config() {
	mkdir -p "$R/usr/share/X11/xorg.conf.d" "$R/etc/nvidia/nvidia-application-profiles-rc.d"
	cat >"$R/usr/share/X11/xorg.conf.d/10-nvidia.conf" <<-'EOF'
		Section "OutputClass"
		    Identifier "nvidia"
		    MatchDriver "nvidia-drm"
		    Driver "nvidia"
		    Option "AllowEmptyInitialConfiguration"
		    ModulePath "/usr/lib/xorg/modules/extensions"
		EndSection
	EOF
	printf '# cdikit simulated host: key documentation of the application profiles %s\n' "$driver" \
		>"$R/usr/share/nvidia/nvidia-application-profiles-$driver-key-documentation"
}
