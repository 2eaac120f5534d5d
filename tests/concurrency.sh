#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Concurrency, against behaviour:
#   1. two cdi-generate (two hosts, so two different specs) write into one directory at once,
#      a few hundred rounds: both succeed, and the directory then holds exactly what one of
#      them alone would have written (the spec and whatever files go with it, from the same
#      run: never one's spec beside the other's companion files; the spec cache made from that
#      very spec file), and no temp file;
#   2. cdi-apply injects a device while cdi-generate keeps replacing the spec it reads: every
#      injection succeeds (no spurious "unresolvable CDI devices") and its result is exactly
#      the result for the old or for the new spec, never a torn or half-read one; no temp
#      file is left.
# ROUNDS (default 100, 30 with SANITIZE=1) sets the number of rounds of each part.
#
# Needs root for the simulated hosts' device nodes (tests/simhost/make-host); exits 77 otherwise.
set -u
# Under the sanitizers every start costs several times more: fewer rounds, same checks.
[ "${SANITIZE:-0}" = 1 ] && : "${ROUNDS:=30}"
: "${ROUNDS:=100}"
. "$(dirname "$0")/lib/suite.sh" concurrency "the simulated hosts have real device nodes" \
	cdi-generate cdi-apply tests/mock-nvml/libnvidia-ml.so.1
# The spec writer's checks, on the per-file layout (tests/lib-dir.sh checks the library directory).
L=--library-layout=files
G=$B/cdi-generate A=$B/cdi-apply
ok() { echo "ok: $* (${SECONDS}s)"; }
writer=
cleanup() {
	[ -z "$writer" ] || { kill "$writer" 2>/dev/null; wait "$writer" 2>/dev/null; }
	rm -rf "$tmp"
}
trap cleanup EXIT

# Two hosts that differ in every library path: driver 550.54.15 and 555.42.02.
make_host single "$tmp/host1"
make_host single "$tmp/host2" --driver 555.42.02

# What a directory holds, a lock file aside (a writer may keep one there by design): the names
# (hidden ones included: a temp file left behind is a difference), then every file's bytes. One
# process per call, as this runs hundreds of times.
# The spec cache (NAME.yaml.cdikit-cache) counts by its packed trees, after its 144-byte header,
# and only when that header names the spec and facts files beside it (inode, size, times): a
# cache left from the other run is a difference.
shopt -s nullglob dotglob
cache_bytes() { # cache spec
	python3 - "$1" "$2" <<'PY'
import os, struct, sys
data = open(sys.argv[1], "rb").read()
def ident(path):
    st = os.stat(path)
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns // 10**9, st.st_mtime_ns % 10**9,
            st.st_ctime_ns // 10**9, st.st_ctime_ns % 10**9)
ok = struct.unpack_from("<7Q", data, 16) == ident(sys.argv[2]) and \
     struct.unpack_from("<7Q", data, 72) == ident(sys.argv[2] + ".cdikit")
sys.stdout.buffer.write(data[144:] if ok else b"a cache of other files\n")
PY
}
contents() { # dir
	local f files=()
	for f in "$1"/*; do
		[[ $f == *.lock ]] || files+=("$f")
	done
	printf '%s\n' "${files[@]##*/}"
	for f in "${files[@]}"; do
		case $f in
		*.cdikit-cache) cache_bytes "$f" "${f%.cdikit-cache}" ;;
		*) cat "$f" ;;
		esac
	done
}

# ---- 1. two generators, one directory -----------------------------------------------------
for h in 1 2; do
	mkdir -p "$tmp/alone$h"
	"$G" $L --root "$tmp/host$h" --output "$tmp/alone$h/nvidia.yaml" 2>"$tmp/err" ||
		die "cdi-generate host$h: $(cat "$tmp/err")"
	contents "$tmp/alone$h" >"$tmp/alone$h.contents"
