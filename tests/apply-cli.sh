#!/usr/bin/env bash
# The cdi-apply command-line contract: exit codes, --list, --output -, in-place atomic write,
# stdin config, one "cdi-apply: " line per problem, --validate, --from-*; the shared habits
# (-q, -v, stdout checked at exit), the hints where users stumble, numbers kept as written,
# and specs that others could write.
set -u
: "${B:=build}"
APPLY=$(realpath "$B/cdi-apply")
[ -x "$APPLY" ] || { echo "no $B/cdi-apply"; exit 1; }
command -v jq >/dev/null || { echo "jq not installed"; exit 77; }
version=$(sed -nE 's/^VERSION := (.*)/\1/p' "$(dirname "$0")/../Makefile")

work=$(mktemp -d /tmp/cdikit-apply-cli.XXXXXX)
trap 'rm -rf "$work"' EXIT
fails=0
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); echo "not ok $n - $1"; fails=$((fails + 1)); }
check() { # description, then a command that must succeed
	local d=$1; shift
	if "$@"; then ok "$d"; else bad "$d"; fi
}
# run: sets rc, out, err
run() {
	"$@" >"$work/out" 2>"$work/err"
	rc=$?
	out=$(cat "$work/out")
	err=$(cat "$work/err")
}

mkdir -p "$work/etc" "$work/run" "$work/bad"
cat >"$work/etc/vendor.yaml" <<'EOF'
cdiVersion: "0.5.0"
kind: vendor.com/device
containerEdits:
  env: [VENDOR_SPEC=1]
devices:
  - name: "0"
    containerEdits:
      env: [DEV=0]
      deviceNodes:
        - path: /dev/vendor0
          hostPath: /dev/null
  - name: b
    containerEdits:
      env: [DEV=b]
      mounts:
        - {hostPath: /tmp, containerPath: /mnt/b, options: [rbind, ro]}
EOF
cat >"$work/run/nvidia.json" <<'EOF'
{"cdiVersion":"0.5.0","kind":"nvidia.com/gpu","devices":[
 {"name":"0","containerEdits":{"env":["GPU0=1"]}},
 {"name":"1","containerEdits":{"env":["GPU1=1"]}},
 {"name":"all","containerEdits":{"env":["GPUALL=1"]}}]}
EOF
cat >"$work/bad/broken.yaml" <<'EOF'
cdiVersion: "0.3.0"
kind: vendor.com/device
devices:
  - name: x
    containerEdits:
      env: ["NOEQUALS"]
EOF
# A config as runc spec writes it: tab-indented, no trailing newline.
printf '{\n\t"ociVersion": "1.0.2-dev",\n\t"process": {\n\t\t"user": {\n\t\t\t"uid": 0,\n\t\t\t"gid": 0\n\t\t},\n\t\t"args": [\n\t\t\t"sh"\n\t\t],\n\t\t"env": [\n\t\t\t"PATH=/bin",\n\t\t\t"NVIDIA_VISIBLE_DEVICES=1,0"\n\t\t],\n\t\t"cwd": "/"\n\t},\n\t"root": {\n\t\t"path": "rootfs"\n\t},\n\t"annotations": {\n\t\t"cdi.k8s.io/test_x": "nvidia.com/gpu=all"\n\t},\n\t"x-unknown": {\n\t\t"kept": [\n\t\t\t1,\n\t\t\t2\n\t\t]\n\t}\n}' >"$work/config.orig"
D=(--spec-dir "$work/etc" --spec-dir "$work/run")

