/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The registry of CDI specs over spec directories, with the rules of the reference's Cache
 * (pkg/cdi/cache.go refresh, spec-dirs.go scanSpecDirs):
 *   - directories in priority order, a later one wins; a missing directory is skipped;
 *   - a directory is walked like filepath.Walk does it: entries in name order, only "*.json"
 *     and "*.yaml", no recursion; a symlink to a file is read, one to a directory is an error
 *     for that entry; a spec directory that is itself a symlink is not entered (Walk lstat()s
 *     its root), which we report;
 *   - an invalid spec is skipped and its problems kept against its path;
 *   - a device name seen again at a higher priority replaces the first one, at the same
 *     priority it is a conflict reported on both files, and after the scan every conflicting
 *     name is dropped, even one a higher-priority directory redefined later [reference quirk].
 * Device look-up is by hash; the lists are sorted once per scan.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cdi/registry.h>
#include <cdi/spec.h>

#include "path_clean.h"
#include "strmap.h"
#include "macro.h"
#include "problem.h"

/* A directory holding more entries than this is not a spec directory; the rest is ignored. */
#define REGISTRY_MAX_DIR_ENTRIES 65536u

struct reg_device {
	char *name; /* qualified name, owned */
	const cdi_spec *spec;
	const json_t *dev;
	size_t priority;
	bool conflict;
};

struct reg_file_errors {
	char *path;
	struct cdi_error err;
};

/* Everything one scan produces; replaced as a whole by a refresh. */
struct reg_state {
	cdi_spec **specs; /* scan order */
	size_t n_specs, cap_specs;
	struct reg_device *devs;
	size_t n_devs, cap_devs;
	struct cdi_strmap index; /* qualified name -> devs[] */
	const char **device_list, **vendor_list, **class_list;
	struct cdi_error errors;
	struct reg_file_errors *files;
	size_t n_files;
};

struct cdi_registry {
	char **dirs;
	size_t n_dirs;
	unsigned flags;
	struct reg_state st;
};

static void state_free(struct reg_state *st)
{
	for (size_t i = 0; i < st->n_specs; i++)
		cdi_spec_free(st->specs[i]);
	free(st->specs);
	for (size_t i = 0; i < st->n_devs; i++)
		free(st->devs[i].name);
	free(st->devs);
	cdi_strmap_free(&st->index);
	free(st->device_list);
	free(st->vendor_list);
	free(st->class_list);
	cdi_error_reset(&st->errors);
	for (size_t i = 0; i < st->n_files; i++) {
		free(st->files[i].path);
		cdi_error_reset(&st->files[i].err);
	}
	free(st->files);
	*st = (struct reg_state){ 0 };
}

static struct cdi_error *file_errors(struct reg_state *st, const char *path)
{
	struct reg_file_errors *grown;

