#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Every fuzz target (tests/fuzz/fuzz-<target>.c) over its committed seeds and crash reproducers
# (tests/fuzz/corpus/<target>/), once each, without libFuzzer: $B/tests/fuzz/replay-<target>
# is built by make check with the project's compiler and flags (ASan/UBSan with SANITIZE=1),
# so a property that breaks or a sanitizer report fails the suite. make fuzz does the fuzzing.
set -u
cd "$(dirname "$0")/.."
: "${B:=build}"

fail=0 n=0
for src in tests/fuzz/fuzz-*.c; do
	t=$(basename "$src" .c)
	t=${t#fuzz-}
	bin=$B/tests/fuzz/replay-$t
	[ -x "$bin" ] || { echo "FAIL: $bin not built (make check builds it)"; exit 1; }
	[ -d "tests/fuzz/corpus/$t" ] || { echo "FAIL: no seeds in tests/fuzz/corpus/$t"; fail=1; continue; }
	if out=$(ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} "$bin" "tests/fuzz/corpus/$t" 2>&1); then
		echo "ok: $out"
		n=$((n + 1))
	else
		echo "FAIL: $t:"
		printf '%s\n' "$out" | tail -n 30
		fail=1
	fi
done
[ "$fail" -eq 0 ] || exit 1
echo "ok: $n targets replayed"
