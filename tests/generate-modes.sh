#!/usr/bin/env bash
# cdi-generate's modes beyond the GPU spec, on simulated hosts (tests/simhost/make-host):
# golden specs of dgx-nvswitch in the imex, nvswitch, gds, mofed and gdrcopy modes, of a WSL2
# guest and of a Jetson's CSV files; --mode auto picks wsl and csv on those hosts (the Jetson has
# /proc/driver/nvidia/version, as an Orin with OpenRM does) and keeps IMEX and fabric nodes out
# of a GPU spec; bad CSV files are errors naming file and line; every output is accepted by
# cdi-apply --validate and podman injects each device (in a private mount namespace).
#
# Golden files: tests/golden/<name>.yaml with the temp root replaced by @ROOT@; regenerate with
# CDIKIT_UPDATE_GOLDEN=1 bash tests/generate-modes.sh (then review the diff).
source "$(dirname "$0")/lib/suite.sh"
source tests/lib/golden.sh
source tests/lib/podman-cdi.sh
case $B in /*) ;; *) B=$PWD/$B ;; esac

[ "$(id -u)" -eq 0 ] || skip "needs root (the simulated hosts have real device nodes)"
G=$B/cdi-generate
[ -x "$G" ] || die "$G not built"
MOCK=$B/tests/mock-nvml
[ -f "$MOCK/libnvidia-ml.so.1" ] || die "mock NVML not built ($MOCK; make check builds the fixtures)"

tmp=$(mktemp -d /tmp/cdikit-modes.XXXXXX)
cleanup() {
	findmnt -rn -o TARGET 2>/dev/null | grep -F "$tmp/" | sort -r | while read -r m; do umount -l "$m"; done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

make_host() { # name make-host-args...
	local name=$1
	shift
	tests/simhost/make-host --mock-dir "$MOCK" --out "$tmp/$name" "$@" >"$tmp/make-host.log" 2>&1 ||
		die "make-host $*: $(tail -n 3 "$tmp/make-host.log")"
}
make_host nvs --topology dgx-nvswitch
make_host wsl --topology wsl
make_host jetson --topology jetson
make_host jetson35 --topology jetson --l4t r35

outs=()
gen() { # name root [args...]: generate to $tmp/name.yaml (stderr in $tmp/name.err)
	local name=$1 root=$2
	shift 2
	"$G" --root "$root" --output - "$@" >"$tmp/$name.yaml" 2>"$tmp/$name.err" ||
		die "$name: cdi-generate $*: $(cat "$tmp/$name.err")"
	outs+=("$tmp/$name.yaml")
}
golden() { # name root [args...]: gen, then compare with tests/golden/<name>.yaml
	gen "$@"
	golden_check "$1" "$tmp/$1.yaml" "$2"
}

# ---------------------------------------------------------------- goldens
for m in imex nvswitch gds mofed gdrcopy; do golden "dgx-nvswitch-$m" "$tmp/nvs" --mode "$m"; done
golden wsl "$tmp/wsl"
golden jetson "$tmp/jetson"

# What the goldens must say whatever they hold (an update cannot bless a wrong spec).
kind() { sed -n 's/^kind: //p' "$tmp/$1.yaml"; }
names() { sed -n 's/^- name: //p' "$tmp/$1.yaml" | tr -d '"' | tr '\n' ' '; }
[ "$(kind dgx-nvswitch-imex)" = nvidia.com/imex-channel ] || die "imex: kind $(kind dgx-nvswitch-imex)"
[ "$(names dgx-nvswitch-imex)" = "0 1 2047 all " ] || die "imex: devices $(names dgx-nvswitch-imex)"
for m in nvswitch gds mofed gdrcopy; do
	[ "$(kind "dgx-nvswitch-$m")" = "nvidia.com/$m" ] || die "$m: kind $(kind "dgx-nvswitch-$m")"
	[ "$(names "dgx-nvswitch-$m")" = "all " ] || die "$m: devices $(names "dgx-nvswitch-$m")"
done
grep -q 'containerPath: /run/nvidia-fabricmanager/socket$' "$tmp/dgx-nvswitch-nvswitch.yaml" ||
	die "nvswitch: no fabric manager socket"
grep -q 'path: /dev/nvidia-nvlink$' "$tmp/dgx-nvswitch-nvswitch.yaml" || die "nvswitch: no nvidia-nvlink"
# --no-ipc (nvidia-ctk's disable-ipc-discoverer): no socket and no MPS pipe directory, in the
# nvswitch spec and in the GPU spec, and nothing else goes.
gen nvswitch-no-ipc "$tmp/nvs" --mode nvswitch --no-ipc
gen gpu "$tmp/nvs"
gen gpu-no-ipc "$tmp/nvs" --no-ipc
ipc='/run/nvidia-fabricmanager/socket|/run/nvidia-persistenced/socket|/tmp/nvidia-mps'
grep -Eq "containerPath: ($ipc)\$" "$tmp/gpu.yaml" || die "the GPU spec has no IPC mount to leave out"
grep -Eq "($ipc)" "$tmp/nvswitch-no-ipc.yaml" "$tmp/gpu-no-ipc.yaml" && die "--no-ipc: an IPC mount is left"
mounts() { grep -c 'containerPath:' "$1"; }
ipcs() { grep -Ec "containerPath: ($ipc)\$" "$1"; }
nodes() { grep -c '^  *- path: /dev/' "$1"; }
for s in nvswitch gpu; do
	with=$tmp/$s.yaml
	[ $s = nvswitch ] && with=$tmp/dgx-nvswitch-nvswitch.yaml
	[ "$(mounts "$tmp/$s-no-ipc.yaml")" -eq $(($(mounts "$with") - $(ipcs "$with"))) ] &&
		[ "$(nodes "$tmp/$s-no-ipc.yaml")" -eq "$(nodes "$with")" ] ||
		die "--no-ipc ($s): more than the IPC mounts left out"
done
grep -q 'containerPath: /etc/cufile.json$' "$tmp/dgx-nvswitch-gds.yaml" || die "gds: no cufile.json"
[ "$(kind wsl)" = nvidia.com/gpu ] && [ "$(names wsl)" = "all " ] || die "wsl: $(kind wsl) $(names wsl)"
grep -q 'path: /dev/dxg$' "$tmp/wsl.yaml" || die "wsl: no /dev/dxg"
grep -q 'containerPath: /usr/lib/wsl/drivers/nvmii.inf_amd64_[0-9a-f]*/libcuda.so.1.1$' "$tmp/wsl.yaml" ||
	die "wsl: libcuda.so.1.1 of the driver store is not mounted"
