#!/usr/bin/env bash
# The Kubernetes deployment (deploy/kubernetes), offline:
#   - the DaemonSet against the in-tree subset of the apps/v1 DaemonSet schema
#     (python3-jsonschema) plus what the API server and kubelet would refuse or break on
#     (tests/kubernetes/check-manifest.py); broken copies of it are rejected;
#   - the image: the Containerfile's final stage is FROM scratch with one COPY of what
#     stage-rootfs lays out; the test runs stage-rootfs on this build to get that root
#     filesystem, and the manifest's command and programs must be in it;
#   - runc runs that root filesystem read-only as the manifest's container, with the
#     manifest's host mounts taken from a simulated GPU host and its command line (a short
#     interval): the container copies cdi-generate and its C library to the host's
#     /run/cdikit, writes /var/run/cdi/nvidia.yaml there with the host's own paths (the same
#     spec cdi-generate --root writes, without the prefix), rewrites it when it goes stale,
#     leaves it alone while fresh, and exits 0 on SIGTERM.
# shellcheck source=lib/suite.sh
. "$(dirname "$0")/lib/suite.sh"

py=/usr/bin/python3
"$py" -c 'import jsonschema, yaml' 2>/dev/null || skip "Debian's python3-jsonschema and python3-yaml are not installed"
command -v jq >/dev/null 2>&1 || skip "jq not installed"
version=$(sed -n 's/^VERSION := //p' Makefile)
# Images are never built with the sanitizers: take the plain build beside a SANITIZE=1 one.
build=${B%/san}
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory BUILD="$build" SANITIZE=0 \
	"$build/cdi-generate" "$build/cdikit-refresh-loop" >/dev/null || die "cannot build the image's programs"
[ -e "$B/tests/mock-nvml/libnvidia-ml.so.1" ] || die "$B/tests/mock-nvml not built"
tmp=$(mktemp -d /tmp/cdikit-k8s.XXXXXX)
state=$tmp/runc-state
id=cdikit-k8s-$$
cleanup() {
	runc --root "$state" delete -f "$id" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
kdir=deploy/kubernetes

# The image: FROM scratch plus one COPY of what stage-rootfs lays out in the build stage.
final=$(awk '/^FROM /{n++} n == 2' "$kdir/Containerfile")
[ "$(grep -c '^FROM ' "$kdir/Containerfile")" -eq 2 ] && grep -qx 'FROM scratch' <<<"$final" ||
	die "the Containerfile's final stage is not FROM scratch"
[ "$(grep '^COPY' <<<"$final")" = 'COPY --from=build /rootfs/ /' ] || die "the final stage copies more than /rootfs"
grep -q 'deploy/kubernetes/stage-rootfs /build /rootfs' "$kdir/Containerfile" &&
	grep -q 'make .*/build/cdi-generate /build/cdikit-refresh-loop' "$kdir/Containerfile" ||
	die "the build stage does not make the programs and run stage-rootfs"
entrypoint=$(sed -n 's/^ENTRYPOINT \["\([^"]*\)"\]$/\1/p' <<<"$final")
rootfs=$tmp/rootfs
"$kdir/stage-rootfs" "$build" "$rootfs" || die "stage-rootfs failed"
[ -x "$rootfs$entrypoint" ] || die "ENTRYPOINT $entrypoint is not in the image"
ok "image: FROM scratch + stage-rootfs: $(cd "$rootfs" && find . -type f -o -type l | wc -l) files, entrypoint $entrypoint"

# Broken copies must fail: a misspelt field, a wrong type, a mount of no volume, a read-only
# /run, no GPU node selector, another version.
mutations=('s/nodeSelector:/nodeselector:/' 's/privileged: true/privileged: "yes"/'
	'0,/- name: host-dev$/s//- name: host-devs/' '/mountPath: \/host\/run$/a\              readOnly: true'
	's/nvidia.com\/gpu.present: "true"/nvidia.com\/gpu.present: "false"/' 's/image: cdikit:.*/image: cdikit:0.0.1/')
broken=()
for m in "${mutations[@]}"; do
	broken+=("$tmp/broken-${#broken[@]}.yaml")
	sed "$m" "$kdir/daemonset.yaml" >"${broken[-1]}"
	! cmp -s "${broken[-1]}" "$kdir/daemonset.yaml" || die "mutation $m changed nothing"
done
"$py" tests/kubernetes/check-manifest.py tests/kubernetes/daemonset.schema.json "$rootfs" "$version" \
	"$kdir/daemonset.yaml" "${broken[@]}" >"$tmp/container.json" || die "$(cat "$tmp/container.json")"
[ "$(jq -r '.args[0]' "$tmp/container.json")" = "$entrypoint" ] || die "the manifest's command is not the ENTRYPOINT"
ok "the DaemonSet passes the apps/v1 schema subset and the checks; ${#mutations[@]} broken copies fail"

[ "$(id -u)" -eq 0 ] || skip "needs root for runc and the simulated host's device nodes"
command -v runc >/dev/null 2>&1 || skip "runc not installed"
host=$tmp/host
tests/simhost/make-host --topology dgx-mig --mock-dir "$B/tests/mock-nvml" --out "$host" >/dev/null ||
	die "make-host failed"
spec=$host/run/cdi/nvidia.yaml

# The manifest's container under runc: its command line with a short interval and without the
# options that load modules and make nodes (the live kernel's business, tested with the
# generator); its host mounts from the simulated host; privileged's capabilities.
bundle=$tmp/bundle
mkdir -p "$bundle" && (cd "$bundle" && runc spec) || die "runc spec failed"
caps='["CAP_CHOWN","CAP_DAC_OVERRIDE","CAP_FOWNER","CAP_FSETID","CAP_KILL","CAP_MKNOD","CAP_SETGID",
	"CAP_SETUID","CAP_SYS_CHROOT","CAP_SYS_ADMIN","CAP_SYS_MODULE","CAP_AUDIT_WRITE"]'
