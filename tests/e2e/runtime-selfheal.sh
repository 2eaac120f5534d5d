#!/usr/bin/env bash
# End to end, the spec that heals itself (docs/runtime.md): cdi-runtime over real runc on a
# simulated host, with the spec it regenerates in a temp spec directory (spec-refresh-output),
# never the machine's /var/run/cdi:
#   - another tool's spec (no facts file) at the output, or defining the GPUs elsewhere, is left
#     alone: not rewritten, no facts file, the generator never runs, its error stays;
#   - spec missing: the first create writes it (spec and facts) and the container gets libcuda
#     and GPU 0; the next create runs no generator and leaves the spec's inode as it was;
#   - spec-refresh = off: a missing spec stays missing and the create fails as before;
#   - driver change (the host's /proc/driver/nvidia/version, libraries and NVML now 555.42.02):
#     8 creates at once regenerate the spec once, and all 8 containers start with the new
#     driver's libraries;
#   - a failed regeneration (the module says 560.35.03, the libraries are still 555.42.02):
#     today's one-line error last, the spec and facts byte for byte, no container;
#   - spec-refresh-no-ipc = true: the regenerated spec has no IPC socket;
#   - a spec-refresh-output in no spec directory: one line naming runtime.conf and its line.
# The generator is counted by running cdi-runtime from a directory of its own, beside a
# cdi-generate that logs each run and execs the real one (the runtime looks for the generator
# beside itself); for the 8 creates it first sleeps a second, so that the others queue on the
# lock while it runs.
# Needs root, runc, jq, a C compiler; else exit 77.
. "$(dirname "$0")/../lib/suite.sh" e2e-selfheal "device nodes of the simulated host, runc run" \
	cdi-generate cdi-runtime tests/mock-nvml/libnvidia-ml.so.1
# shellcheck source=../lib/tap.sh
. tests/lib/tap.sh
for c in runc jq; do command -v $c >/dev/null 2>&1 || skip "$c not installed"; done

state=$tmp/runc-state
id=cdikit-heal-$$
ids=()
cleanup() {
	for i in "${ids[@]}"; do runc --root "$state" delete -f "$i" >/dev/null 2>&1; done
	rm -rf "$tmp"
}
trap cleanup EXIT

# shellcheck source=../lib/gpu-host.sh
. tests/lib/gpu-host.sh
host=$tmp/host
make_host single "$host"
[ -e "$host/.simhost-no-devnodes" ] && skip "the simulated host has no real device nodes"
gpu_probe "$tmp/probe"
glibc_rootfs "$tmp/rootfs" "$tmp/probe"

# cdi-runtime in a directory of its own, beside a cdi-generate that counts its runs.
mkdir -p "$tmp/bin" "$tmp/etc-cdi" "$tmp/cdi"
cp "$B/cdi-runtime" "$tmp/bin/"
cat >"$tmp/bin/cdi-generate" <<EOF
#!/bin/sh
echo "\$*" >>"$tmp/generator.log"
[ ! -e "$tmp/slow" ] || sleep 1
exec "$B/cdi-generate" "\$@"
EOF
chmod 0755 "$tmp/bin/cdi-generate"
: >"$tmp/generator.log"
runs() { wc -l <"$tmp/generator.log"; }
RT=$tmp/bin/cdi-runtime
spec=$tmp/cdi/nvidia.yaml
conf=$tmp/runtime.conf
settings() { # the runtime.conf lines the next runs read
	printf 'spec-dirs = %s:%s\nhost-root = %s\nspec-refresh-output = %s\n' \
		"$tmp/etc-cdi" "$tmp/cdi" "$host" "$spec" >"$conf"
	printf '%s\n' "$@" >>"$conf"
}
settings

