/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a linker cache records of a library file (internal): its soname and the flags ldconfig
 * files it under. The generator records them for the library directory; the bundle step reads
 * the libraries a config mounts.
 */
#ifndef CDIKIT_LIB_IDENT_H
#define CDIKIT_LIB_IDENT_H

#include <stdint.h>

#include "elf_read.h"

/* No osversion: glibc >= 2.36's ldconfig writes 0 (it no longer reads the ABI note), and older
 * loaders accept 0. */
struct lib_ident {
	char *soname; /* DT_SONAME, NULL when the library has none */
	int32_t flags;
};

/* Read the library open at fd (name for messages): 1 and *ret filled (ret->soname is the
 * caller's) for an ELF shared object of an ABI this machine's loader uses, else 0. */
int lib_ident(int fd, const char *name, struct lib_ident *ret);

/* The flags of a library read with ELF_READ_NEEDED (DT_NEEDED tells libc6 from plain ELF for
 * 32-bit x86), or -1 when it is no shared object of an ABI this machine's loader uses. */
int32_t lib_ident_flags(const struct elf_info *info);

#endif
