/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch.h"
#include "array.h"
#include "elf_read.h"
#include "injected_libs.h"
#include "lib_ident.h"
#include "ldcache.h"
#include "macro.h"
#include "problem.h"
#include "strv.h"

/* One library file, read once however many mounts show it. */
struct lib_file {
	dev_t dev;
	ino_t ino;
	bool usable;
	struct lib_ident id; /* id.soname NULL: named by each mount's file name */
};

/* One mount of a library, a candidate for the cache. */
struct candidate {
	const struct lib_file *file;
	const char *source;
	const char *dest;
	bool named; /* the mount's file name is the soname */
	bool home;  /* the mount's directory is where the file lives on the host */
};

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static bool is_lib_name(const char *name)
{
	return strncmp(name, "lib", 3) == 0 && strstr(name, ".so") != NULL;
}

unsigned libcuda_major(const char *name)
{
	const char *p;
	char *end;
	unsigned long v;

	if (strncmp(name, "libcuda.so.", 11) != 0)
		return 0;
	p = name + 11;
	if (*p < '0' || *p > '9')
		return 0;
	v = strtoul(p, &end, 10);
	/* libcuda.so.1 is the soname, not a version: a driver version has a dot after the major */
	if (*end != '.' || v == 0 || v > 100000)
		return 0;
	return (unsigned)v;
}

/* The members of a mount the collection reads, in one walk over it: every mount of the config
 * is looked at, and a lookup by name hashes the name each time. */
struct mount_view {
	const char *dest, *source, *type;
	const json_t *options;
};

static void view_of(const json_t *mount, struct mount_view *v)
{
	const char *key;
	json_t *value;

	*v = (struct mount_view){ 0 };
	json_object_foreach ((json_t *)mount, key, value) {
		if (strcmp(key, "destination") == 0)
			v->dest = json_string_value(value);
		else if (strcmp(key, "source") == 0)
			v->source = json_string_value(value);
		else if (strcmp(key, "type") == 0)
			v->type = json_string_value(value);
		else if (strcmp(key, "options") == 0)
			v->options = value;
	}
}

static bool is_bind(const struct mount_view *v)
{
	const json_t *opt;
	size_t i;

	if (v->type && strcmp(v->type, "bind") == 0)
		return true;
	json_array_foreach (v->options, i, opt)
		if (json_is_string(opt) && (strcmp(json_string_value(opt), "bind") == 0 ||
					    strcmp(json_string_value(opt), "rbind") == 0))
			return true;
	return false;
}

/* Whether dest's directory is the tail of source's (the host root may prefix it). */
static bool same_dir(const char *dest, const char *source)
{
	size_t dl = (size_t)(base_name(dest) - dest), sl = (size_t)(base_name(source) - source);

	if (dl > sl)
		return false;
	return memcmp(source + sl - dl, dest, dl) == 0 &&
	       (sl == dl || source[sl - dl - 1] == '/' || dest[0] == '/');
}

/* The library file behind source, read on first sight; NULL when source is no library. Files
 * are allocated one by one: candidates keep pointers to them while the list grows. */
