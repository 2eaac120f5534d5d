/* SPDX-License-Identifier: Apache-2.0 */
/*
 * enable-cuda-compat, v1.20's rules: the table of NVIDIA's cudacompat_test.go (a compat
 * libcuda 575.57.08 whose note says CUDA 12.9 and driver branches 535 to 575; older compat
 * packages without the note compare majors), the note read from a real ELF file, and the
 * drop-in that names the compat directory as the container resolves it.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hook/hook_compat.h"
#include "macro.h"
#include "../lib/testlib.h"

#define NOTE_JSON                                                                                  \
	"{\"Format\":1,\"CUDA Version\":\"12.9\",\"Driver\":[535,550,560,565,570,575],"            \
	"\"Device\":[1,2,7,8,9,10,11,12,13,14]}"

static struct compat_note note_1299(void)
{
	static unsigned long drivers[] = { 535, 550, 560, 565, 570, 575 };

	return (struct compat_note){
		.found = true, .cuda_version = (char *)"12.9", .drivers = drivers, .n_drivers = 6
	};
}

Test(hook_compat, with_the_note)
{
	struct compat_note n = note_1299();

	cr_assert(compat_use("575.57.08", NULL, "12.8", &n));
	cr_assert(!compat_use("575.57.08", NULL, "12.9", &n));
	cr_assert(!compat_use("575.57.08", NULL, "12.10", &n));
	cr_assert(!compat_use("575.57.08", "590.44.01", NULL, &n), "a branch the note lacks");
	cr_assert(compat_use("575.57.08", "570.211.01", NULL, &n));
	cr_assert(compat_use("575.57.08", "575.10.10", NULL, &n));
	cr_assert(!compat_use("575.57.08", "575.57.08", NULL, &n));
	cr_assert(!compat_use("575.57.08", "575.99.99", NULL, &n));
	cr_assert(!compat_use("575.57.08", NULL, NULL, &n));
}

Test(hook_compat, without_the_note)
{
	cr_assert(compat_use("333.88.99", "222.55.66", NULL, NULL));
	cr_assert(!compat_use("111.88.99", "222.55.66", NULL, NULL));
	cr_assert(compat_use("222.88.99", "99.55.66", NULL, NULL));
	cr_assert(!compat_use("560.35.03", "560.28.03", NULL, NULL), "majors only");
	cr_assert(!compat_use("575.57.08", NULL, "12.8", NULL), "a CUDA version needs the note");
}

static void put32(char *p, uint32_t v, bool msb)
{
	for (int i = 0; i < 4; i++)
		p[i] = (char)(msb ? v >> (24 - 8 * i) : v >> (8 * i));
}

/* A note as the section holds it: header, owner padded to align, then the JSON. */
static size_t make_note(char *buf, const char *owner, const char *desc, bool msb, size_t align)
{
	size_t namesz = strlen(owner) + 1, off = 12 + ((namesz + align - 1) & ~(align - 1));

	memset(buf, 0, 1024);
	put32(buf, (uint32_t)namesz, msb);
	put32(buf + 4, (uint32_t)strlen(desc) + 1, msb);
	put32(buf + 8, 1, msb);
	memcpy(buf + 12, owner, namesz);
	memcpy(buf + off, desc, strlen(desc) + 1);
	return off + strlen(desc) + 1;
}

Test(hook_compat, note_parse)
{
	struct compat_note n;
	char buf[1024];
	size_t len;

	len = make_note(buf, COMPAT_NOTE_OWNER, NOTE_JSON, false, 4);
	cr_assert_eq(compat_note_parse(buf, len, false, 4, &n), 1);
	cr_assert_str_eq(n.cuda_version, "12.9");
	cr_assert_eq(n.n_drivers, 6);
	cr_assert_eq(n.drivers[5], 575);
	compat_note_clear(&n);
	len = make_note(buf, COMPAT_NOTE_OWNER, NOTE_JSON, true, 8);
	cr_assert_eq(compat_note_parse(buf, len, true, 8, &n), 1, "big-endian, 8-aligned");
	compat_note_clear(&n);
	cr_assert_eq(compat_note_parse(buf, len, false, 8, &n), 0, "sizes read the wrong way");
	len = make_note(buf, "Someone Else", NOTE_JSON, false, 4);
	cr_assert_eq(compat_note_parse(buf, len, false, 4, &n), 0);
	len = make_note(buf, COMPAT_NOTE_OWNER, NOTE_JSON, false, 4);
	for (size_t cut = 0; cut < len; cut++)
		cr_assert_leq(compat_note_parse(buf, cut, false, 4, &n), 0, "truncated at %zu",
			      cut);
	cr_assert_eq(compat_note_parse(buf, len, false, 0, &n), 0, "no alignment");
	len = make_note(buf, COMPAT_NOTE_OWNER, "{\"Driver\":\"575\"}", false, 4);
	cr_assert_eq(compat_note_parse(buf, len, false, 4, &n), -EINVAL);
	len = make_note(buf, COMPAT_NOTE_OWNER, "not json", false, 4);
	cr_assert_eq(compat_note_parse(buf, len, false, 4, &n), -EINVAL);
}

static struct scratch tmp;
static char root[96];

static void setup(void)
{
	scratch_make(&tmp, "hook-compat");
	snprintf(root, sizeof(root), "%s/root", tmp.path);
	sh("mkdir -p '%s/etc'", root);
}

