/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CDI spec of a host, as a JSON tree: devices by name strategy, their
 * device nodes, the common edits. Follows what nvidia-ctk's nvml and
 * management modes emit, without hooks, without additionalGids and, by
 * default, without device numbers (the runtime stats hostPath at container
 * start, so a reboot that moves nvidia-uvm's dynamic major cannot make the
 * spec lie).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cdi/names.h>
#include <cdi/spec.h>

#include "load.h"
#include "macro.h"
#include "problem.h"
#include "rules.h"
#include "procfs.h"
#include "spec_build.h"

#define DEFAULT_VENDOR "nvidia.com"
#define DEFAULT_CLASS "gpu"
#define SPEC_LABEL "generated spec"
#define MANAGEMENT_MAX_NODES 4096u

struct build {
	const struct gen_host *host;
	const struct spec_options *opts;
	struct cdi_error *warn, *err;
	char *proc_devices; /* /proc/devices, read once; NULL when unreadable */
	bool proc_devices_read;
	/* Majors looked up so far, so each name is parsed out of /proc/devices once. */
	struct {
		const char *name; /* static */
		int r;
		unsigned major;
	} majors[8];
	size_t n_majors;
	struct mig_minors mm;
	bool mm_read;
};

static void build_done(struct build *b)
{
	free(b->proc_devices);
	mig_minors_clear(&b->mm);
}

int name_strategies_parse(const char *list, unsigned *strategies, struct cdi_error *err)
{
	const char *p = list;

	for (;;) {
		size_t n = strcspn(p, ",");

		if (n == 5 && strncmp(p, "index", n) == 0)
			*strategies |= NAME_INDEX;
		else if (n == 4 && strncmp(p, "uuid", n) == 0)
			*strategies |= NAME_UUID;
		else if (n == 10 && strncmp(p, "type-index", n) == 0)
			*strategies |= NAME_TYPE_INDEX;
		else
			return cdi_problem_add(err, -EINVAL, NULL, 0, 0, "--device-name-strategy",
					       "unknown strategy \"%.*s\" (index, uuid, type-index)",
					       (int)n, p);
		if (p[n] == '\0')
			return 0;
		p += n + 1;
	}
}

static bool is_uuid_name(const char *s)
{
	return strncmp(s, "GPU-", 4) == 0 || strncmp(s, "MIG-", 4) == 0;
}

int device_name_cmp(const char *a, const char *b)
{
	const char *a0 = a, *b0 = b;

	/* UUIDs are hex: "GPU-8d..." vs "GPU-54..." must not compare 8 with 54. */
	if (is_uuid_name(a) || is_uuid_name(b))
		return strcmp(a, b);

	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			const char *ea, *eb;
			size_t la, lb;
			int c;

			while (*a == '0' && isdigit((unsigned char)a[1]))
				a++;
			while (*b == '0' && isdigit((unsigned char)b[1]))
				b++;
			for (ea = a; isdigit((unsigned char)*ea); ea++)
				;
			for (eb = b; isdigit((unsigned char)*eb); eb++)
				;
			la = (size_t)(ea - a);
			lb = (size_t)(eb - b);
			if (la != lb)
				return la < lb ? -1 : 1;
			c = memcmp(a, b, la);
			if (c)
				return c;
			a = ea;
			b = eb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	if (*a || *b)
		return *a ? 1 : -1;
	return strcmp(a0, b0); /* "01" vs "1": any fixed order */
}

static int set_new(json_t *obj, const char *key, json_t *val)
{
	return val && json_object_set_new(obj, key, val) == 0 ? 0 : -ENOMEM;
}

static int push_new(json_t *arr, json_t *val)
{
	return val && json_array_append_new(arr, val) == 0 ? 0 : -ENOMEM;
}

