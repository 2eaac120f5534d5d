#!/usr/bin/env bash
# cdikit's nvidia-cdi-hook under real runtimes, for a spec cdikit did not write: the spec
# carries nvidia-ctk's exact hook lines (cmd/nvidia-ctk/cdi/generate/generate_test.go's
# expected spec, plus v1.20's update-application-profile) with build/nvidia-cdi-hook as the
# hook path, for the simulated host's driver (550.54.15). runc and crun run bundles made with
# cdi-apply; podman 4.3 reads the spec from /etc/cdi itself. A probe inside the container says:
#   - the first libcuda.so.1 of `ldconfig -p`, and which libcuda dlopen loads (the simulated
#     driver's exports cdikit_sim_libcuda, the image's compat one cdikit_compat_libcuda);
#   - the soname link update-ldcache made (the spec mounts only libcuda.so.<version>) and the
#     link create-symlinks made;
#   - the EGL application profile (mask 0x1: GPU 0's node);
#   - /proc/driver/nvidia/params: ModifyDeviceFiles: 0, read-only. This VM has no driver, so
#     that one hook line runs through a wrapper that first gives the container's mount
#     namespace the driver's /proc files (ModifyDeviceFiles: 1), then execs the hook;
#   - the same first libcuda after `ldconfig` runs inside (the drop-ins keep the order);
#   - its whole `ldconfig -p`, which must equal the stand-in's: NVIDIA's update-ldcache steps
#     with `ldconfig -r` (tests/lib/ldcache-standin.sh) on a copy of the image with the
#     driver's files and links put where the mounts and create-symlinks put them.
# An image with a newer CUDA compat libcuda (560 on the host's 550) loads that one.
# Hostile images (runc): /etc/ld.so.cache a FIFO; a link to /etc/shadow; a library
# directory whose link leads out of the rootfs to a host directory of libraries (never
# listed, nothing written there); a read-only rootfs, where the start fails with a line
# naming the file and the rootfs is left as it was. The host's /etc/shadow is checked intact.
#
# Runs in a private mount namespace (its /etc an overlay with an empty /etc/cdi for podman).
# Needs root, runc, jq, unshare, a C compiler, binutils and ldconfig; crun and podman are
# each skipped with a note when missing or unable to run containers here.
# shellcheck source=../lib/suite.sh
. "$(dirname "$0")/../lib/suite.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root (device nodes, runc run, mounts)"
for c in runc jq unshare; do command -v $c >/dev/null 2>&1 || skip "$c not installed"; done
[ -x /sbin/ldconfig ] || skip "no /sbin/ldconfig"
for f in nvidia-cdi-hook cdi-apply tests/mock-nvml/libnvidia-ml.so.1; do
	[ -e "$B/$f" ] || die "$B/$f not built"
done

if [ -z "${CDIKIT_CDIHOOK_PRIVATE_NS:-}" ]; then
	CDIKIT_CDIHOOK_PRIVATE_NS=1 exec unshare -m --propagation private bash "$0" "$@"
	skip "unshare -m failed"
fi

# crun 1.8 refuses a hybrid cgroup host ("cgroups in hybrid mode not supported"): in this
# namespace the cgroup2 mount goes, and the host is plain cgroup v1 for every runtime.
if [ "$(stat -f -c %T /sys/fs/cgroup)" = tmpfs ] && mountpoint -q /sys/fs/cgroup/unified; then
	umount /sys/fs/cgroup/unified || die "cannot hide the hybrid cgroup2 mount"
fi

tmp=$(mktemp -d /tmp/cdikit-e2e-cdihook.XXXXXX)
ids=()
P=(podman --root "$tmp/storage" --runroot "$tmp/runroot" --tmpdir "$tmp/libpod-tmp"
	--storage-driver vfs --hooks-dir "$tmp/hooks.d" --events-backend none
	--cgroup-manager cgroupfs)
