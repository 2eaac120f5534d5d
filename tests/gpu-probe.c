/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Run inside a container by the GPU end-to-end suites: reports which driver libraries load and
 * which device nodes exist, with their numbers (an argument env:NAME reports that variable's
 * value instead, byte for byte). With --wait first it then waits for a signal,
 * so a suite can exercise runc's start, state and kill on a live container.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static void lib(const char *name, const char *sym)
{
	void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		printf("dlopen %s failed\n", name);
		return;
	}
	printf("dlopen %s ok%s\n", name, sym && dlsym(h, sym) ? " sym" : "");
	dlclose(h);
}

static void node(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		printf("node %s missing\n", path);
	else
		printf("node %s %c %u:%u\n", path, S_ISCHR(st.st_mode) ? 'c' : '?',
		       major(st.st_rdev), minor(st.st_rdev));
}

int main(int argc, char **argv)
{
	int i = 1, wait = argc > 1 && strcmp(argv[1], "--wait") == 0;

	lib("libcuda.so.1", NULL);
	lib("libnvidia-ml.so.1", "nvmlInit_v2");
	for (i += wait; i < argc; i++) {
		if (strncmp(argv[i], "env:", 4) == 0) {
			const char *v = getenv(argv[i] + 4);

			printf("env %s%s%s\n", argv[i] + 4, v ? "=" : " unset", v ? v : "");
			continue;
		}
		node(argv[i]);
	}
	printf("probe done\n");
	fflush(stdout);
	if (wait)
		pause();
	return 0;
}