static const struct lib_file *lib_file_of(struct lib_file ***files, size_t *n, size_t *cap,
					  const char *source, int *ret)
{
	_cleanup_close_ int fd = -1;
	struct lib_file *f;
	struct stat st;

	*ret = 0;
	fd = open(source, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return NULL; /* a missing source is the runtime's error to report, not ours */
	for (size_t i = 0; i < *n; i++)
		if ((*files)[i]->dev == st.st_dev && (*files)[i]->ino == st.st_ino)
			return (*files)[i]->usable ? (*files)[i] : NULL;
	f = calloc(1, sizeof(*f));
	if (!f || ARRAY_RESERVE(*files, *cap, *n + 1) < 0) {
		free(f);
		*ret = -ENOMEM;
		return NULL;
	}
	(*files)[(*n)++] = f;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->usable = lib_ident(fd, source, &f->id) > 0;
	return f->usable ? f : NULL;
}

static const char *soname_of(const struct candidate *c)
{
	return c->file->id.soname ? c->file->id.soname : base_name(c->dest);
}

/* c beats best for the one cache entry of their soname and flags. */
static bool better(const struct candidate *c, const struct candidate *best)
{
	if (c->named != best->named)
		return c->named;
	return c->home && !best->home;
}

static int add_chosen(struct injected_libs *libs, const struct candidate *c)
{
	struct injected_lib *l;
	const char *dir_end = base_name(c->dest);
	_cleanup_free_ char *dir = NULL;

	if (ARRAY_RESERVE(libs->v, libs->cap, libs->n + 1) < 0)
		return -ENOMEM;
	l = &libs->v[libs->n];
	*l = (struct injected_lib){ .flags = c->file->id.flags };
	l->soname = strdup(soname_of(c));
	l->path = strdup(c->dest);
	libs->n++;
	if (!l->soname || !l->path)
		return -ENOMEM;
	dir = strndup(c->dest, dir_end - c->dest > 1 ? (size_t)(dir_end - c->dest - 1) : 1);
	if (!dir)
		return -ENOMEM;
	if (!strv_contains(libs->dirs, dir)) {
		char **grown = realloc(libs->dirs, (libs->n_dirs + 2) * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		libs->dirs = grown;
		libs->dirs[libs->n_dirs++] = TAKE_PTR(dir);
		libs->dirs[libs->n_dirs] = NULL;
	}
	return 0;
}

/* One entry per soname and flags: the best candidate, listed where its soname first shows. */
static int choose(struct injected_libs *libs, struct candidate *c, size_t n)
{
	_cleanup_free_ bool *done = calloc(n ? n : 1, sizeof(*done));

	if (!done)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		size_t best = i;
		int r;

		if (done[i])
			continue;
		for (size_t j = i + 1; j < n; j++) {
			if (done[j] || c[j].file->id.flags != c[i].file->id.flags ||
			    strcmp(soname_of(&c[j]), soname_of(&c[i])) != 0)
				continue;
			done[j] = true;
			if (better(&c[j], &c[best]))
				best = j;
		}
		r = add_chosen(libs, &c[best]);
		if (r < 0)
			return r;
	}
	return 0;
}

/* What one collection holds: the candidates, the files they point to, the strings of the
 * directories' cache files, and the directories those stand for. */
struct collection {
	struct candidate *cands;
	size_t n_cands, cap_cands;
	struct lib_file **files;
	size_t n_files, cap_files;
	struct strv_builder strings; /* destinations made for a directory's libraries */
	struct strv_builder dirs;    /* sources of directory mounts read from their cache file */
	unsigned cuda_major;
};

static void collection_clear(struct collection *c)
{
	for (size_t k = 0; k < c->n_files; k++) {
		free(c->files[k]->id.soname);
		free(c->files[k]);
	}
	free(c->files);
	free(c->cands);
	strv_builder_clear(&c->strings);
	strv_builder_clear(&c->dirs);
}

static int add_candidate(struct collection *c, struct candidate cand)
{
	if (ARRAY_RESERVE(c->cands, c->cap_cands, c->n_cands + 1) < 0)
		return -ENOMEM;
	c->cands[c->n_cands++] = cand;
	return 0;
}

/* A directory's cache file is trusted as the directory is: a regular file of root or ours that
 * no one else may write. */
static bool trusted(const struct stat *st)
{
	return S_ISREG(st->st_mode) && (st->st_uid == 0 || st->st_uid == geteuid()) &&
	       !(st->st_mode & 022);
}

/* The libraries of a directory mount that holds a cache file (LIB_DIR_LDCACHE of cdi-generate's
 * library directory): no library is opened, the generator recorded what ldconfig would. 1 when
 * it had one, 0 when not, -ENOMEM. */
static int add_dir_cache(struct collection *c, const struct mount_view *v)
{
	_cleanup_free_ char *path = NULL;
	_cleanup_ldcache_ struct ldcache *cache = NULL;
	_cleanup_close_ int fd = -1;
	struct cdi_error ignored = { 0 };
	const char *gen = "cdikit libcuda.so.";
	struct stat st;
	int r;

	if (asprintf(&path, "%s/" INJECTED_LIBS_DIR_CACHE, v->source) < 0)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 || fstat(fd, &st) < 0 || !trusted(&st))
		return 0;
	r = ldcache_load_fd(fd, path, &cache, &ignored);
	cdi_error_reset(&ignored);
	if (r < 0)
		return 0; /* a damaged file: its libraries are not listed, as an unreadable one */
	if (strv_builder_add(&c->dirs, v->source) < 0)
		return -ENOMEM;
	if (cache->generator && cache->generator_len > strlen(gen) &&
	    memcmp(cache->generator, gen, strlen(gen)) == 0) {
		_cleanup_free_ char *name = strndup(cache->generator + 7, cache->generator_len - 7);

		if (!name)
			return -ENOMEM;
		c->cuda_major = libcuda_major(name);
	}
	for (size_t i = 0; i < cache->n_entries; i++) {
		const struct ldcache_entry *e = &cache->entries[i];
		struct lib_file *f;
		char *dest;

		size_t dl = strlen(v->dest), vl = strlen(e->value);

		if (e->value[0] == '/' || strstr(e->value, "..") || e->hwcap)
			continue;
		/* dest/value, made by hand: a directory lists a hundred libraries at every start.
		 */
		dest = malloc(dl + vl + 2);
		if (!dest)
			return -ENOMEM;
		memcpy(dest, v->dest, dl);
		dest[dl] = '/';
		memcpy(dest + dl + 1, e->value, vl + 1);
		if (strv_builder_take(&c->strings, dest) < 0)
			return -ENOMEM;
		f = calloc(1, sizeof(*f));
		if (!f || ARRAY_RESERVE(c->files, c->cap_files, c->n_files + 1) < 0) {
			free(f);
			return -ENOMEM;
		}
		c->files[c->n_files++] = f;
		f->usable = true;
		f->id = (struct lib_ident){ .soname = strdup(e->key), .flags = e->flags };
		if (!f->id.soname)
			return -ENOMEM;
		if (add_candidate(c, (struct candidate){ .file = f,
							 .source = v->source,
							 .dest = c->strings.v[c->strings.n - 1],
							 .named = true,
							 .home = true }) < 0)
			return -ENOMEM;
	}
	return 1;
}

