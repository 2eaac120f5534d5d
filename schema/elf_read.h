/* SPDX-License-Identifier: Apache-2.0 */
/* The few facts cdikit needs from an ELF shared object, read with bounds checks (internal). */
#ifndef CDIKIT_ELF_READ_H
#define CDIKIT_ELF_READ_H

#include <stddef.h>
#include <stdint.h>

#include <cdi/error.h>

/* Caps on what a file may make us read. */
#define ELF_MAX_HEADERS 4096  /* program or section headers */
#define ELF_MAX_DYNAMIC 65536 /* entries of the dynamic section */
#define ELF_MAX_STRING 4096   /* one soname / needed name */
#define ELF_MAX_NEEDED 1024

struct elf_info {
	unsigned char elf_class; /* ELFCLASS32 or ELFCLASS64 */
	unsigned char data;	 /* ELFDATA2LSB or ELFDATA2MSB */
	uint16_t type;		 /* ET_DYN, ET_EXEC, ... */
	uint16_t machine;	 /* EM_X86_64, EM_386, EM_AARCH64, ... */
	int has_dynamic;	 /* a dynamic section was found */
	char *soname;		 /* DT_SONAME, NULL when absent */
	char **needed;		 /* DT_NEEDED names, in file order */
	size_t n_needed;
};

/* flags: DT_NEEDED names are read only when asked for (each is a read). */
#define ELF_READ_NEEDED 1u

/*
 * Read the header and the dynamic section (through PT_DYNAMIC and the
 * PT_LOAD that maps its string table, or else SHT_DYNAMIC and its sh_link
 * string table). Anything that points outside the file is an -EINVAL
 * problem naming path. Both byte orders are understood.
 */
int elf_read_fd(int fd, const char *path, unsigned flags, struct elf_info *ret,
		struct cdi_error *err);
int elf_read_file(const char *path, unsigned flags, struct elf_info *ret, struct cdi_error *err);

void elf_info_clear(struct elf_info *info);

/* Cap on the section name table read to find a section by name. */
#define ELF_MAX_SECTION_NAMES (1u << 20)

/* A section's bytes as the file holds them. */
struct elf_section {
	char *data; /* malloc'd */
	size_t len;
	uint64_t align; /* sh_addralign */
	int msb;	/* the file is big-endian (a note's header words are in the file's order) */
};

/*
 * Read the section named name (of type sh_type, or any when 0) of the ELF file open at fd, at
 * most max bytes: 1 with *ret filled (ret->data is the caller's), 0 when the file has no such
 * section, or -errno with a problem naming path (bounds as for elf_read_fd).
 */
int elf_read_section(int fd, const char *path, const char *name, uint32_t sh_type, size_t max,
		     struct elf_section *ret, struct cdi_error *err);

#endif
