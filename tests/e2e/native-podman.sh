#!/usr/bin/env bash
# The native path: podman (Debian's 4.3, its own vendored CNCF CDI library) reads the spec of
# cdi-generate's default layout (the library directory) and nothing of cdikit runs at container
# start. Images
# (Debian-layout glibc systems built here, imported into a private podman store):
#   cuda    the CUDA images' LD_LIBRARY_PATH=/usr/local/nvidia/lib:/usr/local/nvidia/lib64 in
#           its config, and a stub libcuda.so.1 under /usr/local/cuda/lib64/stubs registered in
#           its own /etc/ld.so.cache (the cache comes before the default directories)
#   distro  its own ld.so.cache, no LD_LIBRARY_PATH (a PyTorch-like or plain Debian image)
#   bare    no ld.so.cache at all
# `podman run --device nvidia.com/gpu=all` runs a probe that dlopens libcuda.so.1 (the driver's
# exports cdikit_sim_libcuda, which only the simulated driver library has; the stub exports
# cdikit_stub_libcuda), libnvidia-ml.so.1, libEGL_nvidia.so.0 (in the directory only) and the
# library /etc/OpenCL/vendors/nvidia.icd names (the OpenCL ICD loader's way).
#   - directory of hard links (on the driver's filesystem): every image gets the driver's
#     libcuda and NVML, the CUDA image the EGL library too, and the ICD file names the
#     directory's libnvidia-opencl by absolute path, so even the bare image loads it;
#   - the default place: /etc/cdi is a tmpfs here, so the directory goes to ROOT/var/lib/cdikit,
#     of hard links;
#   - directory of bind mounts (asked for beside the spec, on that tmpfs): the same, which shows
#     the spec's rbind carries the per-file mounts into the container;
#   - control: the per-file layout loses to the stub in the CUDA image (the premise).
# The machine's /etc/cdi is never read or written: the test runs in a private mount namespace
# whose /etc is an overlay and /etc/cdi a tmpfs (as tests/e2e/podman.sh). Where the sandbox
# refuses the rlimits podman sets, the containers run through a wrapper that drops
# process.rlimits from config.json and execs runc (podman still applies the spec).
#
# Needs root, podman, runc, jq, a C compiler and binutils; exits 77 with the reason otherwise.
set -u
cd "$(dirname "$0")/../.."
: "${B:=build}"
case $B in /*) ;; *) B=$PWD/$B ;; esac

skip() { echo "SKIP: $*"; exit 77; }
die() { echo "FAIL: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || skip "needs root (a private mount namespace, device nodes)"
for c in podman runc jq unshare; do command -v $c >/dev/null 2>&1 || skip "$c not installed"; done
[ -x /sbin/ldconfig ] || skip "no /sbin/ldconfig to put in the images"
for f in cdi-generate tests/mock-nvml/libnvidia-ml.so.1; do [ -e "$B/$f" ] || die "$B/$f not built"; done

if [ -z "${CDIKIT_NATIVE_PRIVATE_ETC:-}" ]; then
	# A PID namespace too, so that cdi-generate sees its mount namespace as init's (it builds
	# the directory of bind mounts only there) and podman still runs in it.
	CDIKIT_NATIVE_PRIVATE_ETC=1 exec unshare -m -p --fork --mount-proc --propagation private bash "$0" "$@"
	skip "unshare -m failed"
fi

tmp=$(mktemp -d /tmp/cdikit-e2e-native.XXXXXX)
P=(podman --root "$tmp/storage" --runroot "$tmp/runroot" --tmpdir "$tmp/libpod-tmp"
	--storage-driver vfs --hooks-dir "$tmp/hooks.d" --events-backend none
	--cgroup-manager cgroupfs)
images=(cuda distro bare)
cleanup() {
	local i
	for i in "${images[@]}"; do "${P[@]}" rmi -f "localhost/cdikit-native-$i:$$" >/dev/null 2>&1; done
	findmnt -rn -o TARGET | grep -F "$tmp/" | sort -r | while read -r m; do umount -l "$m"; done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
mkdir -p "$tmp/hooks.d" "$tmp/libpod-tmp"

# shellcheck source=lib/rootfs.sh
. tests/lib/rootfs.sh
tests/simhost/make-host --topology dgx-mig --mock-dir "$B/tests/mock-nvml" --out "$tmp/host" >/dev/null ||
	die "make-host failed"
[ ! -e "$tmp/host/.simhost-no-devnodes" ] || skip "the simulated host has no real device nodes"

cat >"$tmp/probe.c" <<'EOF'
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
/* The library the OpenCL ICD file names, loaded as the ICD loader loads it. */
static void *opencl_icd(void)
{
	FILE *f = fopen("/etc/OpenCL/vendors/nvidia.icd", "r");
	char buf[4096];

	if (!f || !fgets(buf, sizeof(buf), f)) {
		if (f)
			fclose(f);
		return NULL;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return dlopen(buf, RTLD_NOW);
}
int main(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW);
	printf("libcuda %s\n", !h ? "none" : dlsym(h, "cdikit_sim_libcuda") ? "driver" :
		dlsym(h, "cdikit_stub_libcuda") ? "stub" : "other");
	h = dlopen("libnvidia-ml.so.1", RTLD_NOW);
	printf("nvml %s\n", h && dlsym(h, "nvmlInit_v2") ? "driver" : "none"); /* the mock NVML */
	h = dlopen("libEGL_nvidia.so.0", RTLD_NOW);
	printf("egl %s\n", h && dlsym(h, "cdikit_sim_libEGL_nvidia") ? "driver" : "none");
	h = opencl_icd();
	printf("opencl-icd %s\n", h && dlsym(h, "cdikit_sim_libnvidia_opencl") ? "driver" : "none");
	return 0;
}
EOF
${CC:-cc} -O2 -o "$tmp/probe" "$tmp/probe.c" || die "cannot build the probe"

