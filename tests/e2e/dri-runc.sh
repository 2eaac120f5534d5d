#!/usr/bin/env bash
# End to end for graphics, with no hook anywhere: cdi-generate writes the spec of the simulated
# graphics workstation (two RTX A6000, nvidia-drm loaded, DRI nodes root:video/render 0660 as
# Debian's udev makes them), cdi-apply injects GPU 0 into a runc bundle whose process runs as an
# unprivileged user, runc runs a probe inside, and the probe reports:
#   - /dev/dri/card1 and /dev/dri/renderD128 with the host's numbers, and the by-path names
#     applications open (/dev/dri/by-path/pci-0000:17:00.0-{card,render}) as the same devices,
#     made without a symlink hook;
#   - the render node's group is the host's render group, and the process has the video and
#     render groups (the spec's additionalGids), so it may open them as on the host;
#   - GPU 1's DRI nodes, and simpledrm's card0, are absent;
#   - EGL's application profile limits it to GPU 0 (EGLVisibleDGPUDevices 0x1), as nvidia-ctk's
#     update-application-profile hook would have written it.
#
# Needs root (mknod for the simulated host, runc run), runc, jq, a C compiler; else exit 77.
set -u
cd "$(dirname "$0")/../.."
: "${B:=build}"

skip() { echo "SKIP: $*"; exit 77; }
die() { echo "FAIL: $*"; exit 1; }

# shellcheck source=lib/runc.sh
. tests/lib/runc.sh
runc_e2e_require
CC=${CC:-cc}

tmp=$(mktemp -d /tmp/cdikit-e2e-dri.XXXXXX)
state=$tmp/runc-state
id=cdikit-e2e-dri-$$
trap 'runc --root "$state" delete -f "$id" >/dev/null 2>&1; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP

host=$tmp/host
tests/simhost/make-host --topology workstation --mock-dir "$B/tests/mock-nvml" --out "$host" \
	>"$tmp/make-host.log" 2>&1 || die "make-host: $(tail -n 3 "$tmp/make-host.log")"
[ ! -e "$host/.simhost-no-devnodes" ] || skip "the simulated host has no real device nodes"
# cdikit installed on that host: the EGL application profiles its GPU devices mount.
[ -f "$B/share/cdikit/application-profiles/gpu0.conf" ] || die "$B/share/cdikit/application-profiles not built"
mkdir -p "$host/usr/share/cdikit" && cp -r "$B/share/cdikit/application-profiles" "$host/usr/share/cdikit/" ||
	die "cannot install the application profiles on the host"
mkdir -p "$tmp/cdi"
"$B/cdi-generate" -q --root "$host" --output "$tmp/cdi/nvidia.yaml" || die "cdi-generate failed"
grep -q '^cdiVersion: "0.7.0"$' "$tmp/cdi/nvidia.yaml" || die "the spec is not 0.7.0 (additionalGids)"

cat >"$tmp/probe.c" <<'EOF'
/* Reports what the container sees: device nodes with numbers and group, the process's groups,
 * the EGL application profile. */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	gid_t groups[64];
	int n = getgroups(64, groups);

	char profile[512];
	FILE *f = fopen("/etc/nvidia/nvidia-application-profiles-rc.d/10-container.conf", "r");

	if (f && fgets(profile, sizeof(profile), f))
		printf("profile %s", profile);
	else
		printf("profile missing\n");
	if (f)
		fclose(f);
	printf("uid %u\n", (unsigned)getuid());
	for (int i = 0; i < n; i++)
		printf("group %u\n", (unsigned)groups[i]);
	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (lstat(argv[i], &st) < 0)
			printf("node %s missing\n", argv[i]);
		else
			printf("node %s %c %u:%u gid %u mode %o\n", argv[i],
			       S_ISCHR(st.st_mode) ? 'c' : '?', major(st.st_rdev), minor(st.st_rdev),
			       (unsigned)st.st_gid, (unsigned)(st.st_mode & 07777));
	}
	return 0;
}
EOF
"$CC" -O2 -o "$tmp/probe" "$tmp/probe.c" || die "cannot build the probe"

# shellcheck source=lib/rootfs.sh
. tests/lib/rootfs.sh
bundle=$tmp/bundle
rootfs=$bundle/rootfs
make_debian_rootfs "$rootfs" || die "cannot build the rootfs"
cp "$tmp/probe" "$rootfs/usr/bin/probe"

bp=/dev/dri/by-path/pci-0000:17:00.0
nodes=(/dev/dri/card1 /dev/dri/renderD128 "$bp-card" "$bp-render" /dev/dri/card2
	/dev/dri/renderD129 /dev/dri/by-path/pci-0000:65:00.0-render /dev/dri/card0 /dev/nvidia0)
(cd "$bundle" && runc spec) || die "runc spec failed"
jq --argjson nodes "$(printf '%s\n' "${nodes[@]}" | jq -R . | jq -s .)" \
	'.process.terminal = false | .process.user = {uid: 1000, gid: 1000} |
	 .process.args = ["/usr/bin/probe"] + $nodes' \
	"$bundle/config.json" >"$tmp/c.json" && mv "$tmp/c.json" "$bundle/config.json" || die "jq failed"
"$B/cdi-apply" --spec-dir "$tmp/cdi" --config "$bundle/config.json" nvidia.com/gpu=0 ||
	die "cdi-apply failed"
! jq -e '.hooks // {} | length > 0' "$bundle/config.json" >/dev/null || die "config.json got hooks"
jq -e '.process.user.additionalGids == [44, 105]' "$bundle/config.json" >/dev/null ||
	die "config.json: additionalGids $(jq -c .process.user.additionalGids "$bundle/config.json")"

run_bundle "$id" "$tmp/run.out" || {
	grep -q 'mknod\|operation not permitted' "$tmp/run.out" &&
		skip "runc cannot make device nodes here: $(tail -n 2 "$tmp/run.out")"
	sed 's/^/    /' "$tmp/run.out"
	die "runc run failed"
}
sed 's/^/    /' "$tmp/run.out"

numbers() { stat -c '%Hr:%Lr' "$host$1"; }
[ "$(numbers /dev/dri/renderD128)" = 226:128 ] && [ "$(stat -c %g "$host/dev/dri/renderD128")" = 105 ] ||
	die "the simulated host's render node is not 226:128 of group 105"
want=(
	"uid 1000"
	"group 44"
	"group 105"
	"node /dev/dri/card1 c 226:1 gid 44 mode 660"
	"node /dev/dri/renderD128 c 226:128 gid 105 mode 660"
	"node $bp-card c 226:1 gid 44 mode 660"
	"node $bp-render c 226:128 gid 105 mode 660"
	"node /dev/dri/card2 missing"
	"node /dev/dri/renderD129 missing"
	"node /dev/dri/by-path/pci-0000:65:00.0-render missing"
	"node /dev/dri/card0 missing"
	'profile {"profiles":[{"name":"_container_","settings":["EGLVisibleDGPUDevices",0x1]}],"rules":[{"pattern":[],"profile":"_container_"}]}'
)
for w in "${want[@]}"; do
	grep -qxF "$w" "$tmp/run.out" || die "expected inside the container: $w"
done
grep -qE '^node /dev/nvidia0 c 195:0 ' "$tmp/run.out" || die "expected inside the container: /dev/nvidia0"
echo "e2e-dri-runc: GPU 0's card1, renderD128 and their by-path names inside with the host's numbers and groups; the user has video and render; GPU 1's and card0 absent; EGL limited to GPU 0"
