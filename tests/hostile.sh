#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Hostile inputs against the programs, as a user who controls a file root reads would plant
# them: spec files in a spec directory (huge, deep, invalid UTF-8, NUL bytes, FIFOs, sockets,
# symlink loops, devices), config.json files (deep, NUL, bad Unicode, huge numbers, trailing
# garbage, a FIFO), and simulated roots for cdi-generate (FIFOs, devices and symlinks out of
# the root where the driver's files and /proc should be). Every run ends within seconds
# (nothing blocks), never dies of a signal, names the file it refuses, and leaves what it
# refused untouched; what the root does not say never reaches the spec.
#
# Needs root for the simulated host's device nodes (tests/simhost/make-host); exits 77 otherwise.
set -u
. "$(dirname "$0")/lib/suite.sh" hostile "the simulated host has real device nodes" \
	cdi-generate cdi-apply tests/mock-nvml/libnvidia-ml.so.1
G=$B/cdi-generate A=$B/cdi-apply
# Under the sanitizers a run is several times slower; nothing here should come near this.
LIMIT=20

# run LABEL COMMAND...: $rc, $tmp/out, $tmp/err; a hang or a signal fails (with soft=1 the
# caller judges rc: 124 is a hang).
soft=0
run() {
	local label=$1
	shift
	timeout -k 2 "$LIMIT" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	[ "$soft" -eq 0 ] || return 0
	[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || die "$label: still running after $LIMIT s (blocked?)"
	[ "$rc" -lt 128 ] || die "$label: killed by signal $((rc - 128)): $(tail -n 5 "$tmp/err")"
}

# ---- spec directories -----------------------------------------------------------------------
specs=$tmp/specs
mkdir -p "$specs"
cp tests/corpus/inject/nvidia-like/etc/nvidia.yaml "$specs/"
python3 - "$specs" <<'EOF'
import sys
d = sys.argv[1]
def w(name, data):
    open(f"{d}/{name}", "wb").write(data if isinstance(data, bytes) else data.encode())
w("deep-flow.yaml", "[" * 100000 + "]" * 100000)
w("deep-block.yaml", "".join(" " * i + "a:\n" for i in range(2000)))
w("deep.json", '{"a":' * 100000 + "1" + "}" * 100000)
w("nul.yaml", b'cdiVersion: "0.5.0"\nkind: x.com/y\ndevices:\n- name: a\x00b\n')
w("utf8.yaml", b'cdiVersion: "0.5.0"\nkind: x.com/y\ndevices:\n- name: a\xff\xfe\n')
w("bom-twice.yaml", b"\xef\xbb\xbf\xef\xbb\xbfcdiVersion: 0.5.0\n")
w("huge.yaml", "cdiVersion: 0.5.0\nkind: x.com/y\ndevices:\n" + "- name: d\n" * 1800000)
w("long-key.yaml", "k" * 5000000 + ": 1\n")
EOF
mkfifo "$specs/fifo.yaml"
python3 -c "import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])" "$specs/socket.yaml"
ln -s loop.yaml "$specs/loop.yaml"
ln -s /dev/zero "$specs/zero.yaml"
ln -s /dev/null "$specs/null.yaml"
mkdir "$specs/dir.yaml"
run "spec dir" "$A" --spec-dir "$specs" --list
[ "$rc" -eq 0 ] || die "spec dir: --list exit $rc: $(head -n 5 "$tmp/err")"
printf 'nvidia.com/gpu=0\nnvidia.com/gpu=1\nnvidia.com/gpu=all\n' | cmp -s - "$tmp/out" ||
	die "spec dir: the good spec's devices are not listed: $(cat "$tmp/out")"
for f in deep-flow.yaml deep-block.yaml deep.json nul.yaml utf8.yaml bom-twice.yaml huge.yaml \
	long-key.yaml fifo.yaml socket.yaml loop.yaml zero.yaml; do
	grep -qF "$specs/$f" "$tmp/err" || die "spec dir: no warning names $f: $(cut -c1-200 "$tmp/err")"
done
ok "a spec directory of hostile files: $(wc -l <"$tmp/err") warnings, the good spec still used"
run "inject beside hostile specs" "$A" --spec-dir "$specs" --config - --output - nvidia.com/gpu=0 \
	<tests/corpus/inject/nvidia-like/config.json
timeout "$LIMIT" "$A" --spec-dir "$specs" --config - --output "$tmp/injected" nvidia.com/gpu=0 \
	<tests/corpus/inject/nvidia-like/config.json 2>"$tmp/err" ||
	die "inject beside hostile specs: $(head -n 3 "$tmp/err")"
ok "injection still works beside them"

for f in fifo.yaml socket.yaml zero.yaml; do
	run "--validate $f" "$A" --validate "$specs/$f"
	[ "$rc" -eq 1 ] || die "--validate $f: exit $rc"
done
ok "--validate on a FIFO, a socket, /dev/zero: refused, nothing blocks"

# ---- config.json --------------------------------------------------------------------------
bundle=$tmp/bundle clean=$tmp/clean-specs
mkdir -p "$bundle" "$clean"
cp tests/corpus/inject/nvidia-like/etc/nvidia.yaml "$clean/"
config_refused() { # label: $bundle/config.json is written; it must be refused and kept
	local label=$1
	cp "$bundle/config.json" "$tmp/config.orig"
	run "config $label" "$A" --spec-dir "$clean" --config "$bundle/config.json" nvidia.com/gpu=0
	[ "$rc" -eq 1 ] || die "config $label: exit $rc, not 1: $(head -n 3 "$tmp/err")"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] || die "config $label: not one line: $(head -n 5 "$tmp/err")"
	grep -qF "$bundle/config.json" "$tmp/err" || die "config $label: the message does not name the file: $(cat "$tmp/err")"
	cmp -s "$tmp/config.orig" "$bundle/config.json" || die "config $label: the config changed"
	[ "$(ls -A "$bundle")" = config.json ] || die "config $label: left behind: $(ls -A "$bundle")"
}
python3 - "$bundle/config.json" <<'EOF' && config_refused "nested 3000 deep"
import sys; open(sys.argv[1], "w").write("[" * 3000 + "]" * 3000)
EOF
# Valid JSON that runc's encoding/json reads is kept as written: a NUL in a string, a number
# beyond a double in a field nobody decodes.
config_kept() { # label text: the config is accepted and the text is still in it
	run "config $1" "$A" --spec-dir "$clean" --config "$bundle/config.json" nvidia.com/gpu=0
	[ "$rc" -eq 0 ] || die "config $1: exit $rc: $(head -n 3 "$tmp/err")"
	grep -qF "$2" "$bundle/config.json" || die "config $1: $2 is not kept: $(head -c 300 "$bundle/config.json")"
}
printf '{"ociVersion": "1.0.2", "a": "x\\u0000y"}' >"$bundle/config.json" && config_kept "with \\u0000" '"x\u0000y"'
printf '{"ociVersion": "1.0.2", "a": 1e400}' >"$bundle/config.json" && config_kept "with 1e400" '"a":1e400'
printf '{"a": "\xff"}' >"$bundle/config.json" && config_refused "with invalid UTF-8"
printf '{"a": "\\ud800"}' >"$bundle/config.json" && config_refused "with a lone surrogate"
printf '{} {}' >"$bundle/config.json" && config_refused "with two documents"
printf '{}\0{}' >"$bundle/config.json" && config_refused "with a NUL byte"
printf '[]' >"$bundle/config.json" && config_refused "that is an array"
printf '' >"$bundle/config.json" && config_refused "that is empty"
printf '{"process": {"env": "PATH=/bin"}}' >"$bundle/config.json" && config_refused "with env a string"
ok "hostile configs: refused with one line naming the file, left as they were"