cleanup() {
	local i
	for i in "${ids[@]}"; do
		runc --root "$tmp/state-runc" delete -f "$i" >/dev/null 2>&1
		crun --root "$tmp/state-crun" delete -f "$i" >/dev/null 2>&1
	done
	[ -d "$tmp/storage" ] && "${P[@]}" rm -af >/dev/null 2>&1 && "${P[@]}" rmi -af >/dev/null 2>&1
	findmnt -rn -o TARGET | grep -F "$tmp/" | sort -r | while read -r m; do umount -l "$m"; done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# shellcheck source=../lib/rootfs.sh
. tests/lib/rootfs.sh
# shellcheck source=../lib/ldcache-standin.sh
. tests/lib/ldcache-standin.sh
# shellcheck source=../lib/ctk-spec.sh
. tests/lib/ctk-spec.sh

host=$tmp/host
tests/simhost/make-host --topology single --mock-dir "$B/tests/mock-nvml" --out "$host" >/dev/null ||
	die "make-host failed"
[ ! -e "$host/.simhost-no-devnodes" ] || skip "the simulated host has no real device nodes"
ver=550.54.15
lib=$host/usr/lib/x86_64-linux-gnu
HOOK=$B/nvidia-cdi-hook
# A sanitizer build's leak checker cannot read the container's /proc: not in the hooks.
ldd "$HOOK" 2>/dev/null | grep -q libasan && export CTK_HOOK_ENV=ASAN_OPTIONS=detect_leaks=0
shadow_before=$(stat -c '%i %s %Y' /etc/shadow; sha256sum </etc/shadow)

# The driver's /proc files, for the params hook only (see the top).
cat >"$tmp/fake-driver-proc" <<EOF2
#!/bin/bash
set -e
state=\$(/bin/cat)
bundle=\$(/usr/bin/jq -r .bundle <<<"\$state")
root=\$(/usr/bin/jq -r .root.path "\$bundle/config.json")
case \$root in /*) ;; *) root=\$bundle/\$root ;; esac
for d in /proc/driver "\$root/proc/driver"; do
	/bin/mount -t tmpfs -o size=64k cdikit-fake-driver "\$d"
	/bin/mkdir -p "\$d/nvidia"
	/bin/cp "$host/proc/driver/nvidia/params" "\$d/nvidia/params"
done
exec "$HOOK" "\$@" <<<"\$state"
EOF2
chmod +x "$tmp/fake-driver-proc"
grep -qx 'ModifyDeviceFiles: 1' "$host/proc/driver/nvidia/params" || die "premise: the host's params allow modification"

# nvidia-ctk's spec: generate_test.go's expected hooks and mounts, this host's paths.
mkdir -p "$tmp/cdi"
ctk_spec "$host" "$HOOK" "$tmp/fake-driver-proc" >"$tmp/cdi/nvidia.yaml"
"$B/cdi-apply" --validate "$tmp/cdi/nvidia.yaml" || die "the hand-written spec does not validate"

cat >"$tmp/probe.c" <<'EOF2'
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* ldconfig ARG; with list, every line after the header as "cache: ..." */
static int ldconfig(const char *arg, const char *prefix, int list)
{
	char *argv[] = { "/sbin/ldconfig", (char *)arg, NULL }, line[1024];
	posix_spawn_file_actions_t fa;
	int fds[2], status = -1, first = 1;
	pid_t pid;
	FILE *out;

	if (pipe(fds) < 0)
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_addclose(&fa, fds[0]);
	if (posix_spawn(&pid, argv[0], &fa, NULL, arg ? argv : (char *[]){ argv[0], NULL }, environ))
		return -1;
	close(fds[1]);
	out = fdopen(fds[0], "r");
	while (fgets(line, sizeof(line), out)) {
		if (first && strstr(line, "libcuda.so.1 (libc6,x86-64)")) {
			printf("%sfirst %s", prefix, strstr(line, "=> ") + 3);
			first = 0;
		}
		if (list && line[0] == '\t')
			printf("cache: %s", line + 1);
	}
	fclose(out);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void which_libcuda(const char *prefix)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);

	printf("%slibcuda %s\n", prefix, !h ? "none" : dlsym(h, "cdikit_sim_libcuda") ? "driver" :
		dlsym(h, "cdikit_compat_libcuda") ? "compat" : "other");
}

