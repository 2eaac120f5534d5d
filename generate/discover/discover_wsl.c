/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A WSL2 guest, a discovery source (nvidia-ctk's wsl mode): no NVIDIA kernel module, the GPU is
 * the DirectX kernel interface /dev/dxg, and the user-mode driver is the Windows driver store
 * that WSL mounts read-only at /usr/lib/wsl/drivers/<inf>_<arch>_<hash>/. The store is found
 * by its libcuda.so.1.1 (another vendor's store has none), not by asking libdxcore, so a
 * --root works. Its files are mounted where they are (CUDA's loader looks for them there),
 * and its libraries also by soname where a container's linker looks without a cache or WSL's
 * ld.wsl.conf: libcuda.so.1 loads by soname with no hook. The store's NVML tells the versions.
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "arch.h"
#include "discover.h"
#include "elf_read.h"
#include "host/host_file.h"
#include "macro.h"
#include "nvml.h"
#include "problem.h"
#include "strv.h"

#define WSL_DRIVERS "/usr/lib/wsl/drivers"
#define WSL_LIB "/usr/lib/wsl/lib"
#define WSL_STORE_MARK "libcuda.so.1.1"
#define WSL_MAX_STORES 16

int discovery_add_path(struct discovery *d, struct root_fs *fs, const char *path, mode_t type,
		       enum inv_file_kind kind, const char *container_path)
{
	_cleanup_free_ char *host = NULL;
	const struct stat *st;
	const char *real;
	struct inv_file *f;
	int r;

	r = root_fs_file(fs, path, &real, &st);
	if (r == -ENOMEM)
		return cdi_fail(d->err, r, "out of memory");
	if (r < 0)
		return -ENOENT;
	if (type ? (st->st_mode & S_IFMT) != type : !S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode))
		return -ENOENT;
	if (asprintf(&host, "%s%s", fs->root, real) < 0)
		return cdi_fail(d->err, -ENOMEM, "out of memory");
	r = inventory_add_file(d->inv, kind, DRV_CAP_UNKNOWN, false, host, 0, &f, d->err);
	return r < 0 ? r : inv_file_add_path(f, container_path, "", "", d->err);
}

static bool keep_dir(const char *name, unsigned char d_type, void *userdata)
{
	(void)userdata;
	return name[0] != '.' && (d_type == DT_DIR || d_type == DT_UNKNOWN);
}

/* What nvidia-ctk takes from a store: shared objects, CUDA's fat binaries, Windows modules the
 * loaders open by name, nvidia-smi. Not the .inf, .sys or .exe. */
static bool keep_store_file(const char *name, unsigned char d_type, void *userdata)
{
	static const char *const patterns[] = { "*.so", "*.so.*", "*.bin", "*.dll", "nvidia-smi" };

	(void)userdata;
	if (name[0] == '.' || (d_type != DT_REG && d_type != DT_UNKNOWN))
		return false;
	for (size_t i = 0; i < ELEMENTSOF(patterns); i++)
		if (fnmatch(patterns[i], name, 0) == 0)
			return true;
	return false;
}

/* Whether a file named name (any directory) is in the inventory already. */
static struct inv_file *have_name(const struct inventory *inv, const char *name)
{
	for (size_t i = 0; i < inv->n_files; i++) {
		const char *p = inv->files[i].container_paths[0], *base = strrchr(p, '/');

		if (strcmp(base ? base + 1 : p, name) == 0)
			return &inv->files[i];
	}
	return NULL;
}

/* The name a linker finds a library file by: its DT_SONAME, else its own name. */
static int soname_of(const char *host, const char *name, char **ret)
{
	struct elf_info info = { 0 };
	struct cdi_error ignored = { 0 };
	_cleanup_close_ int fd = -1;

	*ret = NULL;
	if (host_file_open(host, 0, &fd, &ignored) >= 0 &&
	    elf_read_fd(fd, host, 0, &info, &ignored) >= 0 && info.soname &&
	    !strchr(info.soname, '/') && strcmp(info.soname, "..") && strcmp(info.soname, "."))
		*ret = TAKE_PTR(info.soname);
	elf_info_clear(&info);
	cdi_error_reset(&ignored);
	if (!*ret)
		*ret = strdup(name);
	return *ret ? 0 : -ENOMEM;
}

/* A library also at its soname in the directories the linkers search without a cache: Debian's
 * multiarch directory and Fedora's /usr/lib64. */
static int add_soname_paths(struct discovery *d, struct inv_file *f, const char *name)
{
	_cleanup_free_ char *soname = NULL;
	char dir[96];
	int r;

	if (strncmp(name, "lib", 3) != 0 || !strstr(name, ".so"))
		return 0;
	r = soname_of(f->host_path, name, &soname);
	if (r < 0)
		return cdi_fail(d->err, r, "out of memory");
	snprintf(dir, sizeof(dir), "/usr/lib/%s/", arch_native.multiarch);
	r = inv_file_add_path(f, dir, soname, "", d->err);
	if (r >= 0)
		r = inv_file_add_path(f, "/usr/lib64/", soname, "", d->err);
	return r;
}

/* The driver's and CUDA's versions, and the GPUs, from the store's NVML (as nvidia-ctk's wsl
 * mode asks NVML): for the facts file. Without them the spec is still written. */
static int wsl_versions(struct discovery *d, const char *store)
{
	_cleanup_free_ char *lib = NULL;
	struct cdi_error nerr = { 0 };
	int r;

	d->inv->has_driver = true;
	if (asprintf(&lib, "%s%s/libnvidia-ml.so.1", d->driver_fs.root, store) < 0)
		return cdi_fail(d->err, -ENOMEM, "out of memory");
	r = nvml_enumerate(lib, d->inv, &nerr);
	if (r == -ENOMEM) {
		cdi_error_move(d->err, &nerr);
		return r;
	}
	if (r < 0)
		cdi_fail(d->warn, 0, "%s; the facts file records no driver version",
			 cdi_error_message(&nerr));
	cdi_error_reset(&nerr);
	return 0;
}

/* A store's files; a name an earlier store gave is not taken again (nvidia-ctk: the first). */
static int add_store(struct discovery *d, const char *store)
{
	_cleanup_strv_free_ char **names = NULL;
	size_t n = 0;
	int r;

	r = root_fs_list(&d->driver_fs, store, keep_store_file, NULL, &names, &n, NULL);
	if (r == -ENOMEM)
		return cdi_fail(d->err, r, "out of memory");
	for (size_t i = 0; r >= 0 && i < n; i++) {
		_cleanup_free_ char *path = NULL;
		bool smi = strcmp(names[i], "nvidia-smi") == 0;

		if (have_name(d->inv, names[i]))
			continue;
		if (asprintf(&path, "%s/%s", store, names[i]) < 0)
			return cdi_fail(d->err, -ENOMEM, "out of memory");
		r = discovery_add_path(d, &d->driver_fs, path, S_IFREG,
				       smi ? INV_BINARY : INV_LIBRARY, path);
		/* The store is used in place; nvidia-smi is also where a shell looks, each
		 * library where a linker does. */
		if (r >= 0 && smi)
			r = inv_file_add_path(&d->inv->files[d->inv->n_files - 1], "/usr/bin/",
					      names[i], "", d->err);
		else if (r >= 0)
			r = add_soname_paths(d, &d->inv->files[d->inv->n_files - 1], names[i]);
		if (r == -ENOENT)
			r = 0;
	}
	return r < 0 ? r : 0;
}

/* The NVIDIA stores: the directories of /usr/lib/wsl/drivers that hold libcuda.so.1.1. */
static int find_stores(struct discovery *d, struct strv_builder *stores)
{
	_cleanup_strv_free_ char **dirs = NULL;
	_cleanup_free_ char *given = host_path(d->host->driver_root, WSL_DRIVERS);
	size_t n = 0;
	int r;

	if (!given)
		return cdi_fail(d->err, -ENOMEM, "out of memory");
	r = root_fs_list(&d->driver_fs, WSL_DRIVERS, keep_dir, NULL, &dirs, &n, NULL);
	if (r == -ENOMEM)
		return cdi_fail(d->err, r, "out of memory");
	if (r < 0)
		return cdi_problem_add(d->err, -ENODEV, given, 0, 0, NULL,
				       "no Windows driver store: %s", strerror(-r));
	for (size_t i = 0; i < n && stores->n < WSL_MAX_STORES; i++) {
		char path[PATH_MAX];
		const struct stat *st;
		const char *real;

		snprintf(path, sizeof(path), "%s/%s/%s", WSL_DRIVERS, dirs[i], WSL_STORE_MARK);
		if (root_fs_file(&d->driver_fs, path, &real, &st) < 0 || !S_ISREG(st->st_mode))
			continue;
		*strrchr(path, '/') = '\0';
		if (strv_builder_add(stores, path) < 0)
			return cdi_fail(d->err, -ENOMEM, "out of memory");
	}
	if (stores->n == 0)
		return cdi_problem_add(d->err, -ENODEV, given, 0, 0, NULL,
				       "no NVIDIA driver store (a directory holding " WSL_STORE_MARK
				       ")");
	return 0;
}

/* What nvidia-ctk requires of a store (driver-wsl.go): said when missing, not fatal. */
static void check_required(struct discovery *d, const char *store)
{
	static const char *const required[] = {
		"libcuda.so.1.1",    "libcuda_loader.so",      "libnvidia-ptxjitcompiler.so.1",
		"libnvidia-ml.so.1", "libnvidia-ml_loader.so", "libdxcore.so",
		"libnvdxgdmal.so.1", "nvcubins.bin",	       "nvidia-smi",
	};

	for (size_t i = 0; i < ELEMENTSOF(required); i++)
		if (!have_name(d->inv, required[i]))
			cdi_problem_add(d->warn, 0, store, 0, 0, NULL,
					"no %s (CUDA on WSL needs it)", required[i]);
}

int discover_wsl(struct discovery *d)
{
	static const struct node_pattern dxg = { "/dev", "dxg", NULL, false };
	struct strv_builder stores = { 0 };
	size_t first = d->inv->n_nodes;
	int r;

	r = discover_pattern_nodes(d, &dxg, 1);
	if (r >= 0 && d->inv->n_nodes == first) {
		_cleanup_free_ char *dev = host_path(d->host->dev_root, "/dev/dxg");

		r = cdi_problem_add(d->err, -ENODEV, dev, 0, 0, NULL,
				    "missing: not a WSL2 guest with GPU support");
	}
	if (r >= 0)
		r = inventory_add_device(d->inv, "all", false, first, 1, d->err);
	if (r >= 0)
		r = find_stores(d, &stores);
	if (r >= 0 && stores.n > 1)
		cdi_fail(
			d->warn, 0,
			"%zu NVIDIA driver stores in %s%s: each file is taken from the first that has it",
			stores.n, d->host->driver_root, WSL_DRIVERS);
	for (size_t i = 0; r >= 0 && i < stores.n; i++)
		r = add_store(d, stores.v[i]);
	/* The DirectX core library is WSL's own, in lxss\lib, not the store. */
	if (r >= 0) {
		r = discovery_add_path(d, &d->driver_fs, WSL_LIB "/libdxcore.so", S_IFREG,
				       INV_LIBRARY, WSL_LIB "/libdxcore.so");
		if (r >= 0)
			r = add_soname_paths(d, &d->inv->files[d->inv->n_files - 1],
					     "libdxcore.so");
		if (r == -ENOENT)
			r = 0;
	}
	if (r >= 0)
		r = wsl_versions(d, stores.v[0]);
	if (r >= 0) {
		_cleanup_free_ char *store = host_path(d->host->driver_root, stores.v[0]);

		check_required(d, store ? store : stores.v[0]);
	}
	strv_builder_clear(&stores);
	return r;
}
