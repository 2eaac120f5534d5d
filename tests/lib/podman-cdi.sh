# SPDX-License-Identifier: Apache-2.0
# Sourced by a shell suite: does Debian's podman (4.3) accept CDI specs and inject their devices?
#
# podman_cdi_check DIR LIST: LIST is a file of lines "SPEC KIND NAME...". For each line the spec
# alone is put in /etc/cdi of a private mount namespace (an overlay over /etc on a tmpfs of ours,
# a tmpfs on /etc/cdi: the machine's own /etc/cdi is never touched nor seen), and for each NAME
# `podman create --device KIND=NAME` + `podman init` must write a config.json holding the
# device's and the spec's device nodes and the spec's mounts; KIND=nonexistent must be refused.
# DIR is a scratch directory the caller removes. Prints one last line: "OK: N devices",
# "SKIP: why" (podman cannot create containers here) or "FAIL: why".
podman_cdi_check() {
	local dir=$1 list=$2
	command -v podman >/dev/null 2>&1 || { echo "SKIP: podman not installed"; return 0; }
	mkdir -p "$dir/ovl" "$dir/libpod-tmp" "$dir/rootfs"
	cp /bin/true "$dir/rootfs/probe"
	tar -C "$dir/rootfs" -cf "$dir/rootfs.tar" . || { echo "FAIL: tar"; return 0; }
	unshare -m --propagation private bash -s "$dir" "$list" <<'NS'
set -u
dir=$1 list=$2
P=(podman --root "$dir/storage" --runroot "$dir/runroot" --tmpdir "$dir/libpod-tmp"
	--storage-driver vfs --events-backend none --cgroup-manager cgroupfs)
mount -t tmpfs tmpfs "$dir/ovl" && mkdir "$dir/ovl/up" "$dir/ovl/work" &&
	mount -t overlay overlay -o "lowerdir=/etc,upperdir=$dir/ovl/up,workdir=$dir/ovl/work" /etc ||
	{ echo "SKIP: no overlay over /etc in a private mount namespace here"; exit 0; }
mkdir -p /etc/cdi && mount -t tmpfs -o mode=0755 tmpfs /etc/cdi ||
	{ echo "FAIL: cannot mount a tmpfs on /etc/cdi"; exit 0; }
"${P[@]}" import "$dir/rootfs.tar" localhost/cdikit-cdi:test >"$dir/podman.log" 2>&1 ||
	{ echo "SKIP: podman import fails here: $(tail -n 1 "$dir/podman.log")"; exit 0; }
"${P[@]}" create --network none localhost/cdikit-cdi:test /probe >"$dir/podman.log" 2>&1 ||
	{ echo "SKIP: podman create fails here: $(tail -n 1 "$dir/podman.log")"; exit 0; }
n=0
while read -r spec kind names; do
	rm -f /etc/cdi/*
	cp "$spec" /etc/cdi/spec.yaml || { echo "FAIL: cannot place $spec"; exit 0; }
	for name in $names nonexistent; do
		id=$("${P[@]}" create --network none --device "$kind=$name" localhost/cdikit-cdi:test /probe \
			2>"$dir/podman.log") || { echo "FAIL: podman create --device $kind=$name: $(tail -n 2 "$dir/podman.log")"; exit 0; }
		# podman resolves CDI devices when it writes config.json (init); the runtime may then
		# fail in this sandbox, after the file is written.
		"${P[@]}" init "$id" >"$dir/podman.log" 2>&1
		if [ "$name" = nonexistent ]; then
			grep -q "unresolvable CDI devices $kind=nonexistent" "$dir/podman.log" ||
				{ echo "FAIL: podman did not refuse $kind=nonexistent: $(tail -n 2 "$dir/podman.log")"; exit 0; }
			continue
		fi
		grep -q 'CDI' "$dir/podman.log" && { echo "FAIL: podman init, $kind=$name ($spec): $(tail -n 2 "$dir/podman.log")"; exit 0; }
		cfg=$("${P[@]}" inspect --format '{{.StaticDir}}' "$id")/config.json
		[ -f "$cfg" ] || { echo "SKIP: podman init writes no config.json here: $(tail -n 1 "$dir/podman.log")"; exit 0; }
		python3 - "$spec" "$name" "$cfg" <<'PY' || { echo "FAIL: podman's config.json for $kind=$name lacks the edits of $spec"; exit 0; }
import json, sys, yaml
spec = yaml.safe_load(open(sys.argv[1]))
cfg = json.load(open(sys.argv[3]))
dev = next(d for d in spec["devices"] if str(d["name"]) == sys.argv[2])
common = spec.get("containerEdits", {})
want = [n["path"] for n in dev["containerEdits"].get("deviceNodes", []) + common.get("deviceNodes", [])]
have = [d["path"] for d in cfg["linux"].get("devices", [])]
missing = [p for p in want if p not in have]
mounts = {m["destination"] for m in cfg.get("mounts", [])}
lost = [m["containerPath"] for m in common.get("mounts", []) if m["containerPath"] not in mounts]
env = [e for e in common.get("env", []) if e not in cfg["process"]["env"]]
if missing or lost or env:
    print("missing nodes", missing, "mounts", lost, "env", env)
    sys.exit(1)
PY
		n=$((n + 1))
	done
done <"$list"
"${P[@]}" rm -af >/dev/null 2>&1
"${P[@]}" rmi -af >/dev/null 2>&1
echo "OK: $n devices"
NS
}

# podman_cdi_expect DIR LIST WHAT: podman_cdi_check as a suite's verdict: ok (saying how many
# devices of WHAT were injected), a note when podman cannot run here, die on a failure.
podman_cdi_expect() {
	local result
	podman_cdi_check "$1" "$2" >"$1/podman.out" 2>&1
	result=$(tail -n 1 "$1/podman.out")
	case $result in
	OK:*) ok "podman create+init --device: ${result#OK: } of $3 injected (and =nonexistent refused)" ;;
	SKIP:*) echo "podman: $result" ;;
	*) die "podman: $(tail -n 5 "$1/podman.out")" ;;
	esac
}
