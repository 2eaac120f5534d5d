#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Faults while writing: cdi-generate writing its spec and cdi-apply rewriting a config.json meet
# a full disk, a read-only or forbidden directory, I/O errors and short writes, injected by the
# LD_PRELOAD shim tests/faults/fault-shim.c ($B/tests/faults/fault-shim.so, built by make check).
# Under each fault that must fail, the program exits non-zero with one line on stderr naming
# the file, the old file survives byte-identical, and the directory holds exactly what it held
# (no temp file left). A short write is not an error: the file is written whole. A failure to
# sync the directory after the rename leaves the new file whole (it is too late to keep the old
# one) and is still reported. Every fault is checked to have happened (the shim's log). The
# cases at the end failed on the tree the suite was written on (a directory the generator made
# for its output stays behind; cdi-apply chowns the config by path after the rename and exits 0
# when that fails): each is reported without stopping the others.
#
# Under SANITIZE=1 the programs carry ASan: the shim then comes first in the library list,
# which ASan accepts with verify_asan_link_order=0.
#
# Needs root for the simulated host's device nodes (tests/simhost/make-host); exits 77 otherwise.
set -u
. "$(dirname "$0")/lib/suite.sh" faults "the simulated host has real device nodes" \
	cdi-generate cdi-apply tests/faults/fault-shim.so tests/mock-nvml/libnvidia-ml.so.1
# The spec writer's checks, on the per-file layout (tests/lib-dir.sh checks the library directory).
L=--library-layout=files
G=$B/cdi-generate A=$B/cdi-apply SHIM=$B/tests/faults/fault-shim.so
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
make_host single "$tmp/host"

# Every name in a directory with its content's hash, to compare before and after.
snapshot() { # dir
	(cd "$1" && find . -mindepth 1 -printf '%p %y %m\n' | sort && find . -type f -exec sha256sum {} + | sort)
}

# under_fault LABEL DIR FILE EXPECT CLASS ERRNO [VAR=VALUE...] -- COMMAND...
#   EXPECT: fail (old state kept), whole (success, FILE is $tmp/expected), late (failure
#   reported, FILE is whole: old or expected), maybe (fail if the fault happened, else return 1)
under_fault() {
	local label=$1 dir=$2 file=$3 expect=$4 class=$5 err=$6 rc lines
	shift 6
	local env=()
	while [ "$1" != -- ]; do env+=("$1"); shift; done
	shift
	snapshot "$dir" >"$tmp/before"
	rm -f "$tmp/old"
	[ ! -e "$file" ] || cp "$file" "$tmp/old" # no old file: none may appear
	rm -f "$tmp/fault.log"
	env LD_PRELOAD="$SHIM" CDIKIT_FAULT="$class" CDIKIT_FAULT_ERRNO="$err" \
		CDIKIT_FAULT_LOG="$tmp/fault.log" "${env[@]}" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ ! -s "$tmp/fault.log" ]; then
		[ "$expect" = maybe ] || die "$label: the fault never happened (no $class call matched)"
		echo "note: $label: no $class call here"
		[ ! -e "$tmp/old" ] || cp "$tmp/old" "$file" # the run went through: back to the old file
		return 1
	fi
	snapshot "$dir" >"$tmp/after"
	case $expect in
	fail | maybe)
		[ "$rc" -ne 0 ] || die "$label: exit 0 under the fault ($(head -n 3 "$tmp/fault.log"))"
		if [ -e "$tmp/old" ]; then
			cmp -s "$tmp/old" "$file" || die "$label: the old $file did not survive"
		fi
		diff -u "$tmp/before" "$tmp/after" >"$tmp/diff" ||
			die "$label: the directory changed: $(grep '^[-+][^-+]' "$tmp/diff")"
		;;
	whole)
		[ "$rc" -eq 0 ] || die "$label: exit $rc: $(cat "$tmp/err")"
		cmp -s "$tmp/expected" "$file" || die "$label: $file is not what a run without faults writes"
		[ ! -s "$tmp/err" ] || die "$label: said something: $(cat "$tmp/err")"
		;;
	late)
		[ "$rc" -ne 0 ] || die "$label: exit 0 though the directory could not be synced"
		cmp -s "$tmp/old" "$file" || cmp -s "$tmp/expected" "$file" ||
			die "$label: $file is neither the old nor the new file"
		;;
	esac
	if [ "$expect" != whole ]; then
		lines=$(wc -l <"$tmp/err")
		[ "$lines" -eq 1 ] || die "$label: $lines lines on stderr, not one: $(cat "$tmp/err")"
		grep -qF -- "$file" "$tmp/err" || die "$label: the message does not name $file: $(cat "$tmp/err")"
	fi
	find "$dir" -name '*.tmp' | grep -q . && die "$label: a temp file is left: $(find "$dir" -name '*.tmp')"
	ok "$label: $(head -n 1 "$tmp/err" 2>/dev/null | cut -c1-150)"
}

