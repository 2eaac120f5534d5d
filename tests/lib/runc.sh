# Sourced by the runc end-to-end suites. Needs $state (runc --root) and $bundle.

# run_bundle ID OUT: runc run the bundle as container ID, output to OUT, then delete it.
run_bundle() {
	timeout 120 runc --root "$state" run --bundle "$bundle" "$1" >"$2" 2>&1 </dev/null
	local rc=$?
	runc --root "$state" delete -f "$1" >/dev/null 2>&1
	return $rc
}

# runc_e2e_require: what a runc end-to-end suite over a simulated host needs (root for its
# device nodes and runc run, runc, jq, the programs and the mock NVML built); skip or die.
runc_e2e_require() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (device nodes of the simulated host, runc run)"
	command -v runc >/dev/null 2>&1 || skip "runc not installed"
	command -v jq >/dev/null 2>&1 || skip "jq not installed"
	local f
	for f in cdi-generate cdi-apply tests/mock-nvml/libnvidia-ml.so.1; do
		[ -e "$B/$f" ] || die "$B/$f not built"
	done
}
