#!/usr/bin/env bash
# Differential test of `cdi-apply --validate` against the CNCF reference library packaged by
# Debian (golang-github-container-orchestrated-devices-container-device-interface-dev, v0.5.2).
#
# Every file under tests/corpus/specs/{valid,invalid}/ is loaded by both:
#   - the Go oracle tests/reference/validate.go (cdi.ReadSpec, as the reference cache does),
#   - $B/cdi-apply --validate FILE, one file per call (exit 0 valid, 1 invalid).
# The directory is the verdict under the current rules (cdi-semantics.md). A file must
# get that verdict from cdikit, and the same verdict from the reference unless it is listed in
# tests/corpus/specs/KNOWN-DIFFERENCES, where the reference must still disagree (a stale entry
# fails too). Every rejected file must get at least one message and every message line must
# name the file. Finally one multi-file call checks the exit status rule of the contract.
#
# Exit 0 pass, 77 skip (no go, or the Debian package is missing), 1 fail.
set -u
cd "$(dirname "$0")/.."
: "${B:=build}"

CORPUS=tests/corpus/specs
GOPATH_DEB=/usr/share/gocode
REF_PKG=$GOPATH_DEB/src/github.com/container-orchestrated-devices/container-device-interface/pkg/cdi

skip() { echo "SKIP: $*"; exit 77; }
die() { echo "FAIL: $*"; exit 1; }

command -v go >/dev/null 2>&1 || skip "go not installed (apt-get install golang-go)"
[ -d "$REF_PKG" ] || skip "CNCF CDI reference not installed (apt-get install golang-github-container-orchestrated-devices-container-device-interface-dev)"
[ -x "$B/cdi-apply" ] || die "$B/cdi-apply not built (make BUILD=... all)"

mkdir -p "$B/reference"
ORACLE=$B/reference/cdi-ref-validate
GO111MODULE=off GOFLAGS= GOPATH=$GOPATH_DEB GOCACHE=$PWD/$B/reference/gocache \
	go build -o "$ORACLE" tests/reference/validate.go || die "cannot build the Go oracle"

mapfile -t files < <(find "$CORPUS/valid" "$CORPUS/invalid" -maxdepth 1 -type f \
	\( -name '*.yaml' -o -name '*.json' \) | LC_ALL=C sort)
[ "${#files[@]}" -gt 0 ] || die "empty corpus in $CORPUS"

declare -A known=() ref=() refmsg=()
while IFS=$'\t' read -r f reason; do
	case $f in '' | '#'*) continue ;; esac
	[ -n "${reason:-}" ] || die "KNOWN-DIFFERENCES: $f has no reason"
	[ -f "$CORPUS/$f" ] || die "KNOWN-DIFFERENCES lists $f, which is not in the corpus"
	known[$CORPUS/$f]=$reason
done <"$CORPUS/KNOWN-DIFFERENCES"

# One oracle run over the whole corpus; it prints <file>\tOK or <file>\tERR\t<message>.
while IFS=$'\t' read -r f verdict msg; do
	ref[$f]=$verdict
	refmsg[$f]=${msg:-}
done < <(timeout 120 "$ORACLE" "${files[@]}")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fails=0 agree=0 nknown=0
problem() { echo "DIFF: $*"; fails=$((fails + 1)); }

for f in "${files[@]}"; do
	case $f in
	"$CORPUS"/valid/*) want=OK ;;
	*) want=ERR ;;
	esac
	r=${ref[$f]:-}
	[ -n "$r" ] || { problem "$f: no verdict from the reference oracle"; continue; }

	timeout 20 "$B/cdi-apply" --validate "$f" >"$tmp/out" 2>&1
	rc=$?
	case $rc in
	0) ours=OK ;;
	1) ours=ERR ;;
	*) problem "$f: cdi-apply --validate exited $rc (crash or timeout):"; sed 's/^/    /' "$tmp/out"
	   continue ;;
	esac

	if [ "$ours" = ERR ]; then
		if ! grep -q . "$tmp/out"; then
			problem "$f: rejected without a message"
		elif grep -v -F -e "$f" "$tmp/out" | grep -q .; then
			problem "$f: message lines that do not name the file:"
			grep -v -F -e "$f" "$tmp/out" | sed 's/^/    /'
		fi
	fi

	if [ -n "${known[$f]:-}" ]; then
		nknown=$((nknown + 1))
		[ "$ours" = "$want" ] ||
			problem "$f: cdikit $ours, current rules $want (known difference: ${known[$f]})"
		[ "$r" != "$want" ] ||
			problem "$f: listed in KNOWN-DIFFERENCES but the reference now agrees ($r)"
		continue
	fi
	if [ "$ours" != "$r" ]; then
		problem "$f: cdikit $ours, reference $r${refmsg[$f]:+ (${refmsg[$f]})}"
		sed 's/^/    cdikit: /' "$tmp/out" | head -n 5
	elif [ "$r" != "$want" ]; then
		problem "$f: both say $r, against the directory the file is in (move it or list it)"
	else
		agree=$((agree + 1))
	fi
done

# The multi-file contract: exit 0 iff every file is valid; problems of every bad file reported.
valid_files=() invalid_files=()
for f in "${files[@]}"; do
	case $f in "$CORPUS"/valid/*) valid_files+=("$f") ;; *) invalid_files+=("$f") ;; esac
done
timeout 60 "$B/cdi-apply" --validate "${valid_files[@]}" >"$tmp/all" 2>&1
rc=$?
[ "$rc" -eq 0 ] || problem "cdi-apply --validate on all ${#valid_files[@]} valid files exited $rc"
timeout 60 "$B/cdi-apply" --validate "${valid_files[@]}" "${invalid_files[@]}" >"$tmp/all" 2>&1
rc=$?
[ "$rc" -eq 1 ] || problem "cdi-apply --validate on the whole corpus exited $rc, want 1"
for f in "${invalid_files[@]}"; do
	grep -q -F -e "$f" "$tmp/all" || problem "multi-file --validate: nothing reported for $f"
done
for f in "${valid_files[@]}"; do
	! grep -q -F -e "$f:" "$tmp/all" || problem "multi-file --validate: a problem reported for valid $f"
done

echo "reference-validate: ${#files[@]} files (${#valid_files[@]} valid, ${#invalid_files[@]} invalid):" \
	"$agree agree with the reference, $nknown known differences, $fails problems"
[ "$fails" -eq 0 ]