/* The major /proc/devices gives the char device name, -ENOENT if unknown or unreadable. */
static int proc_major(struct build *b, const char *name, unsigned *ret)
{
	int r;

	if (!b->proc_devices_read) {
		_cleanup_free_ char *path = host_path(b->host->root, "/proc/devices");

		if (!path)
			return -ENOMEM;
		b->proc_devices_read = true;
		if (cdi_read_file(path, PROCFS_MAX_FILE, &b->proc_devices, NULL) < 0)
			b->proc_devices = NULL; /* no cross-check then; nothing to hold against the node */
	}
	if (!b->proc_devices)
		return -ENOENT;
	for (size_t i = 0; i < b->n_majors; i++)
		if (strcmp(b->majors[i].name, name) == 0) {
			*ret = b->majors[i].major;
			return b->majors[i].r;
		}
	r = procfs_parse_char_major("/proc/devices", b->proc_devices, name, ret, NULL);
	if (b->n_majors < ELEMENTSOF(b->majors))
		b->majors[b->n_majors++] = (typeof(b->majors[0])){ name, r, r == 0 ? *ret : 0 };
	return r;
}

/* What a node's device number must be; major_names[] in /proc/devices, tried in order. */
struct node_expect {
	const char *major_names[2];
	unsigned minor;
};

/*
 * A device node {path, hostPath} for path under dev-root. required: missing
 * is an error (or, with allow_missing_nodes, a warning and the node without
 * numbers). Not required: missing or not a char device returns *ret = NULL.
 * A node whose number contradicts /proc/devices is stale: an error.
 */
static int node_new(struct build *b, const char *path, const struct node_expect *want,
		    bool required, json_t **ret)
{
	_cleanup_free_ char *hpath = host_path(b->host->dev_root, path);
	_cleanup_json_ json_t *node = json_object();
	struct stat st;
	bool present;

	*ret = NULL;
	if (!hpath || !node)
		return -ENOMEM;
	present = stat(hpath, &st) == 0;
	if (present && !S_ISCHR(st.st_mode)) {
		if (!required)
			return 0;
		return cdi_problem_add(b->err, -ENOTTY, hpath, 0, 0, NULL,
				       "not a character device");
	}
	if (!present) {
		int e = -errno;

		if (!required)
			return 0;
		if (!b->opts->allow_missing_nodes)
			return cdi_problem_add(b->err, e, hpath, 0, 0, NULL,
					       "%s (create it with nvidia-modprobe or nvidia-smi, or pass --allow-missing-nodes to write the spec anyway)",
					       strerror(-e));
		cdi_problem_add(b->warn, e, hpath, 0, 0, NULL,
				"%s; written to the spec anyway (the runtime will look for it at container start)",
				strerror(-e));
	}
	if (present && want) {
		unsigned major = 0;
		bool known = false;

		for (size_t i = 0; i < ELEMENTSOF(want->major_names) && want->major_names[i]; i++)
			if (proc_major(b, want->major_names[i], &major) == 0) {
				known = true;
				break;
			}
		if (known && (major(st.st_rdev) != major || minor(st.st_rdev) != want->minor))
			return cdi_problem_add(b->err, -ESTALE, hpath, 0, 0, NULL,
					       "character device %u:%u, but the driver's %s is %u:%u (stale device node)",
					       major(st.st_rdev), minor(st.st_rdev),
					       want->major_names[0], major, want->minor);
	}
	if (set_new(node, "path", json_string(path)) < 0)
		return -ENOMEM;
	if (strcmp(hpath, path) != 0 && set_new(node, "hostPath", json_string(hpath)) < 0)
		return -ENOMEM;
	if (present && b->opts->with_device_numbers) {
		if (set_new(node, "type", json_string("c")) < 0 ||
		    set_new(node, "major", json_integer(major(st.st_rdev))) < 0 ||
		    set_new(node, "minor", json_integer(minor(st.st_rdev))) < 0 ||
		    set_new(node, "fileMode", json_integer(st.st_mode & 07777)) < 0)
			return -ENOMEM;
	}
	*ret = TAKE_PTR(node);
	return 0;
}

static int gpu_node(struct build *b, const struct gpu_device *gpu, json_t **ret)
{
	char path[64];
	struct node_expect want = { { "nvidia-frontend", "nvidia" }, gpu->minor };

	snprintf(path, sizeof(path), "/dev/nvidia%u", gpu->minor);
	return node_new(b, path, &want, true, ret);
}

