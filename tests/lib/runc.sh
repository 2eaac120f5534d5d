# Sourced by the runc end-to-end suites. Needs $state (runc --root) and $bundle.

# run_bundle ID OUT: runc run the bundle as container ID, output to OUT, then delete it.
run_bundle() {
	timeout 120 runc --root "$state" run --bundle "$bundle" "$1" >"$2" 2>&1 </dev/null
	local rc=$?
	runc --root "$state" delete -f "$1" >/dev/null 2>&1
	return $rc
}
