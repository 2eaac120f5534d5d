# shellcheck shell=bash
# Sourced by the end-to-end suites that run probe bundles (gpu-host.sh) through cdi-runtime over
# runc, with a runtime.conf of their own: what they need, their temp directory and containers,
# and one run. Needs tap.sh's skip and die.

# runtime_e2e_setup NAME: root, runc and jq, the programs built (else skip or die); $tmp (removed
# at exit, with every container of $ids), $state (runc --root), $id (a container name prefix),
# $GEN, $RT (cdi-runtime) and $conf (the runtime.conf each run reads, CDIKIT_CONFIG).
runtime_e2e_setup() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (device nodes of the simulated host, runc run)"
	local c f
	for c in runc jq; do command -v $c >/dev/null 2>&1 || skip "$c not installed"; done
	GEN=$B/cdi-generate
	for f in "$GEN" "$B/cdi-runtime" "$B/tests/mock-nvml/libnvidia-ml.so.1"; do
		[ -e "$f" ] || die "$f not built"
	done
	tmp=$(mktemp -d "/tmp/cdikit-e2e-$1.XXXXXX")
	state=$tmp/runc-state
	id=cdikit-$1-$$
	ids=()
	trap runtime_e2e_cleanup EXIT
	trap 'exit 1' INT TERM HUP
	RT=$(realpath "$B/cdi-runtime")
	conf=$tmp/runtime.conf
}

runtime_e2e_cleanup() {
	local i
	for i in "${ids[@]}"; do runc --root "$state" delete -f "$i" >/dev/null 2>&1; done
	rm -rf "$tmp"
}

# run NAME JQ_FILTER [SED]: a probe bundle running the probe with $args, the filter applied to
# its config (then SED to the text, for bytes jq would not write), run through cdi-runtime with
# $conf; its config as it was in $tmp/NAME.orig, output in $tmp/NAME.out, stderr in
# $tmp/NAME.err, exit status in rc. The container is deleted.
run() {
	probe_bundle "$tmp/b-$1" "$args" "$2"
	[ -z "${3:-}" ] || sed -i "$3" "$tmp/b-$1/config.json"
	cp "$tmp/b-$1/config.json" "$tmp/$1.orig"
	ids+=("$id-$1")
	CDIKIT_CONFIG=$conf "$RT" --root "$state" run --bundle "$tmp/b-$1" "$id-$1" \
		>"$tmp/$1.out" 2>"$tmp/$1.err" </dev/null
	rc=$?
	runc --root "$state" delete -f "$id-$1" >/dev/null 2>&1
}

# env_of VAR=VALUE...: a jq filter adding them to process.env.
env_of() { printf '.process.env += %s' "$(printf '%s\n' "$@" | jq -R . | jq -cs .)"; }
