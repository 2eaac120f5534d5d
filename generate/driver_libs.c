/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The driver's libraries, found as libnvidia-container finds them (each name
 * of the table is a prefix matched against ld.so.cache keys, the real file
 * must end in the driver version) plus a scan of the standard library
 * directories for what the cache lacks, as nvidia-ctk does. Every path is
 * resolved inside the driver root: a symlink to /usr/lib/... means
 * <driver_root>/usr/lib/..., and nothing resolves outside the root.
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "driver_libs.h"
#include "elf.h"
#include "ldcache.h"
#include "macro.h"
#include "problem.h"

#define MAX_SYMLINKS 40
#define MAX_DIRS 128   /* directories scanned, standard ones included */
#define MAX_FILES 4096 /* distinct real files matched by name */

#if defined(__x86_64__)
const struct lib_abi lib_abi_64 = {"x86_64-linux-gnu", LDCACHE_ARCH_X86_64, ELFCLASS64, EM_X86_64};
static const struct lib_abi abi_32 = {"i386-linux-gnu", LDCACHE_ARCH_I386, ELFCLASS32, EM_386};
const struct lib_abi *const lib_abi_32 = &abi_32;
#elif defined(__aarch64__)
const struct lib_abi lib_abi_64 = {"aarch64-linux-gnu", LDCACHE_ARCH_AARCH64, ELFCLASS64,
				   EM_AARCH64};
const struct lib_abi *const lib_abi_32 = NULL; /* NVIDIA ships no 32-bit Arm driver */
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
const struct lib_abi lib_abi_64 = {"powerpc64le-linux-gnu", LDCACHE_ARCH_PPC64, ELFCLASS64,
				   EM_PPC64};
const struct lib_abi *const lib_abi_32 = NULL;
#else
#error "cdikit knows the NVIDIA driver's library ABIs of x86-64, aarch64 and ppc64le only"
#endif

/*
 * The library table: nvidia-driver-layout.md §1.1 (libnvidia-container's
 * utility, compute, video, graphics and GLVND lists; the no-glvnd compat
 * libGL/libEGL are left out, they are GLVND's or mesa's on every current
 * host), plus what nvidia-ctk adds. Each name is a prefix ending in ".so",
 * so no two overlap. own_version: versioned by their own project
 * (libnvidia-egl-wayland.so.1.1.13), not by the driver.
 */
#define LIB(prefix, groups, own)                                                                   \
	{                                                                                          \
		prefix, sizeof(prefix) - 1, groups, own                                            \
	}
