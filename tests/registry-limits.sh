#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# A spec directory full of what nobody cleaned up costs each cdi-apply only what reading it
# costs: 1,600 invalid specs keep one line each and little memory (their trees are given
# back), a directory is read up to 256 MiB (past it the rest is skipped with one line), and
# the devices that loaded before a cap still resolve. Speed is measured by make bench.
set -u
cd "$(dirname "$0")/.."
: "${B:=build}"
APPLY=$(realpath "$B/cdi-apply")
work=$(mktemp -d /tmp/cdikit-registry-limits.XXXXXX)
trap 'rm -rf "$work"' EXIT
fails=0 n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); echo "not ok $n - $1"; fails=$((fails + 1)); }
check() { local d=$1; shift; if "$@"; then ok "$d"; else bad "$d"; fi; }

# A generated spec (the dgx-mig golden file, 53 KB), and an invalid copy: one unknown field.
mkdir -p "$work/cdi"
# Its device nodes are /dev/null here, a node every machine has.
sed 's|@ROOT@/dev/[^ ]*|/dev/null|; s/@ROOT@//g' tests/golden/dgx-mig.yaml >"$work/cdi/nvidia.yaml"
sed 's/^cdiVersion: \(.*\)/cdiVersion: \1\nbogus: 1/' "$work/cdi/nvidia.yaml" >"$work/bad.yaml"
for i in $(seq 1600); do ln "$work/bad.yaml" "$work/cdi/bad-$i.yaml"; done
printf '{"process":{"env":[]}}\n' >"$work/config.json"

# cdi-apply, with the largest resident size of the process in KiB on the last line of rss.
measure() {
	python3 - "$@" >"$work/rss" <<'PY'
import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=open(sys.argv[0] and "/dev/null", "w"), stderr=subprocess.PIPE)
sys.stderr.buffer.write(r.stderr)
print(r.returncode)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}
measure "$APPLY" --spec-dir "$work/cdi" -c "$work/config.json" -o - nvidia.com/gpu=0 2>"$work/err"
rc=$(sed -n 1p "$work/rss") rss=$(sed -n 2p "$work/rss")
check "1,600 invalid specs beside a good one: the device resolves" [ "$rc" -eq 0 ]
check "nothing printed when the injection succeeds" [ ! -s "$work/err" ]
case $B in
*/san) echo "# resident size not checked under the sanitizers ($rss KiB)" ;;
*) check "and memory stays small ($rss KiB < 64 MiB): failed parses are given back" [ "$rss" -lt 65536 ] ;;
esac
"$APPLY" --spec-dir "$work/cdi" --list >/dev/null 2>"$work/err"
check "--list: one line per invalid spec" [ "$(grep -c 'bad-.*yaml' "$work/err")" -eq 1600 ]
check "--list: that line names the file, its line and the field" \
	grep -q "^cdi-apply: warning: $work/cdi/bad-1.yaml:3:8: unknown field \"bogus\"$" "$work/err"

# The byte cap: 17 specs of 15.5 MiB (sparse, so nothing to write) are more than 256 MiB.
mkdir -p "$work/big"
sed 's/@ROOT@//g' tests/golden/single.yaml >"$work/big/a.yaml"
for i in $(seq -w 1 17); do truncate -s 15872K "$work/big/m-$i.yaml"; done
cp "$work/big/a.yaml" "$work/big/z.yaml"
sed -i 's/^kind: .*/kind: other.com\/gpu/' "$work/big/z.yaml"
"$APPLY" --spec-dir "$work/big" --list >"$work/out" 2>"$work/err"
check "past 256 MiB: one line naming the first file skipped" \
	grep -qx "cdi-apply: warning: $work/big: spec files beyond 256 MiB in all: m-17.yaml and the 1 after it are skipped" "$work/err"
check "what loaded before the cap still resolves" grep -qx 'nvidia.com/gpu=0' "$work/out"
check "what comes after it does not" [ "$(grep -c '^other.com' "$work/out")" -eq 0 ]

echo "1..$n"
[ "$fails" -eq 0 ]
