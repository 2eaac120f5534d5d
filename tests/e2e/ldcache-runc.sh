#!/usr/bin/env bash
# The linker cache end to end, with runc and no hook: cdi-generate writes the spec of a simulated
# DGX host; the image is a Debian-layout glibc system with its own ldconfig and /etc/ld.so.cache,
# in which a CUDA stub libcuda.so.1 under /usr/local/cuda/lib64/stubs is registered (so, before
# cdikit, the stub wins over the driver's file in the default directory). After
# `cdi-apply --ldcache nvidia.com/gpu=0`, a probe inside the container reports:
#   - the first libcuda.so.1 `ldconfig -p` lists is the driver's;
#   - dlopen("libcuda.so.1") gets the driver's (it exports cdikit_sim_libcuda, which only the
#     simulated driver's library has; the stub exports cdikit_stub_libcuda);
#   - ldconfig run inside (as Debian's libc-bin trigger does) exits 0, and the driver still wins.
# An image with a newer CUDA compat libcuda (560 on the host's 550) loads the compat one; an
# older one (535) the host's. A read-only rootfs gets the cache by a bind mount: the driver
# wins, and ldconfig inside fails (nothing can be written there), as documented.
# A control run without --ldcache shows the stub winning (the premise). cdi-runtime always does
# the step: `cdi-runtime run` of a bundle that asks for the GPU by a cdi.k8s.io annotation gives
# the same result as cdi-apply --ldcache, with nothing else asked.
#
# Needs root (device nodes, runc run), runc, jq, a C compiler and binutils; else exit 77.
set -u
cd "$(dirname "$0")/../.."
: "${B:=build}"

skip() { echo "SKIP: $*"; exit 77; }
die() { echo "FAIL: $*"; exit 1; }

# shellcheck source=lib/runc.sh
. tests/lib/runc.sh
runc_e2e_require
[ -x /sbin/ldconfig ] || skip "no /sbin/ldconfig to put in the image"
CC=${CC:-cc}
[ -e "$B/cdi-runtime" ] || die "$B/cdi-runtime not built"

