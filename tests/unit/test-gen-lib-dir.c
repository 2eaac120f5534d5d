/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The library directory (generate/assemble/lib_dir.h): its names from a hand-built inventory, the
 * mounts left for the spec, and the builder on disk: hard links, bind mounts across filesystems (a
 * tmpfs in a private mount namespace), --check, and what root must refuse in a directory others
 * may reach (a symlink or a file at its place, a host file swapped for a link, a read-only
 * filesystem, a killed run's leftovers).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/testlib.h"
#include "assemble/lib_dir.h"
#include "assemble/spec_build.h"
#include "ldcache.h"

#define VER "550.54.15"
#define MA "/usr/lib/x86_64-linux-gnu"
#define MA32 "/usr/lib/i386-linux-gnu"

static char tmp[] = "/tmp/cdikit-libdir.XXXXXX";
static bool have_tmp;
static struct inventory inv;
static struct cdi_error err;

/* A library of the inventory: host file made under tmp/host, container paths as discovery
 * gives them (its own place first). */
static void add_lib(const char *own, bool is32, unsigned rank, const char *const names[])
{
	char host[PATH_MAX];
	struct inv_file *f;

	snprintf(host, sizeof(host), "%s/host%s", tmp, own);
	sh("mkdir -p \"$(dirname '%s')\" && printf '%s' > '%s'", host, own, host);
	cr_assert_eq(
		inventory_add_file(&inv, INV_LIBRARY, DRV_CAP_COMPUTE, is32, host, rank, &f, &err),
		0);
	cr_assert_eq(inv_file_add_path(f, own, "", "", &err), 0);
	for (size_t i = 0; names && names[i]; i++)
		cr_assert_eq(inv_file_add_path(f, names[i], "", "", &err), 0);
}

static void setup(void)
{
	cr_assert_not_null(mkdtemp(tmp));
	have_tmp = true;
	add_lib(MA "/libcuda.so." VER, false, 1,
		(const char *[]){ MA "/libcuda.so.1", MA "/libcuda.so", "/usr/lib64/libcuda.so.1",
				  "/usr/lib64/libcuda.so", "/usr/lib/libcuda.so.1",
				  "/usr/lib/libcuda.so", NULL });
	add_lib(MA "/libnvidia-ml.so." VER, false, 2,
		(const char *[]){ MA "/libnvidia-ml.so.1", "/usr/lib64/libnvidia-ml.so.1", NULL });
	add_lib(MA "/vdpau/libvdpau_nvidia.so." VER, false, 3,
		(const char *[]){ MA "/vdpau/libvdpau_nvidia.so.1", NULL });
	add_lib(MA "/libnvidia-allocator.so." VER, false, 4,
		(const char *[]){ MA "/libnvidia-allocator.so.1", MA "/gbm/nvidia-drm_gbm.so",
				  NULL });
	/* Claims libcuda's own name as a soname, and a name that would leave the directory:
	 * the own name wins, the escape is never made. */
	add_lib(MA "/libnvidia-foo.so." VER, false, 0,
		(const char *[]){ MA "/libcuda.so." VER, MA "/../../../etc/passwd", NULL });
	/* Two files want one link name: the lower rank (ld.so.cache order) wins. */
	add_lib(MA "/libnvidia-bar.so." VER, false, 9, (const char *[]){ MA "/libbar.so.1", NULL });
	add_lib(MA "/libnvidia-baz.so." VER, false, 8, (const char *[]){ MA "/libbar.so.1", NULL });
	add_lib(MA32 "/libcuda.so." VER, true, 5, (const char *[]){ MA32 "/libcuda.so.1", NULL });
}

static void teardown(void)
{
	inventory_clear(&inv);
	cdi_error_reset(&err);
	if (have_tmp)
		sh("findmnt -rn -o TARGET | grep -F '%s/' | sort -r | while read -r m; do umount -l "
		   "\"$m\"; done; rm -rf '%s'",
		   tmp, tmp);
}

TestSuite(lib_dir, .init = setup, .fini = teardown);

static const char *host_of(const struct lib_dir *ld, const char *rel)
{
	for (size_t i = 0; i < ld->n_links; i++)
		if (strcmp(ld->links[i].rel, rel) == 0)
			return ld->links[i].host + strlen(tmp) + strlen("/host");
	return NULL;
}

Test(lib_dir, names)
{
	struct lib_dir ld;
	static const struct {
		const char *rel, *own;
	} want[] = {
		{ "lib/libcuda.so.1", MA32 "/libcuda.so." VER },
		{ "lib/libcuda.so." VER, MA32 "/libcuda.so." VER },
		{ "lib64/gbm/nvidia-drm_gbm.so", MA "/libnvidia-allocator.so." VER },
		{ "lib64/libbar.so.1", MA "/libnvidia-baz.so." VER },
		{ "lib64/libcuda.so", MA "/libcuda.so." VER },
		{ "lib64/libcuda.so.1", MA "/libcuda.so." VER },
		{ "lib64/libcuda.so." VER, MA "/libcuda.so." VER },
		{ "lib64/libnvidia-allocator.so.1", MA "/libnvidia-allocator.so." VER },
		{ "lib64/libnvidia-allocator.so." VER, MA "/libnvidia-allocator.so." VER },
		{ "lib64/libnvidia-bar.so." VER, MA "/libnvidia-bar.so." VER },
		{ "lib64/libnvidia-baz.so." VER, MA "/libnvidia-baz.so." VER },
		{ "lib64/libnvidia-foo.so." VER, MA "/libnvidia-foo.so." VER },
		{ "lib64/libnvidia-ml.so.1", MA "/libnvidia-ml.so." VER },
		{ "lib64/libnvidia-ml.so." VER, MA "/libnvidia-ml.so." VER },
		{ "lib64/vdpau/libvdpau_nvidia.so.1", MA "/vdpau/libvdpau_nvidia.so." VER },
		{ "lib64/vdpau/libvdpau_nvidia.so." VER, MA "/vdpau/libvdpau_nvidia.so." VER },
	};
	size_t top = 0, n = sizeof(want) / sizeof(want[0]);
	char rel[PATH_MAX];

	cr_assert_eq(lib_dir_plan(&inv, "/x/nvidia.lib", &ld, &err), 0);
	for (size_t i = 0; i < ld.n_links; i++)
		cr_log_info("%s -> %s", ld.links[i].rel, ld.links[i].host);
	/* Every name at the top, each again in its capability group (compute; compute32 for the
	 * 32-bit ones), the same file; no cache file (no library has a cache entry here). */
	cr_assert_eq(ld.n_links, 2 * n);
	for (size_t i = 0; i < ld.n_links; i++) {
		const struct lib_link *l = &ld.links[i];

		if (strncmp(l->rel, "caps/", 5) == 0)
			continue;
		cr_assert_lt(top, n);
		cr_assert_str_eq(l->rel, want[top].rel);
		cr_assert_str_eq(host_of(&ld, want[top].rel), want[top].own, "%s", want[top].rel);
		snprintf(rel, sizeof(rel), "caps/%s/%s",
			 strncmp(l->rel, "lib/", 4) == 0 ? "compute32" : "compute", l->rel);
		cr_assert_str_eq(host_of(&ld, rel), want[top].own, "%s", rel);
		top++;
	}
	cr_assert_eq(top, n);
	cr_assert(ld.has64 && ld.has32);
	lib_dir_clear(&ld);
}

/* Cache files where a group or its lib64/lib may be mounted alone, paths relative to them, the
 * driver's version in the generator string; as glibc reads them. */
Test(lib_dir, cache_files)
{
	struct lib_dir ld;
	static const struct {
		const char *rel, *key, *value;
		int32_t flags;
	} want[] = {
		{ ".cdikit-ldcache", "libcuda.so.1", "lib64/libcuda.so.1", 0x0303 },
		{ ".cdikit-ldcache", "libcuda.so.1", "lib/libcuda.so.1", 0x0003 },
		{ "caps/compute/.cdikit-ldcache", "libcuda.so.1", "lib64/libcuda.so.1", 0x0303 },
		{ "caps/compute/lib64/.cdikit-ldcache", "libcuda.so.1", "libcuda.so.1", 0x0303 },
		{ "caps/compute32/.cdikit-ldcache", "libcuda.so.1", "lib/libcuda.so.1", 0x0003 },
		{ "caps/compute32/lib/.cdikit-ldcache", "libcuda.so.1", "libcuda.so.1", 0x0003 },
	};

	for (size_t i = 0; i < inv.n_files; i++) {
		struct inv_file *f = &inv.files[i];

		if (strstr(f->host_path, "/libcuda.so.")) {
			f->soname = strdup("libcuda.so.1");
			f->ldflags = f->is32 ? 0x0003 : 0x0303;
		}
	}
	strcpy(inv.driver_version, VER);
	cr_assert_eq(lib_dir_plan(&inv, "/x/nvidia.lib", &ld, &err), 0);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct lib_link *l = NULL;
		struct ldcache *c = NULL;
		bool found = false;

		for (size_t k = 0; k < ld.n_links; k++)
			if (strcmp(ld.links[k].rel, want[i].rel) == 0)
				l = &ld.links[k];
		cr_assert_not_null(l, "%s", want[i].rel);
		cr_assert_null(l->host);
		cr_assert_eq(ldcache_parse(l->content, l->content_len, want[i].rel, &c, &err), 0,
			     "%s", cdi_error_message(&err));
		cr_assert(c->generator && c->generator_len == strlen("cdikit libcuda.so." VER) &&
			  !memcmp(c->generator, "cdikit libcuda.so." VER, c->generator_len));
		for (size_t k = 0; k < c->n_entries; k++)
			found |= !strcmp(c->entries[k].key, want[i].key) &&
				 !strcmp(c->entries[k].value, want[i].value) &&
				 c->entries[k].flags == want[i].flags;
		cr_assert(found, "%s: no %s => %s", want[i].rel, want[i].key, want[i].value);
		ldcache_free(c);
	}
	lib_dir_clear(&ld);
}

