#!/usr/bin/env bash
# End to end, generator to runtime, with no hook anywhere: cdi-generate writes the spec of a
# simulated DGX host (8 GPUs, MIG on GPUs 2 and 5), cdi-apply injects GPU 0 and MIG device 2:0
# into a runc bundle whose rootfs is a minimal glibc system in Debian layout (merged /usr, no
# ld.so.cache at all), runc runs a test program inside, and the program reports:
#   - dlopen("libcuda.so.1") and dlopen("libnvidia-ml.so.1") succeed (the driver's ELF files
#     reached the linker's default directories by bind mounts alone: no ldconfig, no symlink);
#   - the injected device nodes exist with the host's numbers (/dev/nvidia0, /dev/nvidia2, the
#     GI and CI nvidia-caps nodes of 2:0, the control nodes);
#   - other GPUs' nodes (and the caps of 2:1) do not.
# A control run of the same bundle without cdi-apply must fail the dlopen checks, and a run with
# nvidia.com/gpu=none (what NVIDIA_VISIBLE_DEVICES=none maps to) gets the driver's libraries and
# control nodes but no GPU.
#
# Needs root (mknod for the simulated host, runc run), runc, a C compiler; else exit 77.
set -u
cd "$(dirname "$0")/../.."
: "${B:=build}"

skip() { echo "SKIP: $*"; exit 77; }
die() { echo "FAIL: $*"; exit 1; }

# shellcheck source=lib/runc.sh
. tests/lib/runc.sh
runc_e2e_require
CC=${CC:-cc}

tmp=$(mktemp -d /tmp/cdikit-e2e-gen.XXXXXX)
state=$tmp/runc-state
id=cdikit-e2e-gen-$$
cleanup() {
	runc --root "$state" delete -f "$id" >/dev/null 2>&1
	runc --root "$state" delete -f "$id-control" >/dev/null 2>&1
	runc --root "$state" delete -f "$id-none" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# shellcheck source=lib/rootfs.sh
. tests/lib/rootfs.sh
host=$tmp/host
dgx_spec "$tmp" || die "cannot build the simulated host and its spec"
[ ! -e "$host/.simhost-no-devnodes" ] || skip "the simulated host has no real device nodes"
! grep -q 'hooks:' "$tmp/cdi/nvidia.yaml" || die "the generated spec has hooks"
[ -s "$tmp/cdi/nvidia.yaml.cdikit" ] || die "no facts file beside the spec"

# shellcheck source=lib/gpu-host.sh
. tests/lib/gpu-host.sh
gpu_probe "$tmp/probe"

# A minimal Debian-layout glibc rootfs: merged /usr, the loader and libc, no ld.so.cache.
bundle=$tmp/bundle
rootfs=$bundle/rootfs
make_debian_rootfs "$rootfs" || die "cannot build the rootfs"
cp "$tmp/probe" "$rootfs/usr/bin/probe"

nodes=(/dev/nvidia0 /dev/nvidia1 /dev/nvidia2 /dev/nvidia3 /dev/nvidia7 /dev/nvidiactl
	/dev/nvidia-uvm /dev/nvidia-caps/nvidia-cap336 /dev/nvidia-caps/nvidia-cap337
	/dev/nvidia-caps/nvidia-cap345)
(cd "$bundle" && runc spec) || die "runc spec failed"
jq --argjson nodes "$(printf '%s\n' "${nodes[@]}" | jq -R . | jq -s .)" \
	'.process.terminal = false | .process.args = ["/usr/bin/probe"] + $nodes' \
	"$bundle/config.json" >"$tmp/c.json" && mv "$tmp/c.json" "$bundle/config.json" || die "jq failed"


# Control: the bare rootfs has no driver.
run_bundle "$id-control" "$tmp/control.out" ||
	skip "runc cannot run a container here: $(tail -n 3 "$tmp/control.out")"
grep -qx 'dlopen libcuda.so.1 failed' "$tmp/control.out" &&
	grep -qx 'node /dev/nvidia0 missing' "$tmp/control.out" ||
	{ sed 's/^/    /' "$tmp/control.out"; die "control run: unexpected output"; }

cp "$bundle/config.json" "$tmp/config.orig.json"
"$B/cdi-apply" --spec-dir "$tmp/cdi" --config "$bundle/config.json" \
	nvidia.com/gpu=0 nvidia.com/gpu=2:0 || die "cdi-apply failed"
! jq -e '.hooks // {} | length > 0' "$bundle/config.json" >/dev/null || die "config.json got hooks"
run_bundle "$id" "$tmp/run.out" || { sed 's/^/    /' "$tmp/run.out"; die "runc run failed"; }
sed 's/^/    /' "$tmp/run.out"

# The numbers the host's nodes carry (mknod'ed by make-host from its /proc/devices majors).
numbers() { stat -c '%Hr:%Lr' "$host$1"; }
want=(
	"dlopen libcuda.so.1 ok"
	"dlopen libnvidia-ml.so.1 ok sym"
	"node /dev/nvidia0 c $(numbers /dev/nvidia0)"
	"node /dev/nvidia2 c $(numbers /dev/nvidia2)"
	"node /dev/nvidiactl c $(numbers /dev/nvidiactl)"
	"node /dev/nvidia-uvm c $(numbers /dev/nvidia-uvm)"
	"node /dev/nvidia-caps/nvidia-cap336 c $(numbers /dev/nvidia-caps/nvidia-cap336)"
	"node /dev/nvidia-caps/nvidia-cap337 c $(numbers /dev/nvidia-caps/nvidia-cap337)"
	"node /dev/nvidia1 missing"
	"node /dev/nvidia3 missing"
	"node /dev/nvidia7 missing"
	"node /dev/nvidia-caps/nvidia-cap345 missing"
)
[ "$(numbers /dev/nvidia0)" = 195:0 ] && [ "$(numbers /dev/nvidiactl)" = 195:255 ] ||
	die "the simulated host's nodes do not have the driver's numbers"
for w in "${want[@]}"; do
	grep -qxF "$w" "$tmp/run.out" || die "expected inside the container: $w"
done

# "none": the driver without a GPU.
cp "$tmp/config.orig.json" "$bundle/config.json"
"$B/cdi-apply" --spec-dir "$tmp/cdi" --config "$bundle/config.json" nvidia.com/gpu=none ||
	die "cdi-apply nvidia.com/gpu=none failed"
run_bundle "$id-none" "$tmp/none.out" || { sed 's/^/    /' "$tmp/none.out"; die "runc run (none) failed"; }
for w in "dlopen libcuda.so.1 ok" "dlopen libnvidia-ml.so.1 ok sym" \
	"node /dev/nvidiactl c $(numbers /dev/nvidiactl)" "node /dev/nvidia-uvm c $(numbers /dev/nvidia-uvm)" \
	"node /dev/nvidia0 missing" "node /dev/nvidia2 missing" "node /dev/nvidia-caps/nvidia-cap336 missing"; do
	grep -qxF "$w" "$tmp/none.out" || { sed 's/^/    /' "$tmp/none.out"; die "expected with gpu=none: $w"; }
done
echo "e2e-generate-runc: driver libraries load without ldconfig; GPU 0 and MIG 2:0 nodes present, others absent; gpu=none: driver, no GPU"