# ---- help, version, usage errors ----
run "$APPLY" --help
check "--help exits 0 with the usage" [ "$rc" -eq 0 ]
check "--help shows the three forms" grep -q -- '--validate FILE...' "$work/out"
run "$APPLY" --version
check "--version exits 0" [ "$rc" -eq 0 -a -n "$out" ]
run "$APPLY" --spec-dir "$work/etc"
check "no device: usage error 2" [ "$rc" -eq 2 ]
check "usage error is one prefixed line plus the hint" grep -q '^cdi-apply: no device given' "$work/err"
run "$APPLY" --bogus x
check "unknown option: 2" [ "$rc" -eq 2 ]
run "$APPLY" --list vendor.com/device=0
check "--list with a device: 2" [ "$rc" -eq 2 ]
run "$APPLY" --validate
check "--validate without files: 2" [ "$rc" -eq 2 ]
run "$APPLY" --validate --spec-dir "$work/etc" "$work/etc/vendor.yaml"
check "--validate with --spec-dir: 2" [ "$rc" -eq 2 ]

# ---- --list ----
run "$APPLY" "${D[@]}" --list
check "--list exits 0" [ "$rc" -eq 0 ]
check "--list prints sorted qualified names" [ "$out" = "$(printf '%s\n' nvidia.com/gpu=0 nvidia.com/gpu=1 nvidia.com/gpu=all vendor.com/device=0 vendor.com/device=b)" ]
run "$APPLY" --spec-dir "$work/bad" --spec-dir "$work/etc" --list
check "--list with an invalid spec still exits 0" [ "$rc" -eq 0 ]
check "--list warns about the invalid spec with file:line" grep -q "^cdi-apply: warning: $work/bad/broken.yaml:6:[0-9]*: " "$work/err"
check "--list still lists the valid ones" [ "$out" = "$(printf '%s\n' vendor.com/device=0 vendor.com/device=b)" ]

# ---- inject to stdout ----
cp "$work/config.orig" "$work/config.json"
run "$APPLY" "${D[@]}" --config "$work/config.json" --output - vendor.com/device=0 nvidia.com/gpu=1
check "inject --output - exits 0" [ "$rc" -eq 0 ]
check "nothing on stderr on success" [ -z "$err" ]
check "env merged spec-then-device in request order" \
	[ "$(jq -c .process.env "$work/out")" = '["PATH=/bin","NVIDIA_VISIBLE_DEVICES=1,0","VENDOR_SPEC=1","DEV=0","GPU1=1"]' ]
check "device node from hostPath, type/major/minor from lstat" \
	[ "$(jq -c '.linux.devices[0] | [.path,.type,.major,.minor]' "$work/out")" = '["/dev/vendor0","c",1,3]' ]
check "cgroup allow rule" [ "$(jq -c '.linux.resources.devices[0]' "$work/out")" = '{"allow":true,"type":"c","major":1,"minor":3,"access":"rwm"}' ]
check "unknown fields kept" [ "$(jq -c '."x-unknown"' "$work/out")" = '{"kept":[1,2]}' ]
check "input untouched with --output -" cmp -s "$work/config.json" "$work/config.orig"
check "tab indentation of the input kept" grep -q "$(printf '^\t"ociVersion"')" "$work/out"
check "key order kept (ociVersion first, x-unknown before linux)" \
	[ "$(jq -r 'keys_unsorted | join(",")' "$work/out")" = "ociVersion,process,root,annotations,x-unknown,linux" ]

# ---- in place, atomically ----
cp "$work/config.orig" "$work/config.json"
chmod 0640 "$work/config.json"
ino_before=$(stat -c %i "$work/config.json")
run "$APPLY" "${D[@]}" --config "$work/config.json" vendor.com/device=b
check "in-place inject exits 0 silently" [ "$rc" -eq 0 -a -z "$out$err" ]
check "config rewritten with the mount" [ "$(jq -c '.mounts[-1]' "$work/config.json")" = '{"destination":"/mnt/b","source":"/tmp","options":["rbind","ro"]}' ]
check "file replaced by rename (new inode)" [ "$(stat -c %i "$work/config.json")" != "$ino_before" ]
check "file mode kept" [ "$(stat -c %a "$work/config.json")" = 640 ]
check "no temporary file left" [ "$(ls "$work" | grep -vc -e '^etc$' -e '^run$' -e '^bad$' -e '^config' -e '^out$' -e '^err$')" -eq 0 ]
check "no trailing newline added (the input had none)" [ "$(tail -c 1 "$work/config.json" | od -An -c | tr -d ' ')" = "}" ]

