/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The driver's files a container needs, and where each goes so that no hook is needed
 * (docs/hookless.md): a discovery source.
 *
 * nvidia-ctk mounts each library at its host path and then, at container
 * start, runs a create-symlinks hook (SONAME → file, lib.so → SONAME,
 * libcuda.so, libGLX_indirect.so.0, ...) and an update-ldcache hook (ldconfig
 * in the container). Here every such name is a bind mount of the real
 * versioned file, placed in the directories the dynamic linkers search when
 * the image's ld.so.cache knows nothing about it:
 *
 *   64-bit: /usr/lib/<multiarch> (Debian/Ubuntu glibc), /usr/lib64 (Fedora,
 *           RHEL, SUSE glibc), /usr/lib (musl; Debian's glibc searches it too)
 *   32-bit: /usr/lib/<multiarch32> (Debian/Ubuntu multiarch)
 *
 * Limits (also in docs/hookless.md):
 * - An image whose ld.so.cache names its own copy of a soname (a CUDA stub or
 *   compat libcuda.so.1 registered in /etc/ld.so.conf.d) gets that copy: the
 *   cache is consulted before the system directories. When the cached path
 *   is one of ours (/usr/lib/x86_64-linux-gnu/libcuda.so.1), the mount covers it.
 * - An image whose /usr/lib64 (or /usr/lib/<multiarch>) is a symlink to
 *   /usr/lib gets two mounts on the same file: harmless, the last one wins
 *   and both are the same host file.
 * - 32-bit libraries are not placed where Fedora/Arch 32-bit glibc looks
 *   (/usr/lib, /usr/lib32): /usr/lib already holds the 64-bit names for musl.
 * - LD_LIBRARY_PATH and DT_RUNPATH in the image are searched first, by design.
 * - A mount point missing in the image is created by the runtime (runc
 *   creates the file and its parent directories), so each library shows up
 *   in directories an image may not have had (/usr/lib64 in Debian).
 * - Libraries that are loaded from a directory of their own rather than by
 *   the linker get their names there: vdpau/ (libvdpau), gbm/ (Mesa's GBM:
 *   nvidia-drm_gbm.so = libnvidia-allocator).
 * - The Xorg modules (nvidia_drv.so, libglxserver_nvidia.so.<ver> and its .so
 *   name) are mounted at their host paths under the display capability, for
 *   an X server in the container; its configuration is the image's.
 * - Not mounted: a $CUDA_MPS_PIPE_DIRECTORY other than /tmp/nvidia-mps (the
 *   environment at boot is not the users').
 * - A soname that is not the library's own name (libnvidia-foo.so.<ver>
 *   claiming libc.so.6) is not mounted: it would shadow the image's library.
 */

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "arch.h"
#include "dir_list.h"
#include "discover.h"
#include "host/host_file.h"
#include "lib_search.h"
#include "macro.h"
#include "problem.h"
#include "strv.h"

static int oom(struct discovery *d)
{
	return cdi_fail(d->err, -ENOMEM, "out of memory");
}

/* ---- libraries ---- */

/* Names nvidia-ctk's create-symlinks hook adds whether or not the host has them. */
static const struct {
	const char *prefix;
	const char *name;
} extra_names[] = {
	{ "libcuda.so", "libcuda.so" }, /* for -lcuda */
	{ "libnvidia-opticalflow.so",
	  "libnvidia-opticalflow.so" },			/* the optical flow SDK dlopens it */
	{ "libGLX_nvidia.so", "libGLX_indirect.so.0" }, /* GLVND's indirect-rendering vendor */
};

/*
 * The lib's names under dir + subdir ("/" or "/vdpau/"): soname, host links, extras. The soname
 * may be the file's own name (libnvidia-glcore.so.<ver>): it is still needed in the other
 * directories; in its own one the file's own place wins.
 */
static int lib_names_under(struct discovery *d, struct inv_file *f, const struct driver_lib *lib,
			   const char *dir, const char *subdir)
{
	int r = 0;

	if (lib->soname)
		r = inv_file_add_path(f, dir, subdir, lib->soname, d->err);
	for (size_t i = 0; r >= 0 && i < lib->n_links; i++)
		r = inv_file_add_path(f, dir, subdir, lib->links[i], d->err);
	for (size_t i = 0; r >= 0 && i < ELEMENTSOF(extra_names); i++)
		if (strcmp(lib->ln->prefix, extra_names[i].prefix) == 0)
			r = inv_file_add_path(f, dir, subdir, extra_names[i].name, d->err);
	return r;
}

/* The directories the linkers search without a cache (docs/hookless.md). */
struct lib_dirs {
	char multiarch[64];   /* /usr/lib/x86_64-linux-gnu */
	char multiarch32[64]; /* /usr/lib/i386-linux-gnu */
};

/* One library: its own path first, then its names where the linkers look. */
static int add_library(struct discovery *d, const struct lib_dirs *ld, const struct driver_lib *lib)
{
	const char *dirs64[] = { ld->multiarch, "/usr/lib64", "/usr/lib" };
	const char *slash = strrchr(lib->path, '/'), *subdir = "/";
	_cleanup_free_ char *host = NULL;
	struct inv_file *f;
	int r;

	if (asprintf(&host, "%s%s", d->host->driver_root, lib->path) < 0)
		return oom(d);
	r = inventory_add_file(d->inv, INV_LIBRARY, lib->ln->cap, lib->is32, host, lib->rank, &f,
			       d->err);
	if (r >= 0) {
		f->ldflags = lib->ldflags;
		if (lib->soname && !(f->soname = strdup(lib->soname)))
			return oom(d);
	}
	if (r >= 0)
		r = inv_file_add_path(f, lib->path, "", "", d->err);
	if (r < 0)
		return r;
	/* libvdpau looks for its drivers in <libdir>/vdpau, not on the linker's path. */
	if (slash && slash - lib->path >= 6 && strncmp(slash - 6, "/vdpau", 6) == 0)
		subdir = "/vdpau/";
	if (lib->is32)
		return lib_names_under(d, f, lib, ld->multiarch32, subdir);
	for (size_t i = 0; i < ELEMENTSOF(dirs64) && r >= 0; i++) {
		r = lib_names_under(d, f, lib, dirs64[i], subdir);
		/* Mesa's GBM loads <libdir>/gbm/<driver>_gbm.so; nvidia-ctk links the allocator
		 * there. */
		if (r >= 0 && strcmp(lib->ln->prefix, "libnvidia-allocator.so") == 0)
			r = inv_file_add_path(f, dirs64[i], "/gbm/nvidia-drm_gbm.so", "", d->err);
	}
	return r;
}

static int add_libraries(struct discovery *d)
{
	struct driver_libs libs = { 0 };
	struct lib_dirs ld = { "", "" };
	int r;

	snprintf(ld.multiarch, sizeof(ld.multiarch), "/usr/lib/%s", arch_native.multiarch);
	if (arch_compat32)
		snprintf(ld.multiarch32, sizeof(ld.multiarch32), "/usr/lib/%s",
			 arch_compat32->multiarch);
	r = driver_libs_find(&d->driver_fs, d->cache, d->inv->driver_version, &libs, d->err);
	for (size_t i = 0; r >= 0 && i < libs.n_libs; i++)
		r = add_library(d, &ld, &libs.libs[i]);
	driver_libs_clear(&libs);
	return r < 0 ? r : 0;
}

/* ---- binaries, firmware, IPC, configuration ---- */

/*
 * path resolved inside fs's root, when it exists with the file type want: the host path of
 * the real file in *ret_host. -ENOENT when it is not there (or of another type).
 */
static int find_under(struct discovery *d, struct root_fs *fs, const char *path, mode_t want,
		      char **ret_host)
{
	const struct stat *st;
	const char *real;
	int r;

	r = root_fs_file(fs, path, &real, &st);
	if (r == -ENOMEM)
		return oom(d);
	if (r < 0 || (st->st_mode & S_IFMT) != want)
		return -ENOENT;
	if (asprintf(ret_host, "%s%s", fs->root, real) < 0)
		return oom(d);
	return 0;
}

static int add_binaries(struct discovery *d)
{
	static const struct {
		const char *name;
		enum drv_cap cap;
	} bins[] = {
		/* nvidia-driver-layout.md §1.2; the IMEX tools are nvidia-ctk's and no
		 * capability's: they go with every selection. */
		{ "nvidia-smi", DRV_CAP_UTILITY },
		{ "nvidia-debugdump", DRV_CAP_UTILITY },
		{ "nvidia-persistenced", DRV_CAP_UTILITY },
		{ "nvidia-cuda-mps-control", DRV_CAP_COMPUTE },
		{ "nvidia-cuda-mps-server", DRV_CAP_COMPUTE },
		{ "nvidia-imex", DRV_CAP_UNKNOWN },
		{ "nvidia-imex-ctl", DRV_CAP_UNKNOWN },
	};
	/* The usual PATH, in its order: the first hit wins, as for a shell. */
	static const char *const dirs[] = {
		"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin",
	};

	for (size_t i = 0; i < ELEMENTSOF(bins); i++)
		for (size_t k = 0; k < ELEMENTSOF(dirs); k++) {
			_cleanup_free_ char *host = NULL;
			const struct stat *st;
			const char *real;
			struct inv_file *f;
			char path[PATH_MAX];
			int r;

			snprintf(path, sizeof(path), "%s/%s", dirs[k], bins[i].name);
			r = root_fs_file(&d->driver_fs, path, &real, &st);
			if (r == -ENOMEM)
				return oom(d);
			if (r < 0 || !S_ISREG(st->st_mode) || !(st->st_mode & 0111))
				continue;
			if (asprintf(&host, "%s%s", d->driver_fs.root, real) < 0)
				return oom(d);
			r = inventory_add_file(d->inv, INV_BINARY, bins[i].cap, false, host, 0, &f,
					       d->err);
			if (r >= 0)
				r = inv_file_add_path(f, "/usr/bin/", bins[i].name, "", d->err);
			if (r < 0)
				return r;
			break;
		}
	return 0;
}

/* Whether a file of this kind with this host file is there already (the same file twice). */
static bool have_host(const struct inventory *inv, enum inv_file_kind kind, const char *host)
{
	for (size_t i = 0; i < inv->n_files; i++)
		if (inv->files[i].kind == kind && strcmp(inv->files[i].host_path, host) == 0)
			return true;
	return false;
}

/* Whether a file of this kind goes to container path already. */
static bool have_path(const struct inventory *inv, enum inv_file_kind kind, const char *path)
{
	for (size_t i = 0; i < inv->n_files; i++)
		if (inv->files[i].kind == kind && inv->files[i].n_container_paths > 0 &&
		    strcmp(inv->files[i].container_paths[0], path) == 0)
			return true;
	return false;
}

static bool keep_pattern(const char *name, unsigned char d_type, void *pattern)
{
	(void)d_type;
	return name[0] != '.' && fnmatch(pattern, name, FNM_PERIOD) == 0;
}

/* Files matching pattern in dir (inside the driver root), each added at dest/<name> unless
 * a file of kind is there already; dest NULL: at its own path dir/<name>. */
static int add_matching(struct discovery *d, enum inv_file_kind kind, enum drv_cap cap,
			const char *dir, const char *pattern, const char *dest)
{
	_cleanup_strv_free_ char **names = NULL;
	size_t n = 0;
	int r;

	r = root_fs_list(&d->driver_fs, dir, keep_pattern, (void *)pattern, &names, &n, NULL);
	if (r == -ENOMEM)
		return oom(d);
	if (r < 0)
		return 0; /* not on this host, or unreadable: nothing of ours there */
	for (size_t i = 0; r >= 0 && i < n; i++) {
		_cleanup_free_ char *path = NULL, *to = NULL, *host = NULL;
		struct inv_file *f;

		if (asprintf(&path, "%s/%s", dir, names[i]) < 0 ||
		    asprintf(&to, "%s/%s", dest ? dest : dir, names[i]) < 0)
			return oom(d);
		r = find_under(d, &d->driver_fs, path, S_IFREG, &host);
		if (r == -ENOENT) {
			r = 0;
			continue;
		}
		/* /lib -> usr/lib (merged /usr): one file, at the first path it was found. */
		if (r < 0 || have_host(d->inv, kind, host) || have_path(d->inv, kind, to))
			continue;
		r = inventory_add_file(d->inv, kind, cap, false, host, 0, &f, d->err);
		if (r >= 0)
			r = inv_file_add_path(f, to, "", "", d->err);
	}
	return r < 0 ? r : 0;
}

#define FIRMWARE_CLASS_PATH "/sys/module/firmware_class/parameters/path"
#define KERNEL_RELEASE "/proc/sys/kernel/osrelease"

/*
 * A one-line host file (sysfs, /proc) without its newline into buf; "" when it is missing, too
 * long or not a plain line.
 */
static int read_line(struct discovery *d, const char *path, char *buf, size_t size)
{
	_cleanup_free_ char *text = NULL;
	struct cdi_error perr = { 0 };
	size_t len = 0;
	int r;

	buf[0] = '\0';
	r = host_file_read(d->host->root, path, 4096, HOST_FILE_OPTIONAL, &text, &len, &perr);
	cdi_error_reset(&perr);
	if (r == -ENOMEM)
		return oom(d);
	if (r < 0)
		return 0;
	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' '))
		text[--len] = '\0';
	if (len < size && strlen(text) == len && !strchr(text, '\n'))
		memcpy(buf, text, len + 1);
	return 0;
}

