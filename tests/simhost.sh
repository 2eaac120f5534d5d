#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The simulated hosts of tests/simhost/make-host look like a real NVIDIA driver installation:
# every topology is built in a temp dir and checked against the real tools (ldconfig, readelf,
# stat) and by loading its libnvidia-ml (the mock) the way cdi-generate does, with no
# environment. Device-node checks need root; they are skipped (not failed) otherwise.
set -u
cd "$(dirname "$0")/.."
: "${B:=build}"
mock_dir=$B/tests/mock-nvml
[ -f "$mock_dir/libnvidia-ml.so.1" ] && [ -f "$mock_dir/old/libnvidia-ml.so.1" ] ||
	{ echo "simhost: $mock_dir not built (make check builds the fixtures)"; exit 1; }
work=$(mktemp -d /tmp/cdikit-simhost.XXXXXX)
trap 'rm -rf "$work"' EXIT
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
LDCONFIG=/sbin/ldconfig
[ -x "$LDCONFIG" ] || LDCONFIG=ldconfig
fails=0 checks=0
ok() { checks=$((checks + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); checks=$((checks + 1)); }
check() { # description command...
	local what=$1
	shift
	if "$@"; then ok; else bad "$what"; fi
}
root=0
[ "$(id -u)" -eq 0 ] && root=1

build() { # topology dir [options]
	local t=$1 d=$2
	shift 2
	local start end
	start=$(date +%s%N)
	tests/simhost/make-host --topology "$t" --mock-dir "$mock_dir" --out "$d" "$@" >"$work/out" 2>"$work/err" ||
		{ bad "make-host --topology $t: $(cat "$work/err")"; return 1; }
	end=$(date +%s%N)
	echo "built $t in $(((end - start) / 1000000)) ms"
	[ "$(cat "$work/out")" = "$(cd "$d" && pwd -P)" ] || bad "$t: make-host prints the root"
	ok
}

# nvml ROOT LIB -> "count driver cuda has_migmode" with the library found by dladdr's config
nvml() {
	"$PY" - "$1" <<'EOF'
import ctypes, os, sys
os.environ.pop("CDIKIT_MOCK_NVML_CONFIG", None)
lib = ctypes.CDLL(sys.argv[1])
n, buf, cuda = ctypes.c_uint(0), ctypes.create_string_buffer(80), ctypes.c_int(0)
r = [lib.nvmlInit_v2(), lib.nvmlDeviceGetCount_v2(ctypes.byref(n)),
     lib.nvmlSystemGetDriverVersion(buf, 80), lib.nvmlSystemGetCudaDriverVersion(ctypes.byref(cuda))]
if any(r):
    print("error", r)
    sys.exit(1)
mig = hasattr(lib, "nvmlDeviceGetMigMode")
# per GPU: index minor busid uuid migcount
rows = []
for i in range(n.value):
    h, minor, uuid, cur, pend = ctypes.c_void_p(), ctypes.c_uint(), ctypes.create_string_buffer(96), ctypes.c_uint(), ctypes.c_uint()
    lib.nvmlDeviceGetHandleByIndex_v2(i, ctypes.byref(h))
    lib.nvmlDeviceGetMinorNumber(h, ctypes.byref(minor))
    lib.nvmlDeviceGetUUID(h, uuid, 96)
    migs = []
    if mig and lib.nvmlDeviceGetMigMode(h, ctypes.byref(cur), ctypes.byref(pend)) == 0 and cur.value == 1:
        for j in range(8):
            m, gi, ci = ctypes.c_void_p(), ctypes.c_uint(), ctypes.c_uint()
            if lib.nvmlDeviceGetMigDeviceHandleByIndex(h, j, ctypes.byref(m)) != 0:
                continue
            lib.nvmlDeviceGetGpuInstanceId(m, ctypes.byref(gi))
            lib.nvmlDeviceGetComputeInstanceId(m, ctypes.byref(ci))
            migs.append("%d/%d" % (gi.value, ci.value))
    rows.append("gpu %d %d %s %s" % (i, minor.value, uuid.value.decode(), ",".join(migs)))
print(n.value, buf.value.decode(), cuda.value, int(mig))
print("\n".join(rows))
lib.nvmlShutdown()
EOF
}

# expected: topology gpus driver cuda has-mig-symbols mig-devices
check_host() {
	local t=$1 ngpus=$2 driver=$3 cuda=$4 migsyms=$5 nmigs=$6 R=$work/$1
	local L64=$R/usr/lib/x86_64-linux-gnu L32=$R/usr/lib/i386-linux-gnu
	build "$t" "$R" || return

	# ld.so.cache by the real ldconfig, both arches, stale copies listed but not in the driver dir
	if [ -e "$R/.simhost-no-ldcache" ]; then
		echo "note: $t has no ld.so.cache (ldconfig -r needs root or a user namespace)"
	else
		"$LDCONFIG" -p -C "$R/etc/ld.so.cache" >"$work/cache" 2>&1 || bad "$t: ldconfig -p"
		check "$t: 64-bit libcuda in the cache" grep -q "libcuda.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libcuda.so.1$" "$work/cache"
		check "$t: 32-bit libcuda in the cache" grep -q "libcuda.so.1 (libc6) => /lib/i386-linux-gnu/libcuda.so.1$" "$work/cache"
		check "$t: 32-bit GLX in the cache" grep -q "libGLX_nvidia.so.0 (libc6) => /lib/i386-linux-gnu/libGLX_nvidia.so.0$" "$work/cache"
		check "$t: stale compat libcuda in the cache" grep -q "libcuda.so.1 (libc6,x86-64) => /usr/local/cuda-12.2/compat/libcuda.so.1$" "$work/cache"
		check "$t: mesa EGL in the cache" grep -q "libEGL_mesa.so.0 (libc6,x86-64)" "$work/cache"
		if [ "$t" = no-nvml ]; then
			check "$t: no libnvidia-ml in the cache" bash -c "! grep -q libnvidia-ml '$work/cache'"
		else
			check "$t: libnvidia-ml in the cache" grep -q "libnvidia-ml.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libnvidia-ml.so.1$" "$work/cache"
		fi
		check "$t: vdpau dir is not in the cache" bash -c "! grep -q '/vdpau/' '$work/cache'"
	fi

	# Real ELF objects with the driver's sonames, links as the installer makes them.
	local f so want elf n32=0 n64=0
	for f in "$L64"/*.so."$driver" "$L64"/vdpau/*.so."$driver" "$L32"/*.so."$driver" "$L32"/vdpau/*.so."$driver"; do
		[ -f "$f" ] || continue
		elf=$(readelf -h -d "$f" 2>&1)
		[[ $elf =~ \(SONAME\)[^[]*\[([^]]*)\] ]] || { bad "$t: $f has no SONAME"; continue; }
		so=${BASH_REMATCH[1]}
		ok
		case $f in */i386-linux-gnu/*) want=ELF32; n32=$((n32 + 1)) ;; *) want=ELF64; n64=$((n64 + 1)) ;; esac
		[[ $elf =~ Class:\ *$want ]] || bad "$t: $f is not $want"
		[[ $elf =~ NEEDED.*\[libc.so.6\] ]] || bad "$t: $f does not need libc.so.6 (ldconfig would not file it as libc6)"
		if [ "$so" != "${f##*/}" ]; then
			[ "$(readlink "${f%/*}/$so")" = "${f##*/}" ] || bad "$t: ${f%/*}/$so does not link to ${f##*/}"
		fi
	done
	echo "$t: $n64 64-bit and $n32 32-bit driver libraries"
	check "$t: at least 20 64-bit libraries" [ "$n64" -ge 20 ]
	check "$t: at least 14 32-bit libraries" [ "$n32" -ge 14 ]
	check "$t: libcuda soname link" [ "$(readlink "$L64/libcuda.so.1")" = "libcuda.so.$driver" ]
	check "$t: libcuda dev link" [ "$(readlink "$L64/libcuda.so")" = libcuda.so.1 ]
	check "$t: libGLX_nvidia soname" [ "$(readlink "$L64/libGLX_nvidia.so.0")" = "libGLX_nvidia.so.$driver" ]
	check "$t: libGLESv2_nvidia soname" [ "$(readlink "$L64/libGLESv2_nvidia.so.2")" = "libGLESv2_nvidia.so.$driver" ]
	check "$t: vdpau" [ "$(readlink "$L64/vdpau/libvdpau_nvidia.so.1")" = "libvdpau_nvidia.so.$driver" ]
	check "$t: GLX needs glcore" bash -c "readelf -d '$L64/libGLX_nvidia.so.$driver' | grep -q 'NEEDED.*libnvidia-glcore.so.$driver'"
	check "$t: libnvidia-tls carries the TLS ABI note 2.3.99" bash -c "readelf -n '$L64/libnvidia-tls.so.$driver' | grep -q 'ABI: 2.3.99'"
	check "$t: 32-bit tls too" bash -c "readelf -n '$L32/libnvidia-tls.so.$driver' | grep -q 'ABI: 2.3.99'"
	check "$t: lib dir reachable through /lib" [ -f "$R/lib/x86_64-linux-gnu/libcuda.so.$driver" ]
	if [ "$t" = no-nvml ]; then
		check "$t: no libnvidia-ml" bash -c "! ls '$L64' '$L32' | grep -q libnvidia-ml"
	else
		check "$t: the mock is libnvidia-ml.so.$driver" cmp -s "$L64/libnvidia-ml.so.$driver" \
			"$mock_dir/$([ "$t" = old-driver ] && echo old/)libnvidia-ml.so.1"
		check "$t: mock config beside it" [ -f "$L64/mock-nvml.conf" ]
	fi

	# Binaries run; sockets are sockets; firmware only where the driver has GSP.
	check "$t: nvidia-smi runs" bash -c "'$R/usr/bin/nvidia-smi' | grep -q 'simulated NVIDIA'"
	for f in nvidia-debugdump nvidia-persistenced nvidia-cuda-mps-control nvidia-cuda-mps-server; do
		check "$t: $f" [ -x "$R/usr/bin/$f" ]
	done
	check "$t: persistenced socket" [ -S "$R/run/nvidia-persistenced/socket" ]
	check "$t: /var/run is /run" [ -S "$R/var/run/nvidia-persistenced/socket" ]
	check "$t: MPS pipe dir" [ -d "$R/tmp/nvidia-mps" ]
	if [ "$t" = old-driver ]; then
		check "$t: no GSP firmware on R440" [ ! -e "$R/lib/firmware/nvidia/$driver" ]
	else
		check "$t: GSP firmware" [ -f "$R/lib/firmware/nvidia/$driver/gsp_ga10x.bin" ] && [ -f "$R/lib/firmware/nvidia/$driver/gsp_tu10x.bin" ]
		check "$t: EGL vendor json" grep -q libEGL_nvidia.so.0 "$R/usr/share/glvnd/egl_vendor.d/10_nvidia.json"
		check "$t: gbm platform json" [ -f "$R/usr/share/egl/egl_external_platform.d/15_nvidia_gbm.json" ]
		"$PY" -c 'import json,sys; [json.load(open(f)) for f in sys.argv[1:]]' "$R"/usr/share/*/*.d/*.json ||
			bad "$t: config json does not parse"
	fi
	check "$t: Vulkan ICD" [ -f "$R/usr/share/vulkan/icd.d/nvidia_icd.json" ]
	check "$t: OpenCL ICD" grep -qx libnvidia-opencl.so.1 "$R/etc/OpenCL/vendors/nvidia.icd"
	check "$t: debian_version" [ -f "$R/etc/debian_version" ]

	# /proc: version, params, one information file per GPU with its minor.
	check "$t: version" grep -qE "^NVRM version: NVIDIA UNIX x86_64 Kernel Module  $driver  " "$R/proc/driver/nvidia/version"
	check "$t: params" grep -qx 'ModifyDeviceFiles: 1' "$R/proc/driver/nvidia/params"
	check "$t: params mode" grep -qx 'DeviceFileMode: 438' "$R/proc/driver/nvidia/params"
	check "$t: $ngpus information files" [ "$(ls "$R/proc/driver/nvidia/gpus" | wc -l)" -eq "$ngpus" ]
	local info minor
	for info in "$R"/proc/driver/nvidia/gpus/*/information; do
		minor=$(sed -nE 's/^Device Minor: \t ([0-9]+)$/\1/p' "$info")
		[ -n "$minor" ] || { bad "$t: $info has no Device Minor"; continue; }
		grep -qx "Bus Location: "$'\t'" $(basename "$(dirname "$info")")" "$info" || bad "$t: $info bus location"
		ok
	done
	local uvm caps
	uvm=$(awk '/^Character devices:/{c=1;next} /^$/{c=0} c && $2=="nvidia-uvm"{print $1}' "$R/proc/devices")
	caps=$(awk '/^Character devices:/{c=1;next} /^$/{c=0} c && $2=="nvidia-caps"{print $1}' "$R/proc/devices")
	check "$t: /proc/devices frontend" grep -qx '195 nvidia-frontend' "$R/proc/devices"
	check "$t: /proc/devices uvm" [ -n "$uvm" ]
	check "$t: /proc/devices block section" grep -qx 'Block devices:' "$R/proc/devices"

	# The mock, loaded by path with no environment, reads the config beside it.
	if [ "$t" != no-nvml ]; then
		if nvml "$L64/libnvidia-ml.so.1" >"$work/nvml" 2>&1; then
			check "$t: NVML summary" [ "$(head -1 "$work/nvml")" = "$ngpus $driver $cuda $migsyms" ]
			check "$t: $nmigs MIG devices" [ "$(tail -n +2 "$work/nvml" | awk '{print $5}' | tr ',' '\n' | grep -c /)" -eq "$nmigs" ]
			# NVML and procfs agree on every GPU's uuid and minor.
			local _ i m b u migs
			while read -r _ i m u migs; do
				b=$(grep -l "GPU UUID: "$'\t'" $u" "$R"/proc/driver/nvidia/gpus/*/information)
				[ -n "$b" ] && grep -qx "Device Minor: "$'\t'" $m" "$b" || bad "$t: GPU $i ($u) differs in procfs"
				ok
			done < <(tail -n +2 "$work/nvml")
		else
			bad "$t: mock NVML: $(cat "$work/nvml")"
		fi
	fi

	# MIG capabilities: minors by the kernel's formula, proc cap files and nodes agree.
	if [ "$migsyms" = 1 ]; then
		local mm=$R/proc/driver/nvidia-caps/mig-minors g
		g=$((ngpus > 32 ? ngpus : 32))
		check "$t: mig-minors lists every possible cap" [ "$(wc -l <"$mm")" -eq $((2 + g * 15 * 9)) ]
		check "$t: config 1" grep -qx 'config 1' "$mm"
		check "$t: monitor 2" grep -qx 'monitor 2' "$mm"
		check "$t: gpu0/gi1 = 12" grep -qx 'gpu0/gi1/access 12' "$mm"
		check "$t: gpu0/gi1/ci0 = 13" grep -qx 'gpu0/gi1/ci0/access 13' "$mm"
		check "$t: gpu0/gi2 = 21" grep -qx 'gpu0/gi2/access 21' "$mm"
		check "$t: gpu31/gi14/ci7 = 4322" grep -qx 'gpu31/gi14/ci7/access 4322' "$mm"
		check "$t: gpu5/gi2/ci1 = 698" grep -qx 'gpu5/gi2/ci1/access 698' "$mm"
		local key min file fmin
		declare -A capnode=()
		if [ $root = 1 ] && [ ! -e "$R/.simhost-no-devnodes" ]; then
			while read -r file fmin; do capnode[$file]=$fmin; done < <(stat -c '%n %F:%t:%T' "$R"/dev/nvidia-caps/*)
			check "$t: one cap node per cap file" [ ${#capnode[@]} -eq $((2 + nmigs + $(find "$R/proc/driver/nvidia/capabilities" -path '*/gi*/access' ! -path '*/ci*' | wc -l))) ]
		fi
		while read -r key min; do
			case $key in config | monitor) file=$R/proc/driver/nvidia/capabilities/mig/$key ;;
			*) file=$R/proc/driver/nvidia/capabilities/${key%%/*}/mig/${key#*/} ;;
			esac
			[ -f "$file" ] || continue
			fmin=$(sed -nE 's/^DeviceFileMinor: ([0-9]+)$/\1/p' "$file")
			[ "$fmin" = "$min" ] || bad "$t: $file minor $fmin, mig-minors says $min"
			if [ $root = 1 ] && [ ! -e "$R/.simhost-no-devnodes" ]; then
				printf -v fmin 'character special file:%x:%x' "$caps" "$min"
				[ "${capnode[$R/dev/nvidia-caps/nvidia-cap$min]:-}" = "$fmin" ] ||
					bad "$t: /dev/nvidia-caps/nvidia-cap$min is '${capnode[$R/dev/nvidia-caps/nvidia-cap$min]:-}', want '$fmin'"
			fi
			ok
		done <"$mm"
		check "$t: one GI and CI cap file per MIG device" [ "$(find "$R/proc/driver/nvidia/capabilities" -path '*/ci*/access' | wc -l)" -eq "$nmigs" ]
	else
		check "$t: no mig-minors without MIG" [ ! -e "$R/proc/driver/nvidia-caps/mig-minors" ]
	fi

	# Device nodes with the driver's numbers (root only).
	if [ $root = 1 ] && [ ! -e "$R/.simhost-no-devnodes" ]; then
		node() { # path major minor mode
			local got want
			got=$(stat -c '%F %t %T %a' "$R/dev/$1" 2>&1)
			want=$(printf 'character special file %x %x %s' "$2" "$3" "$4")
			[ "$got" = "$want" ] || bad "$t: /dev/$1 is '$got', want '$want'"
			ok
		}
		for ((i = 0; i < ngpus; i++)); do node "nvidia$i" 195 "$i" 666; done
		node nvidiactl 195 255 666
		node nvidia-modeset 195 254 666
		node nvidia-uvm "$uvm" 0 666
		node nvidia-uvm-tools "$uvm" 1 666
		[ "$migsyms" = 1 ] && node nvidia-caps/nvidia-cap1 "$caps" 1 400 && node nvidia-caps/nvidia-cap2 "$caps" 2 444
		check "$t: /dev/char links" [ "$(readlink "$R/dev/char/195:255")" = ../nvidiactl ]
	fi
}

