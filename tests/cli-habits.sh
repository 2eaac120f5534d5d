#!/usr/bin/env bash
# Every program speaks the same way: --help on stdout with exit 0, --version as
# "NAME (cdikit) X.Y.Z" (cdi-runtime's last line, after its runtime's), usage errors with exit 2 and a hint, and a failed write to
# stdout (a full device) is an error, not a silent success.
# The programs checked are those named in tests/cli-habits.list (one a line): a program
# joins the list when it has taken up the habits (schema/cli.h).
set -u
cd "$(dirname "$0")/.."
: "${B:=build}"
fail=0
die() { echo "FAIL: $*"; fail=1; }
version=$(sed -nE 's/^VERSION := (.*)/\1/p' Makefile)
[ -n "$version" ] || die "no VERSION in the Makefile"
checked=0
while read -r p; do
	case $p in '' | '#'*) continue ;; esac
	[ -x "$B/$p" ] || { die "$B/$p is listed but not built"; continue; }
	checked=$((checked + 1))
	out=$("$B/$p" --help 2>/dev/null) || die "$p --help exits $?"
	[ -n "$out" ] || die "$p --help prints nothing on stdout"
	"$B/$p" --help >/dev/full 2>/dev/null && die "$p --help >/dev/full exits 0"
	# cdi-runtime prints its low-level runtime's version first, whose lines callers read.
	v=$("$B/$p" --version 2>/dev/null | if [ "$p" = cdi-runtime ]; then tail -1; else head -1; fi)
	[ "$v" = "$p (cdikit) $version" ] || die "$p --version says '$v'"
	"$B/$p" --version >/dev/full 2>/dev/null && die "$p --version >/dev/full exits 0"
	err=$("$B/$p" --no-such-option 2>&1 >/dev/null)
	rc=$?
	[ "$rc" -eq 2 ] || die "$p --no-such-option exits $rc, not 2"
	grep -q "^Try '$p --help' for more information.$" <<<"$err" || die "$p: no hint after a usage error"
done <tests/cli-habits.list
[ "$checked" -gt 0 ] || die "no program checked"
[ "$fail" -eq 0 ] && echo "cli-habits: $checked programs ok"
exit "$fail"
