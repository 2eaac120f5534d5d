#!/usr/bin/env bash
# End to end, NVIDIA's other ways to ask for devices through cdi-runtime over real runc, on a
# simulated HGX H100 host (8 GPUs, NVSwitches, IMEX channels 0, 1 and 2047, GDS, gdrcopy,
# InfiniBand) with the specs cdi-generate writes (its GPU spec and --mode imex, gds, mofed,
# gdrcopy, nvswitch), as environment.md lists them:
#   - device lists as volume mounts (the k8s device plugin's volume-mounts strategy) with
#     accept-nvidia-visible-devices-as-volume-mounts and both trust settings: the plugin's
#     mounts give their GPUs and IMEX channel, the pod's own NVIDIA_VISIBLE_DEVICES nothing
#     when untrusted; without the setting the mounts are no request;
#   - NVIDIA_IMEX_CHANNELS: the channels asked for, "all" ignored;
#   - NVIDIA_GDS, NVIDIA_MOFED, NVIDIA_GDRCOPY, NVIDIA_NVSWITCH = enabled: each mode's nodes;
#   - swarm-resource = DOCKER_RESOURCE_GPU with the GPU UUIDs Swarm writes;
#   - the refusals (a channel or mode the specs lack, a bad channel id, the plugin's variable
#     when mounts are not read): one line, config.json byte for byte, no container;
#   - configs read as runc reads them: data after the object, bytes that are not UTF-8 and a
#     lone surrogate, with and without a device; JSON runc refuses gets runc's own answer.
# Settings come from a temp runtime.conf (CDIKIT_CONFIG), never the machine's.
# Needs root, runc, jq, a C compiler; else exit 77.
set -u
cd "$(dirname "$0")/../.."
: "${B:=build}"

# shellcheck source=../lib/tap.sh
. tests/lib/tap.sh

# shellcheck source=../lib/runtime-bundle.sh
. tests/lib/runtime-bundle.sh
runtime_e2e_setup requests

# shellcheck source=../lib/gpu-host.sh
. tests/lib/gpu-host.sh
host=$tmp/host
cdi=$tmp/cdi
tests/simhost/make-host --topology dgx-nvswitch --mock-dir "$B/tests/mock-nvml" --out "$host" >/dev/null ||
	die "make-host failed"
[ -e "$host/.simhost-no-devnodes" ] && skip "the simulated host has no real device nodes"
mkdir -p "$cdi" "$tmp/gpu-only"
"$GEN" -q --root "$host" --output "$cdi/nvidia.yaml" || die "cdi-generate failed"
cp "$cdi/nvidia.yaml" "$cdi/nvidia.yaml.cdikit" "$tmp/gpu-only/"
for m in imex gds mofed gdrcopy nvswitch; do
	"$GEN" -q --root "$host" --mode $m --output "$cdi/nvidia-$m.yaml" || die "cdi-generate --mode $m failed"
done
gpu_probe "$tmp/probe"
glibc_rootfs "$tmp/rootfs" "$tmp/probe"
uuid() { jq -r --argjson i "$1" '.gpus[] | select(.index == $i) | .uuid' "$cdi/nvidia.yaml.cdikit"; }
U1=$(uuid 1) U3=$(uuid 3)
[ -n "$U1" ] && [ -n "$U3" ] || die "no GPU UUIDs in the facts file"

settings() { # the runtime.conf lines the next runs read (spec-dirs first, may be replaced)
	printf 'spec-dirs = %s\nhost-root = %s\n' "$cdi" "$host" >"$conf"
	printf '%s\n' "$@" >>"$conf"
}
settings
ROOT=/var/run/nvidia-container-devices
IMEX=/dev/nvidia-caps-imex-channels
files=(/dev/nvidia0 /dev/nvidia1 /dev/nvidia3 "$IMEX/channel0" "$IMEX/channel1" "$IMEX/channel2047"
	/dev/nvidia-fs0 /dev/infiniband/uverbs0 /dev/gdrdrv /dev/nvidia-nvswitch0 "$ROOT/$U1"
	env:ODD)
args=$(printf '%s\n' "${files[@]}" | jq -R . | jq -cs .)
present() { has "$1" "$(node_line "$2")"; }
absent() { has "$1" "node $2 missing"; }
unchanged() { cmp -s "$tmp/b-$1/config.json" "$tmp/$1.orig"; }
no_container() { ! runc --root "$state" state "$id-$1" >/dev/null 2>&1; }