done
cmp -s "$tmp/alone1.contents" "$tmp/alone2.contents" && die "the two hosts give the same spec"

out=$tmp/out
mkdir -p "$out"
seen1=0 seen2=0
for ((i = 0; i < ROUNDS; i++)); do
	# Every other round starts empty, the others replace what the last round left.
	[ $((i % 2)) -eq 0 ] && find "$out" -mindepth 1 ! -name '*.lock' -delete
	"$G" $L --root "$tmp/host1" --output "$out/nvidia.yaml" 2>"$tmp/err1" &
	p1=$!
	"$G" $L --root "$tmp/host2" --output "$out/nvidia.yaml" 2>"$tmp/err2" &
	p2=$!
	wait "$p1" || die "round $i: cdi-generate host1 failed: $(cat "$tmp/err1")"
	wait "$p2" || die "round $i: cdi-generate host2 failed: $(cat "$tmp/err2")"
	contents "$out" >"$tmp/now"
	if cmp -s "$tmp/now" "$tmp/alone1.contents"; then
		seen1=$((seen1 + 1))
	elif cmp -s "$tmp/now" "$tmp/alone2.contents"; then
		seen2=$((seen2 + 1))
	else
		die "round $i: the directory is neither host's output (names first, then content): $(diff -a "$tmp/alone1.contents" "$tmp/now" | head -n 20)"
	fi
done
ok "$ROUNDS rounds of two cdi-generate into one directory: host1's output $seen1 times, host2's $seen2, nothing torn or left behind"

# ---- 2. cdi-apply while the spec is replaced ----------------------------------------------
specs=$tmp/specs config=tests/corpus/inject/nvidia-like/config.json
mkdir -p "$specs"
for h in 1 2; do
	"$A" --spec-dir "$tmp/alone$h" --config - --output - nvidia.com/gpu=0 <"$config" \
		>"$tmp/result$h" 2>"$tmp/err" || die "cdi-apply on host$h's spec: $(cat "$tmp/err")"
done
cmp -s "$tmp/result1" "$tmp/result2" && die "both specs give the same result"
cp "$tmp/alone1/nvidia.yaml" "$specs/nvidia.yaml"

touch "$tmp/writing"
(
	n=0
	while [ -e "$tmp/writing" ]; do
		h=$((n % 2 + 1))
		"$G" $L --root "$tmp/host$h" --output "$specs/nvidia.yaml" 2>>"$tmp/writer.err" || exit 1
		n=$((n + 1))
		echo "$n" >"$tmp/writes"
	done
) &
writer=$!

got1=0 got2=0
for ((i = 0; i < ROUNDS; i++)); do
	"$A" --spec-dir "$specs" --config - --output - nvidia.com/gpu=0 <"$config" >"$tmp/got" 2>"$tmp/err" ||
		die "read $i: cdi-apply failed while the spec was replaced: $(cat "$tmp/err")"
	if cmp -s "$tmp/got" "$tmp/result1"; then
		got1=$((got1 + 1))
	elif cmp -s "$tmp/got" "$tmp/result2"; then
		got2=$((got2 + 1))
	else
		die "read $i: the result is neither spec's: $(diff "$tmp/result1" "$tmp/got" | head -n 20)"
	fi
done
rm -f "$tmp/writing"
wait "$writer" || die "the writer failed: $(cat "$tmp/writer.err")"
writer=
writes=$(cat "$tmp/writes" 2>/dev/null || echo 0)
[ "$writes" -ge 2 ] || die "the spec was replaced only $writes times during the reads"
contents "$specs" >"$tmp/now"
cmp -s "$tmp/now" "$tmp/alone1.contents" || cmp -s "$tmp/now" "$tmp/alone2.contents" ||
	die "the spec directory is neither host's output at the end: $(diff -a "$tmp/alone1.contents" "$tmp/now" | head -n 20)"
ok "$ROUNDS injections during $writes spec replacements: old spec $got1 times, new $got2, none torn or failed"
