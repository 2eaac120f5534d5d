# SPDX-License-Identifier: Apache-2.0
# Sourced by make-host: compiles the stand-in ELF objects a host needs into a cache directory
# (DIR/build/simhost-<hash> of --mock-dir) that make-host then copies from. Every library is a
# real shared object of a few hundred bytes: an exported function, an identifying string, the
# driver's SONAME, DT_NEEDED on libc.so.6 (so ldconfig files it as libc6) and on the libraries
# the real one needs. Needs: libs (the branch table), others_64, own_libs, stale, driver, cuda,
# legacy, platform, wsl_version.

# One assembly source per library: an exported function, an identifying string, and for
# libnvidia-tls the .note.ABI-tag with the TLS ABI 2.3.99 libnvidia-container checks.
gen_asm() { # file arch name soname version
	local f=$1 bits=$2 sym
	sym=cdikit_sim_$(tr -c 'a-zA-Z0-9\n' _ <<<"$3")
	{
		if [ "$3" = libnvidia-tls ]; then
			printf '\t.section .note.ABI-tag,"a",@note\n\t.p2align 2\n'
			printf '\t.long 4, 16, 1\n\t.asciz "GNU"\n\t.long 0, 2, 3, 99\n'
		fi
		printf '\t.text\n\t.globl %s\n\t.type %s, @function\n%s:\n\txorl %%eax, %%eax\n\tret\n' \
			"$sym" "$sym" "$sym"
		if [ "$3" = libcuda ]; then
			printf '\t.globl cuInit\n\t.type cuInit, @function\ncuInit:\n\txorl %%eax, %%eax\n\tret\n'
			printf '\t.globl cuDriverGetVersion\n\t.type cuDriverGetVersion, @function\n'
			if [ "$bits" = 64 ]; then
				printf 'cuDriverGetVersion:\n\tmovl $%s, (%%rdi)\n' "$cuda"
			else
				printf 'cuDriverGetVersion:\n\tmovl 4(%%esp), %%eax\n\tmovl $%s, (%%eax)\n' "$cuda"
			fi
			printf '\txorl %%eax, %%eax\n\tret\n'
		fi
		printf '\t.section .rodata\n\t.globl %s_version\n%s_version:\n' "$sym" "$sym"
		printf '\t.asciz "%s %s (cdikit simulated host)"\n' "$4" "$5"
		printf '\t.section .note.GNU-stack,"",@progbits\n'
	} >"$f"
}

# link_lib bits name soname version file [deps...]: soname "-" links an object without one
# (libnvidia-vulkan-producer ships so); deps name libraries already linked into tmp/bits.
link_lib() {
	local bits=$1 name=$2 soname=$3 ver=$4 file=$5 d
	local -a needed=() sonameopt=(-soname "$soname")
	shift 5
	[ "$soname" != - ] || sonameopt=()
	for d in "$@"; do needed+=("$tmp/$bits/$(ls "$tmp/$bits" | grep -m1 "^$d\.so\.")"); done
	gen_asm "$tmp/src/$name-$bits.s" "$bits" "$name" "$soname" "$ver"
	if [ "$bits" = 64 ]; then
		as --64 -o "$tmp/src/$name-$bits.o" "$tmp/src/$name-$bits.s"
		ld -m elf_x86_64 -shared "${sonameopt[@]}" --hash-style=gnu -z noexecstack \
			-o "$tmp/$bits/$file" "$tmp/src/$name-$bits.o" "${needed[@]}" "$libc64"
	else
		as --32 -o "$tmp/src/$name-$bits.o" "$tmp/src/$name-$bits.s"
		ld -m elf_i386 -shared "${sonameopt[@]}" --hash-style=both -z noexecstack \
			-o "$tmp/$bits/$file" "$tmp/src/$name-$bits.o" "${needed[@]}" "$tmp/src/libc32.so.6"
	fi
}

# The files of the WSL driver store and of /usr/lib/wsl/lib: file|soname|name (of gen_asm).
# libcuda.so.1.1 is the real CUDA library there (cuInit, cuDriverGetVersion).
wsl_objs='
libcuda.so.1.1|libcuda.so.1|libcuda
libcuda_loader.so|libcuda_loader.so|libcuda_loader
libcudadebugger.so.1|libcudadebugger.so.1|libcudadebugger
libnvidia-ml_loader.so|libnvidia-ml_loader.so|libnvidia-ml_loader
libnvidia-ptxjitcompiler.so.1|libnvidia-ptxjitcompiler.so.1|libnvidia-ptxjitcompiler
libnvdxgdmal.so.1|libnvdxgdmal.so.1|libnvdxgdmal
libnvwgf2umx.so|libnvwgf2umx.so|libnvwgf2umx
libnvdxdlkernels.so|libnvdxdlkernels.so|libnvdxdlkernels
libnvcuvid.so.1|libnvcuvid.so.1|libnvcuvid
libnvidia-encode.so.1|libnvidia-encode.so.1|libnvidia-encode
libnvidia-opticalflow.so.1|libnvidia-opticalflow.so.1|libnvidia-opticalflow
libnvoptix.so.1|libnvoptix.so.1|libnvoptix
libnvoptix_loader.so.1|libnvoptix.so.1|libnvoptix_loader
libdxcore.so|libdxcore.so|libdxcore
libd3d12.so|libd3d12.so|libd3d12
libd3d12core.so|libd3d12core.so|libd3d12core
'

