/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch.h"
#include "bundle/ldcache_merge.h"
#include "bundle/rootfs.h"
#include "hook_ldcache.h"
#include "ld_conf.h"
#include "ld_scan.h"
#include "macro.h"
#include "problem.h"
#include "read_file.h"
#include "strv.h"

#define LD_SO_CONF_INCLUDE "include /etc/ld.so.conf.d/*.conf\n"

static void ldcache_merge_clearp(struct ldcache_merge *m)
{
	ldcache_merge_clear(m);
}

static void ld_dirs_clearp(struct ld_dirs *d)
{
	ld_dirs_clear(d);
}

static void strv_builder_clearp(struct strv_builder *b)
{
	strv_builder_clear(b);
}

#if defined(__x86_64__)
#define MUSL_ARCH "x86_64"
#elif defined(__aarch64__)
#define MUSL_ARCH "aarch64"
#else
#define MUSL_ARCH NULL
#endif

const char *const *ldcache_host_system_dirs(bool debian_host)
{
	/* Debian's ldconfig: SLIBDIR and LIBDIR are the multiarch directories, /lib and /usr/lib
	 * added by Debian (`ldconfig -v` shows them); elsewhere add_system_dir() of /lib64 and
	 * /usr/lib64, which x86-64 widens to lib, lib64 and libx32. */
	static const char *debian[] = { NULL, NULL, "/lib", "/usr/lib", NULL };
	static char slib[64], lib[64];
#if defined(__x86_64__)
	static const char *const other[] = { "/lib",	   "/lib64",	  "/libx32", "/usr/lib",
					     "/usr/lib64", "/usr/libx32", NULL };
#else
	static const char *const other[] = { "/lib", "/lib64", "/usr/lib", "/usr/lib64", NULL };
#endif

	if (!debian_host)
		return other;
	snprintf(slib, sizeof(slib), "/lib/%s", arch_native.multiarch);
	snprintf(lib, sizeof(lib), "/usr/lib/%s", arch_native.multiarch);
	debian[0] = slib;
	debian[1] = lib;
	return debian;
}

/* The directories NVIDIA's hook makes sure the host's ldconfig scans in this container
 * (internal/ldconfig: the zz-nvcr drop-in), by the container's distribution. */
static int container_system_dirs(int root_fd, struct strv_builder *out)
{
	_cleanup_close_ int fd = rootfs_open(root_fd, "/etc/debian_version", O_PATH);
	struct stat st;
	int r = 0;

	if (fd >= 0 && fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode)) {
		char dir[64];

		snprintf(dir, sizeof(dir), "/lib/%s", arch_native.multiarch);
		r = strv_builder_add(out, dir);
		snprintf(dir, sizeof(dir), "/usr/lib/%s", arch_native.multiarch);
		if (r >= 0)
			r = strv_builder_add(out, dir);
		if (r >= 0)
			r = strv_builder_add(out, "/lib");
		return r < 0 ? r : strv_builder_add(out, "/usr/lib");
	}
	for (const char *const *d = (const char *const[]){ "/lib", "/usr/lib", NULL }; *d && r >= 0;
	     d++)
		r = strv_builder_add(out, *d);
#if defined(__x86_64__) || defined(__aarch64__)
	if (r >= 0)
		r = strv_builder_add(out, "/lib64");
	if (r >= 0)
		r = strv_builder_add(out, "/usr/lib64");
#endif
#if defined(__x86_64__)
	if (r >= 0)
		r = strv_builder_add(out, "/libx32");
	if (r >= 0)
		r = strv_builder_add(out, "/usr/libx32");
#endif
	return r;
}