Test(lib_dir, default_path)
{
	_cleanup_free_ char *a = NULL, *b = NULL, *c = NULL;

	cr_assert_eq(lib_dir_default_path("/etc/cdi/nvidia.yaml", &a, &err), 0);
	cr_assert_eq(lib_dir_default_path("/var/run/cdi/nvidia.json", &b, &err), 0);
	cr_assert_eq(lib_dir_default_path("out/spec", &c, &err), 0);
	cr_assert_str_eq(a, "/etc/cdi/nvidia.lib");
	cr_assert_str_eq(b, "/var/run/cdi/nvidia.lib");
	cr_assert_str_eq(c, "out/spec.lib");
}

/* After the rewrite the spec mounts the directory and the core sonames, from the directory. */
Test(lib_dir, layout_mounts)
{
	_cleanup_json_ json_t *mounts = NULL;
	struct lib_dir ld;
	static const char *const want[][2] = {
		{ "/usr/lib/i386-linux-gnu/libcuda.so.1", "/x/nvidia.lib/lib/libcuda.so.1" },
		{ "/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/x/nvidia.lib/lib64/libcuda.so.1" },
		{ "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1",
		  "/x/nvidia.lib/lib64/libnvidia-ml.so.1" },
		{ "/usr/lib64/libcuda.so.1", "/x/nvidia.lib/lib64/libcuda.so.1" },
		{ "/usr/lib64/libnvidia-ml.so.1", "/x/nvidia.lib/lib64/libnvidia-ml.so.1" },
		{ "/usr/local/nvidia", "/x/nvidia.lib" },
	};
	size_t i;
	json_t *m;

	cr_assert_eq(lib_dir_plan(&inv, "/x/nvidia.lib", &ld, &err), 0);
	cr_assert_eq(lib_dir_layout(&inv, &ld, &err), 0);
	cr_assert_eq(spec_mounts(&inv, &mounts, NULL, &err), 0);
	json_array_foreach (mounts, i, m)
		cr_log_info("%s <- %s", json_string_value(json_object_get(m, "containerPath")),
			    json_string_value(json_object_get(m, "hostPath")));
	cr_assert_eq(json_array_size(mounts), sizeof(want) / sizeof(want[0]));
	json_array_foreach (mounts, i, m) {
		cr_assert_str_eq(json_string_value(json_object_get(m, "containerPath")),
				 want[i][0]);
		cr_assert_str_eq(json_string_value(json_object_get(m, "hostPath")), want[i][1]);
	}
	lib_dir_clear(&ld);
}