static const struct lib_name {
	const char *prefix;
	size_t len;
	unsigned groups;
	bool own_version;
} lib_names[] = {
    LIB("libnvidia-ml.so", LIB_UTILITY, false),
    LIB("libnvidia-cfg.so", LIB_UTILITY, false),
    LIB("libnvidia-nscq.so", LIB_UTILITY, false),
    LIB("libnvidia-sandboxutils.so", LIB_UTILITY, false),
    LIB("libcuda.so", LIB_COMPUTE, false),
    LIB("libcudadebugger.so", LIB_COMPUTE, false),
    LIB("libnvidia-opencl.so", LIB_COMPUTE, false),
    LIB("libnvidia-gpucomp.so", LIB_COMPUTE, false),
    LIB("libnvidia-ptxjitcompiler.so", LIB_COMPUTE, false),
    LIB("libnvidia-fatbinaryloader.so", LIB_COMPUTE, false),
    LIB("libnvidia-allocator.so", LIB_COMPUTE, false),
    LIB("libnvidia-compiler.so", LIB_COMPUTE, false),
    LIB("libnvidia-pkcs11.so", LIB_COMPUTE, false),
    LIB("libnvidia-pkcs11-openssl3.so", LIB_COMPUTE, false),
    LIB("libnvidia-nvvm.so", LIB_COMPUTE, false),
    LIB("libnvidia-nvvm70.so", LIB_COMPUTE, true),
    LIB("libnvidia-tileiras.so", LIB_COMPUTE, false),
    LIB("libvdpau_nvidia.so", LIB_VIDEO, false),
    LIB("libnvidia-encode.so", LIB_VIDEO, false),
    LIB("libnvidia-opticalflow.so", LIB_VIDEO, false),
    LIB("libnvcuvid.so", LIB_VIDEO, false),
    LIB("libnvidia-eglcore.so", LIB_GRAPHICS, false),
    LIB("libnvidia-glcore.so", LIB_GRAPHICS, false),
    LIB("libnvidia-tls.so", LIB_GRAPHICS, false),
    LIB("libnvidia-glsi.so", LIB_GRAPHICS, false),
    LIB("libnvidia-fbc.so", LIB_GRAPHICS, false),
    LIB("libnvidia-ifr.so", LIB_GRAPHICS, false),
    LIB("libnvidia-rtcore.so", LIB_GRAPHICS, false),
    LIB("libnvoptix.so", LIB_GRAPHICS, false),
    LIB("libGLX_nvidia.so", LIB_GRAPHICS, false),
    LIB("libEGL_nvidia.so", LIB_GRAPHICS, false),
    LIB("libGLESv2_nvidia.so", LIB_GRAPHICS, false),
    LIB("libGLESv1_CM_nvidia.so", LIB_GRAPHICS, false),
    LIB("libnvidia-glvkspirv.so", LIB_GRAPHICS, false),
    LIB("libnvidia-cbl.so", LIB_GRAPHICS, false),
    LIB("libnvidia-vulkan-producer.so", LIB_GRAPHICS, false),
    LIB("libnvidia-present.so", LIB_GRAPHICS, false),
    LIB("libnvidia-vksc-core.so", LIB_GRAPHICS, false),
    LIB("libnvidia-wayland-client.so", LIB_GRAPHICS, false),
    LIB("libnvidia-egl-gbm.so", LIB_GRAPHICS, true),
    LIB("libnvidia-egl-wayland.so", LIB_GRAPHICS, true),
    LIB("libnvidia-egl-wayland2.so", LIB_GRAPHICS, true),
    LIB("libnvidia-egl-xcb.so", LIB_GRAPHICS, true),
    LIB("libnvidia-egl-xlib.so", LIB_GRAPHICS, true),
    LIB("libnvidia-ngx.so", LIB_NGX, false),
};

/* The table entry whose prefix name starts with ("libcuda.so" for "libcuda.so.1"), or NULL. */
static const struct lib_name *lib_name_match(const char *name)
{
	/*
	 * Every prefix starts with "lib"; comparing the next two bytes first
	 * turns away a system library directory's thousand entries cheaply.
	 */
	if (strncmp(name, "lib", 3) != 0)
		return NULL;
	/* "libnv..." or the 4th letter of libcuda, libvdpau_nvidia, libGL*_nvidia, libEGL_nvidia */
	if (!(name[3] == 'n' && name[4] == 'v') && (name[3] == '\0' || !strchr("cvGE", name[3])))
		return NULL;
	for (size_t i = 0; i < ELEMENTSOF(lib_names); i++) {
		const struct lib_name *ln = &lib_names[i];

		if (name[3] == ln->prefix[3] && name[4] == ln->prefix[4] &&
		    strncmp(name, ln->prefix, ln->len) == 0 &&
		    (name[ln->len] == '\0' || name[ln->len] == '.'))
			return ln;
	}
	return NULL;
}

/* "<prefix>.<digits>[.<digits>]..." */
static bool has_own_version(const char *name, const struct lib_name *ln)
{
	const char *p = name + ln->len;
	bool digit = false;

	if (*p++ != '.')
		return false;
	for (; *p; p++) {
		if (*p >= '0' && *p <= '9')
			digit = true;
		else if (*p == '.' && digit)
			digit = false;
		else
			return false;
	}
	return digit;
}

