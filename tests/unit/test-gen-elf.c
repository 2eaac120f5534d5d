/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ELF reader against real objects built here (cc and binutils, 64- and
 * 32-bit), and against the same objects truncated at every length and with
 * random bytes corrupted (run under ASan with make check SANITIZE=1).
 */
#include <criterion/criterion.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/testlib.h"
#include "host/elf.h"

static char tmp[] = "/tmp/cdikit-elf.XXXXXX";
static bool have_tmp;

static void setup(void)
{
	cr_assert(mkdtemp(tmp));
	have_tmp = true;
	/*
	 * lib64.so: cc-built, soname libsixty.so.4, needs libdep.so.1 and libc.so.6.
	 * lib32.so: as --32 + ld -m elf_i386, soname libthirty.so.2, needs libdep32.so.1.
	 * nosoname.so: ld -shared without -soname.
	 */
	sh("set -e; cd '%s'; "
	   "printf 'int dep(void){return 1;}\\n' > dep.c; cc -shared -fPIC -Wl,-soname,libdep.so.1 -o libdep.so dep.c; "
	   "printf '#include <stdio.h>\\nint dep(void); int f(void){puts(\"x\"); return dep();}\\n' > f.c; "
	   "cc -shared -fPIC -Wl,-soname,libsixty.so.4 -o lib64.so f.c -L. -ldep; "
	   "printf '.text\\n.globl g\\ng: ret\\n' > g.s; as --32 -o g32.o g.s; as --64 -o g64.o g.s; "
	   "ld -m elf_i386 -shared -soname libdep32.so.1 -o libdep32.so g32.o; "
	   "ld -m elf_i386 -shared -soname libthirty.so.2 -o lib32.so g32.o libdep32.so; "
	   "ld -m elf_x86_64 -shared -o nosoname.so g64.o",
	   tmp);
}

static void teardown(void)
{
	if (have_tmp)
		sh("rm -rf '%s'", tmp);
}

TestSuite(elf, .init = setup, .fini = teardown);

static char *path_of(const char *name)
{
	char *p;

	cr_assert(asprintf(&p, "%s/%s", tmp, name) >= 0);
	return p;
}

static char *slurp(const char *path, size_t *ret_size)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	cr_assert(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n);
	cr_assert(buf);
	cr_assert(fread(buf, 1, (size_t)n, f) == (size_t)n);
	fclose(f);
	*ret_size = (size_t)n;
	return buf;
}

/* The bytes as an anonymous file, for elf_read_fd. */
static int memfile(const char *data, size_t size)
{
	int fd = memfd_create("elf", MFD_CLOEXEC);

	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, data, size), (ssize_t)size);
	return fd;
}

static bool has_needed(const struct elf_info *info, const char *name)
{
	for (size_t i = 0; i < info->n_needed; i++)
		if (strcmp(info->needed[i], name) == 0)
			return true;
	return false;
}

Test(elf, sixty_four_bit)
{
	struct cdi_error err = { 0 };
	struct elf_info info;
	char *p = path_of("lib64.so");

	cr_assert_eq(elf_read_file(p, ELF_READ_NEEDED, &info, &err), 0, "%s",
		     cdi_error_message(&err));
	cr_assert_eq(info.elf_class, ELFCLASS64);
	cr_assert_eq(info.data, ELFDATA2LSB);
	cr_assert_eq(info.machine, EM_X86_64);
	cr_assert_eq(info.type, ET_DYN);
	cr_assert(info.has_dynamic);
	cr_assert_str_eq(info.soname, "libsixty.so.4");
	cr_assert(has_needed(&info, "libdep.so.1"));
	cr_assert(has_needed(&info, "libc.so.6"));
	elf_info_clear(&info);
	free(p);
}

