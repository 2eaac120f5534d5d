#!/usr/bin/env bash
# End to end, cdi-runtime as the OCI runtime over runc (and crun), on a simulated DGX host
# (8 GPUs, MIG on GPUs 2 and 5) with the spec cdi-generate writes:
#   - `cdi-runtime run` of a bundle that asks by NVIDIA_VISIBLE_DEVICES and carries Docker's
#     legacy hook (build/nvidia-container-runtime-hook: if it ran, the container would fail):
#     the program inside loads libcuda.so.1 and sees the GPU nodes asked for with the host's
#     numbers, and no others;
#   - create, then start, state, kill and delete, all through the shim;
#   - passthrough commands give exactly runc's stdout, stderr and exit status;
#   - GPU 2 (MIG mode) by index and by GPU UUID gives its MIG devices; "none" gives the
#     control nodes and no GPU (a hand-written none device, until the generator has one);
#   - crun as the low-level runtime;
#   - failures: an unknown GPU fails create before runc runs, with one line naming it on
#     stderr and in the --log file (runc's JSON), config.json byte for byte as it was, and
#     no container; a config that asks for nothing is not rewritten at all.
# Needs root, runc, crun, jq, a C compiler; else exit 77.
set -u
cd "$(dirname "$0")/../.."
: "${B:=build}"

# shellcheck source=lib/tap.sh
. tests/lib/tap.sh

[ "$(id -u)" -eq 0 ] || skip "needs root (device nodes of the simulated host, runc run)"
for c in runc crun jq; do command -v $c >/dev/null 2>&1 || skip "$c not installed"; done
for f in cdi-generate cdi-runtime nvidia-container-runtime-hook tests/mock-nvml/libnvidia-ml.so.1; do
	[ -e "$B/$f" ] || die "$B/$f not built"
done

tmp=$(mktemp -d /tmp/cdikit-e2e-rt.XXXXXX)
state=$tmp/runc-state
cstate=$tmp/crun-state
id=cdikit-rt-$$
ids=()
cleanup() {
	for i in "${ids[@]}"; do
		runc --root "$state" delete -f "$i" >/dev/null 2>&1
		crun --root "$cstate" delete -f "$i" >/dev/null 2>&1
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

RT=$(realpath "$B/cdi-runtime")
HOOK=$(realpath "$B/nvidia-container-runtime-hook")

# shellcheck source=lib/gpu-host.sh
. tests/lib/gpu-host.sh
gpu_setup
# cdi-runtime's settings: never the machine's /etc/cdikit/runtime.conf; host files (the driver's
# /proc, /dev/nvidia-caps, the MPS directory) under the simulated host.
export CDIKIT_CONFIG=$tmp/runtime.conf
printf 'host-root = "%s"\n' "$host" >"$CDIKIT_CONFIG"

nodes='["/dev/nvidia0","/dev/nvidia1","/dev/nvidia2","/dev/nvidia5","/dev/nvidiactl","/dev/nvidia-uvm",
	"/dev/nvidia-caps/nvidia-cap336","/dev/nvidia-caps/nvidia-cap391","/dev/nvidia-caps/nvidia-cap687"]'
# Docker's --gpus additions (engines.md): the variable and the legacy prestart hook.
docker_gpus() { # VALUE -> jq filter
	printf '.process.env += ["NVIDIA_VISIBLE_DEVICES=%s", "NVIDIA_DRIVER_CAPABILITIES=compute,utility"] |
		.hooks.prestart = [{path: "%s", args: ["%s", "prestart"]}]' "$1" "$HOOK" "$HOOK"
}

# ---- cdi-runtime run: GPU 0 and MIG 2:0 ----
probe_bundle "$tmp/b-run" "$nodes" "$(docker_gpus 0,2:0)"
# Numbers jansson alone would change (RLIM_INFINITY, 0.1, 1e2) in a field runc ignores.
sed -i '1s/^{/{"x-cdikit-numbers": [18446744073709551615, 0.1, 1e2],/' "$tmp/b-run/config.json"
ids+=("$id-run")
(cd "$tmp/b-run" && "$RT" --cdi-spec-dir "$cdi" --root "$state" run "$id-run") >"$tmp/run.out" 2>&1 </dev/null
rc=$?
sed 's/^/    /' "$tmp/run.out"
check "run: exit 0 (the legacy hook did not run)" [ "$rc" -eq 0 ]
check "run: libcuda.so.1 loads" has "$tmp/run.out" "dlopen libcuda.so.1 ok"
check "run: libnvidia-ml.so.1 loads with its symbols" has "$tmp/run.out" "dlopen libnvidia-ml.so.1 ok sym"
for want in /dev/nvidia0 /dev/nvidia2 /dev/nvidiactl /dev/nvidia-uvm /dev/nvidia-caps/nvidia-cap336; do
	check "run: $want with the host's numbers" has "$tmp/run.out" "$(node_line $want)"
