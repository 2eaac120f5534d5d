#!/usr/bin/env bash
# podman (Debian's 4.3, with its own vendored CNCF CDI library) and cdi-apply must make the same
# edits for the same CDI devices.
#
# How the comparison is made sound:
#   1. A temp spec goes into /etc/cdi, which podman 4.3 always reads (with /var/run/cdi) and
#      cannot be told otherwise (no --cdi-spec-dir). The test runs in a private mount namespace
#      (unshare -m) where /etc is an overlay over the machine's and /etc/cdi an empty tmpfs: the
#      spec exists only there, and the machine's /etc/cdi is never read or written.
#   2. Two containers are created from the same local image with the same options, one plain
#      ("base") and one with --device for the CDI devices ("cdi"). `podman init` writes each
#      one's config.json under `podman inspect --format '{{.StaticDir}}'` (when the runtime then
#      fails, e.g. because the sandbox refuses podman's rlimits, the file is already written).
#   3. The base config, with the base container's ID replaced by the cdi container's ID (it is in
#      HOSTNAME and in mount sources), is what podman had before injecting. A premise check
#      makes sure the two configs differ in nothing but the CDI-edited fields (apart from a
#      creation timestamp and the rootfs layer path), so that claim is tested, not assumed.
#   4. cdi-apply injects the same devices into that base with podman's spec dirs
#      (/etc/cdi, /var/run/cdi), and its CDI-edited fields (process.env, linux.devices,
#      linux.resources.devices, mounts, hooks) must equal podman's exactly, with two exceptions
#      that the spec or the normalisation rule out by construction:
#        - every device node in the spec gives fileMode: the vendored library (0.5.x) never
#          fills it from the host, the current rules do (tests/reference-inject.sh covers that);
#        - mounts are compared as a set, and both lists must be sorted by path depth: podman
#          re-sorts all mounts after CDI with an unstable sort over a list it builds from a map,
#          so the order of equal-depth mounts is not even the same between two podman
#          containers;
#        - podman's own env entries (the first N, N = the base's count) are compared as a set,
#          for the same reason; the entries CDI appends after them are compared in order. The
#          spec sets no variable podman already has: the runtime-tools copy podman 4.3 vendors
#          appends such a variable a second time instead of replacing it (the current
#          reference replaces it; tests/reference-inject.sh env-* cases cover that).
#   --user 1000:1000 makes both copy process.user into the nodes' uid/gid.
#
# Needs root and podman; exits 77 with the reason when podman cannot create containers here.
set -u
cd "$(dirname "$0")/../.."
: "${B:=build}"