static bool has_driver_version(const char *name, const struct lib_name *ln, const char *version)
{
	return name[ln->len] == '.' && strcmp(name + ln->len + 1, version) == 0;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* Length of the parent directory part of an absolute path ("/a/b" → 2, "/a" → 0 meaning "/"). */
static size_t parent_len(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? (size_t)(s - path) : 0;
}

/*
 * The walk behind root_resolve(), starting from a prefix already known to be
 * real (resolved inside the root, no symlinks): "" for the root itself.
 */
static int resolve_from(const char *root, const char *real_prefix, const char *rest,
			char **ret_path, struct stat *ret_st)
{
	char resolved[PATH_MAX], todo[PATH_MAX], next_todo[PATH_MAX], full[PATH_MAX],
	    target[PATH_MAX];
	size_t rlen = strlen(real_prefix), root_len = strlen(root);
	const char *p = todo;
	unsigned links = 0;
	bool have_st = false;
	struct stat st;

	if (rlen >= sizeof(resolved) || strlen(rest) >= sizeof(todo))
		return -ENAMETOOLONG;
	memcpy(resolved, real_prefix, rlen + 1);
	if (rlen == 1 && resolved[0] == '/')
		rlen = 0; /* "/" is the empty prefix */
	resolved[rlen] = '\0';
	strcpy(todo, rest);
	if (root_len >= sizeof(full))
		return -ENAMETOOLONG;
	memcpy(full, root, root_len);

	for (;;) {
		const char *c, *end;
		size_t n;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		c = p;
		end = strchrnul(c, '/');
		n = (size_t)(end - c);
		p = end;
		if (n == 1 && c[0] == '.')
			continue;
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			/* The resolved part is physical, so ".." is its parent; the root's parent
			 * is the root. */
			while (rlen > 0 && resolved[rlen - 1] != '/')
				rlen--;
			if (rlen > 0)
				rlen--;
			resolved[rlen] = '\0';
			have_st = false;
			continue;
		}
		if (rlen + 1 + n >= sizeof(resolved) || root_len + rlen + 1 + n >= sizeof(full))
			return -ENAMETOOLONG;
		resolved[rlen] = '/';
		memcpy(resolved + rlen + 1, c, n);
		resolved[rlen + 1 + n] = '\0';
		memcpy(full + root_len, resolved, rlen + 2 + n);
		if (lstat(full, &st) < 0)
			return negative_errno();
		if (S_ISLNK(st.st_mode)) {
			ssize_t len;

			if (++links > MAX_SYMLINKS)
				return -ELOOP;
			len = readlink(full, target, sizeof(target));
			if (len < 0)
				return negative_errno();
			if (len == 0)
				return -ENOENT;
			if ((size_t)len >= sizeof(target) ||
			    (size_t)len + 1 + strlen(p) >= sizeof(next_todo))
				return -ENAMETOOLONG;
			memcpy(next_todo, target, (size_t)len);
			strcpy(next_todo + len, p); /* p is "" or starts with '/' */
			strcpy(todo, next_todo);
			p = todo;
			if (target[0] == '/')
				rlen = 0; /* absolute targets restart at the root, never above it */
			resolved[rlen] = '\0';
			have_st = false;
			continue;
		}
		rlen += 1 + n;
		have_st = true;
	}

	if (!have_st) {
		memcpy(full + root_len, resolved, rlen + 1);
		if (root_len + rlen == 0)
			strcpy(full, "/");
		if (lstat(full, &st) < 0)
			return negative_errno();
	}
	if (ret_path) {
		*ret_path = strdup(rlen ? resolved : "/");
		if (!*ret_path)
			return -ENOMEM;
	}
	if (ret_st)
		*ret_st = st;
	return 0;
}

int root_resolve(const char *root, const char *path, char **ret_path, struct stat *ret_st)
{
	if (!path || path[0] != '/')
		return -EINVAL;
	return resolve_from(root ? root : "", "", path, ret_path, ret_st);
}

int root_resolve_at(const char *root, const char *real_dir, const char *name, char **ret_path,
		    struct stat *ret_st)
{
	if (!real_dir || real_dir[0] != '/')
		return -EINVAL;
	return resolve_from(root ? root : "", real_dir, name, ret_path, ret_st);
}

struct root_dir_entry {
	char *path;
	size_t len;
	char *real; /* NULL: missing or not a directory */
};

void root_dirs_clear(struct root_dirs *dirs)
{
	for (size_t i = 0; i < dirs->n; i++) {
		free(dirs->v[i].path);
		free(dirs->v[i].real);
	}
	free(dirs->v);
	dirs->v = NULL;
	dirs->n = 0;
}

