#!/usr/bin/env bash
# Differential test of `cdi-apply` injection against the CNCF reference library packaged by
# Debian (v0.5.2) driven by tests/reference/inject.go.
#
# Each case is a directory tests/corpus/inject/<case>/ with
#   etc/, run/       spec dirs, lowest priority first (either may be missing)
#   config.json      the OCI config to edit
#   devices          the device names to inject, one a line
#   README           what the case covers
#   expect-error     (optional) both must fail; cdikit's message must contain this line, and the
#                    config must be left byte for byte as it was (all or nothing, in place)
#   KNOWN-DIFFERENCE (optional) why v0.5.2 differs from the current rules; then cdikit is
#   expected.json    compared with expected.json instead, and the reference must still differ
#
# Compared: the fields CDI edits (process.env, linux.devices, linux.resources.devices, mounts,
# hooks, process.user.additionalGids), normalised with jq: keys sorted, and null, "", [] and {}
# values dropped, as Go's omitempty drops them. The Go CLI loses unknown fields, so everything
# else is checked against the input instead: cdikit must leave every other field as it was.
# Every case also runs in place (no --output) and through stdin/stdout, with the same result.
#
# The oracle fills device-node fileMode from the host as the current reference does
# (NVIDIA/nvidia-container-toolkit#960); v0.5.2 never does. See tests/reference/inject.go.
# expected.json may hold "@HOST_MODE:<path>" for the permission bits of a host file.
#
# Exit 0 pass, 77 skip (no go, jq or the Debian package), 1 fail.
set -u
cd "$(dirname "$0")/.."
: "${B:=build}"

CASES=tests/corpus/inject
GOPATH_DEB=/usr/share/gocode
REF_PKG=$GOPATH_DEB/src/github.com/container-orchestrated-devices/container-device-interface/pkg/cdi

skip() { echo "SKIP: $*"; exit 77; }
die() { echo "FAIL: $*"; exit 1; }

command -v go >/dev/null 2>&1 || skip "go not installed (apt-get install golang-go)"
command -v jq >/dev/null 2>&1 || skip "jq not installed"
[ -d "$REF_PKG" ] || skip "CNCF CDI reference not installed (apt-get install golang-github-container-orchestrated-devices-container-device-interface-dev)"
[ -x "$B/cdi-apply" ] || die "$B/cdi-apply not built (make BUILD=... all)"

mkdir -p "$B/reference"
ORACLE=$B/reference/cdi-ref-inject
GO111MODULE=off GOFLAGS= GOPATH=$GOPATH_DEB GOCACHE=$PWD/$B/reference/gocache \
	go build -o "$ORACLE" tests/reference/inject.go || die "cannot build the Go oracle"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Go's omitempty: drop null, "", [] and {} values, bottom-up.
PRUNE='def prune: walk(if type == "object" then
	with_entries(select(.value != null and .value != "" and .value != [] and .value != {}))
	else . end);'
# The CDI-touched fields, normalised (expected.json holds this shape already).
CDI_FIELDS="$PRUNE"'
{env: .process.env, devices: .linux.devices, resources: .linux.resources.devices,
 mounts: .mounts, hooks: .hooks, gids: .process.user.additionalGids} | prune'
# Everything else; objects CDI may have created are pruned when they end up empty.
OTHER_FIELDS="$PRUNE"'
del(.process.env, .linux.devices, .linux.resources.devices, .mounts, .hooks,
    .process.user.additionalGids) | prune'