lib=/usr/lib/x86_64-linux-gnu
# run NAME VISIBLE [ENV...]: a probe bundle asking for VISIBLE, run through cdi-runtime; output
# in $tmp/NAME.out, stderr in $tmp/NAME.err, the original config in $tmp/NAME.orig, status rc.
bundle() {
	local name=$1 visible=$2 env
	shift 2
	env=$(printf '%s\n' "NVIDIA_VISIBLE_DEVICES=$visible" "$@" | jq -R . | jq -cs .)
	probe_bundle "$tmp/b-$name" '["/dev/nvidia0"]' ".process.env += $env"
	cp "$tmp/b-$name/config.json" "$tmp/$name.orig"
	ids+=("$id-$name")
}
start() {
	CDIKIT_CONFIG=$conf timeout 120 "$RT" --root "$state" run --bundle "$tmp/b-$1" "$id-$1" \
		>"$tmp/$1.out" 2>"$tmp/$1.err" </dev/null
}
run() {
	bundle "$@"
	start "$1"
	rc=$?
	runc --root "$state" delete -f "$id-$1" >/dev/null 2>&1
}
gpu_ok() { # NAME: the container loaded libcuda and saw GPU 0 with the host's numbers
	has "$tmp/$1.out" "dlopen libcuda.so.1 ok" && has "$tmp/$1.out" "$(node_line /dev/nvidia0)"
}
mounts_driver() { # NAME VERSION: the edited config mounts that driver's libcuda, on its own or
	# in a directory of the library directory (the whole one, or its compute group)
	local src
	for src in $(jq -r '.mounts[].source // empty' "$tmp/b-$1/config.json"); do
		case $src in *libcuda.so."$2") return 0 ;; esac
		[ -f "$src/lib64/libcuda.so.$2" ] && return 0
	done
	return 1
}
facts_driver() { jq -r .driver.version "$spec.cdikit"; }
not_in() { ! grep -q "$2" "$1"; }
no_container() { ! runc --root "$state" state "$id-$1" >/dev/null 2>&1; }

# ---- another tool's spec: never written ----
"$B/cdi-generate" -q --no-facts --root "$host" --output "$spec" || die "cdi-generate --no-facts failed"
cp "$spec" "$tmp/foreign.yaml"
run foreign 1
check "another tool's spec: GPU 1 still unresolvable" [ "$rc" -eq 1 ]
check "another tool's spec: its error, one line" \
	[ "$(cat "$tmp/foreign.err")" = "cdi-runtime: NVIDIA_VISIBLE_DEVICES=1: unresolvable CDI devices nvidia.com/gpu=1 (searched $tmp/etc-cdi, $tmp/cdi)" ]
check "another tool's spec: byte for byte" cmp -s "$spec" "$tmp/foreign.yaml"
check "another tool's spec: no facts file written" [ ! -e "$spec.cdikit" ]
check "another tool's spec: the generator never ran" [ "$(runs)" -eq 0 ]
rm -f "$spec" "$spec.cdikit-cache"
cat >"$tmp/etc-cdi/other.yaml" <<'EOF'
cdiVersion: 0.5.0
kind: nvidia.com/gpu
devices:
- name: "0"
  containerEdits:
    env:
    - OTHER_TOOL=1
EOF
run other 0
check "the GPUs defined by another file: run exit 0" [ "$rc" -eq 0 ]
check "the GPUs defined by another file: its device" \
	jq -e '.process.env | index("OTHER_TOOL=1")' "$tmp/b-other/config.json" >/dev/null
check "the GPUs defined by another file: the output is not created" [ ! -e "$spec" ]
check "the GPUs defined by another file: the generator never ran" [ "$(runs)" -eq 0 ]
rm "$tmp/etc-cdi/other.yaml"

# ---- spec-refresh = off: as before ----
settings "spec-refresh = off"
run off 0
check "spec-refresh = off: a missing spec fails the create" [ "$rc" -eq 1 ]
check "spec-refresh = off: nothing written" [ ! -e "$spec" ]
check "spec-refresh = off: the generator never ran" [ "$(runs)" -eq 0 ]
settings

# ---- the spec missing ----
run missing 0
check "spec missing: run exit 0" [ "$rc" -eq 0 ]
check "spec missing: nothing on stderr" [ ! -s "$tmp/missing.err" ]
check "spec missing: libcuda and GPU 0 in the container" gpu_ok missing
check "spec missing: written, with its facts file" [ -s "$spec" -a -s "$spec.cdikit" ]
check "spec missing: the facts record the running driver" [ "$(facts_driver)" = 550.54.15 ]
check "spec missing: one generator run" [ "$(runs)" -eq 1 ]
check "spec missing: the generator's command line" \
	[ "$(cat "$tmp/generator.log")" = "--quiet --root $host --output $spec" ]
inode=$(stat -c %i "$spec")
run fresh 0
check "spec fresh: run exit 0" gpu_ok fresh
check "spec fresh: no generator run" [ "$(runs)" -eq 1 ]
check "spec fresh: the same file" [ "$(stat -c %i "$spec")" = "$inode" ]

# ---- a driver change, and 8 creates at once ----
make_host single "$host" --force --driver 555.42.02
[ -e "$host/$lib/libcuda.so.555.42.02" ] || die "the simulated driver change has no libcuda.so.555.42.02"
for i in 1 2 3 4 5 6 7 8; do bundle "many$i" 0; done
settings "log-level = info"
touch "$tmp/slow"
pids=()
for i in 1 2 3 4 5 6 7 8; do
	start "many$i" &
	pids+=($!)