static int root_dirs_remember(struct root_dirs *dirs, const char *path, size_t len, char *real)
{
	struct root_dir_entry *grown = realloc(dirs->v, (dirs->n + 1) * sizeof(*grown));
	char *copy = strndup(path, len);

	if (!grown || !copy) {
		free(copy);
		free(real);
		if (grown)
			dirs->v = grown;
		return -ENOMEM;
	}
	dirs->v = grown;
	dirs->v[dirs->n++] = (struct root_dir_entry){copy, len, real};
	return 0;
}

static int root_dirs_get_len(struct root_dirs *dirs, const char *path, size_t len,
			     const char **ret_real)
{
	const char *parent_real, *name;
	char *real = NULL;
	size_t plen;
	struct stat st;
	int r;

	while (len > 1 && path[len - 1] == '/')
		len--;
	if (len == 0 || (len == 1 && path[0] == '/')) {
		*ret_real = "/";
		return 0;
	}
	for (size_t i = 0; i < dirs->n; i++)
		if (dirs->v[i].len == len && memcmp(dirs->v[i].path, path, len) == 0) {
			*ret_real = dirs->v[i].real;
			return dirs->v[i].real ? 0 : -ENOENT;
		}

	for (plen = len; plen > 0 && path[plen - 1] != '/'; plen--)
		;
	name = path + plen;
	r = root_dirs_get_len(dirs, path, plen, &parent_real);
	if (r == -ENOMEM)
		return r;
	if (r == 0) {
		char last[NAME_MAX + 1];

		if (len - plen > NAME_MAX)
			r = -ENAMETOOLONG;
		else {
			memcpy(last, name, len - plen);
			last[len - plen] = '\0';
			r = resolve_from(dirs->root, parent_real, last, &real, &st);
			if (r == 0 && !S_ISDIR(st.st_mode)) {
				free(TAKE_PTR(real));
				r = -ENOTDIR;
			}
		}
		if (r == -ENOMEM)
			return r;
	}
	r = root_dirs_remember(dirs, path, len, real);
	if (r < 0)
		return r;
	*ret_real = dirs->v[dirs->n - 1].real;
	return *ret_real ? 0 : -ENOENT;
}

int root_dirs_get(struct root_dirs *dirs, const char *path, const char **ret_real)
{
	if (!path || path[0] != '/')
		return -EINVAL;
	if (!dirs->root)
		dirs->root = "";
	return root_dirs_get_len(dirs, path, strlen(path), ret_real);
}

/* ---- the search ---- */

struct real_file {
	char *path; /* inside the root */
	const struct lib_name *ln;
	unsigned rank;
	bool from_cache;
	char **links;
	size_t n_links;
};

/* Names resolved in a real directory, so a link chain shared by the cache and the scan costs once.
 */
#define MEMO_BUCKETS 512
struct memo_node {
	struct memo_node *next;
	char *path; /* real_dir/name */
	char *real; /* NULL when it did not resolve (err) */
	int err;
	struct stat st;
};

struct search {
	const char *root;
	struct root_dirs *rd;
	struct memo_node *memo[MEMO_BUCKETS];
	const char *version;
	struct real_file *files;
	size_t n_files;
	char *dirs[MAX_DIRS]; /* real directories, inside the root, in scan order */
	size_t n_dirs;
	unsigned next_rank;
	struct cdi_error *err;
};

static void search_clear(struct search *s)
{
	for (size_t i = 0; i < MEMO_BUCKETS; i++)
		while (s->memo[i]) {
			struct memo_node *n = s->memo[i];

			s->memo[i] = n->next;
			free(n->path);
			free(n->real);
			free(n);
		}
	for (size_t i = 0; i < s->n_files; i++) {
		free(s->files[i].path);
		for (size_t j = 0; j < s->files[i].n_links; j++)
			free(s->files[i].links[j]);
		free(s->files[i].links);
	}
	free(s->files);
	for (size_t i = 0; i < s->n_dirs; i++)
		free(s->dirs[i]);
}

static unsigned hash_str(const char *str)
{
	unsigned h = 2166136261u;

	for (; *str; str++)
		h = (h ^ (unsigned char)*str) * 16777619u;
	return h;
}