# the owner of a replaced config is kept (root edits a user's bundle)
if [ "$(id -u)" -eq 0 ]; then
	cp "$work/config.orig" "$work/owned.json"
	chown 12345:23456 "$work/owned.json"
	run "$APPLY" "${D[@]}" -c "$work/owned.json" nvidia.com/gpu=0
	check "owner and group of the replaced config kept" [ "$rc" -eq 0 -a "$(stat -c %u:%g "$work/owned.json")" = 12345:23456 ]
fi

# default config is ./config.json; a symlink in its place is refused (it may point anywhere)
mkdir -p "$work/bundle"
cp "$work/config.orig" "$work/bundle/config.json"
(cd "$work/bundle" && "$APPLY" "${D[@]}" nvidia.com/gpu=0) >"$work/out" 2>"$work/err"
rc=$?
check "default --config ./config.json" [ "$rc" -eq 0 ] && grep -q 'GPU0=1' "$work/bundle/config.json"
cp "$work/config.orig" "$work/real.json"
ln -sf "$work/real.json" "$work/bundle/config.json"
(cd "$work/bundle" && "$APPLY" "${D[@]}" nvidia.com/gpu=0) >"$work/out" 2>"$work/err"
rc=$?
check "symlinked config: refused, one line" [ "$rc" -eq 1 ] &&
	[ "$(cat "$work/err")" = "cdi-apply: config.json: is a symbolic link; refusing to follow it (the config must be a regular file in the bundle)" ]
check "symlinked config: link and target untouched" [ -L "$work/bundle/config.json" ] &&
	cmp -s "$work/real.json" "$work/config.orig"

# ---- stdin ----
run bash -c "\"$APPLY\" --spec-dir \"$work/run\" --config - nvidia.com/gpu=all <\"$work/config.orig\""
check "--config - reads stdin and writes stdout" [ "$rc" -eq 0 ]
check "stdin result has the edit" [ "$(jq -r '.process.env[-1]' "$work/out")" = "GPUALL=1" ]
printf '{"process":{"env":[]}}\n' >"$work/compact.json"
run bash -c "\"$APPLY\" --spec-dir \"$work/run\" -c - -o - nvidia.com/gpu=0 <\"$work/compact.json\""
check "compact input stays compact with its newline" [ "$out" = '{"process":{"env":["GPU0=1"]}}' ]

# ---- output to a new file, and to a device ----
rm -f "$work/new.json"
cp "$work/config.orig" "$work/config.json"
chmod 0600 "$work/config.json"
run "$APPLY" "${D[@]}" -c "$work/config.json" -o "$work/new.json" nvidia.com/gpu=0
check "--output FILE creates it" [ "$rc" -eq 0 -a -s "$work/new.json" ]
check "new output takes the config's mode" [ "$(stat -c %a "$work/new.json")" = 600 ]
check "config untouched with --output FILE" cmp -s "$work/config.json" "$work/config.orig"
run "$APPLY" "${D[@]}" -c "$work/config.json" -o /dev/null nvidia.com/gpu=0
check "--output /dev/null works" [ "$rc" -eq 0 ]
check "/dev/null is still a character device" [ -c /dev/null ]

# ---- problems: one prefixed line each, config unchanged ----
cp "$work/config.orig" "$work/config.json"
run "$APPLY" "${D[@]}" -c "$work/config.json" vendor.com/device=0 vendor.com/device=nope other.com/x=y
check "unresolvable: exit 1" [ "$rc" -eq 1 ]
check "unresolvable: names the devices and the searched dirs" \
	[ "$(head -1 "$work/err")" = "cdi-apply: unresolvable CDI devices vendor.com/device=nope, other.com/x=y (searched $work/etc, $work/run)" ]
