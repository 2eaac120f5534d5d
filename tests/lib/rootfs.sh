# Sourced by the end-to-end suites: minimal root filesystems built from this machine's glibc.

# make_debian_rootfs DIR: a Debian-layout glibc system (merged /usr, multiarch, the loader and
# libc, /etc/debian_version), no ld.so.cache and no ldconfig.
make_debian_rootfs() {
	local root=$1 multiarch l
	mkdir -p "$root"/usr/{bin,sbin,lib/x86_64-linux-gnu,lib64} "$root"/{etc,dev,proc,sys,tmp,run} || return 1
	ln -s usr/bin "$root/bin"
	ln -s usr/sbin "$root/sbin"
	ln -s usr/lib "$root/lib"
	ln -s usr/lib64 "$root/lib64"
	multiarch=$(dirname "$(readlink -f /lib64/ld-linux-x86-64.so.2)")
	for l in ld-linux-x86-64.so.2 libc.so.6; do
		cp -L "$multiarch/$l" "$root/usr/lib/x86_64-linux-gnu/$l" || return 1
	done
	ln -s ../lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 "$root/usr/lib64/ld-linux-x86-64.so.2"
	echo 12.0 >"$root/etc/debian_version"
}

# add_ldconfig DIR: the image's own ldconfig (Debian's is static) and linker configuration as
# Debian ships it, and its ld.so.cache.
add_ldconfig() {
	local root=$1
	cp /sbin/ldconfig "$root/usr/sbin/ldconfig" || return 1
	mkdir -p "$root/etc/ld.so.conf.d"
	echo 'include /etc/ld.so.conf.d/*.conf' >"$root/etc/ld.so.conf"
	printf '%s\n' /usr/local/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu \
		>"$root/etc/ld.so.conf.d/x86_64-linux-gnu.conf"
	ldconfig -r "$root"
}

# make_stub_lib FILE SONAME SYMBOL: a tiny x86-64 shared object exporting SYMBOL.
make_stub_lib() {
	local t
	t=$(mktemp -d) || return 1
	mkdir -p "$(dirname "$1")"
	printf '.text\n.globl %s\n%s: ret\n.section .note.GNU-stack,"",@progbits\n' "$3" "$3" >"$t/s.s" &&
		as --64 -o "$t/s.o" "$t/s.s" &&
		ld -m elf_x86_64 -shared -soname "$2" -z noexecstack -o "$1" "$t/s.o" "$(gcc -print-file-name=libc.so.6)"
	local rc=$?
	rm -rf "$t"
	return $rc
}

# dgx_spec DIR [cdi-generate option]...: the simulated DGX host in DIR/host and its spec from
# cdi-generate in DIR/cdi/nvidia.yaml (needs $B). Non-zero with a message on failure.
dgx_spec() {
	local dir=$1
	shift
	tests/simhost/make-host --topology dgx-mig --mock-dir "$B/tests/mock-nvml" --out "$dir/host" >/dev/null ||
		{ echo "make-host failed"; return 1; }
	mkdir -p "$dir/cdi"
	"$B/cdi-generate" --root "$dir/host" --output "$dir/cdi/nvidia.yaml" "$@" || { echo "cdi-generate failed"; return 1; }
}