done
for absent in /dev/nvidia1 /dev/nvidia5 /dev/nvidia-caps/nvidia-cap391; do
	check "run: $absent absent" has "$tmp/run.out" "node $absent missing"
done
check "run: the legacy hook is gone from config.json" \
	[ "$(jq -c '.hooks // {}' "$tmp/b-run/config.json")" = '{}' ]
check "run: numbers in config.json as written" \
	grep -qF '"x-cdikit-numbers":[18446744073709551615,0.1,1e2]' <(tr -d ' \t\n' <"$tmp/b-run/config.json")
runc --root "$state" delete -f "$id-run" >/dev/null 2>&1

# ---- create, start, state, kill, delete: all through the shim ----
probe_bundle "$tmp/b-life" "$(jq -c '["--wait"] + .' <<<"$nodes")" "$(docker_gpus 1)"
ids+=("$id-life")
"$RT" --cdi-spec-dir "$cdi" --root "$state" --log "$tmp/life.log" --log-format json \
	create --bundle "$tmp/b-life" --pid-file "$tmp/life.pid" "$id-life" >"$tmp/life.out" 2>&1 </dev/null
check "create through the shim: exit 0" [ $? -eq 0 ]
st() { "$RT" --root "$state" state "$id-life" | jq -r .status; }
check "state through the shim: created" [ "$(st)" = created ]
check "the pid file runc wrote names the init" [ -s "$tmp/life.pid" ]
"$RT" --root "$state" start "$id-life"
check "start through the shim: exit 0" [ $? -eq 0 ]
for _ in $(seq 100); do has "$tmp/life.out" "probe done" && break; sleep 0.05; done
check "start: the probe ran and sees GPU 1" has "$tmp/life.out" "$(node_line /dev/nvidia1)"
check "start: and not GPU 0" has "$tmp/life.out" "node /dev/nvidia0 missing"
check "state through the shim: running" [ "$(st)" = running ]
"$RT" --root "$state" kill "$id-life" KILL
check "kill through the shim: exit 0" [ $? -eq 0 ]
for _ in $(seq 100); do [ "$(st)" = stopped ] && break; sleep 0.05; done
check "state after kill: stopped" [ "$(st)" = stopped ]
"$RT" --root "$state" delete "$id-life"
check "delete through the shim: exit 0" [ $? -eq 0 ]

# ---- passthrough is runc's, byte for byte ----
same() { # description, then runc's arguments: compare stdout, stderr, exit status
	local d=$1
	shift
	runc "$@" >"$tmp/p.runc.out" 2>"$tmp/p.runc.err"
	local want=$?
	"$RT" --cdi-spec-dir "$cdi" "$@" >"$tmp/p.rt.out" 2>"$tmp/p.rt.err"
	local got=$?
	# runc's own log lines carry the second they were written in.
	sed -i 's/^time="[^"]*" /time=T /' "$tmp"/p.*.err
	if [ "$got" -eq "$want" ] && cmp -s "$tmp/p.runc.out" "$tmp/p.rt.out" &&
		cmp -s "$tmp/p.runc.err" "$tmp/p.rt.err"; then
		ok "passthrough as runc: $d (exit $got)"
	else
		bad "passthrough as runc: $d (exit $got, runc $want)"
		diff "$tmp/p.runc.out" "$tmp/p.rt.out" | head -5
		diff "$tmp/p.runc.err" "$tmp/p.rt.err" | head -5
	fi
}
probe_bundle "$tmp/b-pass" "$(jq -c '["--wait"] + .' <<<"$nodes")"
ids+=("$id-pass")
runc --root "$state" create --bundle "$tmp/b-pass" "$id-pass" >/dev/null 2>&1 </dev/null ||
	die "runc create of the passthrough bundle failed"
