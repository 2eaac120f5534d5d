#!/usr/bin/env bash
# The image matrix: with the spec cdi-generate writes by default (the library directory mounted
# at /usr/local/nvidia), nvidia.com/gpu=all, on the three paths a GPU reaches a container
#   native   the engine applies the spec (podman reads it; for runc and crun, the config
#            cdi-apply writes with no option, which is what containerd and CRI-O make of it)
#   runtime  cdi-runtime edits the bundle (NVIDIA_VISIBLE_DEVICES=all), then execs the runtime
#   ldcache  cdi-apply --from-env --ldcache edits the bundle, then the runtime runs it
# under runc, crun and podman 4.3, each image below loads the DRIVER's libcuda.so.1 and
# libnvidia-ml.so.1 by soname (tests/e2e/driver-probe.c reports the copy dlinfo() names):
#   cuda     LD_LIBRARY_PATH=/usr/local/nvidia/lib:/usr/local/nvidia/lib64, PATH with
#            /usr/local/nvidia/bin, a stub libcuda.so.1 registered in its own ld.so.cache
#   pytorch  Debian with its own ld.so.cache, no LD_LIBRARY_PATH
#   bare     Debian with no ld.so.cache at all; nvidia-smi on the default PATH, and the glvnd
#            EGL vendor file, the Vulkan ICD and the OpenCL ICD load the driver's libraries
#   rhel     glibc in /usr/lib64, no multiarch directory, its own cache of /usr/lib64. Debian's
#            glibc is the one here, and its loader searches the Debian multiarch directory
#            where RHEL's searches /usr/lib64: the probe also loads /usr/lib64/libcuda.so.1 and
#            libnvidia-ml.so.1 by path, which is what RHEL's loader finds by its defaults
#   ldconfig the pytorch image whose entrypoint runs ldconfig first
#   cuda32   a CUDA-like multiarch image with a 32-bit loader and libc (Debian's libc6-i386,
#            registered in its cache from /usr/lib/i386-linux-gnu) and a 32-bit probe: the
#            32-bit libcuda.so.1 loads (native: through LD_LIBRARY_PATH; the other paths: also
#            through the cache they write)
# and NVIDIA_DRIVER_CAPABILITIES through cdi-runtime still gives exactly the capability's files:
# utility (NVML and nvidia-smi, no libcuda), the default utility,compute, all.
#
# Needs root, runc, jq and a C compiler (-m32 for the 32-bit image); crun and podman rows run
# when they are installed (CI installs both). Exits 77 with the reason otherwise.
# shellcheck source=../lib/suite.sh
. "$(dirname "$0")/../lib/suite.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root (device nodes of the simulated host, containers)"
for c in runc jq unshare; do command -v $c >/dev/null 2>&1 || skip "$c not installed"; done
for f in cdi-generate cdi-apply cdi-runtime tests/mock-nvml/libnvidia-ml.so.1; do
	[ -e "$B/$f" ] || die "$B/$f not built"
done
if [ -z "${CDIKIT_MATRIX_PRIVATE_ETC:-}" ]; then
	# podman reads specs from /etc/cdi only: a private mount namespace with its own /etc/cdi.
	CDIKIT_MATRIX_PRIVATE_ETC=1 exec unshare -m --propagation private bash "$0" "$@"
	skip "unshare -m failed"
fi

tmp=$(mktemp -d /tmp/cdikit-e2e-matrix.XXXXXX)
state=$tmp/state
ids=()
P=(podman --root "$tmp/storage" --runroot "$tmp/runroot" --tmpdir "$tmp/libpod-tmp"
	--storage-driver vfs --hooks-dir "$tmp/hooks.d" --events-backend none
	--cgroup-manager cgroupfs)