check_host single 1 550.54.15 12040 1 0
check_host dgx-mig 8 550.54.15 12040 1 10
check_host big64 64 550.54.15 12040 1 448
check_host old-driver 4 440.118.02 10020 0 0
check_host no-nvml 1 550.54.15 12040 1 0

# dgx-mig in detail: the layout the generator's golden tests rely on.
if [ -f "$work/dgx-mig/usr/lib/x86_64-linux-gnu/mock-nvml.conf" ]; then
	R=$work/dgx-mig
	check "dgx-mig: GPU 2 has 1g.5gb GIs 7..13" [ "$(grep '^mig 2 ' "$R/usr/lib/x86_64-linux-gnu/mock-nvml.conf" | sed -E 's/.* gi=([0-9]+) .*/\1/' | tr '\n' ' ')" = "7 8 9 10 11 12 13 " ]
	check "dgx-mig: bus ids" [ "$(ls "$R/proc/driver/nvidia/gpus" | tr '\n' ' ')" = "0000:07:00.0 0000:0f:00.0 0000:47:00.0 0000:4e:00.0 0000:87:00.0 0000:90:00.0 0000:b7:00.0 0000:bd:00.0 " ]
	check "dgx-mig: fabric manager socket" [ -S "$R/run/nvidia-fabricmanager/socket" ]
	check "dgx-mig: GI cap of gpu5/gi2 shared by two CIs" [ "$(cat "$R/proc/driver/nvidia/capabilities/gpu5/mig/gi2/access")" = "$(printf 'DeviceFileMinor: 696\nDeviceFileMode: 292\nDeviceFileModify: 1')" ]
