/* SPDX-License-Identifier: Apache-2.0 */
#include <elf.h> /* ET_DYN */
#include <stdbool.h>
#include <string.h>

#include <cdi/error.h>

#include "ldcache.h"
#include "lib_ident.h"
#include "macro.h"

int32_t lib_ident_flags(const struct elf_info *info)
{
	bool libc6 = false;

	if (info->type != ET_DYN || !info->has_dynamic)
		return -1;
	for (size_t i = 0; i < info->n_needed; i++)
		libc6 = libc6 || strcmp(info->needed[i], "libc.so.6") == 0;
	return ldcache_flags_for_elf(info->elf_class, info->machine, libc6);
}

int lib_ident(int fd, const char *name, struct lib_ident *ret)
{
	struct elf_info info = { 0 };
	struct cdi_error ignored = { 0 };
	int32_t flags;
	int r = 0;

	/* Not an ELF file, or a broken one: not a library for the cache, as ldconfig skips it. */
	if (elf_read_fd(fd, name, ELF_READ_NEEDED, &info, &ignored) < 0) {
		cdi_error_reset(&ignored);
		return 0;
	}
	flags = lib_ident_flags(&info);
	if (flags >= 0) {
		*ret = (struct lib_ident){ .flags = flags };
		ret->soname = TAKE_PTR(info.soname);
		r = 1;
	}
	elf_info_clear(&info);
	return r;
}