# image NAME [podman import --change ...]: a Debian-layout rootfs with the probe.
image() {
	local name=$1 r=$tmp/img/$1
	shift
	make_debian_rootfs "$r" || die "rootfs $name"
	cp "$tmp/probe" "$r/usr/bin/probe"
	case $name in
	cuda)
		make_stub_lib "$r/usr/local/cuda/lib64/stubs/libcuda.so.1" libcuda.so.1 cdikit_stub_libcuda ||
			die "stub"
		add_ldconfig "$r" || die "ldconfig"
		echo /usr/local/cuda/lib64/stubs >"$r/etc/ld.so.conf.d/cuda-stubs.conf"
		ldconfig -r "$r" || die "ldconfig -r"
		ldconfig -p -C "$r/etc/ld.so.cache" | grep -q 'stubs/libcuda.so.1' || die "premise: no stub in the cuda image's cache"
		;;
	distro) add_ldconfig "$r" || die "ldconfig" ;;
	esac
	tar -C "$r" -cf "$r.tar" . || die "tar"
	"${P[@]}" import "$@" "$r.tar" "localhost/cdikit-native-$name:$$" >"$tmp/import.log" 2>&1 ||
		skip "podman import fails here: $(tail -n 2 "$tmp/import.log")"
}
image cuda --change 'ENV LD_LIBRARY_PATH=/usr/local/nvidia/lib:/usr/local/nvidia/lib64'
image distro
image bare

# The private /etc with an empty /etc/cdi (a tmpfs: another filesystem than the host's files).
mkdir -p "$tmp/etc-upper" "$tmp/etc-work"
mount -t overlay cdikit-etc -o "lowerdir=/etc,upperdir=$tmp/etc-upper,workdir=$tmp/etc-work" /etc ||
	skip "cannot mount an overlay on /etc in a private namespace"
mkdir -p /etc/cdi && mount -t tmpfs -o mode=0755 cdikit-cdi /etc/cdi || skip "cannot mount a tmpfs on /etc/cdi"

# The runtime: runc, or a wrapper dropping the rlimits this sandbox refuses.
cat >"$tmp/runtime" <<EOF
#!/bin/bash
b=
prev=
for a in "\$@"; do [ "\$prev" = --bundle ] && b=\$a; prev=\$a; done
if [ -n "\$b" ] && [ -f "\$b/config.json" ]; then
	jq 'del(.process.rlimits)' "\$b/config.json" >"\$b/config.json.new" && mv "\$b/config.json.new" "\$b/config.json"