same "state" --root "$state" state "$id-pass"
same "list" --root "$state" list
same "list -q" --root "$state" list -q
same "state of no container" --root "$state" state nope-$$
same "kill with a bad signal" --root "$state" kill "$id-pass" NOSUCHSIG
same "unknown command" --root "$state" frobnicate
same "command help" --root "$state" state --help
# Our own -h and -v come with runc's: its version lines first (callers read them there), its
# usage after ours.
"$RT" --root "$state" -v >"$tmp/v.out" 2>&1
check "-v: exit 0" [ $? -eq 0 ]
check "-v: runc's version lines first, byte for byte" cmp -s <(head -n "$(runc --version | wc -l)" "$tmp/v.out") <(runc --version)
check "-v: then cdi-runtime's" [ "$(tail -1 "$tmp/v.out")" = "cdi-runtime (cdikit) $(sed -nE 's/^VERSION := (.*)/\1/p' Makefile)" ]
"$RT" --root "$state" --help >"$tmp/h.out" 2>&1
check "--help: exit 0" [ $? -eq 0 ]
check "--help: cdi-runtime's usage first" [ "$(head -c 19 "$tmp/h.out")" = "Usage: cdi-runtime " ]
check "--help: then runc's, byte for byte" cmp -s <(tail -n "$(runc --help | wc -l)" "$tmp/h.out") <(runc --help)
same "ps (json: the table has a CPU column that moves)" --root "$state" ps --format json "$id-pass"
same "delete of a created container" --root "$state" delete -f "$id-pass"
same "state after delete" --root "$state" state "$id-pass"

# ---- MIG-mode GPU 2 by index and by UUID; none ----
mig2=(/dev/nvidia-caps/nvidia-cap336 /dev/nvidia-caps/nvidia-cap345 /dev/nvidia-caps/nvidia-cap391)
for ask in 2 GPU-7ad0c01a-caf1-bed9-cebc-0b21ab553c68; do
	probe_bundle "$tmp/b-mig-$ask" "$(printf '%s\n' /dev/nvidia2 /dev/nvidia0 "${mig2[@]}" | jq -R . | jq -cs .)" \
		".process.env += [\"NVIDIA_VISIBLE_DEVICES=$ask\"]"
	ids+=("$id-mig")
	"$RT" --cdi-spec-dir "$cdi" --root "$state" run --bundle "$tmp/b-mig-$ask" "$id-mig" \
		>"$tmp/mig.out" 2>&1 </dev/null
	check "NVIDIA_VISIBLE_DEVICES=$ask (MIG mode): run exit 0" [ $? -eq 0 ]
	for want in /dev/nvidia2 "${mig2[@]}"; do
		check "NVIDIA_VISIBLE_DEVICES=$ask: $want" has "$tmp/mig.out" "$(node_line $want)"
	done
	check "NVIDIA_VISIBLE_DEVICES=$ask: not GPU 0" has "$tmp/mig.out" "node /dev/nvidia0 missing"
	runc --root "$state" delete -f "$id-mig" >/dev/null 2>&1
done
probe_bundle "$tmp/b-none" "$nodes" "$(docker_gpus none)"
ids+=("$id-none")
"$RT" --cdi-spec-dir "$cdi" --root "$state" run --bundle "$tmp/b-none" "$id-none" >"$tmp/none.out" 2>&1 </dev/null
check "none: run exit 0" [ $? -eq 0 ]
check "none: the control node" has "$tmp/none.out" "$(node_line /dev/nvidiactl)"
check "none: no GPU" has "$tmp/none.out" "node /dev/nvidia0 missing"

# ---- crun as the low-level runtime ----
# crun 1.8 refuses a hybrid cgroup host ("cgroups in hybrid mode not supported"); on one, crun
# runs in a mount namespace without the cgroup2 mount, where the host is plain cgroup v1.
crun_ns() {
	if [ "$(stat -f -c %T /sys/fs/cgroup)" = tmpfs ] && mountpoint -q /sys/fs/cgroup/unified; then
		unshare -m sh -c 'umount /sys/fs/cgroup/unified && exec "$@"' sh "$@"
	else
		"$@"
	fi
}
probe_bundle "$tmp/b-crun" "$nodes" "$(docker_gpus 1)"
ids+=("$id-crun")
CDIKIT_RUNTIME=crun crun_ns "$RT" --cdi-spec-dir "$cdi" --root "$cstate" run --bundle "$tmp/b-crun" \
	"$id-crun" >"$tmp/crun.out" 2>&1 </dev/null