check "unresolvable: config unchanged" cmp -s "$work/config.json" "$work/config.orig"
run "$APPLY" --spec-dir "$work/bad" -c "$work/config.json" vendor.com/device=x
check "invalid spec behind an unresolvable device: exit 1" [ "$rc" -eq 1 ]
check "invalid spec reported with file:line:col and field" \
	grep -q "^cdi-apply: $work/bad/broken.yaml:6:[0-9]*: devices\[0\].containerEdits.env\[0\]: " "$work/err"
check "every stderr line is prefixed" [ "$(grep -vc '^cdi-apply: ' "$work/err")" -eq 0 ]

cat >"$work/run/gone.yaml" <<'EOF'
cdiVersion: "0.3.0"
kind: gone.com/dev
devices:
  - name: g
    containerEdits:
      env: [G=1]
      deviceNodes: [{path: /dev/cdikit-test-does-not-exist}]
EOF
run "$APPLY" "${D[@]}" -c "$work/config.json" vendor.com/device=0 gone.com/dev=g
check "missing host device: exit 1" [ "$rc" -eq 1 ]
check "missing host device: file, field and path named" \
	grep -q "^cdi-apply: $work/run/gone.yaml: devices\[0\].containerEdits.deviceNodes\[0\]: failed to stat CDI host device \"/dev/cdikit-test-does-not-exist\": No such file or directory$" "$work/err"
check "missing host device: config unchanged (all or nothing)" cmp -s "$work/config.json" "$work/config.orig"
rm -f "$work/run/gone.yaml"

printf '{"process": {"env": [1,}\n' >"$work/broken.json"
run "$APPLY" "${D[@]}" -c "$work/broken.json" nvidia.com/gpu=0
check "bad config JSON: exit 1 with file:line:col" [ "$rc" -eq 1 ]
check "bad config JSON: exit 1 with file:line:col" grep -q "^cdi-apply: $work/broken.json:1:[0-9]*: " "$work/err"
check "bad config JSON: left alone" [ "$(cat "$work/broken.json")" = '{"process": {"env": [1,}' ]
printf '{"process": {"env": "PATH=/bin"}}' >"$work/wrongtype.json"
run "$APPLY" "${D[@]}" -c "$work/wrongtype.json" nvidia.com/gpu=0
check "wrong OCI field type names the config and field" \
	[ "$rc" -eq 1 -a "$err" = "cdi-apply: $work/wrongtype.json: process.env: OCI spec field is not an array" ]
run "$APPLY" "${D[@]}" -c "$work/missing.json" nvidia.com/gpu=0
check "missing config: exit 1" [ "$rc" -eq 1 ]
check "missing config: exit 1" grep -q "missing.json: No such file or directory" "$work/err"

# ---- --validate ----
run "$APPLY" --validate "$work/etc/vendor.yaml" "$work/run/nvidia.json"
check "--validate valid files: exit 0, silent" [ "$rc" -eq 0 -a -z "$out$err" ]
run "$APPLY" --validate "$work/etc/vendor.yaml" "$work/bad/broken.yaml"
check "--validate with a bad file: exit 1" [ "$rc" -eq 1 ]
check "--validate: one line" [ "$(wc -l <"$work/err")" -eq 1 ]
check "--validate: naming file:line:col" grep -q "^cdi-apply: $work/bad/broken.yaml:6:" "$work/err"
run bash -c "\"$APPLY\" --validate - <\"$work/etc/vendor.yaml\""
check "--validate - reads stdin" [ "$rc" -eq 0 ]
run "$APPLY" --validate "$work/nonexistent.yaml"
check "--validate missing file: exit 1" [ "$rc" -eq 1 -a -n "$err" ]
mkdir -p "$work/strict"
cat >"$work/strict/rel.yaml" <<'EOF'
cdiVersion: "0.3.0"
kind: vendor.com/rel
devices:
  - name: r
    containerEdits:
      mounts: [{hostPath: /h, containerPath: relative/path}]