Test(elf, thirty_two_bit)
{
	struct cdi_error err = { 0 };
	struct elf_info info;
	char *p = path_of("lib32.so");

	cr_assert_eq(elf_read_file(p, ELF_READ_NEEDED, &info, &err), 0, "%s",
		     cdi_error_message(&err));
	cr_assert_eq(info.elf_class, ELFCLASS32);
	cr_assert_eq(info.machine, EM_386);
	cr_assert_str_eq(info.soname, "libthirty.so.2");
	cr_assert_eq(info.n_needed, 1);
	cr_assert_str_eq(info.needed[0], "libdep32.so.1");
	elf_info_clear(&info);
	free(p);
}

/* Without ELF_READ_NEEDED the names are not read (nor their count kept). */
Test(elf, soname_only)
{
	struct cdi_error err = { 0 };
	struct elf_info info;
	char *p = path_of("lib64.so");

	cr_assert_eq(elf_read_file(p, 0, &info, &err), 0, "%s", cdi_error_message(&err));
	cr_assert_str_eq(info.soname, "libsixty.so.4");
	cr_assert_eq(info.n_needed, 0);
	cr_assert_eq(info.needed, NULL);
	elf_info_clear(&info);
	free(p);
}

Test(elf, no_soname)
{
	struct cdi_error err = { 0 };
	struct elf_info info;
	char *p = path_of("nosoname.so");

	cr_assert_eq(elf_read_file(p, ELF_READ_NEEDED, &info, &err), 0, "%s",
		     cdi_error_message(&err));
	cr_assert_eq(info.soname, NULL);
	cr_assert_eq(info.n_needed, 0);
	elf_info_clear(&info);
	free(p);
}

/* Without program headers the reader falls back to SHT_DYNAMIC and its sh_link string table. */
Test(elf, section_fallback)
{
	struct cdi_error err = { 0 };
	struct elf_info info;
	const char *names[] = { "lib64.so", "lib32.so" };

	for (size_t n = 0; n < 2; n++) {
		char *p = path_of(names[n]);
		size_t size;
		char *data = slurp(p, &size);
		uint16_t zero = 0;
		int fd;

		/* e_phnum: offset 56 in Elf64_Ehdr, 44 in Elf32_Ehdr */
		memcpy(data + (n == 0 ? offsetof(Elf64_Ehdr, e_phnum)
				      : offsetof(Elf32_Ehdr, e_phnum)),
		       &zero, 2);
		fd = memfile(data, size);
		cr_assert_eq(elf_read_fd(fd, names[n], ELF_READ_NEEDED, &info, &err), 0, "%s",
			     cdi_error_message(&err));
		cr_assert_str_eq(info.soname, n == 0 ? "libsixty.so.4" : "libthirty.so.2");
		cr_assert_geq(info.n_needed, 1);
		elf_info_clear(&info);
		close(fd);
		free(data);
		free(p);
	}
}

/*
 * Every truncation either fails with a message or, when what was cut is not
 * needed (the tail past the dynamic strings), gives exactly the full answer.
 */
static void truncate_everywhere(const char *name)
{
	struct cdi_error err = { 0 };
	struct elf_info full;
	char *p = path_of(name);
	size_t size, failed = 0;
	char *data = slurp(p, &size);

	cr_assert_eq(elf_read_file(p, ELF_READ_NEEDED, &full, &err), 0);
	for (size_t len = 0; len < size; len++) {
		struct elf_info info;
		int fd = memfile(data, len);

		if (elf_read_fd(fd, name, ELF_READ_NEEDED, &info, &err) == 0) {
			cr_assert_eq(info.elf_class, full.elf_class);
			cr_assert_eq(info.machine, full.machine);
			cr_assert_str_eq(info.soname ? info.soname : "",
					 full.soname ? full.soname : "", "truncated to %zu", len);
			cr_assert_eq(info.n_needed, full.n_needed);
			elf_info_clear(&info);
		} else {
			cr_assert_gt(cdi_error_count(&err), 0);
			cr_assert(strstr(cdi_error_message(&err), name));
			failed++;
		}
		cdi_error_reset(&err);
		close(fd);
	}
	cr_assert_gt(failed, 64); /* at least the header cuts */
	elf_info_clear(&full);
	free(data);
	free(p);
}

Test(elf, truncated_64)
{
	truncate_everywhere("lib64.so");
}