rc=$?
sed 's/^/    /' "$tmp/crun.out"
check "crun: run exit 0" [ "$rc" -eq 0 ]
check "crun: libcuda.so.1 loads" has "$tmp/crun.out" "dlopen libcuda.so.1 ok"
check "crun: GPU 1 with the host's numbers" has "$tmp/crun.out" "$(node_line /dev/nvidia1)"
check "crun: not GPU 0" has "$tmp/crun.out" "node /dev/nvidia0 missing"
check "crun: the container was crun's" [ -d "$cstate" ] && [ ! -d "$state/$id-crun" ]
crun_ns crun --root "$cstate" delete -f "$id-crun" >/dev/null 2>&1

# ---- failure: early, loud, harmless ----
probe_bundle "$tmp/b-bad" "$nodes" "$(docker_gpus 0,9)"
cp "$tmp/b-bad/config.json" "$tmp/bad.orig"
ids+=("$id-bad")
"$RT" --cdi-spec-dir "$cdi" --root "$state" --log "$tmp/bad.log" --log-format json \
	create --bundle "$tmp/b-bad" "$id-bad" >"$tmp/bad.out" 2>"$tmp/bad.err" </dev/null
rc=$?
want="cdi-runtime: NVIDIA_VISIBLE_DEVICES=0,9: unresolvable CDI devices nvidia.com/gpu=9 (searched $cdi)"
check "unknown GPU: create exits 1" [ "$rc" -eq 1 ]
check "unknown GPU: one stderr line naming it" [ "$(cat "$tmp/bad.err")" = "$want" ]
check "unknown GPU: the log's last line is runc's JSON error with it" \
	[ "$(tail -1 "$tmp/bad.log" | jq -r 'select(.level == "error") | .msg')" = "${want#cdi-runtime: }" ]
rfc3339() {
	tail -1 "$1" | jq -e '.time | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(Z|[+-][0-9]{2}:[0-9]{2})$")' >/dev/null
}
check "unknown GPU: the log time is RFC 3339" rfc3339 "$tmp/bad.log"
check "unknown GPU: config.json byte for byte" cmp -s "$tmp/b-bad/config.json" "$tmp/bad.orig"
no_container() { ! runc --root "$state" state "$1" >/dev/null 2>&1; }
check "unknown GPU: no container" no_container "$id-bad"

probe_bundle "$tmp/b-void" "$nodes" '.process.env += ["NVIDIA_VISIBLE_DEVICES=void"]'
cp "$tmp/b-void/config.json" "$tmp/void.orig"
ino=$(stat -c %i "$tmp/b-void/config.json")
ids+=("$id-void")
"$RT" --cdi-spec-dir "$cdi" --root "$state" run --bundle "$tmp/b-void" "$id-void" >"$tmp/void.out" 2>&1 </dev/null
check "nothing asked: run exit 0, no GPU" [ $? -eq 0 ] && has "$tmp/void.out" "node /dev/nvidia0 missing"
check "nothing asked: config.json not rewritten (same bytes, same inode)" \
	cmp -s "$tmp/b-void/config.json" "$tmp/void.orig" && [ "$(stat -c %i "$tmp/b-void/config.json")" = "$ino" ]

# Without cdi-runtime, Docker's hook refuses, with its one line (what --gpus under runc gives).
probe_bundle "$tmp/b-hook" "$nodes" "$(docker_gpus all)"
ids+=("$id-hook")
runc --root "$state" run --bundle "$tmp/b-hook" "$id-hook" >"$tmp/hook.out" 2>&1 </dev/null
check "plain runc with the legacy hook: fails" [ $? -ne 0 ]
check "plain runc with the legacy hook: the hook's message" \
	grep -q 'docker run --gpus needs --runtime=cdikit' "$tmp/hook.out"

tap_end