skip() { echo "SKIP: $*"; exit 77; }
die() { echo "FAIL: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || skip "needs root (a private mount namespace)"
command -v podman >/dev/null 2>&1 || skip "podman not installed"
command -v jq >/dev/null 2>&1 || skip "jq not installed"
command -v unshare >/dev/null 2>&1 || skip "unshare not installed"
[ -x "$B/cdi-apply" ] || die "$B/cdi-apply not built"

# Everything below runs in a mount namespace of its own: /etc/cdi is a tmpfs there.
if [ -z "${CDIKIT_PODMAN_PRIVATE_ETC:-}" ]; then
	CDIKIT_PODMAN_PRIVATE_ETC=1 exec unshare -m --propagation private bash "$0" "$@"
	skip "unshare -m failed"
fi

tmp=$(mktemp -d /tmp/cdikit-e2e-podman.XXXXXX)
P=(podman --root "$tmp/storage" --runroot "$tmp/runroot" --tmpdir "$tmp/libpod-tmp"
	--storage-driver vfs --hooks-dir "$tmp/hooks.d" --events-backend none
	--cgroup-manager cgroupfs)
image=localhost/cdikit-e2e-podman:$$
base=cdikit-e2e-base-$$
cdi=cdikit-e2e-cdi-$$

cleanup() {
	"${P[@]}" rm -f "$base" "$cdi" >/dev/null 2>&1
	"${P[@]}" rmi -f "$image" >/dev/null 2>&1
	# podman may leave its shm or overlay mounts behind when the runtime failed
	findmnt -rn -o TARGET | grep -F "$tmp/" | sort -r | while read -r m; do umount -l "$m"; done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
mkdir -p "$tmp/hooks.d" "$tmp/libpod-tmp"

# A minimal local image: there is no registry.
mkdir -p "$tmp/rootfs"
printf 'int main(void) { return 0; }\n' >"$tmp/true.c"
${CC:-cc} -static -O2 -o "$tmp/rootfs/probe" "$tmp/true.c" 2>/dev/null || cp /bin/true "$tmp/rootfs/probe"
tar -C "$tmp/rootfs" -cf "$tmp/rootfs.tar" . || die "tar failed"
"${P[@]}" import "$tmp/rootfs.tar" "$image" >"$tmp/import.log" 2>&1 ||
	skip "podman import fails here: $(tail -n 2 "$tmp/import.log")"

# Host files for the spec.
printf 'podman-%s\n' "$$" >"$tmp/data.txt"
mkdir -p "$tmp/libdir"
: >"$tmp/libdir/libcdikit-fake.so.1"

kind=cdikit-e2e.example.com/podman
spec_yaml() {
	cat <<EOF
cdiVersion: 0.5.0
kind: $kind
containerEdits:
  env:
    - CDIKIT_SPEC=spec-level
  deviceNodes:
    - {path: /dev/cdikit-ctl, hostPath: /dev/null, fileMode: 0666}
  hooks:
    - {hookName: createContainer, path: /bin/true, args: ["true", spec-level]}
  mounts:
    - {hostPath: $tmp/libdir/libcdikit-fake.so.1, containerPath: /usr/lib/cdikit/libcdikit-fake.so.1, options: [ro, nosuid, nodev, bind]}
devices:
  - name: dev0
    containerEdits:
      env: [CDIKIT_DEV=dev0]
      deviceNodes:
        - {path: /dev/cdikit-dev0, hostPath: /dev/zero, fileMode: 0660, permissions: rw}
        - {path: /dev/cdikit-fake, type: c, major: 240, minor: 0, fileMode: 0600}
      mounts:
        - {hostPath: $tmp/data.txt, containerPath: /cdikit/data.txt, options: [ro, bind]}
      hooks:
        - {hookName: poststop, path: /bin/true, args: ["true", dev0], env: [X=1], timeout: 5}
  - name: dev1
    containerEdits:
      env: [CDIKIT_DEV=dev1, CDIKIT_DEV1=yes]
      deviceNodes:
        - {path: /dev/cdikit-dev1, hostPath: /dev/null, uid: 0, gid: 5, fileMode: 0666}
      mounts:
        - {hostPath: $tmp/data.txt, containerPath: /cdikit/data.txt, options: [ro, bind, nosuid]}
EOF
}
devices=("$kind=dev0" "$kind=dev1")

# The private /etc: an overlay (so /etc/cdi can be made where the machine has none) and an empty
# tmpfs on /etc/cdi. Both vanish with this namespace.
mkdir -p "$tmp/etc-upper" "$tmp/etc-work"
mount -t overlay cdikit-etc -o "lowerdir=/etc,upperdir=$tmp/etc-upper,workdir=$tmp/etc-work" /etc ||
	skip "cannot mount an overlay on /etc in a private namespace"
mkdir -p /etc/cdi && mount -t tmpfs -o mode=0755 cdikit-cdi /etc/cdi || skip "cannot mount a tmpfs on /etc/cdi"
spec_yaml >/etc/cdi/cdikit-e2e-podman.yaml

common=(--user 1000:1000 --network none)
"${P[@]}" create --name "$base" "${common[@]}" "$image" /probe >"$tmp/create.log" 2>&1 ||
	skip "podman create fails here: $(tail -n 2 "$tmp/create.log")"
cdi_args=()
for d in "${devices[@]}"; do cdi_args+=(--device "$d"); done
"${P[@]}" create --name "$cdi" "${common[@]}" "${cdi_args[@]}" "$image" /probe >"$tmp/create.log" 2>&1 ||
	{ sed 's/^/    /' "$tmp/create.log"; die "podman create --device failed"; }

config_of() { # container, output file
	"${P[@]}" init "$1" >"$tmp/init-$1.log" 2>&1 ||
		echo "note: podman init $1 failed (the config is written before): $(tail -n 1 "$tmp/init-$1.log")"
	local dir
	dir=$("${P[@]}" inspect --format '{{.StaticDir}}' "$1") || die "podman inspect $1 failed"
	[ -s "$dir/config.json" ] || { sed 's/^/    /' "$tmp/init-$1.log"; skip "podman init wrote no config.json for $1"; }
	cp "$dir/config.json" "$2"
}
config_of "$base" "$tmp/base-raw.json"
config_of "$cdi" "$tmp/podman.json"
grep -q cdikit-dev0 "$tmp/podman.json" ||
	{ sed 's/^/    /' "$tmp/init-$cdi.log"; die "podman did not inject the CDI devices (config.json without /dev/cdikit-dev0)"; }

base_id=$("${P[@]}" inspect --format '{{.Id}}' "$base")
cdi_id=$("${P[@]}" inspect --format '{{.Id}}' "$cdi")
[ ${#base_id} -eq 64 ] && [ ${#cdi_id} -eq 64 ] || die "unexpected container IDs"
sed -e "s/$base_id/$cdi_id/g" -e "s/${base_id:0:12}/${cdi_id:0:12}/g" "$tmp/base-raw.json" >"$tmp/base.json"

PRUNE='def prune: walk(if type == "object" then
	with_entries(select(.value != null and .value != "" and .value != [] and .value != {}))
	else . end);'
DEPTH='def depth: .destination | [splits("/+")] | map(select(. != "" and . != ".")) | length;'
CDI_FIELDS="$PRUNE $DEPTH"'
{env: ((.process.env[:$n] | sort) + .process.env[$n:]), devices: .linux.devices, resources: .linux.resources.devices,
 mounts: (.mounts // [] | sort_by(depth, .destination, tojson)), hooks: .hooks} | prune'
OTHER_FIELDS="$PRUNE"'
del(.process.env, .linux.devices, .linux.resources.devices, .mounts, .hooks,
    .annotations["io.kubernetes.cri-o.Created"], .root.path) | prune'
SORTED="$DEPTH"'[.mounts[] | depth] as $d | [range(1; $d | length) | select($d[. - 1] > $d[.])] | length == 0'

fails=0
problem() { echo "DIFF: $*"; fails=$((fails + 1)); }

# Premise: apart from CDI's fields, the base is the cdi container's config.
jq -S "$OTHER_FIELDS" "$tmp/base.json" >"$tmp/base.other"
jq -S "$OTHER_FIELDS" "$tmp/podman.json" >"$tmp/podman.other"
cmp -s "$tmp/base.other" "$tmp/podman.other" ||
	{ problem "premise: the podman configs differ outside the CDI fields:"; diff -u "$tmp/base.other" "$tmp/podman.other" | head -n 40; }

"$B/cdi-apply" --spec-dir /etc/cdi --spec-dir /var/run/cdi --config "$tmp/base.json" \
	--output "$tmp/cdikit.json" "${devices[@]}" >"$tmp/apply.log" 2>&1 ||
	{ sed 's/^/    /' "$tmp/apply.log"; die "cdi-apply failed"; }

n=$(jq '.process.env | length' "$tmp/base.json")
jq -S --argjson n "$n" "$CDI_FIELDS" "$tmp/podman.json" >"$tmp/podman.cdi"
jq -S --argjson n "$n" "$CDI_FIELDS" "$tmp/cdikit.json" >"$tmp/cdikit.cdi" || die "cdi-apply wrote bad JSON"
cmp -s "$tmp/podman.cdi" "$tmp/cdikit.cdi" ||
	{ problem "CDI edits differ (- podman, + cdi-apply):"; diff -u "$tmp/podman.cdi" "$tmp/cdikit.cdi" | sed 's/^/    /'; }
for f in podman cdikit; do
	[ "$(jq "$SORTED" "$tmp/$f.json")" = true ] || problem "$f: mounts not sorted by path depth"
done
# cdi-apply keeps what it does not edit (podman's fields survive the round trip).
jq -S "$OTHER_FIELDS" "$tmp/cdikit.json" >"$tmp/cdikit.other"
cmp -s "$tmp/base.other" "$tmp/cdikit.other" ||
	{ problem "cdi-apply changed fields CDI does not edit:"; diff -u "$tmp/base.other" "$tmp/cdikit.other" | head -n 40; }

[ "$fails" -eq 0 ] || die "$fails differences between podman and cdi-apply"
echo "e2e-podman: podman $(podman --version | awk '{print $3}') and cdi-apply agree on" \
	"$(jq '.env | length' "$tmp/cdikit.cdi") env entries, $(jq '.devices | length' "$tmp/cdikit.cdi") device nodes," \
	"$(jq '.resources | length' "$tmp/cdikit.cdi") cgroup rules, $(jq '.mounts | length' "$tmp/cdikit.cdi") mounts," \
	"$(jq '[.hooks[]?[]] | length' "$tmp/cdikit.cdi") hooks"