Test(elf, truncated_32)
{
	truncate_everywhere("lib32.so");
}

Test(elf, corrupt_bytes)
{
	const char *names[] = { "lib64.so", "lib32.so" };
	unsigned seed = 4242;

	for (size_t n = 0; n < 2; n++) {
		char *p = path_of(names[n]);
		size_t size;
		char *data = slurp(p, &size);
		char *copy = malloc(size);

		for (int iter = 0; iter < 3000; iter++) {
			struct cdi_error err = { 0 };
			struct elf_info info;
			int fd;

			memcpy(copy, data, size);
			for (int k = 0; k < 1 + iter % 4; k++) {
				/* the headers hold every offset: corrupt them most */
				size_t at = rand_r(&seed) % (iter % 3 ? 64 : size);

				copy[at] = (char)rand_r(&seed);
			}
			fd = memfile(copy, size);
			if (elf_read_fd(fd, names[n], ELF_READ_NEEDED, &info, &err) == 0)
				elf_info_clear(&info);
			else
				cr_assert_gt(cdi_error_count(&err), 0);
			cdi_error_reset(&err);
			close(fd);
		}
		free(copy);
		free(data);
		free(p);
	}
}

Test(elf, not_elf)
{
	struct cdi_error err = { 0 };
	struct elf_info info;
	char hdr[64] = { 0 };
	int fd;

	fd = memfile("#!/bin/sh\necho not a library\n", 29);
	cr_assert_eq(elf_read_fd(fd, "script", ELF_READ_NEEDED, &info, &err), -EINVAL);
	cr_assert(strstr(cdi_error_message(&err), "not an ELF file"));
	cdi_error_reset(&err);
	close(fd);

	memcpy(hdr, ELFMAG, SELFMAG);
	hdr[EI_CLASS] = 7;
	hdr[EI_DATA] = ELFDATA2LSB;
	fd = memfile(hdr, sizeof(hdr));
	cr_assert_eq(elf_read_fd(fd, "class7", ELF_READ_NEEDED, &info, &err), -EINVAL);
	cr_assert(strstr(cdi_error_message(&err), "class"));
	cdi_error_reset(&err);
	close(fd);

	cr_assert_lt(elf_read_file(tmp, ELF_READ_NEEDED, &info, &err), 0);
	cr_assert(strstr(cdi_error_message(&err), "not a regular file"));
	cdi_error_reset(&err);

	cr_assert_eq(elf_read_file("/nonexistent/lib.so", ELF_READ_NEEDED, &info, &err), -ENOENT);
	cdi_error_reset(&err);
}

/* Hostile counts and offsets in a valid file's headers. */
Test(elf, hostile_headers)
{
	char *p = path_of("lib64.so");
	size_t size;
	char *data = slurp(p, &size);
	struct {
		size_t off;
		uint64_t value;
		int width;
	} cases[] = {
		{ offsetof(Elf64_Ehdr, e_phoff), 0xfffffffffffffff0ull, 8 },
		{ offsetof(Elf64_Ehdr, e_phoff), (uint64_t)size - 8, 8 },
		{ offsetof(Elf64_Ehdr, e_phentsize), 4, 2 },
		{ offsetof(Elf64_Ehdr, e_phnum), 0xffff, 2 },
		/* entry size x count past the file: refused before any allocation */
		{ offsetof(Elf64_Ehdr, e_phentsize), 0xffff, 2 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cdi_error err = { 0 };
		struct elf_info info;
		char *copy = malloc(size);
		int fd;

		memcpy(copy, data, size);
		memcpy(copy + cases[i].off, &cases[i].value, (size_t)cases[i].width);
		fd = memfile(copy, size);
		cr_assert_lt(elf_read_fd(fd, "hostile", ELF_READ_NEEDED, &info, &err), 0,
			     "case %zu accepted", i);
		cr_assert(strstr(cdi_error_message(&err), "hostile"));
		cdi_error_reset(&err);
		close(fd);
		free(copy);
	}
	free(data);
	free(p);
}