/*
 * GSP firmware where the kernel's firmware loader looks, in its order (nvidia-ctk's too): the
 * firmware_class.path parameter, then updates/<release>, updates/, <release>/ and the base of
 * /lib/firmware (and /usr/lib/firmware). Each file is mounted at its own path.
 */
static int add_firmware(struct discovery *d)
{
	static const char *const bases[] = { "/lib/firmware", "/usr/lib/firmware" };
	static const struct {
		const char *sub;
		bool per_release; /* followed by the kernel release */
	} subdirs[] = {
		{ "/updates/", true }, { "/updates", false }, { "/", true }, { "", false }
	};
	char custom[PATH_MAX], release[128], dir[PATH_MAX * 2];
	int r;

	r = read_line(d, FIRMWARE_CLASS_PATH, custom, sizeof(custom));
	if (r >= 0)
		r = read_line(d, KERNEL_RELEASE, release, sizeof(release));
	if (r < 0)
		return r;
	/* Only a clean absolute directory: the parameter is the host's, not ours to normalise. */
	if (custom[0] == '/' && !strstr(custom, "/..") && !strstr(custom, "/./")) {
		snprintf(dir, sizeof(dir), "%s/nvidia/%s", custom, d->inv->driver_version);
		r = add_matching(d, INV_FIRMWARE, DRV_CAP_UNKNOWN, dir, "gsp*.bin", NULL);
		if (r < 0)
			return r;
	}
	/* A release with a '/' would leave the firmware tree: not one the kernel would have. */
	if (strchr(release, '/'))
		release[0] = '\0';
	/* GSP firmware is the kernel module's: no capability, every selection gets it. */
	for (size_t i = 0; i < ELEMENTSOF(subdirs); i++)
		for (size_t b = 0; b < ELEMENTSOF(bases); b++) {
			bool per_release = subdirs[i].per_release;

			if (per_release && !*release)
				continue;
			snprintf(dir, sizeof(dir), "%s%s%s/nvidia/%s", bases[b], subdirs[i].sub,
				 per_release ? release : "", d->inv->driver_version);
			r = add_matching(d, INV_FIRMWARE, DRV_CAP_UNKNOWN, dir, "gsp*.bin", NULL);
			if (r < 0)
				return r;
		}
	return 0;
}