/*
 * resolve_from(root, real_dir, name) for a plain name, remembered: a link
 * to a name in the same directory (libcuda.so → libcuda.so.1) resolves
 * through the memo too, so every file and link is looked at once per run.
 */
static int resolve_in_dir(struct search *s, const char *real_dir, const char *name, unsigned depth,
			  char **ret_real, struct stat *ret_st)
{
	char key[PATH_MAX], full[PATH_MAX], target[PATH_MAX];
	struct memo_node *node;
	size_t dlen, nlen, rlen;
	char *real = NULL;
	struct stat st;
	unsigned h;
	int r;

	if (strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || !*name)
		return resolve_from(s->root, real_dir, name, ret_real, ret_st);
	dlen = strcmp(real_dir, "/") ? strlen(real_dir) : 0;
	nlen = strlen(name);
	rlen = strlen(s->root);
	if (dlen + 1 + nlen >= sizeof(key) || rlen + dlen + 1 + nlen >= sizeof(full))
		return -ENAMETOOLONG;
	memcpy(key, real_dir, dlen);
	key[dlen] = '/';
	memcpy(key + dlen + 1, name, nlen + 1);
	memcpy(full, s->root, rlen);
	memcpy(full + rlen, key, dlen + nlen + 2);
	h = hash_str(key) % MEMO_BUCKETS;
	for (node = s->memo[h]; node; node = node->next)
		if (strcmp(node->path, key) == 0)
			break;
	if (!node) {
		if (lstat(full, &st) < 0)
			r = negative_errno();
		else if (!S_ISLNK(st.st_mode)) {
			real = strdup(key);
			r = real ? 0 : -ENOMEM;
		} else if (depth >= MAX_SYMLINKS)
			r = -ELOOP;
		else {
			ssize_t len = readlink(full, target, sizeof(target));

			if (len < 0)
				r = negative_errno();
			else if (len == 0 || (size_t)len >= sizeof(target))
				r = len ? -ENAMETOOLONG : -ENOENT;
			else {
				target[len] = '\0';
				if (target[0] == '/')
					r = resolve_from(s->root, "", target, &real, &st);
				else
					r = resolve_in_dir(s, real_dir, target, depth + 1, &real,
							   &st);
			}
		}
		if (r == -ENOMEM)
			return r;
		node = calloc(1, sizeof(*node));
		if (!node || !(node->path = strdup(key))) {
			free(node);
			free(real);
			return -ENOMEM;
		}
		node->real = real;
		node->err = r;
		node->st = st;
		node->next = s->memo[h];
		s->memo[h] = node;
	}
	if (node->err < 0)
		return node->err;
	*ret_real = strdup(node->real);
	if (!*ret_real)
		return -ENOMEM;
	*ret_st = node->st;
	return 0;
}

/* Queue a real directory for scanning (once). */
static int add_dir(struct search *s, const char *dir, size_t len)
{
	char *copy;

	for (size_t i = 0; i < s->n_dirs; i++)
		if (strlen(s->dirs[i]) == len && strncmp(s->dirs[i], dir, len) == 0)
			return 0;
	if (s->n_dirs >= MAX_DIRS)
		return 0; /* a pathological cache spreading libraries over >128 dirs: the rest is in
			     the cache anyway */
	copy = strndup(dir, len);
	if (!copy)
		return cdi_fail(s->err, -ENOMEM, "out of memory");
	s->dirs[s->n_dirs++] = copy;
	return 0;
}

/* Resolve a directory given as a path inside the root; queue it if it is one. */
static int add_dir_path(struct search *s, const char *path, const char **ret_real)
{
	const char *real;
	int r;

	if (ret_real)
		*ret_real = NULL;
	r = root_dirs_get(s->rd, path, &real);
	if (r == -ENOMEM)
		return cdi_fail(s->err, r, "out of memory");
	if (r < 0)
		return 0; /* absent on this host */
	if (ret_real)
		*ret_real = real;
	return add_dir(s, real, strlen(real));
}