static void show_link(const char *path)
{
	char buf[256];
	ssize_t n = readlink(path, buf, sizeof(buf) - 1);

	printf("link %s -> %s\n", path, n < 0 ? "(none)" : (buf[n] = '\0', buf));
}

static void show_file(const char *label, const char *path, const char *grep)
{
	char buf[512];
	FILE *f = fopen(path, "r");

	if (!f) {
		printf("%s (none)\n", label);
		return;
	}
	while (fgets(buf, sizeof(buf), f))
		if (!grep || strstr(buf, grep))
			printf("%s %s%s", label, buf, strchr(buf, '\n') ? "" : "\n");
	fclose(f);
}

int main(void)
{
	struct statvfs sv;

	ldconfig("-p", "", 1);
	which_libcuda("");
	show_link("/lib/x86_64-linux-gnu/libcuda.so.1");
	show_link("/lib/x86_64-linux-gnu/libcuda.so");
	show_file("profile", "/etc/nvidia/nvidia-application-profiles-rc.d/10-container.conf", NULL);
	show_file("params", "/proc/driver/nvidia/params", "ModifyDeviceFiles");
	printf("params-mount %s\n", statvfs("/proc/driver/nvidia/params", &sv) < 0 ? strerror(errno) :
				     sv.f_flag & ST_RDONLY ? "read-only" : "writable");
	printf("ldconfig rc=%d\n", ldconfig(NULL, "", 0));
	ldconfig("-p", "after: ", 0);
	which_libcuda("after: ");
	return 0;
}
EOF2
"${CC:-cc}" -O2 -o "$tmp/probe" "$tmp/probe.c" || die "cannot build the probe"

# image NAME: a Debian-layout glibc image with its own ldconfig and cache, and the probe.
image() {
	local r=$tmp/img/$1
	make_debian_rootfs "$r" || die "rootfs $1"
	cp "$tmp/probe" "$r/usr/bin/probe"
	add_ldconfig "$r" || die "ldconfig in image $1"
	case $1 in
	compat)
		make_stub_lib "$r/usr/local/cuda/compat/libcuda.so.560.35.03" libcuda.so.1 cdikit_compat_libcuda ||
			die "compat library"
		ln -s libcuda.so.560.35.03 "$r/usr/local/cuda/compat/libcuda.so.1"
		;;
	fifo) rm -f "$r/etc/ld.so.cache" && mkfifo "$r/etc/ld.so.cache" ;;
	shadow) rm -f "$r/etc/ld.so.cache" && ln -s /etc/shadow "$r/etc/ld.so.cache" ;;
	escape)
		mkdir -p "$tmp/outside/lib"
		make_stub_lib "$tmp/outside/lib/libsecret.so.1.0" libsecret.so.1 cdikit_secret || die "secret"
		rm -rf "$r/usr/local/lib/x86_64-linux-gnu"
		mkdir -p "$r/usr/local/lib"
		ln -s "../../../../../../../../../..$tmp/outside/lib" "$r/usr/local/lib/x86_64-linux-gnu"
		ln -s "$lib" "$r/opt-host-driver"
		echo /opt-host-driver >"$r/etc/ld.so.conf.d/host.conf"
		;;
	esac
}

