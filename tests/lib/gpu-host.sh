# shellcheck shell=bash
# Sourced by the GPU end-to-end suites: a simulated DGX host with its CDI spec, a probe program
# and a minimal glibc rootfs for runc bundles. Needs $B (build dir), $tmp and die().

# shellcheck source=rootfs.sh
. tests/lib/rootfs.sh

# gpu_host: $tmp/host (tests/simhost dgx-mig: 8 GPUs, MIG on GPUs 2 and 5), its spec written by
# cdi-generate to $tmp/cdi/nvidia.yaml, and the facts file beside it (built from the host's NVML
# mock configuration until cdi-generate writes it). Sets host, cdi. Skips (77) when the host
# cannot have real device nodes.
gpu_host() {
	host=$tmp/host
	cdi=$tmp/cdi
	dgx_spec "$tmp" || die "cannot build the simulated host and its spec"
	if [ -e "$host/.simhost-no-devnodes" ]; then
		echo "SKIP: the simulated host has no real device nodes"
		exit 77
	fi
	[ -e "$cdi/nvidia.yaml.cdikit" ] ||
		gpu_facts "$host/usr/lib/x86_64-linux-gnu/mock-nvml.conf" >"$cdi/nvidia.yaml.cdikit" ||
		die "cannot write the facts file"
}

# gpu_facts MOCK_CONF: a facts file (cdikitFacts 1) for the GPUs and MIG devices of an NVML mock
# configuration, with the spec names of the index and uuid strategies.
gpu_facts() {
	awk '
	BEGIN { printf "{\"cdikitFacts\": 1, \"kind\": \"nvidia.com/gpu\", \"gpus\": [\n  " }
	function flush_gpu() {
		if (g == "") return
		printf "%s{\"index\": %s, \"minor\": %s, \"uuid\": \"%s\", \"busId\": \"%s\", \"mig\": %s, ", sep, g, minor, uuid, pci, mig ? "true" : "false"
		if (mig) printf "\"devices\": [], \"migDevices\": [%s]}", migs
		else printf "\"devices\": [\"%s\", \"%s\"]}", g, uuid
		sep = ",\n  "
	}
	function val(k,   i) { for (i = 3; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2); return "" }
	$1 == "gpu" { flush_gpu(); g = $2; minor = val("minor"); pci = val("pci"); uuid = val("uuid"); mig = val("mig") == "enabled"; migs = ""; m = 0 }
	$1 == "mig" { migs = migs (m ? ", " : "") sprintf("{\"index\": \"%s:%d\", \"uuid\": \"%s\", \"gi\": %s, \"ci\": %s, \"devices\": [\"%s:%d\", \"%s\"]}", $2, m, val("uuid"), val("gi"), val("ci"), $2, m, val("uuid")); m++ }
	END { flush_gpu(); printf "]}\n" }' "$1"
}

# gpu_host_numbers PATH: major:minor of the simulated host's node at PATH.
gpu_host_numbers() {
	stat -c '%Hr:%Lr' "$host$1"
}

# node_line PATH: the probe's line for the host's node at PATH seen in a container.
node_line() { echo "node $1 c $(gpu_host_numbers "$1")"; }

# has FILE LINE: FILE (probe output) has exactly that line.
has() { grep -qxF "$2" "$1"; }

# gpu_probe OUT: the probe program (tests/gpu-probe.c), linked against the host's glibc.
gpu_probe() {
	"${CC:-cc}" -O2 -o "$1" tests/gpu-probe.c -ldl || die "cannot build the probe"
}

# glibc_rootfs ROOTFS PROBE: a minimal Debian-layout glibc system (merged /usr, the loader and
# libc, no ld.so.cache at all) with PROBE as /usr/bin/probe.
glibc_rootfs() {
	make_debian_rootfs "$1" || die "cannot build the rootfs"
	cp "$2" "$1/usr/bin/probe"
}

# gpu_setup: gpu_host, and $tmp/rootfs, a glibc rootfs with the probe, for runc bundles.
gpu_setup() {
	gpu_host
	gpu_probe "$tmp/probe"
	glibc_rootfs "$tmp/rootfs" "$tmp/probe"
}

# probe_bundle BUNDLE ARGS_JSON [JQ_FILTER]: a runc bundle around $tmp/rootfs (shared, read
# only) that runs the probe with ARGS_JSON (a JSON array), non-interactive, then JQ_FILTER.
probe_bundle() {
	mkdir -p "$1"
	(cd "$1" && runc spec) || die "runc spec failed"
	jq --argjson args "$2" --arg rootfs "$tmp/rootfs" \
		'.process.terminal = false | .process.args = ["/usr/bin/probe"] + $args |
		 .root = {path: $rootfs, readonly: true} | '"${3:-.}" \
		"$1/config.json" >"$1/config.json.new" && mv "$1/config.json.new" "$1/config.json" ||
		die "jq failed"
}