fi

# The mock under valgrind: the calls a generator makes, on 8 and 64 GPUs, two sessions.
if command -v valgrind >/dev/null && command -v cc >/dev/null; then
	cat >"$work/walk.c" <<'EOF'
#include <dlfcn.h>
#include <stdio.h>
typedef int (*fn)();
int main(int argc, char **argv)
{
	void *h = dlopen(argv[1], RTLD_NOW);
	char buf[96];
	unsigned n = 0, total = 0;
	if (argc < 2 || !h)
		return 2;
#define F(name) fn name = (fn)dlsym(h, #name)
	F(nvmlInit_v2); F(nvmlShutdown); F(nvmlDeviceGetCount_v2); F(nvmlDeviceGetHandleByIndex_v2);
	F(nvmlDeviceGetUUID); F(nvmlDeviceGetName); F(nvmlDeviceGetPciInfo_v3); F(nvmlDeviceGetMinorNumber);
	F(nvmlDeviceGetMigMode); F(nvmlDeviceGetMaxMigDeviceCount); F(nvmlDeviceGetMigDeviceHandleByIndex);
	F(nvmlDeviceGetGpuInstanceId); F(nvmlDeviceGetComputeInstanceId); F(nvmlSystemGetDriverVersion);
	for (int round = 0; round < 2; round++) {
		if (nvmlInit_v2() || nvmlSystemGetDriverVersion(buf, 80) || nvmlDeviceGetCount_v2(&n))
			return 3;
		for (unsigned i = 0; i < n; i++) {
			void *d, *m;
			unsigned u, cur, pend, max = 0;
			char pci[68];
			nvmlDeviceGetHandleByIndex_v2(i, &d);
			nvmlDeviceGetUUID(d, buf, 96);
			nvmlDeviceGetName(d, buf, 96);
			nvmlDeviceGetPciInfo_v3(d, pci);
			nvmlDeviceGetMinorNumber(d, &u);
			if (nvmlDeviceGetMigMode(d, &cur, &pend) || !cur)
				continue;
			nvmlDeviceGetMaxMigDeviceCount(d, &max);
			for (unsigned j = 0; j < max; j++) {
				if (nvmlDeviceGetMigDeviceHandleByIndex(d, j, &m))
					continue;
				nvmlDeviceGetGpuInstanceId(m, &u);
				nvmlDeviceGetComputeInstanceId(m, &u);
				nvmlDeviceGetUUID(m, buf, 96);
				nvmlDeviceGetName(m, buf, 96);
				total++;
			}
		}
		nvmlShutdown();
	}
	printf("%u %u\n", n, total / 2);
	return 0;
}
EOF
	if cc -o "$work/walk" "$work/walk.c" -ldl; then
		for t in dgx-mig:8:10 big64:64:448; do
			IFS=: read -r name want_gpus want_migs <<<"$t"
			[ -d "$work/$name" ] || continue
			out=$(valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=9 \
				"$work/walk" "$work/$name/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1" 2>&1)
			rc=$?
			if [ $rc -eq 0 ] && [ "$out" = "$want_gpus $want_migs" ]; then ok; else
				bad "valgrind on the mock, $name: exit $rc: $out"
			fi
		done
	else
		bad "cannot compile the valgrind driver"
	fi