# expected NAME: `ldconfig -p` lines as NVIDIA's steps leave them, on a copy of the image.
expected() {
	local r=$tmp/standin/$1 d=usr/lib/x86_64-linux-gnu
	rm -rf "$r" && mkdir -p "$tmp/standin" && cp -a "$tmp/img/$1" "$r" || die "copy $1"
	mkdir -p "$r/$d/vdpau"
	cp "$lib/libcuda.so.$ver" "$lib/libnvidia-ml.so.$ver" "$r/$d/"
	cp "$lib/vdpau/libvdpau_nvidia.so.$ver" "$r/$d/vdpau/"
	ln -s libcuda.so.1 "$r/$d/libcuda.so"
	[ "$1" = compat ] && { mkdir -p "$r/etc/ld.so.conf.d"; echo /usr/local/cuda/compat >"$r/etc/ld.so.conf.d/00-compat-1.conf"; }
	ldcache_standin "$r" /lib/x86_64-linux-gnu /lib/x86_64-linux-gnu/vdpau 2>/dev/null ||
		die "the stand-in failed on $1"
	ldconfig -p -C "$r/etc/ld.so.cache" | sed -n 's/^\t/cache: /p'
}

fails=0
check() { # LABEL OUT WANT...
	local label=$1 out=$2 w
	shift 2
	for w in "$@"; do
		grep -qxF -- "$w" "$out" || { echo "FAIL: $label: want '$w'"; sed 's/^/    /' "$out" | grep -v '^    cache:'; fails=$((fails + 1)); }
	done
}
same_cache() { # LABEL OUT IMAGE
	if ! diff <(grep '^cache: ' "$2") <(expected "$3") >"$tmp/cache.diff"; then
		echo "FAIL: $1: ldconfig -p differs from the stand-in's (< hook, > ldconfig):"
		sed 's/^/    /' "$tmp/cache.diff"
		fails=$((fails + 1))
	fi
}

driver_lines=("first /lib/x86_64-linux-gnu/libcuda.so.1" "libcuda driver"
	"link /lib/x86_64-linux-gnu/libcuda.so.1 -> libcuda.so.$ver"
	"link /lib/x86_64-linux-gnu/libcuda.so -> libcuda.so.1"
	'profile {"profiles":[{"name":"_container_","settings":["EGLVisibleDGPUDevices",0x1]}],"rules":[{"pattern":[],"profile":"_container_"}]}'
	"params ModifyDeviceFiles: 0" "params-mount read-only" "ldconfig rc=0"
	"after: first /lib/x86_64-linux-gnu/libcuda.so.1" "after: libcuda driver")
compat_lines=("first /usr/local/cuda/compat/libcuda.so.1" "libcuda compat"
	"after: first /usr/local/cuda/compat/libcuda.so.1" "after: libcuda compat")

for i in plain compat fifo shadow escape; do image $i; done

# bundle RUNTIME IMAGE: a fresh copy of the image in a bundle the spec's devices went into.
bundle() {
	local b=$tmp/run/$1-$2
	mkdir -p "$b" && cp -a "$tmp/img/$2" "$b/rootfs" || die "copy $2"
	(cd "$b" && runc spec) || die "runc spec"
	jq '.process.terminal = false | .process.args = ["/usr/bin/probe"] | .root.readonly = false' \
		"$b/config.json" >"$b/c.json" && mv "$b/c.json" "$b/config.json" || die "jq"
	"$B/cdi-apply" --spec-dir "$tmp/cdi" --config "$b/config.json" nvidia.com/gpu=0 || die "cdi-apply"
	echo "$b"
}
run_in() { # RUNTIME IMAGE -> output file; non-zero when the start failed
	local b id=cdikit-e2e-cdihook-$1-$2-$$
	b=$(bundle "$1" "$2")
	ids+=("$id")
	timeout 120 "$1" --root "$tmp/state-$1" run --bundle "$b" "$id" >"$tmp/$1-$2.out" 2>&1 </dev/null
	local rc=$?
	"$1" --root "$tmp/state-$1" delete -f "$id" >/dev/null 2>&1
	return $rc
}

