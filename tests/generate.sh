#!/usr/bin/env bash
# cdi-generate on simulated hosts (tests/simhost/make-host): golden outputs, determinism,
# --check, no rewrite of an unchanged file, the facts file, stdout/JSON output, the program's
# habits, hostile roots and output directories (links, FIFOs, corrupt caches, insecure files,
# two writers at once), and every output accepted by cdi-apply --validate, by the CDI JSON schema
# (the reference's own schema package, Debian's copy) and by podman
# (`podman create --device nvidia.com/gpu=<name>`, in a private mount namespace: the machine's
# own /etc/cdi is never touched).
#
# Golden files: tests/golden/<name>.yaml, with the temp root replaced by @ROOT@.
# Regenerate them with CDIKIT_UPDATE_GOLDEN=1 bash tests/generate.sh (then review the diff).
#
# Needs root (make-host mknods the device nodes); exits 77 otherwise. The podman part is skipped
# (and said so) when podman cannot create containers here; everything else still runs.
set -u
cd "$(dirname "$0")/.."
: "${B:=build}"
case $B in /*) ;; *) B=$PWD/$B ;; esac

skip() { echo "SKIP: $*"; exit 77; }
die() { echo "FAIL: $*"; exit 1; }
ok() { echo "ok: $*"; }

[ "$(id -u)" -eq 0 ] || skip "needs root (the simulated hosts have real device nodes)"
# The spec writer's checks, on the per-file layout (tests/lib-dir.sh checks the library directory).
L=--library-layout=files
G=$B/cdi-generate
[ -x "$G" ] || die "$G not built"
MOCK=$B/tests/mock-nvml
[ -f "$MOCK/libnvidia-ml.so.1" ] && [ -f "$MOCK/old/libnvidia-ml.so.1" ] ||
	die "mock NVML not built ($MOCK; make check builds the fixtures)"
SCHEMA_DIR=/usr/share/gocode/src/github.com/container-orchestrated-devices/container-device-interface/schema
VERSION=$(sed -nE 's/^VERSION := (.*)/\1/p' Makefile)

tmp=$(mktemp -d /tmp/cdikit-gen.XXXXXX)
cleanup() {
	findmnt -rn -o TARGET 2>/dev/null | grep -F "$tmp/" | sort -r | while read -r m; do umount -l "$m"; done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
source tests/lib/golden.sh
source tests/lib/podman-cdi.sh

topologies=(single dgx-mig big64 old-driver no-nvml workstation)
for t in "${topologies[@]}"; do
	tests/simhost/make-host --topology "$t" --mock-dir "$MOCK" --out "$tmp/$t" >"$tmp/make-host.log" 2>&1 ||
		die "make-host --topology $t: $(tail -n 3 "$tmp/make-host.log")"
done
# A copy to damage, one scenario at a time (restored after each).
host() { # name topology -> a fresh copy of a built host at $tmp/name
	rm -rf "${tmp:?}/$1"
	cp -a "$tmp/$2" "$tmp/$1" || die "copying $2"
}

# Every output the suite produces goes here, for the validators at the end; those that need a
# cdiVersion newer than Debian's reference library (v0.5.2) and podman 4.3 know go to $tmp/out-new,
# for cdi-apply --validate alone.
mkdir -p "$tmp/out" "$tmp/out-new"
n_out=0
keep() { # file -> a copy in $tmp/out (or $tmp/out-new)
	if grep -qE '^cdiVersion: "?0\.7\.|"cdiVersion": "0\.7\.' "$1"; then
		n_out=$((n_out + 1))
		cp "$1" "$tmp/out-new/$n_out-$(basename "$1")"
		return
	fi
	n_out=$((n_out + 1))
	cp "$1" "$tmp/out/$n_out-$(basename "$1")"
}

# ---------------------------------------------------------------- golden outputs
golden() { # name root [args...]: generate to stdout, compare with tests/golden/<name>.yaml
	local name=$1 root=$2 out=$tmp/$1.yaml
	shift 2
	"$G" $L --root "$root" --output - "$@" >"$out" 2>"$tmp/$name.err" ||
		die "$name: cdi-generate failed: $(cat "$tmp/$name.err")"
	keep "$out"
	golden_check "$name" "$out" "$root"
}

golden single "$tmp/single"
golden dgx-mig "$tmp/dgx-mig"
golden old-driver "$tmp/old-driver"
golden no-nvml "$tmp/no-nvml"
golden dgx-mig-management "$tmp/dgx-mig" --mode management
golden dgx-mig-procfs "$tmp/dgx-mig" --mode procfs
golden dgx-mig-type-index "$tmp/dgx-mig" --device-name-strategy type-index --device-id 0 \
	--device-id 2:1 --device-id MIG-6fb165d3-40e2-09d6-0842-2ce49eb98495
# cdikit installed on the workstation: its EGL application profiles (mk/app_profiles.mk).
[ -f "$B/share/cdikit/application-profiles/gpu0.conf" ] || die "$B/share/cdikit/application-profiles not built"
mkdir -p "$tmp/workstation/usr/share/cdikit"
cp -r "$B/share/cdikit/application-profiles" "$tmp/workstation/usr/share/cdikit/"
golden workstation "$tmp/workstation"
golden workstation-no-gids "$tmp/workstation" --no-additional-gids

# What it did, in one line on stderr; the no-nvml host says once why it fell back to /proc.
[ "$(cat "$tmp/dgx-mig.err")" = "cdi-generate: wrote the spec to standard output: 34 devices, 31 device nodes, 210 mounts" ] ||
	die "dgx-mig: stderr: $(cat "$tmp/dgx-mig.err")"
grep -q '^cdi-generate: warning: no libnvidia-ml.so.1 under .*; enumerating full GPUs from /proc' "$tmp/no-nvml.err" ||
	die "no-nvml: no fallback notice: $(cat "$tmp/no-nvml.err")"
[ "$(wc -l <"$tmp/no-nvml.err")" -eq 2 ] || die "no-nvml: not the notice and the summary: $(cat "$tmp/no-nvml.err")"
"$G" $L -q --root "$tmp/no-nvml" -o - 2>"$tmp/err" >/dev/null || die "no-nvml -q failed"
[ -s "$tmp/err" ] && die "-q still says: $(cat "$tmp/err")"
"$G" $L -v --root "$tmp/dgx-mig" -o - 2>"$tmp/err" >/dev/null || die "-v failed"
grep -q '^cdi-generate: driver 550.54.15, CUDA 12.4: 8 GPUs, 10 MIG devices, 31 device nodes$' "$tmp/err" ||
	die "-v: $(cat "$tmp/err")"
ok "one summary line on stderr; -q says nothing, -v what was found"

# What the goldens must say, whatever they hold (so an --update cannot bless a wrong spec).
d=$tmp/dgx-mig.yaml
grep -q '^cdiVersion: "0.5.0"$' "$d" || die "dgx-mig: cdiVersion is not 0.5.0"
grep -q 'hooks' "$d" && die "dgx-mig: the spec has hooks"
grep -q 'additionalGids' "$d" && die "dgx-mig: the spec has additionalGids"
grep -qE '^ *(major|minor|type):' "$d" && die "dgx-mig: device numbers without --with-device-numbers"
grep -q -- '- NVIDIA_VISIBLE_DEVICES=void' "$d" || die "dgx-mig: NVIDIA_VISIBLE_DEVICES=void missing"
names=$(sed -n 's/^- name: //p' "$d" | tr -d '"' | tr '\n' ' ')
# 8 GPUs, GPU 2 (7 MIG) and 5 (3 MIG) in MIG mode: 6 full + 10 MIG devices, by index and UUID.
[ "$(wc -w <<<"$names")" -eq 34 ] || die "dgx-mig: $(wc -w <<<"$names") devices: $names"
case $names in "0 1 2:0 2:1 2:2 2:3 2:4 2:5 2:6 3 4 5:0 5:1 5:2 6 7 GPU-"*" none all ") ;;
*) die "dgx-mig: device order: $names" ;; esac
case " $names " in *" 2 "* | *" 5 "*) die "dgx-mig: a GPU in MIG mode has a full-GPU entry" ;; esac
python3 - "$d" <<'PY' || die "dgx-mig: the none device is not as it should be"
import sys, yaml
spec = yaml.safe_load(open(sys.argv[1]))
none = next(d for d in spec["devices"] if d["name"] == "none")
assert none["containerEdits"] == {"env": ["NVIDIA_VISIBLE_DEVICES=void"]}, none
assert {n["path"] for n in spec["containerEdits"]["deviceNodes"]} >= {"/dev/nvidiactl", "/dev/nvidia-uvm"}
PY
ok "dgx-mig: 34 devices in order (none before all), no hooks, no numbers, 0.5.0"

# The graphics workstation (R570, two RTX A6000 driving displays, nvidia-drm loaded): DRI nodes
# per GPU with their by-path names, their groups as additionalGids (so 0.7.0), and without
# them 0.5.0; the Xorg modules, libraries the table does not know, firmware in updates/.
python3 - "$tmp/workstation.yaml" "$tmp/workstation-no-gids.yaml" <<'PY' || die "workstation: the spec is not as it should be"
import sys, yaml
spec = yaml.safe_load(open(sys.argv[1]))
plain = yaml.safe_load(open(sys.argv[2]))
dev = {str(d["name"]): d["containerEdits"] for d in spec["devices"]}
def paths(e): return [n["path"] for n in e.get("deviceNodes", [])]
assert spec["cdiVersion"] == "0.7.0", spec["cdiVersion"]
assert paths(dev["0"]) == ["/dev/nvidia0", "/dev/dri/card1", "/dev/dri/renderD128",
    "/dev/dri/by-path/pci-0000:17:00.0-card", "/dev/dri/by-path/pci-0000:17:00.0-render"], paths(dev["0"])
assert paths(dev["1"])[1:3] == ["/dev/dri/card2", "/dev/dri/renderD129"], paths(dev["1"])
assert dev["GPU-2fa943e8-e4f8-0a68-6ece-d710abad8fe4"] == dev["0"]
byp = {n["path"]: n for n in dev["0"]["deviceNodes"]}
assert byp["/dev/dri/by-path/pci-0000:17:00.0-render"]["hostPath"].endswith("/dev/dri/renderD128")
assert byp["/dev/dri/renderD128"]["gid"] == 105 and byp["/dev/dri/card1"]["gid"] == 44
assert "gid" not in byp["/dev/nvidia0"]
assert dev["0"]["additionalGids"] == [44, 105], dev["0"]
assert set(paths(dev["all"])) == set(paths(dev["0"]) + paths(dev["1"])) and dev["all"]["additionalGids"] == [44, 105]
assert "additionalGids" not in spec["containerEdits"] and "additionalGids" not in dev["none"]
assert "/dev/dri/card0" not in paths(dev["all"]), "simpledrm's card0 taken"
profile = "/etc/nvidia/nvidia-application-profiles-rc.d/10-container.conf"
for name, minor in (("0", 0), ("1", 1)):
    assert [(m["hostPath"].split("/usr/share/cdikit/")[1], m["containerPath"]) for m in dev[name]["mounts"]] == \
        [("application-profiles/gpu%d.conf" % minor, profile)], dev[name]["mounts"]
assert "mounts" not in dev["all"] and "mounts" not in dev["none"]
mounts = {m["containerPath"] for m in spec["containerEdits"]["mounts"]}
for want in ("/usr/lib/xorg/modules/drivers/nvidia_drv.so",
             "/usr/lib/xorg/modules/extensions/libglxserver_nvidia.so.570.148.08",
             "/usr/lib/xorg/modules/extensions/libglxserver_nvidia.so",
             "/usr/lib/x86_64-linux-gnu/libnvidia-gtk2.so.570.148.08",
             "/usr/lib/x86_64-linux-gnu/libnvidia-sandboxutils.so.1",
             "/lib/firmware/updates/nvidia/570.148.08/gsp_ga10x.bin",
             "/lib/firmware/nvidia/570.148.08/gsp_ga10x.bin"):
    assert want in mounts, want
assert plain["cdiVersion"] == "0.5.0", plain["cdiVersion"]
text = open(sys.argv[2]).read()
assert "additionalGids" not in text and "gid:" not in text
strip = lambda e: [{k: v for k, v in n.items() if k != "gid"} for n in e.get("deviceNodes", [])]
assert [strip(d["containerEdits"]) for d in plain["devices"]] == [strip(d["containerEdits"]) for d in spec["devices"]]
PY
ok "workstation: DRI nodes and by-path names per GPU, additionalGids (0.7.0), 0.5.0 without; Xorg, any *.so.570, firmware updates/"

# firmware_class.path: the kernel loader's own directory is searched first.
tests/simhost/make-host --topology single --firmware-path /opt/nvidia/firmware --mock-dir "$MOCK" \
	--out "$tmp/fwpath" >"$tmp/make-host.log" 2>&1 || die "make-host --firmware-path: $(tail -n 3 "$tmp/make-host.log")"
"$G" $L -q --root "$tmp/fwpath" -o - >"$tmp/fwpath.yaml" || die "fwpath: cdi-generate failed"
grep -q 'containerPath: /opt/nvidia/firmware/nvidia/550.54.15/gsp_ga10x.bin$' "$tmp/fwpath.yaml" ||
	die "firmware_class.path: its gsp_ga10x.bin is not mounted"
ok "firmware from firmware_class.path"

# ---------------------------------------------------------------- big64: linear, complete
"$G" $L -q --root "$tmp/big64" --output "$tmp/big64.yaml" || die "big64: cdi-generate failed"
keep "$tmp/big64.yaml"
n=$(grep -c '^- name: ' "$tmp/big64.yaml")
[ "$n" -eq $((64 * 7 * 2 + 2)) ] || die "big64: $n devices, want $((64 * 7 * 2 + 2))"
grep -q '^- name: "63:6"$' "$tmp/big64.yaml" || die "big64: no 63:6"
ok "big64: 898 devices"

# ---------------------------------------------------------------- determinism
for t in dgx-mig big64; do
	"$G" $L -q --root "$tmp/$t" --output - >"$tmp/$t.again" || die "$t: second run failed"
	if [ "$t" = big64 ]; then cmp -s "$tmp/big64.yaml" "$tmp/$t.again"; else cmp -s "$tmp/$t.yaml" "$tmp/$t.again"; fi ||
		die "$t: two runs on the same host differ"
done
ok "same host, same bytes"

# ---------------------------------------------------------------- --output FILE, facts, no rewrite, --check
spec=$tmp/etc/cdi/nvidia.yaml
facts=$spec.cdikit
"$G" $L --root "$tmp/dgx-mig" --check --output "$spec" >"$tmp/check.out"
rc=$?
[ $rc -eq 1 ] || die "--check on a missing file: exit $rc"
grep -q 'does not exist' "$tmp/check.out" || die "--check missing: $(cat "$tmp/check.out")"
[ -e "$spec" ] && die "--check wrote the file"
[ -e "$tmp/etc" ] && die "--check created the directory"

"$G" $L --root "$tmp/dgx-mig" --output "$spec" 2>"$tmp/err" || die "write to $spec failed: $(cat "$tmp/err")"
[ "$(cat "$tmp/err")" = "cdi-generate: wrote $spec and its facts file: 34 devices, 31 device nodes, 210 mounts" ] ||
	die "summary: $(cat "$tmp/err")"
cmp -s "$spec" "$tmp/dgx-mig.yaml" || die "--output FILE differs from --output -"
for f in "$spec" "$facts" "$spec.cdikit-cache"; do
	[ "$(stat -c '%a %u' "$f")" = "644 0" ] || die "$f: mode/owner $(stat -c '%a %u' "$f"), want 644 0"
done
ls -A "$tmp/etc/cdi" | grep -qvE '^nvidia\.yaml(\.cdikit|\.cdikit-cache)?$' && die "left-over files in $tmp/etc/cdi: $(ls -A "$tmp/etc/cdi")"
# The facts file (FACTS.md): GPUs with the spec's names, driver facts, capabilities.
jq -e --arg v 550.54.15 '
	.cdikitFacts == 1 and .kind == "nvidia.com/gpu" and .driver.version == $v and .driver.cuda == "12.4"
	and (.gpus | length) == 8
	and .gpus[0].devices == ["0", .gpus[0].uuid] and .gpus[0].brand == "Unknown" and .gpus[0].arch == "8.0"
	and .gpus[0].busId == "0000:07:00.0" and .gpus[0].model == "NVIDIA A100-SXM4-40GB"
	and .gpus[2].mig and .gpus[2].devices == [] and (.gpus[2].migDevices | length) == 7
	and .gpus[2].migDevices[0].index == "2:0" and .gpus[2].migDevices[0].gi == 7
	and .gpus[2].migDevices[0].devices == ["2:0", .gpus[2].migDevices[0].uuid]
	and .capabilities["/usr/lib/x86_64-linux-gnu/libcuda.so.1"] == "compute"
	and .capabilities["/usr/lib/i386-linux-gnu/libcuda.so.1"] == "compute/32"
	and .capabilities["/usr/bin/nvidia-smi"] == "utility"
	and .capabilities["/dev/nvidia-uvm"] == "compute"
	and .capabilities["/dev/nvidia-modeset"] == "display"
	and .capabilities["/usr/lib/x86_64-linux-gnu/libnvidia-encode.so.1"] == "video"
	and .capabilities["/usr/lib/x86_64-linux-gnu/libGLX_nvidia.so.0"] == "graphics"
	and .capabilities["/usr/lib/x86_64-linux-gnu/libnvidia-ngx.so.550.54.15"] == "ngx"
	and (.capabilities | has("/dev/nvidiactl") | not)' "$facts" >/dev/null ||
	die "facts file: $(head -c 600 "$facts")"
# Every capability key is a containerPath or node path of the spec.
python3 - "$spec" "$facts" <<'PY' || die "facts name paths the spec does not have"
import json, sys, yaml
spec = yaml.safe_load(open(sys.argv[1])); facts = json.load(open(sys.argv[2]))
paths = {m["containerPath"] for m in spec["containerEdits"]["mounts"]}
for e in [spec["containerEdits"]] + [d["containerEdits"] for d in spec["devices"]]:
    paths |= {n["path"] for n in e.get("deviceNodes", [])}
extra = set(facts["capabilities"]) - paths
assert not extra, extra
names = {d["name"] for d in spec["devices"]}
for g in facts["gpus"]:
    for n in g["devices"] + [n for m in g.get("migDevices", []) for n in m["devices"]]:
        assert n in names, n
PY
before=$(stat -c '%i %.Y' "$spec" "$facts")
sleep 0.02
"$G" $L --root "$tmp/dgx-mig" --output "$spec" 2>"$tmp/err" || die "rerun failed: $(cat "$tmp/err")"
[ "$(stat -c '%i %.Y' "$spec" "$facts")" = "$before" ] || die "an unchanged spec or facts file was rewritten"
grep -q "^cdi-generate: $spec and its facts file are up to date: 34 devices" "$tmp/err" || die "rerun said: $(cat "$tmp/err")"
ok "written 0644 atomically with its facts file, not rewritten when unchanged"

"$G" $L --root "$tmp/dgx-mig" --check --output "$spec" >"$tmp/check.out" || die "--check fresh: $(cat "$tmp/check.out")"
grep -q 'up to date' "$tmp/check.out" || die "--check fresh: $(cat "$tmp/check.out")"
[ "$(wc -l <"$tmp/check.out")" -eq 1 ] || die "--check: more than one line"
"$G" $L --root "$tmp/dgx-mig" --check --output "$spec" >/dev/full 2>/dev/null && die "--check >/dev/full exits 0"

conf=$tmp/dgx-mig/usr/lib/x86_64-linux-gnu/mock-nvml.conf
cp "$conf" "$tmp/conf.orig"
grep -v '^gpu 7 ' "$tmp/conf.orig" >"$conf" # GPU 7 gone (or fell off the bus)
"$G" $L --root "$tmp/dgx-mig" --check --output "$spec" >"$tmp/check.out"
rc=$?
[ $rc -eq 1 ] || die "--check after removing a GPU: exit $rc"
grep -q 'stale: devices added: 0, removed: 2 (' "$tmp/check.out" || die "--check reason: $(cat "$tmp/check.out")"
grep -q '"\?7"\?' "$tmp/check.out" || die "--check does not name device 7: $(cat "$tmp/check.out")"
[ "$(stat -c '%i %.Y' "$spec" "$facts")" = "$before" ] || die "--check touched the files"

grep -v 'uuid=MIG-6fb165d3' "$tmp/conf.orig" >"$conf" # a MIG device destroyed
"$G" $L --root "$tmp/dgx-mig" --check --output "$spec" >"$tmp/check.out"
[ $? -eq 1 ] || die "--check after a MIG reconfiguration: not stale"
grep -q 'MIG-6fb165d3' "$tmp/check.out" || die "--check reason: $(cat "$tmp/check.out")"
cp "$tmp/conf.orig" "$conf"

# The spec is current but its facts are not (another brand): stale, and the reason says which.
cp "$facts" "$tmp/facts.orig"
sed -i 's/"Unknown"/"Tesla"/' "$facts"
"$G" $L --root "$tmp/dgx-mig" --check --output "$spec" >"$tmp/check.out"
[ $? -eq 1 ] || die "--check with stale facts: not stale"
grep -q "stale: $facts is out of date" "$tmp/check.out" || die "--check reason: $(cat "$tmp/check.out")"
rm "$facts"
"$G" $L --root "$tmp/dgx-mig" --check --output "$spec" >"$tmp/check.out"
[ $? -eq 1 ] || die "--check without facts: not stale"
grep -q "stale: $facts does not exist" "$tmp/check.out" || die "--check reason: $(cat "$tmp/check.out")"
"$G" $L --root "$tmp/dgx-mig" --check --no-facts --output "$spec" >/dev/null || die "--check --no-facts looks at the facts"
cp "$tmp/facts.orig" "$facts"

sed 's/550\.54\.15/535.104.05/g' "$tmp/dgx-mig.yaml" >"$spec" # a spec written by the old driver
"$G" $L --root "$tmp/dgx-mig" --check --output "$spec" >"$tmp/check.out"
[ $? -eq 1 ] || die "--check after a driver upgrade: not stale"
grep -q 'common containerEdits changed' "$tmp/check.out" || die "--check reason: $(cat "$tmp/check.out")"
"$G" $L -q --root "$tmp/dgx-mig" --output "$spec" || die "rewrite failed"
cmp -s "$spec" "$tmp/dgx-mig.yaml" || die "the stale spec was not replaced"
[ "$(stat -c '%i' "$spec")" != "$(cut -d' ' -f1 <<<"$before")" ] || die "replaced in place instead of renamed"
ok "--check: fresh 0; missing, GPU removed, MIG reconfigured, facts stale or missing, driver upgraded 1 with a reason"

# The kernel module and the libraries disagree: a driver upgraded without a reboot.
ver=$tmp/dgx-mig/proc/driver/nvidia/version
cp "$ver" "$tmp/version.orig"
sed -i 's/550\.54\.15/555.42.02/' "$ver"
if "$G" $L --root "$tmp/dgx-mig" --output - >/dev/null 2>"$tmp/err"; then die "version mismatch not detected"; fi
grep -q '^cdi-generate: .*550\.54\.15.*555\.42\.02' "$tmp/err" || die "mismatch message: $(cat "$tmp/err")"
cp "$tmp/version.orig" "$ver"
ok "NVML/kernel version mismatch is an error naming both"

# A MIG cap node that is not there is an error by default, written with a warning on request.
cap=$(grep -o 'nvidia-cap[0-9]\+' "$tmp/dgx-mig.yaml" | head -1)
mv "$tmp/dgx-mig/dev/nvidia-caps/$cap" "$tmp/cap.saved"
if "$G" $L --root "$tmp/dgx-mig" --output - >/dev/null 2>"$tmp/err"; then die "missing $cap not detected"; fi
grep -q "^cdi-generate: $tmp/dgx-mig/dev/nvidia-caps/$cap: No such file" "$tmp/err" || die "missing cap: $(cat "$tmp/err")"
"$G" $L --root "$tmp/dgx-mig" --allow-missing-caps --output - >"$tmp/allow.yaml" 2>"$tmp/err" || die "--allow-missing-caps failed"
grep -q "warning: .*$cap" "$tmp/err" || die "no warning for the missing cap"
cmp -s "$tmp/allow.yaml" "$tmp/dgx-mig.yaml" || die "--allow-missing-caps changed the spec"
mv "$tmp/cap.saved" "$tmp/dgx-mig/dev/nvidia-caps/$cap"
ok "missing cap node: error, or a warning with --allow-missing-caps"

# A control node the driver makes on first use, not there yet: never a silent spec without it.
host h single
for node in nvidia-uvm nvidiactl; do
	mv "$tmp/h/dev/$node" "$tmp/node.saved"
	for mode in nvml procfs management; do
		"$G" $L --root "$tmp/h" --mode "$mode" -o - >/dev/null 2>"$tmp/err" && die "$mode: missing /dev/$node passed"
		grep -q "^cdi-generate: $tmp/h/dev/$node: No such file or directory .*--create-device-nodes.*--allow-missing-nodes" "$tmp/err" ||
			die "$mode, missing $node: $(cat "$tmp/err")"
	done
	"$G" $L --root "$tmp/h" --allow-missing-nodes -o - 2>"$tmp/err" | grep -q "path: /dev/$node$" ||
		die "--allow-missing-nodes: /dev/$node not in the spec"
	grep -q "warning: $tmp/h/dev/$node" "$tmp/err" || die "--allow-missing-nodes: no warning for $node"
	mv "$tmp/node.saved" "$tmp/h/dev/$node"
done
ok "a missing nvidia-uvm or nvidiactl is an error naming the node and the options (nvml, procfs, management)"

# /dev elsewhere (--dev-root): node hostPaths follow it, the driver's files do not.
mkdir -p "$tmp/devroot" && cp -a "$tmp/dgx-mig/dev" "$tmp/devroot/" || die "copying /dev"
"$G" $L -q --root "$tmp/dgx-mig" --dev-root "$tmp/devroot" --output - >"$tmp/split.yaml" || die "--dev-root failed"
keep "$tmp/split.yaml"
sed "s|$tmp/devroot/dev/|$tmp/dgx-mig/dev/|" "$tmp/split.yaml" | cmp -s - "$tmp/dgx-mig.yaml" ||
	die "--dev-root: the spec differs in more than the nodes' hostPath"
grep -q "hostPath: $tmp/devroot/dev/nvidia-caps/" "$tmp/split.yaml" || die "--dev-root: cap nodes not under it"
ok "--dev-root moves the nodes' hostPath only"

# ---------------------------------------------------------------- hostile roots
# Device nodes are looked at inside the root: a link out of it or a file is not a node.
host h single
rm "$tmp/h/dev/nvidia0" && ln -s /dev/null "$tmp/h/dev/nvidia0"
"$G" $L --root "$tmp/h" --with-device-numbers -o - >"$tmp/h.yaml" 2>"$tmp/err" && die "ROOT/dev/nvidia0 -> /dev/null accepted"
grep -q "^cdi-generate: $tmp/h/dev/nvidia0: is a symbolic link (to /dev/null), not a device node" "$tmp/err" ||
	die "linked node: $(cat "$tmp/err")"
rm "$tmp/h/dev/nvidia0" && echo not-a-node >"$tmp/h/dev/nvidia0"
"$G" $L --root "$tmp/h" -o - >/dev/null 2>"$tmp/err" && die "a regular file as ROOT/dev/nvidia0 accepted"
grep -q "^cdi-generate: $tmp/h/dev/nvidia0: not a character device" "$tmp/err" || die "file node: $(cat "$tmp/err")"
ok "a link or a file where a device node should be is an error naming it"

# A FIFO where a host file should be: a line naming it, never a hang.
for f in etc/ld.so.cache proc/driver/nvidia/version proc/devices proc/driver/nvidia-caps/mig-minors \
	proc/driver/nvidia/gpus/0000:07:00.0/information; do
	host h dgx-mig
	rm "$tmp/h/$f" && mkfifo "$tmp/h/$f" || die "mkfifo $f"
	mode=auto
	case $f in */gpus/*) mode=procfs ;; esac # NVML names the GPUs otherwise
	timeout 20 "$G" $L --root "$tmp/h" --mode "$mode" -o - >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 124 ] && die "a FIFO at ROOT/$f hangs cdi-generate"
	[ $rc -eq 1 ] || die "a FIFO at ROOT/$f: exit $rc"
	grep -q "^cdi-generate: $tmp/h/$f: is a FIFO, not a regular file" "$tmp/err" || die "FIFO $f: $(cat "$tmp/err")"
done
ok "a FIFO at ld.so.cache, /proc files: one line naming it, no hang"

# An empty or corrupt ld.so.cache: one warning naming it, then the spec of a host without one.
host h single
rm "$tmp/h/etc/ld.so.cache"
"$G" $L -q --root "$tmp/h" -o - >"$tmp/nocache.yaml" || die "no ld.so.cache: failed"
for damage in "truncate -s 0" "truncate -s 100" "truncate -s 65M" "dd if=/dev/urandom bs=1k count=4 status=none of="; do
	cp "$tmp/single/etc/ld.so.cache" "$tmp/h/etc/ld.so.cache"
	case $damage in *of=) $damage"$tmp/h/etc/ld.so.cache" ;; *) $damage "$tmp/h/etc/ld.so.cache" ;; esac
	"$G" $L --root "$tmp/h" -o - >"$tmp/h.yaml" 2>"$tmp/err" || die "$damage ld.so.cache: $(cat "$tmp/err")"
	[ "$(grep -c warning "$tmp/err")" -eq 1 ] || die "$damage: not one warning: $(cat "$tmp/err")"
	grep -q "^cdi-generate: warning: $tmp/h/etc/ld.so.cache: .*; searching the standard library directories instead" "$tmp/err" ||
		die "$damage: $(cat "$tmp/err")"
	sed "s|$tmp/h/|$tmp/single/|" "$tmp/h.yaml" | cmp -s - "$tmp/single.yaml" ||
		die "$damage: the spec is not the complete one"
	cmp -s "$tmp/h.yaml" "$tmp/nocache.yaml" || die "$damage: not the same fallback as a missing cache"
done
ok "an empty or corrupt ld.so.cache: one warning, the same complete spec"

# An ld.so.cache of 80,000 entries naming driver libraries in as many directories: linear
# (minutes before, well under a second now; the budget is in make bench).
host h single
python3 tests/lib/ldcache-flood.py "$tmp/h/etc/ld.so.cache" 80000 || die "writing the big cache"
timeout 60 "$G" $L -q --root "$tmp/h" -o - >"$tmp/h.yaml" || die "80,000-entry ld.so.cache: failed or took over 60 s"
sed "s|$tmp/h/|$tmp/single/|" "$tmp/h.yaml" | cmp -s - "$tmp/single.yaml" || die "80,000-entry cache: another spec"
ok "an ld.so.cache of 80,000 entries"

# No driver: said so, in every mode that needs one.
host h single
rm -rf "$tmp/h/proc/driver/nvidia"
for mode in auto nvml procfs management; do
	"$G" $L --root "$tmp/h" --mode "$mode" -o - >/dev/null 2>"$tmp/err" && die "$mode: no driver, exit 0"
	[ "$(cat "$tmp/err")" = "cdi-generate: no NVIDIA driver found: $tmp/h/proc/driver/nvidia is missing" ] ||
		die "$mode without a driver: $(cat "$tmp/err")"
done
ok "no driver: one line saying so"

# ---------------------------------------------------------------- hostile output directories
w=$tmp/w
mkdir -p "$w"
# Never write through what is not a regular file (rename would swap out a device node or link).
mknod "$w/fake-null" c 1 3 && ln -s "$tmp/single.yaml" "$w/link.yaml" && ln -s "$w/nowhere" "$w/dangling.yaml" &&
	mkfifo "$w/fifo.yaml" || die "mknod/ln/mkfifo"
for target in "$w/fake-null" "$w/link.yaml" "$w/dangling.yaml" "$w/fifo.yaml"; do
	timeout 20 "$G" $L --root "$tmp/single" --output "$target" 2>"$tmp/err" && die "--output $target accepted"
	case $target in
	*link.yaml | *dangling.yaml) grep -q "^cdi-generate: $target: is a symbolic link; refusing to write through it" "$tmp/err" ;;
	*) grep -q "^cdi-generate: $target: exists and is not a regular file; refusing" "$tmp/err" ;;
	esac || die "--output $target: $(cat "$tmp/err")"
done
[ -c "$w/fake-null" ] && [ -L "$w/link.yaml" ] && [ -L "$w/dangling.yaml" ] && [ -p "$w/fifo.yaml" ] ||
	die "a non-regular --output was replaced"
[ -e "$w/nowhere" ] && die "written through a dangling link"
ls -A "$w" | grep -q cdikit && die "a facts file was written beside a refused spec"
cmp -s "$tmp/single.yaml" "$tmp/out/1-single.yaml" || die "the link's target was changed"
# --check only reads: through a symlink it judges the file the link names.
"$G" $L -q --root "$tmp/single" --output "$w/real.yaml" || die "writing $w/real.yaml"
ln -s real.yaml "$w/real-link.yaml" && ln -s real.yaml.cdikit "$w/real-link.yaml.cdikit"
"$G" $L --root "$tmp/single" --output "$w/real-link.yaml" --check >"$tmp/check-link.log" 2>&1 ||
	die "--check through a symlink: $(cat "$tmp/check-link.log")"
ok "links, devices, FIFOs as --output refused with a clear line; --check reads through a link"

# Owner and mode are set on the temp file's fd: a setgid directory's group does not leak in.
mkdir "$w/sgid" && chgrp users "$w/sgid" && chmod 2775 "$w/sgid" || die "setgid dir"
"$G" $L -q --root "$tmp/single" --output "$w/sgid/nvidia.yaml" || die "writing into a setgid dir"
for f in "$w/sgid/nvidia.yaml" "$w/sgid/nvidia.yaml.cdikit"; do
	[ "$(stat -c '%u:%g %a' "$f")" = "0:0 644" ] || die "$f is $(stat -c '%u:%g %a' "$f"), want 0:0 644"
done
# An insecure spec (user-owned 0666) with the right content: --check says so, a run replaces it.
chown nobody "$w/sgid/nvidia.yaml" && chmod 666 "$w/sgid/nvidia.yaml"
"$G" $L --root "$tmp/single" --output "$w/sgid/nvidia.yaml" --check >"$tmp/check.out"
[ $? -eq 1 ] || die "--check calls an insecure spec up to date"
grep -q "is stale: it is insecure: owned by uid $(id -u nobody) with mode 0666" "$tmp/check.out" || die "insecure: $(cat "$tmp/check.out")"
"$G" $L -q --root "$tmp/single" --output "$w/sgid/nvidia.yaml" || die "replacing the insecure spec"
[ "$(stat -c '%u %a' "$w/sgid/nvidia.yaml")" = "0 644" ] || die "the insecure spec was kept: $(stat -c '%u %a' "$w/sgid/nvidia.yaml")"
"$G" $L --root "$tmp/single" --output "$w/sgid/nvidia.yaml" --check >/dev/null || die "--check after the fix"
ok "owner and mode set on the fd; an insecure spec is replaced and --check says insecure"

# Directories it creates are 0755 whatever the umask; nothing of a failed run stays behind.
(umask 077 && "$G" $L -q --root "$tmp/single" --output "$w/new/a/b/nvidia.yaml") || die "into new dirs"
for d in "$w/new" "$w/new/a" "$w/new/a/b"; do
	[ "$(stat -c %a "$d")" = 755 ] || die "$d is $(stat -c %a "$d") under umask 077"
done
"$G" $L --root "$tmp/single" --output "$w/newdir/" 2>"$tmp/err" && die "--output newdir/ accepted"
grep -q "names a directory, not a file" "$tmp/err" || die "--output newdir/: $(cat "$tmp/err")"
[ -e "$w/newdir" ] && die "--output newdir/ left newdir behind"
"$G" $L --root "$tmp/no-such-host" --output "$w/newer/x.yaml" 2>/dev/null && die "--root missing accepted"
[ -e "$w/newer" ] && die "a failed run left its directory"
ok "created directories 0755 under umask 077; --output newdir/ fails without leaving it"

# Two runs into one directory take turns (a lock): every reader sees a whole spec, no temp file
# is left, and one left by a killed run is removed.
cd2=$w/concurrent
mkdir -p "$cd2" && touch "$cd2/.nvidia.yaml.AbC123.tmp" "$cd2/.other.yaml.AbC123.tmp"
"$G" $L -q --root "$tmp/single" --output "$cd2/nvidia.yaml" || die "first write"
[ -e "$cd2/.nvidia.yaml.AbC123.tmp" ] && die "a temp file of a killed run was not removed"
[ -e "$cd2/.other.yaml.AbC123.tmp" ] || die "another spec's temp file was removed"
rm "$cd2/.other.yaml.AbC123.tmp"
(
	for i in $(seq 40); do
		"$G" $L -q --root "$tmp/single" --output "$cd2/nvidia.yaml" &
		"$G" $L -q --root "$tmp/dgx-mig" --output "$cd2/nvidia.yaml" &
		wait
	done
) &
writers=$!
reads=0 torn=0
while kill -0 "$writers" 2>/dev/null; do
	cat "$cd2/nvidia.yaml" >"$tmp/read.yaml" 2>/dev/null || continue
	reads=$((reads + 1))
	cmp -s "$tmp/read.yaml" "$tmp/single.yaml" || cmp -s "$tmp/read.yaml" "$tmp/dgx-mig.yaml" || torn=$((torn + 1))
done
wait "$writers"
[ "$torn" -eq 0 ] || die "$torn of $reads reads saw a spec that is neither whole one"
[ "$reads" -gt 0 ] || die "the reader never read"
[ "$(ls -A "$cd2" | tr '\n' ' ')" = "nvidia.yaml nvidia.yaml.cdikit nvidia.yaml.cdikit-cache " ] || die "left in the directory: $(ls -A "$cd2")"
ok "80 concurrent runs into one directory: $reads reads, all whole; no temp file left"

# ---------------------------------------------------------------- formats, options, habits
"$G" $L -q --root "$tmp/dgx-mig" --output - --format json >"$tmp/dgx-mig.json" || die "--format json failed"
keep "$tmp/dgx-mig.json"
jq -e . "$tmp/dgx-mig.json" >/dev/null || die "--format json is not JSON"
python3 -c 'import json,sys,yaml; a=yaml.safe_load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); sys.exit(a!=b)' \
	"$tmp/dgx-mig.yaml" "$tmp/dgx-mig.json" || die "JSON and YAML outputs hold different specs"
"$G" $L -q --root "$tmp/single" -o "$tmp/etc/cdi/nvidia.json" || die "-o .json failed"
jq -e . "$tmp/etc/cdi/nvidia.json" >/dev/null || die "*.json output is not JSON"
keep "$tmp/etc/cdi/nvidia.json"
"$G" $L -q --root "$tmp/dgx-mig" --output - --with-device-numbers --no-all-device --vendor example.com \
	--class device >"$tmp/numbers.yaml" || die "--with-device-numbers failed"
keep "$tmp/numbers.yaml"
grep -q '^kind: example.com/device$' "$tmp/numbers.yaml" || die "--vendor/--class ignored"
grep -qE 'name: (all|none)' "$tmp/numbers.yaml" && die "--no-all-device ignored"
grep -q 'major: 508' "$tmp/numbers.yaml" || die "--with-device-numbers: no uvm major 508"
"$G" $L -q --root "$tmp/dgx-mig" --output - --device-id none >"$tmp/none.yaml" || die "--device-id none failed"
keep "$tmp/none.yaml"
[ "$(sed -n 's/^- name: //p' "$tmp/none.yaml" | tr '\n' ' ')" = "none " ] || die "--device-id none: $(grep 'name:' "$tmp/none.yaml")"
"$G" $L --root "$tmp/dgx-mig" --output - --device-id 99 >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] || die "--device-id 99: exit status"
grep -q '^cdi-generate: --device-id: 99: no such GPU or MIG device$' "$tmp/err" || die "--device-id 99: $(cat "$tmp/err")"
# An absolute --root is cleaned lexically: hostPaths carry no "//" or "/./".
"$G" $L --root "/$tmp/./single/" --output - 2>/dev/null | grep 'hostPath:' | grep -q '//\|/\./' &&
	die "--root //.../ left unclean hostPaths"
"$G" $L --mode nvml --root "$tmp/no-nvml" --output - >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] || die "--mode nvml without NVML must fail"
# Roots: an empty one names its option (usage, exit 2); a missing one is an error.
for opt in root driver-root dev-root; do
	"$G" $L "--$opt" '' -o - >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] || die "--$opt '': exit $rc"
	grep -q "^cdi-generate: --$opt: the path is empty$" "$tmp/err" || die "--$opt '': $(cat "$tmp/err")"
done
"$G" $L --root "$tmp/no-such-host" -o - >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] || die "--root on a missing path: not an error"
grep -q "^cdi-generate: --root $tmp/no-such-host: No such file or directory$" "$tmp/err" || die "missing root: $(cat "$tmp/err")"
# The habits every cdikit program shares.
"$G" $L --bogus >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || die "usage error: exit status not 2"
grep -q "Try 'cdi-generate --help'" "$tmp/err" || die "usage error: no hint"
"$G" $L --help | grep -q -- '--device-name-strategy' || die "--help"
"$G" $L --help >/dev/full 2>/dev/null && die "--help >/dev/full exits 0"
[ "$("$G" $L --version)" = "cdi-generate (cdikit) $VERSION" ] || die "--version: $("$G" $L --version)"
"$G" $L --version >/dev/full 2>/dev/null && die "--version >/dev/full exits 0"
"$G" $L --root "$tmp/single" -o - >/dev/full 2>"$tmp/err" && die "-o - >/dev/full exits 0"
ok "json, --with-device-numbers, --vendor/--class, --device-id none, roots, errors and usage"

# ---------------------------------------------------------------- validators
outs=("$tmp"/out/*)
if [ -x "$B/cdi-apply" ]; then
	"$B/cdi-apply" --validate "${outs[@]}" >"$tmp/validate.out" 2>&1 || die "cdi-apply --validate: $(cat "$tmp/validate.out")"
	ok "cdi-apply --validate accepts all ${#outs[@]} outputs"
	news=("$tmp"/out-new/*)
	[ -e "${news[0]}" ] || die "no output needs a newer cdiVersion (the workstation spec should)"
	"$B/cdi-apply" --validate "${news[@]}" >"$tmp/validate.out" 2>&1 ||
		die "cdi-apply --validate: $(cat "$tmp/validate.out")"
	ok "cdi-apply --validate accepts the ${#news[@]} outputs newer than podman 4.3 and the reference v0.5.2 know"
else
	echo "note: $B/cdi-apply not built; its validation was not run"
fi

if command -v go >/dev/null 2>&1 && [ -f "$SCHEMA_DIR/schema.json" ]; then
	mkdir -p "$B/tests"
	GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE=$B/gocache GOFLAGS= \
		go build -o "$B/tests/cdi-schema-check" tests/reference/schema-check.go >"$tmp/go.log" 2>&1 ||
		die "building tests/reference/schema-check.go: $(tail -n 5 "$tmp/go.log")"
	"$B/tests/cdi-schema-check" "$SCHEMA_DIR/schema.json" "${outs[@]}" >"$tmp/schema.out" 2>&1 ||
		die "CDI JSON schema: $(grep -v 'OK$' "$tmp/schema.out" | head -n 5)"
	# The checker must be able to say no.
	printf 'cdiVersion: 0.5.0\nkind: a.com/b\ndevices:\n- name: x\n  containerEdits:\n    deviceNodes:\n    - hostPath: /dev/x\n' >"$tmp/bad.yaml"
	"$B/tests/cdi-schema-check" "$SCHEMA_DIR/schema.json" "$tmp/bad.yaml" >/dev/null 2>&1 &&
		die "the schema check accepts a device node without path"
	ok "the CDI JSON schema accepts all ${#outs[@]} outputs"
	# And the reference library itself (Debian's v0.5.2, as podman 4.x vendors it) loads them.
	GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE=$B/gocache GOFLAGS= \
		go build -o "$B/tests/cdi-ref-validate" tests/reference/validate.go >"$tmp/go.log" 2>&1 ||
		die "building tests/reference/validate.go: $(tail -n 5 "$tmp/go.log")"
	"$B/tests/cdi-ref-validate" "${outs[@]}" >"$tmp/ref.out" 2>&1
	! grep -qv '	OK$' "$tmp/ref.out" || die "the reference rejects: $(grep -v '	OK$' "$tmp/ref.out" | head -n 3)"
	[ "$(grep -c '	OK$' "$tmp/ref.out")" -eq "${#outs[@]}" ] || die "the reference did not judge every output"
	ok "the reference library (v0.5.2) loads all ${#outs[@]} outputs"
else
	echo "note: go or the Debian CDI schema package missing; JSON schema check not run"
fi

# ---------------------------------------------------------------- podman
# podman 4.3 always reads /etc/cdi: tests/lib/podman-cdi.sh gives it a private one.
podman_check() { # spec "names..." label
	local spec=$1 names=$2 label=$3
	echo "$spec nvidia.com/gpu $names $(sed -n 's/^- name: \([GM][A-Z]*-.*\)/\1/p' "$spec" | sed -n '1p;$p' | tr '\n' ' ')" >"$tmp/podman-$label.list"
	mkdir -p "$tmp/podman-$label"
	podman_cdi_expect "$tmp/podman-$label" "$tmp/podman-$label.list" "the $label spec"
}
etc_before=$(ls -la --time-style=full-iso /etc/cdi 2>&1)
podman_check "$tmp/dgx-mig.yaml" "0 7 2:0 5:2 none all" dgx-mig
# The workstation's 0.7.0 spec is beyond podman 4.3 (cdi-apply --validate judged it above); its
# --no-additional-gids twin is what such a host gives podman: DRI nodes and by-path names.
podman_check "$tmp/workstation-no-gids.yaml" "0 1 all" workstation-no-gids
[ "$(ls -la --time-style=full-iso /etc/cdi 2>&1)" = "$etc_before" ] || die "the machine's /etc/cdi changed"

echo "PASS: generate"
