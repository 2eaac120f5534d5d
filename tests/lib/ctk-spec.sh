# shellcheck shell=bash
# Sourced by the suites and benchmarks of nvidia-cdi-hook: a CDI spec as nvidia-ctk writes one,
# written by hand from its generator's tests (cmd/nvidia-ctk/cdi/generate/generate_test.go,
# the "default" case) plus v1.20's update-application-profile hook, for a simulated host.

# _ctk_hook PATH NAME ARGS...: one hook entry as nvidia-ctk writes it (CTK_HOOK_ENV, when set,
# one more variable: a sanitizer build's options).
_ctk_hook() {
	local a
	printf '        - hookName: createContainer\n          path: %s\n          args:\n            - nvidia-cdi-hook\n' "$1"
	shift
	for a in "$@"; do printf '            - %s\n' "$a"; done
	printf '          env:\n            - NVIDIA_CTK_DEBUG=false\n'
	[ -z "${CTK_HOOK_ENV:-}" ] || printf '            - %s\n' "$CTK_HOOK_ENV"
}

# _ctk_mount HOST_FILE CONTAINER_PATH: one library mount as nvidia-ctk writes it.
_ctk_mount() {
	printf '        - hostPath: %s\n          containerPath: %s\n          options:\n' "$1" "$2"
	printf '            - %s\n' ro nosuid nodev rbind rprivate
}

# ctk_spec HOST HOOK [PARAMS_HOOK]: the spec on stdout, kind nvidia.com/gpu, devices "0" and
# "all" (/dev/nvidia0), the driver's libcuda, NVML and VDPAU libraries of HOST (a make-host
# root, driver 550.54.15) mounted in /lib/x86_64-linux-gnu, and nvidia-ctk's five
# createContainer hooks with HOOK as their path (PARAMS_HOOK, when given, for
# disable-device-node-modification).
ctk_spec() {
	local host=$1 hook=$2 params=${3:-$2} ver=550.54.15
	local lib=$host/usr/lib/x86_64-linux-gnu
	cat <<EOF
---
cdiVersion: 0.5.0
kind: nvidia.com/gpu
devices:
    - name: "0"
      containerEdits:
        deviceNodes:
            - path: /dev/nvidia0
              hostPath: $host/dev/nvidia0
    - name: all
      containerEdits:
        deviceNodes:
            - path: /dev/nvidia0
              hostPath: $host/dev/nvidia0
containerEdits:
    env:
        - NVIDIA_CTK_LIBCUDA_DIR=/lib/x86_64-linux-gnu
        - NVIDIA_VISIBLE_DEVICES=void
    deviceNodes:
        - path: /dev/nvidiactl
          hostPath: $host/dev/nvidiactl
    hooks:
EOF
	_ctk_hook "$hook" create-symlinks --link libcuda.so.1::/lib/x86_64-linux-gnu/libcuda.so
	_ctk_hook "$hook" enable-cuda-compat --host-driver-version=$ver
	_ctk_hook "$hook" update-ldcache --folder /lib/x86_64-linux-gnu --folder /lib/x86_64-linux-gnu/vdpau
	_ctk_hook "$params" disable-device-node-modification
	_ctk_hook "$hook" update-application-profile
	echo "    mounts:"
	_ctk_mount "$lib/libcuda.so.$ver" "/lib/x86_64-linux-gnu/libcuda.so.$ver"
	_ctk_mount "$lib/libnvidia-ml.so.$ver" "/lib/x86_64-linux-gnu/libnvidia-ml.so.$ver"
	_ctk_mount "$lib/vdpau/libvdpau_nvidia.so.$ver" "/lib/x86_64-linux-gnu/vdpau/libvdpau_nvidia.so.$ver"
}
