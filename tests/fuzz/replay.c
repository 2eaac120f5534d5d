/* SPDX-License-Identifier: Apache-2.0 */
/*
 * main() for replaying a fuzz target without libFuzzer (make check builds it with the project's
 * compiler and flags, sanitizers included with SANITIZE=1):
 *
 *   replay-<target> FILE|DIR...
 *
 * Every file named, and every file in every directory named (in name order, no recursion), is
 * given to LLVMFuzzerTestOneInput once, in a buffer of exactly its size. A broken property
 * aborts; otherwise prints "replay-<target>: N inputs" and exits 0. Exit 1: unreadable input.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dir_list.h"
#include "fuzz.h"
#include "load.h"
#include "strv.h"

/* Inputs are seeds and crash reproducers, far below this. */
#define REPLAY_MAX_INPUT (64u << 20)

__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

static int replay_file(const char *path)
{
	_cleanup_free_ char *buf = NULL;
	char *exact;
	size_t len;
	int r;

	r = cdi_read_file(path, REPLAY_MAX_INPUT, &buf, &len);
	if (r < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(-r));
		return r;
	}
	exact = fuzz_memdup((const uint8_t *)buf, len);
	LLVMFuzzerTestOneInput((const uint8_t *)exact, len);
	free(exact);
	return 0;
}

static bool not_hidden(const char *name, unsigned char d_type, void *userdata)
{
	(void)d_type;
	(void)userdata;
	return name[0] != '.';
}

static int replay_dir(const char *dir, size_t *n)
{
	char **names = NULL;
	size_t count = 0;
	int r;

	r = dir_list_at(AT_FDCWD, dir, 0, not_hidden, NULL, &names, &count);
	if (r < 0) {
		fprintf(stderr, "%s: %s\n", dir, strerror(-r));
		return r;
	}
	for (size_t i = 0; i < count && r == 0; i++) {
		_cleanup_free_ char *path = NULL;
		struct stat st;

		if (asprintf(&path, "%s/%s", dir, names[i]) < 0) {
			path = NULL;
			r = -ENOMEM;
		} else if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			r = replay_file(path);
			(*n)++;
		}
	}
	strv_free(names);
	return r;
}

int main(int argc, char **argv)
{
	const char *prog = basename(argv[0]);
	size_t n = 0;

	if (argc < 2) {
		fprintf(stderr, "Usage: %s FILE|DIR...\n", prog);
		return 2;
	}
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct stat st;
		int r;

		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "%s: %s: %s\n", prog, argv[i], strerror(errno));
			return 1;
		}
		if (S_ISDIR(st.st_mode)) {
			r = replay_dir(argv[i], &n);
		} else {
			r = replay_file(argv[i]);
			n++;
		}
		if (r < 0)
			return 1;
	}
	printf("%s: %zu inputs\n", prog, n);
	return 0;
}
