/* SPDX-License-Identifier: Apache-2.0 */
/* The library ABIs of the machine cdikit is built for: the one architecture table (internal). */
#ifndef CDIKIT_ARCH_H
#define CDIKIT_ARCH_H

#include <stdint.h>

struct arch_abi {
	const char *name;      /* "x86-64", as ldconfig -p prints it */
	const char *multiarch; /* Debian multiarch triplet: "x86_64-linux-gnu" */
	const char *libdir;   /* the Fedora-style directory: "/usr/lib64" ("/usr/lib" for 32-bit) */
	unsigned cache_flags; /* ld.so.cache arch bits (flags & 0xff00): 0x0300 for x86-64 */
	unsigned char elf_class; /* ELFCLASS64 */
	uint16_t elf_machine;	 /* EM_X86_64 */
};

/* The native 64-bit ABI. */
extern const struct arch_abi arch_native;
/* Its 32-bit companion (i386 on x86-64), NULL where NVIDIA ships no 32-bit driver. */
extern const struct arch_abi *const arch_compat32;

/* The ABI (native or compat32) with these ld.so.cache arch bits, or NULL. */
const struct arch_abi *arch_by_cache_flags(unsigned flags);
/* The ABI (native or compat32) of an ELF class and machine, or NULL. */
const struct arch_abi *arch_by_elf(unsigned char elf_class, uint16_t machine);

#endif