tmp=$(mktemp -d /tmp/cdikit-e2e-ldc.XXXXXX)
state=$tmp/runc-state
ids=()
cleanup() {
	local i
	for i in "${ids[@]}"; do runc --root "$state" delete -f "$i" >/dev/null 2>&1; done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# shellcheck source=lib/rootfs.sh
. tests/lib/rootfs.sh
dgx_spec "$tmp" || die "cannot build the simulated host and its spec"
[ ! -e "$tmp/host/.simhost-no-devnodes" ] || skip "the simulated host has no real device nodes"

cat >"$tmp/probe.c" <<'EOF'
/* What the container's linker sees: the first libcuda.so.1 of ldconfig -p, whose libcuda
 * dlopen loads, and whether ldconfig can run. */
#include <dlfcn.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int run_ldconfig(const char *arg, int show_first)
{
	char *argv[] = { "/sbin/ldconfig", (char *)arg, NULL };
	posix_spawn_file_actions_t fa;
	int fds[2], status = -1;
	pid_t pid;
	FILE *out;
	char line[512];

	if (pipe(fds) < 0)
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_addclose(&fa, fds[0]);
	if (posix_spawn(&pid, argv[0], &fa, NULL, arg ? argv : (char *[]){ argv[0], NULL }, environ))
		return -1;
	close(fds[1]);
	out = fdopen(fds[0], "r");
	while (fgets(line, sizeof(line), out))
		if (show_first && strstr(line, "libcuda.so.1 (libc6,x86-64)")) {
			printf("first %s", strstr(line, "=> ") + 3);
			show_first = 0;
		}
	fclose(out);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void probe(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);

	if (!h)
		puts("libcuda none");
	else if (dlsym(h, "cdikit_sim_libcuda"))
		puts("libcuda driver");
	else if (dlsym(h, "cdikit_compat_libcuda"))
		puts("libcuda compat");
	else if (dlsym(h, "cdikit_stub_libcuda"))
		puts("libcuda stub");
	else
		puts("libcuda unknown");
}

int main(void)
{
	run_ldconfig("-p", 1);
	probe();
	printf("ldconfig rc=%d\n", run_ldconfig(NULL, 0));
	printf("after: ");
	fflush(stdout);
	run_ldconfig("-p", 1);
	printf("after: ");
	probe();
	return 0;
}
EOF
"$CC" -O2 -o "$tmp/probe" "$tmp/probe.c" || die "cannot build the probe"


# new_bundle NAME READONLY [COMPAT_VERSION]: a bundle whose image registers a CUDA stub.
new_bundle() {
	bundle=$tmp/$1
	local rootfs=$bundle/rootfs
	make_debian_rootfs "$rootfs" || die "cannot build the rootfs"
	cp "$tmp/probe" "$rootfs/usr/bin/probe"
	make_stub_lib "$rootfs/usr/local/cuda/lib64/stubs/libcuda.so.1" libcuda.so.1 cdikit_stub_libcuda ||
		die "cannot build the stub"
	if [ -n "${3:-}" ]; then
		make_stub_lib "$rootfs/usr/local/cuda/compat/libcuda.so.$3" libcuda.so.1 cdikit_compat_libcuda ||
			die "cannot build the compat library"
		ln -s "libcuda.so.$3" "$rootfs/usr/local/cuda/compat/libcuda.so.1"
	fi
	add_ldconfig "$rootfs" || die "cannot run ldconfig over the rootfs"
	echo /usr/local/cuda/lib64/stubs >"$rootfs/etc/ld.so.conf.d/cuda-stubs.conf"
	ldconfig -r "$rootfs" || die "ldconfig -r failed"
	(cd "$bundle" && runc spec) || die "runc spec failed"
	jq --argjson ro "$2" '.process.terminal = false | .process.args = ["/usr/bin/probe"] | .root.readonly = $ro' \
		"$bundle/config.json" >"$tmp/c.json" && mv "$tmp/c.json" "$bundle/config.json" || die "jq failed"
}

# run NAME: run the bundle, output in $tmp/NAME.out
run() {
	ids+=("cdikit-e2e-ldc-$1-$$")
	run_bundle "cdikit-e2e-ldc-$1-$$" "$tmp/$1.out" || { sed 's/^/    /' "$tmp/$1.out"; die "$1: runc run failed"; }
	sed "s/^/    $1: /" "$tmp/$1.out"
}
expect() { # name line...
	local n=$1 w
	shift
	for w in "$@"; do grep -qxF "$w" "$tmp/$n.out" || die "$n: expected inside the container: $w"; done
}
apply() { "$B/cdi-apply" --spec-dir "$tmp/cdi" --config "$bundle/config.json" --ldcache nvidia.com/gpu=0 ||
	die "cdi-apply --ldcache failed"; }

driver=/usr/local/nvidia/lib64/libcuda.so.1 # in the library directory: its cache file names it

# Premise: the devices alone (no --ldcache) leave the image's stub first.
new_bundle control false
"$B/cdi-apply" --spec-dir "$tmp/cdi" --config "$bundle/config.json" nvidia.com/gpu=0 || die "cdi-apply failed"
ids+=("cdikit-e2e-ldc-premise-$$")
run_bundle "cdikit-e2e-ldc-premise-$$" "$tmp/premise.out" ||
	skip "runc cannot run a container here: $(tail -n 3 "$tmp/premise.out")"
expect premise "first /usr/local/cuda/lib64/stubs/libcuda.so.1" "libcuda stub"

new_bundle writable false
apply
run writable
expect writable "first $driver" "libcuda driver" "ldconfig rc=0" "after: first $driver" "after: libcuda driver"

# cdi-runtime as the runtime: the devices from an annotation, the cache without being asked.
new_bundle runtime false
jq '.annotations["cdi.k8s.io/e2e"] = "nvidia.com/gpu=0"' "$bundle/config.json" >"$tmp/c.json" &&
	mv "$tmp/c.json" "$bundle/config.json" || die "jq failed"
: >"$tmp/runtime.conf" # not the machine's /etc/cdikit/runtime.conf
ids+=("cdikit-e2e-ldc-runtime-$$")
CDIKIT_CONFIG=$tmp/runtime.conf timeout 120 "$B/cdi-runtime" --cdi-spec-dir "$tmp/cdi" --root "$state" \
	run --bundle "$bundle" "cdikit-e2e-ldc-runtime-$$" >"$tmp/runtime.out" 2>&1 </dev/null ||
	{ sed 's/^/    /' "$tmp/runtime.out"; die "runtime: cdi-runtime run failed"; }
runc --root "$state" delete -f "cdikit-e2e-ldc-runtime-$$" >/dev/null 2>&1
sed "s/^/    runtime: /" "$tmp/runtime.out"
expect runtime "first $driver" "libcuda driver" "ldconfig rc=0" "after: first $driver" "after: libcuda driver"

new_bundle newer false 560.35.03
apply
run newer
expect newer "first /usr/local/cuda/compat/libcuda.so.1" "libcuda compat" "ldconfig rc=0" \
	"after: first /usr/local/cuda/compat/libcuda.so.1" "after: libcuda compat"

new_bundle older false 535.104.05
apply
run older
expect older "first $driver" "libcuda driver" "ldconfig rc=0" "after: libcuda driver"

new_bundle readonly true
apply
jq -e '.mounts[] | select(.destination == "/etc/ld.so.cache")' "$bundle/config.json" >/dev/null ||
	die "readonly: no cache mount in config.json"
run readonly
expect readonly "first $driver" "libcuda driver" "ldconfig rc=1" "after: libcuda driver"

echo "e2e-ldcache-runc: the driver's libcuda.so.1 is first and loaded over an image stub, before and after ldconfig, through cdi-apply --ldcache and cdi-runtime; newer compat wins, older does not; a read-only rootfs gets a mounted cache"
