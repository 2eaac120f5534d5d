# SPDX-License-Identifier: Apache-2.0
# Sourced first by a shell suite: strict variables, the checkout as working directory, $B (the
# absolute build directory), and the suite's three verdicts (tests/run-tests reads the exit
# status). Suites that run the programs as root on simulated hosts name themselves too:
#
#   . "$(dirname "$0")/lib/suite.sh" NAME "why root is needed" FILE...
#
# which skips (77) when not root, fails when a FILE (relative to $B) was not built, and gives
# $tmp, a fresh directory removed at exit, and make_host.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
: "${B:=build}"
case $B in /*) ;; *) B=$PWD/$B ;; esac

skip() { echo "SKIP: $*"; exit 77; }
die() { echo "FAIL: $*"; exit 1; }
ok() { echo "ok: $*"; }

if [ $# -ge 2 ]; then
	[ "$(id -u)" -eq 0 ] || skip "needs root ($2)"
	for _f in "${@:3}"; do
		[ -e "$B/$_f" ] || die "$B/$_f not built (make check builds it)"
	done
	unset _f

	tmp=$(mktemp -d "/tmp/cdikit-$1.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	trap 'exit 1' INT TERM HUP

	# make_host TOPOLOGY ROOT [make-host options]: a simulated host (tests/simhost/README.md).
	make_host() {
		local topology=$1 root=$2
		shift 2
		tests/simhost/make-host --topology "$topology" --mock-dir "$B/tests/mock-nvml" --out "$root" \
			"$@" >"$tmp/make-host.log" 2>&1 || die "make-host $topology: $(tail -n 3 "$tmp/make-host.log")"
	}
fi