	for (size_t i = 0; i < st->n_files; i++)
		if (strcmp(st->files[i].path, path) == 0)
			return &st->files[i].err;
	grown = realloc(st->files, (st->n_files + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	st->files = grown;
	grown[st->n_files] = (struct reg_file_errors){ .path = strdup(path) };
	if (!grown[st->n_files].path)
		return NULL;
	return &st->files[st->n_files++].err;
}

/* Record one problem against the given paths (and once in the scan's list). */
static int record(struct reg_state *st, const cdi_problem *p, int code, const char *path1,
		  const char *path2)
{
	const char *paths[] = { path1, path2 };

	cdi_problem_copy(&st->errors, code, p);
	for (size_t i = 0; i < ELEMENTSOF(paths); i++) {
		struct cdi_error *fe;

		if (!paths[i])
			continue;
		fe = file_errors(st, paths[i]);
		if (!fe)
			return -ENOMEM;
		cdi_problem_copy(fe, code, p);
	}
	return 0;
}

_printf_(5, 6) static int record_msg(struct reg_state *st, int code, const char *path1,
				     const char *path2, const char *fmt, ...)
{
	struct cdi_error one = { 0 };
	va_list ap;
	int r;

	va_start(ap, fmt);
	cdi_problem_addv(&one, code, path1, 0, 0, NULL, fmt, ap);
	va_end(ap);
	if (cdi_error_count(&one) == 0)
		return -ENOMEM;
	r = record(st, cdi_error_problem(&one, 0), code, path1, path2);
	cdi_error_reset(&one);
	return r;
}

/* Add the devices of a loaded spec, resolving name clashes as the reference does. */
static int add_spec_devices(struct reg_state *st, const cdi_spec *spec, size_t priority)
{
	size_t n = cdi_spec_device_count(spec);
	const char *vendor = cdi_spec_vendor(spec), *class_name = cdi_spec_class(spec);

	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *name = NULL;
		struct reg_device *old;
		size_t *at;

		if (asprintf(&name, "%s/%s=%s", vendor, class_name, cdi_spec_device_name(spec, i)) < 0) {
			name = NULL;
			return -ENOMEM;
		}
		at = cdi_strmap_get(&st->index, name, strlen(name));
		if (!at) {
			if (st->n_devs == st->cap_devs) {
				size_t cap = st->cap_devs ? st->cap_devs * 2 : 64;
				struct reg_device *grown = realloc(st->devs, cap * sizeof(*grown));

				if (!grown)
					return -ENOMEM;
				st->devs = grown;
				st->cap_devs = cap;
			}
			st->devs[st->n_devs] = (struct reg_device){
				.name = TAKE_PTR(name),
				.spec = spec,
				.dev = cdi_spec_device(spec, i),
				.priority = priority,
			};
			if (cdi_strmap_put(&st->index, st->devs[st->n_devs].name,
					   strlen(st->devs[st->n_devs].name), st->n_devs) < 0) {
				free(st->devs[st->n_devs].name);
				return -ENOMEM;
			}
			st->n_devs++;
			continue;
		}
		old = &st->devs[*at];
		if (priority > old->priority) {
			old->spec = spec;
			old->dev = cdi_spec_device(spec, i);
			old->priority = priority;
		} else if (priority == old->priority) {
			int r = record_msg(st, -EEXIST, cdi_spec_path(spec), cdi_spec_path(old->spec),
					   "conflicting device \"%s\" (specs \"%s\", \"%s\")", name,
					   cdi_spec_path(spec), cdi_spec_path(old->spec));

			if (r < 0)
				return r;
			old->conflict = true;
		}
	}
	return 0;
}

static int load_spec(struct reg_state *st, const char *path, size_t priority, unsigned flags)
{
	struct cdi_error err = { 0 };
	cdi_spec *spec = NULL;
	int r;

	r = cdi_spec_load_file(path, flags, &spec, &err);
	if (r < 0) {
		/* An invalid spec is skipped; its problems stay queryable by path. */
		for (size_t i = 0; i < cdi_error_count(&err) && r != -ENOMEM; i++)
			if (record(st, cdi_error_problem(&err, i), r, path, NULL) < 0)
				r = -ENOMEM;
		if (cdi_error_count(&err) == 0 && r != -ENOMEM &&
		    record_msg(st, r, path, NULL, "failed to load CDI Spec: %s",
			       r == -ENODATA ? "no Spec data" : strerror(-r)) < 0)
			r = -ENOMEM;
		cdi_error_reset(&err);
		return r == -ENOMEM ? r : 0;
	}
	cdi_error_reset(&err);
	if (st->n_specs == st->cap_specs) {
		size_t cap = st->cap_specs ? st->cap_specs * 2 : 8;
		cdi_spec **grown = realloc(st->specs, cap * sizeof(*grown));

		if (!grown) {
			cdi_spec_free(spec);
			return -ENOMEM;
		}
		st->specs = grown;
		st->cap_specs = cap;
	}
	st->specs[st->n_specs++] = spec;
	return add_spec_devices(st, spec, priority);
}

struct dir_entry {
	char *name;
	unsigned char type;
};

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct dir_entry *)a)->name, ((const struct dir_entry *)b)->name);
}

static bool spec_extension(const char *name)
{
	const char *dot = strrchr(name, '.');

	return dot && (strcmp(dot, ".json") == 0 || strcmp(dot, ".yaml") == 0);
}

static void entries_free(struct dir_entry *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(e[i].name);
	free(e);
}