/*
 * The Xorg driver and GLX server module, where X servers look for modules (nvidia-ctk's list:
 * the modules dirs of /usr/lib and /usr/lib64 with their updates/, Debian's nvidia/xorg, X11R6),
 * each at its own path; the GLX module also under the .so name Xorg loads it by.
 */
static int add_xorg_modules(struct discovery *d)
{
	static const char *const moddirs[] = { "/usr/lib/xorg/modules", "/usr/lib64/xorg/modules",
					       "/usr/lib/xorg/modules/updates",
					       "/usr/lib64/xorg/modules/updates",
					       "/usr/X11R6/lib/modules" };
	char dir[PATH_MAX], glx[128];
	int r = 0;

	snprintf(glx, sizeof(glx), "libglxserver_nvidia.so.%s", d->inv->driver_version);
	for (size_t i = 0; r >= 0 && i <= ELEMENTSOF(moddirs); i++) {
		size_t before;

		if (i == ELEMENTSOF(moddirs))
			snprintf(dir, sizeof(dir), "/usr/lib/%s/nvidia/xorg",
				 arch_native.multiarch);
		else
			snprintf(dir, sizeof(dir), "%s/drivers", moddirs[i]);
		r = add_matching(d, INV_LIBRARY, DRV_CAP_DISPLAY, dir, "nvidia_drv.so", NULL);
		if (r >= 0 && i < ELEMENTSOF(moddirs))
			snprintf(dir, sizeof(dir), "%s/extensions", moddirs[i]);
		before = d->inv->n_files;
		if (r >= 0)
			r = add_matching(d, INV_LIBRARY, DRV_CAP_DISPLAY, dir, glx, NULL);
		if (r >= 0 && d->inv->n_files > before)
			r = inv_file_add_path(&d->inv->files[before], dir,
					      "/libglxserver_nvidia.so", "", d->err);
	}
	return r;
}

