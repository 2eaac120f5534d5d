#!/usr/bin/env bash
# runc's own integration suite (v1.1.5: tests/integration/*.bats, 174 tests) run twice, with
# runc alone and with cdi-runtime standing in for it (RUNC is a wrapper that execs
# $B/cdi-runtime over the same runc, with an empty spec directory): the result of every test
# must be the same, except "runc -h", whose output begins with cdi-runtime's own usage before
# runc's (docs/runtime.md). A test that fails here with runc alone (no criu in this sandbox, no
# network for the spec validator, ...) must fail the same way through cdi-runtime.
#
# Opt-in, as the two runs take several minutes: CDIKIT_RUNC_SUITE=1. The suite is not in this
# tree: it comes from Debian's runc source package, whose orig tarball has tests/integration.
# RUNC_SRC=DIR names an unpacked runc source tree (default $B/runc-src), which
#   tests/runc-integration.sh --fetch
# downloads there with apt-get source (network; a private sources list, so the machine's apt
# configuration is not touched). Everything else is built offline: recvtty, sd-helper and
# seccompagent from that tree with Debian's Go packages, and the busybox images the suite
# expects from Debian's busybox-static.
#
# Needs root (the suite's root tests), bats, script, jq, gawk, go, gcc, busybox-static and
# runc; else exit 77. Results: $B/tests/runc-integration/{runc,cdi-runtime}.results, and the
# TAP of each file in $B/tests/runc-integration/{runc,cdi-runtime}/.
. "$(dirname "$0")/lib/suite.sh"

: "${RUNC_SRC:=$B/runc-src}"
RUNC_BIN=${RUNC_BIN:-$(command -v runc)}
# Allowed to differ, by description: cdi-runtime -h prints its own usage first.
ALLOWED_DIFFERENCES=("runc -h")

fetch() {
	local d
	d=$(mktemp -d /tmp/cdikit-runc-src.XXXXXX) || die "mktemp"
	trap 'rm -rf "$d"' EXIT
	mkdir -p "$d/lists/partial" "$d/dl"
	printf 'deb-src http://deb.debian.org/debian bookworm main\ndeb-src http://deb.debian.org/debian-security bookworm-security main\n' >"$d/src.list"
	local apt=(apt-get -q -o "Dir::Etc::sourcelist=$d/src.list" -o Dir::Etc::sourceparts=-
		-o "Dir::State::Lists=$d/lists")
	"${apt[@]}" update >"$d/apt.log" 2>&1 || die "apt-get update: $(tail -n 3 "$d/apt.log")"
	(cd "$d/dl" && "${apt[@]}" source --download-only "runc=1.1.5+ds1-1+deb12u1") >>"$d/apt.log" 2>&1 ||
		(cd "$d/dl" && "${apt[@]}" source --download-only runc) >>"$d/apt.log" 2>&1 ||
		die "apt-get source runc: $(tail -n 3 "$d/apt.log")"
	rm -rf "$RUNC_SRC"
	mkdir -p "$RUNC_SRC"
	tar -xJf "$d"/dl/runc_*.orig.tar.xz -C "$RUNC_SRC" --strip-components=1 ||
		die "cannot unpack the runc source"
	echo "runc source $(cat "$RUNC_SRC/VERSION") in $RUNC_SRC"
	exit 0
}
[ "${1:-}" = --fetch ] && fetch

[ "${CDIKIT_RUNC_SUITE:-}" = 1 ] || skip "opt-in: CDIKIT_RUNC_SUITE=1 (runs runc's integration suite twice, several minutes)"
[ "$(id -u)" -eq 0 ] || skip "needs root (runc's suite runs its root tests)"
for c in bats script jq gawk go gcc tar xz; do
	command -v $c >/dev/null 2>&1 || skip "$c not installed"
done
[ -n "$RUNC_BIN" ] || skip "runc not installed"
BUSYBOX=/bin/busybox
file -L "$BUSYBOX" 2>/dev/null | grep -q 'statically linked' || skip "busybox-static not installed"
[ -f "$RUNC_SRC/tests/integration/helpers.bash" ] ||
	skip "runc's integration suite not found in $RUNC_SRC (RUNC_SRC=DIR, or tests/runc-integration.sh --fetch)"
[ -x "$B/cdi-runtime" ] || die "$B/cdi-runtime not built"
version=$(cat "$RUNC_SRC/VERSION")
[ "$version" = 1.1.5 ] || echo "note: the suite is runc $version's; runc here is $("$RUNC_BIN" --version | head -1)"

tmp=$(mktemp -d /tmp/cdikit-runc-suite.XXXXXX)
# checkpoint.bats writes /tmp/runc-criu-*.conf and removes it only when its test passes.
criu_confs_before=$(find /tmp -maxdepth 1 -name 'runc-criu-*.conf' 2>/dev/null | sort)
cleanup() {
	# A test that timed out can leave a container or a mount behind.
	findmnt -rn -o TARGET 2>/dev/null | grep -F "$tmp/" | sort -r | while read -r m; do umount -l "$m"; done
	comm -13 <(echo "$criu_confs_before") <(find /tmp -maxdepth 1 -name 'runc-criu-*.conf' | sort) |
		xargs -r rm -f
	rm -rf "$tmp"
}
trap cleanup EXIT
out=$B/tests/runc-integration
mkdir -p "$out"

