#!/usr/bin/env bash
# Docker with cdi-runtime, as users run GPU containers today: Debian's dockerd 20.10 started
# here on a private socket, data root and exec root, with
#   daemon.json  runtimes.cdikit = {path: build/cdi-runtime, runtimeArgs: [--cdi-spec-dir, DIR]}
#   PATH         build/ first, so dockerd finds nvidia-container-runtime-hook and offers --gpus
# and an image imported from a local rootfs tarball (no registry). On a simulated DGX:
#   - docker run --runtime cdikit --gpus '"device=1"': GPU 1's node with the host's numbers,
#     libcuda.so.1 loads, no other GPU;
#   - --gpus all: every GPU and MIG node;
#   - -e NVIDIA_VISIBLE_DEVICES=<MIG UUID>, no --gpus: that MIG device;
#   - a create that fails (an unknown GPU): docker run exits 125 and shows our message (it
#     went through runc's JSON log);
#   - --gpus all under plain runc: fails with the hook's one line;
#   - docker info lists the cdikit runtime.
# dockerd is stopped by its pid; its dirs are removed, and what it leaves outside them
# (/etc/docker/key.json, /run/docker/plugins, /run/containerd/s) only if this test made them.
# Needs root, docker.io, jq, a C compiler; else exit 77.
set -u
cd "$(dirname "$0")/../.."
: "${B:=build}"

# shellcheck source=lib/tap.sh
. tests/lib/tap.sh

[ "$(id -u)" -eq 0 ] || skip "needs root (dockerd)"
command -v dockerd >/dev/null 2>&1 || skip "dockerd not installed (docker.io)"
DOCKER=/usr/bin/docker # Debian's CLI, the one that goes with this dockerd
[ -x "$DOCKER" ] || skip "no $DOCKER (docker.io)"
for c in runc jq; do command -v $c >/dev/null 2>&1 || skip "$c not installed"; done
for f in cdi-generate cdi-runtime nvidia-container-runtime-hook tests/mock-nvml/libnvidia-ml.so.1; do
	[ -e "$B/$f" ] || die "$B/$f not built"
done

