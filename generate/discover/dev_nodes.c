/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Device nodes as the host's dev-root has them: a discovery source. Each node is looked at with
 * lstat inside the root (its directory resolved there, the node itself never followed), so
 * ROOT/dev/nvidia0 -> /dev/kvm is a link, not the host's kvm device; its numbers are checked
 * against the majors the root's /proc/devices gives the driver's devices.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "dir_list.h"
#include "discover.h"
#include "host/host_file.h"
#include "macro.h"
#include "problem.h"
#include "host/procfs.h"
#include "strv.h"

#define MAX_NODES 4096u /* NVIDIA device nodes a management spec may hold */

/* What a node's device number must be: the major of the first of major_names /proc/devices
 * lists, and minor. */
struct node_expect {
	const char *major_names[2];
	unsigned minor;
};

struct nodes {
	struct discovery *d;
	const char *dev_root;
	struct root_fs dev_fs;
	char *proc_devices; /* NULL when the root has none: nothing to hold a node against */
	/* Majors looked up so far, so each name is parsed out of /proc/devices once. */
	struct {
		const char *name; /* static */
		int r;
		unsigned major;
	} majors[8];
	size_t n_majors;
	char last_dir[64];     /* the directory of the node looked at last, */
	const char *last_real; /* resolved inside dev-root ("" for "/"), NULL when not */
	struct mig_minors mm;
	bool mm_read;
};

static int nodes_init(struct nodes *n, struct discovery *d)
{
	int r;

	*n = (struct nodes){ .d = d, .dev_root = d->host->dev_root };
	root_fs_init(&n->dev_fs, n->dev_root);
	r = host_file_read(d->host->root, PROCFS_DEVICES, PROCFS_MAX_FILE, HOST_FILE_OPTIONAL,
			   &n->proc_devices, NULL, d->err);
	return r == -ENOENT ? 0 : r;
}

static void nodes_done(struct nodes *n)
{
	root_fs_clear(&n->dev_fs);
	free(n->proc_devices);
	mig_minors_clear(&n->mm);
}

/* The major /proc/devices gives the character device name; -ENOENT when it has none. */
static int proc_major(struct nodes *n, const char *name, unsigned *ret)
{
	int r;

	for (size_t i = 0; i < n->n_majors; i++)
		if (strcmp(n->majors[i].name, name) == 0) {
			*ret = n->majors[i].major;
			return n->majors[i].r;
		}
	r = procfs_parse_char_major(PROCFS_DEVICES, n->proc_devices, name, ret, NULL);
	if (n->n_majors < ELEMENTSOF(n->majors))
		n->majors[n->n_majors++] = (typeof(n->majors[0])){ name, r, r == 0 ? *ret : 0 };
	return r;
}

/* The major the root's /proc/devices gives the first name of want it lists; -ENOENT if none. */
static int expected_major(struct nodes *n, const struct node_expect *want, const char **ret_name,
			  unsigned *ret_major)
{
	if (!n->proc_devices)
		return -ENOENT;
	for (size_t i = 0; i < ELEMENTSOF(want->major_names) && want->major_names[i]; i++)
		if (proc_major(n, want->major_names[i], ret_major) == 0) {
			*ret_name = want->major_names[i];
			return 0;
		}
	return -ENOENT;
}

/* What lstat found at a node's place, judged: a character device with the expected numbers. */
static int judge(struct nodes *n, struct inv_node *node, const char *full, const struct stat *st,
		 const struct node_expect *want)
{
	const char *name = NULL;
	unsigned major = 0;

	if (S_ISLNK(st->st_mode)) {
		char target[PATH_MAX];
		ssize_t len = readlink(full, target, sizeof(target) - 1);

		target[len > 0 ? len : 0] = '\0';
		return inv_node_set_problem(
			node, -ELOOP, n->d->err,
			"is a symbolic link (to %s), not a device node; not followed",
			len > 0 ? target : "?");
	}
	if (!S_ISCHR(st->st_mode))
		return inv_node_set_problem(node, -ENOTTY, n->d->err, "not a character device");
	node->major = major(st->st_rdev);
	node->minor = minor(st->st_rdev);
	node->mode = st->st_mode & 07777;
	node->gid = st->st_gid;
	if (want && expected_major(n, want, &name, &major) == 0 &&
	    (node->major != major || node->minor != want->minor))
		return inv_node_set_problem(
			node, -ESTALE, n->d->err,
			"character device %u:%u, but the driver's %s is %u:%u (stale device node)",
			node->major, node->minor, name, major, want->minor);
	return 0;
}