static void teardown(void)
{
	scratch_remove(&tmp);
}

/* A compat libcuda.so.VERSION at dir in the rootfs, with the note when json is given. */
static void compat_lib(const char *dir, const char *version, const char *json)
{
	sh("set -e; d='%s/%s'; mkdir -p \"$d\"; cd '%s'; "
	   "printf '.text\\n.globl f\\nf: ret\\n' > l.s; "
	   "if [ -n '%s' ]; then printf '.section .note.cuda.fwd_compatibility,\"a\",@note\\n.balign 4\\n"
	   ".long 19\\n.long 1f - 0f\\n.long 1\\n.asciz \"NVIDIA Corporation\"\\n.balign 4\\n"
	   "0: .asciz \"%%s\"\\n1: .balign 4\\n' '%s' >> l.s; fi; "
	   "as --64 -o l.o l.s; ld -shared -soname libcuda.so.1 -o \"$d/libcuda.so.%s\" l.o",
	   root, dir, tmp.path, json ? "y" : "", json ? json : "", version);
}

static int run(const char *driver, const char *cuda, struct cdi_error *err)
{
	struct hook_compat o = { .host_driver_version = driver, .host_cuda_version = cuda };
	struct cdi_error warnings = { 0 };
	_cleanup_close_ int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r;

	cr_assert(fd >= 0);
	r = hook_enable_cuda_compat(fd, &o, &warnings, err);
	cdi_error_reset(&warnings);
	return r;
}

#define JSON_ESC "{\\\"CUDA Version\\\":\\\"12.9\\\",\\\"Driver\\\":[535,550,560,565,570,575]}"

TestSuite(hook_compat_files, .init = setup, .fini = teardown, .timeout = 60);

Test(hook_compat_files, note_in_the_library)
{
	struct cdi_error err = { 0 };

	compat_lib("usr/local/cuda/compat", "575.57.08", JSON_ESC);
	sh("ln -s libcuda.so.575.57.08 '%s/usr/local/cuda/compat/libcuda.so.1'", root);
	cr_assert_eq(run("590.44.01", NULL, &err), 0);
	sh("test ! -e '%s/etc/ld.so.conf.d' || test -z \"$(ls '%s/etc/ld.so.conf.d')\"", root,
	   root);
	cr_assert_eq(run("575.10.10", NULL, &err), 0, "%s", cdi_error_message(&err));
	sh("test \"$(cat '%s'/etc/ld.so.conf.d/00-compat-*.conf)\" = /usr/local/cuda/compat", root);
	cr_assert_eq(run("575.10.10", NULL, &err), 0, "%s", cdi_error_message(&err));
	sh("test $(ls '%s/etc/ld.so.conf.d' | wc -l) = 1", root);
}

Test(hook_compat_files, cuda_version_only)
{
	struct cdi_error err = { 0 };

	compat_lib("usr/local/cuda/compat", "575.57.08", JSON_ESC);
	cr_assert_eq(run(NULL, "12.9", &err), 0);
	sh("test ! -e '%s/etc/ld.so.conf.d'", root);
	cr_assert_eq(run(NULL, "12.8", &err), 0);
	sh("ls '%s'/etc/ld.so.conf.d/00-compat-*.conf >/dev/null", root);
}

/* Older compat packages: no note, majors compared; the directory named as the container
 * resolves it (CUDA images link /usr/local/cuda through /etc/alternatives). */
Test(hook_compat_files, no_note_and_links)
{
	struct cdi_error err = { 0 };

	compat_lib("etc/alternatives/cuda-12/compat", "560.35.03", NULL);
	sh("mkdir -p '%s/usr/local' && ln -s /etc/alternatives/cuda-12 '%s/usr/local/cuda'", root,
	   root);
	cr_assert_eq(run("550.54.15", NULL, &err), 0, "%s", cdi_error_message(&err));
	sh("test \"$(cat '%s'/etc/ld.so.conf.d/00-compat-*.conf)\" = /etc/alternatives/cuda-12/compat",
	   root);
}

Test(hook_compat_files, nothing_to_choose)
{
	struct cdi_error err = { 0 };

	cr_assert_eq(run("550.54.15", NULL, &err), 0, "no compat directory");
	compat_lib("usr/local/cuda/compat", "560.35.03", NULL);
	compat_lib("usr/local/cuda/compat", "565.57.01", NULL);
	cr_assert_eq(run("550.54.15", NULL, &err), 0, "two compat libraries");
	cr_assert_eq(run(NULL, NULL, &err), 0, "no host version");
	sh("test ! -e '%s/etc/ld.so.conf.d'", root);
}

Test(hook_compat_files, compat_root_links_out)
{
	struct cdi_error err = { 0 };
	struct hook_compat o = { .host_driver_version = "550.54.15", .compat_root = "/compat" };
	struct cdi_error warnings = { 0 };
	_cleanup_close_ int fd = -1;

	/* A compat library outside the rootfs, reached through an absolute link: never read. */
	sh("mkdir -p '%s/outside' && ln -s '%s/outside' '%s/compat'", tmp.path, tmp.path, root);
	compat_lib("../outside", "560.35.03", NULL);
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_eq(hook_enable_cuda_compat(fd, &o, &warnings, &err), 0);
	sh("test ! -e '%s/etc/ld.so.conf.d'", root);
	cdi_error_reset(&warnings);
}