EOF
run "$APPLY" --validate "$work/strict/rel.yaml"
check "relative path accepted by default (as the reference)" [ "$rc" -eq 0 ]
run "$APPLY" --strict --validate "$work/strict/rel.yaml"
check "--strict rejects it" [ "$rc" -eq 1 ]
run "$APPLY" --spec-dir "$work/strict" --strict -c "$work/config.json" -o - vendor.com/rel=r
check "--strict applies to injection too" [ "$rc" -eq 1 ]

# ---- devices from the config ----
run "$APPLY" "${D[@]}" -c "$work/config.orig" -o - --from-env
check "--from-env: NVIDIA_VISIBLE_DEVICES=1,0 as nvidia.com/gpu=1, =0" \
	[ "$rc" -eq 0 -a "$(jq -c '.process.env[2:]' "$work/out")" = '["GPU1=1","GPU0=1"]' ]
run "$APPLY" "${D[@]}" -c "$work/config.orig" -o - --from-annotations
check "--from-annotations: cdi.k8s.io/ keys" [ "$rc" -eq 0 -a "$(jq -c '.process.env[2:]' "$work/out")" = '["GPUALL=1"]' ]
run "$APPLY" "${D[@]}" -c "$work/config.orig" -o - --from-annotations --from-env
check "annotations take precedence over the env var" [ "$rc" -eq 0 -a "$(jq -c '.process.env[2:]' "$work/out")" = '["GPUALL=1"]' ]
run "$APPLY" "${D[@]}" -c "$work/config.orig" -o - --from-env nvidia.com/gpu=0 vendor.com/device=b
check "explicit devices first, env devices not repeated" \
	[ "$rc" -eq 0 -a "$(jq -c '.process.env[2:]' "$work/out")" = '["GPU0=1","VENDOR_SPEC=1","DEV=b","GPU1=1"]' ]

# IMEX channels and gated modes beside the GPUs, from their own specs (environment.md).
mkdir -p "$work/modes"
cp "$work/run/nvidia.json" "$work/modes/"
printf '{"cdiVersion":"0.5.0","kind":"nvidia.com/imex-channel","devices":[{"name":"3","containerEdits":{"env":["IMEX3=1"]}}]}' \
	>"$work/modes/imex.json"
printf '{"cdiVersion":"0.5.0","kind":"nvidia.com/gds","devices":[{"name":"all","containerEdits":{"env":["GDS=1"]}}]}' \
	>"$work/modes/gds.json"
printf '{"process":{"env":["NVIDIA_VISIBLE_DEVICES=1","NVIDIA_IMEX_CHANNELS=3","NVIDIA_GDS=enabled","NVIDIA_MOFED=yes"]}}' \
	>"$work/modes.json"
run "$APPLY" --spec-dir "$work/modes" -c "$work/modes.json" -o - --from-env
check "--from-env: IMEX channel and GDS beside the GPU" \
	[ "$rc" -eq 0 -a "$(jq -c '.process.env[4:]' "$work/out")" = '["IMEX3=1","GDS=1","GPU1=1"]' ]
rm "$work/modes/gds.json"
cp "$work/modes.json" "$work/modes.orig"
run "$APPLY" --spec-dir "$work/modes" -c "$work/modes.json" --from-env
check "--from-env: a mode without its spec fails naming it and the command" \
	[ "$rc" -eq 1 -a "$err" = "cdi-apply: $work/modes.json: NVIDIA_GDS=enabled: no spec of the gds mode (no nvidia.com/gds=all in $work/modes): cdi-generate --mode gds writes it" ]
check "--from-env: the config as it was" cmp -s "$work/modes.json" "$work/modes.orig"

printf '{"process":{"env":["NVIDIA_VISIBLE_DEVICES=void"]}}' >"$work/void.json"
cp "$work/void.json" "$work/void.orig"
run "$APPLY" "${D[@]}" -c "$work/void.json" --from-env
check "nothing requested: exit 0, config not rewritten" [ "$rc" -eq 0 ]
check "nothing requested: exit 0, config not rewritten" cmp -s "$work/void.json" "$work/void.orig"
printf '{"annotations":{"cdi.k8s.io/x":"not-qualified"}}' >"$work/badann.json"
run "$APPLY" "${D[@]}" -c "$work/badann.json" -o - --from-annotations
check "bad annotation: exit 1, named" [ "$rc" -eq 1 ]
check "bad annotation: exit 1, named" grep -q 'invalid CDI device name "not-qualified"' "$work/err"

