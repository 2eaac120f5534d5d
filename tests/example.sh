#!/usr/bin/env bash
# examples/list-devices.c, built as a user would: against the installed library (make install
# into a DESTDIR) with nothing but `pkg-config --cflags --libs libcdi`, then run against
# temporary spec directories: --help, no device (exit 0, says so), the devices of a generated
# spec (the same names as cdi-apply --list, each with its file, a later directory winning), a
# broken spec (a warning, the rest listed), usage errors.
# shellcheck source=lib/suite.sh
. "$(dirname "$0")/lib/suite.sh"

# shellcheck source=lib/install.sh
. tests/lib/install.sh
[ -e "$B/tests/mock-nvml/libnvidia-ml.so.1" ] || die "$B/tests/mock-nvml not built"
tmp=$(mktemp -d /tmp/cdikit-example.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/dest
install_into "$dest"

# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror $sanflags $(pc --cflags libcdi) -o "$tmp/list-devices" \
	examples/list-devices.c $(pc --libs libcdi) || die "cannot build examples/list-devices.c"
run() { LD_LIBRARY_PATH="$dest$libdir" "$tmp/list-devices" "$@" >"$tmp/out" 2>"$tmp/err"; }
LD_LIBRARY_PATH="$dest$libdir" ldd "$tmp/list-devices" | grep -q "libcdi.so.0 => $dest$libdir/" ||
	die "list-devices does not load the installed libcdi.so.0"
ok "built with pkg-config --cflags --libs libcdi alone, runs on the installed libcdi.so.0"

run --help && grep -q '^Usage: list-devices' "$tmp/out" || die "--help: $(cat "$tmp/out" "$tmp/err")"
! LD_LIBRARY_PATH="$dest$libdir" "$tmp/list-devices" --help >/dev/full 2>/dev/null || die "--help >/dev/full succeeds"
run --bogus; [ $? -eq 2 ] || die "an unknown option does not exit 2"
run extra; [ $? -eq 2 ] || die "an argument does not exit 2"

mkdir -p "$tmp/empty" "$tmp/etc" "$tmp/run"
run --spec-dir "$tmp/empty" || die "no device: exit $?"
[ ! -s "$tmp/out" ] && grep -qx "list-devices: no CDI devices in $tmp/empty" "$tmp/err" ||
	die "no device: $(cat "$tmp/out" "$tmp/err")"
ok "--help, usage errors, no device (exit 0, says so)"

tests/simhost/make-host --topology dgx-mig --mock-dir "$B/tests/mock-nvml" --out "$tmp/host" >/dev/null ||
	die "make-host failed"
"$B/cdi-generate" --root "$tmp/host" --output "$tmp/etc/nvidia.yaml" || die "cdi-generate failed"
# The same kind in a later directory: its devices win over the earlier file's.
"$B/cdi-generate" --root "$tmp/host" --device-id 0 --no-all-device --output "$tmp/run/nvidia.yaml" ||
	die "cdi-generate --device-id 0 failed"
printf 'cdiVersion: 0.3.0\nkind: example.com/bad\ndevices:\n- name: x\n  containerEdits:\n    env: [NOEQUALS]\n' \
	>"$tmp/run/bad.yaml"
run --spec-dir "$tmp/etc" --spec-dir "$tmp/run" || die "listing failed: $(cat "$tmp/err")"
cut -f1 "$tmp/out" >"$tmp/names"
"$B/cdi-apply" --spec-dir "$tmp/etc" --spec-dir "$tmp/run" --list 2>/dev/null >"$tmp/want"
[ -s "$tmp/want" ] && cmp -s "$tmp/names" "$tmp/want" ||
	die "names differ from cdi-apply --list: $(diff "$tmp/want" "$tmp/names")"
grep -qxF "nvidia.com/gpu=0	$tmp/run/nvidia.yaml" "$tmp/out" &&
	grep -qxF "nvidia.com/gpu=2:0	$tmp/etc/nvidia.yaml" "$tmp/out" ||
	die "a device's spec file is wrong: $(cat "$tmp/out")"
grep -q "^list-devices: warning: $tmp/run/bad.yaml" "$tmp/err" || die "the broken spec is not reported: $(cat "$tmp/err")"
ok "$(wc -l <"$tmp/out") devices, as cdi-apply --list; /var/run wins; a broken spec is a warning"

# libcdi with another vendor's spec: examples/inject-devices.c over examples/cdi/intel-gpu.yaml
# gives the config cdi-apply gives (the same library), and names nothing of NVIDIA.
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror $sanflags $(pc --cflags libcdi) -o "$tmp/inject-devices" \
	examples/inject-devices.c $(pc --libs libcdi) || die "cannot build examples/inject-devices.c"
inject() { LD_LIBRARY_PATH="$dest$libdir" "$tmp/inject-devices" "$@" >"$tmp/out" 2>"$tmp/err"; }
run --spec-dir examples/cdi && [ "$(cut -f1 "$tmp/out" | tr '\n' ' ')" = "intel.com/gpu=0 intel.com/gpu=1 " ] ||
	die "the Intel spec's devices: $(cat "$tmp/out" "$tmp/err")"
inject --spec-dir examples/cdi examples/config.json intel.com/gpu=1 || die "inject-devices: $(cat "$tmp/err")"
jq -S . "$tmp/out" >"$tmp/got.json"
"$B/cdi-apply" --spec-dir examples/cdi --config examples/config.json --output - intel.com/gpu=1 |
	jq -S . >"$tmp/want.json" || die "cdi-apply on the Intel spec failed"
cmp -s "$tmp/got.json" "$tmp/want.json" || die "inject-devices and cdi-apply differ: $(diff "$tmp/want.json" "$tmp/got.json")"
[ "$(jq -c '[.linux.devices[].path, (.process.env | map(select(startswith("ZE_")))[])]' "$tmp/got.json")" = \
	'["/dev/dri/card1","/dev/dri/renderD129","ZE_ENABLE_PCI_ID_DEVICE_ORDER=1"]' ] ||
	die "intel.com/gpu=1's edits are not in the config: $(jq -c .linux.devices "$tmp/got.json")"
cp examples/config.json "$tmp/config.json"
inject --spec-dir examples/cdi "$tmp/config.json" intel.com/gpu=1 intel.com/gpu=7 && die "an unknown device succeeded"
[ ! -s "$tmp/out" ] && grep -q 'unresolvable CDI devices intel.com/gpu=7' "$tmp/err" ||
	die "an unknown device: $(cat "$tmp/out" "$tmp/err")"
ok "inject-devices merges intel.com/gpu=1 as cdi-apply does; an unknown device prints nothing"
echo "PASS: example"
