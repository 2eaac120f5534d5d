#!/usr/bin/env bash
# The Debian packages, built from a copy of this tree in a temporary directory (never in the
# checkout, never beside it) with dpkg-buildpackage -us -uc -b, offline, DEB_BUILD_OPTIONS=nocheck
# (the suite that runs this already ran the tests); then:
#   - lintian finds no error and no warning;
#   - the packages hold what make install installs, at Debian's paths (multiarch libdir, units
#     in /lib/systemd/system, the udev rule, /etc/cdikit as conffiles), the units enabled by
#     the maintainer scripts, the version is the Makefile's;
#   - apt would install cdikit_*.deb on this machine (a simulation: nothing is installed);
#   - unpacked with dpkg-deb -x into a temporary root, the installed tools run from there:
#     --version and --help, cdi-generate on a simulated host, cdi-apply of its GPU 0 into a
#     config.json, and the packaged list-devices.c example built with libcdi-dev's pkg-config
#     file and run on the packaged libcdi0.
# shellcheck source=lib/suite.sh
. "$(dirname "$0")/lib/suite.sh"

for c in dpkg-buildpackage dh lintian jq scdoc; do
	command -v "$c" >/dev/null 2>&1 || skip "$c not installed (dpkg-dev, debhelper, lintian, jq, scdoc)"