# ---- shared habits: stdout checked at exit, -q, -v ----
run bash -c "\"$APPLY\" ${D[*]} --list >/dev/full"
check "--list >/dev/full: exit 1 with a message" [ "$rc" -eq 1 ]
check "--list >/dev/full: exit 1 with a message" grep -q 'write error' "$work/err"
run bash -c "\"$APPLY\" --help >/dev/full"
check "--help >/dev/full: exit 1" [ "$rc" -eq 1 ]
run bash -c "\"$APPLY\" --version >/dev/full"
check "--version >/dev/full: exit 1" [ "$rc" -eq 1 ]
run bash -c "\"$APPLY\" ${D[*]} -c \"$work/config.orig\" -o - nvidia.com/gpu=0 >/dev/full"
check "-o - >/dev/full: exit 1" [ "$rc" -eq 1 ]
run "$APPLY" --version
check "--version as NAME (cdikit) X.Y.Z" [ "$out" = "cdi-apply (cdikit) $version" ]
run "$APPLY" -o "" nvidia.com/gpu=0
check "-o '' is a usage error" [ "$rc" -eq 2 ]
check "-o '' is a usage error" grep -q "Try 'cdi-apply --help'" "$work/err"
run "$APPLY" -q --spec-dir "$work/bad" --spec-dir "$work/etc" --list
check "-q: the list, no warnings" [ "$rc" -eq 0 -a -z "$err" -a -n "$out" ]
run "$APPLY" -v "${D[@]}" --list
check "--list -v: each device with its file" \
	grep -qx "$(printf 'vendor.com/device=b\t%s' "$work/etc/vendor.yaml")" "$work/out"
run "$APPLY" "${D[@]}" --list
check "--list: one line per file on stderr" grep -qx "cdi-apply: $work/run/nvidia.json: 3 devices" "$work/err"

# ---- hints where users stumble ----
run "$APPLY" "${D[@]}" -c "$work/config.orig" -o - gpu=0
check "an unqualified class=name: did you mean" grep -qx 'cdi-apply: gpu=0 is not a qualified name: did you mean nvidia.com/gpu=0?' "$work/err"
run "$APPLY" "${D[@]}" -c "$work/config.orig" -o - b
check "an unqualified name: did you mean" grep -qx 'cdi-apply: b is not a qualified name: did you mean vendor.com/device=b?' "$work/err"
run "$APPLY" "${D[@]}" -c "$work/config.orig" -o - 0
check "an ambiguous name: the candidates" grep -qx 'cdi-apply: 0 is not a qualified name: did you mean one of nvidia.com/gpu=0, vendor.com/device=0?' "$work/err"
mkdir -p "$work/mig"
cat >"$work/mig/nvidia.yaml" <<'SPEC'
cdiVersion: "0.5.0"
kind: nvidia.com/gpu
devices:
  - {name: "0", containerEdits: {env: [G0=1]}}
  - {name: "1:0", containerEdits: {env: [G10=1]}}
  - {name: "1:1", containerEdits: {env: [G11=1]}}
SPEC
run "$APPLY" --spec-dir "$work/mig" -c "$work/config.orig" -o - nvidia.com/gpu=1
check "a GPU in MIG mode: says so and names its MIG devices" \
	grep -qx 'cdi-apply: nvidia.com/gpu=1: GPU 1 is in MIG mode, and the spec has only its MIG devices: nvidia.com/gpu=1:0, nvidia.com/gpu=1:1 (ask for one of those)' "$work/err"