# mounts_of ID...: the device plugin's mounts, as the kubelet writes them into the config.
mounts_of() {
	printf '.mounts += %s' "$(printf '%s\n' "$@" | jq -R --arg root "$ROOT" \
		'{destination: ($root + "/" + .), type: "bind", source: "/dev/null", options: ["rbind", "rprivate", "ro"]}' | jq -cs .)"
}
sysadmin='.process.capabilities |= with_entries(.value += ["CAP_SYS_ADMIN"])'
# refused NAME LINE: create failed with exactly LINE, the config as it was, no container.
refused() {
	check "$1: create fails" [ "$rc" -eq 1 ]
	check "$1: one line: $2" [ "$(cat "$tmp/$1.err")" = "cdi-runtime: $2" ]
	check "$1: config.json byte for byte" unchanged "$1"
	check "$1: no container" no_container "$1"
	check "$1: the probe never ran" [ ! -s "$tmp/$1.out" ]
}

# ---- device lists as volume mounts: the k8s device plugin's secure setup ----
settings "accept-nvidia-visible-devices-as-volume-mounts = true" \
	"accept-nvidia-visible-devices-envvar-when-unprivileged = false"
plugin="$(env_of "NVIDIA_VISIBLE_DEVICES=$ROOT") | $(mounts_of "$U1" imex/1)"
run mounts "$plugin"
check "mounts, secure: run exit 0" [ "$rc" -eq 0 ]
check "mounts, secure: the plugin's GPU" present "$tmp/mounts.out" /dev/nvidia1
check "mounts, secure: no other GPU" absent "$tmp/mounts.out" /dev/nvidia0
check "mounts, secure: the plugin's IMEX channel" present "$tmp/mounts.out" "$IMEX/channel1"
check "mounts, secure: no other channel" absent "$tmp/mounts.out" "$IMEX/channel0"
check "mounts, secure: the /dev/null mount left in place, as NVIDIA leaves it" \
	has "$tmp/mounts.out" "node $ROOT/$U1 c $(stat -c '%Hr:%Lr' /dev/null)"
run pod-env "$(env_of NVIDIA_VISIBLE_DEVICES=all NVIDIA_IMEX_CHANNELS=0)"
check "mounts, secure: a pod's own NVIDIA_VISIBLE_DEVICES: run exit 0" [ "$rc" -eq 0 ]
check "mounts, secure: a pod's own NVIDIA_VISIBLE_DEVICES: no GPU" absent "$tmp/pod-env.out" /dev/nvidia0
check "mounts, secure: a pod's own NVIDIA_VISIBLE_DEVICES: config.json not rewritten" unchanged pod-env
run pod-imex "$plugin | $(env_of NVIDIA_IMEX_CHANNELS=0)"
check "mounts, secure: a pod's own NVIDIA_IMEX_CHANNELS beside the plugin's GPU: channel 0 ignored" \
	absent "$tmp/pod-imex.out" "$IMEX/channel0"
run priv-env "$(env_of NVIDIA_VISIBLE_DEVICES=0) | $sysadmin"
check "mounts, secure: a privileged container's variable still counts" present "$tmp/priv-env.out" /dev/nvidia0

settings "accept-nvidia-visible-devices-as-volume-mounts = true" \
	"accept-nvidia-visible-devices-envvar-when-unprivileged = true"
run mounts-trusted "$(env_of NVIDIA_VISIBLE_DEVICES=all) | $(mounts_of "$U1")"
check "mounts, variables trusted: the mounts win over NVIDIA_VISIBLE_DEVICES=all" \
	present "$tmp/mounts-trusted.out" /dev/nvidia1
check "mounts, variables trusted: no other GPU" absent "$tmp/mounts-trusted.out" /dev/nvidia0
run cdi-mount "$(mounts_of cdi/nvidia.com/gpu/3 cdi/nvidia.com/imex-channel=2047)"
check "mounts: cdi/<vendor>/<class>/<device> gives that device" present "$tmp/cdi-mount.out" /dev/nvidia3
check "mounts: cdi/<vendor>/<class>=<device> too" present "$tmp/cdi-mount.out" "$IMEX/channel2047"

