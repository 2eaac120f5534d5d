/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ELF reader (elf_read_fd) on any bytes, through a memfd as it reads real files (pread):
 * a refusal comes with a problem naming the file; an accepted file gives sane results: a class
 * and byte order ELF knows, a soname and needed names that are strings within the caps. The
 * same bytes through elf_read_section() (the CUDA compat note nvidia-cdi-hook reads) and the
 * note's parser: bounded, and a note found parses or is refused, never read past.
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cdi/error.h>

#include "host/elf.h"
#include "hook/hook_compat.h"
#include "fuzz.h"

static int memfd = -1;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	memfd = memfd_create("fuzz-elf", MFD_CLOEXEC);
	fuzz_assert(memfd >= 0, "memfd_create: %m");
	return 0;
}

static void check_name(const char *s, const char *what)
{
	fuzz_assert(s, "%s: NULL", what);
	fuzz_assert(strnlen(s, ELF_MAX_STRING + 1) <= ELF_MAX_STRING, "%s: longer than the cap",
		    what);
}

/* The compat note section of the file, and what its parser makes of it. */
static void compat_note(void)
{
	struct cdi_error err = { 0 };
	struct elf_section sec;
	struct compat_note note;
	int r;

	r = elf_read_section(memfd, "lib.so", COMPAT_NOTE_SECTION, SHT_NOTE, 4096, &sec, &err);
	fuzz_assert(
		r >= 0 || (cdi_error_count(&err) > 0 && strstr(cdi_error_message(&err), "lib.so")),
		"section refused (%d) without a problem naming the file", r);
	cdi_error_reset(&err);
	if (r <= 0)
		return;
	fuzz_assert(sec.len <= 4096, "a section of %zu bytes past the cap", sec.len);
	r = compat_note_parse(sec.data, sec.len, sec.msb, sec.align, &note);
	fuzz_assert(r == 0 || r == 1 || r == -EINVAL || r == -ENOMEM, "note parse %d", r);
	if (r == 1)
		compat_note_clear(&note);
	free(sec.data);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cdi_error err = { 0 };
	struct elf_info info;
	int r;

	fuzz_assert(ftruncate(memfd, 0) == 0 && pwrite(memfd, data, size, 0) == (ssize_t)size,
		    "memfd: %m");
	compat_note();
	memset(&info, 0xa5, sizeof(info)); /* no field may be read before it is set */
	r = elf_read_fd(memfd, "lib.so", ELF_READ_NEEDED, &info, &err);
	fuzz_assert(
		r == 0 || (cdi_error_count(&err) > 0 && strstr(cdi_error_message(&err), "lib.so")),
		"refused (%d) without a problem naming the file: %s", r, cdi_error_message(&err));
	cdi_error_reset(&err);
	if (r < 0)
		return 0;
	fuzz_assert(info.elf_class == ELFCLASS32 || info.elf_class == ELFCLASS64, "class %u",
		    info.elf_class);
	fuzz_assert(info.data == ELFDATA2LSB || info.data == ELFDATA2MSB, "byte order %u",
		    info.data);
	if (info.soname)
		check_name(info.soname, "soname");
	fuzz_assert(info.n_needed <= ELF_MAX_NEEDED, "%zu needed", info.n_needed);
	for (size_t i = 0; i < info.n_needed; i++)
		check_name(info.needed[i], "needed");
	elf_info_clear(&info);
	return 0;
}