podman_images=()
cleanup() {
	local i
	for i in "${ids[@]}"; do
		runc --root "$state-runc" delete -f "$i" >/dev/null 2>&1
		command -v crun >/dev/null && crun --root "$state-crun" delete -f "$i" >/dev/null 2>&1
	done
	for i in "${podman_images[@]}"; do "${P[@]}" rmi -f "$i" >/dev/null 2>&1; done
	findmnt -rn -o TARGET | grep -F "$tmp/" | sort -r | while read -r m; do umount -l "$m"; done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
mkdir -p "$tmp/hooks.d" "$tmp/libpod-tmp" "$tmp/cdi"

# shellcheck source=../lib/rootfs.sh
. tests/lib/rootfs.sh
tests/simhost/make-host --topology dgx-mig --mock-dir "$B/tests/mock-nvml" --out "$tmp/host" >/dev/null ||
	die "make-host failed"
[ ! -e "$tmp/host/.simhost-no-devnodes" ] || skip "the simulated host has no real device nodes"
"$B/cdi-generate" -q --root "$tmp/host" --output "$tmp/cdi/nvidia.yaml" || die "cdi-generate failed"
grep -q 'containerPath: /usr/local/nvidia$' "$tmp/cdi/nvidia.yaml" ||
	die "the default spec does not mount the library directory at /usr/local/nvidia"

cc -O2 -o "$tmp/probe" tests/e2e/driver-probe.c -ldl || die "cannot build the probe"
probe32=
if cc -m32 -O2 -o "$tmp/probe32" tests/e2e/driver-probe.c -ldl 2>"$tmp/m32.log"; then
	probe32=$tmp/probe32
elif [ -n "${CI:-}" ]; then
	die "no -m32 compiler: $(head -n 2 "$tmp/m32.log") (scripts/install-deps --test installs gcc-multilib)"
fi

default_path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# image NAME: a rootfs in $tmp/img/NAME, its environment in $tmp/img/NAME.env, its probe
# arguments in $tmp/img/NAME.args.
image() {
	local name=$1 r=$tmp/img/$1
	make_debian_rootfs "$r" || die "rootfs $name"
	cp "$tmp/probe" "$r/usr/bin/probe"
	echo "PATH=$default_path" >"$r.env"
	echo "--smi" >"$r.args"
	case $name in
	cuda | cuda32)
		make_stub_lib "$r/usr/local/cuda/lib64/stubs/libcuda.so.1" libcuda.so.1 cdikit_stub_libcuda ||
			die "stub"
		add_ldconfig "$r" || die "ldconfig"
		echo /usr/local/cuda/lib64/stubs >"$r/etc/ld.so.conf.d/cuda-stubs.conf"
		printf '%s\n' "PATH=/usr/local/nvidia/bin:/usr/local/cuda/bin:$default_path" \
			LD_LIBRARY_PATH=/usr/local/nvidia/lib:/usr/local/nvidia/lib64 >"$r.env"
		echo "--smi --icds" >"$r.args"
		;;
	pytorch | ldconfig) add_ldconfig "$r" || die "ldconfig" ;;
	bare) echo "--smi --icds" >"$r.args" ;;
	rhel)
		# glibc where RHEL has it; no multiarch directory; the cache lists /usr/lib64.
		rm -f "$r/usr/lib64/ld-linux-x86-64.so.2"
		mv "$r/usr/lib/x86_64-linux-gnu/"* "$r/usr/lib64/"
		rmdir "$r/usr/lib/x86_64-linux-gnu"
		cp /sbin/ldconfig "$r/usr/sbin/ldconfig"
		echo /usr/lib64 >"$r/etc/ld.so.conf"
		printf -- '--smi --path /usr/lib64/libcuda.so.1 --path /usr/lib64/libnvidia-ml.so.1\n' >"$r.args"
		;;
	esac
	[ "$name" = ldconfig ] && echo "--ldconfig --smi" >"$r.args"
	if [ "$name" = cuda32 ]; then
		mkdir -p "$r/usr/lib/i386-linux-gnu"
		cp -L /usr/lib32/libc.so.6 "$r/usr/lib/i386-linux-gnu/" &&
			cp -L /usr/lib32/libdl.so.2 "$r/usr/lib/i386-linux-gnu/" 2>/dev/null
		cp -L /lib/ld-linux.so.2 "$r/usr/lib/ld-linux.so.2" || die "no 32-bit loader"
		echo /usr/lib/i386-linux-gnu >"$r/etc/ld.so.conf.d/i386-linux-gnu.conf"
		cp "$probe32" "$r/usr/bin/probe"
		echo "" >"$r.args"
	fi
	[ -x "$r/usr/sbin/ldconfig" ] && { ldconfig -r "$r" || die "ldconfig -r $name"; }
	case $name in cuda | cuda32)
		ldconfig -p -C "$r/etc/ld.so.cache" | grep -q 'stubs/libcuda.so.1' || die "premise: no stub in the $name image's cache" ;;
	esac
}
images=(cuda pytorch bare rhel ldconfig)
[ -n "$probe32" ] && images+=(cuda32)
for i in "${images[@]}"; do image "$i"; done