run "$APPLY" --spec-dir "$work/nothing" --spec-dir "$work/etc/vendor.yaml" --list
check "an empty --list says where it looked" [ "$rc" -eq 0 -a -z "$out" ]
check "an empty --list says where it looked" grep -qx "cdi-apply: no CDI devices found in $work/nothing (missing), $work/etc/vendor.yaml (not a directory)" "$work/err"
mkdir -p "$work/over-etc" "$work/over-run"
cp "$work/etc/vendor.yaml" "$work/over-etc/vendor.yaml"
cp "$work/etc/vendor.yaml" "$work/over-run/vendor.yaml"
run "$APPLY" --spec-dir "$work/over-etc" --spec-dir "$work/over-run" --list
check "--list says when a later directory overrides an earlier one" \
	grep -qx "cdi-apply: warning: vendor.com/device=0: $work/over-run/vendor.yaml overrides $work/over-etc/vendor.yaml" "$work/err"
mkdir -p "$work/dup"
cp "$work/run/nvidia.json" "$work/dup/a.json"
cp "$work/run/nvidia.json" "$work/dup/b.json"
run "$APPLY" --spec-dir "$work/dup" -c "$work/config.orig" -o - nvidia.com/gpu=0
check "two files of one kind: one line for the pair, not one per device" \
	[ "$rc" -eq 1 -a "$(grep -c conflicting "$work/err")" -eq 1 ]

# ---- numbers in fields cdikit does not know keep their text ----
printf '{"process":{"env":[],"rlimits":[{"type":"RLIMIT_NOFILE","hard":18446744073709551615,"soft":18446744073709551615}]},"x":{"a":0.1,"b":1e2,"c":2.5E-3}}\n' >"$work/numbers.json"
run "$APPLY" "${D[@]}" -c "$work/numbers.json" -o - nvidia.com/gpu=0
check "RLIM_INFINITY accepted" [ "$rc" -eq 0 ]
check "RLIM_INFINITY accepted and written back unchanged" grep -q '"hard":18446744073709551615,"soft":18446744073709551615' "$work/out"
check "0.1, 1e2 and 2.5E-3 written back as written" grep -q '"x":{"a":0.1,"b":1e2,"c":2.5E-3}' "$work/out"
check "and the edit made" grep -q '"env":\["GPU0=1"\]' "$work/out"

# ---- a FIFO where a spec should be ----
mkfifo "$work/fifo.yaml"
sleep 30 <>"$work/fifo.yaml" &
writer=$!
run timeout 10 "$APPLY" --validate "$work/fifo.yaml"
kill "$writer" 2>/dev/null
wait "$writer" 2>/dev/null
check "--validate on a FIFO with a silent writer: exit 1 at once, file named" \
	[ "$rc" -eq 1 -a "$err" = "cdi-apply: $work/fifo.yaml: not a regular file (a spec must be one)" ]

# ---- specs others could write ----
mkdir -p "$work/loose"
cp "$work/etc/vendor.yaml" "$work/loose/vendor.yaml"
chmod 0666 "$work/loose/vendor.yaml"
run "$APPLY" --spec-dir "$work/loose" -c "$work/config.orig" -o - vendor.com/device=0
check "a world-writable spec: used, with a warning" [ "$rc" -eq 0 ]
check "a world-writable spec: used, with a warning" grep -qx "cdi-apply: warning: $work/loose/vendor.yaml: spec is writable by everyone (mode 0666): others could change the devices it defines" "$work/err"
run "$APPLY" --secure-specs --spec-dir "$work/loose" -c "$work/config.orig" -o - vendor.com/device=0
check "--secure-specs: refused, named" [ "$rc" -eq 1 ]
check "--secure-specs: refused, named" grep -q "^cdi-apply: $work/loose/vendor.yaml: spec is writable by everyone (mode 0666): not used" "$work/err"
run "$APPLY" -q --spec-dir "$work/loose" -c "$work/config.orig" -o - vendor.com/device=0
check "-q: no warning" [ "$rc" -eq 0 -a -z "$err" ]

echo "1..$n"
[ "$fails" -eq 0 ]
