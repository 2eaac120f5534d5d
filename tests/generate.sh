#!/usr/bin/env bash
# cdi-generate on simulated hosts (tests/simhost/make-host): golden outputs, determinism,
# --check, no rewrite of an unchanged file, stdout/JSON output, and every output accepted by
# cdi-apply --validate, by the CDI JSON schema (the reference's own schema package, Debian's
# copy) and by podman (`podman create --device nvidia.com/gpu=<name>`).
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
G=$B/cdi-generate
[ -x "$G" ] || die "$G not built"
MOCK=$B/tests/mock-nvml
[ -f "$MOCK/libnvidia-ml.so.1" ] && [ -f "$MOCK/old/libnvidia-ml.so.1" ] ||
	die "mock NVML not built ($MOCK; make check builds the fixtures)"
SCHEMA_DIR=/usr/share/gocode/src/github.com/container-orchestrated-devices/container-device-interface/schema
GOLDEN=tests/golden

tmp=$(mktemp -d /tmp/cdikit-gen.XXXXXX)
etc_backup= etc_created=0
P=()
cleanup() {
	if [ ${#P[@]} -gt 0 ]; then
		"${P[@]}" rm -af >/dev/null 2>&1
		"${P[@]}" rmi -af >/dev/null 2>&1
	fi
	if [ "$etc_created" -eq 1 ]; then
		rm -rf /etc/cdi
		[ -z "$etc_backup" ] || mv "$etc_backup" /etc/cdi
	fi
	findmnt -rn -o TARGET 2>/dev/null | grep -F "$tmp/" | sort -r | while read -r m; do umount -l "$m"; done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

topologies=(single dgx-mig big64 old-driver no-nvml)
for t in "${topologies[@]}"; do
	tests/simhost/make-host --topology "$t" --mock-dir "$MOCK" --out "$tmp/$t" >"$tmp/make-host.log" 2>&1 ||
		die "make-host --topology $t: $(tail -n 3 "$tmp/make-host.log")"
done

# Every output the suite produces goes here, for the validators at the end.
mkdir -p "$tmp/out"
n_out=0
keep() { # file -> a copy in $tmp/out
	n_out=$((n_out + 1))
	cp "$1" "$tmp/out/$n_out-$(basename "$1")"
}

# ---------------------------------------------------------------- golden outputs
golden() { # name root [args...]: generate to stdout, compare with tests/golden/<name>.yaml
	local name=$1 root=$2 out=$tmp/$1.yaml
	shift 2
	"$G" --root "$root" --output - "$@" >"$out" 2>"$tmp/$name.err" ||
		die "$name: cdi-generate failed: $(cat "$tmp/$name.err")"
	keep "$out"
	sed "s|$root|@ROOT@|g" "$out" >"$out.golden"
	if grep -q "$tmp" "$out.golden"; then die "$name: the temp dir leaks outside hostPath"; fi
	if [ "${CDIKIT_UPDATE_GOLDEN:-0}" = 1 ]; then
		mkdir -p "$GOLDEN"
		cp "$out.golden" "$GOLDEN/$name.yaml"
		echo "updated $GOLDEN/$name.yaml"
		return
	fi
	[ -f "$GOLDEN/$name.yaml" ] || die "$name: no $GOLDEN/$name.yaml (CDIKIT_UPDATE_GOLDEN=1 makes it)"
	diff -u "$GOLDEN/$name.yaml" "$out.golden" >"$tmp/$name.diff" ||
		die "$name differs from $GOLDEN/$name.yaml: $(head -n 40 "$tmp/$name.diff")"
	ok "$name matches $GOLDEN/$name.yaml"
}

golden single "$tmp/single"
golden dgx-mig "$tmp/dgx-mig"
golden old-driver "$tmp/old-driver"
golden no-nvml "$tmp/no-nvml"
golden dgx-mig-management "$tmp/dgx-mig" --mode management
golden dgx-mig-procfs "$tmp/dgx-mig" --mode procfs
golden dgx-mig-type-index "$tmp/dgx-mig" --device-name-strategy type-index --device-id 0 \
	--device-id 2:1 --device-id MIG-6fb165d3-40e2-09d6-0842-2ce49eb98495

# The no-nvml host says once why it fell back to /proc.
grep -q 'enumerating full GPUs from /proc' "$tmp/no-nvml.err" || die "no-nvml: no fallback notice"
[ "$(wc -l <"$tmp/no-nvml.err")" -eq 1 ] || die "no-nvml: more than one line on stderr"
[ -s "$tmp/dgx-mig.err" ] && die "dgx-mig: unexpected stderr: $(cat "$tmp/dgx-mig.err")"

# What the goldens must say, whatever they hold (so an --update cannot bless a wrong spec).
d=$tmp/dgx-mig.yaml
grep -q '^cdiVersion: "0.5.0"$' "$d" || die "dgx-mig: cdiVersion is not 0.5.0"
grep -q 'hooks' "$d" && die "dgx-mig: the spec has hooks"
grep -q 'additionalGids' "$d" && die "dgx-mig: the spec has additionalGids"
grep -qE '^ *(major|minor|type):' "$d" && die "dgx-mig: device numbers without --with-device-numbers"
grep -q -- '- NVIDIA_VISIBLE_DEVICES=void' "$d" || die "dgx-mig: NVIDIA_VISIBLE_DEVICES=void missing"
names=$(sed -n 's/^- name: //p' "$d" | tr -d '"' | tr '\n' ' ')
# 8 GPUs, GPU 2 (7 MIG) and 5 (3 MIG) in MIG mode: 6 full + 10 MIG devices, by index and UUID.
[ "$(wc -w <<<"$names")" -eq 33 ] || die "dgx-mig: $(wc -w <<<"$names") devices: $names"
case $names in "0 1 2:0 2:1 2:2 2:3 2:4 2:5 2:6 3 4 5:0 5:1 5:2 6 7 GPU-"*" all ") ;;
*) die "dgx-mig: device order: $names" ;; esac
case " $names " in *" 2 "* | *" 5 "*) die "dgx-mig: a GPU in MIG mode has a full-GPU entry" ;; esac
ok "dgx-mig: 33 devices in order, no hooks, no numbers, 0.5.0"