# Replace "@HOST_MODE:<path>" with the permission bits of <path> on this host.
expand_expected() {
	local out=$1 json
	json=$(cat)
	while [[ $json =~ \"@HOST_MODE:([^\"]*)\" ]]; do
		local p=${BASH_REMATCH[1]} mode
		mode=$(( 0x$(stat -c %f "$p") & 07777 )) || die "cannot stat $p"
		json=${json//\"@HOST_MODE:$p\"/$mode}
	done
	printf '%s\n' "$json" >"$out"
}

fails=0 ncases=0 nknown=0 nerr=0
problem() { echo "DIFF: $*"; fails=$((fails + 1)); }
show_diff() { diff -u "$1" "$2" | sed 's/^/    /' | head -n 60; }

for dir in "$CASES"/*/; do
	dir=${dir%/}
	name=$(basename "$dir")
	[ -f "$dir/config.json" ] && [ -f "$dir/devices" ] || die "$name: config.json or devices missing"
	ncases=$((ncases + 1))
	ours_args=() ref_args=()
	for d in etc run; do
		[ -d "$dir/$d" ] || continue
		ours_args+=(--spec-dir "$dir/$d")
		ref_args+=(-spec-dir "$dir/$d")
	done
	mapfile -t devices < <(grep -v -e '^[[:space:]]*$' -e '^#' "$dir/devices")
	w=$tmp/$name
	mkdir -p "$w"

	timeout 30 "$ORACLE" "${ref_args[@]}" -config "$dir/config.json" "${devices[@]}" \
		>"$w/ref.json" 2>"$w/ref.log"
	rrc=$?

	if [ -f "$dir/expect-error" ]; then
		nerr=$((nerr + 1))
		want=$(head -n 1 "$dir/expect-error")
		[ "$rrc" -ne 0 ] || problem "$name: the reference injected, the case expects a failure"
		cp "$dir/config.json" "$w/config.json"
		timeout 30 "$B/cdi-apply" "${ours_args[@]}" --config "$w/config.json" "${devices[@]}" \
			>"$w/ours.log" 2>&1
		rc=$?
		[ "$rc" -eq 1 ] || { problem "$name: cdi-apply exited $rc, want 1"; sed 's/^/    /' "$w/ours.log"; }
		grep -q -F -e "$want" "$w/ours.log" ||
			{ problem "$name: cdi-apply's message does not mention '$want':"; sed 's/^/    /' "$w/ours.log"; }
		cmp -s "$dir/config.json" "$w/config.json" ||
			problem "$name: the failed injection changed config.json"
		[ "$(ls -A "$w" | grep -v -x -e config.json -e ours.log -e ref.json -e ref.log)" = "" ] ||
			problem "$name: the failed injection left files behind: $(ls -A "$w")"
		continue
	fi

	timeout 30 "$B/cdi-apply" "${ours_args[@]}" --config "$dir/config.json" \
		--output "$w/ours.json" "${devices[@]}" >"$w/ours.log" 2>&1
	rc=$?
	if [ "$rc" -ne 0 ]; then
		problem "$name: cdi-apply exited $rc:"; sed 's/^/    /' "$w/ours.log"
		continue
	fi
	jq -S "$CDI_FIELDS" "$w/ours.json" >"$w/ours.cdi" || { problem "$name: cdi-apply wrote bad JSON"; continue; }

	if [ -f "$dir/KNOWN-DIFFERENCE" ]; then
		nknown=$((nknown + 1))
		[ -f "$dir/expected.json" ] || die "$name: KNOWN-DIFFERENCE without expected.json"
		expand_expected "$w/expected.raw" <"$dir/expected.json"
		jq -S "$PRUNE prune" "$w/expected.raw" >"$w/expected.cdi" || die "$name: bad expected.json"
		cmp -s "$w/expected.cdi" "$w/ours.cdi" ||
			{ problem "$name: cdikit differs from expected.json (current rules):"; show_diff "$w/expected.cdi" "$w/ours.cdi"; }
		if [ "$rrc" -eq 0 ]; then
			jq -S "$CDI_FIELDS" "$w/ref.json" >"$w/ref.cdi"
			! cmp -s "$w/expected.cdi" "$w/ref.cdi" ||
				problem "$name: listed as a known difference but the reference now agrees"
		fi
	else
		if [ "$rrc" -ne 0 ]; then
			problem "$name: the reference failed:"; sed 's/^/    /' "$w/ref.log"
		else
			jq -S "$CDI_FIELDS" "$w/ref.json" >"$w/ref.cdi"
			cmp -s "$w/ref.cdi" "$w/ours.cdi" ||
				{ problem "$name: cdikit differs from the reference (- reference, + cdikit):"; show_diff "$w/ref.cdi" "$w/ours.cdi"; }
		fi
	fi

	# Fields CDI does not edit survive untouched (the Go oracle cannot check this).
	# When env creates process, a zero process.user may come with it (OCI requires user in a
	# process; the Go reference writes uid 0 and gid 0 there too): not a change to the input.
	noproc=$(jq 'has("process") | not' "$dir/config.json")
	jq -S "$OTHER_FIELDS" "$dir/config.json" >"$w/in.other"
	jq -S --argjson noproc "$noproc" \
		'if $noproc and .process.user == {uid: 0, gid: 0} then del(.process.user) else . end | '"$OTHER_FIELDS" \
		"$w/ours.json" >"$w/ours.other"
	cmp -s "$w/in.other" "$w/ours.other" ||
		{ problem "$name: cdi-apply changed fields CDI does not edit:"; show_diff "$w/in.other" "$w/ours.other"; }

	# In place (the default --output) and stdin/stdout give the same config.
	cp "$dir/config.json" "$w/inplace.json"
	timeout 30 "$B/cdi-apply" "${ours_args[@]}" --config "$w/inplace.json" "${devices[@]}" \
		>"$w/inplace.log" 2>&1 || problem "$name: in-place cdi-apply failed: $(cat "$w/inplace.log")"
	timeout 30 "$B/cdi-apply" "${ours_args[@]}" --config - --output - "${devices[@]}" \
		<"$dir/config.json" >"$w/stdout.json" 2>"$w/stdout.log" ||
		problem "$name: cdi-apply --config - --output - failed: $(cat "$w/stdout.log")"
	for alt in inplace stdout; do
		[ "$(jq -S . "$w/$alt.json" 2>&1)" = "$(jq -S . "$w/ours.json")" ] ||
			problem "$name: the $alt result differs from the --output result"
	done
done

[ "$ncases" -gt 0 ] || die "no cases under $CASES"
echo "reference-inject: $ncases cases ($nerr expected failures, $nknown known differences), $fails problems"
[ "$fails" -eq 0 ]