grep -q 'containerPath: /usr/bin/nvidia-smi$' "$tmp/wsl.yaml" || die "wsl: no /usr/bin/nvidia-smi"
grep -q 'iigd_dch\|\.inf$\|\.sys$' "$tmp/wsl.yaml" && die "wsl: the Intel store or Windows-only files are mounted"
# libcuda.so.1 by soname where a linker looks without a cache (or WSL's ld.wsl.conf).
for d in /usr/lib/x86_64-linux-gnu /usr/lib64; do
	grep -q "containerPath: $d/libcuda.so.1\$" "$tmp/wsl.yaml" && grep -q "containerPath: $d/libdxcore.so\$" "$tmp/wsl.yaml" ||
		die "wsl: libcuda.so.1 or libdxcore.so not in $d"
done
[ "$(kind jetson)" = nvidia.com/gpu ] && [ "$(names jetson)" = "0 all " ] || die "jetson: $(kind jetson) $(names jetson)"
grep -q 'path: /dev/nvgpu/igpu0/ctrl$' "$tmp/jetson.yaml" || die "jetson: no nvgpu node"
grep -q 'containerPath: /usr/lib/aarch64-linux-gnu/nvidia/libcuda.so.1$' "$tmp/jetson.yaml" ||
	die "jetson: the sym row libcuda.so.1 is not mounted"
