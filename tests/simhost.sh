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

# One readelf for many objects: "path class soname-or-- needs-libc(0/1)" per file.
elf_summary() {
	local f
	local -a files=()
	for f in "$@"; do [ -f "$f" ] && files+=("$f"); done
	[ ${#files[@]} -gt 0 ] || return 0
	# readelf names each file only when given several: /dev/null makes two at least.
	readelf -h -d "${files[@]}" /dev/null 2>/dev/null | awk '
		function flush() { if (f != "" && f != "/dev/null") print f, cls, so, libc }
		/^File: / { flush(); f = $2; cls = "?"; so = "-"; libc = 0 }
		/^ *Class:/ { cls = $2 }
		/\(SONAME\)/ { s = $0; sub(/.*\[/, "", s); sub(/\].*/, "", s); so = s }
		/\(NEEDED\).*\[libc\.so\.6\]/ { libc = 1 }
		END { flush() }'
}

# expected: topology gpus driver cuda has-mig-symbols mig-devices [mig-capable]
check_host() {
	local t=$1 ngpus=$2 driver=$3 cuda=$4 migsyms=$5 nmigs=$6 migcap=${7:-$5} R=$work/$1
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
	local f so want cls libc n32=0 n64=0
	while read -r f cls so libc; do
		[ "$so" != - ] || { bad "$t: $f has no SONAME"; continue; }
		ok
		case $f in */i386-linux-gnu/*) want=ELF32; n32=$((n32 + 1)) ;; *) want=ELF64; n64=$((n64 + 1)) ;; esac
		[ "$cls" = "$want" ] || bad "$t: $f is not $want"
		[ "$libc" = 1 ] || bad "$t: $f does not need libc.so.6 (ldconfig would not file it as libc6)"
		if [ "$so" != "${f##*/}" ]; then
			[ "$(readlink "${f%/*}/$so")" = "${f##*/}" ] || bad "$t: ${f%/*}/$so does not link to ${f##*/}"
		fi
	done < <(elf_summary "$L64"/*.so."$driver" "$L64"/vdpau/*.so."$driver" "$L32"/*.so."$driver" "$L32"/vdpau/*.so."$driver")
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
	[ "$t" = workstation ] || check "$t: MPS pipe dir" [ -d "$R/tmp/nvidia-mps" ]
	if [ "$t" = old-driver ]; then
		check "$t: no GSP firmware on R440" [ ! -e "$R/lib/firmware/nvidia/$driver" ]
	else
		check "$t: GSP firmware" [ -f "$R/lib/firmware/nvidia/$driver/gsp_ga10x.bin" -a -f "$R/lib/firmware/nvidia/$driver/gsp_tu10x.bin" ]
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
	# uuid -> minor of every information file (read with builtins: big64 has 64 of them).
	local info line minor bus uuid
	local -A proc_minor=()
	for info in "$R"/proc/driver/nvidia/gpus/*/information; do
		minor= bus= uuid=
		while IFS= read -r line; do
			case $line in
			"Device Minor: "$'\t'" "*) minor=${line##* } ;;
			"Bus Location: "$'\t'" "*) bus=${line##* } ;;
			"GPU UUID: "$'\t'" "*) uuid=${line##* } ;;
			esac
		done <"$info"
		[ -n "$minor" ] || { bad "$t: $info has no Device Minor"; continue; }
		info=${info%/information}
		[ "$bus" = "${info##*/}" ] || bad "$t: $info bus location"
		proc_minor[$uuid]=$minor
		ok
	done
	local uvm caps
	uvm=$(awk '/^Character devices:/{c=1;next} /^$/{c=0} c && $2=="nvidia-uvm"{print $1}' "$R/proc/devices")
	caps=$(awk '/^Character devices:/{c=1;next} /^$/{c=0} c && $2=="nvidia-caps"{print $1}' "$R/proc/devices")
	# From 545 the driver names its 195 regions nvidia, nvidia-modeset and nvidiactl.
	if [ "${driver%%.*}" -ge 545 ]; then
		check "$t: /proc/devices 195 nvidia, nvidia-modeset, nvidiactl" [ "$(grep '^195 ' "$R/proc/devices" | tr '\n' ' ')" = "195 nvidia 195 nvidia-modeset 195 nvidiactl " ]
	else
		check "$t: /proc/devices 195 nvidia-frontend" [ "$(grep '^195 ' "$R/proc/devices")" = "195 nvidia-frontend" ]
	fi
	check "$t: /proc/devices uvm" [ -n "$uvm" ]
	check "$t: /proc/devices block section" grep -qx 'Block devices:' "$R/proc/devices"

	# The mock, loaded by path with no environment, reads the config beside it.
	if [ "$t" != no-nvml ]; then
		if nvml "$L64/libnvidia-ml.so.1" >"$work/nvml" 2>&1; then
			check "$t: NVML summary" [ "$(head -1 "$work/nvml")" = "$ngpus $driver $cuda $migsyms" ]
			check "$t: $nmigs MIG devices" [ "$(tail -n +2 "$work/nvml" | awk '{print $5}' | tr ',' '\n' | grep -c /)" -eq "$nmigs" ]
			# NVML and procfs agree on every GPU's uuid and minor.
			local _ i m u migs
			while read -r _ i m u migs; do
				[ "${proc_minor[$u]:-}" = "$m" ] || bad "$t: GPU $i ($u) differs in procfs"
				ok
			done < <(tail -n +2 "$work/nvml")
		else
			bad "$t: mock NVML: $(cat "$work/nvml")"
		fi
	fi

	# MIG capabilities: minors by the kernel's formula, proc cap files and nodes agree.
	if [ "$migcap" = 1 ]; then
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
		[ "$migcap" = 1 ] && node nvidia-caps/nvidia-cap1 "$caps" 1 400 && node nvidia-caps/nvidia-cap2 "$caps" 2 444
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

check_host workstation 2 570.148.08 12080 1 0 0
check_host dgx-nvswitch 8 550.54.15 12040 1 0 1

# ------------------------------------------------------------------ the shapes added for graphics,
# fabrics, platforms and branches: each has what it claims.

# A node's type, number, mode (stat's %a: no leading zeros) and owner (root only).
node_is() { # what path want
	local got
	got=$(stat -c '%F %t:%T %a %u:%g' "$2" 2>&1)
	[ "$got" = "$3" ] || { bad "$1: $2 is '$got', want '$3'"; return; }
	ok
}
want_node() { # what path major minor mode uid:gid
	node_is "$1" "$2" "$(printf 'character special file %x:%x %s %s' "$3" "$4" "$5" "$6")"
}
devnodes_ok() { [ $root = 1 ] && [ ! -e "$1/.simhost-no-devnodes" ]; }
# The major a /proc/devices lists for a name (character section only).
major_of() { awk -v n="$2" '/^Character devices:/{c=1;next} /^$/{c=0} c && $2==n {print $1; exit}' "$1/proc/devices"; }
# The loader's cache lines: soname -> path.
cache_of() { "$LDCONFIG" -p -C "$1/etc/ld.so.cache" 2>/dev/null; }

# NVML facts a generator reads: "system driver cuda", then per GPU
# gpu|index|minor|bus|uuid|brand|cc|MIG mode|ok (every call answered)|name.
nvml_facts() {
	"$PY" - "$1" <<'EOF'
import ctypes, os, sys
os.environ.pop("CDIKIT_MOCK_NVML_CONFIG", None)
lib = ctypes.CDLL(sys.argv[1])
n, cuda, buf = ctypes.c_uint(0), ctypes.c_int(0), ctypes.create_string_buffer(96)
assert lib.nvmlInit_v2() == 0
assert lib.nvmlDeviceGetCount_v2(ctypes.byref(n)) == 0
assert lib.nvmlSystemGetCudaDriverVersion(ctypes.byref(cuda)) == 0
lib.nvmlSystemGetDriverVersion(buf, 80)
print("system", buf.value.decode(), cuda.value)
class Pci(ctypes.Structure):
    _fields_ = [("legacy", ctypes.c_char * 16), ("domain", ctypes.c_uint), ("bus", ctypes.c_uint),
                ("device", ctypes.c_uint), ("id", ctypes.c_uint), ("sub", ctypes.c_uint), ("busid", ctypes.c_char * 32)]
for i in range(n.value):
    h, idx, minor, brand, ma, mi, pci = ctypes.c_void_p(), ctypes.c_uint(), ctypes.c_uint(), ctypes.c_int(), ctypes.c_int(), ctypes.c_int(), Pci()
    uuid, name = ctypes.create_string_buffer(96), ctypes.create_string_buffer(96)
    r = [lib.nvmlDeviceGetHandleByIndex_v2(i, ctypes.byref(h)), lib.nvmlDeviceGetIndex(h, ctypes.byref(idx)),
         lib.nvmlDeviceGetMinorNumber(h, ctypes.byref(minor)), lib.nvmlDeviceGetPciInfo_v3(h, ctypes.byref(pci)),
         lib.nvmlDeviceGetUUID(h, uuid, 96), lib.nvmlDeviceGetName(h, name, 96), lib.nvmlDeviceGetBrand(h, ctypes.byref(brand)),
         lib.nvmlDeviceGetCudaComputeCapability(h, ctypes.byref(ma), ctypes.byref(mi))]
    cur, pend = ctypes.c_uint(), ctypes.c_uint()
    mig = lib.nvmlDeviceGetMigMode(h, ctypes.byref(cur), ctypes.byref(pend))
    mig = "unsupported" if mig == 3 else ("on" if cur.value else "off")
    print("gpu", idx.value, minor.value, pci.busid.decode().lower()[4:], uuid.value.decode(), brand.value,
          "%d.%d" % (ma.value, mi.value), mig, "ok" if not any(r) else "errors=%s" % r, name.value.decode(), sep="|")
lib.nvmlShutdown()
EOF
}

# Every library of the branch's file set has its cache entry, and what a generator that takes
# every lib*.so.<driver> the cache lists would find.
branch_libs() { # what root driver expected-present... -- expected-absent...
	local t=$1 R=$2 driver=$3 f absent=0 so
	shift 3
	cache_of "$R" >"$work/cache"
	for f in "$@"; do
		if [ "$f" = -- ]; then absent=1; continue; fi
		if ((absent)); then
			check "$t: no $f" bash -c "! ls '$R/usr/lib/x86_64-linux-gnu' | grep -q '^$f'"
		else
			check "$t: $f in the cache" grep -q "^	$f (libc6,x86-64) => " "$work/cache"
		fi
	done
	# Every versioned file is reachable through the cache by its SONAME (or its name).
	local cls libc
	while read -r f cls so libc; do
		[ "$so" != - ] || so=${f##*/}
		grep -q "^	$so (libc6,x86-64) => " "$work/cache" || bad "$t: ${f##*/} ($so) not in the cache"
		ok
	done < <(elf_summary "$R"/usr/lib/x86_64-linux-gnu/lib*.so."$driver")
}

# Branches: the file sets of 535 and 570 (550 is every host above).
# (535 also carries the control-node and params options, 570 the fabric options: fewer builds.)
if build single "$work/b535" --branch 535 --no-uvm-nodes --no-ctl-node --params DeviceFileGID=44 \
	--params DeviceFileMode=432 --modules; then
	R=$work/b535
	check "535: driver version" grep -q 'Kernel Module  535.183.01  ' "$R/proc/driver/nvidia/version"
	check "535: 195 nvidia-frontend (before 545)" [ "$(grep '^195 ' "$R/proc/devices")" = "195 nvidia-frontend" ]
	check "535: no IMEX region" bash -c "! grep -q imex '$R/proc/devices'"
	check "535: no IMEX params" bash -c "! grep -q '^ImexChannelCount' '$R/proc/driver/nvidia/params'"
	check "535: no fabric-imex-mgmt capability" [ ! -e "$R/proc/driver/nvidia/capabilities/fabric-imex-mgmt" ]
	check "535: NVML says 535" grep -qx 'driver 535.183.01' "$R/usr/lib/x86_64-linux-gnu/mock-nvml.conf"
	branch_libs 535 "$R" 535.183.01 libnvidia-vulkan-producer.so libnvidia-pkcs11.so.535.183.01 \
		libnvidia-pkcs11-openssl3.so.535.183.01 libnvidia-wayland-client.so.535.183.01 libnvidia-gtk2.so.535.183.01 \
		libnvidia-egl-gbm.so.1 libnvidia-egl-wayland.so.1 libnvidia-api.so.1 libcuda.so.1 libnvidia-ml.so.1 \
		-- libnvidia-gpucomp libnvidia-sandboxutils libnvidia-vksc-core libnvidia-egl-xcb
	check "535: libnvidia-vulkan-producer has no SONAME" bash -c "! readelf -d '$R/usr/lib/x86_64-linux-gnu/libnvidia-vulkan-producer.so.535.183.01' | grep -q SONAME"
	check "535: egl-wayland 1.1.11" [ "$(readlink "$R/usr/lib/x86_64-linux-gnu/libnvidia-egl-wayland.so.1")" = libnvidia-egl-wayland.so.1.1.11 ]
fi
if build single "$work/b570" --branch 570 --gds --gdrcopy --mofed --mps --firmware-path /usr/local/nvidia/firmware \
	--imex-channels 5; then
	R=$work/b570
	branch_libs 570 "$R" 570.148.08 libnvidia-sandboxutils.so.1 libnvidia-vksc-core.so.1 \
		libnvidia-gpucomp.so.570.148.08 libnvidia-egl-xcb.so.1 libnvidia-egl-xlib.so.1 libnvidia-egl-gbm.so.1 \
		libnvidia-wayland-client.so.570.148.08 libnvidia-nvvm.so.4 -- libnvidia-vulkan-producer
	check "570: 32-bit allocator" grep -q "libnvidia-allocator.so.1 (libc6) => /lib/i386-linux-gnu/" "$work/cache"
	check "570: egl-gbm 1.1.2" [ "$(readlink "$R/usr/lib/x86_64-linux-gnu/libnvidia-egl-gbm.so.1")" = libnvidia-egl-gbm.so.1.1.2 ]
	check "570: xcb and xlib EGL platforms" [ -f "$R/usr/share/egl/egl_external_platform.d/20_nvidia_xcb.json" -a -f "$R/usr/share/egl/egl_external_platform.d/20_nvidia_xlib.json" ]
	check "570: Vulkan SC ICD" grep -q libnvidia-vksc-core.so.1 "$R/etc/vulkansc/icd.d/nvidia_icd.json"
	check "570: 195 split as from 545" [ "$(grep -c '^195 ' "$R/proc/devices")" = 3 ]
fi

# workstation: two RTX A6000 with DRM, Xorg, the .run's modules tree, firmware in updates/.
if [ -d "$work/workstation/dev" ]; then
	R=$work/workstation
	for i in 0 1; do
		bus=$(sed -n "$((i + 1))p" <(ls "$R/proc/driver/nvidia/gpus"))
		check "workstation: GPU $i PCI function" [ "$(cat "$R/sys/bus/pci/devices/$bus/vendor" "$R/sys/bus/pci/devices/$bus/class" | tr '\n' ' ')" = "0x10de 0x030000 " ]
		check "workstation: GPU $i drm entries" [ "$(ls "$R/sys/bus/pci/devices/$bus/drm" | tr '\n' ' ')" = "card$((i + 1)) renderD$((128 + i)) " ]
		check "workstation: GPU $i card dev" [ "$(cat "$R/sys/bus/pci/devices/$bus/drm/card$((i + 1))/dev")" = "226:$((i + 1))" ]
		check "workstation: GPU $i by-path card" [ "$(readlink "$R/dev/dri/by-path/pci-$bus-card")" = "../card$((i + 1))" ]
		check "workstation: GPU $i by-path render" [ "$(readlink "$R/dev/dri/by-path/pci-$bus-render")" = "../renderD$((128 + i))" ]
		if devnodes_ok "$R"; then
			want_node "workstation" "$R/dev/dri/card$((i + 1))" 226 $((i + 1)) 660 0:44
			want_node "workstation" "$R/dev/dri/renderD$((128 + i))" 226 $((128 + i)) 660 0:105
			check "workstation: by-path resolves to the node" [ "$(stat -L -c '%t:%T' "$R/dev/dri/by-path/pci-$bus-render")" = "$(printf '%x:%x' 226 $((128 + i)))" ]
		fi
	done
	check "workstation: card0 is simpledrm's (no PCI device)" [ "$(readlink "$R/sys/class/drm/card0")" = ../../devices/platform/simple-framebuffer.0/drm/card0 ]
	check "workstation: groups" [ "$(grep -E '^(video|render):' "$R/etc/group" | tr '\n' ' ')" = "video:x:44: render:x:105: " ]
	check "workstation: no MIG caps" [ ! -e "$R/proc/driver/nvidia-caps/mig-minors" ]
	check "workstation: Xorg driver" [ -f "$R/usr/lib/xorg/modules/drivers/nvidia_drv.so" ]
	check "workstation: GLX server module" [ "$(readlink "$R/usr/lib/xorg/modules/extensions/libglxserver_nvidia.so")" = libglxserver_nvidia.so.570.148.08 ]
	check "workstation: X11 OutputClass" grep -q 'MatchDriver "nvidia-drm"' "$R/usr/share/X11/xorg.conf.d/10-nvidia.conf"
	check "workstation: application profiles" [ -f "$R/usr/share/nvidia/nvidia-application-profiles-570.148.08-rc" -a -d "$R/etc/nvidia/nvidia-application-profiles-rc.d" ]
	check "workstation: nvidia_drm loaded" grep -qx live "$R/sys/module/nvidia_drm/initstate"
	check "workstation: setuid nvidia-modprobe" [ "$(stat -c %a "$R/usr/bin/nvidia-modprobe")" = 4755 ]
	check "workstation: firmware in updates/" [ -f "$R/lib/firmware/updates/nvidia/570.148.08/gsp_ga10x.bin" ]
	check "workstation: kernel release" grep -qx 6.1.0-18-amd64 "$R/proc/sys/kernel/osrelease"
	if nvml_facts "$R/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1" >"$work/facts" 2>&1; then
		check "workstation: NVML system" grep -qx 'system 570.148.08 12080' "$work/facts"
		check "workstation: NVML GPUs" [ "$(grep '^gpu' "$work/facts" | cut -d'|' -f2-4,6-10 | tr '\n' ' ')" = "0|0|0000:17:00.0|13|8.6|unsupported|ok|NVIDIA RTX A6000 1|1|0000:65:00.0|13|8.6|unsupported|ok|NVIDIA RTX A6000 " ]
	else
		bad "workstation: NVML: $(cat "$work/facts")"
	fi
fi

# The modules tree: depmod's indexes, and libkmod resolving and dry-run probing from it.
check_modules() { # what root
	local t=$1 R=$2 M
	M=$2/lib/modules/$(cat "$2/proc/sys/kernel/osrelease")
	check "$t: modules.dep: uvm needs nvidia" grep -qx 'kernel/drivers/video/nvidia-uvm.ko: kernel/drivers/video/nvidia.ko' "$M/modules.dep"
	check "$t: modules.dep: drm chain" grep -q '^kernel/drivers/video/nvidia-drm.ko: .*nvidia-modeset.ko' "$M/modules.dep"
	check "$t: modinfo version" bash -c "[ \"\$(PATH=\$PATH:/usr/sbin:/sbin modinfo -b '$R' -k '${M##*/}' -F version nvidia 2>/dev/null)\" = '$(sed -n 's/^driver=//p' "$R/.simhost")' ]"
	check "$t: modprobe.d" grep -qx 'softdep nvidia post: nvidia-uvm' "$R/etc/modprobe.d/nvidia.conf"
	[ -n "$kmod_probe" ] || return 0
	"$kmod_probe" "$M" "$R/etc/modprobe.d" nvidia_drm >"$work/probe.out" 2>&1 || bad "$t: libkmod dry run: $(cat "$work/probe.out")"
	check "$t: libkmod: nvidia-drm after its 4 dependencies" [ "$(grep -c '^insmod' "$work/probe.out")" -ge 5 ]
	check "$t: libkmod: options from modprobe.d" grep -Eq 'nvidia-drm.ko modeset=1 ?$' "$work/probe.out"
	check "$t: libkmod: dry run succeeds" grep -qx 'probe nvidia_drm: 0' "$work/probe.out"
	"$kmod_probe" "$M" "$R/etc/modprobe.d" nvidia_peermem >"$work/probe.out" 2>&1
	check "$t: libkmod: an absent module is not found" grep -qx 'not found: nvidia_peermem' "$work/probe.out"
}
kmod_probe=
if [ -f /usr/include/libkmod.h ] && command -v cc >/dev/null; then
	cat >"$work/probe.c" <<'EOF'
#include <libkmod.h>
#include <stdio.h>
static void action(struct kmod_module *m, bool install, const char *options)
{
	(void)install;
	printf("insmod %s%s%s\n", kmod_module_get_path(m), options && *options ? " " : "",
	       options ? options : "");
}
int main(int argc, char **argv)
{
	const char *config[] = { argv[2], NULL };
	struct kmod_ctx *ctx;
	struct kmod_list *list = NULL, *it;
	if (argc != 4 || !(ctx = kmod_new(argv[1], config)))
		return 2;
	if (kmod_module_new_from_lookup(ctx, argv[3], &list) < 0 || !list) {
		printf("not found: %s\n", argv[3]);
		kmod_unref(ctx);
		return 0;
	}
	kmod_list_foreach(it, list) {
		struct kmod_module *m = kmod_module_get_module(it);
		printf("probe %s: %d\n", kmod_module_get_name(m),
		       kmod_module_probe_insert_module(m, KMOD_PROBE_DRY_RUN | KMOD_PROBE_IGNORE_LOADED,
						       NULL, NULL, NULL, action));
		kmod_module_unref(m);
	}
	kmod_module_unref_list(list);
	kmod_unref(ctx);
	return 0;
}
EOF
	cc -o "$work/kmod-probe" "$work/probe.c" -lkmod && kmod_probe=$work/kmod-probe || bad "cannot compile the libkmod probe"
fi
if [ -e "$work/workstation/.simhost-no-depmod" ]; then
	echo "note: no depmod here: modules trees are text-only, libkmod checks skipped"
else
	[ ! -d "$work/workstation/dev" ] || check_modules workstation "$work/workstation"
fi

# dgx-nvswitch: NVSwitch, NVLink, IMEX, GDS, gdrcopy, MOFED, fabric manager, MPS, DRM, firmware path.
if [ -d "$work/dgx-nvswitch/dev" ]; then
	R=$work/dgx-nvswitch
	sw=$(major_of "$R" nvidia-nvswitch) nvl=$(major_of "$R" nvidia-nvlink) imex=$(major_of "$R" nvidia-caps-imex-channels)
	fs=$(major_of "$R" nvidia-fs) gdr=$(major_of "$R" gdrdrv)
	check "dgx-nvswitch: majors in /proc/devices" [ -n "$sw" -a -n "$nvl" -a -n "$imex" -a -n "$fs" -a -n "$gdr" ]
	check "dgx-nvswitch: infiniband verbs and mad at 231" [ "$(grep '^231 ' "$R/proc/devices" | tr '\n' ' ')" = "231 infiniband_mad 231 infiniband_verbs " ]
	check "dgx-nvswitch: nvswitch permissions" grep -qx 'DeviceFileMode: 438' "$R/proc/driver/nvidia-nvswitch/permissions"
	check "dgx-nvswitch: four NVSwitches in procfs" [ "$(ls "$R/proc/driver/nvidia-nvswitch/devices" | tr '\n' ' ')" = "0000:05:00.0 0000:06:00.0 0000:07:00.0 0000:08:00.0 " ]
	for b in $(ls "$R/proc/driver/nvidia-nvswitch/devices"); do
		grep -q '^BIOS Version: ' "$R/proc/driver/nvidia-nvswitch/devices/$b/information" && [ "$(cat "$R/sys/bus/pci/devices/$b/class")" = 0x068000 ] || bad "dgx-nvswitch: NVSwitch $b"
		ok
	done
	check "dgx-nvswitch: IMEX channels" [ "$(ls "$R/dev/nvidia-caps-imex-channels" | tr '\n' ' ')" = "channel0 channel1 channel2047 " ]
	check "dgx-nvswitch: IMEX channel count" grep -qx 'ImexChannelCount: 2048' "$R/proc/driver/nvidia/params"
	check "dgx-nvswitch: 16 nvidia-fs nodes" [ "$(ls "$R/dev" | grep -c '^nvidia-fs[0-9]*$')" = 16 ]
	check "dgx-nvswitch: cufile.json parses" "$PY" -c 'import json,sys; json.load(open(sys.argv[1]))' "$R/etc/cufile.json"
	check "dgx-nvswitch: /run/udev for gds" [ -d "$R/run/udev" ]
	check "dgx-nvswitch: by-ibdev links" [ "$(readlink "$R/dev/infiniband/by-ibdev/uverbs-mlx5_3")" = ../uverbs3 ]
	check "dgx-nvswitch: fabric manager socket" [ -S "$R/run/nvidia-fabricmanager/socket" ]
	check "dgx-nvswitch: MPS control socket" [ -S "$R/tmp/nvidia-mps/control" ]
	check "dgx-nvswitch: imex and fabric manager binaries" [ -x "$R/usr/bin/nvidia-imex" -a -x "$R/usr/bin/nv-fabricmanager" ]
	check "dgx-nvswitch: firmware_class.path" [ "$(cat "$R/sys/module/firmware_class/parameters/path")" = /opt/nvidia/firmware ]
	check "dgx-nvswitch: firmware under it" [ -f "$R/opt/nvidia/firmware/nvidia/550.54.15/gsp_ga10x.bin" -a -f "$R/lib/firmware/nvidia/550.54.15/gsp_tu10x.bin" ]
	check "dgx-nvswitch: the BMC's card0 is no NVIDIA GPU" [ "$(cat "$R/sys/bus/pci/devices/0000:03:00.0/vendor")" = 0x1a03 -a ! -e "$R/sys/bus/pci/devices/0000:03:00.0/drm/renderD128" ]
	check "dgx-nvswitch: GPU 7 is card8/renderD135" [ "$(ls "$R/sys/bus/pci/devices/0000:df:00.0/drm" | tr '\n' ' ')" = "card8 renderD135 " ]
	check "dgx-nvswitch: egl-gbm linked with its SONAME" bash -c "readelf -d '$R/usr/lib/x86_64-linux-gnu/libnvidia-egl-gbm.so.1.1.1' | grep -q 'SONAME.*libnvidia-egl-gbm.so.1'"
	if devnodes_ok "$R"; then
		for i in 0 1 2 3; do want_node dgx-nvswitch "$R/dev/nvidia-nvswitch$i" "$sw" "$i" 666 0:0; done
		want_node dgx-nvswitch "$R/dev/nvidia-nvswitchctl" "$sw" 255 666 0:0
		want_node dgx-nvswitch "$R/dev/nvidia-nvlink" "$nvl" 0 666 0:0
		want_node dgx-nvswitch "$R/dev/nvidia-caps-imex-channels/channel2047" "$imex" 2047 666 0:0
		want_node dgx-nvswitch "$R/dev/nvidia-fs15" "$fs" 15 666 0:0
		want_node dgx-nvswitch "$R/dev/gdrdrv" "$gdr" 0 666 0:0
		want_node dgx-nvswitch "$R/dev/infiniband/uverbs7" 231 199 666 0:0
		want_node dgx-nvswitch "$R/dev/infiniband/rdma_cm" 10 58 666 0:0
		want_node dgx-nvswitch "$R/dev/dri/renderD135" 226 135 660 0:105
	fi
	if nvml_facts "$R/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1" >"$work/facts" 2>&1; then
		check "dgx-nvswitch: NVML system" grep -qx 'system 550.54.15 12040' "$work/facts"
		check "dgx-nvswitch: NVML GPUs: H100, cc 9.0, MIG off, all calls answered" [ "$(grep -c '^gpu|.*|14|9.0|off|ok|NVIDIA H100 80GB HBM3$' "$work/facts")" = 8 ]
		check "dgx-nvswitch: NVML bus ids are procfs's" [ "$(grep '^gpu' "$work/facts" | cut -d'|' -f4 | tr '\n' ' ')" = "$(ls "$R/proc/driver/nvidia/gpus" | tr '\n' ' ')" ]
	else
		bad "dgx-nvswitch: NVML: $(cat "$work/facts")"
	fi
	[ -e "$R/.simhost-no-depmod" ] || check_modules dgx-nvswitch "$R"
fi

# wsl: /dev/dxg, the driver store, /usr/lib/wsl/lib, no NVIDIA kernel driver at all.
if build wsl "$work/wsl"; then
	R=$work/wsl
	store=$(ls -d "$R"/usr/lib/wsl/drivers/nv*_amd64_*)
	check "wsl: one NVIDIA driver store" [ "$(echo "$store" | wc -l)" = 1 ]
	check "wsl: store name <inf>_amd64_<16 hex>" bash -c "[[ '${store##*/}' =~ ^nv[a-z_]+\.inf_amd64_[0-9a-f]{16}\$ ]]"
	for f in libcuda.so.1.1 libcuda_loader.so libnvidia-ptxjitcompiler.so.1 libnvidia-ml.so.1 libnvidia-ml_loader.so libnvdxgdmal.so.1 nvcubins.bin nvidia-smi; do
		check "wsl: store has $f" [ -f "$store/$f" ]
	done
	check "wsl: the Intel store has no CUDA" bash -c "! ls '$R'/usr/lib/wsl/drivers/iigd_dch.inf_amd64_* | grep -q libcuda"
	check "wsl: libcuda.so.1.1 is libcuda.so.1 with cuInit" bash -c "readelf -d '$store/libcuda.so.1.1' | grep -q 'SONAME.*libcuda.so.1' && readelf --dyn-syms '$store/libcuda.so.1.1' | grep -q ' cuInit$'"
	check "wsl: lxss/lib holds copies, not links" [ -f "$R/usr/lib/wsl/lib/libcuda.so.1" -a ! -L "$R/usr/lib/wsl/lib/libcuda.so.1" ]
	check "wsl: lib dir registered" grep -qx /usr/lib/wsl/lib "$R/etc/ld.so.conf.d/ld.wsl.conf"
	check "wsl: read-only store (fmask 222)" [ "$(stat -c %a "$store/libcuda.so.1.1")" = 555 ]
	check "wsl: no NVIDIA kernel driver" [ ! -e "$R/proc/driver/nvidia" -a ! -e "$R/sys/module/nvidia" ]
	check "wsl: no /dev/nvidia*" bash -c "! ls '$R/dev' | grep -q '^nvidia'"
	check "wsl: /proc/devices has no NVIDIA region" bash -c "! grep -q nvidia '$R/proc/devices'"
	check "wsl: kernel" grep -q microsoft-standard-WSL2 "$R/proc/version"
	if [ ! -e "$R/.simhost-no-ldcache" ]; then
		cache_of "$R" >"$work/cache"
		check "wsl: libcuda.so.1 from lxss/lib in the cache" grep -q "libcuda.so.1 (libc6,x86-64) => /usr/lib/wsl/lib/libcuda.so.1$" "$work/cache"
		check "wsl: libdxcore in the cache" grep -q "libdxcore.so (libc6,x86-64) => /usr/lib/wsl/lib/libdxcore.so$" "$work/cache"
		check "wsl: the store is not in the cache" bash -c "! grep -q /usr/lib/wsl/drivers '$work/cache'"
	fi
	devnodes_ok "$R" && want_node wsl "$R/dev/dxg" 10 125 666 0:0
	if nvml_facts "$store/libnvidia-ml.so.1" >"$work/facts" 2>&1; then
		check "wsl: NVML from the store" grep -qx 'system 566.36 12070' "$work/facts"
		check "wsl: NVML GPU" grep -q '^gpu|0|0|0000:01:00.0|GPU-.*|5|8.6|unsupported|ok|NVIDIA GeForce RTX 3080$' "$work/facts"
	else
		bad "wsl: NVML: $(cat "$work/facts")"
	fi
fi

# jetson: the CSV files of L4T R36 and every path they list.
check_csv() { # what root csv-files...
	local t=$1 R=$2 kind path rest n=0 m
	shift 2
	while IFS=, read -r kind rest; do
		path=${rest# }
		n=$((n + 1))
		case $kind in
		dev)
			m=0
			for f in $R$path; do [ -c "$f" ] || [ -f "$f" -a -e "$R/.simhost-no-devnodes" ] && m=$((m + 1)); done
			[ "$m" -gt 0 ] || bad "$t: dev $path matches no node"
			;;
		lib) [ -f "$R$path" ] || bad "$t: lib $path is no file" ;;
		sym) [ -L "$R$path" ] || bad "$t: sym $path is no link" ;;
		dir) [ -d "$R$path" ] || bad "$t: dir $path is no directory" ;;
		*) bad "$t: row kind '$kind'" ;;
		esac
		ok
	done < <(cat "$@")
	check "$t: $n rows" [ "$n" -gt 100 ]
}
if build jetson "$work/jetson"; then
	R=$work/jetson
	D=$R/etc/nvidia-container-runtime/host-files-for-container.d
	check "jetson: R36 ships devices.csv and drivers.csv" [ "$(ls "$D" | tr '\n' ' ')" = "devices.csv drivers.csv " ]
	check_csv jetson "$R" "$D/devices.csv" "$D/drivers.csv"
	check "jetson: sym rows resolve inside the root" [ "$(readlink "$R/usr/lib/aarch64-linux-gnu/nvidia/libcuda.so.1")" = libcuda.so.1.1 -a -f "$R$(readlink "$R/etc/vulkan/icd.d/nvidia_icd.json")" ]
	check "jetson: nv_tegra_release" grep -q '^# R36 (release), REVISION: 4.3' "$R/etc/nv_tegra_release"
	check "jetson: SoC family" grep -qx Tegra "$R/sys/devices/soc0/family"
	check "jetson: no NVML outside the CSV's stand-ins" bash -c "! find '$R' -name 'libnvidia-ml.so.*' ! -path '*/aarch64-linux-gnu/nvidia/*' | grep -q ."
	check "jetson: the display driver's version file only" [ "$(ls "$R/proc/driver/nvidia")" = version ]
	check "jetson: the open module's version line" grep -q '^NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  36.4.3  Release Build  ' "$R/proc/driver/nvidia/version"
	check "jetson: Ubuntu 22.04" grep -qx 'VERSION_ID="22.04"' "$R/etc/os-release"
	devnodes_ok "$R" && want_node jetson "$R/dev/nvhost-ctrl-gpu" 497 1 660 0:44
fi
if build jetson "$work/jetson35" --l4t r35; then
	D=$work/jetson35/etc/nvidia-container-runtime/host-files-for-container.d
	check "jetson --l4t r35: one l4t.csv" [ "$(ls "$D")" = l4t.csv ]
	check "jetson --l4t r35: every row" [ "$(wc -l <"$D/l4t.csv")" = "$(cat "$work/jetson/etc/nvidia-container-runtime/host-files-for-container.d"/*.csv | wc -l)" ]
fi

# Options: control nodes missing while the module is loaded, device-file params, modules tree.
if [ -d "$work/b535/dev" ]; then
	R=$work/b535
	check "--no-uvm-nodes: no nodes" [ ! -e "$R/dev/nvidia-uvm" -a ! -e "$R/dev/nvidia-uvm-tools" ]
	check "--no-uvm-nodes: module loaded" grep -qx live "$R/sys/module/nvidia_uvm/initstate"
	check "--no-uvm-nodes: region registered" [ -n "$(major_of "$R" nvidia-uvm)" ]
	check "--no-ctl-node: no nvidiactl" [ ! -e "$R/dev/nvidiactl" -a -e "$R/dev/nvidia0" ]
	check "--params: in params" grep -qx 'DeviceFileMode: 432' "$R/proc/driver/nvidia/params"
	check "--params: in modprobe.d" grep -q 'NVreg_DeviceFileGID=44' "$R/etc/modprobe.d/nvidia.conf"
	devnodes_ok "$R" && want_node "--params" "$R/dev/nvidia0" 195 0 660 0:44
	check ".simhost records them" grep -qx 'features=modules no-uvm no-ctl' "$R/.simhost"
	[ -e "$R/.simhost-no-depmod" ] || check_modules "--modules" "$R"
fi
if [ -d "$work/b570/dev" ]; then
	R=$work/b570
	check "extras: gds, gdrcopy, mofed" [ -e "$R/dev/nvidia-fs0" -a -e "$R/dev/gdrdrv" -a -e "$R/dev/infiniband/uverbs0" ]
	check "extras: MPS daemon" [ -S "$R/tmp/nvidia-mps/control" ]
	check "extras: firmware path" [ -f "$R/usr/local/nvidia/firmware/nvidia/570.148.08/gsp_ga10x.bin" ]
	check "extras: IMEX channel 5" [ -e "$R/dev/nvidia-caps-imex-channels/channel5" ]
	check "extras: the first five stay as they were otherwise" [ ! -e "$R/etc/group" -a ! -e "$R/sys/bus" ]
fi
for bad_opts in "old-driver --branch 570" "dgx-nvswitch --mig 0=7g" "single --branch 535 --imex-channels 0" \
	"wsl --modules" "jetson --params DeviceFileMode=432" "wsl --driver 570.1.2" "single --branch 560" "single --l4t r37"; do
	# shellcheck disable=SC2086
	check "refused: $bad_opts" bash -c "! tests/simhost/make-host --topology $bad_opts --mock-dir '$mock_dir' --out '$work/x' 2>/dev/null"
done

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
		for t in dgx-mig:8:10 big64:64:448 dgx-nvswitch:8:0; do
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
if [ -d "$work/workstation/dev" ] && build workstation "$work/again-ws"; then
	check "workstation twice: same tree (depmod's indexes too)" diff <(listing "$work/workstation") <(listing "$work/again-ws")
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
	check "--mig: cap files follow" [ -f "$R/proc/driver/nvidia/capabilities/gpu5/mig/gi0/ci0/access" -a ! -e "$R/proc/driver/nvidia/capabilities/gpu2/mig/gi7" ]
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
	# The checkout may be private (mode 0700, as under /root): the user gets its own copy of
	# make-host and the mock, and a working directory, where it can reach them.
	mkdir -p "$work/tools"
	cp -r tests/simhost/make-host tests/simhost/lib "$work/tools/"
	cp -r "$mock_dir" "$work/tools/mock-nvml"
	chown -R 65534:65534 "$work/tools"
	if (cd "$work/user" && setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$work/tools/make-host" --topology single --mock-dir "$work/tools/mock-nvml" \
		--out "$work/user/h") >/dev/null 2>"$work/err"; then
		check "not root: marker" [ -e "$work/user/h/.simhost-no-devnodes" ]
		check "not root: nodes are files" [ -f "$work/user/h/dev/nvidiactl" ]
		check "not root: cache or marker" [ -f "$work/user/h/etc/ld.so.cache" -o -e "$work/user/h/.simhost-no-ldcache" ]
	else
		bad "make-host as an unprivileged user: $(cat "$work/err")"
	fi
	# The new shapes too: group-owned nodes become files, depmod works on the user's tree.
	for t in workstation jetson; do
		if (cd "$work/user" && setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$work/tools/make-host" --topology $t --mock-dir "$work/tools/mock-nvml" \
			--out "$work/user/$t") >/dev/null 2>"$work/err"; then
			check "not root, $t: DRI nodes are files" [ -f "$work/user/$t/dev/dri/renderD128" ]
		else
			bad "make-host --topology $t as an unprivileged user: $(cat "$work/err")"
		fi
	done
	check "not root, workstation: modules indexed" [ -f "$work/user/workstation/lib/modules/6.1.0-18-amd64/modules.dep" ]
fi

echo "simhost: $checks checks, $fails failed"
[ $fails -eq 0 ]