done
all_ok=1
for i in 1 2 3 4 5 6 7 8; do
	wait "${pids[$((i - 1))]}" || all_ok=0
	runc --root "$state" delete -f "$id-many$i" >/dev/null 2>&1
done
check "driver change: all 8 runs exit 0" [ "$all_ok" -eq 1 ]
rm "$tmp/slow"
settings
said() { cat "$tmp"/many?.err | grep -c "$1"; }
check "driver change: one regeneration for 8 creates" [ "$(runs)" -eq 2 ]
check "driver change: one create says it regenerated the spec" [ "$(said ": regenerated in ")" -eq 1 ]
check "driver change: the others waited for it (some at least)" [ "$(said "regenerated by another create")" -ge 1 ]
check "driver change: the facts record the new driver" [ "$(facts_driver)" = 555.42.02 ]
check "driver change: a new spec file" [ "$(stat -c %i "$spec")" != "$inode" ]
for i in 1 2 3 4 5 6 7 8; do
	check "driver change: container $i on the new driver's libcuda" mounts_driver "many$i" 555.42.02
	check "driver change: container $i loaded it" gpu_ok "many$i"
done

# ---- a failed regeneration: the module is 560.35.03, the libraries still 555.42.02 ----
sed -i 's/555\.42\.02/560.35.03/' "$host/proc/driver/nvidia/version"
cp "$spec" "$tmp/before.yaml"
cp "$spec.cdikit" "$tmp/before.cdikit"
run failed 0 'NVIDIA_REQUIRE_CUDA=cuda>=12.0'
check "failed regeneration: create fails" [ "$rc" -eq 1 ]
check "failed regeneration: today's one-line error, last" [ "$(tail -n 1 "$tmp/failed.err")" = \
	"cdi-runtime: $spec.cdikit: recorded for driver 555.42.02, but the running driver is 560.35.03 (/proc/driver/nvidia/version): run cdi-generate again, or set NVIDIA_DISABLE_REQUIRE=true" ]
check "failed regeneration: the warning before it says why" grep -qF \
	"cdi-runtime: $spec: not regenerated (its facts record driver 555.42.02, the host runs 560.35.03): cdi-generate: driver version mismatch" "$tmp/failed.err"
check "failed regeneration: two lines in all" [ "$(wc -l <"$tmp/failed.err")" -eq 2 ]
check "failed regeneration: the spec byte for byte" cmp -s "$spec" "$tmp/before.yaml"
check "failed regeneration: the facts byte for byte" cmp -s "$spec.cdikit" "$tmp/before.cdikit"
check "failed regeneration: config.json byte for byte" cmp -s "$tmp/b-failed/config.json" "$tmp/failed.orig"
check "failed regeneration: no container" no_container failed
check "failed regeneration: no temp file left" \
	[ -z "$(find "$tmp/cdi" -name '*.tmp')" ]
sed -i 's/560\.35\.03/555.42.02/' "$host/proc/driver/nvidia/version"

# ---- spec-refresh-no-ipc ----
settings "spec-refresh-no-ipc = true"
grep -q 'containerPath: /run/nvidia-persistenced/socket$' "$spec" ||
	die "the simulated host's spec has no persistenced socket to leave out"
rm "$spec"
before=$(runs)
run noipc 0
check "spec-refresh-no-ipc: run exit 0" [ "$rc" -eq 0 ]
check "spec-refresh-no-ipc: cdi-generate --no-ipc" grep -q -- '--no-ipc$' "$tmp/generator.log"
check "spec-refresh-no-ipc: one run" [ "$(runs)" -eq $((before + 1)) ]
check "spec-refresh-no-ipc: no socket in the spec" not_in "$spec" persistenced/socket

# ---- a spec-refresh-output the runtime does not read ----
settings "spec-refresh-output = $tmp/elsewhere/nvidia.yaml"
run outside 0
check "output in no spec directory: create fails" [ "$rc" -eq 1 ]
check "output in no spec directory: one line naming the file and line" [ "$(cat "$tmp/outside.err")" = \
	"cdi-runtime: $conf:4: spec-refresh-output: $tmp/elsewhere/nvidia.yaml lies in none of the spec directories ($tmp/etc-cdi, $tmp/cdi)" ]
check "output in no spec directory: config.json byte for byte" cmp -s "$tmp/b-outside/config.json" "$tmp/outside.orig"

tap_end