# ---------------------------------------------------------------- big64: linear, complete
"$G" --root "$tmp/big64" --output "$tmp/big64.yaml" || die "big64: cdi-generate failed"
keep "$tmp/big64.yaml"
n=$(grep -c '^- name: ' "$tmp/big64.yaml")
[ "$n" -eq $((64 * 7 * 2 + 1)) ] || die "big64: $n devices, want $((64 * 7 * 2 + 1))"
grep -q '^- name: "63:6"$' "$tmp/big64.yaml" || die "big64: no 63:6"
ok "big64: 897 devices"

# ---------------------------------------------------------------- determinism
for t in dgx-mig big64; do
	"$G" --root "$tmp/$t" --output - >"$tmp/$t.again" || die "$t: second run failed"
	if [ "$t" = big64 ]; then cmp -s "$tmp/big64.yaml" "$tmp/$t.again"; else cmp -s "$tmp/$t.yaml" "$tmp/$t.again"; fi ||
		die "$t: two runs on the same host differ"
done
ok "same host, same bytes"

# ---------------------------------------------------------------- --output FILE, no rewrite, --check
spec=$tmp/etc/cdi/nvidia.yaml
"$G" --root "$tmp/dgx-mig" --check --output "$spec" >"$tmp/check.out"
rc=$?
[ $rc -eq 1 ] || die "--check on a missing file: exit $rc"
grep -q 'does not exist' "$tmp/check.out" || die "--check missing: $(cat "$tmp/check.out")"
[ -e "$spec" ] && die "--check wrote the file"

"$G" --root "$tmp/dgx-mig" --output "$spec" || die "write to $spec failed"
cmp -s "$spec" "$tmp/dgx-mig.yaml" || die "--output FILE differs from --output -"
[ "$(stat -c %a "$spec")" = 644 ] || die "mode $(stat -c %a "$spec"), want 644"
ls "$tmp/etc/cdi" | grep -qv '^nvidia.yaml$' && die "left-over files in $tmp/etc/cdi: $(ls "$tmp/etc/cdi")"
before=$(stat -c '%i %.Y' "$spec")
sleep 0.02
out=$("$G" --root "$tmp/dgx-mig" --output "$spec" 2>&1) || die "rerun failed: $out"
[ "$(stat -c '%i %.Y' "$spec")" = "$before" ] || die "an unchanged spec was rewritten"
ok "written 0644 atomically, not rewritten when unchanged"

"$G" --root "$tmp/dgx-mig" --check --output "$spec" >"$tmp/check.out" || die "--check fresh: $(cat "$tmp/check.out")"
grep -q 'up to date' "$tmp/check.out" || die "--check fresh: $(cat "$tmp/check.out")"
[ "$(wc -l <"$tmp/check.out")" -eq 1 ] || die "--check: more than one line"