# The matrix both writers go through: (label class errno expectation [shim settings]).
# $dir and $file are the writer's; rename and link are alternatives (whichever the writer uses
# to publish the file must fail cleanly), so each only counts when it happened.
matrix() { # prefix dir file -- command...
	local p=$1 dir=$2 file=$3 fired=0
	shift 4
	under_fault "$p: disk full" "$dir" "$file" fail write ENOSPC CDIKIT_FAULT_PATH="$dir/?*" -- "$@"
	under_fault "$p: disk full in the middle" "$dir" "$file" fail write ENOSPC \
		CDIKIT_FAULT_PATH="$dir/?*" CDIKIT_FAULT_PARTIAL=1 -- "$@"
	under_fault "$p: write EIO" "$dir" "$file" fail write EIO CDIKIT_FAULT_PATH="$dir/?*" -- "$@"
	under_fault "$p: quota" "$dir" "$file" fail write EDQUOT CDIKIT_FAULT_PATH="$dir/?*" -- "$@"
	under_fault "$p: read-only directory" "$dir" "$file" fail create EROFS CDIKIT_FAULT_PATH="$dir/?*" -- "$@"
	under_fault "$p: forbidden directory" "$dir" "$file" fail create EACCES CDIKIT_FAULT_PATH="$dir/?*" -- "$@"
	under_fault "$p: no inode left" "$dir" "$file" fail create ENOSPC CDIKIT_FAULT_PATH="$dir/?*" -- "$@"
	under_fault "$p: fsync EIO" "$dir" "$file" fail fsync EIO CDIKIT_FAULT_PATH="$dir/?*" -- "$@"
	under_fault "$p: close EIO" "$dir" "$file" fail close EIO CDIKIT_FAULT_PATH="$dir/?*" -- "$@"
	under_fault "$p: fchmod EPERM" "$dir" "$file" fail chmod EPERM CDIKIT_FAULT_PATH="$dir/?*" -- "$@"
	for publish in rename link; do
		if under_fault "$p: $publish EIO" "$dir" "$file" maybe $publish EIO \
			CDIKIT_FAULT_PATH="$dir/?*" -- "$@"; then
			under_fault "$p: $publish EXDEV" "$dir" "$file" fail $publish EXDEV \
				CDIKIT_FAULT_PATH="$dir/?*" -- "$@"
			fired=1
		fi
	done
	[ "$fired" -eq 1 ] || die "$p: the file was published by neither rename nor link"
	under_fault "$p: short writes" "$dir" "$file" whole write - CDIKIT_FAULT_SHORT=1 \
		CDIKIT_FAULT_PATH="$dir/?*" -- "$@"
	cp "$tmp/old-content" "$file"
	under_fault "$p: directory sync EIO" "$dir" "$file" late fsync EIO CDIKIT_FAULT_PATH="$dir" -- "$@"
	cp "$tmp/old-content" "$file"
}

# ---- cdi-generate ---------------------------------------------------------------------------
out=$tmp/gen
mkdir -p "$out"
"$G" $L --root "$tmp/host" --output "$tmp/expected" 2>"$tmp/err" || die "cdi-generate: $(cat "$tmp/err")"
# The old spec differs (other device names), so every run has something to write.
"$G" $L --root "$tmp/host" --device-name-strategy uuid --output "$out/nvidia.yaml" 2>"$tmp/err" ||
	die "cdi-generate: $(cat "$tmp/err")"
cp "$out/nvidia.yaml" "$tmp/old-content"
env LD_PRELOAD="$SHIM" "$G" $L --root "$tmp/host" --output "$tmp/with-shim.yaml" 2>"$tmp/err" &&
	cmp -s "$tmp/with-shim.yaml" "$tmp/expected" || die "cdi-generate under the shim without a fault: $(cat "$tmp/err")"
rm -f "$tmp/with-shim.yaml"
matrix cdi-generate "$out" "$out/nvidia.yaml" -- "$G" $L --quiet --root "$tmp/host" --output "$out/nvidia.yaml"
under_fault "cdi-generate: old spec unreadable" "$out" "$out/nvidia.yaml" fail read EIO \
	CDIKIT_FAULT_PATH="$out/nvidia.yaml" -- "$G" $L --root "$tmp/host" --output "$out/nvidia.yaml"

