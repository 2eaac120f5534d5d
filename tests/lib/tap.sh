# shellcheck shell=bash
# Sourced by the shell suites: skip and die, and checks counted and printed TAP-style.

skip() { echo "SKIP: $*"; exit 77; }
die() { echo "FAIL: $*"; exit 1; }

fails=0
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); echo "not ok $n - $1"; fails=$((fails + 1)); }
# check DESCRIPTION COMMAND...: ok if the command succeeds.
check() {
	local d=$1
	shift
	if "$@"; then ok "$d"; else bad "$d"; fi
}
# tap_end: the plan line; fails (status 1) if any check did.
tap_end() {
	echo "1..$n"
	[ "$fails" -eq 0 ]
}
