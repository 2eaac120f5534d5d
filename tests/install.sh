#!/usr/bin/env bash
# make install / uninstall into a DESTDIR with PREFIX and LIBDIR, then use what was installed
# the way a consumer would: the headers alone (C and C++), pkg-config, a program linked
# against libcdi.so by its soname, the tools; the man pages, units, udev rule and
# configuration files, which an administrator's edits survive.
# shellcheck source=lib/suite.sh
. "$(dirname "$0")/lib/suite.sh"

# shellcheck source=lib/install.sh
. tests/lib/install.sh
tmp=$(mktemp -d /tmp/cdikit-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/dest

install_into "$dest"
for f in /usr/bin/cdi-apply /usr/bin/cdi-generate /usr/include/cdi/cdi.h "$libdir/libcdi.a" \
	"$libdir/libcdi.so.0.1.0" "$libdir/pkgconfig/libcdi.pc"; do
	[ -f "$dest$f" ] || die "not installed: $f"
done
[ "$(readlink "$dest$libdir/libcdi.so.0")" = libcdi.so.0.1.0 ] || die "libcdi.so.0 link"
[ "$(readlink "$dest$libdir/libcdi.so")" = libcdi.so.0.1.0 ] || die "libcdi.so link"
objdump -p "$dest$libdir/libcdi.so.0.1.0" | grep -q 'SONAME *libcdi.so.0$' || die "soname"
! grep -rq "$dest" "$dest$libdir/pkgconfig/libcdi.pc" || die "DESTDIR baked into libcdi.pc"
ok "installed under DESTDIR with PREFIX=/usr LIBDIR=$libdir, soname libcdi.so.0"

# Another PREFIX, same build tree: the .pc file follows it (and back again).
mk install DESTDIR="$tmp/opt" PREFIX=/opt/cdikit >"$tmp/install2.log" 2>&1 ||
	die "make install PREFIX=/opt/cdikit: $(tail -n 5 "$tmp/install2.log")"
grep -qx 'prefix=/opt/cdikit' "$tmp/opt/opt/cdikit/lib/pkgconfig/libcdi.pc" ||
	die "libcdi.pc not rebuilt for PREFIX=/opt/cdikit: $(head -1 "$tmp/opt/opt/cdikit/lib/pkgconfig/libcdi.pc")"
mk install DESTDIR="$tmp/usr-again" PREFIX=/usr LIBDIR="$libdir" >/dev/null 2>&1 ||
	die "make install PREFIX=/usr again"
grep -qx 'prefix=/usr' "$tmp/usr-again$libdir/pkgconfig/libcdi.pc" || die "libcdi.pc kept /opt/cdikit"
rm -rf "$tmp/opt" "$tmp/usr-again"
ok "libcdi.pc is rebuilt when PREFIX changes"

# Only cdi_ symbols leave the shared library.
nm -D --defined-only "$dest$libdir/libcdi.so.0.1.0" | awk '$2 ~ /^[TDB]$/ { print $3 }' >"$tmp/syms"
[ -s "$tmp/syms" ] || die "no exported symbols"
! grep -v '^cdi_' "$tmp/syms" || die "symbols without the cdi_ prefix are exported"
ok "$(wc -l <"$tmp/syms") exported symbols, all cdi_*"

# Every public header compiles on its own, in C and in C++.
for h in "$dest"/usr/include/cdi/*.h; do
	printf '#include <cdi/%s>\n' "$(basename "$h")" >"$tmp/h.c"
	cc -std=c11 -Wall -Wextra -Werror -I"$dest/usr/include" -fsyntax-only "$tmp/h.c" ||
		die "$(basename "$h") is not self-contained (C)"
	if command -v g++ >/dev/null 2>&1; then
		g++ -Wall -Werror -I"$dest/usr/include" -fsyntax-only -x c++ "$tmp/h.c" ||
			die "$(basename "$h") does not compile as C++"
	fi
done
ok "public headers self-contained (C and C++)"

# A consumer through pkg-config, run against the installed library.
cat >"$tmp/use.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cdi/cdi.h>

int main(void)
{
	struct cdi_error err = { 0 };
	char *v = NULL, *c = NULL, *n = NULL;
	const char *spec = "cdiVersion: 0.3.0\nkind: vendor.com/device\ndevices:\n"
			   "- name: dev1\n  containerEdits:\n    env: [FOO=BAR]\n";
	cdi_spec *s = NULL;

	if (cdi_parse_qualified_name("vendor.com/device=dev1", &v, &c, &n, &err) < 0)
		return 1;
	if (cdi_spec_load_buffer("t.yaml", spec, strlen(spec), 0, &s, &err) < 0)
		return 2;
	printf("%s %s %s %s %zu\n", v, c, n, cdi_spec_version(s), cdi_spec_device_count(s));
	cdi_spec_free(s);
	if (cdi_spec_load_buffer("bad.yaml", "kind: x\n", 8, 0, &s, &err) == 0)
		return 3;
	printf("%s\n", cdi_error_message(&err));
	cdi_error_reset(&err);
	cdi_free(v), cdi_free(c), cdi_free(n);
	return 0;
}
EOF
# shellcheck disable=SC2046
cc -std=c11 -Wall -Werror $sanflags $(pc --cflags libcdi) -o "$tmp/use" "$tmp/use.c" $(pc --libs libcdi) ||
	die "cannot build a consumer with pkg-config"
LD_LIBRARY_PATH="$dest$libdir" "$tmp/use" >"$tmp/use.out" || die "consumer failed ($?)"
grep -qx 'vendor.com device dev1 0.3.0 1' "$tmp/use.out" &&
	grep -q '^bad.yaml' "$tmp/use.out" || die "consumer output: $(cat "$tmp/use.out")"
LD_LIBRARY_PATH="$dest$libdir" ldd "$tmp/use" | grep -q "libcdi.so.0 => $dest$libdir/libcdi.so.0" ||
	die "the consumer does not load libcdi.so.0"
ok "a pkg-config consumer links libcdi.so.0 and runs"

"$dest/usr/bin/cdi-apply" --version | grep -qF "$version" || die "installed cdi-apply"

# Man pages: one per program that is installed, and the library's; each renders cleanly.
man_pages=(man8/cdi-generate.8 man1/cdi-apply.1 man3/libcdi.3 man8/nvidia-cdi-hook.8)
[ ! -e "$dest/usr/bin/cdi-runtime" ] || man_pages+=(man8/cdi-runtime.8)
for m in "${man_pages[@]}"; do
	f=$dest/usr/share/man/$m
	[ -f "$f" ] || die "not installed: /usr/share/man/$m"
	if command -v man >/dev/null 2>&1; then
		w=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$f" 2>&1 >/dev/null) ||
			die "man $m fails"
		[ -z "$w" ] || die "man $m: $w"
	fi
	grep -q "^\\.TH \"[a-z-]*\" \"[138]\" \"[0-9-]*\" \"cdikit $version\"\$" "$f" || die "$m: no version in .TH"
done
ok "man pages: ${man_pages[*]}"

# Units and rule where systemd and udev look (their .pc files, else under the prefix), naming
# the installed programs and configuration, never the DESTDIR.
unitdir=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null)
presetdir=$(pkg-config --variable=systemdsystempresetdir systemd 2>/dev/null)
udevdir=$(pkg-config --variable=udevdir udev 2>/dev/null)
unitdir=${unitdir:-/usr/lib/systemd/system} presetdir=${presetdir:-/usr/lib/systemd/system-preset}
rulesdir=${udevdir:-/usr/lib/udev}/rules.d
for f in "$unitdir"/cdikit-refresh.service "$unitdir"/cdikit-refresh.path \
	"$unitdir"/cdikit-refresh-mig.path "$presetdir"/90-cdikit.preset "$rulesdir"/70-cdikit.rules; do
	[ -f "$dest$f" ] || die "not installed: $f"
done
grep -q "^ExecStart=.* /usr/bin/cdi-generate\$" "$dest$unitdir/cdikit-refresh.service" &&
	grep -qx "EnvironmentFile=-/etc/cdikit/refresh.env" "$dest$unitdir/cdikit-refresh.service" &&
	grep -qx "PathChanged=/usr/bin/cdi-generate" "$dest$unitdir/cdikit-refresh.path" ||
	die "the units do not name /usr/bin/cdi-generate and /etc/cdikit/refresh.env"
! grep -rq -e "$dest" -e '@[a-z]*@' "$dest$unitdir" || die "DESTDIR or a placeholder in the units"
ok "units in $unitdir, preset in $presetdir, udev rule in $rulesdir"

for h in nvidia-container-runtime-hook nvidia-cdi-hook; do
	[ -x "$dest/usr/libexec/cdikit/$h" ] || die "not installed: /usr/libexec/cdikit/$h"
	[ ! -e "$dest/usr/bin/$h" ] || die "$h installed in /usr/bin, where NVIDIA's package puts its own"
done
"$dest/usr/libexec/cdikit/nvidia-cdi-hook" --version | grep -qF "$version" || die "installed nvidia-cdi-hook"
ok "nvidia-container-runtime-hook and nvidia-cdi-hook in /usr/libexec/cdikit, not /usr/bin"

# The configuration: the commented defaults, then the administrator's, which neither a
# second install nor uninstall touches.
cmp -s deploy/config/runtime.conf "$dest/etc/cdikit/runtime.conf" &&
	cmp -s deploy/systemd/refresh.env "$dest/etc/cdikit/refresh.env" || die "configuration files"
! grep -v '^#' "$dest/etc/cdikit/runtime.conf" | grep -q . || die "runtime.conf sets something"
echo 'runtime = crun' >>"$dest/etc/cdikit/runtime.conf"
install_into "$dest"
grep -qx 'runtime = crun' "$dest/etc/cdikit/runtime.conf" || die "make install replaced a changed runtime.conf"

mk uninstall DESTDIR="$dest" PREFIX=/usr LIBDIR="$libdir" >"$tmp/uninstall.log" 2>&1 ||
	die "make uninstall: $(tail -n 5 "$tmp/uninstall.log")"
grep -qx 'runtime = crun' "$dest/etc/cdikit/runtime.conf" && grep -q 'keeping .*runtime.conf' "$tmp/uninstall.log" ||
	die "make uninstall removed a changed runtime.conf (or did not say it kept it)"
rm "$dest/etc/cdikit/runtime.conf"
ok "a changed runtime.conf survives install and uninstall"
left=$(find "$dest" -type f -o -type l)
[ -z "$left" ] || die "left after uninstall: $left"
ok "uninstall removes every file"
echo "PASS: install"
