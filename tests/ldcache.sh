#!/usr/bin/env bash
# `cdi-apply --ldcache` on the simulated DGX host (`nvidia.com/gpu=all` from cdi-generate's spec,
# in both layouts: the default library directory, and --library-layout files), read back by
# glibc:
#   1. `ldconfig -p -C` lists every library the spec brings under its soname, 64-bit as
#      (libc6,x86-64) and 32-bit as (libc6): per-file, at its mount in the library's own
#      directory; with the directory, at /usr/local/nvidia/lib64 (lib) as the directory's cache
#      file records it, the per-file mounts made links into it. The driver's libcuda.so.1 comes
#      before the image's CUDA stub;
#   2. the name the loader resolves for each soname and ABI (the first entry) is what
#      `ldconfig -r` gives for the same tree (the image plus the mounted files, with the
#      000-cdikit.conf the step wrote);
#   3. ldconfig run afterwards in a chroot of that tree (the image's own ldconfig, as Debian's
#      libc-bin trigger runs it) exits 0 and keeps the driver's libcuda.so.1 first;
#   4. without --ldcache, cdi-apply leaves the rootfs alone.
# Needs root (device nodes of the simulated host, chroot) and jq; else exit 77.
set -u
cd "$(dirname "$0")/.."
: "${B:=build}"