fi

# Same options, same tree: deterministic apart from timestamps.
listing() { (cd "$1" && find . -printf '%p %y %l %m\n' | sort && find . -type f ! -name '*.conf' -print0 | sort -z | xargs -0 md5sum); }
if build dgx-mig "$work/again"; then
	check "dgx-mig twice: same tree" diff <(listing "$work/dgx-mig") <(listing "$work/again")
fi
# Options: other majors, refusing a non-empty dir, --force.
if build single "$work/majors" --uvm-major 511 --caps-major 240; then
	check "--uvm-major in /proc/devices" grep -qx '511 nvidia-uvm' "$work/majors/proc/devices"
	check ".simhost describes the host" grep -qx 'uvm_major=511' "$work/majors/.simhost"
	check "--caps-major in /proc/devices" grep -qx '240 nvidia-caps' "$work/majors/proc/devices"
	if [ $root = 1 ] && [ ! -e "$work/majors/.simhost-no-devnodes" ]; then
		check "--uvm-major node" [ "$(stat -c '%t %T' "$work/majors/dev/nvidia-uvm-tools")" = "1ff 1" ]
	fi
	check "refuses a non-empty --out" bash -c "! tests/simhost/make-host --topology single --mock-dir '$mock_dir' --out '$work/majors' 2>/dev/null"
	check "--force rebuilds" tests/simhost/make-host --topology single --mock-dir "$mock_dir" --out "$work/majors" --force >/dev/null
	mkdir -p "$work/precious" && touch "$work/precious/file"
	check "--force spares a tree that is no simulated host" bash -c "! tests/simhost/make-host --topology single --mock-dir '$mock_dir' --out '$work/precious' --force 2>/dev/null && [ -f '$work/precious/file' ]"