static int scan_dir(struct reg_state *st, const char *dir, size_t priority, unsigned flags)
{
	_cleanup_closedir_ DIR *d = NULL;
	struct dir_entry *entries = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	struct stat sb;
	int r = 0;

	if (lstat(dir, &sb) < 0) {
		if (errno == ENOENT)
			return 0;
		return record_msg(st, -errno, dir, NULL, "failed to scan CDI spec directory: %s",
				  strerror(errno));
	}
	if (S_ISLNK(sb.st_mode))
		return record_msg(st, -ELOOP, dir, NULL,
				  "spec directory is a symlink, not scanned (the reference library does not follow it either)");
	if (!S_ISDIR(sb.st_mode))
		return 0; /* a file in place of the directory holds no specs */

	d = opendir(dir);
	if (!d)
		return record_msg(st, -errno, dir, NULL, "failed to read CDI spec directory: %s",
				  strerror(errno));

	while ((errno = 0, de = readdir(d))) {
		if (!spec_extension(de->d_name))
			continue;
		if (n == REGISTRY_MAX_DIR_ENTRIES) {
			r = record_msg(st, -E2BIG, dir, NULL,
				       "more than %u spec files, the rest is ignored",
				       REGISTRY_MAX_DIR_ENTRIES);
			break;
		}
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			struct dir_entry *grown = realloc(entries, ncap * sizeof(*grown));

			if (!grown) {
				r = -ENOMEM;
				break;
			}
			entries = grown;
			cap = ncap;
		}
		entries[n].name = strdup(de->d_name);
		entries[n].type = de->d_type;
		if (!entries[n].name) {
			r = -ENOMEM;
			break;
		}
		n++;
	}
	if (r == 0 && errno != 0)
		r = record_msg(st, -errno, dir, NULL, "failed to read CDI spec directory: %s",
			       strerror(errno));
	if (r < 0) {
		entries_free(entries, n);
		return r;
	}

	if (n > 1)
		qsort(entries, n, sizeof(*entries), cmp_entry);
	for (size_t i = 0; i < n && r >= 0; i++) {
		_cleanup_free_ char *path = NULL;
		unsigned char type = entries[i].type;

		if (asprintf(&path, "%s%s%s", dir, strcmp(dir, "/") == 0 ? "" : "/",
			     entries[i].name) < 0) {
			path = NULL;
			r = -ENOMEM;
			break;
		}
		if (type == DT_UNKNOWN) {
			if (fstatat(dirfd(d), entries[i].name, &sb, AT_SYMLINK_NOFOLLOW) < 0) {
				if (errno != ENOENT) /* gone since readdir: Walk skips it too */
					r = record_msg(st, -errno, path, NULL,
						       "failed to load CDI Spec: %s", strerror(errno));
				continue;
			}
			type = IFTODT(sb.st_mode);
		}
		if (type == DT_DIR)
			continue; /* no recursion */
		if (type == DT_LNK) {
			/* Walk does not follow it, but reading the spec does. */
			if (fstatat(dirfd(d), entries[i].name, &sb, 0) < 0) {
				r = record_msg(st, -errno, path, NULL, "failed to load CDI Spec: %s",
					       strerror(errno));
				continue;
			}
			type = IFTODT(sb.st_mode);
		}
		if (type != DT_REG) {
			/* The reference would try to read it (and block on a FIFO). */
			r = record_msg(st, type == DT_DIR ? -EISDIR : -EINVAL, path, NULL,
				       "failed to load CDI Spec: %s",
				       type == DT_DIR ? "is a directory" : "not a regular file");
			continue;
		}
		r = load_spec(st, path, priority, flags);
	}
	entries_free(entries, n);
	return r < 0 ? r : 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sort and deduplicate a NULL-terminated list in place. */
static void sort_unique(const char **list, size_t n)
{
	size_t w = 0;

	if (n > 1)
		qsort(list, n, sizeof(*list), cmp_str);
	for (size_t i = 0; i < n; i++)
		if (w == 0 || strcmp(list[w - 1], list[i]) != 0)
			list[w++] = list[i];
	list[w] = NULL;
}

static int build_lists(struct reg_state *st)
{
	size_t n = 0;

	st->device_list = calloc(st->n_devs + 1, sizeof(*st->device_list));
	st->vendor_list = calloc(st->n_specs + 1, sizeof(*st->vendor_list));
	st->class_list = calloc(st->n_specs + 1, sizeof(*st->class_list));
	if (!st->device_list || !st->vendor_list || !st->class_list)
		return -ENOMEM;
	for (size_t i = 0; i < st->n_devs; i++)
		if (!st->devs[i].conflict)
			st->device_list[n++] = st->devs[i].name;
	sort_unique(st->device_list, n);
	for (size_t i = 0; i < st->n_specs; i++) {
		st->vendor_list[i] = cdi_spec_vendor(st->specs[i]);
		st->class_list[i] = cdi_spec_class(st->specs[i]);
	}
	sort_unique(st->vendor_list, st->n_specs);
	sort_unique(st->class_list, st->n_specs);
	return 0;
}