/* The facts' record: where the directory is, each group's tag and parts. */
Test(lib_dir, facts_record)
{
	_cleanup_json_ json_t *rec = NULL,
			      *want = json_pack("{s:{s:s, s:[s]}, s:{s:s, s:[s]}}", "compute32",
						"tag", "compute/32", "parts", "lib", "compute",
						"tag", "compute", "parts", "lib64");
	struct lib_dir ld;

	cr_assert_eq(lib_dir_plan(&inv, "/x/nvidia.lib", &ld, &err), 0);
	cr_assert_eq(lib_dir_facts(&ld, &rec, &err), 0);
	cr_assert_str_eq(json_string_value(json_object_get(rec, "containerPath")),
			 "/usr/local/nvidia");
	cr_assert_str_eq(json_string_value(json_object_get(rec, "hostPath")), "/x/nvidia.lib");
	cr_assert(json_equal(json_object_get(rec, "groups"), want));
	lib_dir_clear(&ld);
}

/* The directory at path, planned from the inventory. */
static void plan_at(const char *sub, struct lib_dir *ld)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", tmp, sub);
	cr_assert_eq(lib_dir_plan(&inv, path, ld, &err), 0);
}

/* Every name is the host file (device and inode); directories 0755. */
static void assert_built(const struct lib_dir *ld)
{
	char p[PATH_MAX];
	struct stat a, b;

	for (size_t i = 0; i < ld->n_links; i++) {
		snprintf(p, sizeof(p), "%s/%s", ld->path, ld->links[i].rel);
		cr_assert_eq(lstat(p, &a), 0, "%s", p);
		cr_assert_eq(stat(ld->links[i].host, &b), 0);
		cr_assert(S_ISREG(a.st_mode) && a.st_ino == b.st_ino && a.st_dev == b.st_dev, "%s",
			  p);
	}
	snprintf(p, sizeof(p), "%s/lib64/vdpau", ld->path);
	cr_assert_eq(stat(p, &a), 0);
	cr_assert_eq(a.st_mode & 07777, 0755);
	cr_assert_eq(stat(ld->path, &a), 0);
	cr_assert_eq(a.st_mode & 07777, 0755);
}

