/* SPDX-License-Identifier: Apache-2.0 */
#include <elf.h>
#include <stddef.h>

#include "arch.h"

/* ld.so.cache arch bits, as glibc's ldconfig writes them (sysdeps/generic/ldconfig.h). */
#define CACHE_I386 0x0000u
#define CACHE_X86_64 0x0300u
#define CACHE_PPC64 0x0500u
#define CACHE_AARCH64 0x0a00u

/* One ABI: ldconfig's name, the multiarch triplet, the Fedora-style library directory, the
 * ld.so.cache bits, the ELF class and machine. */
#define ABI(name_, multiarch_, libdir_, cache_, class_, machine_)                                  \
	{                                                                                          \
		.name = (name_), .multiarch = (multiarch_), .libdir = (libdir_),                   \
		.cache_flags = (cache_), .elf_class = (class_), .elf_machine = (machine_)          \
	}

#if defined(__x86_64__)
const struct arch_abi arch_native =
	ABI("x86-64", "x86_64-linux-gnu", "/usr/lib64", CACHE_X86_64, ELFCLASS64, EM_X86_64);
static const struct arch_abi abi_i386 =
	ABI("i386", "i386-linux-gnu", "/usr/lib", CACHE_I386, ELFCLASS32, EM_386);
const struct arch_abi *const arch_compat32 = &abi_i386;
#elif defined(__aarch64__)
const struct arch_abi arch_native =
	ABI("AArch64", "aarch64-linux-gnu", "/usr/lib64", CACHE_AARCH64, ELFCLASS64, EM_AARCH64);
const struct arch_abi *const arch_compat32 = NULL; /* NVIDIA ships no 32-bit Arm driver */
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
const struct arch_abi arch_native =
	ABI("ppc64le", "powerpc64le-linux-gnu", "/usr/lib64", CACHE_PPC64, ELFCLASS64, EM_PPC64);
const struct arch_abi *const arch_compat32 = NULL;
#else
#error "cdikit knows the NVIDIA driver's library ABIs of x86-64, aarch64 and ppc64le only"
#endif

const struct arch_abi *arch_by_cache_flags(unsigned flags)
{
	flags &= 0xff00u;
	if (flags == arch_native.cache_flags)
		return &arch_native;
	if (arch_compat32 && flags == arch_compat32->cache_flags)
		return arch_compat32;
	return NULL;
}

const struct arch_abi *arch_by_elf(unsigned char elf_class, uint16_t machine)
{
	if (elf_class == arch_native.elf_class && machine == arch_native.elf_machine)
		return &arch_native;
	if (arch_compat32 && elf_class == arch_compat32->elf_class &&
	    machine == arch_compat32->elf_machine)
		return arch_compat32;
	return NULL;
}