(cd "$tmp" && runc spec) || die "runc spec"
# cdi-runtime's settings: never the machine's /etc/cdikit/runtime.conf.
printf 'spec-dirs = %s\nhost-root = %s\n' "$tmp/cdi" "$tmp/host" >"$tmp/runtime.conf"
export CDIKIT_CONFIG=$tmp/runtime.conf
# config IMAGE CAPS: the base config of a container of IMAGE asking for every GPU by its
# environment (the native path's engine ignores the variables) with NVIDIA_DRIVER_CAPABILITIES.
config() {
	local env
	env=$(cat "$tmp/img/$1.env"; echo NVIDIA_VISIBLE_DEVICES=all; [ -n "$2" ] && echo "NVIDIA_DRIVER_CAPABILITIES=$2")
	jq --argjson env "$(jq -R . <<<"$env" | jq -cs .)" --argjson args "$(jq -R 'split(" ") | map(select(. != ""))' "$tmp/img/$1.args")" \
		'.process.terminal = false | .process.args = ["/usr/bin/probe"] + $args | .process.env = $env
		| .root = {path: "rootfs", readonly: false} | del(.process.rlimits)' "$tmp/config.json"
}

fails=0 runs=0
n=0
# run PATH RUNTIME IMAGE CAPS: the probe's output in $tmp/out.
run() {
	local path=$1 rt=$2 img=$3 caps=$4 b=$tmp/b/$n id=cdikit-matrix-$$-$n
	n=$((n + 1))
	mkdir -p "$b"
	cp -a "$tmp/img/$img" "$b/rootfs"
	config "$img" "$caps" >"$b/config.json" || die "config $img"
	ids+=("$id")
	case $path in
	native)
		"$B/cdi-apply" --spec-dir "$tmp/cdi" --config "$b/config.json" nvidia.com/gpu=all ||
			die "cdi-apply failed"
		;;
	ldcache)
		"$B/cdi-apply" --spec-dir "$tmp/cdi" --config "$b/config.json" --from-env --ldcache ||
			die "cdi-apply --ldcache failed"
		;;
	esac
	case $path:$rt in
	runtime:runc | runtime:crun)
		timeout 120 "$B/cdi-runtime" --cdi-spec-dir "$tmp/cdi" --cdi-runtime "$rt" --root "$state-$rt" \
			run --bundle "$b" "$id" >"$tmp/out" 2>&1 </dev/null
		;;
	*) timeout 120 "$rt" --root "$state-$rt" run --bundle "$b" "$id" >"$tmp/out" 2>&1 </dev/null ;;
	esac
	local rc=$?
	"$rt" --root "$state-$rt" delete -f "$id" >/dev/null 2>&1
	runs=$((runs + 1))
	[ $rc -eq 0 ] || { sed 's/^/    /' "$tmp/out"; die "$path/$rt/$img: the container failed (exit $rc)"; }
}

# want LABEL LINE-PREFIX...: each line of the probe's output starts so.
want() {
	local label=$1 w
	shift
	for w in "$@"; do
		grep -q "^$w" "$tmp/out" ||
			{ echo "FAIL: $label: want '$w', got: $(tr '\n' '|' <"$tmp/out")"; fails=$((fails + 1)); }
	done
}