tmp=$(mktemp -d /tmp/cdikit-docker.XXXXXX)
# shellcheck source=lib/daemon.sh
. tests/lib/daemon.sh
leftovers_note /etc/docker/key.json /run/docker/plugins /run/docker /run/containerd/s /run/containerd
dockerd_pid=
cleanup() {
	stop_pid "$dockerd_pid"
	umount_under "$tmp"
	rm -rf "$tmp"
	leftovers_clean
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

BDIR=$(realpath "$B")
# shellcheck source=lib/gpu-host.sh
. tests/lib/gpu-host.sh
gpu_setup

sock=$tmp/docker.sock
# cdi-runtime's settings (CDIKIT_CONFIG, passed on through containerd and its shim): never the
# machine's /etc/cdikit/runtime.conf; host files under the simulated host.
printf 'host-root = "%s"\n' "$host" >"$tmp/runtime.conf"
cat >"$tmp/daemon.json" <<EOF
{
  "runtimes": {
    "cdikit": { "path": "$BDIR/cdi-runtime", "runtimeArgs": ["--cdi-spec-dir", "$cdi"] }
  }
}
EOF
CDIKIT_CONFIG=$tmp/runtime.conf PATH=$BDIR:$PATH dockerd --config-file "$tmp/daemon.json" --data-root "$tmp/data" \
	--exec-root "$tmp/exec" -H "unix://$sock" --pidfile "$tmp/docker.pid" \
	--iptables=false --bridge=none >"$tmp/dockerd.log" 2>&1 &
dockerd_pid=$!
dk() { "$DOCKER" -H "unix://$sock" "$@"; }
for _ in $(seq 200); do
	dk version >/dev/null 2>&1 && break
	kill -0 "$dockerd_pid" 2>/dev/null || { tail -n 5 "$tmp/dockerd.log"; skip "dockerd does not start here"; }
	sleep 0.1
done
dk version >/dev/null 2>&1 || { tail -n 5 "$tmp/dockerd.log"; die "dockerd did not answer"; }


tar -C "$tmp/rootfs" -c . | dk import - cdikit-probe:e2e >/dev/null || die "docker import failed"
nodes=(/dev/nvidia0 /dev/nvidia1 /dev/nvidia2 /dev/nvidia7 /dev/nvidiactl
	/dev/nvidia-caps/nvidia-cap336 /dev/nvidia-caps/nvidia-cap345 /dev/nvidia-caps/nvidia-cap687)
run() { # OUT, then docker run options; sets rc
	local out=$1
	shift
	dk run --rm --net none "$@" cdikit-probe:e2e /usr/bin/probe "${nodes[@]}" >"$out" 2>&1 </dev/null
	rc=$?
}

check "docker info lists the cdikit runtime" \
	bash -c "'$DOCKER' -H 'unix://$sock' info --format '{{json .Runtimes}}' | jq -e 'has(\"cdikit\")' >/dev/null"

run "$tmp/one.out" --runtime cdikit --gpus '"device=1"'
sed 's/^/    /' "$tmp/one.out"
check "--gpus device=1: runs" [ "$rc" -eq 0 ]
check "--gpus device=1: libcuda.so.1 loads" has "$tmp/one.out" "dlopen libcuda.so.1 ok"
check "--gpus device=1: GPU 1 with the host's numbers" has "$tmp/one.out" "$(node_line /dev/nvidia1)"
check "--gpus device=1: the control node" has "$tmp/one.out" "$(node_line /dev/nvidiactl)"
check "--gpus device=1: not GPU 0" has "$tmp/one.out" "node /dev/nvidia0 missing"

run "$tmp/all.out" --runtime cdikit --gpus all
check "--gpus all: runs" [ "$rc" -eq 0 ]
for want in "${nodes[@]}"; do
	check "--gpus all: $want" has "$tmp/all.out" "$(node_line "$want")"
done

run "$tmp/mig.out" --runtime cdikit -e NVIDIA_VISIBLE_DEVICES=MIG-a598a4d2-eec4-136c-1e97-17f7b3e53493
check "NVIDIA_VISIBLE_DEVICES=<MIG 2:1>: runs" [ "$rc" -eq 0 ]
check "NVIDIA_VISIBLE_DEVICES=<MIG 2:1>: its parent GPU" has "$tmp/mig.out" "$(node_line /dev/nvidia2)"
check "NVIDIA_VISIBLE_DEVICES=<MIG 2:1>: its GI cap" has "$tmp/mig.out" "$(node_line /dev/nvidia-caps/nvidia-cap345)"
check "NVIDIA_VISIBLE_DEVICES=<MIG 2:1>: not 2:0's" has "$tmp/mig.out" "node /dev/nvidia-caps/nvidia-cap336 missing"

run "$tmp/bad.out" --runtime cdikit -e NVIDIA_VISIBLE_DEVICES=9
sed 's/^/    /' "$tmp/bad.out"
check "unknown GPU: docker run exits 125" [ "$rc" -eq 125 ]
check "unknown GPU: docker run shows the message naming it" \
	grep -qF "unresolvable CDI devices nvidia.com/gpu=9 (searched $cdi)" "$tmp/bad.out"
check "unknown GPU: no container left" [ -z "$(dk ps -aq)" ]

run "$tmp/hook.out" --gpus all
sed 's/^/    /' "$tmp/hook.out"
check "--gpus all under plain runc: fails" [ "$rc" -ne 0 ]
check "--gpus all under plain runc: the hook's message" \
	grep -qF "docker run --gpus needs --runtime=cdikit (or cdi-runtime as Docker's default runtime)" "$tmp/hook.out"

dk rmi cdikit-probe:e2e >/dev/null 2>&1
tap_end