done
[ -e "$B/tests/mock-nvml/libnvidia-ml.so.1" ] || die "$B/tests/mock-nvml not built"
version=$(sed -n 's/^VERSION := //p' Makefile)
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
tmp=$(mktemp -d /tmp/cdikit-package.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
src=$tmp/src/cdikit

# The tree as it is (tracked and new files, not what .gitignore leaves out such as build/).
mkdir -p "$src"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -z -co --exclude-standard | tar --null -T - -cf - | tar -xf - -C "$src"
else
	tar --exclude=./build --exclude=./.git -cf - . | tar -xf - -C "$src"
fi || die "cannot copy the tree"
[ "$(cd "$src" && dpkg-parsechangelog -S Version)" = "$version" ] ||
	die "debian/changelog is not at the Makefile's version $version"

(cd "$src" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u SANITIZE -u BUILD DEB_BUILD_OPTIONS="nocheck parallel=2" \
	dpkg-buildpackage -us -uc -b) >"$tmp/build.log" 2>&1 ||
	die "dpkg-buildpackage: $(tail -n 15 "$tmp/build.log")"
debs=("$tmp/src"/*_"$version"_*.deb)
names=$(for d in "${debs[@]}"; do dpkg-deb -f "$d" Package; done | sort | tr '\n' ' ')
[ "$names" = "cdikit cdikit-dbgsym libcdi-dev libcdi0 libcdi0-dbgsym " ] || die "packages built: $names"
ok "dpkg-buildpackage -b: $names"

# Errors and warnings fail; what lintian says besides goes to the log.
lintian --fail-on error,warning --display-info "$tmp/src/cdikit_${version}"_*.changes >"$tmp/lintian.out" 2>&1 ||
	die "lintian: $(grep -v 'root privileges' "$tmp/lintian.out")"
ok "lintian: no error or warning ($(grep -c '^[IP]:' "$tmp/lintian.out") info tags)"

root=$tmp/root
for d in "${debs[@]}"; do dpkg-deb -x "$d" "$root" || die "dpkg-deb -x $d"; done
deb() { echo "$tmp/src/$1_${version}_$(dpkg-architecture -qDEB_HOST_ARCH).deb"; }
want=(/usr/bin/cdi-generate /usr/bin/cdi-apply /lib/systemd/system/cdikit-refresh.service
	/lib/systemd/system/cdikit-refresh.path /lib/systemd/system/cdikit-refresh-mig.path
	/lib/udev/rules.d/70-cdikit.rules /etc/cdikit/runtime.conf /etc/cdikit/refresh.env
	/usr/share/man/man8/cdi-generate.8.gz /usr/share/man/man1/cdi-apply.1.gz
	/usr/share/man/man3/libcdi.3.gz "/usr/lib/$ma/libcdi.so.$version" "/usr/lib/$ma/libcdi.a"
	"/usr/lib/$ma/pkgconfig/libcdi.pc" /usr/include/cdi/cdi.h
	/usr/share/doc/libcdi-dev/examples/list-devices.c /usr/libexec/cdikit/nvidia-cdi-hook
	/usr/libexec/cdikit/nvidia-container-runtime-hook /usr/share/man/man8/nvidia-cdi-hook.8.gz)
[ ! -e apply/cdi-runtime.c ] || want+=(/usr/bin/cdi-runtime /usr/share/man/man8/cdi-runtime.8.gz)
for f in "${want[@]}"; do
	[ -e "$root$f" ] || die "not packaged: $f"
done
grep -qx "ExecStart=.* /usr/bin/cdi-generate" "$root/lib/systemd/system/cdikit-refresh.service" ||
	die "the packaged unit does not run /usr/bin/cdi-generate"
grep -qx "libdir=/usr/lib/$ma" "$root/usr/lib/$ma/pkgconfig/libcdi.pc" || die "libcdi.pc libdir"
dpkg-deb -I "$(deb cdikit)" conffiles | sort | tr '\n' ' ' | grep -qx '/etc/cdikit/refresh.env /etc/cdikit/runtime.conf ' ||
	die "conffiles: $(dpkg-deb -I "$(deb cdikit)" conffiles)"
dpkg-deb -I "$(deb cdikit)" postinst | grep -q 'cdikit-refresh-mig.path' ||
	die "the postinst does not enable the units"
dpkg-deb -f "$(deb libcdi-dev)" Depends | grep -q "libcdi0 (= $version)" || die "libcdi-dev Depends"
! objdump -p "$root/usr/lib/$ma/libcdi.so.$version" | grep -q 'NEEDED.*libasan' || die "the packaged libcdi is an ASan build"
ok "contents at Debian's paths (multiarch $ma), conffiles, units enabled by postinst"

# What apt would do with the package here; no cache is written and nothing installed.
apt-get install -s -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= "$(deb cdikit)" >"$tmp/apt.out" 2>&1 ||
	die "apt install ./cdikit_*.deb: $(tail -n 5 "$tmp/apt.out")"
grep -q "^Inst cdikit (${version} \|^cdikit is already the newest" "$tmp/apt.out" ||
	die "apt would not install cdikit: $(tail -n 5 "$tmp/apt.out")"
ok "apt install ./$(basename "$(deb cdikit)") resolves (simulated)"

# The packaged tools, run from the unpacked root.
for p in cdi-generate cdi-apply; do
	"$root/usr/bin/$p" --version | grep -qF "$version" || die "$p --version"
	"$root/usr/bin/$p" --help | grep -q "^Usage: $p" || die "$p --help"
done
tests/simhost/make-host --topology dgx-mig --mock-dir "$B/tests/mock-nvml" --out "$tmp/host" >/dev/null ||
	die "make-host failed"
"$root/usr/bin/cdi-generate" --root "$tmp/host" --output "$tmp/cdi/nvidia.yaml" || die "packaged cdi-generate"
mkdir -p "$tmp/bundle" && cp examples/config.json "$tmp/bundle/"
"$root/usr/bin/cdi-apply" --spec-dir "$tmp/cdi" --config "$tmp/bundle/config.json" nvidia.com/gpu=0 ||
	die "packaged cdi-apply"
jq -e '[.linux.devices[].path] | index("/dev/nvidia0") != null' "$tmp/bundle/config.json" >/dev/null ||
	die "cdi-apply did not add /dev/nvidia0"
ok "packaged cdi-generate on a simulated DGX, cdi-apply of nvidia.com/gpu=0"

pc() { PKG_CONFIG_SYSROOT_DIR="$root" PKG_CONFIG_PATH="$root/usr/lib/$ma/pkgconfig" pkg-config "$@"; }
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror $(pc --cflags libcdi) -o "$tmp/list-devices" \
	"$root/usr/share/doc/libcdi-dev/examples/list-devices.c" $(pc --libs libcdi) ||
	die "cannot build the packaged example with libcdi-dev"
LD_LIBRARY_PATH="$root/usr/lib/$ma" "$tmp/list-devices" --spec-dir "$tmp/cdi" >"$tmp/list.out" ||
	die "list-devices failed"
grep -qxF "nvidia.com/gpu=2:0	$tmp/cdi/nvidia.yaml" "$tmp/list.out" || die "list-devices: $(cat "$tmp/list.out")"
ok "libcdi-dev's example lists $(wc -l <"$tmp/list.out") devices on libcdi0"
echo "PASS: package"