static int add_ipc(struct discovery *d)
{
	static const struct {
		const char *path;
		mode_t type;
		enum drv_cap cap;
	} ipcs[] = {
		{ "/run/nvidia-persistenced/socket", S_IFSOCK, DRV_CAP_UTILITY },
		{ "/var/run/nvidia-persistenced/socket", S_IFSOCK, DRV_CAP_UTILITY },
		{ "/run/nvidia-fabricmanager/socket", S_IFSOCK, DRV_CAP_UTILITY },
		{ "/var/run/nvidia-fabricmanager/socket", S_IFSOCK, DRV_CAP_UTILITY },
		{ "/tmp/nvidia-mps", S_IFDIR, DRV_CAP_COMPUTE },
	};
	struct root_fs *fss[] = { &d->host_fs, &d->driver_fs };
	/* The host's /run first; a driver container's own /run when the driver root differs. */
	size_t n_fs = strcmp(d->host->root, d->host->driver_root) ? 2 : 1;
	int r;

	if (d->no_ipc)
		return 0;
	for (size_t k = 0; k < n_fs; k++)
		for (size_t i = 0; i < ELEMENTSOF(ipcs); i++) {
			_cleanup_free_ char *host = NULL;
			struct inv_file *f;

			r = find_under(d, fss[k], ipcs[i].path, ipcs[i].type, &host);
			if (r == -ENOENT)
				continue;
			/* /var/run -> /run: the same socket once, at the /run path. */
			if (r < 0 || have_path(d->inv, INV_IPC, ipcs[i].path) ||
			    have_host(d->inv, INV_IPC, host))
				continue;
			r = inventory_add_file(d->inv, INV_IPC, ipcs[i].cap, false, host, 0, &f,
					       d->err);
			if (r >= 0)
				r = inv_file_add_path(f, ipcs[i].path, "", "", d->err);
			if (r < 0)
				return r;
		}
	return 0;
}

