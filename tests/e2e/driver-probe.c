/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Run inside a container by tests/e2e/image-matrix.sh (64-bit, and built with -m32): which copy
 * of each driver library the dynamic linker really loads, by soname, as dlinfo() reports it; the
 * simulated driver's libraries export cdikit_sim_<name>, a CUDA stub cdikit_stub_libcuda.
 *
 *   driver-probe [--ldconfig] [--path FILE]... [--smi] [--icds] [--read FILE]...
 *
 * --ldconfig runs /usr/sbin/ldconfig first (an entrypoint that does); --path dlopens FILE (a
 * path, or a soname the linker looks up); --smi runs nvidia-smi found on PATH; --icds loads what
 * the glvnd EGL vendor file, the Vulkan ICD and the OpenCL ICD name, as their loaders do. One line
 * each: libcuda.so.1 driver|stub|other|none PATH
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* name loaded; which copy it is by sym (the simulated driver's) or the stub's; its path. */
static void probe(const char *label, const char *name, const char *sym)
{
	void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	struct link_map *map = NULL;
	const char *what;

	if (!h) {
		printf("%s none - (%s)\n", label, dlerror());
		return;
	}
	if (dlinfo(h, RTLD_DI_LINKMAP, &map) != 0 || !map)
		map = NULL;
	what = dlsym(h, sym) ? "driver" : dlsym(h, "cdikit_stub_libcuda") ? "stub" : "other";
	/* The 32-bit NVML of the simulated driver is no mock: it has its own mark. */
	if (!strcmp(what, "other") && !strcmp(sym, "nvmlInit_v2") &&
	    dlsym(h, "cdikit_sim_libnvidia_ml"))
		what = "driver";
	printf("%s %s %s\n", label, what, map && map->l_name[0] ? map->l_name : "?");
}

/* The mark of the simulated driver's library name or path ("libnvcuvid.so.1" →
 * cdikit_sim_libnvcuvid); the mock NVML's is its nvmlInit_v2. */
static const char *sim_symbol(const char *name, char *buf, size_t size)
{
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	size_t n = strcspn(base, ".");

	if (strncmp(base, "libnvidia-ml.", 13) == 0)
		return "nvmlInit_v2";
	snprintf(buf, size, "cdikit_sim_%.*s", (int)n, base);
	for (char *c = buf; *c; c++)
		if (*c == '-')
			*c = '_';
	return buf;
}

/* The library an ICD file names: the "library_path" of a JSON file, the line of an .icd. */
static int icd_library(const char *file, char *buf, size_t size)
{
	FILE *f = fopen(file, "r");
	char text[4096];
	size_t n;
	const char *p;

	if (!f)
		return -1;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	p = strstr(text, "\"library_path\"");
	if (p) {
		p = strchr(p + 14, '"');
		if (!p)
			return -1;
		n = strcspn(++p, "\"");
	} else {
		p = text;
		n = strcspn(p, "\r\n");
	}
	if (n == 0 || n >= size)
		return -1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return 0;
}

static void icd(const char *label, const char *file, const char *sym)
{
	char lib[4096];

	if (icd_library(file, lib, sizeof(lib)) < 0) {
		printf("%s none -\n", label);
		return;
	}
	probe(label, lib, sym);
}

/* Run argv and wait; its first output line, or "-". */
static void run(const char *label, char *const argv[], int quiet)
{
	int fds[2], status = 0;
	char line[256] = "-";
	pid_t pid;
	FILE *out;

	fflush(stdout);
	if (pipe(fds) < 0)
		return;
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[0]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	out = fdopen(fds[0], "r");
	if (out && fgets(line, sizeof(line), out))
		line[strcspn(line, "\n")] = '\0';
	while (out && fgetc(out) != EOF)
		;
	if (out)
		fclose(out);
	waitpid(pid, &status, 0);
	if (!quiet)
		printf("%s exit %d %s\n", label, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
		       line);
	else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		printf("%s failed: %s\n", label, line);
}

int main(int argc, char **argv)
{
	int smi = 0, icds = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--ldconfig") == 0) {
			char *ld[] = { "/usr/sbin/ldconfig", NULL };

			run("ldconfig", ld, 1);
		} else if (strcmp(argv[i], "--smi") == 0) {
			smi = 1;
		} else if (strcmp(argv[i], "--icds") == 0) {
			icds = 1;
		}
	}
	probe(sizeof(void *) == 4 ? "libcuda.so.1/32" : "libcuda.so.1", "libcuda.so.1",
	      "cdikit_sim_libcuda");
	probe(sizeof(void *) == 4 ? "libnvidia-ml.so.1/32" : "libnvidia-ml.so.1",
	      "libnvidia-ml.so.1", "nvmlInit_v2");
	for (int i = 1; i + 1 < argc; i++)
		if (strcmp(argv[i], "--path") == 0) {
			char sym[256];

			probe(argv[i + 1], argv[i + 1], sim_symbol(argv[i + 1], sym, sizeof(sym)));
		}
	if (smi) {
		char *cmd[] = { "nvidia-smi", NULL };

		run("nvidia-smi", cmd, 0);
	}
	for (int i = 1; i + 1 < argc; i++)
		if (strcmp(argv[i], "--read") == 0) {
			FILE *f = fopen(argv[i + 1], "r");
			char line[256] = "";

			if (f && fgets(line, sizeof(line), f))
				line[strcspn(line, "\n")] = '\0';
			printf("read %s %s\n", argv[i + 1], f ? line : "(missing)");
			if (f)
				fclose(f);
		}
	if (icds) {
		icd("egl-vendor", "/usr/share/glvnd/egl_vendor.d/10_nvidia.json",
		    "cdikit_sim_libEGL_nvidia");
		icd("vulkan-icd", "/etc/vulkan/icd.d/nvidia_icd.json", "cdikit_sim_libGLX_nvidia");
		icd("opencl-icd", "/etc/OpenCL/vendors/nvidia.icd", "cdikit_sim_libnvidia_opencl");
	}
	return 0;
}
