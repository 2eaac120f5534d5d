# Sourced by the suites that use an installed cdikit (install.sh, example.sh). Needs $B.
# Sets build (the build dir without /san), san (0/1), sanflags (for programs a test builds
# against an ASan libcdi), libdir (Debian's multiarch directory), version (the Makefile's);
# defines mk (make in the checkout, as the caller's $B was built), install_into and pc
# (pkg-config inside $dest).

build=$B san=0 sanflags=""
if [ "${B%/san}" != "$B" ]; then
	build=${B%/san} san=1 sanflags="-fsanitize=address,undefined"
fi
libdir=/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
version=$(sed -n 's/^VERSION := //p' Makefile)

mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory BUILD="$build" SANITIZE="$san" "$@"; }

# install_into DEST: make install with PREFIX=/usr and the multiarch LIBDIR, log in DEST.log.
install_into() {
	mk install DESTDIR="$1" PREFIX=/usr LIBDIR="$libdir" >"$1.log" 2>&1 ||
		die "make install: $(tail -n 5 "$1.log")"
}

pc() { PKG_CONFIG_SYSROOT_DIR="$dest" PKG_CONFIG_PATH="$dest$libdir/pkgconfig" pkg-config "$@"; }