conf=$tmp/dgx-mig/usr/lib/x86_64-linux-gnu/mock-nvml.conf
cp "$conf" "$tmp/conf.orig"
grep -v '^gpu 7 ' "$tmp/conf.orig" >"$conf" # GPU 7 gone (or fell off the bus)
"$G" --root "$tmp/dgx-mig" --check --output "$spec" >"$tmp/check.out"
rc=$?
[ $rc -eq 1 ] || die "--check after removing a GPU: exit $rc"
grep -q 'stale: devices added: 0, removed: 2 (' "$tmp/check.out" || die "--check reason: $(cat "$tmp/check.out")"
grep -q '"\?7"\?' "$tmp/check.out" || die "--check does not name device 7: $(cat "$tmp/check.out")"
[ "$(stat -c '%i %.Y' "$spec")" = "$before" ] || die "--check touched the file"

grep -v 'uuid=MIG-6fb165d3' "$tmp/conf.orig" >"$conf" # a MIG device destroyed
"$G" --root "$tmp/dgx-mig" --check --output "$spec" >"$tmp/check.out"
[ $? -eq 1 ] || die "--check after a MIG reconfiguration: not stale"
grep -q 'MIG-6fb165d3' "$tmp/check.out" || die "--check reason: $(cat "$tmp/check.out")"
cp "$tmp/conf.orig" "$conf"

sed 's/550\.54\.15/535.104.05/g' "$tmp/dgx-mig.yaml" >"$spec" # a spec written by the old driver
"$G" --root "$tmp/dgx-mig" --check --output "$spec" >"$tmp/check.out"
[ $? -eq 1 ] || die "--check after a driver upgrade: not stale"
grep -q 'common containerEdits changed' "$tmp/check.out" || die "--check reason: $(cat "$tmp/check.out")"
"$G" --root "$tmp/dgx-mig" --output "$spec" || die "rewrite failed"
cmp -s "$spec" "$tmp/dgx-mig.yaml" || die "the stale spec was not replaced"
[ "$(stat -c '%i' "$spec")" != "${before%% *}" ] || die "replaced in place instead of renamed"
ok "--check: fresh 0; missing, GPU removed, MIG reconfigured, driver upgraded 1 with a reason"

# The kernel module and the libraries disagree: a driver upgraded without a reboot.
ver=$tmp/dgx-mig/proc/driver/nvidia/version
cp "$ver" "$tmp/version.orig"
sed -i 's/550\.54\.15/555.42.02/' "$ver"
if "$G" --root "$tmp/dgx-mig" --output - >/dev/null 2>"$tmp/err"; then die "version mismatch not detected"; fi
grep -q '^cdi-generate: .*550\.54\.15.*555\.42\.02' "$tmp/err" || die "mismatch message: $(cat "$tmp/err")"
cp "$tmp/version.orig" "$ver"
ok "NVML/kernel version mismatch is an error naming both"

# A MIG cap node that is not there is an error by default, written with a warning on request.
cap=$(grep -o 'nvidia-cap[0-9]\+' "$tmp/dgx-mig.yaml" | head -1)
mv "$tmp/dgx-mig/dev/nvidia-caps/$cap" "$tmp/cap.saved"
if "$G" --root "$tmp/dgx-mig" --output - >/dev/null 2>"$tmp/err"; then die "missing $cap not detected"; fi
grep -q "^cdi-generate: $tmp/dgx-mig/dev/nvidia-caps/$cap: No such file" "$tmp/err" || die "missing cap: $(cat "$tmp/err")"
"$G" --root "$tmp/dgx-mig" --allow-missing-caps --output - >"$tmp/allow.yaml" 2>"$tmp/err" || die "--allow-missing-caps failed"
grep -q "warning: .*$cap" "$tmp/err" || die "no warning for the missing cap"
cmp -s "$tmp/allow.yaml" "$tmp/dgx-mig.yaml" || die "--allow-missing-caps changed the spec"
mv "$tmp/cap.saved" "$tmp/dgx-mig/dev/nvidia-caps/$cap"
ok "missing cap node: error, or a warning with --allow-missing-caps"

# /dev elsewhere (--dev-root): node hostPaths follow it, the driver's files do not.
mkdir -p "$tmp/devroot" && cp -a "$tmp/dgx-mig/dev" "$tmp/devroot/" || die "copying /dev"
"$G" --root "$tmp/dgx-mig" --dev-root "$tmp/devroot" --output - >"$tmp/split.yaml" || die "--dev-root failed"
keep "$tmp/split.yaml"
sed "s|$tmp/devroot/dev/|$tmp/dgx-mig/dev/|" "$tmp/split.yaml" | cmp -s - "$tmp/dgx-mig.yaml" ||
	die "--dev-root: the spec differs in more than the nodes' hostPath"