skip() { echo "SKIP: $*"; exit 77; }
die() { echo "FAIL: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || skip "needs root (device nodes of the simulated host, chroot)"
command -v jq >/dev/null 2>&1 || skip "jq not installed"
for f in cdi-generate cdi-apply tests/mock-nvml/libnvidia-ml.so.1; do
	[ -e "$B/$f" ] || die "$B/$f not built"
done

tmp=$(mktemp -d /tmp/cdikit-ldcache.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP

# shellcheck source=lib/rootfs.sh
. tests/lib/rootfs.sh

# layout LAYOUT: the whole check for the spec of that layout ("dir" is cdi-generate's default).
layout() {
local L=$1 tmp=$tmp/$1
mkdir -p "$tmp"
if [ "$L" = dir ]; then
	dgx_spec "$tmp" || die "cannot build the simulated host and its spec"
else
	dgx_spec "$tmp" --library-layout files || die "cannot build the simulated host and its spec"
fi

bundle=$tmp/bundle
rootfs=$bundle/rootfs
make_debian_rootfs "$rootfs" || die "cannot build the rootfs"
make_stub_lib "$rootfs/usr/local/cuda/lib64/stubs/libcuda.so.1" libcuda.so.1 cdikit_stub_libcuda ||
	die "cannot build the stub"
add_ldconfig "$rootfs" || die "ldconfig -r failed"
echo /usr/local/cuda/lib64/stubs >"$rootfs/etc/ld.so.conf.d/cuda-stubs.conf"
ldconfig -r "$rootfs" || die "ldconfig -r failed"
cat >"$bundle/config.json" <<'EOF'
{"ociVersion": "1.0.2", "root": {"path": "rootfs"}, "process": {"args": ["/bin/true"], "cwd": "/"}}
EOF
cp "$rootfs/etc/ld.so.cache" "$tmp/image.cache"

# 4: devices without --ldcache touch nothing in the rootfs.
"$B/cdi-apply" --spec-dir "$tmp/cdi" --config "$bundle/config.json" --output "$tmp/plain.json" \
	nvidia.com/gpu=all || die "cdi-apply failed"
cmp -s "$rootfs/etc/ld.so.cache" "$tmp/image.cache" && [ ! -e "$rootfs/etc/ld.so.conf.d/000-cdikit.conf" ] ||
	die "cdi-apply without --ldcache changed the rootfs"

"$B/cdi-apply" --spec-dir "$tmp/cdi" --config "$bundle/config.json" --ldcache nvidia.com/gpu=all ||
	die "cdi-apply --ldcache failed"
if [ "$L" = files ]; then
	cmp -s <(jq -S . "$tmp/plain.json") <(jq -S . "$bundle/config.json") ||
		die "$L: --ldcache changed config.json of a writable rootfs"
else
	# The per-file mounts into the directory are links now; the directory's mount stays.
	jq -e '[.mounts[] | select(.source | test("/nvidia\\.lib/"))] == []' "$bundle/config.json" >/dev/null &&
		jq -e 'any(.mounts[]; .destination == "/usr/local/nvidia")' "$bundle/config.json" >/dev/null ||
		die "$L: the per-file mounts into the directory were not made links"
	[ "$(readlink "$rootfs/usr/lib/x86_64-linux-gnu/libcuda.so.1")" = /usr/local/nvidia/lib64/libcuda.so.1 ] ||
		die "$L: no link for libcuda.so.1 in the multiarch directory"
fi
ldconfig -p -C "$rootfs/etc/ld.so.cache" >"$tmp/ours.txt" || die "glibc cannot read the cache"

# 1: every soname-named library mount of the 64- and 32-bit default directories is listed, or
# every name of the directory's lib64/ and lib/. The expected lines come from the spec's mounts
# (the directory's files) and the host files' ELF headers.
if [ "$L" = files ]; then
	jq -r '.mounts[] | select(.destination | test("^/usr/lib/(x86_64|i386)-linux-gnu/lib[^/]*\\.so")) |
		"\(.destination) \(.source)"' "$bundle/config.json" >"$tmp/mounts.txt"
else
	for d in lib64 lib; do
		find "$tmp/cdi/nvidia.lib/$d" -maxdepth 1 -type f -name 'lib*.so*' -printf "/usr/local/nvidia/$d/%f %p\n"
	done >"$tmp/mounts.txt"
fi
n=0
declare -A soname_of kind_of
while read -r dst src; do
	if [ -z "${soname_of[$src]+set}" ]; then
		readelf -hdW "$src" >"$tmp/elf" 2>/dev/null
		soname_of[$src]=$(sed -nE 's/.*\(SONAME\).*\[(.*)\]/\1/p' "$tmp/elf")
		kind_of[$src]=libc6
		grep -qE '^ *Class: *ELF64' "$tmp/elf" && kind_of[$src]=libc6,x86-64
	fi
	soname=${soname_of[$src]} kind=${kind_of[$src]}
	[ "$soname" = "${dst##*/}" ] || continue
	line=$(printf '\t%s (%s) => %s' "$soname" "$kind" "$dst")
	grep -qxF "$line" "$tmp/ours.txt" || die "not in the cache: $line"
	n=$((n + 1))
done <"$tmp/mounts.txt"
[ "$n" -ge 40 ] || die "only $n libraries checked"
first() { grep -m1 -F "$(printf '\t%s (%s)' "$2" "$3")" "$1" | sed 's/.* => //'; }
[ "$(first "$tmp/ours.txt" libcuda.so.1 libc6,x86-64)" = "$home64/libcuda.so.1" ] ||
	die "the driver's libcuda.so.1 is not first: $(grep libcuda.so.1 "$tmp/ours.txt")"
grep -qF /usr/local/cuda/lib64/stubs/libcuda.so.1 "$tmp/ours.txt" || die "the image's stub entry is gone"

# 2: the container's tree (mounted files as hard links: one inode, as a bind mount shows it),
# cached by ldconfig -r with the same configuration.
tree=$tmp/tree
cp -a "$rootfs" "$tree"
jq -r '.mounts[] | select(.destination | test("/lib[^/]*\\.so[^/]*$")) | "\(.destination) \(.source)"' \
	"$bundle/config.json" | while read -r dst src; do
	[ -d "$tree${dst%/*}" ] || mkdir -p "$tree${dst%/*}"
	ln -f "$src" "$tree$dst"
done
# The directory's mount, as its files (hard links: the same inodes).
[ "$L" = files ] || { mkdir -p "$tree/usr/local" && cp -al "$tmp/cdi/nvidia.lib" "$tree/usr/local/nvidia"; } ||
	die "cannot lay out the directory in the tree"
cp "$tmp/image.cache" "$tree/etc/ld.so.cache"
ldconfig -X -r "$tree" 2>"$tmp/ldconfig.err" || { cat "$tmp/ldconfig.err"; die "ldconfig -r failed"; }
ldconfig -p -C "$tree/etc/ld.so.cache" >"$tmp/theirs.txt"
# The loader's view: the first entry of each soname and kind, as the file it is in the tree
# (merged /usr spells one directory two ways: which spelling a cache keeps is the scan order's).
resolved() {
	sed '1d; /^Cache generated/d' "$1" | awk -F' => ' '!seen[$1]++' | while IFS= read -r l; do
		printf '%s => %s\n' "${l% => *}" "$(cd "$tree" && realpath -m --relative-to=. "./${l##* => }")"
	done | LC_ALL=C sort
}
diff <(resolved "$tmp/theirs.txt") <(resolved "$tmp/ours.txt") >"$tmp/diff" ||
	{ sed 's/^/    /' "$tmp/diff"; die "$L: the loader would resolve differently than with ldconfig -r's cache"; }

# 3: ldconfig inside (a chroot of the container's tree with the cache we wrote) succeeds and
# keeps the driver first.
cp "$rootfs/etc/ld.so.cache" "$tree/etc/ld.so.cache"
chroot "$tree" /usr/sbin/ldconfig 2>"$tmp/chroot.err" || { cat "$tmp/chroot.err"; die "ldconfig in the chroot failed"; }
ldconfig -p -C "$tree/etc/ld.so.cache" >"$tmp/after.txt"
[ "$(first "$tmp/after.txt" libcuda.so.1 libc6,x86-64)" = "$home64/libcuda.so.1" ] ||
	die "$L: after ldconfig in the container the driver's libcuda.so.1 is not first"
echo "ok: $L: $n driver libraries listed by glibc; the loader resolves as with ldconfig -r; ldconfig inside keeps the driver first"
}

home64=/usr/lib/x86_64-linux-gnu
layout files
home64=/usr/local/nvidia/lib64
layout dir
echo "PASS: ldcache"