runtimes=(runc)
command -v crun >/dev/null 2>&1 && runtimes+=(crun) || echo "note: crun not installed"
for rt in "${runtimes[@]}"; do
	run_in "$rt" plain || { sed 's/^/    /' "$tmp/$rt-plain.out"; die "$rt: the container did not start"; }
	check "$rt plain" "$tmp/$rt-plain.out" "${driver_lines[@]}"
	same_cache "$rt plain" "$tmp/$rt-plain.out" plain
	run_in "$rt" compat || die "$rt compat: the container did not start"
	check "$rt compat" "$tmp/$rt-compat.out" "${compat_lines[@]}"
	same_cache "$rt compat" "$tmp/$rt-compat.out" compat
done

# Hostile images, under runc.
for i in fifo shadow escape; do
	run_in runc "$i" || { sed 's/^/    /' "$tmp/runc-$i.out"; die "hostile $i: the container did not start"; }
	check "hostile $i" "$tmp/runc-$i.out" "first /lib/x86_64-linux-gnu/libcuda.so.1" "libcuda driver"
	same_cache "hostile $i" "$tmp/runc-$i.out" "$i"
done
[ "$shadow_before" = "$(stat -c '%i %s %Y' /etc/shadow; sha256sum </etc/shadow)" ] ||
	die "the host's /etc/shadow changed"
grep -q 'secret\|EGL_nvidia' "$tmp/runc-escape.out" && die "escape: a library from outside the rootfs is listed"
[ "$(ls "$tmp/outside/lib")" = libsecret.so.1.0 ] || die "escape: something was written outside the rootfs"

# A read-only rootfs: the start fails, one line names the file, nothing changed.
# (the mount points made beforehand: runc cannot make them on a read-only filesystem)
b=$(bundle readonly plain)
mkdir -p "$b/rootfs/usr/lib/x86_64-linux-gnu/vdpau" &&
	touch "$b/rootfs/usr/lib/x86_64-linux-gnu/"{libcuda,libnvidia-ml}.so.$ver \
		"$b/rootfs/usr/lib/x86_64-linux-gnu/vdpau/libvdpau_nvidia.so.$ver" &&
	mv "$b/rootfs" "$b/rootfs.rw" && mkdir "$b/rootfs" && mount --bind -o ro "$b/rootfs.rw" "$b/rootfs" ||
	die "cannot make a read-only rootfs"
before=$(cd "$b/rootfs" && find . -printf '%p %y %s %T@\n' | sort | sha256sum)
ids+=("cdikit-e2e-cdihook-ro-$$")
if timeout 120 runc --root "$tmp/state-runc" run --bundle "$b" "cdikit-e2e-cdihook-ro-$$" >"$tmp/ro.out" 2>&1 </dev/null; then
	die "read-only rootfs: the container started"
fi
grep -q 'nvidia-cdi-hook: .*/lib/x86_64-linux-gnu/libcuda.so.*Read-only file system' "$tmp/ro.out" ||
	{ sed 's/^/    /' "$tmp/ro.out"; die "read-only rootfs: no line naming the file"; }
[ "$before" = "$(cd "$b/rootfs" && find . -printf '%p %y %s %T@\n' | sort | sha256sum)" ] ||
	die "read-only rootfs: the rootfs changed"
# crun makes a root.readonly rootfs read-only before the createContainer hooks (runc after
# them): the hooks fail there as on the read-only filesystem above.
if [ "${runtimes[*]}" != runc ]; then
	b=$(bundle crun-readonly plain)
	jq '.root.readonly = true' "$b/config.json" >"$b/c.json" && mv "$b/c.json" "$b/config.json" || die "jq"
	ids+=("cdikit-e2e-cdihook-cro-$$")
	if timeout 120 crun --root "$tmp/state-crun" run --bundle "$b" "cdikit-e2e-cdihook-cro-$$" >"$tmp/cro.out" 2>&1 </dev/null; then
		die "crun, root.readonly: the container started"
	fi
	grep -q 'error executing hook' "$tmp/cro.out" || { sed 's/^/    /' "$tmp/cro.out"; die "crun, root.readonly: not a hook's failure"; }
