#!/usr/bin/env bash
# make install / uninstall into a DESTDIR with PREFIX and LIBDIR, then use what was installed
# the way a consumer would: the headers alone (C and C++), pkg-config, a program linked
# against libcdi.so by its soname, the tools.
set -u
cd "$(dirname "$0")/.."
: "${B:=build}"

die() { echo "FAIL: $*"; exit 1; }
ok() { echo "ok: $*"; }

build=$B san=0 sanflags=""
if [ "${B%/san}" != "$B" ]; then
	build=${B%/san} san=1 sanflags="-fsanitize=address,undefined"
fi
tmp=$(mktemp -d /tmp/cdikit-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/dest
libdir=/usr/lib/x86_64-linux-gnu
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory BUILD="$build" SANITIZE="$san" "$@"; }

mk install DESTDIR="$dest" PREFIX=/usr LIBDIR="$libdir" >"$tmp/install.log" 2>&1 ||
	die "make install: $(tail -n 5 "$tmp/install.log")"
for f in /usr/bin/cdi-apply /usr/bin/cdi-generate /usr/include/cdi/cdi.h "$libdir/libcdi.a" \
	"$libdir/libcdi.so.0.1.0" "$libdir/pkgconfig/libcdi.pc"; do
	[ -f "$dest$f" ] || die "not installed: $f"
done
[ "$(readlink "$dest$libdir/libcdi.so.0")" = libcdi.so.0.1.0 ] || die "libcdi.so.0 link"
[ "$(readlink "$dest$libdir/libcdi.so")" = libcdi.so.0.1.0 ] || die "libcdi.so link"
objdump -p "$dest$libdir/libcdi.so.0.1.0" | grep -q 'SONAME *libcdi.so.0$' || die "soname"
! grep -rq "$dest" "$dest$libdir/pkgconfig/libcdi.pc" || die "DESTDIR baked into libcdi.pc"
ok "installed under DESTDIR with PREFIX=/usr LIBDIR=$libdir, soname libcdi.so.0"

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
	free(v), free(c), free(n);
	return 0;
}
EOF
pc() { PKG_CONFIG_SYSROOT_DIR="$dest" PKG_CONFIG_PATH="$dest$libdir/pkgconfig" pkg-config "$@"; }
# shellcheck disable=SC2046
cc -std=c11 -Wall -Werror $sanflags $(pc --cflags libcdi) -o "$tmp/use" "$tmp/use.c" $(pc --libs libcdi) ||
	die "cannot build a consumer with pkg-config"
LD_LIBRARY_PATH="$dest$libdir" "$tmp/use" >"$tmp/use.out" || die "consumer failed ($?)"
grep -qx 'vendor.com device dev1 0.3.0 1' "$tmp/use.out" &&
	grep -q '^bad.yaml' "$tmp/use.out" || die "consumer output: $(cat "$tmp/use.out")"
LD_LIBRARY_PATH="$dest$libdir" ldd "$tmp/use" | grep -q "libcdi.so.0 => $dest$libdir/libcdi.so.0" ||
	die "the consumer does not load libcdi.so.0"
ok "a pkg-config consumer links libcdi.so.0 and runs"

"$dest/usr/bin/cdi-apply" --version | grep -q '0.1.0' || die "installed cdi-apply"

mk uninstall DESTDIR="$dest" PREFIX=/usr LIBDIR="$libdir" >"$tmp/uninstall.log" 2>&1 ||
	die "make uninstall: $(tail -n 5 "$tmp/uninstall.log")"
left=$(find "$dest" -type f -o -type l)
[ -z "$left" ] || die "left after uninstall: $left"
ok "uninstall removes every file"
echo "PASS: install"