# The lines every image must show, by image (and path: graphics libraries load others by name,
# which an image without the CUDA LD_LIBRARY_PATH finds only through a cache that lists them).
expect_image() {
	local label=$1 img=$2 path=${1%%/*}
	case $img in
	cuda32)
		want "$label" "libcuda.so.1/32 driver /" "libnvidia-ml.so.1/32 driver /" ;;
	*)
		want "$label" "libcuda.so.1 driver /" "libnvidia-ml.so.1 driver /"
		grep -q '^libcuda.so.1 driver .*stubs' "$tmp/out" && { echo "FAIL: $label: the stub's path"; fails=$((fails + 1)); }
		want "$label" "nvidia-smi exit 0 cdikit simulated NVIDIA driver tool"
		;;
	esac
	case $img:$path in
	cuda:* | bare:runtime | bare:ldcache) want "$label" "egl-vendor driver" "vulkan-icd driver" "opencl-icd driver" ;;
	bare:native) want "$label" "opencl-icd driver" ;;
	esac
	case $img in
	rhel) want "$label" "/usr/lib64/libcuda.so.1 driver" "/usr/lib64/libnvidia-ml.so.1 driver" ;;
	esac
}

runtimes=(runc)
command -v crun >/dev/null 2>&1 && runtimes+=(crun)
# crun 1.8 refuses a hybrid cgroup host: in this mount namespace the host is plain cgroup v1.
if [ "$(stat -f -c %T /sys/fs/cgroup)" = tmpfs ] && mountpoint -q /sys/fs/cgroup/unified; then
	umount /sys/fs/cgroup/unified || die "cannot hide the cgroup2 mount from crun"
fi
for rt in "${runtimes[@]}"; do
	for path in native runtime ldcache; do
		for img in "${images[@]}"; do
			run "$path" "$rt" "$img" all
			expect_image "$path/$rt/$img" "$img"
		done
	done
done

# NVIDIA_DRIVER_CAPABILITIES through cdi-runtime: the choice is made at start, from one spec.
run runtime runc bare utility
want "runtime caps=utility" "libcuda.so.1 none" "libnvidia-ml.so.1 driver /" "nvidia-smi exit 0 cdikit"
run runtime runc bare ""
want "runtime caps=default" "libcuda.so.1 driver /" "libnvidia-ml.so.1 driver /" "egl-vendor none" "vulkan-icd none"
run runtime runc bare graphics,utility
want "runtime caps=graphics,utility" "libcuda.so.1 none" "egl-vendor driver" "vulkan-icd driver"
# video brings compute's libraries (libcuda) and its own (libnvcuvid), not compute's binaries.
cp "$tmp/img/bare.args" "$tmp/bare.args"
echo "--path libnvcuvid.so.1" >"$tmp/img/bare.args"
run runtime runc bare video
want "runtime caps=video" "libcuda.so.1 driver /" "libnvcuvid.so.1 driver /" "libnvidia-ml.so.1 none"
run runtime runc bare compute
want "runtime caps=compute" "libcuda.so.1 driver /" "libnvcuvid.so.1 none" "libnvidia-ml.so.1 none"
mv "$tmp/bare.args" "$tmp/img/bare.args"

# podman 4.3: native (--device), cdi-runtime as its runtime, and cdi-apply --ldcache in a
# runtime wrapper (what a runtime that calls it does).
podman_rows=0
if command -v podman >/dev/null 2>&1; then
	mkdir -p /etc/cdi && mount -t tmpfs -o mode=0755 cdikit-matrix-cdi /etc/cdi ||
		die "cannot mount a tmpfs on /etc/cdi in the private namespace"
	cp -a "$tmp/cdi/." /etc/cdi/
	# This sandbox may refuse the rlimits podman sets: every wrapper drops them.
	cat >"$tmp/rt-runc" <<EOF
#!/bin/bash
b=; prev=
for a in "\$@"; do [ "\$prev" = --bundle ] && b=\$a; prev=\$a; done
[ -n "\$b" ] && [ -f "\$b/config.json" ] && jq 'del(.process.rlimits)' "\$b/config.json" >"\$b/c.new" && mv "\$b/c.new" "\$b/config.json"
[ -n "\$b" ] && [ -n "\${LDCACHE:-}" ] && "$B/cdi-apply" --spec-dir "$tmp/cdi" --config "\$b/config.json" --from-env --ldcache
exec \${RUNTIME:-$(command -v runc)} "\$@"
EOF
	sed -e 's|^exec .*|exec '"$B"'/cdi-runtime --cdi-runtime '"$(command -v runc)"' "$@"|' "$tmp/rt-runc" >"$tmp/rt-cdikit"
	sed -e 's|^\[ -n "\$b" \] && \[ -n "\${LDCACHE:-}" \]|[ -n "$b" ]|' "$tmp/rt-runc" >"$tmp/rt-ldcache"
	chmod +x "$tmp/rt-runc" "$tmp/rt-cdikit" "$tmp/rt-ldcache"
	for img in "${images[@]}"; do
		r=$tmp/img/$img
		envs=()
		while read -r e; do envs+=(--change "ENV ${e%%=*}=${e#*=}"); done <"$r.env"
		tar -C "$r" -cf "$r.tar" . || die "tar"
		"${P[@]}" import "${envs[@]}" "$r.tar" "localhost/cdikit-matrix-$img:$$" >"$tmp/import.log" 2>&1 ||
			skip "podman import fails here: $(tail -n 2 "$tmp/import.log")"
		podman_images+=("localhost/cdikit-matrix-$img:$$")
	done
	for img in "${images[@]}"; do
		read -r -a args <"$tmp/img/$img.args"
		for path in native runtime ldcache; do
			case $path in
			native) opts=(--runtime "$tmp/rt-runc" --device nvidia.com/gpu=all) ;;
			runtime) opts=(--runtime "$tmp/rt-cdikit" -e NVIDIA_VISIBLE_DEVICES=all -e NVIDIA_DRIVER_CAPABILITIES=all) ;;
			ldcache) opts=(--runtime "$tmp/rt-ldcache" -e NVIDIA_VISIBLE_DEVICES=all -e NVIDIA_DRIVER_CAPABILITIES=all) ;;
			esac
			"${P[@]}" run --rm --network none "${opts[@]}" "localhost/cdikit-matrix-$img:$$" \
				/usr/bin/probe "${args[@]}" >"$tmp/out" 2>&1 ||
				{ sed 's/^/    /' "$tmp/out"; die "$path/podman/$img: podman run failed"; }
			expect_image "$path/podman/$img" "$img"
			podman_rows=$((podman_rows + 1))
		done
	done

	# WSL2 and Jetson (issue: libcuda.so.1 by soname with no hook, as on a regular host):
	# their specs through podman. Jetson's libraries are aarch64 stand-ins no loader here can
	# load: the file the aarch64 linker finds by soname without a cache is read instead.
	for plat in wsl jetson; do
		tests/simhost/make-host --topology "$plat" --mock-dir "$B/tests/mock-nvml" --out "$tmp/$plat" \
			>/dev/null || die "make-host $plat failed"
		rm -rf /etc/cdi/*
		"$B/cdi-generate" -q --root "$tmp/$plat" --output /etc/cdi/nvidia.yaml || die "cdi-generate $plat failed"
		grep -q '"version"' /etc/cdi/nvidia.yaml.cdikit || die "$plat: the facts file records no driver version"
		for img in pytorch bare; do
			args=()
			[ "$plat" = jetson ] && args=(--read /usr/lib/aarch64-linux-gnu/libcuda.so.1)
			"${P[@]}" run --rm --network none --runtime "$tmp/rt-runc" --device nvidia.com/gpu=all \
				"localhost/cdikit-matrix-$img:$$" /usr/bin/probe "${args[@]}" >"$tmp/out" 2>&1 ||
				{ sed 's/^/    /' "$tmp/out"; die "$plat/podman/$img: podman run failed"; }
			if [ "$plat" = wsl ]; then
				want "$plat/podman/$img" "libcuda.so.1 driver /" "libnvidia-ml.so.1 driver /"
			else
				want "$plat/podman/$img" "read /usr/lib/aarch64-linux-gnu/libcuda.so.1 cdikit simulated L4T R36.4 file libcuda.so.1.1"
			fi
			podman_rows=$((podman_rows + 1))
		done
	done
fi

[ "$fails" -eq 0 ] || die "$fails expectations failed"
echo "image-matrix: ${#images[@]} images x native, runtime, ldcache under ${runtimes[*]}" \
	"($runs runc/crun runs) and $podman_rows podman runs: the driver's libcuda and NVML by soname in each"