static int cap_node(struct build *b, const struct gpu_device *gpu, const struct mig_device *mig,
		    bool ci, json_t **ret)
{
	char path[64];
	struct node_expect want = { { "nvidia-caps", NULL }, 0 };
	int r;

	if (!b->mm_read) {
		r = mig_minors_read(b->host->root, &b->mm, b->err);
		if (r < 0)
			return r;
		b->mm_read = true;
	}
	if (mig_minors_lookup(&b->mm, gpu->minor, mig->gi, ci ? (int)mig->ci : -1, &want.minor) < 0) {
		_cleanup_free_ char *mpath = host_path(b->host->root, "/proc/driver/nvidia-caps/mig-minors");

		if (ci)
			return cdi_problem_add(b->err, -ENOENT, mpath, 0, 0, NULL,
					       "no gpu%u/gi%u/ci%u/access (GPU %u, MIG %u)", gpu->minor,
					       mig->gi, mig->ci, gpu->index, mig->index);
		return cdi_problem_add(b->err, -ENOENT, mpath, 0, 0, NULL,
				       "no gpu%u/gi%u/access (GPU %u, MIG %u)", gpu->minor, mig->gi,
				       gpu->index, mig->index);
	}
	snprintf(path, sizeof(path), "/dev/nvidia-caps/nvidia-cap%u", want.minor);
	return node_new(b, path, &want, true, ret);
}

/* A device entry sorted by name; edits shared between the names of one device. */
struct entry {
	const char *name; /* owned by dev */
	json_t *dev;
};

struct entries {
	struct entry *v;
	size_t n, cap;
};

static void entries_clear(struct entries *e)
{
	for (size_t i = 0; i < e->n; i++)
		json_decref(e->v[i].dev);
	free(e->v);
}

static int entry_cmp(const void *a, const void *b)
{
	return device_name_cmp(((const struct entry *)a)->name, ((const struct entry *)b)->name);
}