fi
# A driver upgrade and a MIG reconfiguration, as cdi-generate --check must notice them.
if build dgx-mig "$work/upgraded" --driver 550.90.07 --mig 5=7g --mig 0=3x2g --mig 2=off; then
	R=$work/upgraded
	check "--driver: libraries" [ "$(readlink "$R/usr/lib/x86_64-linux-gnu/libcuda.so.1")" = libcuda.so.550.90.07 ]
	check "--driver: previous version left behind" [ -f "$R/usr/lib/x86_64-linux-gnu/libnvidia-glcore.so.550.54.15" ]
	check "--driver: /proc version" grep -q 'Kernel Module  550.90.07  ' "$R/proc/driver/nvidia/version"
	check "--driver: firmware" [ -f "$R/lib/firmware/nvidia/550.90.07/gsp_ga10x.bin" ]
	check "--driver: NVML" grep -qx 'driver 550.90.07' "$R/usr/lib/x86_64-linux-gnu/mock-nvml.conf"
	check "--mig 5=7g: GI 0" grep -q '^mig 5 gi=0 ci=0 giprofile=4 ' "$R/usr/lib/x86_64-linux-gnu/mock-nvml.conf"
	check "--mig 0=3x2g: GIs 3 4 5" [ "$(grep '^mig 0 ' "$R/usr/lib/x86_64-linux-gnu/mock-nvml.conf" | sed -E 's/.* gi=([0-9]+) .*/\1/' | tr '\n' ' ')" = "3 4 5 " ]
	check "--mig 2=off" grep -q '^gpu 2 .* mig=disabled$' "$R/usr/lib/x86_64-linux-gnu/mock-nvml.conf"
	check "--mig: cap files follow" [ -f "$R/proc/driver/nvidia/capabilities/gpu5/mig/gi0/ci0/access" ] && [ ! -e "$R/proc/driver/nvidia/capabilities/gpu2/mig/gi7" ]
	if [ $root = 1 ] && [ ! -e "$R/.simhost-no-devnodes" ]; then
		check "--mig: cap nodes follow" [ "$(ls "$R/dev/nvidia-caps" | tr '\n' ' ')" = "nvidia-cap1 nvidia-cap2 nvidia-cap30 nvidia-cap31 nvidia-cap39 nvidia-cap40 nvidia-cap48 nvidia-cap49 nvidia-cap678 nvidia-cap679 " ]
	fi
	if nvml "$R/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1" >"$work/nvml" 2>&1; then
		check "--driver/--mig: NVML" [ "$(head -1 "$work/nvml")" = "8 550.90.07 12040 1" ]
		check "--mig: NVML sees them" grep -q '^gpu 5 5 GPU-b3b02239-d14b-9b52-8406-e71d3303cddb 0/0$' "$work/nvml"
	else
		bad "upgraded: mock NVML: $(cat "$work/nvml")"
	fi