jq --slurpfile c "$tmp/container.json" --arg root "$rootfs" --arg host "$host" --argjson caps "$caps" '
	.process.terminal = false |
	.process.args = [$c[0].args[] | select(. != "--load-modules" and . != "--create-device-nodes")
		| if startswith("--interval=") then "--interval=0.2" else . end] |
	.process.capabilities = {bounding: $caps, effective: $caps, permitted: $caps} |
	.root = {path: $root, readonly: $c[0].readOnlyRoot} |
	.mounts += [$c[0].mounts[] | {destination, type: "bind",
		source: ($host + (if .hostPath == "/" then "" else .hostPath end)),
		options: ["rbind", (if .readOnly then "ro" else "rw" end)]}]' \
	"$bundle/config.json" >"$tmp/config.json" && mv "$tmp/config.json" "$bundle/config.json" || die "jq failed"
timeout 120 runc --root "$state" run --bundle "$bundle" "$id" >"$tmp/loop.out" 2>&1 </dev/null &
runc_pid=$!

# wait_for WHAT COMMAND...: poll COMMAND for up to 20 s.
wait_for() {
	local what=$1 _
	shift
	for _ in $(seq 200); do
		"$@" && return 0
		kill -0 "$runc_pid" 2>/dev/null || die "the container exited while waiting for $what: $(cat "$tmp/loop.out")"
		sleep 0.1
	done
	die "no $what after 20 s: $(cat "$tmp/loop.out")"
}
wait_for "spec in the host's /var/run/cdi" test -s "$spec"
[ -x "$host/run/cdikit/bin/cdi-generate" ] && [ -e "$host/run/cdikit/lib/libc.so.6" ] ||
	die "the programs were not copied to the host's /run/cdikit"
"$build/cdi-generate" --root "$host" --library-layout files --output "$tmp/want.yaml" || die "cdi-generate --root failed"
# The same spec, with the host's paths as they are on the host: no prefix, and device nodes
# whose hostPath is their path say so by leaving it out.
"$py" - "$tmp/want.yaml" "$spec" "$host" <<'EOF' || die "the container's spec differs from cdi-generate --root's"
import sys, yaml
want_file, got_file, prefix = sys.argv[1:]
def strip(v):
    if isinstance(v, dict):
        v = {k: strip(x) for k, x in v.items()}
        if "path" in v and v.get("hostPath") == v["path"]:
            del v["hostPath"]
        return v
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v[len(prefix):] if isinstance(v, str) and v.startswith(prefix + "/") else v
want, got = (yaml.safe_load(open(f)) for f in (want_file, got_file))
if strip(want) != strip(got):
    print("want:", yaml.safe_dump(strip(want))[:2000], "got:", yaml.safe_dump(strip(got))[:2000], sep="\n")
    sys.exit(1)
