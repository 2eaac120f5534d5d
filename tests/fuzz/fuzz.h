/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the fuzz targets share. Each tests/fuzz/fuzz-<name>.c defines LLVMFuzzerTestOneInput
 * (and LLVMFuzzerInitialize when it needs set-up) and is linked twice: with libFuzzer by
 * clang for `make fuzz` (mk/fuzz.mk), and with replay.c by the project's compiler for
 * `make check`, which runs every seed of tests/fuzz/corpus/<name> through it once.
 */
#ifndef CDIKIT_FUZZ_H
#define CDIKIT_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "macro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* A broken property: print where and why, then abort() (a crash to libFuzzer and replay). */
_Noreturn void fuzz_fail(const char *file, int line, const char *fmt, ...) _printf_(3, 4);
#define fuzz_assert(cond, ...)                                                                     \
	do {                                                                                       \
		if (!(cond))                                                                       \
			fuzz_fail(__FILE__, __LINE__, __VA_ARGS__);                                \
	} while (0)

/* The input as a malloc'd string: size bytes and a NUL after them. Aborts on ENOMEM. */
char *fuzz_strndup(const uint8_t *data, size_t size);

/* The input in a buffer of exactly size bytes (ASan sees a read past the end). */
char *fuzz_memdup(const uint8_t *data, size_t size);

struct cdi_marks;

/*
 * a and b hold the same values, of the same types, with keys in the same order, all the way
 * down; with marks (either may be NULL), every node of a has the same mark in ma as its
 * counterpart of b in mb. False with the first difference in why ("$.devices[2].name: ...").
 */
bool fuzz_json_same(const json_t *a, const json_t *b, const struct cdi_marks *ma,
		    const struct cdi_marks *mb, char *why, size_t why_size);

/* The same, with object keys in any order and no marks (json_equal() that says where). */
bool fuzz_json_equal(const json_t *a, const json_t *b, char *why, size_t why_size);

#endif