/* Whether source lies in a directory whose cache file stood for its libraries. */
static bool in_cached_dir(const struct collection *c, const char *source)
{
	for (size_t i = 0; i < c->dirs.n; i++) {
		size_t n = strlen(c->dirs.v[i]);

		if (strncmp(source, c->dirs.v[i], n) == 0 && source[n] == '/')
			return true;
	}
	return false;
}

int injected_libs_collect(const json_t *oci, struct injected_libs *ret, struct cdi_error *err)
{
	struct collection c = { 0 };
	size_t i;
	struct injected_libs libs = { 0 };
	const json_t *mount, *mounts = json_object_get(oci, "mounts");
	int r = 0;

	if (json_array_size(mounts) > INJECTED_LIBS_MAX_MOUNTS)
		return cdi_fail(err, -E2BIG, "mounts: %zu entries, more than %u",
				json_array_size(mounts), INJECTED_LIBS_MAX_MOUNTS);
	/* Directories first: their libraries are the driver's, listed before single files. */
	json_array_foreach (mounts, i, mount) {
		struct mount_view v;

		view_of(mount, &v);
		if (!v.dest || !v.source || v.dest[0] != '/' || v.source[0] != '/' ||
		    is_lib_name(base_name(v.dest)) || !is_bind(&v))
			continue;
		r = add_dir_cache(&c, &v);
		if (r < 0)
			goto out;
	}
	json_array_foreach (mounts, i, mount) {
		const struct lib_file *f;
		struct mount_view v;
		const char *dest, *source;
		unsigned major;

		view_of(mount, &v);
		dest = v.dest;
		source = v.source;
		if (!dest || !source || dest[0] != '/' || source[0] != '/' ||
		    !is_lib_name(base_name(dest)) || !is_bind(&v) || in_cached_dir(&c, source))
			continue;
		/* A library is mounted at up to five names: open each source once. */
		f = NULL;
		for (size_t k = c.n_cands; k-- > 0 && !f;)
			if (strcmp(c.cands[k].source, source) == 0)
				f = c.cands[k].file;
		if (!f)
			f = lib_file_of(&c.files, &c.n_files, &c.cap_files, source, &r);
		if (r < 0)
			goto out;
		if (!f)
			continue;
		major = libcuda_major(base_name(source));
		if (major &&
		    ((unsigned)f->id.flags & LDCACHE_FLAG_ARCH_MASK) == arch_native.cache_flags)
			c.cuda_major = major;
		r = add_candidate(&c, (struct candidate){
					      .file = f,
					      .source = source,
					      .dest = dest,
					      .named = !f->id.soname ||
						       strcmp(base_name(dest), f->id.soname) == 0,
					      .home = same_dir(dest, source),
				      });
		if (r < 0)
			goto out;
	}
	libs.cuda_major = c.cuda_major;
	r = choose(&libs, c.cands, c.n_cands);
out:
	collection_clear(&c);
	if (r < 0) {
		injected_libs_clear(&libs);
		return cdi_fail(err, r, "reading the injected libraries: %s", strerror(-r));
	}
	*ret = libs;
	return 0;
}

void injected_libs_clear(struct injected_libs *libs)
{
	for (size_t i = 0; i < libs->n; i++) {
		free(libs->v[i].soname);
		free(libs->v[i].path);
	}
	free(libs->v);
	strv_free(libs->dirs);
	*libs = (struct injected_libs){ 0 };
}
