/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The driver's files as CDI mounts that need no hook (docs/hookless.md).
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
 * - Not mounted: the Xorg modules (nvidia_drv.so, libglxserver_nvidia.so;
 *   a display server in a container is out of scope), the EGL application
 *   profile nvidia-ctk writes per container, and a $CUDA_MPS_PIPE_DIRECTORY
 *   other than /tmp/nvidia-mps (the environment at boot is not the users').
 * - A soname that is not the library's own name (libnvidia-foo.so.<ver>
 *   claiming libc.so.6) is not mounted: it would shadow the image's library.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "driver_files.h"
#include "driver_libs.h"
#include "macro.h"
#include "problem.h"

/* Priority classes: on a clash of containerPath the lower one wins (then the lower rank). */
enum {
	PRIO_FILE = 0, /* a file at its own path: libraries, binaries, firmware, configs, IPC */
	PRIO_FILE32 = 1,
	PRIO_NAME = 2, /* a 64-bit library under another name */
	PRIO_NAME32 = 3,
};

struct mount {
	char *container;
	char *host;
	unsigned prio;
	unsigned rank;
	bool ipc;
};

struct mounts {
	struct mount *v;
	size_t n, cap;
	struct cdi_error *err;
};

static void mounts_clear(struct mounts *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].container);
		free(m->v[i].host);
	}
	free(m->v);
}

/* JSON strings are UTF-8; a path that is not cannot be put in a spec (jansson would refuse it). */
static bool utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		unsigned n;
		uint32_t c;

		if (*p < 0x80) {
			p++;
			continue;
		}
		if ((*p & 0xe0) == 0xc0)
			n = 1, c = *p & 0x1f;
		else if ((*p & 0xf0) == 0xe0)
			n = 2, c = *p & 0x0f;
		else if ((*p & 0xf8) == 0xf0)
			n = 3, c = *p & 0x07;
		else
			return false;
		p++;
		for (unsigned i = 0; i < n; i++, p++) {
			if ((*p & 0xc0) != 0x80)
				return false;
			c = (c << 6) | (*p & 0x3f);
		}
		if ((n == 1 && c < 0x80) || (n == 2 && c < 0x800) || (n == 3 && c < 0x10000) ||
		    c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
			return false;
	}
	return true;
}

/* containerPath = a + b + c (any may be ""); host is copied. */
static int mount_add(struct mounts *m, const char *host, unsigned prio, unsigned rank, bool ipc,
		     const char *a, const char *b, const char *c)
{
	size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
	struct mount *x;
	char *container;

	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		struct mount *grown = realloc(m->v, cap * sizeof(*grown));

		if (!grown)
			return cdi_fail(m->err, -ENOMEM, "out of memory");
		m->v = grown;
		m->cap = cap;
	}
	container = malloc(la + lb + lc + 1);
	if (!container)
		return cdi_fail(m->err, -ENOMEM, "out of memory");
	memcpy(container, a, la);
	memcpy(container + la, b, lb);
	memcpy(container + la + lb, c, lc + 1);
	if (!utf8_valid(container) || !utf8_valid(host)) {
		free(container);
		return 0; /* not NVIDIA's: every name the driver installs is ASCII */
	}
	x = &m->v[m->n];
	*x = (struct mount){.container = container, .prio = prio, .rank = rank, .ipc = ipc};
	x->host = strdup(host);
	if (!x->host) {
		free(container);
		return cdi_fail(m->err, -ENOMEM, "out of memory");
	}
	m->n++;
	return 0;
}

/* ---- libraries ---- */

/* Names nvidia-ctk's create-symlinks hook adds whether or not the host has them. */
static const struct {
	const char *prefix;
	const char *name;
} extra_names[] = {
    {"libcuda.so", "libcuda.so"},			      /* for -lcuda */
    {"libnvidia-opticalflow.so", "libnvidia-opticalflow.so"}, /* the optical flow SDK dlopens it */
    {"libGLX_nvidia.so", "libGLX_indirect.so.0"}, /* GLVND's indirect-rendering vendor */
};

/*
 * The lib's names under dir + subdir ("/" or "/vdpau/"): soname, host links, extras; none twice.
 * The soname may be the file's own name (libnvidia-glcore.so.<ver>): it is
 * still needed in the other directories; in its own one the file's mount wins.
 */