grep -q 'containerPath: /usr/lib/aarch64-linux-gnu/libcuda.so.1$' "$tmp/jetson.yaml" ||
	die "jetson: libcuda.so.1 is not in the multiarch directory (no cache in an image names nvidia/)"
grep -q 'containerPath: /lib/firmware/tegra19x/nvhost_nvdec040_ns.fw$' "$tmp/jetson.yaml" ||
	die "jetson: the row //lib/firmware/... is not cleaned"
for f in "$tmp"/*.err; do
	[ "$(wc -l <"$f")" -eq 1 ] || die "$(basename "$f" .err): more than the summary on stderr: $(cat "$f")"
done
ok "kinds and device names as nvidia-ctk's; WSL and Jetson files as expected, no warnings"

# ---------------------------------------------------------------- auto
gen wsl-mode "$tmp/wsl" --mode wsl
cmp -s "$tmp/wsl.yaml" "$tmp/wsl-mode.yaml" || die "--mode wsl differs from auto on the WSL host"
gen jetson-mode "$tmp/jetson" --mode csv
cmp -s "$tmp/jetson.yaml" "$tmp/jetson-mode.yaml" || die "--mode csv differs from auto on the Jetson"
[ -f "$tmp/jetson/proc/driver/nvidia/version" ] || die "the jetson host has no /proc/driver/nvidia/version"
gen jetson35 "$tmp/jetson35"
cmp -s <(sed "s|$tmp/jetson35|@ROOT@|g" "$tmp/jetson35.yaml") "$tmp/jetson.yaml.golden" ||
	die "JetPack 5's one l4t.csv gives another spec than JetPack 6's devices.csv + drivers.csv"
gen nvs-auto "$tmp/nvs"
[ "$(kind nvs-auto)" = nvidia.com/gpu ] || die "auto on dgx-nvswitch: kind $(kind nvs-auto)"
grep -E '^ *-? *(path|containerPath): ' "$tmp/nvs-auto.yaml" |
	grep -E 'imex-channels|nvswitch|nvlink|nvidia-fs|infiniband|gdrdrv' &&
	die "auto on dgx-nvswitch: IMEX, fabric or storage nodes in the GPU spec"
grep -q '^- name: GPU-' "$tmp/nvs-auto.yaml" || die "auto on dgx-nvswitch: no GPU devices"
ok "auto: wsl on WSL2, csv on the Jetson (r35 and r36 alike), the GPU spec without fabric nodes on dgx-nvswitch"

# ---------------------------------------------------------------- options, files
"$G" --root "$tmp/nvs" --mode imex --no-all-device -o - 2>/dev/null | grep -q '^- name: all' &&
	die "--no-all-device: imex still has all"
for args in "--mode imex --device-id 0" "--mode gds --no-all-device" "--mode wsl --device-id 0" "--mode bogus"; do
	# shellcheck disable=SC2086
	"$G" --root "$tmp/nvs" $args -o - >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] || die "$args: exit $rc, want 2 (usage): $(cat "$tmp/err")"
done
spec=$tmp/out/nvidia-imex.yaml
"$G" -q --root "$tmp/nvs" --mode imex -o "$spec" || die "--mode imex -o FILE failed"
[ -f "$spec" ] && [ ! -e "$spec.cdikit" ] || die "--mode imex: no spec, or a facts file beside it"
"$G" --root "$tmp/nvs" --mode imex --check -o "$spec" >"$tmp/err" || die "--check: $(cat "$tmp/err")"
grep -q 'is up to date' "$tmp/err" || die "--check: $(cat "$tmp/err")"
"$G" --help | grep -q 'imex' || die "--help does not name the imex mode"
ok "--no-all-device, usage errors, -o FILE without facts, --check"

# ---------------------------------------------------------------- what is wrong is said
expect_fail() { # what grep-pattern root [args...]
	local what=$1 pat=$2 root=$3
	shift 3
	timeout 20 "$G" --root "$root" -o - "$@" >"$tmp/out.yaml" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 1 ] || die "$what: exit $rc, want 1: $(cat "$tmp/err")"
	[ -s "$tmp/out.yaml" ] && die "$what: wrote a spec"
	grep -q -- "$pat" "$tmp/err" || die "$what: the error does not say \"$pat\": $(cat "$tmp/err")"
}
d=$tmp/jetson/etc/nvidia-container-runtime/host-files-for-container.d
cp -a "$d" "$tmp/csv.bak"
n=$(($(wc -l <"$d/drivers.csv") + 1))
printf 'lib /usr/lib/aarch64-linux-gnu/nvidia/libcuda.so.1.1\nbin, /usr/bin/true\n' >>"$d/drivers.csv"
expect_fail "a bad CSV line" "$d/drivers.csv:$n: not \"<kind>, <path>\": no comma" "$tmp/jetson"
grep -q "drivers.csv:$((n + 1)): unknown kind \"bin\"" "$tmp/err" || die "the second bad line is not reported: $(cat "$tmp/err")"
rm -rf "$d" && cp -a "$tmp/csv.bak" "$d"
rm "$d/devices.csv" && mkfifo "$d/devices.csv"
expect_fail "a FIFO for a CSV file" "is a FIFO" "$tmp/jetson"
rm -rf "$d" && cp -a "$tmp/csv.bak" "$d"
ln -sf /etc/passwd "$d/zz.csv"
expect_fail "a CSV link to the host's /etc/passwd" "$tmp/jetson/etc/nvidia-container-runtime/host-files-for-container.d/zz.csv" "$tmp/jetson"
rm -rf "$d" && cp -a "$tmp/csv.bak" "$d"
expect_fail "--mode csv without CSV files" "cannot read the CSV directory" "$tmp/nvs" --mode csv
expect_fail "--mode imex on WSL" "no IMEX channels" "$tmp/wsl" --mode imex
expect_fail "--mode wsl on a native host" "/dev/dxg: missing" "$tmp/nvs" --mode wsl
rm "$tmp/nvs/dev/nvidia-caps-imex-channels/channel1"
mknod -m 0666 "$tmp/nvs/dev/nvidia-caps-imex-channels/channel1" c 238 7
expect_fail "an IMEX channel with the wrong minor" "stale device node" "$tmp/nvs" --mode imex
ok "bad CSV lines (file and line, every one), a FIFO, a link out of the root, missing sources, a stale channel"

# ---------------------------------------------------------------- validators
"$B/cdi-apply" --validate "${outs[@]}" >"$tmp/validate.out" 2>&1 || die "cdi-apply --validate: $(cat "$tmp/validate.out")"
ok "cdi-apply --validate accepts all ${#outs[@]} outputs"
{
	echo "$tmp/dgx-nvswitch-imex.yaml nvidia.com/imex-channel 0 2047 all"
	for m in nvswitch gds mofed gdrcopy; do echo "$tmp/dgx-nvswitch-$m.yaml nvidia.com/$m all"; done
	echo "$tmp/wsl.yaml nvidia.com/gpu all"
	echo "$tmp/jetson.yaml nvidia.com/gpu 0 all"
} >"$tmp/podman.list"
etc_before=$(ls -la --time-style=full-iso /etc/cdi 2>&1)
mkdir -p "$tmp/podman"
podman_cdi_expect "$tmp/podman" "$tmp/podman.list" "the seven specs"
[ "$(ls -la --time-style=full-iso /etc/cdi 2>&1)" = "$etc_before" ] || die "the machine's /etc/cdi changed"

echo "PASS: generate-modes"