static int collect_line(const char *line, void *userdata)
{
	struct strv_builder *b = userdata;
	size_t n = strlen(line);

	while (n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\t' || line[n - 1] == '\r'))
		n--;
	return strv_builder_addn(b, line, n);
}

/* The --folder directories ldconfig would not scan anyway, each once, in order. */
static int new_folders(int root_fd, const struct hook_ldcache *o, char *const *system,
		       struct strv_builder *out)
{
	struct strv_builder known __attribute__((cleanup(strv_builder_clearp))) = { 0 };
	int r;

	r = ld_conf_read(root_fd, "/etc/ld.so.conf", collect_line, &known);
	for (size_t i = 0; r >= 0 && system[i]; i++)
		r = strv_builder_add(&known, system[i]);
	for (size_t i = 0; r >= 0 && i < o->n_folders; i++) {
		const char *f = o->folders[i];

		if (!*f || (known.v && strv_contains(known.v, f)) ||
		    (out->v && strv_contains(out->v, f)))
			continue;
		r = strv_builder_add(out, f);
	}
	return r;
}

static char *lines_text(char *const *v)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	for (size_t i = 0; v && v[i]; i++)
		fprintf(f, "%s\n", v[i]);
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

/* /etc/ld.so.conf as NVIDIA's hook makes it when the image has none (a link is left). */
static int ensure_ld_so_conf(int etc_fd, struct cdi_error *err)
{
	struct stat st;

	if (fstatat(etc_fd, "ld.so.conf", &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT)
		return 0;
	return rootfs_replace_file(etc_fd, "ld.so.conf", LD_SO_CONF_INCLUDE,
				   strlen(LD_SO_CONF_INCLUDE), 0644, "/etc/ld.so.conf", err);
}

/* musl reads /etc/ld-musl-<arch>.path, not the cache: the same directories appended. */
static int musl_path(int root_fd, int etc_fd, char *const *folders, char *const *system,
		     struct cdi_error *err)
{
	_cleanup_close_ int fd = rootfs_open(root_fd, "/etc/alpine-release", O_PATH);
	_cleanup_free_ char *old = NULL, *text = NULL;
	char name[64], label[80];
	struct strv_builder add __attribute__((cleanup(strv_builder_clearp))) = { 0 };
	struct stat st;
	size_t len = 0;
	FILE *f;
	int r = 0;

	if (!MUSL_ARCH || fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	snprintf(name, sizeof(name), "ld-musl-%s.path", MUSL_ARCH);
	snprintf(label, sizeof(label), "/etc/%s", name);
	r = read_regular_at(etc_fd, name, label, LD_CONF_MAX_BYTES, READ_MISSING_OK | READ_NOFOLLOW,
			    &old, &len, NULL, err);
	if (r < 0 && r != -ENOENT)
		return r;
	for (size_t i = 0; r >= 0 && folders && folders[i]; i++)
		r = add.v && strv_contains(add.v, folders[i]) ? 0
							      : strv_builder_add(&add, folders[i]);
	for (size_t i = 0; r >= 0 && system[i]; i++)
		r = add.v && strv_contains(add.v, system[i]) ? 0
							     : strv_builder_add(&add, system[i]);
	if (r < 0)
		return cdi_fail(err, r, "out of memory");
	f = open_memstream(&text, &len);
	if (!f)
		return cdi_fail(err, -ENOMEM, "out of memory");
	if (old)
		fputs(old, f);
	for (size_t i = 0; i < add.n; i++)
		fprintf(f, "%s\n", add.v[i]);
	if (fclose(f) != 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	return rootfs_replace_file(etc_fd, name, text, len, 0644, label, err);
}

/* The drop-ins and ld.so.conf, as NVIDIA's hook writes them before it runs ldconfig. */
static int write_config(int root_fd, int etc_fd, const struct hook_ldcache *o,
			struct cdi_error *err)
{
	struct strv_builder system __attribute__((cleanup(strv_builder_clearp))) = { 0 };
	struct strv_builder folders __attribute__((cleanup(strv_builder_clearp))) = { 0 };
	_cleanup_free_ char *text = NULL;
	int r;

	r = ensure_ld_so_conf(etc_fd, err);
	if (r < 0)
		return r;
	r = container_system_dirs(root_fd, &system);
	if (r >= 0)
		r = new_folders(root_fd, o, system.v, &folders);
	if (r < 0)
		return cdi_fail(err, r, "reading /etc/ld.so.conf: %s", strerror(-r));
	if (folders.n > 0) {
		text = lines_text(folders.v);
		if (!text)
			return cdi_fail(err, -ENOMEM, "out of memory");
		r = ld_conf_dropin(root_fd, LDCACHE_FOLDERS_DROPIN, text, err);
		if (r < 0)
			return r;
		free(TAKE_PTR(text));
	}
	text = lines_text(system.v);
	if (!text)
		return cdi_fail(err, -ENOMEM, "out of memory");
	r = ld_conf_dropin(root_fd, LDCACHE_SYSTEM_DROPIN, text, err);
	if (r < 0)
		return r;
	return musl_path(root_fd, etc_fd, folders.v, system.v, err);
}

int hook_update_ldcache(int root_fd, const struct hook_ldcache *opts, struct cdi_error *warnings,
			struct cdi_error *err)
{
	struct ldcache_merge cache __attribute__((cleanup(ldcache_merge_clearp))) = { 0 };
	struct ld_dirs dirs __attribute__((cleanup(ld_dirs_clearp))) = { 0 };
	_cleanup_close_ int etc_fd = -1;
	_cleanup_free_ char *data = NULL;
	const char *const *system;
	size_t size = 0;
	int r;

	etc_fd = rootfs_open_dir(root_fd, "/etc", 1);
	if (etc_fd < 0)
		return cdi_problem_add(err, etc_fd, "/etc", 0, 0, NULL, "%s", strerror(-etc_fd));
	r = write_config(root_fd, etc_fd, opts, err);
	if (r < 0)
		return r;
	r = ld_dirs_read_conf(&dirs, root_fd);
	system = ldcache_host_system_dirs(opts->debian_host);
	for (size_t i = 0; r >= 0 && system[i]; i++)
		r = ld_dirs_add_line(&dirs, root_fd, system[i]);
	if (r >= 0)
		r = ld_scan(root_fd, &dirs, &cache, warnings);
	if (r < 0)
		return cdi_fail(err, r, "scanning the container's libraries: %s", strerror(-r));
	r = ldcache_merge_build(&cache, &data, &size, err);
	if (r < 0)
		return r;
	return rootfs_replace_file(etc_fd, "ld.so.cache", data, size, 0644, "/etc/ld.so.cache",
				   err);
}