static int scan(const cdi_registry *reg, struct reg_state *ret)
{
	struct reg_state st = { 0 };
	int r = 0;

	for (size_t i = 0; i < reg->n_dirs && r >= 0; i++)
		r = scan_dir(&st, reg->dirs[i], i, reg->flags);
	if (r >= 0)
		r = build_lists(&st);
	if (r < 0) {
		state_free(&st);
		return r;
	}
	*ret = st;
	return 0;
}

_public_ void cdi_registry_free(cdi_registry *reg)
{
	if (!reg)
		return;
	state_free(&reg->st);
	for (size_t i = 0; i < reg->n_dirs; i++)
		free(reg->dirs[i]);
	free(reg->dirs);
	free(reg);
}

static void registry_freep(cdi_registry **reg)
{
	cdi_registry_free(*reg);
}

_public_ int cdi_registry_new(const char *const *dirs, size_t n_dirs, unsigned load_flags,
			      cdi_registry **ret, struct cdi_error *err)
{
	static const char *const defaults[] = CDI_DEFAULT_SPEC_DIRS;
	__attribute__((cleanup(registry_freep))) cdi_registry *reg = NULL;
	int r;

	if (!ret)
		return cdi_fail(err, -EINVAL, "no place for the registry");
	if (!dirs || n_dirs == 0) {
		dirs = defaults;
		n_dirs = ELEMENTSOF(defaults);
	}
	reg = calloc(1, sizeof(*reg));
	if (!reg)
		return cdi_fail(err, -ENOMEM, "out of memory");
	reg->flags = load_flags;
	reg->dirs = calloc(n_dirs, sizeof(*reg->dirs));
	if (!reg->dirs)
		return cdi_fail(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < n_dirs; i++) {
		if (!dirs[i] || !*dirs[i])
			return cdi_fail(err, -EINVAL, "spec directory %zu is empty", i + 1);
		/* WithSpecDirs cleans every directory. */
		reg->dirs[i] = cdi_path_clean(dirs[i]);
		if (!reg->dirs[i])
			return cdi_fail(err, -ENOMEM, "out of memory");
		reg->n_dirs++;
	}
	r = cdi_registry_refresh(reg, err);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(reg);
	return 0;
}

_public_ int cdi_registry_refresh(cdi_registry *reg, struct cdi_error *err)
{
	struct reg_state st;
	int r;

	if (!reg)
		return cdi_fail(err, -EINVAL, "no registry");
	r = scan(reg, &st);
	if (r < 0)
		return cdi_fail(err, r, "failed to scan CDI spec directories: %s", strerror(-r));
	state_free(&reg->st);
	reg->st = st;
	return 0;
}

_public_ size_t cdi_registry_dir_count(const cdi_registry *reg)
{
	return reg ? reg->n_dirs : 0;
}

_public_ const char *cdi_registry_dir(const cdi_registry *reg, size_t i)
{
	return reg && i < reg->n_dirs ? reg->dirs[i] : NULL;
}

_public_ const struct cdi_error *cdi_registry_errors(const cdi_registry *reg)
{
	return reg ? &reg->st.errors : NULL;
}

_public_ const struct cdi_error *cdi_registry_file_errors(const cdi_registry *reg, const char *path)
{
	_cleanup_free_ char *clean = NULL;

	if (!reg || !path)
		return NULL;
	clean = cdi_path_clean(path);
	for (size_t i = 0; i < reg->st.n_files; i++)
		if (strcmp(reg->st.files[i].path, path) == 0 ||
		    (clean && strcmp(reg->st.files[i].path, clean) == 0))
			return &reg->st.files[i].err;
	return NULL;
}

static const char *const empty_list[] = { NULL };

_public_ const char *const *cdi_registry_devices(const cdi_registry *reg)
{
	return reg && reg->st.device_list ? reg->st.device_list : empty_list;
}

_public_ const char *const *cdi_registry_vendors(const cdi_registry *reg)
{
	return reg && reg->st.vendor_list ? reg->st.vendor_list : empty_list;
}

_public_ const char *const *cdi_registry_classes(const cdi_registry *reg)
{
	return reg && reg->st.class_list ? reg->st.class_list : empty_list;
}

_public_ const cdi_spec *cdi_registry_lookup(const cdi_registry *reg, const char *qualified_name,
					     const json_t **ret_device)
{
	const struct reg_device *d;
	size_t *at;

	if (!reg || !qualified_name)
		return NULL;
	at = cdi_strmap_get(&reg->st.index, qualified_name, strlen(qualified_name));
	if (!at)
		return NULL;
	d = &reg->st.devs[*at];
	if (d->conflict)
		return NULL;
	if (ret_device)
		*ret_device = d->dev;
	return d->spec;
}
