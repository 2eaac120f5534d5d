/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The driver's libraries, found as libnvidia-container finds them (each name of the table is a
 * prefix matched against ld.so.cache keys, the real file must end in the driver version) plus a
 * scan of the standard library directories for what the cache lacks, as nvidia-ctk does. Every
 * path is resolved inside the driver root (root_fs.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch.h"
#include "array.h"
#include "dir_list.h"
#include "host/elf.h"
#include "host/host_file.h"
#include "lib_ident.h"
#include "lib_search.h"
#include "macro.h"
#include "problem.h"
#include "strv.h"

#define MAX_DIRS 128   /* directories scanned, standard ones included */
#define MAX_FILES 4096 /* distinct real files matched by name */

/* Namespaces of root_fs_tag(): a file's position in search.files, a directory queued. */
enum { TAG_FILE, TAG_DIR };

/* Where libraries live when no cache says so, as distributions lay them out. */
static const char *const fixed_dirs[] = { "/usr/lib64", "/lib64", "/usr/lib32", "/usr/lib",
					  "/lib" };

/* The Debian-style multiarch directories of one ABI, + suffix ("" or "/vdpau"). */
static void multiarch_dirs(const struct arch_abi *abi, const char *suffix, char out[4][PATH_MAX])
{
	snprintf(out[0], PATH_MAX, "/usr/lib/%s%s", abi->multiarch, suffix);
	snprintf(out[1], PATH_MAX, "/usr/lib/%s/nvidia/current%s", abi->multiarch, suffix);
	snprintf(out[2], PATH_MAX, "/lib/%s%s", abi->multiarch, suffix);
	snprintf(out[3], PATH_MAX, "/lib/%s/nvidia/current%s", abi->multiarch, suffix);
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

int lib_locate(struct root_fs *fs, const struct ldcache *cache, const char *soname, char **ret_real)
{
	char multiarch[4][PATH_MAX], path[PATH_MAX];
	const struct stat *st;
	const char *real;

	for (size_t i = 0; cache && i < cache->n_entries; i++) {
		const struct ldcache_entry *e = &cache->entries[i];

		if (!ldcache_entry_is_elf(e) ||
		    arch_by_cache_flags(ldcache_entry_arch(e)) != &arch_native ||
		    strcmp(e->key, soname) != 0)
			continue;
		if (root_fs_file(fs, e->value, &real, &st) == 0 && S_ISREG(st->st_mode))
			goto found;
	}
	multiarch_dirs(&arch_native, "", multiarch);
	for (size_t i = 0; i < ELEMENTSOF(multiarch) + ELEMENTSOF(fixed_dirs); i++) {
		const char *dir = i < ELEMENTSOF(multiarch) ? multiarch[i]
							    : fixed_dirs[i - ELEMENTSOF(multiarch)];

		snprintf(path, sizeof(path), "%s/%s", dir, soname);
		if (root_fs_file(fs, path, &real, &st) == 0 && S_ISREG(st->st_mode))
			goto found;
	}
	return -ENOENT;
found:
	*ret_real = strdup(real);
	return *ret_real ? 0 : -ENOMEM;
}

/* ---- the search ---- */

struct real_file {
	char *path; /* inside the root */
	const struct lib_name *ln;
	unsigned rank;
	bool from_cache;
	struct strv_builder links; /* names of the host's links to it beside it */
};

struct search {
	struct root_fs *fs;
	const char *version;
	struct real_file *files;
	size_t n_files, cap_files;
	char *dirs[MAX_DIRS]; /* real directories, inside the root, in scan order */
	size_t n_dirs;
	unsigned next_rank;
	struct cdi_error *err;
};

static void search_clear(struct search *s)
{
	for (size_t i = 0; i < s->n_files; i++) {
		free(s->files[i].path);
		strv_builder_clear(&s->files[i].links);
	}
	free(s->files);
	for (size_t i = 0; i < s->n_dirs; i++)
		free(s->dirs[i]);
}

/* Queue a real directory for scanning (once). */
static int add_dir(struct search *s, const char *dir, size_t len)
{
	char copy[PATH_MAX];
	size_t *tag;

	if (len >= sizeof(copy))
		return 0;
	memcpy(copy, dir, len);
	copy[len] = '\0';
	if (root_fs_tag(s->fs, TAG_DIR, copy, &tag) < 0)
		return cdi_fail(s->err, -ENOMEM, "out of memory");
	if (*tag != SIZE_MAX)
		return 0;
	*tag = s->n_dirs;
	if (s->n_dirs >= MAX_DIRS)
		return 0; /* a pathological cache spreading libraries over >128 dirs: the rest is in
			     the cache anyway */
	s->dirs[s->n_dirs] = strdup(copy);
	if (!s->dirs[s->n_dirs])
		return cdi_fail(s->err, -ENOMEM, "out of memory");
	s->n_dirs++;
	return 0;
}

/* Resolve a directory given as a path inside the root; queue it if it is one. */
static int add_dir_path(struct search *s, const char *path, const char **ret_real)
{
	const char *real;
	int r;

	if (ret_real)
		*ret_real = NULL;
	r = root_fs_dir(s->fs, path, &real);
	if (r == -ENOMEM)
		return cdi_fail(s->err, r, "out of memory");
	if (r < 0)
		return 0; /* absent on this host */
	if (ret_real)
		*ret_real = real;
	return add_dir(s, real, strlen(real));
}

/* The file record of a real path, created on first sight. */
static int file_get(struct search *s, const char *real, const struct lib_name *ln, unsigned rank,
		    struct real_file **ret)
{
	size_t *tag;

	if (root_fs_tag(s->fs, TAG_FILE, real, &tag) < 0)
		return cdi_fail(s->err, -ENOMEM, "out of memory");
	if (*tag != SIZE_MAX) {
		*ret = &s->files[*tag];
		return 0;
	}
	if (s->n_files >= MAX_FILES)
		return cdi_fail(s->err, -E2BIG, "more than %u files named like driver libraries",
				MAX_FILES);
	if (ARRAY_RESERVE(s->files, s->cap_files, s->n_files + 1) < 0)
		return cdi_fail(s->err, -ENOMEM, "out of memory");
	*ret = &s->files[s->n_files];
	**ret = (struct real_file){ .path = strdup(real), .ln = ln, .rank = rank };
	if (!(*ret)->path)
		return cdi_fail(s->err, -ENOMEM, "out of memory");
	*tag = s->n_files++;
	return 0;
}

/* Record a real file found under a name, and that name when it is a symlink beside it. */
static int add_file(struct search *s, const char *real, const struct lib_name *ln, unsigned rank,
		    bool from_cache, const char *link_name)
{
	struct real_file *f = NULL;
	int r;

	r = file_get(s, real, ln, rank, &f);
	if (r < 0)
		return r;
	if (rank < f->rank)
		f->rank = rank;
	f->from_cache |= from_cache;
	if (!link_name || strv_contains(f->links.v, link_name))
		return 0;
	if (strv_builder_add(&f->links, link_name) < 0)
		return cdi_fail(s->err, -ENOMEM, "out of memory");
	return 0;
}

/*
 * A name (found in dir, or as the cache value path) resolved: keep it when it is a regular file
 * named like the same library, and queue the file's own directory so the symlinks beside it
 * are seen too.
 */
static int take_candidate(struct search *s, const struct lib_name *ln, const char *real,
			  const struct stat *st, bool from_cache, const char *link_name)
{
	size_t plen;
	int r;

	if (!S_ISREG(st->st_mode) || lib_name_classify(base_name(real), s->version) != ln)
		return 0;
	plen = parent_len(real);
	r = add_dir(s, plen ? real : "/", plen ? plen : 1);
	if (r < 0)
		return r;
	return add_file(s, real, ln, s->next_rank++, from_cache, link_name);
}

/* One ld.so.cache entry of ours: its directory (and vdpau/) queued, its file a candidate. */
static int scan_cache_entry(struct search *s, const struct lib_name *ln, const char *value)
{
	size_t plen = parent_len(value);
	const char *real_dir, *real;
	const struct stat *st;
	char dir[PATH_MAX];
	int r;

	if (plen + sizeof("/vdpau") > sizeof(dir))
		return 0;
	memcpy(dir, value, plen);
	strcpy(dir + plen, "/vdpau");
	/* The directory the cache names may hold names the cache omits (vdpau/, .so links). */
	r = add_dir_path(s, dir, NULL);
	if (r < 0)
		return r;
	dir[plen ? plen : 1] = '\0';
	r = add_dir_path(s, dir, &real_dir);
	if (r < 0 || !real_dir)
		return r;
	r = root_fs_name(s->fs, real_dir, value + plen + 1, &real, &st);
	if (r == -ENOMEM)
		return cdi_fail(s->err, r, "out of memory");
	if (r < 0)
		return 0; /* a stale entry: the file is gone */
	return take_candidate(s, ln, real, st, true, NULL);
}

static int scan_cache(struct search *s, const struct ldcache *cache)
{
	for (size_t i = 0; cache && i < cache->n_entries; i++) {
		const struct ldcache_entry *e = &cache->entries[i];
		const struct lib_name *ln;
		int r;

		/* The cache's flags choose the entries of our ABIs; the ELF header decides later.
		 */
		if (!ldcache_entry_is_elf(e) || !arch_by_cache_flags(ldcache_entry_arch(e)))
			continue;
		ln = lib_name_classify(e->key, s->version);
		if (!ln || e->value[0] != '/' || !e->value[1])
			continue;
		r = scan_cache_entry(s, ln, e->value);
		if (r < 0)
			return r;
	}
	return 0;
}

static bool keep_lib_name(const char *name, unsigned char d_type, void *version)
{
	if (d_type != DT_UNKNOWN && d_type != DT_REG && d_type != DT_LNK)
		return false;
	return lib_name_classify(name, version) != NULL;
}

static int scan_dir(struct search *s, const char *dir)
{
	_cleanup_strv_free_ char **names = NULL;
	size_t n = 0, dlen = strcmp(dir, "/") ? strlen(dir) : 0;
	int r;

	/* readdir order is the filesystem's; sorted, the same host gives the same ranks. */
	r = root_fs_list(s->fs, dir, keep_lib_name, (void *)s->version, &names, &n, NULL);
	if (r == -ENOMEM)
		return cdi_fail(s->err, r, "out of memory");
	if (r < 0)
		return 0; /* vanished or unreadable: nothing of ours can be found there */
	for (size_t i = 0; i < n; i++) {
		const char *real, *link = NULL;
		const struct stat *st;

		r = root_fs_name(s->fs, dir, names[i], &real, &st);
		if (r == -ENOMEM)
			return cdi_fail(s->err, r, "out of memory");
		if (r < 0)
			continue; /* a dangling link */
		/* A symlink in the same directory as its file is a name the host gives the library.
		 */
		if (strcmp(base_name(real), names[i]) != 0 && parent_len(real) == dlen &&
		    strncmp(real, dir, dlen) == 0)
			link = names[i];
		r = take_candidate(s, lib_name_classify(names[i], s->version), real, st, false,
				   link);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The standard library directories of both ABIs, as a host may lay them out. */
static int add_standard_dirs(struct search *s)
{
	const struct arch_abi *abis[] = { &arch_native, arch_compat32 };
	char multiarch[4][PATH_MAX], path[PATH_MAX];
	int r;

	for (int sub = 0; sub < 2; sub++) {
		const char *suffix = sub ? "/vdpau" : "";

		for (size_t a = 0; a < ELEMENTSOF(abis); a++) {
			if (!abis[a])
				continue;
			multiarch_dirs(abis[a], suffix, multiarch);
			for (size_t i = 0; i < ELEMENTSOF(multiarch); i++) {
				r = add_dir_path(s, multiarch[i], NULL);
				if (r < 0)
					return r;
			}
		}
		for (size_t i = 0; i < ELEMENTSOF(fixed_dirs); i++) {
			snprintf(path, sizeof(path), "%s%s", fixed_dirs[i], suffix);
			r = add_dir_path(s, path, NULL);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* The ABI of a library file from its ELF header (NULL: another machine's); soname too. */
static int read_elf(struct search *s, const char *path, struct elf_info *info,
		    const struct arch_abi **ret_abi)
{
	_cleanup_free_ char *full = NULL;
	_cleanup_close_ int fd = -1;
	int r;

	if (asprintf(&full, "%s%s", s->fs->root, path) < 0)
		return cdi_fail(s->err, -ENOMEM, "out of memory");
	r = host_file_open(full, 0, &fd, s->err);
	if (r < 0)
		return r;
	r = elf_read_fd(fd, full, ELF_READ_NEEDED, info, s->err);
	if (r < 0)
		return r; /* a driver library that is not a readable ELF object: a broken install */
	*ret_abi = arch_by_elf(info->elf_class, info->machine);
	return 0;
}

/* A soname that names the library itself (libcuda.so.1 for libcuda.so.<ver>), not another. */
static bool soname_is_own(const char *soname, const struct driver_lib *lib)
{
	const char *name = base_name(lib->path);
	size_t stem = lib_name_stem_len(name);

	if (lib->ln != &lib_name_unknown)
		return lib_name_match(soname) == lib->ln;
	return stem > 0 && lib_name_stem_len(soname) == stem && strncmp(soname, name, stem) == 0;
}

/* Decide about one real file; 1 = keep (and *lib filled), 0 = not a library of this driver. */
static int check_file(struct search *s, struct real_file *f, struct driver_lib *lib)
{
	struct elf_info info = { 0 };
	const char *name = base_name(f->path);
	const struct arch_abi *abi = NULL;
	int r;

	if (f->ln->own_version) {
		/* No driver version tells the current copy from stale ones: take what the host
		 * links. */
		if (!lib_name_has_own_version(name, f->ln) || (!f->from_cache && f->links.n == 0))
			return 0;
	} else if (!lib_name_has_driver_version(name, f->ln, s->version))
		return 0;
	r = read_elf(s, f->path, &info, &abi);
	if (r < 0 || !abi) {
		elf_info_clear(&info);
		return r;
	}
	*lib = (struct driver_lib){
		.path = TAKE_PTR(f->path),
		.ln = f->ln,
		.is32 = abi != &arch_native,
		.ldflags = lib_ident_flags(&info),
		.rank = f->rank,
	};
	lib->links = strv_builder_steal(&f->links, &lib->n_links);
	if (!lib->links) {
		free(lib->path);
		elf_info_clear(&info);
		return cdi_fail(s->err, -ENOMEM, "out of memory");
	}
	/* A soname that is not the library's own name would shadow another library in the
	 * container; a cache would list the file under it: it gets no entry of ours either. */
	if (info.soname && soname_is_own(info.soname, lib))
		lib->soname = TAKE_PTR(info.soname);
	else if (info.soname)
		lib->ldflags = -1;
	elf_info_clear(&info);
	strv_sort(lib->links, lib->n_links);
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
		strv_free(l->links);
	}
	free(libs->libs);
	*libs = (struct driver_libs){ 0 };
}

/* What the cache and the directory scan found, judged file by file. */
static int collect(struct search *s, struct driver_libs *ret)
{
	struct driver_libs out = { 0 };
	int r;

	out.libs = calloc(s->n_files ? s->n_files : 1, sizeof(*out.libs));
	if (!out.libs)
		return cdi_fail(s->err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < s->n_files; i++) {
		r = check_file(s, &s->files[i], &out.libs[out.n_libs]);
		if (r < 0) {
			driver_libs_clear(&out);
			return r;
		}
		if (r > 0)
			out.n_libs++;
	}
	qsort(out.libs, out.n_libs, sizeof(*out.libs), cmp_lib);
	*ret = out;
	return 0;
}

int driver_libs_find(struct root_fs *fs, const struct ldcache *cache, const char *version,
		     struct driver_libs *ret, struct cdi_error *err)
{
	struct search s = { .fs = fs, .version = version, .err = err };
	int r;

	if (!version || !*version || strchr(version, '/'))
		return cdi_fail(err, -EINVAL, "driver version \"%s\" is not a version",
				version ? version : "");
	r = scan_cache(&s, cache);
	if (r >= 0)
		r = add_standard_dirs(&s);
	/* take_candidate() queues the directory of each file found: the list grows while scanned.
	 */
	for (size_t i = 0; r >= 0 && i < s.n_dirs; i++)
		r = scan_dir(&s, s.dirs[i]);
	if (r >= 0)
		r = collect(&s, ret);
	search_clear(&s);
	return r < 0 ? r : 0;
}
