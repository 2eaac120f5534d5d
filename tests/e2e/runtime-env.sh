#!/usr/bin/env bash
# End to end, the NVIDIA_* container environment through cdi-runtime over runc, on a simulated
# DGX host (8 GPUs, MIG on GPUs 2 and 5, an MPS daemon running) with the spec and facts file
# cdi-generate writes (environment.md):
#   - NVIDIA_DRIVER_CAPABILITIES=utility: nvidia-smi and libnvidia-ml, no libcuda;
#     compute,video: libcuda and libnvcuvid, no GLX, no nvidia-smi;
#   - a CDI annotation for the same GPU with utility asked gets every file;
#   - NVIDIA_REQUIRE_CUDA unmet: create fails with one line, config.json byte for byte, no
#     container; NVIDIA_DISABLE_REQUIRE lets it start;
#   - a legacy image (CUDA_VERSION only): every GPU; a CUDA_VERSION the driver cannot run fails;
#   - NVIDIA_MIG_CONFIG_DEVICES: refused without CAP_SYS_ADMIN, the cap nodes with it;
#   - MPS: the pipe directory mounted and CUDA_MPS_PIPE_DIRECTORY set for compute;
#   - accept-nvidia-visible-devices-envvar-when-unprivileged = false: an unprivileged
#     container's own variable selects nothing, a privileged one's still does.
# Settings come from a temp runtime.conf (CDIKIT_CONFIG), never the machine's.
# Needs root, runc, jq, a C compiler; else exit 77.
# The spec is the per-file layout (--library-layout files): every file's own mount is what the
# checks name. The default layout's capability choice is tests/e2e/image-matrix.sh's.
set -u
cd "$(dirname "$0")/../.."
: "${B:=build}"

# shellcheck source=lib/tap.sh
. tests/lib/tap.sh

# shellcheck source=../lib/runtime-bundle.sh
. tests/lib/runtime-bundle.sh
runtime_e2e_setup env

# shellcheck source=lib/gpu-host.sh
. tests/lib/gpu-host.sh
host=$tmp/host
cdi=$tmp/cdi
tests/simhost/make-host --topology dgx-mig --mps --mock-dir "$B/tests/mock-nvml" --out "$host" >/dev/null ||
	die "make-host failed"
[ -e "$host/.simhost-no-devnodes" ] && skip "the simulated host has no real device nodes"
mkdir -p "$cdi"
"$GEN" --root "$host" --library-layout files --output "$cdi/nvidia.yaml" >/dev/null || die "cdi-generate failed"
[ -e "$cdi/nvidia.yaml.cdikit" ] || die "cdi-generate wrote no facts file beside the spec"
gpu_probe "$tmp/probe"
glibc_rootfs "$tmp/rootfs" "$tmp/probe"

settings() { # the runtime.conf lines the next runs read
	printf 'spec-dirs = %s\nhost-root = %s\n' "$cdi" "$host" >"$conf"
	printf '%s\n' "$@" >>"$conf"
}
settings
lib=/usr/lib/x86_64-linux-gnu
config_minor=$(awk '/^DeviceFileMinor:/ {print $2}' "$host/proc/driver/nvidia/capabilities/mig/config")
config_node=/dev/nvidia-caps/nvidia-cap$config_minor
files=("$lib/libcuda.so.1" "$lib/libnvcuvid.so.1" "$lib/libGLX_nvidia.so.0" "$lib/libnvidia-ml.so.1"
	/usr/bin/nvidia-smi /dev/nvidia0 /dev/nvidia7 "$config_node" /tmp/nvidia-mps/control)
args=$(printf '%s\n' "${files[@]}" | jq -R . | jq -cs .)
present() { ! has "$1" "node $2 missing" && grep -q "^node $2 " "$1"; }
absent() { has "$1" "node $2 missing"; }
# Files are judged by the edited config: the rootfs is shared, and runc leaves the empty
# targets of earlier bind mounts in it.
mounted() { jq -e --arg p "$2" 'any(.mounts[]; .destination == $p)' "$tmp/b-$1/config.json" >/dev/null; }
not_mounted() { ! mounted "$@"; }