if prefix in open(got_file).read():
    sys.exit(f"{got_file} names paths under {prefix}")
EOF
ok "the container wrote the host's spec with the host's paths, from the host's libnvidia-ml"

cp "$spec" "$tmp/fresh.yaml"
echo '# changed' >>"$spec"
wait_for "rewrite of a stale spec" cmp -s "$spec" "$tmp/fresh.yaml"
[ "$(grep -c 'rewrote the spec' "$tmp/loop.out")" -eq 2 ] && grep -q 'is stale' "$tmp/loop.out" ||
	die "the rewrite was not logged once with its reason: $(cat "$tmp/loop.out")"
before=$(stat -c '%i %Y.%N' "$spec")
sleep 1 # five intervals
[ "$(stat -c '%i %Y.%N' "$spec")" = "$before" ] && [ "$(grep -c 'rewrote the spec' "$tmp/loop.out")" -eq 2 ] &&
	! grep -q 'up to date' "$tmp/loop.out" || die "a fresh spec was rewritten or logged: $(cat "$tmp/loop.out")"
ok "a stale spec is rewritten within an interval; a fresh one is left alone, quietly"

runc --root "$state" kill "$id" TERM || die "runc kill failed"
wait "$runc_pid"
rc=$?
[ "$rc" -eq 0 ] || die "the container exited $rc on SIGTERM: $(cat "$tmp/loop.out")"
ok "SIGTERM stops it, exit 0"

# The loop program itself, as this suite's build made it (with SANITIZE=1, under ASan and
# LSan): its command line, --once, --install.
loop=$B/cdikit-refresh-loop
inner=(-- /run/cdikit/lib/ld.so --library-path /run/cdikit/lib /run/cdikit/bin/cdi-generate
	--library-layout=files --output /var/run/cdi/nvidia.yaml)
for bad in "" "-- cdi-generate" "--interval=0 -- /bin/true" "--interval=x -- /bin/true" \
	"--install=/cdikit -- /bin/true" "--chroot=$tmp/none -- /bin/true" "--bogus -- /bin/true"; do
	# shellcheck disable=SC2086
	"$loop" $bad >/dev/null 2>&1
	[ $? -eq 2 ] || die "cdikit-refresh-loop $bad: not a usage error"
done
"$loop" --help | grep -q '^Usage: cdikit-refresh-loop' && "$loop" --version | grep -qF "$version" ||
	die "cdikit-refresh-loop --help/--version"
! "$loop" --help >/dev/full 2>/dev/null || die "--help >/dev/full succeeds"
"$loop" --once --chroot="$host" "${inner[@]}" >"$tmp/once.out" 2>&1 && [ ! -s "$tmp/once.out" ] ||
	die "--once on a fresh spec is not a quiet success: $(cat "$tmp/once.out")"
"$loop" --once --chroot="$host" --install="$tmp/none:/run/cdikit" "${inner[@]}" >"$tmp/once.out" 2>&1 &&
	die "--install of a missing tree succeeds"
grep -q "$tmp/none" "$tmp/once.out" || die "a failed --install does not name the tree: $(cat "$tmp/once.out")"
"$loop" --once --chroot="$host" -- /run/cdikit/bin/cdi-generate --output /var/run/cdi/nvidia.yaml >"$tmp/once.out" 2>&1 &&
	die "--once with a command that cannot run succeeds"
rm "$spec"
"$loop" --once --chroot="$host" --install="$rootfs/cdikit:/run/cdikit" "${inner[@]}" >"$tmp/once.out" 2>&1 ||
	die "--once --install: $(cat "$tmp/once.out")"
grep -q 'rewrote the spec' "$tmp/once.out" && cmp -s "$spec" "$tmp/fresh.yaml" ||
	die "--once did not rewrite a missing spec: $(cat "$tmp/once.out")"
ok "cdikit-refresh-loop: usage errors, --once quiet when fresh, rewrites when missing"
echo "PASS: kubernetes"
