# SPDX-License-Identifier: Apache-2.0
# Sourced by make-host: the configuration files a driver installs (GLVND, EGL platforms,
# Vulkan, OpenCL, OptiX, application profiles), the distribution's identity files and groups.

write_driver_configs() {
	local file soname json
	egl_json_text libEGL_nvidia.so.0 >"$R/usr/share/glvnd/egl_vendor.d/10_nvidia.json"
	# The EGL external platforms of the branch (none in R440).
	while IFS='|' read -r file soname json; do
		[ -z "$json" ] || egl_platform_json "$json" "$soname"
	done <<<"$own_libs"
	cat >"$R/usr/share/vulkan/icd.d/nvidia_icd.json" <<-EOF
		{
		    "file_format_version" : "1.0.0",
		    "ICD": {
		        "library_path": "libGLX_nvidia.so.0",
		        "api_version" : "$vk"
		    }
		}
	EOF
	cat >"$R/usr/share/vulkan/implicit_layer.d/nvidia_layers.json" <<-EOF
		{
		    "file_format_version" : "1.0.0",
		    "layer": {
		        "name": "VK_LAYER_NV_optimus",
		        "type": "INSTANCE",
		        "library_path": "libGLX_nvidia.so.0",
		        "api_version" : "$vk",
		        "implementation_version" : "1",
		        "description" : "NVIDIA Optimus layer",
		        "functions": {
		            "vkGetInstanceProcAddr": "vk_optimusGetInstanceProcAddr",
		            "vkGetDeviceProcAddr": "vk_optimusGetDeviceProcAddr"
		        },
		        "enable_environment": {
		            "__NV_PRIME_RENDER_OFFLOAD": "1"
		        },
		        "disable_environment": {
		            "DISABLE_LAYER_NV_OPTIMUS_1": ""
		        }
		    }
		}
	EOF
	# Vulkan SC (560 and later): its own ICD directory under /etc.
	if branch_has vksc; then
		mkdir -p "$R/etc/vulkansc/icd.d"
		egl_json_text libnvidia-vksc-core.so.1 >"$R/etc/vulkansc/icd.d/nvidia_icd.json"
	fi
	printf 'libnvidia-opencl.so.1\n' >"$R/etc/OpenCL/vendors/nvidia.icd"
	printf 'cdikit simulated OptiX denoiser weights %s\n' "$driver" >"$R/usr/share/nvidia/nvoptix.bin"
	printf '{\n    "rules" : [],\n    "profiles" : []\n}\n' \
		>"$R/usr/share/nvidia/nvidia-application-profiles-$driver-rc"
}

# A glvnd/EGL/Vulkan ICD file naming one library.
egl_json_text() {
	printf '{\n    "file_format_version" : "1.0.0",\n    "ICD" : {\n        "library_path" : "%s"\n    }\n}\n' "$1"
}

write_os_release() { # debian | ubuntu
	if [ "$1" = ubuntu ]; then
		printf 'bookworm/sid\n' >"$R/etc/debian_version"
		cat >"$R/etc/os-release" <<-'EOF'
			PRETTY_NAME="Ubuntu 22.04.5 LTS"
			NAME="Ubuntu"
			VERSION_ID="22.04"
			VERSION="22.04.5 LTS (Jammy Jellyfish)"
			VERSION_CODENAME=jammy
			ID=ubuntu
			ID_LIKE=debian
			HOME_URL="https://www.ubuntu.com/"
			SUPPORT_URL="https://help.ubuntu.com/"
			BUG_REPORT_URL="https://bugs.launchpad.net/ubuntu/"
			PRIVACY_POLICY_URL="https://www.ubuntu.com/legal/terms-and-policies/privacy-policy"
			UBUNTU_CODENAME=jammy
		EOF
		return
	fi
	printf '12.5\n' >"$R/etc/debian_version"
	cat >"$R/etc/os-release" <<-'EOF'
		PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
		NAME="Debian GNU/Linux"
		VERSION_ID="12"
		VERSION="12 (bookworm)"
		VERSION_CODENAME=bookworm
		ID=debian
		HOME_URL="https://www.debian.org/"
		SUPPORT_URL="https://www.debian.org/support"
		BUG_REPORT_URL="https://bugs.debian.org/"
	EOF
}

# /etc/group and /etc/passwd of the hosts whose device nodes belong to groups: base-passwd's
# static entries (video 44) and the system groups the udev postinst adds (input, sgx, kvm,
# render) in the order a fresh install numbers them.
write_groups() {
	cat >"$R/etc/group" <<-EOF
		root:x:0:
		daemon:x:1:
		bin:x:2:
		sys:x:3:
		adm:x:4:
		tty:x:5:
		disk:x:6:
		audio:x:29:
		video:x:$gid_video:
		plugdev:x:46:
		users:x:100:
		nogroup:x:65534:
		systemd-journal:x:999:
		crontab:x:101:
		input:x:102:
		sgx:x:103:
		kvm:x:104:
		render:x:$gid_render:
	EOF
	cat >"$R/etc/passwd" <<-'EOF'
		root:x:0:0:root:/root:/bin/bash
		daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin
		bin:x:2:2:bin:/bin:/usr/sbin/nologin
		sys:x:3:3:sys:/dev:/usr/sbin/nologin
		nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
	EOF
}

# The linker configuration of Debian 12 (and the extra directories a host registers).
write_ld_conf() {
	printf 'include /etc/ld.so.conf.d/*.conf\n\n' >"$R/etc/ld.so.conf"
	printf '# libc default configuration\n/usr/local/lib\n' >"$R/etc/ld.so.conf.d/libc.conf"
	printf '# Multiarch support\n/usr/local/lib/x86_64-linux-gnu\n/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu\n' \
		>"$R/etc/ld.so.conf.d/x86_64-linux-gnu.conf"
	printf '# Multiarch support\n/usr/local/lib/i386-linux-gnu\n/lib/i386-linux-gnu\n/usr/lib/i386-linux-gnu\n/usr/local/lib/i686-linux-gnu\n/lib/i686-linux-gnu\n/usr/lib/i686-linux-gnu\n' \
		>"$R/etc/ld.so.conf.d/i386-linux-gnu.conf"
	[ "$platform" != native ] || printf '/usr/local/cuda-12.2/compat\n' >"$R/etc/ld.so.conf.d/zz-cuda-compat.conf"
	mkdir -p "$R/usr/local/lib/x86_64-linux-gnu" "$R/usr/local/lib/i386-linux-gnu"
}

# /etc/ld.so.cache by the real ldconfig (-X: the links are laid out as the installer makes
# them; ldconfig only writes the cache). Not root: in a user namespace, else a marker.
run_ldconfig() {
	local LDCONFIG=/sbin/ldconfig
	[ -x "$LDCONFIG" ] || LDCONFIG=ldconfig
	if [ "$(id -u)" -eq 0 ]; then
		"$LDCONFIG" -X -r "$R" 2>/dev/null
	elif ! unshare -r "$LDCONFIG" -X -r "$R" 2>/dev/null; then
		: >"$R/.simhost-no-ldcache"
	fi
}
