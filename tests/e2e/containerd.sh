#!/usr/bin/env bash
# containerd 1.6 with cdi-runtime as its runc: Debian's containerd started here on a private
# address, root and state (no CRI plugin), then `ctr run --runc-binary build/cdi-runtime`, as
# a runtime BinaryName does it for containerd 1.6/1.7 and k3s. The settings come from a config
# file named by CDIKIT_CONFIG in containerd's environment (the shim passes it on), since
# --runc-binary takes no arguments. On a simulated DGX:
#   - NVIDIA_VISIBLE_DEVICES=0 in the container's env: GPU 0's node with the host's numbers
#     and libcuda.so.1 loads, no other GPU;
#   - NVIDIA_VISIBLE_DEVICES=5 (GPU 5 is in MIG mode): its MIG devices;
#   - an unknown GPU: ctr run fails with our message (containerd's shim read it from the
#     JSON log), and no task is left.
# containerd is stopped by its pid, its dirs removed. Needs root, containerd, ctr, runc, jq,
# a C compiler; else exit 77.
set -u
cd "$(dirname "$0")/../.."
: "${B:=build}"

# shellcheck source=lib/tap.sh
. tests/lib/tap.sh

[ "$(id -u)" -eq 0 ] || skip "needs root (containerd)"
for c in containerd ctr runc jq; do command -v $c >/dev/null 2>&1 || skip "$c not installed"; done
for f in cdi-generate cdi-runtime tests/mock-nvml/libnvidia-ml.so.1; do
	[ -e "$B/$f" ] || die "$B/$f not built"
done

tmp=$(mktemp -d /tmp/cdikit-ctrd.XXXXXX)
# shellcheck source=lib/daemon.sh
. tests/lib/daemon.sh
ns=cdikit-e2e
# Outside its --root and --state, containerd 1.6 keeps shim sockets and the runc shim's state.
leftovers_note /run/containerd/s "/run/containerd/runc/$ns" /run/containerd/runc /run/containerd
ctrd_pid=
sock=$tmp/containerd.sock
cleanup() {
	if [ -n "$ctrd_pid" ]; then
		ctr -a "$sock" -n "$ns" tasks kill -s KILL "$id" >/dev/null 2>&1
		ctr -a "$sock" -n "$ns" containers rm "$id" >/dev/null 2>&1
	fi
	stop_pid "$ctrd_pid"
	umount_under "$tmp"
	rm -rf "$tmp"
	leftovers_clean
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
id=cdikit-ctrd-$$

RT=$(realpath "$B/cdi-runtime")
# shellcheck source=lib/gpu-host.sh
. tests/lib/gpu-host.sh
gpu_setup

cat >"$tmp/runtime.conf" <<EOF
# cdi-runtime's settings for this test (CDIKIT_CONFIG)
spec-dirs = "$cdi"
runtime = runc
host-root = "$host"
EOF
cat >"$tmp/containerd.toml" <<EOF
version = 2
root = "$tmp/root"
state = "$tmp/state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "$sock"
EOF
CDIKIT_CONFIG=$tmp/runtime.conf containerd --config "$tmp/containerd.toml" >"$tmp/containerd.log" 2>&1 &
ctrd_pid=$!
for _ in $(seq 200); do
	ctr -a "$sock" version >/dev/null 2>&1 && break
	kill -0 "$ctrd_pid" 2>/dev/null || { tail -n 5 "$tmp/containerd.log"; skip "containerd does not start here"; }
	sleep 0.1
done
ctr -a "$sock" version >/dev/null 2>&1 || { tail -n 5 "$tmp/containerd.log"; die "containerd did not answer"; }


nodes=(/dev/nvidia0 /dev/nvidia1 /dev/nvidia5 /dev/nvidiactl /dev/nvidia-caps/nvidia-cap687
	/dev/nvidia-caps/nvidia-cap696 /dev/nvidia-caps/nvidia-cap336)
run() { # OUT VISIBLE_DEVICES; sets rc
	ctr -a "$sock" -n "$ns" run --rm --fifo-dir "$tmp/fifo" --runc-binary "$RT" \
		--env "NVIDIA_VISIBLE_DEVICES=$2" \
		--rootfs "$tmp/rootfs" "$id" /usr/bin/probe "${nodes[@]}" >"$1" 2>&1 </dev/null
	rc=$?
}

run "$tmp/zero.out" 0
sed 's/^/    /' "$tmp/zero.out"
check "GPU 0: ctr run exits 0" [ "$rc" -eq 0 ]
check "GPU 0: libcuda.so.1 loads" has "$tmp/zero.out" "dlopen libcuda.so.1 ok"
check "GPU 0: its node with the host's numbers" has "$tmp/zero.out" "$(node_line /dev/nvidia0)"
check "GPU 0: the control node" has "$tmp/zero.out" "$(node_line /dev/nvidiactl)"
check "GPU 0: not GPU 1" has "$tmp/zero.out" "node /dev/nvidia1 missing"

run "$tmp/mig.out" 5
check "GPU 5 (MIG mode): ctr run exits 0" [ "$rc" -eq 0 ]
for want in /dev/nvidia5 /dev/nvidia-caps/nvidia-cap687 /dev/nvidia-caps/nvidia-cap696; do
	check "GPU 5 (MIG mode): $want" has "$tmp/mig.out" "$(node_line $want)"
done
check "GPU 5 (MIG mode): not GPU 2's MIG caps" has "$tmp/mig.out" "node /dev/nvidia-caps/nvidia-cap336 missing"

run "$tmp/bad.out" 9
sed 's/^/    /' "$tmp/bad.out"
check "unknown GPU: ctr run fails" [ "$rc" -ne 0 ]
check "unknown GPU: the message names it" \
	grep -qF "unresolvable CDI devices nvidia.com/gpu=9 (searched $cdi)" "$tmp/bad.out"
check "unknown GPU: no task left" [ -z "$(ctr -a "$sock" -n "$ns" tasks ls -q)" ]
ctr -a "$sock" -n "$ns" containers rm "$id" >/dev/null 2>&1

# The example configuration is one this containerd reads as meant.
containerd --config examples/containerd-config.toml config dump >"$tmp/example.toml" 2>&1
check "examples/containerd-config.toml: containerd reads the cdikit runtime from it" \
	grep -q 'BinaryName = "/usr/local/bin/cdi-runtime"' "$tmp/example.toml"

tap_end