/*
 * Configuration files, searched in <driver_root>/etc and the XDG data dirs (/usr/local/share,
 * /usr/share) and mounted where nvidia-ctk mounts them. A glob is allowed in the last
 * component; the first base holding a name wins.
 */
static int add_configs(struct discovery *d)
{
	static const struct {
		const char *dir;
		const char *pattern;
		const char *dest; /* container directory the relative path goes under */
		bool at_root;	  /* also searched at the driver root itself */
		enum drv_cap cap;
	} configs[] = {
		{ "glvnd/egl_vendor.d", "10_nvidia.json", "/usr/share", false, DRV_CAP_GRAPHICS },
		{ "egl/egl_external_platform.d", "*nvidia*.json", "/usr/share", false,
		  DRV_CAP_GRAPHICS },
		{ "nvidia", "nvoptix.bin", "/usr/share", false, DRV_CAP_GRAPHICS },
		/* for an X server in the container: display */
		{ "X11/xorg.conf.d", "10-nvidia.conf", "/usr/share", false, DRV_CAP_DISPLAY },
		{ "X11/xorg.conf.d", "nvidia-drm-outputclass.conf", "/usr/share", false,
		  DRV_CAP_DISPLAY },
		{ "OpenCL/vendors", "nvidia.icd", "/etc", false, DRV_CAP_COMPUTE },
		{ "vulkan/icd.d", "nvidia_icd*.json", "/etc", true, DRV_CAP_GRAPHICS },
		{ "vulkan/icd.d", "nvidia_layers.json", "/etc", true, DRV_CAP_GRAPHICS },
		{ "vulkan/implicit_layer.d", "nvidia_layers.json", "/etc", true, DRV_CAP_GRAPHICS },
	};
	static const char *const bases[] = { "/etc", "/usr/local/share", "/usr/share", "" };
	char dir[PATH_MAX], dest[PATH_MAX];
	int r;

	for (size_t c = 0; c < ELEMENTSOF(configs); c++)
		for (size_t b = 0; b < ELEMENTSOF(bases); b++) {
			if (!*bases[b] && !configs[c].at_root)
				continue;
			snprintf(dir, sizeof(dir), "%s/%s", bases[b], configs[c].dir);
			snprintf(dest, sizeof(dest), "%s/%s", configs[c].dest, configs[c].dir);
			r = add_matching(d, INV_CONFIG, configs[c].cap, dir, configs[c].pattern,
					 dest);
			if (r < 0)
				return r;
		}
	return 0;
}

int discover_driver_files(struct discovery *d)
{
	int r;

	r = add_libraries(d);
	if (r >= 0)
		r = add_binaries(d);
	if (r >= 0)
		r = add_xorg_modules(d);
	if (r >= 0)
		r = add_firmware(d);
	if (r >= 0)
		r = add_ipc(d);
	if (r >= 0)
		r = add_configs(d);
	return r;
}
