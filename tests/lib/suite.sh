# Sourced first by a shell suite: strict variables, the checkout as working directory, $B (the
# build directory), and the suite's three verdicts (tests/run-tests reads the exit status).
set -u
cd "$(dirname "$0")/.." || exit 1
: "${B:=build}"

skip() { echo "SKIP: $*"; exit 77; }
die() { echo "FAIL: $*"; exit 1; }
ok() { echo "ok: $*"; }