static bool fresh(const struct lib_dir *ld, char *reason, size_t size)
{
	bool ok = false;

	cr_assert_eq(lib_dir_check(ld, &ok, reason, size, &err), 0);
	return ok;
}

/* --check says stale, for a reason that mentions what. */
static void assert_stale(const struct lib_dir *ld, const char *what)
{
	char reason[256];

	cr_assert_not(fresh(ld, reason, sizeof(reason)));
	cr_assert(strstr(reason, what), "%s", reason);
}

Test(lib_dir, hard_links_check_and_rebuild)
{
	enum lib_dir_result res;
	struct lib_dir ld;
	char reason[256];

	plan_at("cdi/nvidia.lib", &ld);
	assert_stale(&ld, "does not exist");
	cr_assert(lib_dir_placeable(&ld, false, reason, sizeof(reason)), "%s", reason);
	cr_assert_eq(lib_dir_write(&ld, true, &res, &err), 0, "%s", cdi_error_message(&err));
	cr_assert_eq(res, LIB_DIR_LINKED);
	assert_built(&ld);
	cr_assert(fresh(&ld, reason, sizeof(reason)), "%s", reason);
	cr_assert_eq(lib_dir_write(&ld, true, &res, &err), 0);
	cr_assert_eq(res, LIB_DIR_UNCHANGED);

	/* A name nobody asked for, a name swapped for a copy: stale, and rebuilt without them;
	 * a killed run's temp directory goes too. */
	sh("cd '%s/cdi' && : > nvidia.lib/lib64/libextra.so && rm nvidia.lib/lib64/libcuda.so.1 && "
	   "cp nvidia.lib/lib64/libcuda.so." VER " nvidia.lib/lib64/libcuda.so.1 && "
	   "mkdir .nvidia.lib.abcdef.tmp && : > .nvidia.lib.abcdef.tmp/x",
	   tmp);
	assert_stale(&ld, "libcuda.so.1 is not");
	cr_assert_eq(lib_dir_write(&ld, true, &res, &err), 0);
	cr_assert_eq(res, LIB_DIR_LINKED);
	assert_built(&ld);
	/* The replaced directory stays, as a container of this boot may have it mounted; the
	 * killed run's build is gone. */
	sh("cd '%s/cdi' && test ! -e nvidia.lib/lib64/libextra.so && "
	   "test \"$(ls -A | grep -v '^nvidia.lib$')\" = \"$(ls -A | grep '^[.]nvidia[.]lib[.].*[.]old$')\" && "
	   "test -e .nvidia.lib.*.old/lib64/libextra.so && test ! -e .nvidia.lib.abcdef.tmp",
	   tmp);
	/* A driver upgraded in place (a new file at the same path): the directory's hard link is
	 * the old inode, stale until rebuilt. */
	sh("cd '%s/host" MA "' && cp libnvidia-ml.so." VER " n && mv n libnvidia-ml.so." VER, tmp);
	assert_stale(&ld, "libnvidia-ml.so.1 is not");
	cr_assert_eq(lib_dir_write(&ld, true, &res, &err), 0);
	cr_assert_eq(res, LIB_DIR_LINKED);
	assert_built(&ld);
	/* A directory others could write into is not fresh. */
	sh("chmod 0775 '%s/cdi/nvidia.lib/lib64'", tmp);
	assert_stale(&ld, "0755");
	lib_dir_clear(&ld);
}

