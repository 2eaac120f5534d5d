#!/usr/bin/env bash
# cdi-generate's boot steps on simulated hosts (tests/simhost/make-host --modules): with
# --load-modules and --create-device-nodes it loads the NVIDIA modules through libkmod and makes
# the device nodes the driver leaves missing, before discovery, also under --check:
#   - --dry-run says what it would insert (the modules tree's .ko files, modprobe.d options) and
#     which nodes it would make, and changes nothing: no node, no spec;
#   - --create-device-nodes makes /dev/nvidia-uvm, -uvm-tools and nvidiactl inside --root with
#     the majors of its /proc/devices, then the spec has them; a second run changes nothing;
#   - modules already live (built into the kernel: modules.builtin) need nothing loaded;
#   - --modules-dir is the tree libkmod reads; options that make no sense alone are refused.
# Nothing is ever inserted into this machine's kernel: module loading runs as a dry run, or
# against modules the tree lists as built in (live, so libkmod has nothing to insert).
# shellcheck source=lib/suite.sh
. "$(dirname "$0")/lib/suite.sh"
# shellcheck source=lib/modules-live.sh
. tests/lib/modules-live.sh

[ "$(id -u)" -eq 0 ] || skip "needs root (the simulated hosts have real device nodes)"
G=$B/cdi-generate
[ -x "$G" ] || die "$G not built"
MOCK=$B/tests/mock-nvml
[ -f "$MOCK/libnvidia-ml.so.1" ] || die "mock NVML not built ($MOCK; make check builds the fixtures)"
tmp=$(mktemp -d /tmp/cdikit-boot.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# host NAME make-host-options...: a simulated host at $tmp/NAME.
host() {
	local name=$1
	shift
	tests/simhost/make-host --mock-dir "$MOCK" --out "$tmp/$name" "$@" >"$tmp/make-host.log" 2>&1 ||
		die "make-host $*: $(tail -n 3 "$tmp/make-host.log")"
}
# gen OUT-NAME args...: cdi-generate, its stderr and stdout in $tmp/OUT-NAME.{err,out}; sets rc.
gen() {
	local out=$1
	shift
	"$G" "$@" >"$tmp/$out.out" 2>"$tmp/$out.err"
	rc=$?
}
# What a dev tree holds: names, types, numbers, modes, owners, times.
dev_state() { (cd "$1/dev" && find . -printf '%p %y %M %U:%G %T@ ' -exec stat -c '%t:%T' {} \; | sort); }

host h --topology single --modules --no-uvm-nodes --no-ctl-node
[ -e "$tmp/h/.simhost-no-depmod" ] && skip "no depmod (Debian package kmod): libkmod needs modules.dep.bin"
[ -e "$tmp/h/.simhost-no-devnodes" ] && skip "make-host could not make device nodes"
release=$(cat "$tmp/h/proc/sys/kernel/osrelease")
mods=$tmp/h/lib/modules/$release/kernel/drivers/video

# Options that need another.
for bad in "--dry-run" "--dry-run --load-modules --check" "--modules-dir $tmp"; do
	# shellcheck disable=SC2086
	gen usage --root "$tmp/h" $bad -o "$tmp/u.yaml"
	[ "$rc" -eq 2 ] && [ ! -e "$tmp/u.yaml" ] || die "$bad: exit $rc (want 2): $(cat "$tmp/usage.err")"
done
ok "--dry-run needs a boot step and no --check; --modules-dir needs --load-modules"

# A dry run: every step said, nothing changed.
before=$(dev_state "$tmp/h")
gen dry --root "$tmp/h" --load-modules --create-device-nodes --dry-run -o "$tmp/h.yaml"
[ "$rc" -eq 0 ] || die "--dry-run: exit $rc: $(cat "$tmp/dry.err")"
for want in "nvidia: would insert $mods/nvidia.ko" "nvidia_uvm: would insert $mods/nvidia-uvm.ko" \
	"nvidia_modeset: would insert $mods/nvidia-modeset.ko" \
	"$tmp/h/dev/nvidiactl: would be created (c 195:255, 0666, 0:0)" \
	"$tmp/h/dev/nvidia-uvm: would be created (c 508:0, 0666, 0:0)" \
	"$tmp/h/dev/nvidia-uvm-tools: would be created (c 508:1, 0666, 0:0)"; do
	grep -qxF "cdi-generate: $want" "$tmp/dry.err" || die "--dry-run does not say \"$want\": $(cat "$tmp/dry.err")"
done
! grep -q 'nvidia0\|present' "$tmp/dry.err" || die "--dry-run names nodes that need nothing: $(cat "$tmp/dry.err")"
[ "$(dev_state "$tmp/h")" = "$before" ] || die "--dry-run changed $tmp/h/dev"
[ ! -e "$tmp/h.yaml" ] && [ ! -s "$tmp/dry.out" ] || die "--dry-run wrote a spec"
gen dry-v --root "$tmp/h" --create-device-nodes --dry-run -v
grep -qxF "cdi-generate: $tmp/h/dev/nvidia0: present (c 195:0, 0666, 0:0)" "$tmp/dry-v.err" ||
	die "-v does not say what is already right: $(cat "$tmp/dry-v.err")"
ok "--dry-run says what it would insert and make, and changes nothing"

# modprobe.d options show in what would be inserted; --modules-dir is the tree read.
host p --topology single --modules --params DeviceFileGID=44
gen opts --root "$tmp/p" --load-modules --dry-run
grep -qxF "cdi-generate: nvidia: would insert $tmp/p/lib/modules/$release/kernel/drivers/video/nvidia.ko NVreg_DeviceFileGID=44" "$tmp/opts.err" ||
	die "the modprobe.d options are not said: $(cat "$tmp/opts.err")"
gen mdir --root "$tmp/p" --load-modules --dry-run --modules-dir "$tmp/h/lib/modules/$release"
# The tree of --modules-dir, the modprobe.d of the root.
grep -qxF "cdi-generate: nvidia: would insert $mods/nvidia.ko NVreg_DeviceFileGID=44" "$tmp/mdir.err" ||
	die "--modules-dir is not the tree read: $(cat "$tmp/mdir.err")"
gen nodir --root "$tmp/p" --load-modules --dry-run --modules-dir "$tmp/none"
[ "$rc" -eq 1 ] && grep -q "$tmp/none" "$tmp/nodir.err" || die "a missing --modules-dir: exit $rc: $(cat "$tmp/nodir.err")"
ok "modprobe.d options; --modules-dir; a missing modules tree is one error naming it"

# The missing nodes are made inside --root, under --check too, then the spec has them.
gen check --root "$tmp/h" --create-device-nodes --check -o "$tmp/h.yaml"
[ "$rc" -eq 1 ] && grep -q 'is stale: it does not exist' "$tmp/check.out" ||
	die "--check --create-device-nodes: exit $rc: $(cat "$tmp/check.out" "$tmp/check.err")"
for n in nvidiactl:195:255 nvidia-uvm:508:0 nvidia-uvm-tools:508:1; do
	IFS=: read -r name maj min <<<"$n"
	[ "$(stat -c '%F %t:%T %a %U:%G' "$tmp/h/dev/$name")" = "character special file $(printf '%x:%x' "$maj" "$min") 666 root:root" ] ||
		die "$name: $(stat -c '%F %t:%T %a %U:%G' "$tmp/h/dev/$name" 2>&1)"
	grep -qxF "cdi-generate: $tmp/h/dev/$name: created (c $maj:$min, 0666, 0:0)" "$tmp/check.err" ||
		die "$name made without a word: $(cat "$tmp/check.err")"
	[ "$(readlink "$tmp/h/dev/char/$maj:$min")" = "../$name" ] || die "no /dev/char link to $name"
done
gen write --root "$tmp/h" --create-device-nodes -o "$tmp/h.yaml"
[ "$rc" -eq 0 ] && grep -q "path: /dev/nvidia-uvm$" "$tmp/h.yaml" && grep -q "path: /dev/nvidiactl$" "$tmp/h.yaml" ||
	die "the spec lacks the nodes made: exit $rc: $(cat "$tmp/write.err")"
! grep -q 'created' "$tmp/write.err" || die "nodes made twice: $(cat "$tmp/write.err")"
ok "missing nodes made inside --root (also under --check), then in the spec; made once"

# Modules the kernel already has (built in) need nothing: no insert, not even in a dry run.
modules_live "$tmp/h" || die "depmod -b $tmp/h"
gen live-dry --root "$tmp/h" --load-modules --dry-run -v
[ "$rc" -eq 0 ] && ! grep -q 'insert' "$tmp/live-dry.err" &&
	grep -qxF 'cdi-generate: nvidia_uvm: built into the kernel' "$tmp/live-dry.err" ||
	die "live modules, dry run: exit $rc: $(cat "$tmp/live-dry.err")"
gen live --root "$tmp/h" --load-modules --create-device-nodes -o "$tmp/h.yaml"
[ "$rc" -eq 0 ] && grep -q 'are up to date' "$tmp/live.err" && [ "$(grep -c . "$tmp/live.err")" -eq 1 ] ||
	die "live modules: exit $rc: $(cat "$tmp/live.err")"
ok "modules already live: nothing loaded, nothing said but the summary"
echo "PASS: generate-boot"