# ---- roots for cdi-generate ---------------------------------------------------------------
make_host single "$tmp/pristine"
host=$tmp/host
info=proc/driver/nvidia/gpus/0000:07:00.0/information
fresh() { rm -rf "$host" && cp -a "$tmp/pristine" "$host"; }

# generated LABEL [ARGS...]: cdi-generate must end; a refusal must name a file in the root.
generated() {
	local label=$1
	shift
	run "root $label" "$G" --root "$host" --output - "$@"
	if [ "$rc" -ne 0 ]; then
		grep -qF "$host/" "$tmp/err" || die "root $label: exit $rc without naming a file: $(cat "$tmp/err")"
	fi
	if grep -n 'hostPath: ' "$tmp/out" | grep -vF "hostPath: $host/" | grep -q .; then
		die "root $label: a hostPath outside the root: $(grep -n 'hostPath: ' "$tmp/out" | grep -vF "hostPath: $host/" | head -n 3)"
	fi
}
lib=usr/lib/x86_64-linux-gnu
fresh; rm "$host/$lib/libcuda.so.550.54.15"; mkfifo "$host/$lib/libcuda.so.550.54.15"
generated "library is a FIFO"
fresh; ln -sf /lib/x86_64-linux-gnu/libc.so.6 "$host/$lib/libcuda.so.1"
generated "soname link to the host's libc (absolute)"
fresh; ln -sf ../../../../../../../../../../lib/x86_64-linux-gnu/libc.so.6 "$host/$lib/libcuda.so.1"
generated "soname link climbing out with .."
fresh; ln -sf /usr/bin/id "$host/usr/bin/nvidia-smi"
generated "nvidia-smi linked to a host binary"
fresh; rm "$host/$info"; mkfifo "$host/$info"
generated "GPU information is a FIFO" --mode procfs
[ "$rc" -ne 0 ] || die "root GPU information is a FIFO: accepted"
fresh; ln -sf /dev/zero "$host/$info"
generated "GPU information is /dev/zero" --mode procfs
[ "$rc" -ne 0 ] || die "root GPU information is /dev/zero: accepted"
fresh; head -c 5000000 /dev/zero | tr '\0' a >"$host/proc/devices"
generated "/proc/devices of 5 MB" --with-device-numbers
ok "hostile roots: every run ends, refusals name the file, no hostPath leaves the root"

