# SPDX-License-Identifier: Apache-2.0
# Sourced by a shell suite (after lib/suite.sh, with $tmp its scratch directory): golden specs.
#
# golden_check NAME FILE ROOT: FILE (a spec generated for the host at ROOT), with ROOT replaced
# by @ROOT@ (into FILE.golden), must equal tests/golden/NAME.yaml; with CDIKIT_UPDATE_GOLDEN=1
# it is written there instead (review the diff). The scratch directory must not show elsewhere.
golden_check() {
	local name=$1 out=$2 root=$3 dir=tests/golden
	sed "s|$root|@ROOT@|g" "$out" >"$out.golden"
	if grep -q "$tmp" "$out.golden"; then die "$name: the temp dir leaks outside hostPath"; fi
	if [ "${CDIKIT_UPDATE_GOLDEN:-0}" = 1 ]; then
		mkdir -p "$dir"
		cp "$out.golden" "$dir/$name.yaml"
		echo "updated $dir/$name.yaml"
		return
	fi
	[ -f "$dir/$name.yaml" ] || die "$name: no $dir/$name.yaml (CDIKIT_UPDATE_GOLDEN=1 makes it)"
	diff -u "$dir/$name.yaml" "$out.golden" >"$out.diff" ||
		die "$name differs from $dir/$name.yaml: $(head -n 40 "$out.diff")"
	ok "$name matches $dir/$name.yaml"
}
