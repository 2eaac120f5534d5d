/* SPDX-License-Identifier: Apache-2.0 */
/* The base layer: growable arrays, string vectors, directory listing, FNV, UTF-8, the ABI table. */
#include <criterion/criterion.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch.h"
#include "array.h"
#include "dir_list.h"
#include "hash.h"
#include "strv.h"
#include "../lib/testlib.h"
#include "utf8.h"

Test(array, reserve_grows_geometrically_and_keeps_content)
{
	int *v = NULL;
	size_t cap = 0, reallocs = 0, last_cap = 0;

	for (int i = 0; i < 10000; i++) {
		cr_assert_eq(ARRAY_RESERVE(v, cap, (size_t)i + 1), 0);
		if (cap != last_cap)
			reallocs++, last_cap = cap;
		v[i] = i;
	}
	cr_assert_geq(cap, 10000);
	cr_assert_leq(reallocs, 12, "%zu reallocations for 10000 appends", reallocs);
	for (int i = 0; i < 10000; i++)
		cr_assert_eq(v[i], i);
	free(v);
}

Test(array, reserve_refuses_overflow_and_leaves_array_alone)
{
	char *v = NULL;
	size_t cap = 0;

	cr_assert_eq(ARRAY_RESERVE(v, cap, 4), 0);
	v[0] = 'x';
	cr_assert_eq(array_reserve(&v, &cap, SIZE_MAX, 16), -ENOMEM);
	cr_assert_eq(array_reserve(&v, &cap, SIZE_MAX / 2 + 2, 1), -ENOMEM);
	cr_assert_eq(cap, 8);
	cr_assert_eq(v[0], 'x');
	free(v);
}

Test(strv, builder_sort_contains_free)
{
	struct strv_builder b = { 0 };
	char **v;
	size_t n;

	cr_assert_eq(strv_builder_add(&b, "b"), 0);
	cr_assert_eq(strv_builder_addn(&b, "a-and-more", 1), 0);
	cr_assert_eq(strv_builder_take(&b, strdup("B")), 0);
	cr_assert_eq(b.v[b.n], NULL, "the vector stays NULL-terminated while it grows");
	v = strv_builder_steal(&b, &n);
	cr_assert_eq(b.v, NULL);
	cr_assert_eq(n, 3);
	cr_assert_eq(strv_length(v), 3);
	strv_sort(v, n);
	cr_assert_str_eq(v[0], "B"); /* bytewise: upper case first, as Go's sort.Strings */
	cr_assert_str_eq(v[1], "a");
	cr_assert_str_eq(v[2], "b");
	cr_assert(strv_contains(v, "a"));
	cr_assert_not(strv_contains(v, "c"));
	strv_free(v);
}

Test(strv, empty_builder_steals_an_empty_vector)
{
	struct strv_builder b = { 0 };
	size_t n = 7;
	char **v = strv_builder_steal(&b, &n);

	cr_assert_not_null(v);
	cr_assert_eq(v[0], NULL);
	cr_assert_eq(n, 0);
	strv_free(v);
	strv_free(NULL);
	cr_assert_eq(strv_length(NULL), 0);
}

static bool keep_yaml(const char *name, unsigned char d_type, void *userdata)
{
	size_t n = strlen(name);

	(void)d_type;
	++*(int *)userdata;
	return n > 5 && strcmp(name + n - 5, ".yaml") == 0;
}

Test(dir_list, filters_and_sorts)
{
	char dir[] = "/tmp/cdikit-dirlist-XXXXXX";
	char **names = NULL;
	size_t n = 0;
	int seen = 0, fd;

	cr_assert_not_null(mkdtemp(dir));
	sh("cd %s && touch z.yaml a.yaml b.json m.yaml && mkdir d.yaml", dir);
	cr_assert_eq(dir_list_at(AT_FDCWD, dir, 0, keep_yaml, &seen, &names, &n), 0);
	cr_assert_eq(seen, 5, "every entry but . and .. is offered to the filter");
	cr_assert_eq(n, 4);
	cr_assert_str_eq(names[0], "a.yaml");
	cr_assert_str_eq(names[1], "d.yaml");
	cr_assert_str_eq(names[2], "m.yaml");
	cr_assert_str_eq(names[3], "z.yaml");
	cr_assert_eq(names[4], NULL);
	strv_free(names);

	/* The fd is the caller's and is read from the top even if already read. */
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(dir_list_fd(fd, NULL, NULL, &names, &n), 0);
	cr_assert_eq(n, 5);
	strv_free(names);
	cr_assert_eq(dir_list_fd(fd, NULL, NULL, &names, &n), 0);
	cr_assert_eq(n, 5);
	strv_free(names);
	cr_assert_geq(fcntl(fd, F_GETFD), 0, "the caller's fd stays open");
	close(fd);

	sh("ln -s %s %s/link", dir, dir);
	cr_assert_eq(dir_list_at(AT_FDCWD, "link", O_NOFOLLOW, NULL, NULL, &names, &n), -ENOENT);
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	cr_assert_eq(dir_list_at(fd, "link", O_NOFOLLOW, NULL, NULL, &names, &n), -ENOTDIR);
	cr_assert_eq(dir_list_at(fd, "a.yaml", 0, NULL, NULL, &names, &n), -ENOTDIR);
	cr_assert_eq(dir_list_at(fd, "missing", 0, NULL, NULL, &names, &n), -ENOENT);
	close(fd);
	sh("rm -rf %s", dir);
}