# ---- what failed on the tree these tests were written on ------------------------------------
# Each check reports and the suite goes on, so one defect does not hide the next.
failed=0 soft=1
defect() { echo "FAIL: $*"; failed=1; }

# A FIFO where the config should be: nothing writes to it, so reading it would wait forever.
rm -f "$bundle/config.json"
mkfifo "$bundle/config.json"
run "config FIFO" "$A" --spec-dir "$clean" --config "$bundle/config.json" nvidia.com/gpu=0
if [ "$rc" -eq 1 ] && grep -qF "$bundle/config.json" "$tmp/err"; then
	ok "a FIFO as config.json: refused"
else
	defect "config FIFO: exit $rc (124: still blocked after $LIMIT s), not 1 with a line naming it: $(cat "$tmp/err")"
fi
rm -f "$bundle/config.json"

# Files under the root are the root's: a link in it that points out must not bring the host's
# (or another tree's) content into the spec. Here the GPU information file points to a copy
# with another UUID outside the root.
fresh
sed 's/GPU-[0-9a-f-]*/GPU-0ae5e0e0-0000-4000-8000-000000000000/' "$host/$info" >"$tmp/outside-information"
rm "$host/$info"
ln -s "$tmp/outside-information" "$host/$info"
generated "GPU information linked out of the root" --mode procfs
if grep -q 'GPU-0ae5e0e0' "$tmp/out"; then
	defect "root GPU information linked out of the root: the spec describes the file outside it (GPU-0ae5e0e0-...)"
else
	ok "a /proc file linked out of the root is not read"
fi
[ "$failed" -eq 0 ] || exit 1
echo "all hostile inputs handled"