/* Nothing at the place is followed or replaced unless it is a directory; nothing is left. */
Test(lib_dir, refuses_what_is_in_the_way)
{
	enum lib_dir_result res;
	struct lib_dir ld;

	plan_at("cdi/nvidia.lib", &ld);
	sh("mkdir -p '%s/cdi' '%s/elsewhere' && : > '%s/elsewhere/keep' && "
	   "ln -s ../elsewhere '%s/cdi/nvidia.lib'",
	   tmp, tmp, tmp, tmp);
	cr_assert_eq(lib_dir_write(&ld, true, &res, &err), -EEXIST);
	cr_assert(strstr(cdi_error_message(&err), "symlink"), "%s", cdi_error_message(&err));
	sh("cd '%s' && test -L cdi/nvidia.lib && test \"$(ls -A elsewhere)\" = keep && "
	   "test \"$(ls -A cdi)\" = nvidia.lib",
	   tmp);
	cdi_error_reset(&err);
	sh("rm '%s/cdi/nvidia.lib' && : > '%s/cdi/nvidia.lib'", tmp, tmp);
	cr_assert_eq(lib_dir_write(&ld, true, &res, &err), -EEXIST);
	sh("test -f '%s/cdi/nvidia.lib' && test ! -s '%s/cdi/nvidia.lib'", tmp, tmp);
	lib_dir_clear(&ld);
}

/* A driver file swapped for a symlink (to a file root would not give away) is not linked. */
Test(lib_dir, host_file_swapped_for_a_link)
{
	enum lib_dir_result res;
	struct lib_dir ld;

	plan_at("cdi/nvidia.lib", &ld);
	cr_assert_eq(lib_dir_write(&ld, true, &res, &err), 0);
	sh("cd '%s/host" MA "' && rm libnvidia-ml.so." VER
	   " && ln -s /etc/shadow libnvidia-ml.so." VER,
	   tmp);
	cr_assert_lt(lib_dir_write(&ld, true, &res, &err), 0);
	cr_assert(strstr(cdi_error_message(&err), "libnvidia-ml.so." VER), "%s",
		  cdi_error_message(&err));
	/* The old directory stays as it was, and no temp directory is left. */
	sh("cd '%s/cdi' && test \"$(ls -A)\" = nvidia.lib && test -f nvidia.lib/lib64/libcuda.so.1 && "
	   "! grep -rqs root: nvidia.lib",
	   tmp);
	lib_dir_clear(&ld);
}

/* A private mount namespace for the mounts a test makes (criterion runs each test in its own
 * process). */
static void private_mounts(void)
{
	if (unshare(CLONE_NEWNS) < 0 || mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0)
		cr_skip_test("no private mount namespace here: %s", strerror(errno));
}

/* The mount API the bind mounts use: valgrind does not know open_tree (there the test has
 * nothing to check and returns; a criterion skip would leak its own buffers). */
static bool have_open_tree(void)
{
	int fd = open_tree(AT_FDCWD, "/", OPEN_TREE_CLOEXEC);

	if (fd < 0 && errno == ENOSYS)
		return false;
	if (fd >= 0)
		close(fd);
	return true;
}

