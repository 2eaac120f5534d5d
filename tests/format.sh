#!/usr/bin/env bash
# The tree's C files are as clang-format (the repo's .clang-format) writes them: make
# format-check, run by make check so CI enforces it. `make format` fixes what this reports.
cd "$(dirname "$0")/.." || exit 1
command -v clang-format >/dev/null 2>&1 || { echo "SKIP: clang-format not installed (scripts/install-deps --test)"; exit 77; }
if ! out=$(make -s format-check 2>&1); then
	echo "FAIL: not formatted (make format fixes it):"
	grep -E '^[^ ]+\.[ch]:[0-9]+:' <<<"$out" | cut -d: -f1 | sort -u | head -n 20
	exit 1
fi
echo "format: $(git ls-files '*.c' '*.h' 2>/dev/null | wc -l) files as clang-format writes them"