settings # NVIDIA's defaults: mounts are no request, the variables are trusted
run mounts-off "$plugin"
refused mounts-off "NVIDIA_VISIBLE_DEVICES=$ROOT: the devices are listed as volume mounts, which are read only with accept-nvidia-visible-devices-as-volume-mounts = true (cdi-runtime's runtime.conf)"
settings "accept-nvidia-visible-devices-envvar-when-unprivileged = false"
run mounts-off-untrusted "$plugin"
check "mounts not accepted, variables untrusted: run exit 0, no GPU" absent "$tmp/mounts-off-untrusted.out" /dev/nvidia1
check "mounts not accepted, variables untrusted: config.json not rewritten" unchanged mounts-off-untrusted

# ---- IMEX channels ----
settings
run imex "$(env_of NVIDIA_VISIBLE_DEVICES=0 NVIDIA_IMEX_CHANNELS=0,2047)"
check "NVIDIA_IMEX_CHANNELS=0,2047: run exit 0" [ "$rc" -eq 0 ]
check "NVIDIA_IMEX_CHANNELS=0,2047: channel 0" present "$tmp/imex.out" "$IMEX/channel0"
check "NVIDIA_IMEX_CHANNELS=0,2047: channel 2047" present "$tmp/imex.out" "$IMEX/channel2047"
check "NVIDIA_IMEX_CHANNELS=0,2047: not channel 1" absent "$tmp/imex.out" "$IMEX/channel1"
check "NVIDIA_IMEX_CHANNELS=0,2047: the GPU" present "$tmp/imex.out" /dev/nvidia0
run imex-all "$(env_of NVIDIA_VISIBLE_DEVICES=0 NVIDIA_IMEX_CHANNELS=all)"
check "NVIDIA_IMEX_CHANNELS=all is ignored: run exit 0" [ "$rc" -eq 0 ]
check "NVIDIA_IMEX_CHANNELS=all is ignored: no channel" absent "$tmp/imex-all.out" "$IMEX/channel0"
run imex-nogpu "$(env_of NVIDIA_IMEX_CHANNELS=0)"
check "NVIDIA_IMEX_CHANNELS without a GPU: no channel, config.json not rewritten" unchanged imex-nogpu
run imex-missing "$(env_of NVIDIA_VISIBLE_DEVICES=0 NVIDIA_IMEX_CHANNELS=0,5)"
refused imex-missing "NVIDIA_IMEX_CHANNELS=0,5: IMEX channel 5 is not in the CDI specs (no nvidia.com/imex-channel=5 in $cdi): cdi-generate --mode imex writes them"
run imex-bad "$(env_of NVIDIA_VISIBLE_DEVICES=0 NVIDIA_IMEX_CHANNELS=1048576)"
refused imex-bad "NVIDIA_IMEX_CHANNELS=1048576: \"1048576\" is not an IMEX channel (a number from 0 to 1048575)"
settings "accept-nvidia-visible-devices-envvar-when-unprivileged = false"
run imex-untrusted "$(env_of NVIDIA_VISIBLE_DEVICES=0 NVIDIA_IMEX_CHANNELS=0) | $sysadmin"
check "NVIDIA_IMEX_CHANNELS, untrusted setting, privileged: channel 0" present "$tmp/imex-untrusted.out" "$IMEX/channel0"

# ---- gated modes ----
settings
gated=(NVIDIA_GDS:/dev/nvidia-fs0 NVIDIA_MOFED:/dev/infiniband/uverbs0 NVIDIA_GDRCOPY:/dev/gdrdrv
	NVIDIA_NVSWITCH:/dev/nvidia-nvswitch0)
