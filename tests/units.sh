#!/usr/bin/env bash
# The systemd units and udev rule of deploy/systemd, as make renders them:
#   - systemd-analyze verify accepts them, man page references included (MANPATH points at
#     the built pages), with ExecStart and the watched binary in the build tree; nothing is
#     installed on this machine;
#   - the service is a oneshot that never restarts itself, with no start limit, no sleep;
#     the path units and the udev rule start it; the preset enables every unit;
#   - its ExecCondition, run in a private mount namespace over simulated /proc/driver and
#     /lib/modules: it skips a host without the NVIDIA driver (nouveau, nvidiafb only) and runs
#     where the driver is loaded or installed for this kernel (nvidia.ko, Debian's
#     nvidia-current.ko, compressed modules);
#   - its ExecStart against a simulated host, --load-modules and --create-device-nodes
#     included (modules live, a node missing): makes the node, writes a missing spec, leaves
#     an up-to-date one alone (same inode, nothing written), rewrites a stale one and says why,
#     takes the environment file's settings, and fails (once; nothing restarts it) when
#     cdi-generate does.
# shellcheck source=lib/suite.sh
. "$(dirname "$0")/lib/suite.sh"
# shellcheck source=lib/modules-live.sh
. tests/lib/modules-live.sh

command -v systemd-analyze >/dev/null 2>&1 || skip "systemd-analyze not installed"
command -v man >/dev/null 2>&1 || skip "man not installed (systemd-analyze checks Documentation=)"
[ -x "$B/cdi-generate" ] || die "$B/cdi-generate not built"
bin=$(cd "$B" && pwd)
tmp=$(mktemp -d /tmp/cdikit-units.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory BUILD="$tmp/b" SANITIZE=0 \
	bindir="$bin" sysconfdir="$tmp/etc" units man >"$tmp/make.log" 2>&1 ||
	die "make units man: $(tail -n 5 "$tmp/make.log")"
units=$tmp/b/deploy/systemd
service=$units/cdikit-refresh.service
mkdir -p "$tmp/man/man8" && cp "$tmp/b/man/cdi-generate.8" "$tmp/man/man8/"

# verify: a unit with a problem prints it and may still exit 0, so any output fails.
verify() { MANPATH=$tmp/man systemd-analyze verify --man=yes "$@" >"$tmp/verify.out" 2>&1 && [ ! -s "$tmp/verify.out" ]; }
verify "$units"/*.service "$units"/*.path || die "systemd-analyze verify: $(cat "$tmp/verify.out")"
mkdir "$tmp/bad" && sed 's/^ExecStart=/ExecStrat=/' "$service" >"$tmp/bad/cdikit-refresh.service"
! verify "$tmp/bad/cdikit-refresh.service" || die "verify accepts a misspelt ExecStart"
ok "systemd-analyze verify: $(cd "$units" && echo *)"

# The service: started by events only, so nothing may restart it or limit its starts.
grep -qx 'Type=oneshot' "$service" && grep -qx 'StartLimitIntervalSec=0' "$service" ||
	die "the service is not a oneshot without a start limit"
! grep -q '^Restart=' "$service" || die "the service restarts itself"
! grep -rqw sleep "$units" deploy/systemd || die "a unit sleeps"
grep -qx "ConditionFileIsExecutable=$bin/cdi-generate" "$service" || die "no condition on cdi-generate"
for p in "$units"/*.path; do
	grep -qx 'Unit=cdikit-refresh.service' "$p" || die "$(basename "$p") does not start the service"
done
grep -qx 'PathChanged=/lib/modules/%v/modules.dep' "$units/cdikit-refresh.path" &&
	grep -qx "PathChanged=$bin/cdi-generate" "$units/cdikit-refresh.path" &&
	grep -qx 'PathChanged=/dev/nvidia-caps' "$units/cdikit-refresh-mig.path" || die "watched paths"
rule=$(grep -v '^#' deploy/systemd/70-cdikit.rules | grep .)
[ "$(printf '%s\n' "$rule" | wc -l)" -eq 1 ] || die "the udev rule file has more than one rule"
for want in 'ACTION=="add"' 'SUBSYSTEM=="module"' 'TAG+="systemd"' \
	'ENV{SYSTEMD_WANTS}+="cdikit-refresh.service"'; do
	sed 's/, /\n/g' <<<"$rule" | grep -qxF "$want" || die "the udev rule lacks $want"
done
kernel=$(sed -nE 's/.*KERNEL=="([^"]*)".*/\1/p' <<<"$rule")
for m in nvidia nvidia_uvm nvidia_modeset nvidia_current; do
	[[ "|$kernel|" == *"|$m|"* ]] || die "the udev rule does not match module $m"
done
enabled=$(sed -n 's/^enable //p' deploy/systemd/90-cdikit.preset | sort | tr '\n' ' ')
installable=$(grep -l '^WantedBy=' "$units"/* | xargs -n1 basename | sort | tr '\n' ' ')
[ "$enabled" = "$installable" ] || die "the preset enables [$enabled], the units are [$installable]"
ok "oneshot without restarts or start limit; path units, udev rule ($kernel) and preset start it"

# systemd's command line as the shell sees it: %v is the kernel release, $$ a $.
command_of() {
	sed -n "s/^$1=//p" "$service" | sed -e "s/%v/$(uname -r)/g" -e 's/%%/%/g' -e 's/\$\$/$/g'
}

# ExecCondition: 0 runs the unit, 1..254 skips it without failing it.
[ "$(id -u)" -eq 0 ] || skip "needs root for the mount namespace of the ExecCondition cases"
condition=$(command_of ExecCondition)
[ -n "$condition" ] || die "no ExecCondition"
case_dir=$tmp/cond
# cond_case WANT LOADED MODULES_DEP: run the condition over a /proc/driver where the driver is
# (LOADED=1) or is not loaded and a modules.dep of this kernel with the given lines.
cond_case() {
	local want=$1 loaded=$2 dep=$3 rc
	rm -rf "$case_dir" && mkdir -p "$case_dir"/{u,w}
	printf '%b' "$dep" >"$case_dir/modules.dep"
	unshare -m sh -c '
		set -e
		mount -t tmpfs tmpfs /proc/driver
		[ "$1" = 0 ] || { mkdir /proc/driver/nvidia; echo "NVRM version: 550.54.15" >/proc/driver/nvidia/version; }
		lib=$(readlink -f /lib)
		mount -t overlay -o "lowerdir=$lib,upperdir=$2/u,workdir=$2/w" overlay "$lib"
		rm -rf /lib/modules && mkdir -p "/lib/modules/$(uname -r)"
		cp "$2/modules.dep" "/lib/modules/$(uname -r)/modules.dep"
		shift 2
		eval "set -- $1"
		exec "$@"' sh "$loaded" "$case_dir" "$condition" >"$tmp/cond.out" 2>&1
	rc=$?
	if [ "$want" = run ]; then
		[ "$rc" -eq 0 ] || die "ExecCondition skips (exit $rc) with loaded=$loaded, modules.dep: $dep $(cat "$tmp/cond.out")"
	else
		[ "$rc" -ge 1 ] && [ "$rc" -le 254 ] ||
			die "ExecCondition exits $rc (want a skip, 1..254) with loaded=$loaded, modules.dep: $dep $(cat "$tmp/cond.out")"
	fi
}
unshare -m true 2>/dev/null || skip "cannot make a mount namespace here"
nouveau='kernel/drivers/gpu/drm/nouveau/nouveau.ko.xz: kernel/drivers/gpu/drm/drm.ko.xz\nkernel/drivers/video/fbdev/nvidia/nvidiafb.ko.xz:\n'
cond_case skip 0 ''
cond_case skip 0 "$nouveau"
cond_case run 0 "${nouveau}updates/dkms/nvidia.ko: \nupdates/dkms/nvidia-uvm.ko: updates/dkms/nvidia.ko\n"
cond_case run 0 'updates/dkms/nvidia-current.ko:\n'
cond_case run 0 'kernel/drivers/video/nvidia.ko.zst:\n'
cond_case run 0 'nvidia.ko:\n'
cond_case run 1 "$nouveau"
ok "ExecCondition skips hosts without the driver, runs where it is loaded or installed"

# ExecStart, run as systemd would, against simulated hosts: the adapter points cdi-generate at
# one with --root. --load-modules and --create-device-nodes stay: the hosts' modules trees list
# the NVIDIA modules as built in (live: nothing is inserted into this machine's kernel), and
# the first host lacks /dev/nvidia-uvm, which the first start must make inside it.
[ -e "$B/tests/mock-nvml/libnvidia-ml.so.1" ] || die "$B/tests/mock-nvml not built"
for t in "dgx-mig --no-uvm-nodes:h1" "dgx-mig --mig 2=off:h2"; do
	# shellcheck disable=SC2086
	tests/simhost/make-host --topology ${t%:*} --modules --mock-dir "$B/tests/mock-nvml" --out "$tmp/${t##*:}" >/dev/null ||
		die "make-host ${t%:*}"
	[ ! -e "$tmp/${t##*:}/.simhost-no-depmod" ] || skip "no depmod (Debian package kmod)"
	modules_live "$tmp/${t##*:}" >/dev/null || die "depmod on $tmp/${t##*:}"
done
cat >"$tmp/cdi-generate" <<EOF
#!/bin/sh
exec "$bin/cdi-generate" --root "\$HOST" "\$@"
EOF
chmod +x "$tmp/cdi-generate"
start=$(command_of ExecStart)
[ "${start% "$bin/cdi-generate"}" != "$start" ] || die "ExecStart does not end with $bin/cdi-generate"
start="${start% "$bin/cdi-generate"} $tmp/cdi-generate"
# The unit's defaults must be what the environment file documents.
defaults=$(sed -n 's/^Environment=//p' "$service")
for kv in $defaults; do
	[ -z "${kv#*=}" ] || grep -qx "#$kv" deploy/systemd/refresh.env || die "refresh.env does not document $kv"
done
spec=$tmp/run/cdi/nvidia.yaml
# run_start HOST [VAR=VALUE]...: the service's start on HOST, with the unit's environment.
run_start() {
	local host=$1
	shift
	# shellcheck disable=SC2086
	env -i PATH=/usr/bin:/bin $defaults CDIKIT_REFRESH_OUTPUT="$spec" HOST="$tmp/$host" "$@" \
		sh -c 'eval "set -- $1"; exec "$@"' sh "$start" >"$tmp/start.out" 2>&1
}
run_start h1 || die "ExecStart on a host without a spec: $(cat "$tmp/start.out")"
grep -q 'is stale: it does not exist' "$tmp/start.out" && [ -s "$spec" ] ||
	die "the first start did not say why it wrote, or wrote nothing: $(cat "$tmp/start.out")"
[ -c "$tmp/h1/dev/nvidia-uvm" ] && grep -q "$tmp/h1/dev/nvidia-uvm: created" "$tmp/start.out" &&
	grep -q 'path: /dev/nvidia-uvm$' "$spec" ||
	die "the first start did not make /dev/nvidia-uvm: $(cat "$tmp/start.out")"
grep -q 'nvidia.com/gpu' "$spec" || die "no spec written"
touch -d '2000-01-01' "$spec"
before=$(stat -c '%i %Y' "$spec")
run_start h1 || die "ExecStart with an up-to-date spec: $(cat "$tmp/start.out")"
grep -q 'is up to date' "$tmp/start.out" && [ "$(stat -c '%i %Y' "$spec")" = "$before" ] ||
	die "an up-to-date spec was rewritten: $(cat "$tmp/start.out")"
run_start h2 || die "ExecStart after a MIG change: $(cat "$tmp/start.out")"
grep -q 'is stale: devices' "$tmp/start.out" && grep -q 'name: GPU-7ad0c01a' "$spec" ||
	die "a stale spec was not rewritten with GPU 2: $(cat "$tmp/start.out")"
run_start h2 CDIKIT_REFRESH_OPTIONS="--device-name-strategy type-index --no-all-device" ||
	die "ExecStart with options: $(cat "$tmp/start.out")"
grep -q 'name: gpu2' "$spec" && ! grep -q 'name: all' "$spec" || die "CDIKIT_REFRESH_OPTIONS not used"
run_start nowhere && die "ExecStart succeeds on a host that does not exist"
grep -q 'cdi-generate' "$tmp/start.out" || die "a failed start says nothing: $(cat "$tmp/start.out")"
ok "ExecStart makes a missing node, writes a missing spec, keeps an up-to-date one, rewrites a stale one, fails once"
echo "PASS: units"