fi
check "--mig on a GPU that cannot" bash -c "! tests/simhost/make-host --topology old-driver --mig 0=7g --mock-dir '$mock_dir' --out '$work/x' 2>/dev/null"
check "--mig unknown layout" bash -c "! tests/simhost/make-host --topology single --mig 0=9g --mock-dir '$mock_dir' --out '$work/x' 2>/dev/null"
check "--mig past the GPUs" bash -c "! tests/simhost/make-host --topology single --mig 1=7g --mock-dir '$mock_dir' --out '$work/x' 2>/dev/null"
# Without mknod (not root, or --no-devnodes): regular files and a marker tests can skip on.
if build single "$work/nodev" --no-devnodes; then
	check "--no-devnodes marker" [ -e "$work/nodev/.simhost-no-devnodes" ]
	check "--no-devnodes: regular file" [ -f "$work/nodev/dev/nvidia0" ]
fi
if [ $root = 1 ] && command -v setpriv >/dev/null; then
	mkdir -p "$work/user" && chown 65534:65534 "$work/user"
	chmod 755 "$work"
	if setpriv --reuid=65534 --regid=65534 --clear-groups tests/simhost/make-host --topology single \
		--mock-dir "$mock_dir" --out "$work/user/h" >/dev/null 2>"$work/err"; then
		check "not root: marker" [ -e "$work/user/h/.simhost-no-devnodes" ]
		check "not root: nodes are files" [ -f "$work/user/h/dev/nvidiactl" ]
		check "not root: cache or marker" [ -f "$work/user/h/etc/ld.so.cache" ] || [ -e "$work/user/h/.simhost-no-ldcache" ]
	else
		bad "make-host as an unprivileged user: $(cat "$work/err")"
	fi
fi

echo "simhost: $checks checks, $fails failed"
[ $fails -eq 0 ]