# ---- NVIDIA_DRIVER_CAPABILITIES ----
run util "$(env_of NVIDIA_VISIBLE_DEVICES=0 NVIDIA_DRIVER_CAPABILITIES=utility)"
check "utility: run exit 0" [ "$rc" -eq 0 ]
check "utility: libnvidia-ml.so.1 loads" has "$tmp/util.out" "dlopen libnvidia-ml.so.1 ok sym"
check "utility: nvidia-smi" mounted util /usr/bin/nvidia-smi
check "utility: no libcuda.so.1" not_mounted util "$lib/libcuda.so.1"
check "utility: libcuda.so.1 does not load" has "$tmp/util.out" "dlopen libcuda.so.1 failed"
check "utility: GPU 0" has "$tmp/util.out" "$(node_line /dev/nvidia0)"

run cv "$(env_of NVIDIA_VISIBLE_DEVICES=0 NVIDIA_DRIVER_CAPABILITIES=compute,video)"
check "compute,video: run exit 0" [ "$rc" -eq 0 ]
check "compute,video: libcuda.so.1 loads" has "$tmp/cv.out" "dlopen libcuda.so.1 ok"
check "compute,video: libnvcuvid.so.1" mounted cv "$lib/libnvcuvid.so.1"
check "compute,video: no GLX" not_mounted cv "$lib/libGLX_nvidia.so.0"
check "compute,video: no nvidia-smi" not_mounted cv /usr/bin/nvidia-smi

# A device named as a CDI name gets every file, whatever the variables say.
run ann "$(env_of NVIDIA_DRIVER_CAPABILITIES=utility) | .annotations[\"cdi.k8s.io/test\"] = \"nvidia.com/gpu=0\""
check "annotation: run exit 0" [ "$rc" -eq 0 ]
for f in "$lib/libcuda.so.1" "$lib/libnvcuvid.so.1" "$lib/libGLX_nvidia.so.0" /usr/bin/nvidia-smi; do
	check "annotation: $f" mounted ann "$f"
done

# ---- NVIDIA_REQUIRE_* ----
run req "$(env_of NVIDIA_VISIBLE_DEVICES=0 NVIDIA_REQUIRE_CUDA='cuda>=13.0 brand=tesla')"
want="cdi-runtime: NVIDIA_REQUIRE_CUDA: unsatisfied condition: cuda>=13.0 (driver supports CUDA 12.4), please update your driver to a newer version, or use an earlier cuda container"
check "unmet NVIDIA_REQUIRE_CUDA: create fails" [ "$rc" -eq 1 ]
check "unmet NVIDIA_REQUIRE_CUDA: one line naming it" [ "$(cat "$tmp/req.err")" = "$want" ]
check "unmet NVIDIA_REQUIRE_CUDA: config.json byte for byte" cmp -s "$tmp/b-req/config.json" "$tmp/req.orig"
no_container() { ! runc --root "$state" state "$1" >/dev/null 2>&1; }
check "unmet NVIDIA_REQUIRE_CUDA: no container" no_container "$id-req"
check "unmet NVIDIA_REQUIRE_CUDA: the probe never ran" [ ! -s "$tmp/req.out" ]

run reqok "$(env_of NVIDIA_VISIBLE_DEVICES=2:0 NVIDIA_REQUIRE_CUDA='cuda>=12.0' NVIDIA_REQUIRE_ARCH='arch>=8.0,driver>=550')"
check "met requirements on a MIG device: run exit 0" [ "$rc" -eq 0 ]
run reqoff "$(env_of NVIDIA_VISIBLE_DEVICES=0 NVIDIA_REQUIRE_CUDA='cuda>=13.0' NVIDIA_DISABLE_REQUIRE=true)"
check "NVIDIA_DISABLE_REQUIRE=true: run exit 0" [ "$rc" -eq 0 ]