/* a + b + c into buf (a big host's thousand nodes: no formatting, no allocation); false if
 * it does not fit. */
static bool join3(char *buf, size_t size, const char *a, const char *b, const char *c)
{
	size_t la = strlen(a), lb = strlen(b), lc = strlen(c);

	if (la + lb + lc >= size)
		return false;
	memcpy(buf, a, la);
	memcpy(buf + la, b, lb);
	memcpy(buf + la + lb, c, lc + 1);
	return true;
}

/* lstat of path's place inside dev-root (its directory resolved there, the name not). */
static int look_at(struct nodes *n, const char *path, char *full, size_t size, struct stat *st)
{
	const char *slash = strrchr(path, '/'), *real_dir = NULL;
	size_t dlen = slash ? (size_t)(slash - path) : 0;
	int r;

	if (!slash || dlen >= sizeof(n->last_dir))
		return -ENAMETOOLONG;
	/* Nodes come in runs of one directory (/dev/nvidia-caps): resolve it once per run. */
	if (!n->last_real || strncmp(n->last_dir, path, dlen) != 0 || n->last_dir[dlen] != '\0') {
		memcpy(n->last_dir, path, dlen);
		n->last_dir[dlen] = '\0';
		n->last_real = NULL;
		r = root_fs_dir(&n->dev_fs, dlen ? n->last_dir : "/", &real_dir);
		if (r < 0)
			return r;
		n->last_real = strcmp(real_dir, "/") ? real_dir : "";
	}
	if (!join3(full, size, n->dev_root, n->last_real, slash))
		return -ENAMETOOLONG;
	return lstat(full, st) < 0 ? negative_errno() : 0;
}

/*
 * Look at the node path (under dev-root) and add it to the inventory, with what is wrong with it
 * if anything. A node that does not exist is added only when required (as missing); *ret_index
 * is INV_NO_NODE when it was not added.
 */
static int inspect(struct nodes *n, const char *path, enum node_role role, enum drv_cap cap,
		   bool required, const struct node_expect *want, size_t *ret_index)
{
	char host[PATH_MAX], full[PATH_MAX];
	struct stat st;
	size_t index;
	int r, found;

	*ret_index = INV_NO_NODE;
	if (!join3(host, sizeof(host), n->dev_root, path, ""))
		return cdi_problem_add(n->d->err, -ENAMETOOLONG, path, 0, 0, NULL, "name too long");
	found = look_at(n, path, full, sizeof(full), &st);
	if (found == -ENOMEM)
		return cdi_fail(n->d->err, -ENOMEM, "out of memory");
	if (found < 0 && !required)
		return 0;
	r = inventory_add_node(n->d->inv, role, cap, path, host, &index, n->d->err);
	if (r < 0)
		return r;
	*ret_index = index;
	if (found < 0)
		return inv_node_set_problem(&n->d->inv->nodes[index], found, n->d->err, "%s",
					    strerror(-found));
	return judge(n, &n->d->inv->nodes[index], full, &st, want);
}

