/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A Jetson (Tegra) host, a discovery source (nvidia-ctk's csv mode): its integrated GPU has no
 * NVML and no /proc/driver/nvidia/gpus entry; L4T lists what a container needs in the CSV files
 * of host-files-for-container.d. dev rows become the nodes of the device "0", lib, sym and dir
 * rows mounts at the path they name (a link's target mounted at the link's place: no hook makes
 * the link). Paths under /dev are the dev root's, the others the driver root's.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "csv_rows.h"
#include "discover.h"
#include "host/host_file.h"
#include "host/procfs.h"
#include "macro.h"
#include "problem.h"
#include "strv.h"

#define CSV_MOUNT_SPEC_DIR "/etc/nvidia-container-runtime/host-files-for-container.d"
#define CSV_MAX_FILES 64u
#define CSV_MAX_FILE_SIZE (1u << 20)

static bool keep_csv(const char *name, unsigned char d_type, void *userdata)
{
	size_t n = strlen(name);

	(void)userdata;
	/* Any type but a directory: a FIFO or a device named *.csv is refused when opened. */
	return name[0] != '.' && n > 4 && strcasecmp(name + n - 4, ".csv") == 0 && d_type != DT_DIR;
}

/* Every CSV file of the directory, parsed into rows; names keeps the labels rows point to. */
static int read_csv_files(struct discovery *d, struct strv_builder *names, struct csv_rows *rows)
{
	_cleanup_strv_free_ char **files = NULL;
	_cleanup_free_ char *given = host_path(d->host->driver_root, CSV_MOUNT_SPEC_DIR);
	size_t n = 0;
	int r, first = 0;

	if (!given)
		return cdi_fail(d->err, -ENOMEM, "out of memory");
	r = root_fs_list(&d->driver_fs, CSV_MOUNT_SPEC_DIR, keep_csv, NULL, &files, &n, NULL);
	if (r == -ENOMEM)
		return cdi_fail(d->err, r, "out of memory");
	if (r < 0)
		return cdi_problem_add(d->err, -ENODEV, given, 0, 0, NULL,
				       "cannot read the CSV directory: %s", strerror(-r));
	if (n == 0)
		return cdi_problem_add(d->err, -ENODEV, given, 0, 0, NULL, "no *.csv files");
	if (n > CSV_MAX_FILES)
		return cdi_problem_add(d->err, -E2BIG, given, 0, 0, NULL, "more than %u CSV files",
				       CSV_MAX_FILES);
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *path = NULL, *buf = NULL;
		size_t len = 0;

		if (asprintf(&path, "%s/%s", CSV_MOUNT_SPEC_DIR, files[i]) < 0 ||
		    strv_builder_take(names, host_path(d->host->driver_root, path)) < 0 ||
		    !names->v[names->n - 1])
			return cdi_fail(d->err, -ENOMEM, "out of memory");
		r = host_file_read(d->host->driver_root, path, CSV_MAX_FILE_SIZE, 0, &buf, &len,
				   d->err);
		if (r >= 0)
			r = csv_rows_parse(names->v[names->n - 1], buf, len, rows, d->err);
		if (r == -ENOMEM)
			return r;
		if (r < 0 && first == 0)
			first = r;
	}
	return first;
}

/* The dev rows' nodes: each row's last name is a pattern in its directory. */
static int csv_nodes(struct discovery *d, const struct csv_rows *rows)
{
	_cleanup_free_ struct node_pattern *p = calloc(rows->n + 1, sizeof(*p));
	struct strv_builder dirs = { 0 };
	size_t n = 0;
	int r = 0;

	if (!p)
		return cdi_fail(d->err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < rows->n; i++) {
		const char *path = rows->v[i].path, *slash = strrchr(path, '/');

		if (rows->v[i].kind != CSV_DEV || !slash[1])
			continue;
		if (strv_builder_addn(&dirs, path, slash == path ? 1 : (size_t)(slash - path)) <
		    0) {
			strv_builder_clear(&dirs);
			return cdi_fail(d->err, -ENOMEM, "out of memory");
		}
		p[n++] = (struct node_pattern){ .pattern = slash + 1 };
	}
	for (size_t i = 0; i < n; i++)
		p[i].dir = dirs.v[i];
	r = discover_pattern_nodes(d, p, n);
	strv_builder_clear(&dirs);
	return r;
}