for g in "${gated[@]}"; do
	var=${g%%:*} node=${g#*:}
	run "$var" "$(env_of NVIDIA_VISIBLE_DEVICES=0 "$var=enabled")"
	check "$var=enabled: run exit 0" [ "$rc" -eq 0 ]
	check "$var=enabled: $node" present "$tmp/$var.out" "$node"
	for other in "${gated[@]}"; do
		[ "$other" = "$g" ] || check "$var=enabled: not ${other#*:}" absent "$tmp/$var.out" "${other#*:}"
	done
done
run gated-true "$(env_of NVIDIA_VISIBLE_DEVICES=0 NVIDIA_GDS=true NVIDIA_MOFED=Enabled)"
check "NVIDIA_GDS=true, NVIDIA_MOFED=Enabled ask for nothing" absent "$tmp/gated-true.out" /dev/nvidia-fs0
check "NVIDIA_GDS=true, NVIDIA_MOFED=Enabled ask for nothing (mofed)" absent "$tmp/gated-true.out" /dev/infiniband/uverbs0
settings "spec-dirs = $tmp/gpu-only"
run gds-missing "$(env_of NVIDIA_VISIBLE_DEVICES=0 NVIDIA_GDS=enabled)"
refused gds-missing "NVIDIA_GDS=enabled: no spec of the gds mode (no nvidia.com/gds=all in $tmp/gpu-only): cdi-generate --mode gds writes it"
run imex-nospec "$(env_of NVIDIA_VISIBLE_DEVICES=0 NVIDIA_IMEX_CHANNELS=1)"
refused imex-nospec "NVIDIA_IMEX_CHANNELS=1: IMEX channel 1 is not in the CDI specs (no nvidia.com/imex-channel=1 in $tmp/gpu-only): cdi-generate --mode imex writes them"

# ---- Docker Swarm's generic resources ----
settings "swarm-resource = DOCKER_RESOURCE_GPU"
run swarm "$(env_of NVIDIA_VISIBLE_DEVICES=all "DOCKER_RESOURCE_GPU=$U1,$U3")"
check "DOCKER_RESOURCE_GPU=<uuid>,<uuid>: run exit 0" [ "$rc" -eq 0 ]
check "DOCKER_RESOURCE_GPU: GPU 1" present "$tmp/swarm.out" /dev/nvidia1
check "DOCKER_RESOURCE_GPU: GPU 3" present "$tmp/swarm.out" /dev/nvidia3
check "DOCKER_RESOURCE_GPU replaces NVIDIA_VISIBLE_DEVICES=all: not GPU 0" absent "$tmp/swarm.out" /dev/nvidia0
run swarm-unset "$(env_of NVIDIA_VISIBLE_DEVICES=0)"
check "swarm-resource set, variable absent: NVIDIA_VISIBLE_DEVICES" present "$tmp/swarm-unset.out" /dev/nvidia0
run swarm-bad "$(env_of DOCKER_RESOURCE_GPU=GPU-00000000-0000-0000-0000-000000000000)"
refused swarm-bad "DOCKER_RESOURCE_GPU=GPU-00000000-0000-0000-0000-000000000000: unresolvable CDI devices nvidia.com/gpu=GPU-00000000-0000-0000-0000-000000000000 (searched $cdi)"

# ---- configs read as runc reads them ----
settings
odd='s/"ODD=x"/"ODD=\\ud800-\xe2\x82-\xff"/; $ s/$/ trailing {/'
fffd=$'\xef\xbf\xbd'
run lenient-none "$(env_of ODD=x)" "$odd"
check "trailing data, bad UTF-8, a lone surrogate, no device: run exit 0" [ "$rc" -eq 0 ]
check "... config.json byte for byte" unchanged lenient-none
check "... the variable as runc reads it" has "$tmp/lenient-none.out" "env ODD=$fffd-$fffd$fffd-$fffd"
run lenient-gpu "$(env_of ODD=x NVIDIA_VISIBLE_DEVICES=0)" "$odd"
check "the same asking for GPU 0: run exit 0" [ "$rc" -eq 0 ]
check "... GPU 0" present "$tmp/lenient-gpu.out" /dev/nvidia0
check "... the variable as runc read the original" has "$tmp/lenient-gpu.out" "env ODD=$fffd-$fffd$fffd-$fffd"
# JSON runc refuses: its own message and status, as without cdi-runtime.
run broken "$(env_of NVIDIA_VISIBLE_DEVICES=0)" '$ s/}$//'
mkdir -p "$tmp/b-broken-runc"
cp "$tmp/broken.orig" "$tmp/b-broken-runc/config.json"
runc --root "$state" run --bundle "$tmp/b-broken-runc" "$id-broken" >"$tmp/broken-runc.out" \
	2>"$tmp/broken-runc.err" </dev/null
rc_runc=$?
no_time() { sed 's/time="[^"]*" //' "$1"; }
check "truncated JSON: runc's exit status ($rc_runc)" [ "$rc" -eq "$rc_runc" ] && [ "$rc" -ne 0 ]
check "truncated JSON: runc's message" [ "$(no_time "$tmp/broken.err")" = "$(no_time "$tmp/broken-runc.err")" ]
check "truncated JSON: config.json byte for byte" unchanged broken
check "truncated JSON: no container" no_container broken

tap_end