# ---- a legacy image: CUDA_VERSION and nothing else ----
run legacy "$(env_of CUDA_VERSION=12.2.0)"
check "legacy image: run exit 0" [ "$rc" -eq 0 ]
check "legacy image: every GPU (0)" has "$tmp/legacy.out" "$(node_line /dev/nvidia0)"
check "legacy image: every GPU (7)" has "$tmp/legacy.out" "$(node_line /dev/nvidia7)"
check "legacy image: every capability (GLX)" mounted legacy "$lib/libGLX_nvidia.so.0"
run legacy13 "$(env_of CUDA_VERSION=13.0.1)"
check "legacy image of CUDA 13: create fails naming CUDA_VERSION" \
	grep -qxF "cdi-runtime: CUDA_VERSION: unsatisfied condition: cuda>=13.0 (driver supports CUDA 12.4), please update your driver to a newer version, or use an earlier cuda container" "$tmp/legacy13.err"

# ---- NVIDIA_MIG_CONFIG_DEVICES ----
run migcfg "$(env_of NVIDIA_VISIBLE_DEVICES=2 NVIDIA_MIG_CONFIG_DEVICES=all)"
check "MIG config unprivileged: create fails" [ "$rc" -eq 1 ]
check "MIG config unprivileged: refused, one line" [ "$(cat "$tmp/migcfg.err")" = \
	"cdi-runtime: NVIDIA_MIG_CONFIG_DEVICES: refused: MIG config access needs a privileged container (CAP_SYS_ADMIN in its bounding capabilities)" ]
check "MIG config unprivileged: config.json byte for byte" cmp -s "$tmp/b-migcfg/config.json" "$tmp/migcfg.orig"
sysadmin='.process.capabilities |= with_entries(.value += ["CAP_SYS_ADMIN"])'
run migpriv "$(env_of NVIDIA_VISIBLE_DEVICES=2 NVIDIA_MIG_CONFIG_DEVICES=all) | $sysadmin"
check "MIG config privileged: run exit 0" [ "$rc" -eq 0 ]
check "MIG config privileged: the mig/config cap node with the host's numbers" \
	has "$tmp/migpriv.out" "$(node_line "$config_node")"
check "MIG config unprivileged: no such node elsewhere" absent "$tmp/cv.out" "$config_node"

# ---- MPS ----
check "MPS: the pipe directory with compute" present "$tmp/cv.out" /tmp/nvidia-mps/control
check "MPS: CUDA_MPS_PIPE_DIRECTORY set" \
	jq -e '.process.env | index("CUDA_MPS_PIPE_DIRECTORY=/tmp/nvidia-mps")' "$tmp/b-cv/config.json" >/dev/null
check "MPS: not with utility alone" not_mounted util /tmp/nvidia-mps

# ---- trust: the container's own NVIDIA_VISIBLE_DEVICES ----
settings "accept-nvidia-visible-devices-envvar-when-unprivileged = false"
run untrusted "$(env_of NVIDIA_VISIBLE_DEVICES=0)"
check "untrusted, unprivileged: run exit 0" [ "$rc" -eq 0 ]
check "untrusted, unprivileged: no GPU" absent "$tmp/untrusted.out" /dev/nvidia0
check "untrusted, unprivileged: config.json not rewritten" cmp -s "$tmp/b-untrusted/config.json" "$tmp/untrusted.orig"
run privileged "$(env_of NVIDIA_VISIBLE_DEVICES=0) | $sysadmin"
check "untrusted, privileged: GPU 0" has "$tmp/privileged.out" "$(node_line /dev/nvidia0)"
run untrusted-ann "$(env_of NVIDIA_VISIBLE_DEVICES=1) | .annotations[\"cdi.k8s.io/test\"] = \"nvidia.com/gpu=0\""
check "untrusted, annotation: its GPU" has "$tmp/untrusted-ann.out" "$(node_line /dev/nvidia0)"

tap_end