fi

# podman 4.3: it reads the spec from /etc/cdi itself and runs the hooks through its runtime.
podman_note=
if ! command -v podman >/dev/null 2>&1; then
	podman_note="podman not installed"
else
	mkdir -p "$tmp/hooks.d" "$tmp/libpod-tmp" "$tmp/etc-upper" "$tmp/etc-work"
	mount -t overlay cdikit-etc -o "lowerdir=/etc,upperdir=$tmp/etc-upper,workdir=$tmp/etc-work" /etc &&
		mkdir -p /etc/cdi && mount -t tmpfs -o mode=0755 cdikit-cdi /etc/cdi ||
		die "cannot give podman a private /etc/cdi"
	cp "$tmp/cdi/nvidia.yaml" /etc/cdi/
	for i in plain compat; do
		tar -C "$tmp/img/$i" -cf "$tmp/$i.tar" . &&
			"${P[@]}" import "$tmp/$i.tar" "localhost/cdikit-cdihook-$i:$$" >"$tmp/import.log" 2>&1 ||
			{ podman_note="podman import fails here: $(tail -n 1 "$tmp/import.log")"; break; }
	done
fi
# podman_runtime RT: RT, or (where this sandbox refuses the rlimits podman sets) a wrapper that
# drops process.rlimits from config.json and execs RT; podman still applies the spec.
podman_runtime() {
	local w=$tmp/podman-$1
	cat >"$w" <<EOF2
#!/bin/bash
b=
prev=
for a in "\$@"; do [ "\$prev" = --bundle ] && b=\$a; prev=\$a; done
if [ -n "\$b" ] && [ -f "\$b/config.json" ]; then
	jq 'del(.process.rlimits)' "\$b/config.json" >"\$b/config.json.new" && mv "\$b/config.json.new" "\$b/config.json"
fi
exec $(command -v "$1") "\$@"
EOF2
	chmod +x "$w"
	echo "$w"
}
if [ -z "$podman_note" ]; then
	for rt in "${runtimes[@]}"; do
		prt=$rt
		for i in plain compat; do
			if ! "${P[@]}" run --rm --network none --runtime "$prt" --device nvidia.com/gpu=0 \
				"localhost/cdikit-cdihook-$i:$$" /usr/bin/probe >"$tmp/podman-$rt-$i.out" 2>&1; then
				if [ "$prt" = "$rt" ] && grep -q rlimit "$tmp/podman-$rt-$i.out"; then
					prt=$(podman_runtime "$rt")
					"${P[@]}" run --rm --network none --runtime "$prt" --device nvidia.com/gpu=0 \
						"localhost/cdikit-cdihook-$i:$$" /usr/bin/probe >"$tmp/podman-$rt-$i.out" 2>&1 && continue
				fi
				sed 's/^/    /' "$tmp/podman-$rt-$i.out"
				die "podman --runtime $rt, $i: the container did not start"
			fi
		done
		check "podman $rt plain" "$tmp/podman-$rt-plain.out" "${driver_lines[@]}"
		same_cache "podman $rt plain" "$tmp/podman-$rt-plain.out" plain
		check "podman $rt compat" "$tmp/podman-$rt-compat.out" "${compat_lines[@]}"
	done
fi
[ -z "$podman_note" ] || echo "note: $podman_note"

[ "$fails" -eq 0 ] || die "$fails checks failed"
[ -n "$podman_note" ] || podman_note="and by podman $(podman --version | awk '{print $3}') over each"
echo "e2e-nvidia-cdi-hook: nvidia-ctk's hook lines run by ${runtimes[*]} ($podman_note):" \
	"the driver's libcuda first with the soname link ldconfig would make, the same ldconfig -p as" \
	"ldconfig -r, a newer compat libcuda chosen, the profile and the params mount; hostile images" \
	"(FIFO, link to /etc/shadow, links out of the rootfs) start with nothing outside touched; a" \
	"read-only rootfs fails naming the file"