static int lib_names_under(struct mounts *m, const struct driver_lib *lib, const char *host,
			   const char *dir, const char *subdir, unsigned prio)
{
	const char *names[64];
	size_t n = 0;
	int r;

	if (lib->soname)
		names[n++] = lib->soname;
	for (size_t i = 0; i < lib->n_links && n < ELEMENTSOF(names) - ELEMENTSOF(extra_names); i++)
		names[n++] = lib->links[i];
	for (size_t i = 0; i < ELEMENTSOF(extra_names); i++)
		if (strcmp(lib->prefix, extra_names[i].prefix) == 0)
			names[n++] = extra_names[i].name;

	for (size_t i = 0; i < n; i++) {
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = strcmp(names[i], names[j]) == 0;
		if (seen)
			continue;
		r = mount_add(m, host, prio, lib->rank, false, dir, subdir, names[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

static int add_libraries(struct mounts *m, struct root_dirs *rd, const char *version)
{
	const char *driver_root = rd->root;
	struct driver_libs libs = {0};
	char dir64[64];
	char dir32[64] = "";
	const char *dirs64[] = {dir64, "/usr/lib64", "/usr/lib"};
	int r;

	snprintf(dir64, sizeof(dir64), "/usr/lib/%s", lib_abi_64.multiarch);
	if (lib_abi_32)
		snprintf(dir32, sizeof(dir32), "/usr/lib/%s", lib_abi_32->multiarch);

	r = driver_libs_find_in(rd, version, &libs, m->err);
	if (r < 0)
		return r;

	for (size_t i = 0; i < libs.n_libs && r >= 0; i++) {
		const struct driver_lib *lib = &libs.libs[i];
		_cleanup_free_ char *host = NULL;
		const char *slash = strrchr(lib->path, '/');
		const char *subdir = "/";

		if (asprintf(&host, "%s%s", driver_root, lib->path) < 0) {
			r = cdi_fail(m->err, -ENOMEM, "out of memory");
			break;
		}
		r = mount_add(m, host, lib->is32 ? PRIO_FILE32 : PRIO_FILE, lib->rank, false,
			      lib->path, "", "");
		if (r < 0)
			break;
		/* libvdpau looks for its drivers in <libdir>/vdpau, not on the linker's path. */
		if (slash && slash - lib->path >= 6 && strncmp(slash - 6, "/vdpau", 6) == 0)
			subdir = "/vdpau/";
		if (lib->is32) {
			r = lib_names_under(m, lib, host, dir32, subdir, PRIO_NAME32);
			continue;
		}
		for (size_t d = 0; d < ELEMENTSOF(dirs64) && r >= 0; d++) {
			r = lib_names_under(m, lib, host, dirs64[d], subdir, PRIO_NAME);
			/* Mesa's GBM loads <libdir>/gbm/<driver>_gbm.so; nvidia-ctk links the
			 * allocator there. */
			if (r >= 0 && strcmp(lib->prefix, "libnvidia-allocator.so") == 0)
				r = mount_add(m, host, PRIO_NAME, lib->rank, false, dirs64[d],
					      "/gbm/nvidia-drm_gbm.so", "");
		}
	}
	driver_libs_clear(&libs);
	return r < 0 ? r : 0;
}

/* ---- binaries, firmware, IPC, configuration ---- */

/*
 * Resolve path inside the memo's root, its directory through the memo; host =
 * root + real path when it exists with the type want.
 */
static int find_under(struct root_dirs *rd, const char *path, mode_t want, char **ret_host)
{
	_cleanup_free_ char *real = NULL;
	const char *slash = strrchr(path, '/'), *real_dir;
	char dir[PATH_MAX];
	struct stat st;
	int r;

	if (!slash || (size_t)(slash - path) >= sizeof(dir))
		return -EINVAL;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	r = root_dirs_get(rd, dir[0] ? dir : "/", &real_dir);
	if (r < 0)
		return r;
	r = root_resolve_at(rd->root, real_dir, slash + 1, &real, &st);
	if (r < 0)
		return r;
	if ((st.st_mode & S_IFMT) != want)
		return -ENOENT;
	if (asprintf(ret_host, "%s%s", rd->root, real) < 0)
		return -ENOMEM;
	return 0;
}

static int add_binaries(struct mounts *m, struct root_dirs *rd)
{
	static const char *const names[] = {
	    "nvidia-smi",
	    "nvidia-debugdump",
	    "nvidia-persistenced",
	    "nvidia-cuda-mps-control",
	    "nvidia-cuda-mps-server",
	    "nvidia-imex",
	    "nvidia-imex-ctl",
	};
	/* The usual PATH, in its order: the first hit wins, as for a shell. */
	static const char *const dirs[] = {
	    "/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin",
	};
	int r;

	for (size_t i = 0; i < ELEMENTSOF(names); i++)
		for (size_t d = 0; d < ELEMENTSOF(dirs); d++) {
			_cleanup_free_ char *host = NULL, *path = NULL;
			struct stat st;

			if (asprintf(&path, "%s/%s", dirs[d], names[i]) < 0)
				return cdi_fail(m->err, -ENOMEM, "out of memory");
			r = find_under(rd, path, S_IFREG, &host);
			if (r == -ENOMEM)
				return cdi_fail(m->err, r, "out of memory");
			if (r < 0 || stat(host, &st) < 0 || !(st.st_mode & 0111))
				continue;
			r = mount_add(m, host, PRIO_FILE, 0, false, "/usr/bin/", names[i], "");
			if (r < 0)
				return r;
			break;
		}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names in <root><dir> matching pattern. */
static int list_matching(const char *root, const char *dir, const char *pattern, char ***ret,
			 size_t *ret_n)
{
	_cleanup_free_ char *full = NULL;
	_cleanup_closedir_ DIR *d = NULL;
	char **v = NULL;
	size_t n = 0;
	struct dirent *de;

	*ret = NULL;
	*ret_n = 0;
	if (asprintf(&full, "%s%s", root, dir) < 0)
		return -ENOMEM;
	d = opendir(full);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char **grown;

		if (de->d_name[0] == '.' || fnmatch(pattern, de->d_name, FNM_PERIOD) != 0)
			continue;
		grown = realloc(v, (n + 1) * sizeof(*v));
		if (!grown)
			goto oom;
		v = grown;
		v[n] = strdup(de->d_name);
		if (!v[n])
			goto oom;
		n++;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	*ret = v;
	*ret_n = n;
	return 0;
oom:
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
	return -ENOMEM;
}

static void strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Whether a mount with this host file is there already (the same file under another path). */
static bool have_host(const struct mounts *m, size_t from, const char *host)
{
	for (size_t i = from; i < m->n; i++)
		if (strcmp(m->v[i].host, host) == 0)
			return true;
	return false;
}

static int add_firmware(struct mounts *m, struct root_dirs *rd, const char *version)
{
	static const char *const bases[] = {"/lib/firmware/nvidia", "/usr/lib/firmware/nvidia"};
	size_t first = m->n;

	for (size_t b = 0; b < ELEMENTSOF(bases); b++) {
		_cleanup_free_ char *dir = NULL;
		const char *real_dir;
		char **names = NULL;
		size_t n = 0;
		int r;

		if (asprintf(&dir, "%s/%s", bases[b], version) < 0)
			return cdi_fail(m->err, -ENOMEM, "out of memory");
		r = root_dirs_get(rd, dir, &real_dir);
		if (r == -ENOMEM)
			return cdi_fail(m->err, r, "out of memory");
		if (r < 0)
			continue;
		r = list_matching(rd->root, real_dir, "gsp*.bin", &names, &n);
		if (r < 0)
			return cdi_fail(m->err, r, "out of memory");
		for (size_t i = 0; i < n && r >= 0; i++) {
			_cleanup_free_ char *path = NULL, *host = NULL;

			if (asprintf(&path, "%s/%s", dir, names[i]) < 0) {
				r = cdi_fail(m->err, -ENOMEM, "out of memory");
				break;
			}
			if (find_under(rd, path, S_IFREG, &host) < 0)
				continue;
			/* /lib → usr/lib (merged /usr): one file, mounted once, at the first path.
			 */
			if (have_host(m, first, host))
				continue;
			r = mount_add(m, host, PRIO_FILE, 0, false, path, "", "");
		}
		strv_free(names, n);
		if (r < 0)
			return r;
	}
	return 0;
}

static int add_ipc(struct mounts *m, struct root_dirs *host_rd, struct root_dirs *driver_rd)
{
	static const struct {
		const char *path;
		mode_t type;
	} ipcs[] = {
	    {"/run/nvidia-persistenced/socket", S_IFSOCK},
	    {"/var/run/nvidia-persistenced/socket", S_IFSOCK},
	    {"/run/nvidia-fabricmanager/socket", S_IFSOCK},
	    {"/var/run/nvidia-fabricmanager/socket", S_IFSOCK},
	    {"/tmp/nvidia-mps", S_IFDIR},
	};
	struct root_dirs *rds[] = {host_rd, driver_rd};
	size_t first = m->n;
	int r;

	/* The host's /run first; a driver container's own /run when the driver root differs. */
	for (size_t ri = 0; ri < ELEMENTSOF(rds); ri++) {
		if (!rds[ri])
			continue;
		for (size_t i = 0; i < ELEMENTSOF(ipcs); i++) {
			_cleanup_free_ char *host = NULL;
			bool taken = false;

			r = find_under(rds[ri], ipcs[i].path, ipcs[i].type, &host);
			if (r == -ENOMEM)
				return cdi_fail(m->err, r, "out of memory");
			if (r < 0)
				continue;
			for (size_t j = first; j < m->n && !taken; j++)
				taken = strcmp(m->v[j].container, ipcs[i].path) == 0;
			/* /var/run → /run: the same socket once, at the /run path. */
			if (taken || have_host(m, first, host))
				continue;
			r = mount_add(m, host, PRIO_FILE, 0, true, ipcs[i].path, "", "");
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/*
 * Configuration files, searched in <driver_root>/etc and the XDG data dirs
 * (/usr/local/share, /usr/share) and mounted where nvidia-ctk mounts them.
 * A glob is allowed in the last component; the first base holding a name wins.
 */
static int add_configs(struct mounts *m, struct root_dirs *rd)
{
	static const struct {
		const char *dir;
		const char *pattern;
		const char *dest; /* container directory the relative path goes under */
		bool at_root;	  /* also searched at the driver root itself */
	} configs[] = {
	    {"glvnd/egl_vendor.d", "10_nvidia.json", "/usr/share", false},
	    {"egl/egl_external_platform.d", "*nvidia*.json", "/usr/share", false},
	    {"nvidia", "nvoptix.bin", "/usr/share", false},
	    {"X11/xorg.conf.d", "10-nvidia.conf", "/usr/share", false},
	    {"X11/xorg.conf.d", "nvidia-drm-outputclass.conf", "/usr/share", false},
	    {"OpenCL/vendors", "nvidia.icd", "/etc", false},
	    {"vulkan/icd.d", "nvidia_icd*.json", "/etc", true},
	    {"vulkan/icd.d", "nvidia_layers.json", "/etc", true},
	    {"vulkan/implicit_layer.d", "nvidia_layers.json", "/etc", true},
	};
	static const char *const bases[] = {"/etc", "/usr/local/share", "/usr/share", ""};

	for (size_t c = 0; c < ELEMENTSOF(configs); c++) {
		size_t first = m->n;

		for (size_t b = 0; b < ELEMENTSOF(bases); b++) {
			_cleanup_free_ char *dir = NULL;
			const char *real_dir;
			char **names = NULL;
			size_t n = 0;
			int r;

			if (!*bases[b] && !configs[c].at_root)
				continue;
			if (asprintf(&dir, "%s/%s", bases[b], configs[c].dir) < 0)
				return cdi_fail(m->err, -ENOMEM, "out of memory");
			r = root_dirs_get(rd, dir, &real_dir);
			if (r == -ENOMEM)
				return cdi_fail(m->err, r, "out of memory");
			if (r < 0)
				continue;
			r = list_matching(rd->root, real_dir, configs[c].pattern, &names, &n);
			if (r < 0)
				return cdi_fail(m->err, r, "out of memory");
			for (size_t i = 0; i < n && r >= 0; i++) {
				_cleanup_free_ char *path = NULL, *host = NULL, *dest = NULL;
				bool taken = false;

				if (asprintf(&path, "%s/%s", dir, names[i]) < 0 ||
				    asprintf(&dest, "%s/%s/%s", configs[c].dest, configs[c].dir,
					     names[i]) < 0) {
					r = cdi_fail(m->err, -ENOMEM, "out of memory");
					break;
				}
				if (find_under(rd, path, S_IFREG, &host) < 0)
					continue;
				for (size_t j = first; j < m->n && !taken; j++)
					taken = strcmp(m->v[j].container, dest) == 0;
				if (taken)
					continue;
				r = mount_add(m, host, PRIO_FILE, 0, false, dest, "", "");
			}
			strv_free(names, n);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* ---- assembly ---- */

static int cmp_mount(const void *a, const void *b)
{
	const struct mount *x = a, *y = b;
	int c = strcmp(x->container, y->container);

	if (c)
		return c;
	if (x->prio != y->prio)
		return x->prio < y->prio ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp(x->host, y->host);
}

/*
 * The two option lists. Every mount object holds a reference to one of
 * these arrays (jansson counts references), built once per call: 200 mounts
 * share two arrays instead of owning 1000 strings. Callers must treat
 * options as read-only (json_deep_copy() before editing one).
 */
static json_t *options_json(bool ipc)
{
	static const char *const file_opts[] = {"ro", "nosuid", "nodev", "rbind", "rprivate"};
	static const char *const ipc_opts[] = {"nosuid", "nodev", "rbind", "rprivate", "noexec"};
	const char *const *opts = ipc ? ipc_opts : file_opts;
	json_t *a = json_array();

	if (!a)
		return NULL;
	for (size_t i = 0; i < 5; i++)
		if (json_array_append_new(a, json_string_nocheck(opts[i])) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

int driver_mounts(const struct gen_host *host, const char *driver_version, json_t **ret_mounts,
		  struct cdi_error *err)
{
	struct mounts m = {.err = err};
	_cleanup_json_ json_t *out = NULL;
	_cleanup_json_ json_t *file_opts = NULL, *ipc_opts = NULL;
	struct root_dirs host_rd = {0}, driver_rd = {0};
	int r;

	if (!host || !driver_version || !*driver_version)
		return cdi_fail(err, -EINVAL, "driver_mounts: no host or no driver version");
	host_rd.root = host->root ? host->root : "";
	driver_rd.root = host->driver_root ? host->driver_root : host_rd.root;

	r = add_libraries(&m, &driver_rd, driver_version);
	if (r >= 0)
		r = add_binaries(&m, &driver_rd);
	if (r >= 0)
		r = add_firmware(&m, &driver_rd, driver_version);
	if (r >= 0)
		r = add_ipc(&m, &host_rd, strcmp(host_rd.root, driver_rd.root) ? &driver_rd : NULL);
	if (r >= 0)
		r = add_configs(&m, &driver_rd);
	if (r < 0)
		goto out;

	if (m.n)
		qsort(m.v, m.n, sizeof(*m.v), cmp_mount);
	out = json_array();
	file_opts = options_json(false);
	ipc_opts = options_json(true);
	if (!out || !file_opts || !ipc_opts) {
		r = cdi_fail(err, -ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < m.n; i++) {
		json_t *o;

		/* Sorted by containerPath, then priority: the first of a run wins. */
		if (i > 0 && strcmp(m.v[i].container, m.v[i - 1].container) == 0)
			continue;
		o = json_object();
		if (!o || json_array_append_new(out, o) < 0 ||
		    /* both paths passed utf8_valid() in mount_add() */
		    json_object_set_new_nocheck(o, "hostPath", json_string_nocheck(m.v[i].host)) <
			0 ||
		    json_object_set_new_nocheck(o, "containerPath",
						json_string_nocheck(m.v[i].container)) < 0 ||
		    json_object_set_nocheck(o, "options", m.v[i].ipc ? ipc_opts : file_opts) < 0) {
			r = cdi_fail(err, -ENOMEM, "out of memory");
			goto out;
		}
	}
	*ret_mounts = TAKE_PTR(out);
	r = 0;
out:
	mounts_clear(&m);
	root_dirs_clear(&host_rd);
	root_dirs_clear(&driver_rd);
	return r;
}