grep -q "hostPath: $tmp/devroot/dev/nvidia-caps/" "$tmp/split.yaml" || die "--dev-root: cap nodes not under it"
ok "--dev-root moves the nodes' hostPath only"

# ---------------------------------------------------------------- formats, options
"$G" --root "$tmp/dgx-mig" --output - --format json >"$tmp/dgx-mig.json" || die "--format json failed"
keep "$tmp/dgx-mig.json"
jq -e . "$tmp/dgx-mig.json" >/dev/null || die "--format json is not JSON"
python3 -c 'import json,sys,yaml; a=yaml.safe_load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); sys.exit(a!=b)' \
	"$tmp/dgx-mig.yaml" "$tmp/dgx-mig.json" || die "JSON and YAML outputs hold different specs"
"$G" --root "$tmp/single" --output "$tmp/etc/cdi/nvidia.json" || die "--output .json failed"
jq -e . "$tmp/etc/cdi/nvidia.json" >/dev/null || die "*.json output is not JSON"
keep "$tmp/etc/cdi/nvidia.json"
"$G" --root "$tmp/dgx-mig" --output - --with-device-numbers --no-all-device --vendor example.com \
	--class device >"$tmp/numbers.yaml" || die "--with-device-numbers failed"
keep "$tmp/numbers.yaml"
grep -q '^kind: example.com/device$' "$tmp/numbers.yaml" || die "--vendor/--class ignored"
grep -q 'name: all' "$tmp/numbers.yaml" && die "--no-all-device ignored"
grep -q 'major: 508' "$tmp/numbers.yaml" || die "--with-device-numbers: no uvm major 508"
"$G" --root "$tmp/dgx-mig" --output - --device-id 99 >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] || die "--device-id 99: exit status"
grep -q '^cdi-generate: --device-id: 99: no such GPU or MIG device$' "$tmp/err" || die "--device-id 99: $(cat "$tmp/err")"
# Never replace what is not a regular file (rename would swap out a device node or symlink).
mknod "$tmp/fake-null" c 1 3 && ln -s "$tmp/single.yaml" "$tmp/link.yaml" || die "mknod/ln"
for target in "$tmp/fake-null" "$tmp/link.yaml"; do
	"$G" --root "$tmp/single" --output "$target" 2>"$tmp/err" && die "--output $target accepted"
	grep -q 'not a regular file' "$tmp/err" || die "--output $target: $(cat "$tmp/err")"
done
[ -c "$tmp/fake-null" ] && [ -L "$tmp/link.yaml" ] || die "a non-regular --output was replaced"
# An absolute --root is cleaned lexically: hostPaths carry no "//" or "/./".
"$G" --root "/$tmp/./single/" --output - | grep 'hostPath:' | grep -q '//\|/\./' &&
	die "--root //.../ left unclean hostPaths"
# --check only reads: through a symlink it judges the file the link names.
"$G" --root "$tmp/single" --output "$tmp/link.yaml" --check >"$tmp/check-link.log" 2>&1 ||
	die "--check through a symlink: $(cat "$tmp/check-link.log")"
"$G" --bogus >/dev/null 2>&1
[ $? -eq 2 ] || die "usage error: exit status not 2"
"$G" --mode nvml --root "$tmp/no-nvml" --output - >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] || die "--mode nvml without NVML must fail"
"$G" --help | grep -q -- '--device-name-strategy' || die "--help"
"$G" --version | grep -q '^cdi-generate ' || die "--version"
ok "json, --with-device-numbers, --vendor/--class, errors and usage"