/* Record a real file found under a name, and that name when it is a symlink beside it. */
static int add_file(struct search *s, char *real, const struct lib_name *ln, unsigned rank,
		    bool from_cache, const char *link_name)
{
	struct real_file *f = NULL;

	for (size_t i = 0; i < s->n_files; i++)
		if (strcmp(s->files[i].path, real) == 0) {
			f = &s->files[i];
			free(real);
			break;
		}
	if (!f) {
		struct real_file *grown;

		if (s->n_files >= MAX_FILES) {
			free(real);
			return cdi_fail(s->err, -E2BIG,
					"more than %u files named like driver libraries",
					MAX_FILES);
		}
		grown = realloc(s->files, (s->n_files + 1) * sizeof(*grown));
		if (!grown) {
			free(real);
			return cdi_fail(s->err, -ENOMEM, "out of memory");
		}
		s->files = grown;
		f = &s->files[s->n_files++];
		*f = (struct real_file){.path = real, .ln = ln, .rank = rank};
	}
	if (rank < f->rank)
		f->rank = rank;
	f->from_cache |= from_cache;
	if (link_name) {
		char **grown;

		for (size_t i = 0; i < f->n_links; i++)
			if (strcmp(f->links[i], link_name) == 0)
				return 0;
		grown = realloc(f->links, (f->n_links + 1) * sizeof(*grown));
		if (!grown)
			return cdi_fail(s->err, -ENOMEM, "out of memory");
		f->links = grown;
		f->links[f->n_links] = strdup(link_name);
		if (!f->links[f->n_links])
			return cdi_fail(s->err, -ENOMEM, "out of memory");
		f->n_links++;
	}
	return 0;
}

/*
 * A name (found in dir, or as the cache value path) resolved: keep it when it
 * is a regular file named like the same library, and queue the file's own
 * directory so the symlinks beside it are seen too.
 */
static int take_candidate(struct search *s, const struct lib_name *ln, char *real,
			  const struct stat *st, unsigned rank, bool from_cache,
			  const char *link_name)
{
	size_t plen;
	int r;

	if (!S_ISREG(st->st_mode) || lib_name_match(base_name(real)) != ln) {
		free(real);
		return 0;
	}
	plen = parent_len(real);
	r = add_dir(s, plen ? real : "/", plen ? plen : 1);
	if (r < 0) {
		free(real);
		return r;
	}
	return add_file(s, real, ln, rank, from_cache, link_name);
}