Test(lib_dir, read_only_filesystem)
{
	enum lib_dir_result res;
	struct lib_dir ld;
	char ro[PATH_MAX], why[256];

	private_mounts();
	snprintf(ro, sizeof(ro), "%s/ro", tmp);
	sh("mkdir -p '%s'", ro);
	cr_assert_eq(mount("cdikit-test", ro, "tmpfs", MS_RDONLY, "mode=0755"), 0);
	plan_at("ro/nvidia.lib", &ld);
	cr_assert_not(lib_dir_placeable(&ld, true, why, sizeof(why)));
	cr_assert(strstr(why, "not writable"), "%s", why);
	cr_assert_eq(lib_dir_write(&ld, true, &res, &err), -EROFS, "%s", cdi_error_message(&err));
	cr_assert(strstr(cdi_error_message(&err), "ro"), "%s", cdi_error_message(&err));
	lib_dir_clear(&ld);
}

static int mounts_under(const char *dir)
{
	char cmd[PATH_MAX + 64];
	int n = -1;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "grep -cF ' %s/' /proc/self/mountinfo", dir);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	cr_assert_eq(fscanf(p, "%d", &n), 1);
	pclose(p);
	return n;
}

/* On another filesystem than the driver: read-only bind mounts, detached when replaced. */
Test(lib_dir, bind_mounts_across_filesystems)
{
	enum lib_dir_result res;
	struct lib_dir ld;
	char fs[PATH_MAX], reason[256], p[PATH_MAX];

	if (!have_open_tree())
		return;
	private_mounts();
	snprintf(fs, sizeof(fs), "%s/other", tmp);
	sh("mkdir -p '%s'", fs);
	cr_assert_eq(mount("cdikit-test", fs, "tmpfs", 0, "mode=0755"), 0);
	plan_at("other/nvidia.lib", &ld);
	cr_assert_eq(lib_dir_write(&ld, true, &res, &err), 0, "%s", cdi_error_message(&err));
	cr_assert_eq(res, LIB_DIR_BOUND);
	assert_built(&ld);
	cr_assert_eq(mounts_under(fs), (int)ld.n_links);
	cr_assert(fresh(&ld, reason, sizeof(reason)), "%s", reason);
	/* read-only: not even root writes through to the driver's file */
	snprintf(p, sizeof(p), "%s/lib64/libcuda.so.1", ld.path);
	cr_assert_lt(open(p, O_WRONLY), 0);
	cr_assert_eq(errno, EROFS);
	/* A new driver file: rebuilt, the old mounts gone with the old directory. */
	sh("cd '%s/host" MA "' && cp libcuda.so." VER " n && mv n libcuda.so." VER, tmp);
	cr_assert_not(fresh(&ld, reason, sizeof(reason)));
	cr_assert_eq(lib_dir_write(&ld, true, &res, &err), 0);
	cr_assert_eq(res, LIB_DIR_BOUND);
	assert_built(&ld);
	/* the old tree and its mounts stay for the containers of this boot */
	cr_assert_eq(mounts_under(fs), 2 * (int)ld.n_links);
	sh("cd '%s' && test \"$(ls -A | wc -l)\" = 2 && test -s .nvidia.lib.*.old/lib64/libcuda.so.1",
	   fs);
	lib_dir_clear(&ld);
}

/* A config file of the inventory with this content, at its container path. */
static void add_config(const char *container, const char *content)
{
	char host[PATH_MAX];
	struct inv_file *f;
	FILE *out;

	snprintf(host, sizeof(host), "%s/host/cfg%s", tmp, container);
	sh("mkdir -p \"$(dirname '%s')\"", host);
	out = fopen(host, "w");
	cr_assert_not_null(out);
	fputs(content, out);
	fclose(out);
	cr_assert_eq(
		inventory_add_file(&inv, INV_CONFIG, DRV_CAP_GRAPHICS, false, host, 0, &f, &err),
		0);
	cr_assert_eq(inv_file_add_path(f, container, "", "", &err), 0);
}

static const struct lib_link *link_of(const struct lib_dir *ld, const char *rel)
{
	for (size_t i = 0; i < ld->n_links; i++)
		if (strcmp(ld->links[i].rel, rel) == 0)
			return &ld->links[i];
	return NULL;
}