Test(hash, fnv1a_reference_vectors)
{
	/* From the FNV reference (isthe.com/chongo/tech/comp/fnv). */
	cr_assert_eq(hash_fnv1a64("", 0), 0xcbf29ce484222325ull);
	cr_assert_eq(hash_fnv1a64("a", 1), 0xaf63dc4c8601ec8cull);
	cr_assert_eq(hash_fnv1a64("foobar", 6), 0x85944171f73967e8ull);
	cr_assert_neq(hash_fnv1a32("a", 1), hash_fnv1a32("b", 1));
}

Test(utf8, accepts_well_formed)
{
	static const char *const ok[] = {
		"",
		"plain ascii",
		"caf\xc3\xa9",
		"\xe2\x82\xac",
		"\xf0\x9f\x98\x80",
		"\xed\x9f\xbf" /* U+D7FF */,
		"\xee\x80\x80" /* U+E000 */,
		"\xf4\x8f\xbf\xbf" /* U+10FFFF */,
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(*ok); i++)
		cr_assert(utf8_valid(ok[i], strlen(ok[i])), "case %zu", i);
	cr_assert(utf8_valid("a\0b", 3), "NUL is valid UTF-8");
}

Test(utf8, rejects_malformed)
{
	static const char *const bad[] = {
		"\x80",
		"\xc0\xaf" /* overlong / */,
		"\xc1\xbf",
		"\xe0\x80\xaf",
		"\xed\xa0\x80" /* U+D800 */,
		"\xf4\x90\x80\x80" /* >U+10FFFF */,
		"\xf5\x80\x80\x80",
		"\xc3",
		"\xe2\x82",
		"ok\xff",
		"\xf0\x9f\x98",
		"\xc3\x28",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		cr_assert_not(utf8_valid(bad[i], strlen(bad[i])), "case %zu", i);
	/* A sequence cut by the length, not by a NUL. */
	cr_assert_not(utf8_valid("caf\xc3\xa9", 4));
}

/* One byte at a time, as utf8_valid() was before its ASCII steps: the reference below. */
static bool utf8_valid_bytewise(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;

	for (size_t i = 0; i < len;) {
		size_t n = p[i] < 0x80 ? 1 : utf8_decode(p + i, len - i, &cp);

		if (n == 0)
			return false;
		i += n;
	}
	return true;
}

/* The eight-byte ASCII steps against the reference: good and bad sequences at every offset. */
Test(utf8, ascii_steps_agree_with_bytewise)
{
	static const char *const pieces[] = {
		"a",	"path/", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
		"\x80", "\xc3",	 "\xff",     "\xed\xa0\x80", "0123456789abcdef"
	};
	unsigned seed = 12345;
	char buf[128];

	for (int round = 0; round < 200000; round++) {
		size_t len = 0, k = (seed = seed * 1103515245u + 12345u) >> 16 & 7;
		int bad_only_late = round & 1;

		for (size_t j = 0; j <= k; j++) {
			size_t pick = (seed = seed * 1103515245u + 12345u) >> 16;
			const char *piece =
				pieces[pick % (bad_only_late && j < k ? 5 : ELEMENTSOF(pieces))];
			size_t n = strlen(piece);

			if (len + n > sizeof(buf))
				break;
			memcpy(buf + len, piece, n);
			len += n;
		}
		cr_assert_eq(utf8_valid(buf, len), utf8_valid_bytewise(buf, len),
			     "round %d, %zu bytes", round, len);
	}
}

/* Every code point written and read back: the encoder and the decoder agree, in 1 to 4 bytes. */
Test(utf8, put_and_decode_round_trip)
{
	char buf[4];
	uint32_t cp;

	for (uint32_t c = 0; c <= 0x10ffff; c += c < 0x800 ? 1 : 97) {
		size_t n;

		if (c >= 0xd800 && c <= 0xdfff)
			continue;
		n = utf8_put(buf, c);
		cr_assert_eq(n,
			     c < 0x80	   ? 1u
			     : c < 0x800   ? 2u
			     : c < 0x10000 ? 3u
					   : 4u,
			     "U+%04X", c);
		cr_assert(utf8_valid(buf, n), "U+%04X", c);
		if (c >= 0x80) {
			cr_assert_eq(utf8_decode((const unsigned char *)buf, n, &cp), n, "U+%04X",
				     c);
			cr_assert_eq(cp, c);
		}
	}
	cr_assert_eq(utf8_decode((const unsigned char *)"\xed\xa0\x80", 3, &cp), 0, "a surrogate");
	cr_assert_eq(utf8_decode((const unsigned char *)"\xc3", 1, &cp), 0, "cut short");
}

Test(arch, native_and_compat32_are_consistent)
{
	cr_assert_eq(arch_by_cache_flags(arch_native.cache_flags | 0x3), &arch_native);
	cr_assert_eq(arch_by_elf(arch_native.elf_class, arch_native.elf_machine), &arch_native);
	cr_assert_eq(arch_native.elf_class, ELFCLASS64);
	cr_assert_eq(arch_by_elf(ELFCLASS64, EM_NONE), NULL);
	if (arch_compat32) {
		cr_assert_eq(arch_by_cache_flags(arch_compat32->cache_flags | 0x1), arch_compat32);
		cr_assert_eq(arch_compat32->elf_class, ELFCLASS32);
		cr_assert_str_neq(arch_compat32->multiarch, arch_native.multiarch);
	}
#if defined(__x86_64__)
	cr_assert_str_eq(arch_native.multiarch, "x86_64-linux-gnu");
	cr_assert_eq(arch_native.cache_flags, 0x0300);
	cr_assert_str_eq(arch_compat32->multiarch, "i386-linux-gnu");
#endif
}