static int scan_cache(struct search *s)
{
	_cleanup_ldcache_ struct ldcache *cache = NULL;
	_cleanup_free_ char *path = NULL;
	int r;

	if (asprintf(&path, "%s/etc/ld.so.cache", s->root) < 0)
		return cdi_fail(s->err, -ENOMEM, "out of memory");
	r = ldcache_load(path, &cache, s->err);
	if (r == -ENOENT)
		return 0; /* no cache: the directory scan still finds the standard layouts */
	if (r < 0)
		return r;

	for (size_t i = 0; i < cache->n_entries; i++) {
		const struct ldcache_entry *e = &cache->entries[i];
		const struct lib_name *ln;
		unsigned arch = ldcache_entry_arch(e);
		const char *real_dir;
		char dir[PATH_MAX];
		char *real = NULL;
		struct stat st;
		size_t plen;

		/* The cache's flags choose the entries of our ABIs; the ELF header decides later.
		 */
		if (!ldcache_entry_is_elf(e) || (arch != lib_abi_64.cache_arch &&
						 !(lib_abi_32 && arch == lib_abi_32->cache_arch)))
			continue;
		ln = lib_name_match(e->key);
		if (!ln || e->value[0] != '/')
			continue;
		plen = parent_len(e->value);
		if (plen + sizeof("/vdpau") > sizeof(dir))
			continue;
		memcpy(dir, e->value, plen);
		strcpy(dir + plen, "/vdpau");
		/* The directory the cache names may hold names the cache omits (vdpau/, .so links).
		 */
		r = add_dir_path(s, dir, NULL);
		if (r < 0)
			return r;
		dir[plen ? plen : 1] = '\0';
		r = add_dir_path(s, dir, &real_dir);
		if (r < 0)
			return r;
		if (!real_dir)
			continue;
		r = resolve_in_dir(s, real_dir, e->value + plen + 1, 0, &real, &st);
		if (r == -ENOMEM)
			return cdi_fail(s->err, r, "out of memory");
		if (r < 0)
			continue; /* a stale entry: the file is gone */
		r = take_candidate(s, ln, real, &st, s->next_rank++, true, NULL);
		if (r < 0)
			return r;
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int scan_dir(struct search *s, const char *dir)
{
	_cleanup_closedir_ DIR *d = NULL;
	_cleanup_free_ char *full = NULL;
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	int r = 0;

	if (asprintf(&full, "%s%s", s->root, dir) < 0)
		return cdi_fail(s->err, -ENOMEM, "out of memory");
	d = opendir(full);
	if (!d)
		return 0; /* vanished or unreadable: nothing of ours can be found there */
	while ((de = readdir(d))) {
		if (de->d_type != DT_UNKNOWN && de->d_type != DT_REG && de->d_type != DT_LNK)
			continue;
		if (!lib_name_match(de->d_name))
			continue;
		if (n == cap) {
			char **grown = realloc(names, (cap ? cap * 2 : 32) * sizeof(*names));

			if (!grown) {
				r = cdi_fail(s->err, -ENOMEM, "out of memory");
				goto out;
			}
			names = grown;
			cap = cap ? cap * 2 : 32;
		}
		names[n] = strdup(de->d_name);
		if (!names[n]) {
			r = cdi_fail(s->err, -ENOMEM, "out of memory");
			goto out;
		}
		n++;
	}
	/* readdir order is the filesystem's; sorted, the same host gives the same ranks. */
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);

	for (size_t i = 0; i < n; i++) {
		const struct lib_name *ln = lib_name_match(names[i]);
		char *real = NULL;
		const char *link = NULL;
		struct stat st;
		size_t plen;

		r = resolve_in_dir(s, dir, names[i], 0, &real, &st);
		if (r == -ENOMEM) {
			r = cdi_fail(s->err, r, "out of memory");
			goto out;
		}
		if (r < 0) {
			r = 0;
			continue; /* a dangling link */
		}
		plen = parent_len(real);
		/* A symlink in the same directory as its file is a name the host gives the library.
		 */
		if (strcmp(base_name(real), names[i]) != 0 && plen == strlen(dir) &&
		    strncmp(real, dir, plen) == 0)
			link = names[i];
		else if (strcmp(dir, "/") == 0 && plen == 0 &&
			 strcmp(base_name(real), names[i]) != 0)
			link = names[i];
		r = take_candidate(s, ln, real, &st, s->next_rank++, false, link);
		if (r < 0)
			goto out;
	}
out:
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return r;
}

/* The standard library directories of both ABIs, as a host may lay them out. */
static int add_standard_dirs(struct search *s)
{
	const char *fixed[] = {"/usr/lib64", "/lib64", "/usr/lib32", "/usr/lib", "/lib"};
	const struct lib_abi *abis[] = {&lib_abi_64, lib_abi_32};
	char path[PATH_MAX];
	int r;

	for (int sub = 0; sub < 2; sub++) {
		const char *suffix = sub ? "/vdpau" : "";

		for (size_t a = 0; a < ELEMENTSOF(abis); a++) {
			if (!abis[a])
				continue;
			for (int usr = 0; usr < 2; usr++)
				for (int current = 0; current < 2; current++) {
					snprintf(path, sizeof(path), "%s/lib/%s%s%s",
						 usr ? "" : "/usr", abis[a]->multiarch,
						 current ? "/nvidia/current" : "", suffix);
					r = add_dir_path(s, path, NULL);
					if (r < 0)
						return r;
				}
		}
		for (size_t i = 0; i < ELEMENTSOF(fixed); i++) {
			snprintf(path, sizeof(path), "%s%s", fixed[i], suffix);
			r = add_dir_path(s, path, NULL);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* Decide about one real file; 1 = keep (and *lib filled), 0 = not a library of this driver. */
static int check_file(struct search *s, struct real_file *f, struct driver_lib *lib)
{
	_cleanup_free_ char *full = NULL;
	struct elf_info info = {0};
	const char *name = base_name(f->path);
	bool is32;
	int r;

	if (f->ln->own_version) {
		/* No driver version to tell the current copy from stale ones: take what the host
		 * links. */
		if (!has_own_version(name, f->ln) || (!f->from_cache && f->n_links == 0))
			return 0;
	} else if (!has_driver_version(name, f->ln, s->version))
		return 0;

	if (asprintf(&full, "%s%s", s->root, f->path) < 0)
		return cdi_fail(s->err, -ENOMEM, "out of memory");
	r = elf_read_file(full, 0, &info, s->err);
	if (r < 0)
		return r; /* a driver library that is not a readable ELF object: a broken install */
	if (info.elf_class == lib_abi_64.elf_class && info.machine == lib_abi_64.machine)
		is32 = false;
	else if (lib_abi_32 && info.elf_class == lib_abi_32->elf_class &&
		 info.machine == lib_abi_32->machine)
		is32 = true;
	else {
		elf_info_clear(&info);
		return 0; /* another machine's library */
	}

	*lib = (struct driver_lib){
	    .path = TAKE_PTR(f->path),
	    .links = TAKE_PTR(f->links),
	    .n_links = f->n_links,
	    .prefix = f->ln->prefix,
	    .groups = f->ln->groups,
	    .is32 = is32,
	    .rank = f->rank,
	};
	f->n_links = 0;
	/* A soname that is not the library's own name would shadow another library in the
	 * container. */
	if (info.soname && lib_name_match(info.soname) == f->ln)
		lib->soname = TAKE_PTR(info.soname);
	elf_info_clear(&info);
	if (lib->n_links > 1)
		qsort(lib->links, lib->n_links, sizeof(*lib->links), cmp_str);
	return 1;
}

static int cmp_lib(const void *a, const void *b)
{
	const struct driver_lib *x = a, *y = b;

	if (x->is32 != y->is32)
		return x->is32 ? 1 : -1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

void driver_libs_clear(struct driver_libs *libs)
{
	if (!libs)
		return;
	for (size_t i = 0; i < libs->n_libs; i++) {
		struct driver_lib *l = &libs->libs[i];

		free(l->path);
		free(l->soname);
		for (size_t j = 0; j < l->n_links; j++)
			free(l->links[j]);
		free(l->links);
	}
	free(libs->libs);
	*libs = (struct driver_libs){0};
}

int driver_libs_find(const char *driver_root, const char *version, struct driver_libs *ret,
		     struct cdi_error *err)
{
	struct root_dirs rd = {.root = driver_root ? driver_root : ""};
	int r = driver_libs_find_in(&rd, version, ret, err);

	root_dirs_clear(&rd);
	return r;
}

int driver_libs_find_in(struct root_dirs *rd, const char *version, struct driver_libs *ret,
			struct cdi_error *err)
{
	struct search s = {
	    .root = rd->root ? rd->root : "", .rd = rd, .version = version, .err = err};
	struct driver_libs out = {0};
	int r;

	if (!version || !*version || strchr(version, '/'))
		return cdi_fail(err, -EINVAL, "driver version \"%s\" is not a version",
				version ? version : "");

	r = scan_cache(&s);
	if (r < 0)
		goto out;
	r = add_standard_dirs(&s);
	if (r < 0)
		goto out;
	/* take_candidate() queues the directory of each file found, so the list grows while
	 * scanned. */
	for (size_t i = 0; i < s.n_dirs; i++) {
		r = scan_dir(&s, s.dirs[i]);
		if (r < 0)
			goto out;
	}

	out.libs = calloc(s.n_files ? s.n_files : 1, sizeof(*out.libs));
	if (!out.libs) {
		r = cdi_fail(err, -ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < s.n_files; i++) {
		r = check_file(&s, &s.files[i], &out.libs[out.n_libs]);
		if (r < 0)
			goto out;
		if (r > 0)
			out.n_libs++;
	}
	qsort(out.libs, out.n_libs, sizeof(*out.libs), cmp_lib);
	*ret = out;
	out = (struct driver_libs){0};
	r = 0;
out:
	driver_libs_clear(&out);
	search_clear(&s);
	return r;
}
