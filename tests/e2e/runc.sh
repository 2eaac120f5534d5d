#!/usr/bin/env bash
# End to end with runc: cdi-apply edits a real bundle's config.json, runc runs it, and a static
# test program inside reports what it sees.
#
# The CDI spec (written to a temp spec dir) injects
#   - /dev/cdikit-test: a char node made here with mknod (c 1 3, like /dev/null, mode 0640), so
#     type, numbers and fileMode all come from lstat of the host node; full access;
#   - /dev/cdikit-ro: c 240 0 (a local/experimental major with no driver, and not one of the
#     devices runc always allows), permissions "r": the device cgroup must let an open for
#     reading through to the kernel (ENXIO, no driver) and refuse one for writing (EPERM);
#   - a read-only bind mount of a host file with random content at /cdikit/data.txt;
#   - env from the device and from the spec-level edits;
#   - a createRuntime hook, which runc runs on the host, writing a marker file.
# A control run of the same bundle without cdi-apply must see none of it, so the probe cannot
# pass by accident.
#
# Needs root, runc, a C compiler with a static libc (libc6-dev); else exit 77.
set -u
cd "$(dirname "$0")/../.."
: "${B:=build}"

skip() { echo "SKIP: $*"; exit 77; }
die() { echo "FAIL: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || skip "needs root (runc run, mknod)"
command -v runc >/dev/null 2>&1 || skip "runc not installed"
command -v jq >/dev/null 2>&1 || skip "jq not installed"
CC=${CC:-cc}
command -v "$CC" >/dev/null 2>&1 || skip "no C compiler"
[ -x "$B/cdi-apply" ] || die "$B/cdi-apply not built"

tmp=$(mktemp -d /tmp/cdikit-e2e-runc.XXXXXX)
state=$tmp/runc-state
id=cdikit-e2e-runc-$$
cleanup() {
	runc --root "$state" delete -f "$id" >/dev/null 2>&1
	runc --root "$state" delete -f "$id-control" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

cat >"$tmp/probe.c" <<'EOF'
/* Prints what the container sees: device nodes (type, numbers, mode, access), a file, env. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static void node(const char *path)
{
	struct stat st;
	if (lstat(path, &st) < 0) {
		printf("dev %s missing\n", path);
		return;
	}
	char t = S_ISCHR(st.st_mode) ? 'c' : S_ISBLK(st.st_mode) ? 'b' : S_ISFIFO(st.st_mode) ? 'p' : '?';
	printf("dev %s %c %u:%u mode %04o\n", path, t, major(st.st_rdev), minor(st.st_rdev),
	       (unsigned)(st.st_mode & 07777));
	int fd = open(path, O_RDONLY);
	printf("open-r %s %s\n", path, fd >= 0 ? "ok" : strerror(errno));
	if (fd >= 0)
		close(fd);
	fd = open(path, O_WRONLY);
	printf("open-w %s %s\n", path, fd >= 0 ? "ok" : strerror(errno));
	if (fd >= 0)
		close(fd);
}

int main(void)
{
	node("/dev/cdikit-test");
	node("/dev/cdikit-ro");
	char buf[256] = "";
	FILE *f = fopen("/cdikit/data.txt", "r");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		buf[strcspn(buf, "\n")] = 0;
		fclose(f);
		printf("file %s\n", buf);
	} else {
		printf("file missing\n");
	}
	f = fopen("/cdikit/data.txt", "a");
	printf("file-write %s\n", f ? "ok" : strerror(errno));
	if (f)
		fclose(f);
	const char *names[] = { "CDIKIT_TEST", "CDIKIT_SPEC" };
	for (unsigned i = 0; i < 2; i++) {
		const char *v = getenv(names[i]);
		printf("env %s=%s\n", names[i], v ? v : "(unset)");
	}
	return 0;
}
EOF
"$CC" -static -O2 -o "$tmp/probe" "$tmp/probe.c" 2>"$tmp/cc.log" ||
	skip "cannot link a static program (libc6-dev's libc.a?): $(tail -n 3 "$tmp/cc.log")"

# Host side: the nodes, the file, the spec.
mknod -m 0640 "$tmp/host-test" c 1 3 || die "mknod failed"
mknod -m 0640 "$tmp/host-ro" c 240 0 || die "mknod failed"
token=cdikit-$RANDOM-$RANDOM-$$
printf '%s\n' "$token" >"$tmp/data.txt"
mkdir -p "$tmp/cdi"
cat >"$tmp/cdi/e2e.yaml" <<EOF
cdiVersion: 0.5.0
kind: cdikit-test.example.com/e2e
containerEdits:
  env:
    - CDIKIT_SPEC=spec-level
  hooks:
    - hookName: createRuntime
      path: /bin/sh
      args: [sh, -c, 'echo createRuntime > $tmp/hook-ran']
devices:
  - name: dev0
    containerEdits:
      env:
        - CDIKIT_TEST=hello-from-cdi
      deviceNodes:
        - path: /dev/cdikit-test
          hostPath: $tmp/host-test
        - path: /dev/cdikit-ro
          hostPath: $tmp/host-ro
          permissions: r
      mounts:
        - hostPath: $tmp/data.txt
          containerPath: /cdikit/data.txt
          options: [ro, nosuid, nodev, bind]
EOF

# Bundle: rootfs with the probe only, config from runc spec, non-interactive.
bundle=$tmp/bundle
mkdir -p "$bundle/rootfs"
cp "$tmp/probe" "$bundle/rootfs/probe"
(cd "$bundle" && runc spec) || die "runc spec failed"
jq '.process.terminal = false | .process.args = ["/probe"]' "$bundle/config.json" >"$tmp/c.json" &&
	mv "$tmp/c.json" "$bundle/config.json" || die "jq failed"

# shellcheck source=lib/runc.sh
. tests/lib/runc.sh

# Control: without cdi-apply the probe sees nothing of the device.
run_bundle "$id-control" "$tmp/control.out" ||
	skip "runc cannot run a container here: $(tail -n 3 "$tmp/control.out")"
grep -q -x 'dev /dev/cdikit-test missing' "$tmp/control.out" &&
	grep -q -x 'env CDIKIT_TEST=(unset)' "$tmp/control.out" &&
	grep -q -x 'file missing' "$tmp/control.out" ||
	{ sed 's/^/    /' "$tmp/control.out"; die "control run: unexpected output"; }
[ ! -e "$tmp/hook-ran" ] || die "control run: hook marker exists"

"$B/cdi-apply" --spec-dir "$tmp/cdi" --config "$bundle/config.json" \
	cdikit-test.example.com/e2e=dev0 >"$tmp/apply.log" 2>&1 ||
	{ sed 's/^/    /' "$tmp/apply.log"; die "cdi-apply failed"; }

run_bundle "$id" "$tmp/run.out" || { sed 's/^/    /' "$tmp/run.out"; die "runc run failed after cdi-apply"; }
echo "probe output:"
sed 's/^/    /' "$tmp/run.out"

fails=0
expect() {
	grep -q -x -F -e "$1" "$tmp/run.out" || { echo "MISSING: $1"; fails=$((fails + 1)); }
}
expect "dev /dev/cdikit-test c 1:3 mode 0640"
expect "open-r /dev/cdikit-test ok"
expect "open-w /dev/cdikit-test ok"
expect "dev /dev/cdikit-ro c 240:0 mode 0640"
expect "open-r /dev/cdikit-ro No such device or address"
expect "open-w /dev/cdikit-ro Operation not permitted"
expect "file $token"
expect "file-write Read-only file system"
expect "env CDIKIT_TEST=hello-from-cdi"
expect "env CDIKIT_SPEC=spec-level"
if [ "$(cat "$tmp/hook-ran" 2>/dev/null)" != createRuntime ]; then
	echo "MISSING: the createRuntime hook did not run"
	fails=$((fails + 1))
fi
[ "$fails" -eq 0 ] || die "$fails expectations failed"
echo "e2e-runc: device nodes, cgroup access, bind mount, env and hook seen inside the container"