# The tree where the suite expects it (helpers.bash finds contrib/cmd/* at ../../ of itself).
src=$tmp/gopath/src/github.com/opencontainers/runc
mkdir -p "$src"
cp -a "$RUNC_SRC"/. "$src"/
# seccompagent does its work only when built with libseccomp (tag seccomp, as runc's Makefile).
for cmd in recvtty sd-helper seccompagent; do
	(cd "$src" && GO111MODULE=off GOFLAGS= GOPROXY=off GOPATH=$tmp/gopath:/usr/share/gocode \
		GOCACHE=$tmp/gocache go build -tags seccomp -o "contrib/cmd/$cmd/$cmd" "./contrib/cmd/$cmd") \
		>"$tmp/go-$cmd.log" 2>&1 || echo "note: cannot build $cmd: $(tail -n 1 "$tmp/go-$cmd.log")"
done
[ -x "$src/contrib/cmd/recvtty/recvtty" ] || die "recvtty is needed by most tests and did not build"

# The images: a busybox root (the suite's busybox is glibc busybox; the static one does the
# same), also standing in for the Debian image of hooks.bats.
rootfs=$tmp/busybox
mkdir -p "$rootfs"/{bin,sbin,etc,tmp,root,dev,proc,sys,usr/bin,usr/sbin,var}
cp "$BUSYBOX" "$rootfs/bin/busybox"
for applet in $("$BUSYBOX" --list); do
	[ -e "$rootfs/bin/$applet" ] || ln -s busybox "$rootfs/bin/$applet"
done
chmod 1777 "$rootfs/tmp"
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$rootfs/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$rootfs/etc/group"
arch=$(go env GOARCH)
tar -C "$rootfs" -cJf "$src/tests/integration/testdata/busybox-$arch.tar.xz" . || die "cannot pack busybox"
cp "$src/tests/integration/testdata/busybox-$arch.tar.xz" "$src/tests/integration/testdata/debian-$arch.tar.xz"

# cdi-runtime as runc: its own settings in a private file, no spec at all.
mkdir -p "$tmp/cdi"
printf 'spec-dirs = %s\n' "$tmp/cdi" >"$tmp/runtime.conf"
cat >"$tmp/cdi-runc" <<EOF
#!/bin/sh
CDIKIT_CONFIG=$tmp/runtime.conf exec $(realpath "$B/cdi-runtime") --cdi-runtime $RUNC_BIN "\$@"
EOF
chmod 755 "$tmp/cdi-runc"

# run_suite NAME RUNC: each file of the suite under a terminal (foreground runs need one), with a
# time limit per file (a test that hangs loses the rest of its file, in both runs alike; bats'
# own per-test limit would break the tests that wait for their background jobs). The results,
# "file #N<TAB>description<TAB>ok|skip|fail|timeout" one a test, go to $out/NAME.results, the TAP
# of each file to $out/NAME/.
run_suite() {
	local start=$SECONDS f name
	rm -rf "${out:?}/$1"
	mkdir -p "$out/$1"
	: >"$out/$1.results"
	for f in "$src"/tests/integration/*.bats; do
		name=$(basename "$f" .bats)
		(cd "$src" && RUNC=$2 timeout -k 10 "${RUNC_SUITE_FILE_TIMEOUT:-600}" \
			script -q -e -c "bats -t tests/integration/$name.bats" /dev/null) </dev/null 2>&1 |
			tr -d '\r' >"$out/$1/$name.tap"
		results "$name" "$out/$1/$name.tap" >>"$out/$1.results"
	done
	echo "$1: $(grep -c '	ok$' "$out/$1.results") ok, $(grep -c '	skip$' "$out/$1.results") skipped, $(grep -c '	fail$' "$out/$1.results") failed, $(grep -c '	timeout$' "$out/$1.results") not run (time limit), $((SECONDS - start)) s"
}
# results FILE TAP: one line a test the file declares, its result in the TAP.
results() {
	local tests
	tests=$(grep -c '^@test' "$src/tests/integration/$1.bats")
	for i in $(seq 1 "$tests"); do
		local line desc result
		line=$(grep -E "^(not )?ok $i( |$)" "$2" | head -1)
		desc=$(sed -nE 's/^(not )?ok [0-9]+ (.*)/\2/p' <<<"$line" | sed -E 's/ # (skip|timeout).*//')
		case $line in
		'') result=timeout desc="(not run)" ;;
		"not ok"*) result=fail ;;
		*' # skip'*) result=skip ;;
		*) result=ok ;;
		esac
		printf '%s #%s\t%s\t%s\n' "$1" "$i" "$desc" "$result"
	done
}

run_suite runc "$RUNC_BIN"
run_suite cdi-runtime "$tmp/cdi-runc"
total=$(cat "$src"/tests/integration/*.bats | grep -c '^@test')
echo "runc $version integration suite: $total tests"
[ "$(wc -l <"$out/runc.results")" -eq "$total" ] || die "runc alone: $(wc -l <"$out/runc.results") results for $total tests"

fail=0
while IFS=$'\t' read -r test_a desc_a result_a test_b desc_b result_b; do
	[ "$test_a" = "$test_b" ] || die "the two runs list other tests: $test_a / $test_b"
	[ "$result_a" = "$result_b" ] && continue
	desc=$desc_a
	[ "$result_a" = timeout ] && desc=$desc_b
	allowed=0
	for a in "${ALLOWED_DIFFERENCES[@]}"; do [ "$desc" = "$a" ] && allowed=1; done
	if [ $allowed = 1 ]; then
		echo "differs, as documented: $test_a $desc: $result_a with runc alone, $result_b through cdi-runtime"
	else
		echo "DIFFERS: $test_a $desc: $result_a with runc alone, $result_b through cdi-runtime"
		fail=1
	fi
done < <(paste "$out/runc.results" "$out/cdi-runtime.results")
[ "$fail" -eq 0 ] || die "results differ from runc alone (TAP in $out)"
ok "runc-integration: every test as with runc alone but the documented ones"