/* A lib, sym or dir row as a mount; a row naming nothing here is said and skipped. */
static int csv_file(struct discovery *d, struct root_fs *dev_fs, const struct csv_row *row)
{
	static const struct {
		mode_t type;
		enum inv_file_kind kind;
		const char *what;
	} as[] = {
		[CSV_LIB] = { S_IFREG, INV_LIBRARY, "a file" },
		[CSV_SYM] = { 0, INV_LIBRARY, "a file or directory" },
		[CSV_DIR] = { S_IFDIR, INV_CONFIG, "a directory" },
	};
	bool dev = strncmp(row->path, "/dev/", 5) == 0;
	int r;

	r = discovery_add_path(d, dev ? dev_fs : &d->driver_fs, row->path, as[row->kind].type,
			       as[row->kind].kind, row->path);
	if (r != -ENOENT)
		return r;
	cdi_problem_add(
		d->warn, 0, row->file, row->line, 0, NULL, "%s%s is not %s on this host; left out",
		dev ? d->host->dev_root : d->host->driver_root, row->path, as[row->kind].what);
	return 0;
}

/* "libcuda.so.1": a name as a soname is (one number after ".so."), not a versioned file. */
static bool soname_like(const char *name)
{
	const char *so = strstr(name, ".so.");

	return strncmp(name, "lib", 3) == 0 && so && so[4] &&
	       strspn(so + 4, "0123456789") == strlen(so + 4);
}

/*
 * L4T keeps the driver's libraries in <multiarch>/nvidia (tegra before JetPack 6), which its own
 * ld.so.conf.d names; a container image does not. Each soname there (libcuda.so.1, the links
 * the CSV files list) is also mounted in <multiarch>, which the linker searches without a
 * cache: libcuda.so.1 loads by soname with no hook.
 */
static int add_soname_paths(struct discovery *d, size_t first_file)
{
	for (size_t i = first_file; i < d->inv->n_files; i++) {
		struct inv_file *f = &d->inv->files[i];
		size_t n = f->n_container_paths;

		for (size_t k = 0; f->kind == INV_LIBRARY && k < n; k++) {
			const char *p = f->container_paths[k], *name = strrchr(p, '/');
			const char *sub = name ? name : p;
			char dir[PATH_MAX];
			int r;

			while (sub > p && sub[-1] != '/')
				sub--;
			if (!name || sub == p || !soname_like(name + 1) ||
			    (strncmp(sub, "nvidia/", 7) != 0 && strncmp(sub, "tegra/", 6) != 0))
				continue;
			snprintf(dir, sizeof(dir), "%.*s", (int)(sub - p), p);
			r = inv_file_add_path(f, dir, name + 1, "", d->err);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* The running driver's version for the facts file, when the host has the OpenRM display
 * driver's /proc/driver/nvidia/version (Orin does); without it the facts have none. */
static int csv_driver_version(struct discovery *d)
{
	struct cdi_error ignored = { 0 };

	d->inv->has_driver = true;
	if (procfs_driver_version(d->host->root, d->inv->driver_version, &ignored) < 0)
		d->inv->driver_version[0] = '\0';
	cdi_error_reset(&ignored);
	return 0;
}

int discover_csv(struct discovery *d)
{
	struct strv_builder names = { 0 };
	struct csv_rows rows = { 0 };
	struct root_fs dev_fs;
	size_t first = d->inv->n_nodes;
	int r;

	root_fs_init(&dev_fs, d->host->dev_root);
	r = read_csv_files(d, &names, &rows);
	if (r >= 0)
		r = csv_nodes(d, &rows);
	if (r >= 0 && d->inv->n_nodes == first) {
		_cleanup_free_ char *dev = host_path(d->host->dev_root, "/dev");

		r = cdi_problem_add(d->err, -ENODEV, dev, 0, 0, NULL,
				    "none of the device nodes the CSV files list is here");
	}
	if (r >= 0)
		r = inventory_add_device(d->inv, "0", true, first, d->inv->n_nodes - first, d->err);
	for (size_t i = 0; r >= 0 && i < rows.n; i++)
		if (rows.v[i].kind != CSV_DEV)
			r = csv_file(d, &dev_fs, &rows.v[i]);
	if (r >= 0)
		r = add_soname_paths(d, 0);
	if (r >= 0)
		r = csv_driver_version(d);
	csv_rows_clear(&rows);
	strv_builder_clear(&names);
	root_fs_clear(&dev_fs);
	return r;
}