static int entries_add(struct build *b, struct entries *e, const char *name, json_t *edits)
{
	_cleanup_json_ json_t *dev = json_object();
	const char *problem = cdi_name_problem(CDI_NAME_DEVICE, name, strlen(name), NULL);

	if (!dev)
		return -ENOMEM;
	if (problem) {
		/* e.g. R450's "MIG-GPU-<uuid>/<gi>/<ci>": not a CDI name; the other names stay. */
		cdi_problem_add(b->warn, -EINVAL, NULL, 0, 0, NULL,
				"device name \"%s\" left out: %s", name, problem);
		return 0;
	}
	if (e->n == e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 64;
		struct entry *v = realloc(e->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		e->v = v;
		e->cap = cap;
	}
	if (set_new(dev, "name", json_string(name)) < 0 ||
	    set_new(dev, "containerEdits", json_incref(edits)) < 0)
		return -ENOMEM;
	e->v[e->n].name = json_string_value(json_object_get(dev, "name"));
	e->v[e->n].dev = TAKE_PTR(dev);
	e->n++;
	return 0;
}

/* The device under every strategy. fmt_* take (gpu index) or (gpu index, mig index). */
static int add_names(struct build *b, struct entries *e, unsigned strategies,
		     const struct gpu_device *gpu, const struct mig_device *mig, json_t *edits)
{
	char name[GPU_UUID_MAX + 16];
	int r;

	if (strategies & NAME_INDEX) {
		if (mig)
			snprintf(name, sizeof(name), "%u:%u", gpu->index, mig->index);
		else
			snprintf(name, sizeof(name), "%u", gpu->index);
		r = entries_add(b, e, name, edits);
		if (r < 0)
			return r;
	}
	if (strategies & NAME_UUID) {
		r = entries_add(b, e, mig ? mig->uuid : gpu->uuid, edits);
		if (r < 0)
			return r;
	}
	if (strategies & NAME_TYPE_INDEX) {
		if (mig)
			snprintf(name, sizeof(name), "mig%u:%u", gpu->index, mig->index);
		else
			snprintf(name, sizeof(name), "gpu%u", gpu->index);
		r = entries_add(b, e, name, edits);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Add node to the "all" set unless a node of that path is there already. */
static int all_add(json_t *all_nodes, json_t *seen, json_t *node)
{
	const char *path = json_string_value(json_object_get(node, "path"));

	if (json_object_get(seen, path))
		return 0;
	if (json_object_set(seen, path, json_true()) < 0 || json_array_append(all_nodes, node) < 0)
		return -ENOMEM;
	return 0;
}

/* "3", "3:1" (with prefix "" ), "gpu3", "mig3:1". */
static bool parse_index_id(const char *s, unsigned *ret_gpu, long *ret_mig)
{
	bool want_mig = false, any = true;
	unsigned long g, m = 0;
	char *end;

	if (strncmp(s, "gpu", 3) == 0)
		s += 3, any = false;
	else if (strncmp(s, "mig", 3) == 0)
		s += 3, any = false, want_mig = true;
	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	g = strtoul(s, &end, 10);
	if (errno || g > GPU_MAX_COUNT)
		return false;
	if (*end == ':') {
		if (!any && !want_mig)
			return false;
		s = end + 1;
		if (!isdigit((unsigned char)*s))
			return false;
		m = strtoul(s, &end, 10);
		if (errno || m > 255 || *end)
			return false;
		*ret_gpu = (unsigned)g;
		*ret_mig = (long)m;
		return true;
	}
	if (*end || want_mig)
		return false;
	*ret_gpu = (unsigned)g;
	*ret_mig = -1;
	return true;
}

/* Mark what --device-id selects; gsel[n_gpus], msel[n_gpus * GPU_MAX_MIGS] by position. */
static int select_devices(struct build *b, const struct gpu_topology *topo, bool *gsel, bool *msel)
{
	const struct spec_options *o = b->opts;
	bool everything = o->n_device_ids == 0;

	for (size_t k = 0; k < o->n_device_ids; k++)
		if (strcmp(o->device_ids[k], "all") == 0)
			everything = true;
	if (everything) {
		for (size_t i = 0; i < topo->n_gpus; i++) {
			gsel[i] = !topo->gpus[i].mig_enabled;
			for (size_t j = 0; j < topo->gpus[i].n_migs; j++)
				msel[i * GPU_MAX_MIGS + j] = true;
		}
		return 0;
	}
	for (size_t k = 0; k < o->n_device_ids; k++) {
		const char *id = o->device_ids[k];
		char bus[GPU_BUSID_MAX];
		bool is_bus = pci_bus_id_normalize(id, bus) == 0, found = false;
		unsigned g = 0;
		long m = -1;
		bool is_index = parse_index_id(id, &g, &m);

		for (size_t i = 0; i < topo->n_gpus && !found; i++) {
			const struct gpu_device *gpu = &topo->gpus[i];

			if ((is_index && m < 0 && gpu->index == g) || strcmp(id, gpu->uuid) == 0 ||
			    (is_bus && strcmp(bus, gpu->bus_id) == 0)) {
				if (gpu->mig_enabled)
					return cdi_problem_add(b->err, -EINVAL, NULL, 0, 0, "--device-id",
							       "%s: GPU %u is in MIG mode; select its MIG devices (%u:<n>) instead",
							       id, gpu->index, gpu->index);
				gsel[i] = found = true;
				break;
			}
			for (size_t j = 0; j < gpu->n_migs; j++) {
				const struct mig_device *mig = &gpu->migs[j];

				if ((is_index && m >= 0 && gpu->index == g && mig->index == (unsigned long)m) ||
				    strcmp(id, mig->uuid) == 0) {
					msel[i * GPU_MAX_MIGS + j] = found = true;
					break;
				}
			}
		}
		if (!found)
			return cdi_problem_add(b->err, -ENOENT, NULL, 0, 0, "--device-id",
					       "%s: no such GPU or MIG device", id);
	}
	return 0;
}

static int common_edits(struct build *b, json_t *mounts, bool control_nodes, json_t **ret)
{
	static const char *const control[] = {
		/* sorted by path, as nvidia-ctk orders them */
		"/dev/nvidia-modeset", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/nvidiactl",
	};
	static const struct node_expect control_want[] = {
		{ { "nvidia-frontend", "nvidia" }, 254 },
		{ { "nvidia-uvm", NULL }, 0 },
		{ { "nvidia-uvm", NULL }, 1 },
		{ { "nvidia-frontend", "nvidia" }, 255 },
	};
	_cleanup_json_ json_t *edits = json_object(), *env = json_array(), *nodes = json_array();
	int r;

	if (!edits || !env || !nodes)
		return -ENOMEM;
	/* A legacy nvidia-container-runtime-hook in the same container then does nothing. */
	r = push_new(env, json_string("NVIDIA_VISIBLE_DEVICES=void"));
	if (r < 0)
		return r;
	for (size_t i = 0; control_nodes && i < ELEMENTSOF(control); i++) {
		json_t *node = NULL;

		r = node_new(b, control[i], &control_want[i], false, &node);
		if (r < 0)
			return r;
		if (node && push_new(nodes, node) < 0)
			return -ENOMEM;
	}
	if (set_new(edits, "env", TAKE_PTR(env)) < 0)
		return -ENOMEM;
	if (json_array_size(nodes) > 0 && set_new(edits, "deviceNodes", TAKE_PTR(nodes)) < 0)
		return -ENOMEM;
	if (json_array_size(mounts) > 0 && set_new(edits, "mounts", json_incref(mounts)) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(edits);
	return 0;
}

static int spec_new(const struct spec_options *o, json_t **ret)
{
	_cleanup_json_ json_t *spec = json_object();
	_cleanup_free_ char *kind = NULL;

	if (!spec ||
	    asprintf(&kind, "%s/%s", o->vendor ? o->vendor : DEFAULT_VENDOR,
		     o->class_name ? o->class_name : DEFAULT_CLASS) < 0)
		return -ENOMEM;
	/* cdiVersion first, so the tree reads in the order the file will. */
	if (set_new(spec, "cdiVersion", json_string("0.3.0")) < 0 ||
	    set_new(spec, "kind", json_string(kind)) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(spec);
	return 0;
}

/* Append the device "all" whose edits are the device nodes nodes (a reference is taken). */
static int append_all_device(json_t *devices, json_t *nodes)
{
	_cleanup_json_ json_t *all = json_object(), *all_edits = json_object();

	if (!all || !all_edits || set_new(all_edits, "deviceNodes", json_incref(nodes)) < 0 ||
	    set_new(all, "name", json_string("all")) < 0 ||
	    set_new(all, "containerEdits", TAKE_PTR(all_edits)) < 0 ||
	    json_array_append(devices, all) < 0)
		return -ENOMEM;
	return 0;
}

/*
 * The spec around devices: kind, the common edits (control nodes when asked), the minimum
 * cdiVersion; validated strictly, as every path we write is absolute: never write what we
 * would reject.
 */
static int spec_assemble(struct build *b, json_t *devices, json_t *mounts, bool control_nodes,
			 json_t **ret_spec)
{
	_cleanup_json_ json_t *spec = NULL, *edits = NULL;
	const char *version;
	int r;

	r = common_edits(b, mounts, control_nodes, &edits);
	if (r < 0)
		return r;
	r = spec_new(b->opts, &spec);
	if (r < 0)
		return r;
	if (set_new(spec, "devices", json_incref(devices)) < 0 ||
	    set_new(spec, "containerEdits", json_incref(edits)) < 0)
		return -ENOMEM;
	version = cdi_minimum_version(spec);
	if (!version || set_new(spec, "cdiVersion", json_string(version)) < 0)
		return -ENOMEM;
	r = cdi_spec_validate_json(spec, SPEC_LABEL, CDI_LOAD_STRICT, b->err);
	if (r < 0)
		return r;
	*ret_spec = TAKE_PTR(spec);
	return 0;
}

int spec_build_gpus(const struct gen_host *host, const struct gpu_topology *topo, json_t *mounts,
		    const struct spec_options *opts, json_t **ret_spec, struct cdi_error *warn,
		    struct cdi_error *err)
{
	struct build b = { .host = host, .opts = opts, .warn = warn, .err = err };
	unsigned strategies = opts->name_strategies ? opts->name_strategies : NAME_DEFAULT;
	_cleanup_free_ bool *gsel = NULL, *msel = NULL;
	_cleanup_json_ json_t *devices = json_array(), *all_nodes = json_array(),
			      *seen = json_object();
	struct entries e = { 0 };
	int r;

	if (!devices || !all_nodes || !seen)
		return -ENOMEM;
	gsel = calloc(topo->n_gpus + 1, sizeof(*gsel));
	msel = calloc((topo->n_gpus + 1) * GPU_MAX_MIGS, sizeof(*msel));
	if (!gsel || !msel)
		return -ENOMEM;
	r = select_devices(&b, topo, gsel, msel);
	if (r < 0)
		goto out;

	for (size_t i = 0; i < topo->n_gpus; i++) {
		const struct gpu_device *gpu = &topo->gpus[i];
		_cleanup_json_ json_t *parent = NULL;

		if (gpu->mig_enabled && gpu->n_migs == 0 && opts->n_device_ids == 0)
			cdi_problem_add(warn, 0, NULL, 0, 0, NULL,
					"GPU %u (%s) is in MIG mode and has no MIG device to describe (none configured, or enumerated without NVML)",
					gpu->index, gpu->uuid);
		if (gsel[i]) {
			_cleanup_json_ json_t *dev_edits = json_object(), *nodes = json_array();

			r = -ENOMEM;
			if (!dev_edits || !nodes)
				goto out;
			r = gpu_node(&b, gpu, &parent);
			if (r < 0)
				goto out;
			r = -ENOMEM;
			if (json_array_append(nodes, parent) < 0 ||
			    set_new(dev_edits, "deviceNodes", TAKE_PTR(nodes)) < 0)
				goto out;
			r = add_names(&b, &e, strategies, gpu, NULL, dev_edits);
			if (r >= 0)
				r = all_add(all_nodes, seen, parent);
			if (r < 0)
				goto out;
		}
		for (size_t j = 0; j < gpu->n_migs; j++) {
			const struct mig_device *mig = &gpu->migs[j];
			_cleanup_json_ json_t *dev_edits = json_object(), *nodes = json_array(),
					      *gi = NULL, *ci = NULL;

			if (!msel[i * GPU_MAX_MIGS + j])
				continue;
			r = -ENOMEM;
			if (!dev_edits || !nodes)
				goto out;
			if (!parent) {
				r = gpu_node(&b, gpu, &parent);
				if (r < 0)
					goto out;
			}
			r = cap_node(&b, gpu, mig, false, &gi);
			if (r >= 0)
				r = cap_node(&b, gpu, mig, true, &ci);
			if (r < 0)
				goto out;
			r = -ENOMEM;
			if (json_array_append(nodes, parent) < 0 || json_array_append(nodes, gi) < 0 ||
			    json_array_append(nodes, ci) < 0 ||
			    set_new(dev_edits, "deviceNodes", TAKE_PTR(nodes)) < 0)
				goto out;
			r = add_names(&b, &e, strategies, gpu, mig, dev_edits);
			if (r >= 0)
				r = all_add(all_nodes, seen, parent);
			if (r >= 0)
				r = all_add(all_nodes, seen, gi);
			if (r >= 0)
				r = all_add(all_nodes, seen, ci);
			if (r < 0)
				goto out;
		}
	}
	if (e.n == 0) {
		r = cdi_problem_add(err, -ENODEV, NULL, 0, 0, NULL,
				    "no GPU or MIG device to describe (%zu GPUs found)", topo->n_gpus);
		goto out;
	}
	qsort(e.v, e.n, sizeof(*e.v), entry_cmp);
	r = -ENOMEM;
	for (size_t k = 0; k < e.n; k++)
		if (json_array_append(devices, e.v[k].dev) < 0)
			goto out;
	if (!opts->no_all_device && append_all_device(devices, all_nodes) < 0)
		goto out;
	r = spec_assemble(&b, devices, mounts, true, ret_spec);
out:
	entries_clear(&e);
	build_done(&b);
	return r;
}

static int path_ptr_cmp(const void *a, const void *b)
{
	return device_name_cmp(*(char *const *)a, *(char *const *)b);
}

struct paths {
	char **v;
	size_t n;
};

static void paths_clear(struct paths *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i]);
	free(p->v);
}

/* Char devices in <dev_root><dir> whose names start with prefix, as container paths. */
static int scan_dev_dir(struct build *b, const char *dir, const char *prefix,
			const char *const *skip, struct paths *out)
{
	_cleanup_free_ char *hdir = host_path(b->host->dev_root, dir);
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;

	if (!hdir)
		return -ENOMEM;
	d = opendir(hdir);
	if (!d)
		return errno == ENOENT ? 0 : cdi_problem_add(b->err, negative_errno(), hdir, 0, 0, NULL, "cannot open directory");
	while ((de = readdir(d))) {
		struct stat st;
		char *path;
		bool skipped = false;

		if (strncmp(de->d_name, prefix, strlen(prefix)) != 0)
			continue;
		for (const char *const *s = skip; s && *s && !skipped; s++)
			skipped = strncmp(de->d_name, *s, strlen(*s)) == 0;
		if (skipped || fstatat(dirfd(d), de->d_name, &st, 0) < 0 || !S_ISCHR(st.st_mode))
			continue;
		if (out->n == MANAGEMENT_MAX_NODES)
			return cdi_problem_add(b->err, -E2BIG, hdir, 0, 0, NULL,
					       "more than %u NVIDIA device nodes", MANAGEMENT_MAX_NODES);
		if (asprintf(&path, "%s/%s", dir, de->d_name) < 0)
			return -ENOMEM;
		if (out->n % 64 == 0) {
			char **v = realloc(out->v, (out->n + 64) * sizeof(*v));

			if (!v) {
				free(path);
				return -ENOMEM;
			}
			out->v = v;
		}
		out->v[out->n++] = path;
	}
	return 0;
}

int spec_build_management(const struct gen_host *host, json_t *mounts,
			  const struct spec_options *opts, json_t **ret_spec,
			  struct cdi_error *warn, struct cdi_error *err)
{
	static const char *const skip[] = { "nvidia-fs", "nvidia-nvswitch", "nvidia-nvlink",
					    "nvidia-caps", NULL };
	struct build b = { .host = host, .opts = opts, .warn = warn, .err = err };
	_cleanup_json_ json_t *devices = json_array(), *nodes = json_array();
	struct paths p = { 0 };
	int r;

	r = -ENOMEM;
	if (!devices || !nodes)
		goto out;
	r = scan_dev_dir(&b, "/dev", "nvidia", skip, &p);
	if (r >= 0)
		r = scan_dev_dir(&b, "/dev/nvidia-caps", "nvidia-cap", NULL, &p);
	if (r >= 0)
		r = scan_dev_dir(&b, "/dev/nvidia-caps-imex-channels", "channel", NULL, &p);
	if (r < 0)
		goto out;
	if (p.n == 0) {
		_cleanup_free_ char *hdev = host_path(host->dev_root, "/dev");

		r = cdi_problem_add(err, -ENODEV, hdev, 0, 0, NULL, "no NVIDIA device nodes");
		goto out;
	}
	qsort(p.v, p.n, sizeof(*p.v), path_ptr_cmp);
	for (size_t i = 0; i < p.n; i++) {
		json_t *node = NULL;

		r = node_new(&b, p.v[i], NULL, true, &node);
		if (r < 0)
			goto out;
		r = push_new(nodes, node);
		if (r < 0)
			goto out;
	}
	r = append_all_device(devices, nodes);
	if (r < 0)
		goto out;
	r = spec_assemble(&b, devices, mounts, false, ret_spec);
out:
	paths_clear(&p);
	build_done(&b);
	return r;
}