# ---------------------------------------------------------------- validators
outs=("$tmp"/out/*)
if [ -x "$B/cdi-apply" ]; then
	"$B/cdi-apply" --validate "${outs[@]}" >"$tmp/validate.out" 2>&1 || die "cdi-apply --validate: $(cat "$tmp/validate.out")"
	ok "cdi-apply --validate accepts all ${#outs[@]} outputs"
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
podman_check() {
	command -v podman >/dev/null 2>&1 || { echo "podman: SKIP (not installed)"; return; }
	command -v flock >/dev/null 2>&1 || { echo "podman: SKIP (no flock)"; return; }
	local lockdir=/run/lock
	[ -d "$lockdir" ] || lockdir=/tmp
	# The lock tests/e2e-podman.sh takes too: both own /etc/cdi while they run.
	exec 9>"$lockdir/cdikit-e2e-podman.lock"
	flock -w 600 9 || { echo "podman: SKIP (lock held)"; return; }
	P=(podman --root "$tmp/storage" --runroot "$tmp/runroot" --tmpdir "$tmp/libpod-tmp"
		--storage-driver vfs --events-backend none --cgroup-manager cgroupfs)
	mkdir -p "$tmp/libpod-tmp" "$tmp/rootfs"
	cp /bin/true "$tmp/rootfs/probe"
	tar -C "$tmp/rootfs" -cf "$tmp/rootfs.tar" .
	"${P[@]}" import "$tmp/rootfs.tar" localhost/cdikit-gen:test >"$tmp/podman.log" 2>&1 ||
		{ echo "podman: SKIP (podman import fails here: $(tail -n 1 "$tmp/podman.log"))"; return; }
	if [ -e /etc/cdi ] || [ -L /etc/cdi ]; then
		etc_backup=/etc/cdi.cdikit-gen-backup.$$
		mv /etc/cdi "$etc_backup" || die "cannot move /etc/cdi aside"
	fi
	etc_created=1
	mkdir -p /etc/cdi
	cp "$tmp/dgx-mig.yaml" /etc/cdi/nvidia.yaml
	"${P[@]}" create --network none localhost/cdikit-gen:test /probe >"$tmp/podman.log" 2>&1 ||
		{ echo "podman: SKIP (podman create fails here: $(tail -n 1 "$tmp/podman.log"))"; return; }
	local name n=0 id cfg
	for name in 0 7 2:0 5:2 all $(sed -n 's/^- name: \([GM][A-Z]*-.*\)/\1/p' "$tmp/dgx-mig.yaml" | sed -n '1p;$p'); do
		id=$("${P[@]}" create --network none --device "nvidia.com/gpu=$name" localhost/cdikit-gen:test /probe \
			2>"$tmp/podman.log") || die "podman create --device nvidia.com/gpu=$name: $(tail -n 2 "$tmp/podman.log")"
		# podman resolves CDI devices when it writes config.json (init); the runtime may then
		# fail in this sandbox, after the file is written.
		"${P[@]}" init "$id" >"$tmp/podman.log" 2>&1
		grep -q 'CDI' "$tmp/podman.log" && die "podman init, nvidia.com/gpu=$name: $(tail -n 2 "$tmp/podman.log")"
		cfg=$("${P[@]}" inspect --format '{{.StaticDir}}' "$id")/config.json
		[ -f "$cfg" ] || { echo "podman: SKIP (podman init writes no config.json here: $(tail -n 1 "$tmp/podman.log"))"; return; }
		python3 - "$tmp/dgx-mig.yaml" "$name" "$cfg" <<'PY' || die "podman config.json for nvidia.com/gpu=$name lacks the spec's edits"
import json, sys, yaml
spec = yaml.safe_load(open(sys.argv[1]))
cfg = json.load(open(sys.argv[3]))
dev = next(d for d in spec["devices"] if str(d["name"]) == sys.argv[2])
want = [n["path"] for n in dev["containerEdits"]["deviceNodes"] + spec["containerEdits"]["deviceNodes"]]
have = [d["path"] for d in cfg["linux"].get("devices", [])]
missing = [p for p in want if p not in have]
env_ok = "NVIDIA_VISIBLE_DEVICES=void" in cfg["process"]["env"]
mounts = {m["destination"] for m in cfg.get("mounts", [])}
mounts_ok = all(m["containerPath"] in mounts for m in spec["containerEdits"].get("mounts", []))
if missing or not env_ok or not mounts_ok:
    print("missing nodes", missing, "env", env_ok, "mounts", mounts_ok)
    sys.exit(1)
PY
		n=$((n + 1))
	done
	# The control: an unknown name must be refused, so CDI resolution is really in play.
	id=$("${P[@]}" create --network none --device nvidia.com/gpu=99 localhost/cdikit-gen:test /probe 2>/dev/null)
	"${P[@]}" init "$id" >"$tmp/podman.log" 2>&1
	grep -q 'unresolvable CDI devices nvidia.com/gpu=99' "$tmp/podman.log" ||
		die "podman did not refuse nvidia.com/gpu=99: $(tail -n 2 "$tmp/podman.log")"
	ok "podman create+init --device: $n devices of the dgx-mig spec injected (and =99 refused)"
}
podman_check

echo "PASS: generate"
