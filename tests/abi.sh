#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The libcdi ABI: build/libcdi.so exports exactly the functions declared in include/cdi/*.h,
# each in the version node of libcdi.sym, nothing else (no internal helper, no data), under the
# soname libcdi.so.<major>. A function added to a header without an export, or an export
# without a declaration, fails here.
set -u
cd "$(dirname "$0")/.."
: "${B:=build}"
lib=$B/libcdi.so
[ -e "$lib" ] || { echo "no $lib"; exit 1; }
work=$(mktemp -d /tmp/cdikit-abi.XXXXXX)
trap 'rm -rf "$work"' EXIT
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# What the headers declare: every cdi_ name followed by '(' once the headers are preprocessed
# (function pointer types such as cdi_lstat_fn are followed by ')').
printf '#include <cdi/cdi.h>\n' | cc -E -P -Iinclude $(pkg-config --cflags jansson) -x c - |
	grep -oE '\bcdi_[a-z0-9_]+ *\(' | tr -d ' (' | sort -u >"$work/declared"
# What the library exports, with the version of each.
objdump -T "$lib" | awk '$2 == "g" && $4 == ".text" { print $NF, $(NF-1) }' | sort -u >"$work/exported"
awk '{ print $1 }' "$work/exported" >"$work/names"
objdump -T "$lib" | awk '$2 == "g" && ($4 == ".data" || $4 == ".bss" || $4 == ".rodata") { print $NF }' >"$work/data"

[ -s "$work/declared" ] || bad "no declaration found in include/cdi"
if ! diff -u "$work/declared" "$work/names" >"$work/diff"; then
	bad "exported symbols differ from the declarations (- declared only, + exported only):"
	sed -n '3,$p' "$work/diff" | grep '^[-+]'
fi
awk '$2 != "CDI_0.1" { print }' "$work/exported" | grep . && bad "symbols outside the CDI_0.1 node"
[ -s "$work/data" ] && bad "data exported: $(tr '\n' ' ' <"$work/data")"
objdump -p "$lib" | grep -q 'SONAME *libcdi.so.0$' || bad "soname is not libcdi.so.0"
objdump -p "$lib" | grep -q 'CDI_0.1' || bad "no CDI_0.1 version definition"
# libcdi.sym lists the same names (it is the single place an export is made).
sed -n 's/^\t\(cdi_[a-z0-9_]*\);$/\1/p' libcdi.sym | sort -u | diff -u "$work/declared" - >/dev/null ||
	bad "libcdi.sym and include/cdi/*.h list different functions"

n=$(wc -l <"$work/names")
[ "$fails" -eq 0 ] && echo "abi: $n functions exported, all declared, all in CDI_0.1"
exit $((fails > 0))