/* Loader ICD files name the directory's libraries by absolute path; others stay the host's. */
Test(lib_dir, icd_files_name_the_directory)
{
	const struct lib_link *l;
	enum lib_dir_result res;
	struct lib_dir ld;
	char reason[256], p[PATH_MAX];

	add_config(
		"/etc/vulkan/icd.d/nvidia_icd.json",
		"{\"ICD\": {\"library_path\" :\n \"libcuda.so.1\", \"api_version\": \"1.3\"}}\n");
	add_config("/etc/OpenCL/vendors/nvidia.icd", "libnvidia-ml.so.1\n");
	/* not a library of the directory, a path already, a name with an escape: unchanged */
	add_config("/usr/share/glvnd/egl_vendor.d/10_nvidia.json",
		   "{\"ICD\": {\"library_path\": \"libEGL_nvidia.so.0\"}}");
	add_config(
		"/usr/share/egl/egl_external_platform.d/x.json",
		"{\"library_path\": \"/opt/libcuda.so.1\", \"library_path\": \"libcuda\\u002eso.1\"}");
	plan_at("cdi/nvidia.lib", &ld);
	l = link_of(&ld, "files/etc/vulkan/icd.d/nvidia_icd.json");
	cr_assert_not_null(l);
	cr_assert_str_eq(l->content, "{\"ICD\": {\"library_path\" :\n \"/usr/local/nvidia/lib64/"
				     "libcuda.so.1\", \"api_version\": \"1.3\"}}\n");
	/* The group's copy names the library where its own group is mounted. */
	l = link_of(&ld, "caps/graphics/files/etc/vulkan/icd.d/nvidia_icd.json");
	cr_assert_not_null(l);
	cr_assert_str_eq(l->content, "{\"ICD\": {\"library_path\" :\n \"/usr/local/nvidia/caps/"
				     "compute/lib64/libcuda.so.1\", \"api_version\": \"1.3\"}}\n");
	l = link_of(&ld, "files/etc/OpenCL/vendors/nvidia.icd");
	cr_assert_not_null(l);
	cr_assert_str_eq(l->content, "/usr/local/nvidia/lib64/libnvidia-ml.so.1\n");
	/* Not rewritten: the host's file, linked. */
	l = link_of(&ld, "files/usr/share/glvnd/egl_vendor.d/10_nvidia.json");
	cr_assert(l && l->host && !l->content);
	l = link_of(&ld, "files/usr/share/egl/egl_external_platform.d/x.json");
	cr_assert(l && l->host && !l->content);

	cr_assert_eq(lib_dir_layout(&inv, &ld, &err), 0);
	for (size_t i = 0; i < inv.n_files; i++) {
		const struct inv_file *f = &inv.files[i];

		/* every config file is mounted from the directory: a copy or the same file */
		if (f->kind == INV_CONFIG)
			cr_assert_eq(strncmp(f->host_path, ld.path, strlen(ld.path)), 0,
				     "%s from %s", f->container_paths[0], f->host_path);
	}
	cr_assert_eq(lib_dir_write(&ld, true, &res, &err), 0, "%s", cdi_error_message(&err));
	cr_assert(fresh(&ld, reason, sizeof(reason)), "%s", reason);
	snprintf(p, sizeof(p), "%s/files/etc/OpenCL/vendors/nvidia.icd", ld.path);
	sh("test \"$(stat -c %%a '%s')\" = 644 && echo x >> '%s'", p, p);
	assert_stale(&ld, "nvidia.icd is not");
	lib_dir_clear(&ld);
}

/* Bind mounts not allowed (cdi-generate in a private mount namespace): an error, nothing left. */
Test(lib_dir, no_bind_mounts_where_engines_would_not_see_them)
{
	enum lib_dir_result res;
	struct lib_dir ld;
	char fs[PATH_MAX], why[256];

	private_mounts();
	snprintf(fs, sizeof(fs), "%s/other", tmp);
	sh("mkdir -p '%s'", fs);
	cr_assert_eq(mount("cdikit-test", fs, "tmpfs", 0, "mode=0755"), 0);
	plan_at("other/nvidia.lib", &ld);
	/* cdi-generate's default layout would not try: another mount than the driver's files */
	cr_assert_not(lib_dir_placeable(&ld, false, why, sizeof(why)));
	cr_assert(strstr(why, "another mount"), "%s", why);
	cr_assert(lib_dir_placeable(&ld, true, why, sizeof(why)), "%s", why);
	cr_assert_eq(lib_dir_write(&ld, false, &res, &err), -EXDEV);
	cr_assert(strstr(cdi_error_message(&err), "--library-dir"), "%s", cdi_error_message(&err));
	sh("test -z \"$(ls -A '%s')\"", fs);
	cr_assert_eq(mounts_under(fs), 0);
	lib_dir_clear(&ld);
}