# The spec cache alone cannot be written (the spec and the facts file already were): the run
# fails with one line naming the cache, the spec is the new one, no temp file is left, and the
# old cache (of the old spec, whose devices had UUID names) is not what readers get.
c=$tmp/gen-cache
mkdir -p "$c"
"$G" $L -q --root "$tmp/host" --device-name-strategy uuid --output "$c/nvidia.yaml" || die "cdi-generate (uuid names) failed"
env LD_PRELOAD="$SHIM" CDIKIT_FAULT=write CDIKIT_FAULT_ERRNO=ENOSPC CDIKIT_FAULT_LOG="$tmp/cache-fault.log" \
	CDIKIT_FAULT_PATH="$c/.nvidia.yaml.cdikit-cache.*" "$G" $L -q --root "$tmp/host" --output "$c/nvidia.yaml" 2>"$tmp/cache-err" &&
	die "cdi-generate: exit 0 though the spec cache could not be written"
[ -s "$tmp/cache-fault.log" ] || die "cdi-generate: the cache's write never failed"
[ "$(wc -l <"$tmp/cache-err")" -eq 1 ] && grep -qF "$c/nvidia.yaml.cdikit-cache" "$tmp/cache-err" ||
	die "cdi-generate: not one line naming the cache: $(cat "$tmp/cache-err")"
cmp -s "$c/nvidia.yaml" "$tmp/expected" || die "cdi-generate: the spec is not the new one"
find "$c" -name '*.tmp' | grep -q . && die "cdi-generate: a temp file is left: $(find "$c" -name '*.tmp')"
"$A" --spec-dir "$c" --config tests/corpus/inject/nvidia-like/config.json --output /dev/null nvidia.com/gpu=0 2>"$tmp/err" ||
	die "cdi-apply after a failed cache write: $(cat "$tmp/err")"
ok "cdi-generate: the spec cache cannot be written: $(cut -c1-150 "$tmp/cache-err")"

# ---- cdi-apply --------------------------------------------------------------------------------
bundle=$tmp/bundle specs=$tmp/specs
mkdir -p "$bundle" "$specs"
cp tests/corpus/inject/nvidia-like/etc/nvidia.yaml "$specs/"
cp tests/corpus/inject/nvidia-like/config.json "$bundle/config.json"
cp "$bundle/config.json" "$tmp/old-content"
apply=("$A" --spec-dir "$specs" --config "$bundle/config.json" nvidia.com/gpu=0)
"$A" --spec-dir "$specs" --config "$bundle/config.json" --output "$tmp/expected" nvidia.com/gpu=0 2>"$tmp/err" ||
	die "cdi-apply: $(cat "$tmp/err")"
matrix cdi-apply "$bundle" "$bundle/config.json" -- "${apply[@]}"
under_fault "cdi-apply: config unreadable" "$bundle" "$bundle/config.json" fail read EIO \
	CDIKIT_FAULT_PATH="$bundle/config.json" -- "${apply[@]}"
under_fault "cdi-apply: config forbidden" "$bundle" "$bundle/config.json" fail open EACCES \
	CDIKIT_FAULT_PATH="$bundle/config.json" -- "${apply[@]}"
# A spec that cannot be read: the device is unresolvable, the config stays as it was, and the
# spec file is named (beside the line about the device).
cp "$bundle/config.json" "$tmp/old"
env LD_PRELOAD="$SHIM" CDIKIT_FAULT=read CDIKIT_FAULT_PATH="$specs/?*" "${apply[@]}" 2>"$tmp/err" &&
	die "cdi-apply: spec unreadable: exit 0"
grep -q "$specs/nvidia.yaml.*Input/output error" "$tmp/err" || die "cdi-apply: spec unreadable: the spec is not named: $(cat "$tmp/err")"
cmp -s "$tmp/old" "$bundle/config.json" || die "cdi-apply: spec unreadable: the config changed"
ok "cdi-apply: spec unreadable: $(tr '\n' ' ' <"$tmp/err" | cut -c1-150)"
# ---- what fails on the tree these tests were written on ------------------------------------
# Each runs in a subshell: its failure is reported and the next one still runs.
failed=0
# A new directory for the spec that cannot be made: nothing of it may stay behind.
mkdir "$out/new"
(under_fault "cdi-generate: its directory cannot be made" "$out/new" "$out/new/a/b/nvidia.yaml" fail \
	mkdir EROFS CDIKIT_FAULT_PATH="$out/new/a/?*" -- "$G" $L --root "$tmp/host" --output "$out/new/a/b/nvidia.yaml") || failed=1
rm -r "$out/new"
# A bundle owned by someone else: the owner must be kept, or the run fail cleanly.
chown 65534:65534 "$bundle/config.json"
(under_fault "cdi-apply: giving the file back fails" "$bundle" "$bundle/config.json" fail chown EIO \
	CDIKIT_FAULT_PATH="$bundle/?*" -- "${apply[@]}") || failed=1
[ "$failed" -eq 0 ] || exit 1
echo "all faults handled"