/* The control nodes every GPU spec carries (sorted by path, as nvidia-ctk orders them). */
static int control_nodes(struct nodes *n)
{
	static const struct {
		const char *path;
		struct node_expect want;
		enum drv_cap cap;
		/* The driver creates these on first use, not at load: a host may lack them. */
		bool required;
	} control[] = {
		{ "/dev/nvidia-modeset",
		  { { "nvidia-frontend", "nvidia" }, 254 },
		  DRV_CAP_DISPLAY,
		  false },
		{ "/dev/nvidia-uvm", { { "nvidia-uvm", NULL }, 0 }, DRV_CAP_COMPUTE, true },
		{ "/dev/nvidia-uvm-tools", { { "nvidia-uvm", NULL }, 1 }, DRV_CAP_COMPUTE, false },
		{ "/dev/nvidiactl",
		  { { "nvidia-frontend", "nvidia" }, 255 },
		  DRV_CAP_UNKNOWN,
		  true },
	};
	size_t index;
	int r;

	for (size_t i = 0; i < ELEMENTSOF(control); i++) {
		r = inspect(n, control[i].path, NODE_CONTROL, control[i].cap, control[i].required,
			    &control[i].want, &index);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The cap node of gpu<minor>/gi<G>[/ci<C>]/access, from mig-minors. */
static int cap_node(struct nodes *n, const struct gpu_device *gpu, struct mig_device *mig, bool ci,
		    size_t *ret_index)
{
	struct node_expect want = { { "nvidia-caps", NULL }, 0 };
	char path[64];
	int r;

	if (!n->mm_read) {
		r = mig_minors_read(n->d->host->root, &n->mm, n->d->err);
		if (r < 0)
			return r;
		n->mm_read = true;
	}
	if (mig_minors_lookup(&n->mm, gpu->minor, mig->gi, ci ? (int)mig->ci : -1, &want.minor) <
	    0) {
		_cleanup_free_ char *mpath = host_path(n->d->host->root, PROCFS_MIG_MINORS);

		if (ci)
			return cdi_problem_add(n->d->err, -ENOENT, mpath, 0, 0, NULL,
					       "no gpu%u/gi%u/ci%u/access (GPU %u, MIG %u)",
					       gpu->minor, mig->gi, mig->ci, gpu->index,
					       mig->index);
		return cdi_problem_add(n->d->err, -ENOENT, mpath, 0, 0, NULL,
				       "no gpu%u/gi%u/access (GPU %u, MIG %u)", gpu->minor, mig->gi,
				       gpu->index, mig->index);
	}
	*(ci ? &mig->ci_cap_minor : &mig->gi_cap_minor) = want.minor;
	snprintf(path, sizeof(path), "/dev/nvidia-caps/nvidia-cap%u", want.minor);
	return inspect(n, path, NODE_MIG_CAP, DRV_CAP_UNKNOWN, true, &want, ret_index);
}

/* DRM's character device major in /proc/devices; minors are the N of card<N> and renderD<N>. */
#define DRM_MAJOR_NAME "drm"

static bool keep_drm(const char *name, unsigned char d_type, void *userdata)
{
	(void)d_type;
	(void)userdata;
	return strncmp(name, "card", 4) == 0 || strncmp(name, "renderD", 7) == 0 ||
	       strncmp(name, "controlD", 8) == 0;
}

/* The N of card<N> / renderD<N>; false for anything else (card1-DP-1 is a connector). */
static bool drm_minor(const char *name, unsigned *ret)
{
	const char *p = name + (name[0] == 'c' ? 4 : 7);
	char *end;
	unsigned long v;

	if (*p < '0' || *p > '9')
		return false;
	v = strtoul(p, &end, 10);
	if (*end || v > 0xfffff)
		return false;
	*ret = (unsigned)v;
	return true;
}

/*
 * The by-path name udev gives a GPU's DRM node (/dev/dri/by-path/pci-<bus>-card -> ../card1),
 * when the host has it pointing at that node: a node entry of its own at that path, with the
 * real node as hostPath, so that the name works in a container without a symlink hook.
 */
static int drm_by_path(struct nodes *n, struct gpu_device *gpu, const char *name, size_t real)
{
	char path[PATH_MAX], full[PATH_MAX], target[PATH_MAX], want[PATH_MAX];
	const struct inv_node *src;
	struct inv_node *node;
	struct stat st;
	size_t index;
	ssize_t len;
	int r;

	snprintf(path, sizeof(path), "/dev/dri/by-path/pci-%s-%s", gpu->bus_id,
		 name[0] == 'c' ? "card" : "render");
	if (look_at(n, path, full, sizeof(full), &st) < 0 || !S_ISLNK(st.st_mode))
		return 0;
	len = readlink(full, target, sizeof(target) - 1);
	if (len <= 0)
		return 0;
	target[len] = '\0';
	snprintf(want, sizeof(want), "../%s", name);
	/* udev's link names another node: not this GPU's name. */
	if (strcmp(target, want) != 0 &&
	    (strncmp(target, "/dev/dri/", 9) != 0 || strcmp(target + 9, name) != 0))
		return 0;
	r = inventory_add_node(n->d->inv, NODE_DRM, DRV_CAP_GRAPHICS, path,
			       n->d->inv->nodes[real].host_path, &index, n->d->err);
	if (r < 0)
		return r;
	node = &n->d->inv->nodes[index];
	src = &n->d->inv->nodes[real];
	node->major = src->major;
	node->minor = src->minor;
	node->mode = src->mode;
	node->gid = src->gid;
	gpu->drm[gpu->n_drm++] = index;
	return 0;
}

/*
 * A GPU's DRM nodes: what nvidia-drm registered for it in /sys/bus/pci/devices/<bus>/drm/
 * (card<N>, renderD<N>), looked at in /dev/dri, then their by-path names. No drm/ directory:
 * nvidia-drm is not loaded (a compute host), nothing to add. A node sysfs has and /dev lacks
 * (udev has not made it yet) is left out with a warning, as nvidia-ctk does.
 */
static int drm_nodes(struct nodes *n, struct gpu_device *gpu)
{
	_cleanup_strv_free_ char **names = NULL;
	struct node_expect want = { { DRM_MAJOR_NAME, NULL }, 0 };
	size_t count = 0, real[2], n_real = 0;
	char dir[96], path[64];
	int r;

	snprintf(dir, sizeof(dir), "/sys/bus/pci/devices/%s/drm", gpu->bus_id);
	r = root_fs_list(&n->d->host_fs, dir, keep_drm, NULL, &names, &count, NULL);
	if (r == -ENOMEM)
		return cdi_fail(n->d->err, r, "out of memory");
	if (r < 0)
		return 0;
	for (size_t i = 0; i < count && n_real < ELEMENTSOF(real); i++) {
		if (names[i][0] == 'c' && names[i][1] == 'o') {
			cdi_fail(n->d->warn, 0, "GPU %u (%s): legacy DRM node %s left out",
				 gpu->index, gpu->bus_id, names[i]);
			continue;
		}
		if (!drm_minor(names[i], &want.minor))
			continue;
		snprintf(path, sizeof(path), "/dev/dri/%s", names[i]);
		r = inspect(n, path, NODE_DRM, DRV_CAP_GRAPHICS, false, &want, &real[n_real]);
		if (r < 0)
			return r;
		if (real[n_real] == INV_NO_NODE) {
			_cleanup_free_ char *host = host_path(n->dev_root, path);

			cdi_problem_add(
				n->d->warn, -ENOENT, host, 0, 0, NULL,
				"missing (GPU %u, %s has it in sysfs); left out of the spec",
				gpu->index, gpu->bus_id);
			continue;
		}
		gpu->drm[gpu->n_drm++] = real[n_real++];
	}
	for (size_t i = 0; i < n_real; i++) {
		const struct inv_node *node = &n->d->inv->nodes[real[i]];

		if (node->error == 0)
			r = drm_by_path(n, gpu, strrchr(node->path, '/') + 1, real[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

/* A GPU's node and its MIG devices' GI and CI cap nodes (GI nodes shared where GIs are). */
static int gpu_nodes(struct nodes *n, struct gpu_device *gpu)
{
	struct node_expect want = { { "nvidia-frontend", "nvidia" }, gpu->minor };
	char path[64];
	int r;

	snprintf(path, sizeof(path), "/dev/nvidia%u", gpu->minor);
	r = inspect(n, path, NODE_GPU, DRV_CAP_UNKNOWN, true, &want, &gpu->node);
	if (r >= 0)
		r = drm_nodes(n, gpu);
	for (size_t j = 0; r >= 0 && j < gpu->n_migs; j++) {
		struct mig_device *mig = &gpu->migs[j];

		mig->gi_node = INV_NO_NODE;
		for (size_t k = 0; k < j; k++)
			if (gpu->migs[k].gi == mig->gi) {
				mig->gi_node = gpu->migs[k].gi_node;
				mig->gi_cap_minor = gpu->migs[k].gi_cap_minor;
			}
		if (mig->gi_node == INV_NO_NODE)
			r = cap_node(n, gpu, mig, false, &mig->gi_node);
		if (r >= 0)
			r = cap_node(n, gpu, mig, true, &mig->ci_node);
	}
	return r;
}

int discover_gpu_nodes(struct discovery *d)
{
	struct nodes n;
	int r;

	r = nodes_init(&n, d);
	if (r >= 0)
		r = control_nodes(&n);
	for (size_t i = 0; r >= 0 && i < d->inv->n_gpus; i++)
		r = gpu_nodes(&n, &d->inv->gpus[i]);
	nodes_done(&n);
	return r;
}

/* ---- management: every NVIDIA node ---- */

struct scan {
	const char *prefix;
	const char *const *skip;
};

static bool keep_scanned(const char *name, unsigned char d_type, void *userdata)
{
	const struct scan *s = userdata;

	if (strncmp(name, s->prefix, strlen(s->prefix)) != 0)
		return false;
	for (const char *const *k = s->skip; k && *k; k++)
		if (strncmp(name, *k, strlen(*k)) == 0)
			return false;
	return d_type == DT_CHR || d_type == DT_UNKNOWN;
}

/* The role and capability a scanned node has, by its name. */
static void classify(const char *dir, const char *name, enum node_role *role, enum drv_cap *cap)
{
	*cap = DRV_CAP_UNKNOWN;
	*role = NODE_OTHER;
	if (strcmp(dir, "/dev/nvidia-caps") == 0)
		*role = NODE_MIG_CAP;
	else if (strcmp(dir, "/dev") != 0)
		return;
	else if (strncmp(name, "nvidia", 6) == 0 && isdigit((unsigned char)name[6]))
		*role = NODE_GPU;
	else if (strcmp(name, "nvidiactl") == 0)
		*role = NODE_CONTROL;
	else if (strncmp(name, "nvidia-uvm", 10) == 0)
		*role = NODE_CONTROL, *cap = DRV_CAP_COMPUTE;
	else if (strcmp(name, "nvidia-modeset") == 0)
		*role = NODE_CONTROL, *cap = DRV_CAP_DISPLAY;
}

/* How a scan judges what it finds: the major /proc/devices gives major_name (NULL: any), and
 * with minor_suffix the minor is the number ending the name (channel7: 7). */
struct scan_expect {
	const char *major_name;
	bool minor_suffix;
};

static bool have_node(const struct inventory *inv, const char *path);

/* The node expectation of a scanned name; false when there is none to hold it against. */
static bool scan_want(const struct scan_expect *x, const char *name, struct node_expect *want)
{
	const char *end = name + strlen(name), *p = end;
	unsigned long v;

	if (!x || !x->major_name)
		return false;
	*want = (struct node_expect){ { x->major_name, NULL }, 0 };
	if (!x->minor_suffix)
		return false;
	while (p > name && isdigit((unsigned char)p[-1]))
		p--;
	if (p == end || end - p > 7)
		return false;
	v = strtoul(p, NULL, 10);
	if (v > PROCFS_MAX_CAP_MINOR)
		return false;
	want->minor = (unsigned)v;
	return true;
}

/* Character devices in <dev-root><dir> that keep accepts, into the inventory (sorted by name;
 * a path the inventory has already is not added twice). */
static int scan_dir(struct nodes *n, const char *dir, dir_keep_fn keep, void *userdata,
		    const struct scan_expect *x)
{
	_cleanup_strv_free_ char **names = NULL;
	_cleanup_free_ char *full = NULL;
	const char *real = NULL;
	size_t count = 0;
	int r;

	r = root_fs_list(&n->dev_fs, dir, keep, userdata, &names, &count, &real);
	if (r == -ENOENT || r == -ENOTDIR)
		return 0;
	if (r >= 0 && asprintf(&full, "%s%s", n->dev_root, strcmp(real, "/") ? real : "") < 0)
		r = -ENOMEM;
	if (r < 0) {
		_cleanup_free_ char *given = host_path(n->dev_root, dir);

		return cdi_problem_add(n->d->err, r, given, 0, 0, NULL,
				       "cannot read the directory: %s", strerror(-r));
	}
	for (size_t i = 0; i < count; i++) {
		char path[PATH_MAX];
		struct stat st;
		struct node_expect want;
		enum node_role role;
		enum drv_cap cap;
		size_t index;

		snprintf(path, sizeof(path), "%s/%s", full, names[i]);
		/* A link or anything else that is not a device here is simply not a node. */
		if (lstat(path, &st) < 0 || !S_ISCHR(st.st_mode))
			continue;
		if (n->d->inv->n_nodes >= MAX_NODES)
			return cdi_problem_add(n->d->err, -E2BIG, full, 0, 0, NULL,
					       "more than %u NVIDIA device nodes", MAX_NODES);
		snprintf(path, sizeof(path), "%s/%s", strcmp(dir, "/") ? dir : "", names[i]);
		if (have_node(n->d->inv, path))
			continue;
		classify(dir, names[i], &role, &cap);
		r = inspect(n, path, role, cap, true, scan_want(x, names[i], &want) ? &want : NULL,
			    &index);
		if (r < 0)
			return r;
	}
	return 0;
}

static bool keep_glob(const char *name, unsigned char d_type, void *pattern)
{
	return fnmatch(pattern, name, FNM_PERIOD) == 0 &&
	       (d_type == DT_CHR || d_type == DT_UNKNOWN);
}

int discover_pattern_nodes(struct discovery *d, const struct node_pattern *p, size_t n_patterns)
{
	struct nodes n;
	int r;

	r = nodes_init(&n, d);
	for (size_t i = 0; r >= 0 && i < n_patterns; i++) {
		struct scan_expect x = { p[i].major_name, p[i].minor_suffix };

		r = scan_dir(&n, p[i].dir, keep_glob, (void *)p[i].pattern, &x);
	}
	nodes_done(&n);
	return r;
}

static bool have_node(const struct inventory *inv, const char *path)
{
	for (size_t i = 0; i < inv->n_nodes; i++)
		if (strcmp(inv->nodes[i].path, path) == 0)
			return true;
	return false;
}

int discover_all_nodes(struct discovery *d)
{
	static const char *const dev_skip[] = { "nvidia-fs", "nvidia-nvswitch", "nvidia-nvlink",
						"nvidia-caps", NULL };
	static const struct scan scans[] = {
		{ "nvidia", dev_skip },
		{ "nvidia-cap", NULL },
		{ "channel", NULL },
	};
	static const char *const dirs[] = { "/dev", "/dev/nvidia-caps",
					    "/dev/nvidia-caps-imex-channels" };
	/* Without these no GPU works: missing, they are said to be (inspect adds them so). */
	static const char *const required[] = { "/dev/nvidia-uvm", "/dev/nvidiactl" };
	struct nodes n;
	size_t index;
	int r;

	r = nodes_init(&n, d);
	for (size_t i = 0; r >= 0 && i < ELEMENTSOF(scans); i++)
		r = scan_dir(&n, dirs[i], keep_scanned, (void *)&scans[i], NULL);
	if (r >= 0 && d->inv->n_nodes == 0) {
		_cleanup_free_ char *hdev = host_path(d->host->dev_root, "/dev");

		r = cdi_problem_add(d->err, -ENODEV, hdev, 0, 0, NULL, "no NVIDIA device nodes");
	}
	for (size_t i = 0; r >= 0 && i < ELEMENTSOF(required); i++)
		if (!have_node(d->inv, required[i]))
			r = inspect(&n, required[i], NODE_CONTROL,
				    i == 0 ? DRV_CAP_COMPUTE : DRV_CAP_UNKNOWN, true, NULL, &index);
	nodes_done(&n);
	return r;
}