build_cache() {
	[ ! -d "$cache" ] || return 0
	mkdir -p "$mock_dir/build"
	tmp=$(mktemp -d "$mock_dir/build/.tmp.XXXXXX")
	mkdir -p "$tmp/64" "$tmp/32" "$tmp/src"

	# A 32-bit libc.so.6 to link against, so the 32-bit libraries need libc.so.6 as
	# real ones do (ldconfig files them as libc6). Never installed in a host.
	printf '\t.text\n\t.globl __libc_stub\n__libc_stub:\n\tret\n\t.section .note.GNU-stack,"",@progbits\n' \
		>"$tmp/src/libc32.s"
	as --32 -o "$tmp/src/libc32.o" "$tmp/src/libc32.s"
	ld -m elf_i386 -shared -soname libc.so.6 -o "$tmp/src/libc32.so.6" "$tmp/src/libc32.o"
	libc64=$(gcc -print-file-name=libc.so.6)
	case $libc64 in /*) ;; *) libc64=/lib/x86_64-linux-gnu/libc.so.6 ;; esac

	local name dir soname devlink deps b32 file table=$libs
	[ "$platform" = native ] || table=
	while IFS='|' read -r name dir soname devlink deps b32; do
		[ -n "$name" ] || continue
		soname=${soname//VER/$driver}
		# shellcheck disable=SC2086
		link_lib 64 "$name" "$soname" "$driver" "$name.so.$driver" $deps
		[ -z "$b32" ] || link_lib 32 "$name" "$soname" "$driver" "$name.so.$driver" $deps
	done <<<"$table"
	while IFS='|' read -r file soname dir; do
		[ -n "$file" ] || continue
		link_lib 64 "${file%%.so*}" "$soname" "${file#*.so.}" "$file"
	done <<<"$others_64"
	# Stale copies an upgrade left behind (another version; must never be picked up).
	mkdir -p "$tmp/stale"
	if [ "$platform" = native ]; then build_native_extras; fi
	if [ "$platform" = wsl ]; then
		mkdir -p "$tmp/wsl"
		while IFS='|' read -r file soname name; do
			[ -n "$file" ] || continue
			link_lib 64 "$name" "$soname" "$wsl_version" "$file"
			mv "$tmp/64/$file" "$tmp/wsl/"
		done <<<"$wsl_objs"
	fi
	build_tool
	rm -rf "$tmp/src"
	# Another make-host may have won the race; either copy is the same.
	chmod 755 "$tmp"
	mv -T "$tmp" "$cache" 2>/dev/null || rm -rf "$tmp"
}

# What only a native driver installation has: stale copies, the Xorg modules, own-version libs.
build_native_extras() {
	local file soname dir
	link_lib 64 libcuda "libcuda.so.1" "$stale" "libcuda.so.$stale"
	link_lib 64 libnvidia-ptxjitcompiler "libnvidia-ptxjitcompiler.so.1" "$stale" \
		"libnvidia-ptxjitcompiler.so.$stale"
	link_lib 64 libnvidia-glcore "libnvidia-glcore.so.$stale" "$stale" "libnvidia-glcore.so.$stale"
	mv "$tmp/64/libcuda.so.$stale" "$tmp/64/libnvidia-ptxjitcompiler.so.$stale" \
		"$tmp/64/libnvidia-glcore.so.$stale" "$tmp/stale/"
	# Xorg modules: not in ld.so.conf; nvidia_drv.so has no soname.
	link_lib 64 libglxserver_nvidia "libglxserver_nvidia.so.$driver" "$driver" \
		"libglxserver_nvidia.so.$driver"
	as --64 -o "$tmp/src/drv.o" "$tmp/src/libnvidia-cfg-64.s"
	ld -m elf_x86_64 -shared -z noexecstack -o "$tmp/64/nvidia_drv.so" "$tmp/src/drv.o"
	# Libraries with versions of their own (EGL platforms, NvAPI), linked with their sonames.
	if ((!legacy)); then
		while IFS='|' read -r file soname dir; do
			[ -n "$file" ] || continue
			link_lib 64 "${file%%.so*}" "$soname" "${file#*.so.}" "$file"
		done <<<"$own_libs"
	fi
}

# The binaries: one static x86-64 program that says what it is and exits 0.
build_tool() {
	cat >"$tmp/src/tool.s" <<-'EOF'
		.text
		.globl _start
	_start:
		movl $1, %eax
		movl $1, %edi
		leaq msg(%rip), %rsi
		movl $len, %edx
		syscall
		movl $60, %eax
		xorl %edi, %edi
		syscall
		.section .rodata
	msg:
		.ascii "cdikit simulated NVIDIA driver tool\n"
		len = . - msg
		.section .note.GNU-stack,"",@progbits
	EOF
	as --64 -o "$tmp/src/tool.o" "$tmp/src/tool.s"
	ld -m elf_x86_64 -static -z noexecstack -o "$tmp/tool" "$tmp/src/tool.o"
}