fi
exec $(command -v runc) "\$@"
EOF
chmod +x "$tmp/runtime"
runtime=runc
"${P[@]}" run --rm --network none --runtime runc "localhost/cdikit-native-bare:$$" /usr/bin/probe >"$tmp/try.log" 2>&1 ||
	{ grep -qi rlimit "$tmp/try.log" && runtime=$tmp/runtime; }

fails=0
# expect LABEL IMAGE WANT...: the probe's lines in the image with nvidia.com/gpu=all.
expect() {
	local label=$1 img=$2 w
	shift 2
	"${P[@]}" run --rm --network none --runtime "$runtime" --device nvidia.com/gpu=all \
		"localhost/cdikit-native-$img:$$" /usr/bin/probe >"$tmp/out" 2>&1 ||
		{ sed 's/^/    /' "$tmp/out"; die "$label: podman run $img failed"; }
	for w in "$@"; do
		grep -qx "$w" "$tmp/out" || { echo "FAIL: $label, $img image: want '$w', got: $(tr '\n' ' ' <"$tmp/out")"; fails=$((fails + 1)); }
	done
}

gen() { "$B/cdi-generate" -v --root "$tmp/host" --output /etc/cdi/nvidia.yaml "$@" 2>"$tmp/gen.log" ||
	{ cat "$tmp/gen.log"; die "cdi-generate $* failed"; }; }

# 1. On the driver's filesystem: hard links.
gen --library-dir "$tmp/lib/nvidia.lib"
grep -q "built of hard links" "$tmp/gen.log" || { cat "$tmp/gen.log"; die "not built of hard links"; }
n=$(grep -c 'containerPath:' /etc/cdi/nvidia.yaml)
expect "hard links" cuda "libcuda driver" "nvml driver" "egl driver"
expect "hard links" distro "libcuda driver" "nvml driver"
expect "hard links" bare "libcuda driver" "nvml driver" "opencl-icd driver"

# 2. The default: /etc/cdi is a tmpfs here, where no hard link to the driver's files can be made;
# the directory goes to ROOT/var/lib/cdikit, on the driver's filesystem.
gen
grep -q "library directory $tmp/host/var/lib/cdikit/etc-cdi-nvidia.lib built of hard links" "$tmp/gen.log" ||
	{ cat "$tmp/gen.log"; die "the default layout did not build ROOT/var/lib/cdikit/etc-cdi-nvidia.lib of hard links"; }
expect "default place" cuda "libcuda driver" "nvml driver" "egl driver"
expect "default place" bare "libcuda driver" "nvml driver"

# 2a. Asked for beside the spec on that tmpfs: bind mounts, carried along by the spec's rbind.
gen --library-layout dir
grep -q "built of bind mounts" "$tmp/gen.log" || { cat "$tmp/gen.log"; die "not built of bind mounts"; }
expect "bind mounts" cuda "libcuda driver" "nvml driver" "egl driver"
expect "bind mounts" bare "libcuda driver" "nvml driver"

# 2b. From a mount namespace of its own (a systemd unit with ProtectHome=), bind mounts would
# not reach the engines: refused, with the way out.
if unshare -m "$B/cdi-generate" --root "$tmp/host" --output /etc/cdi/other.yaml --library-layout dir 2>"$tmp/ns.log"; then
	echo "FAIL: bind mounts were made in a private mount namespace"; fails=$((fails + 1))
elif ! grep -q -- "--library-dir on the driver's filesystem" "$tmp/ns.log"; then
	echo "FAIL: no hint in: $(cat "$tmp/ns.log")"; fails=$((fails + 1))
fi
[ ! -e /etc/cdi/other.yaml ] && [ ! -e /etc/cdi/other.lib ] || { echo "FAIL: a refused run left files"; fails=$((fails + 1)); }

# 3. Control: every library a mount of its own, and the CUDA image's stub wins.
gen --library-layout files
n_files=$(grep -c 'containerPath:' /etc/cdi/nvidia.yaml)
expect "per-file layout (control)" cuda "libcuda stub"

[ "$fails" -eq 0 ] || die "$fails images did not load the driver's libraries"
echo "e2e-native-podman: podman $(podman --version | awk '{print $3}') ($(basename "$runtime")): the driver's libcuda wins" \
	"in CUDA, distro and bare images with the directory layout ($n mounts, $n_files with the per-file layout)," \
	"of hard links and of bind mounts; the per-file layout loses to the CUDA image's stub"
