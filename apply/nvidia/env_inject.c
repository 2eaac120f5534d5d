/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The NVIDIA_* decisions for the devices a container selected by its environment. The order is
 * libnvidia-container's (cli/configure.c): requirements first, so an unmet one changes nothing;
 * then the files of the capabilities asked for; then the MIG administration nodes and the IPC
 * mounts. The facts come from the file cdi-generate wrote beside each spec, read once per spec
 * (or before, by the caller: env_inject_options.facts).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "driver_caps.h"
#include "libcdi/edits.h"
#include "env_inject.h"
#include "env_trust.h"
#include "facts.h"
#include "host_driver.h"
#include "host_root.h"
#include "lib_tree.h"
#include "macro.h"
#include "mig_admin.h"
#include "mps.h"
#include "problem.h"
#include "require.h"
#include "strv.h"

/* One selected GPU or MIG device as the facts know it (mig NULL: the whole GPU). */
struct picked {
	const struct cdi_facts_gpu *gpu;
	const struct cdi_facts_mig *mig;
};

/* What the environment's devices select. */
struct selection {
	struct picked *devs; /* the devices requirements are checked on */
	size_t n_devs, cap_devs;
	const struct cdi_facts_gpu **gpus; /* the GPUs the container sees (MIG parents too) */
	size_t n_gpus, cap_gpus;
	size_t n_mig_devices; /* MIG devices selected one by one */
	bool all;
	const struct cdi_facts *facts; /* of the first device's spec; NULL: none recorded */
	const char *facts_missing;     /* a spec without a facts file */
	const char *undescribed;       /* a device its spec's facts do not describe */
	const char *undescribed_facts; /* and those facts' file */
};

static void selection_done(struct selection *s)
{
	free(s->devs);
	free(s->gpus);
}

static int see_gpu(struct selection *s, const struct cdi_facts_gpu *gpu)
{
	for (size_t i = 0; i < s->n_gpus; i++)
		if (s->gpus[i] == gpu)
			return 0;
	if (ARRAY_RESERVE(s->gpus, s->cap_gpus, s->n_gpus + 1) < 0)
		return -ENOMEM;
	s->gpus[s->n_gpus++] = gpu;
	return 0;
}

static int pick(struct selection *s, const struct cdi_facts_gpu *gpu,
		const struct cdi_facts_mig *mig)
{
	for (size_t i = 0; i < s->n_devs; i++)
		if (s->devs[i].gpu == gpu && s->devs[i].mig == mig)
			return see_gpu(s, gpu);
	if (ARRAY_RESERVE(s->devs, s->cap_devs, s->n_devs + 1) < 0)
		return -ENOMEM;
	s->devs[s->n_devs++] = (struct picked){ gpu, mig };
	return see_gpu(s, gpu);
}

static bool listed(const char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return true;
	return false;
}

/* Every GPU of the facts: whole, or its MIG devices when it is in MIG mode. */
static int pick_all(struct selection *s, const struct cdi_facts *f)
{
	for (size_t i = 0; i < f->n_gpus; i++) {
		const struct cdi_facts_gpu *g = &f->gpus[i];

		if (!g->mig && pick(s, g, NULL) < 0)
			return -ENOMEM;
		for (size_t m = 0; g->mig && m < g->n_mig_devices; m++)
			if (pick(s, g, &g->mig_devices[m]) < 0)
				return -ENOMEM;
		if (see_gpu(s, g) < 0)
			return -ENOMEM;
	}
	s->all = true;
	return 0;
}

/*
 * The device "kind=name" of a spec with facts f: which GPU or MIG device it is. one_by_one: the
 * variable named it itself (not a MIG device its GPU's index or UUID was expanded into).
 */
static int pick_named(struct selection *s, const struct cdi_facts *f, const char *device,
		      bool one_by_one)
{
	const char *eq = strchr(device, '='), *name = eq ? eq + 1 : device;

	if (eq && strlen(f->kind) == (size_t)(eq - device) &&
	    strncmp(f->kind, device, (size_t)(eq - device)) == 0) {
		if (strcmp(name, "all") == 0)
			return pick_all(s, f);
		if (strcmp(name, "none") == 0)
			return 0;
		for (size_t i = 0; i < f->n_gpus; i++) {
			const struct cdi_facts_gpu *g = &f->gpus[i];

			if (listed(g->devices, g->n_devices, name))
				return pick(s, g, NULL);
			for (size_t m = 0; m < g->n_mig_devices; m++)
				if (listed(g->mig_devices[m].devices, g->mig_devices[m].n_devices,
					   name)) {
					s->n_mig_devices += one_by_one;
					return pick(s, g, &g->mig_devices[m]);
				}
		}
	}
	if (!s->undescribed) {
		s->undescribed = device;
		s->undescribed_facts = f->path;
	}
	return 0;
}

/* The file each device comes from: the file of its own edit source. */
static const char *device_file(const struct cdi_edit_sources *src, size_t device)
{
	for (size_t i = 0; i < src->n; i++)
		if (src->device[i] == device && strcmp(src->v[i].field, "containerEdits") != 0)
			return src->v[i].file;
	return NULL;
}

static int select_devices(const struct container_env *env, const char *const *devices,
			  size_t n_devices, size_t n_named, const struct env_inject_options *opts,
			  const struct cdi_edit_sources *src, struct cdi_facts_memo *fs,
			  struct selection *s, struct cdi_error *err)
{
	_cleanup_strv_free_ char **own = NULL;
	const char *const *asked = opts->asked;
	size_t n_asked = strv_length((char *const *)asked);
	int r = 0;

	if (!asked) {
		r = container_env_visible_device_names(env, &own, &n_asked, err);
		asked = (const char *const *)own;
	}
	if (r < 0)
		return r;
	for (size_t i = n_named; i < n_devices; i++) {
		const char *file = device_file(src, i);
		struct cdi_facts *f;

		r = cdi_facts_memo_get(fs, file, &f, err);
		if (r < 0)
			return r;
		if (!f) {
			if (!s->facts_missing)
				s->facts_missing = file;
			continue;
		}
		if (!s->facts)
			s->facts = f;
		if (pick_named(s, f, devices[i],
			       listed((const char *const *)asked, n_asked, devices[i])) < 0)
			return cdi_fail(err, -ENOMEM, "out of memory");
	}
	return 0;
}

/* Facts written for another driver than the one running are stale: their versions lie. */
static int check_driver_current(const struct cdi_facts *f, const char *host_root,
				struct cdi_error *err)
{
	char running[HOST_DRIVER_VERSION_MAX];
	int r;

	if (!f->driver_version)
		return 0;
	r = host_driver_version(host_root, running, err);
	/* No driver loaded: nothing to compare with (the container will find no GPU either). */
	if (r == -ENOENT || (r == 0 && strcmp(running, f->driver_version) == 0))
		return 0;
	if (r < 0)
		return r;
	return cdi_problem_add(
		err, -ESTALE, f->path, 0, 0, NULL,
		"recorded for driver %.64s, but the running driver is %s (" HOST_DRIVER_VERSION_PROC
		"): run cdi-generate again, or set NVIDIA_DISABLE_REQUIRE=true",
		f->driver_version, running);
}

/* "GPU 0", "MIG device 2:0" for each selected device, with its facts. */
static int require_devices(const struct selection *s, struct require_device **ret_devs,
			   char (**ret_labels)[48])
{
	struct require_device *devs = calloc(s->n_devs + 1, sizeof(*devs));
	char(*labels)[48] = calloc(s->n_devs + 1, sizeof(*labels));

	if (!devs || !labels) {
		free(devs);
		free(labels);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->n_devs; i++) {
		const struct picked *p = &s->devs[i];

		if (p->mig)
			snprintf(labels[i], sizeof(labels[i]), "MIG device %.32s", p->mig->index);
		else
			snprintf(labels[i], sizeof(labels[i]), "GPU %lld", p->gpu->index);
		devs[i] = (struct require_device){ labels[i], p->gpu->arch, p->gpu->brand };
	}
	*ret_devs = devs;
	*ret_labels = labels;
	return 0;
}

static int check_requirements(const struct container_env *env, const struct selection *s,
			      const char *host_root, struct cdi_error *err)
{
	_cleanup_free_ struct require_device *devs = NULL;
	_cleanup_free_ char(*labels)[48] = NULL;
	const struct requirement *reqs;
	struct require_driver drv;
	size_t n;
	int r;

	r = container_env_requirements(env, &reqs, &n, err);
	if (r < 0 || n == 0)
		return r;
	if (!s->facts || s->facts_missing)
		return cdi_problem_add(
			err, -ENOENT, NULL, 0, 0, reqs[0].name,
			"cannot check \"%.200s\": no facts file %s" CDI_FACTS_SUFFIX
			" beside the spec (cdi-generate writes it), so the driver and GPUs are unknown; or set NVIDIA_DISABLE_REQUIRE=true",
			reqs[0].expr, s->facts_missing ? s->facts_missing : "(no spec)");
	if (s->undescribed)
		return cdi_problem_add(
			err, -ENOENT, s->undescribed_facts, 0, 0, NULL,
			"%s: not described, so %s cannot be checked: run cdi-generate again",
			s->undescribed, reqs[0].name);
	r = check_driver_current(s->facts, host_root, err);
	if (r < 0)
		return r;
	if (require_devices(s, &devs, &labels) < 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	drv = (struct require_driver){ s->facts->driver_version, s->facts->cuda };
	return require_check(reqs, n, &drv, devs, s->n_devs, err);
}

/* Keeps the JSON trees the edit sources borrow until the edits are applied. */
static int keep(json_t *owned, json_t *edits, struct cdi_error *err)
{
	if (json_array_append_new(owned, edits) < 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	return 0;
}

/* A source is the environment's alone: a device of it, or a spec no named device comes from. */
static bool env_only(const struct cdi_edit_sources *src, size_t i, size_t n_named)
{
	if (src->device[i] < n_named)
		return false;
	if (strcmp(src->v[i].field, "containerEdits") != 0)
		return true;
	for (size_t k = 0; k < src->n; k++)
		if (src->device[k] < n_named && strcmp(src->v[k].file, src->v[i].file) == 0)
			return false;
	return true;
}

static int filter_sources(struct cdi_edit_sources *src, size_t n_named, unsigned caps,
			  struct cdi_facts_memo *fs, json_t *owned, struct cdi_error *err)
{
	for (size_t i = 0; i < src->n; i++) {
		struct cdi_facts *f;
		json_t *kept;
		int r;

		if (!json_is_object(src->v[i].edits) || !env_only(src, i, n_named))
			continue;
		r = cdi_facts_memo_get(fs, src->v[i].file, &f, err);
		if (r < 0)
			return r;
		if (!f || !f->capabilities)
			continue; /* nothing recorded: nothing to filter by */
		r = driver_caps_filter_edits(src->v[i].edits, f->capabilities, caps, &kept, err);
		if (r < 0 || (r = keep(owned, kept, err)) < 0)
			return r;
		r = lib_tree_select(kept, f->library_tree, f->capabilities, caps, err);
		if (r < 0)
			return r;
		src->v[i].edits = kept;
	}
	return 0;
}

/* Edits made here, after the spec's, with the variable that asked for them as their field. */
static int add_source(struct cdi_edit_sources *src, json_t *edits, const char *field, json_t *owned,
		      struct cdi_error *err)
{
	int r = keep(owned, edits, err);

	if (r < 0 || json_object_size(edits) == 0)
		return r;
	if (src->n == src->cap)
		return cdi_fail(err, -E2BIG, "too many edit sources");
	src->device[src->n] = SIZE_MAX;
	src->v[src->n++] = (struct cdi_edit_source){ .edits = edits, .field = field };
	return 0;
}

static int mig_admin_source(const json_t *oci, const struct container_env *env,
			    const struct selection *s, const struct env_inject_options *opts,
			    struct cdi_edit_sources *src, json_t *owned, struct cdi_error *err)
{
	_cleanup_free_ struct mig_admin_gpu *gpus = calloc(s->n_gpus + 1, sizeof(*gpus));
	_cleanup_free_ char(*index)[24] = calloc(s->n_gpus + 1, sizeof(*index));
	struct mig_admin_request req = {
		.config_devices = env->mig_config_devices,
		.monitor_devices = env->mig_monitor_devices,
		.privileged = oci_privileged(oci),
		.gpus = gpus,
		.all_selected = s->all,
		.n_mig_devices = s->n_mig_devices,
		.root = opts->host_root,
	};
	json_t *edits;
	int r;

	if ((!req.config_devices || !*req.config_devices) &&
	    (!req.monitor_devices || !*req.monitor_devices))
		return 0;
	if (!gpus || !index)
		return cdi_fail(err, -ENOMEM, "out of memory");
	/* A GPU whose minor was not recorded cannot be named by its nodes. */
	for (size_t i = 0, k; i < s->n_gpus; i++) {
		if (s->gpus[i]->minor < 0)
			continue;
		k = req.n_gpus++;
		snprintf(index[k], sizeof(index[k]), "%lld", s->gpus[i]->index);
		gpus[k] = (struct mig_admin_gpu){ (unsigned)s->gpus[i]->minor, index[k],
						  s->gpus[i]->uuid };
	}
	r = mig_admin_edits(&req, &edits, err);
	if (r < 0)
		return r;
	return add_source(src, edits, "NVIDIA_MIG_*_DEVICES", owned, err);
}

int env_inject(const cdi_registry *reg, json_t *oci, const struct container_env *env,
	       const char *const *devices, size_t n_devices, size_t n_named,
	       const struct env_inject_options *opts, struct cdi_error *err)
{
	struct cdi_edit_sources src __attribute__((cleanup(cdi_edit_sources_done))) = { 0 };
	struct cdi_facts_memo own __attribute__((cleanup(cdi_facts_memo_done))) = { 0 };
	struct selection sel __attribute__((cleanup(selection_done))) = { 0 };
	static const struct env_inject_options defaults = { 0 };
	_cleanup_json_ json_t *owned = json_array();
	struct cdi_facts_memo *fs;
	json_t *mps;
	unsigned caps;
	int r;

	if (!opts)
		opts = &defaults;
	fs = opts->facts ? opts->facts : &own;
	if (!owned)
		return cdi_fail(err, -ENOMEM, "out of memory");
	if (n_devices == 0)
		return 0;
	r = cdi_registry_edit_sources(reg, devices, n_devices, &src, err);
	if (r >= 0 && n_named == n_devices)
		r = cdi_apply_edit_sources(oci, src.v, src.n, NULL, err);
	if (r < 0 || n_named == n_devices)
		return r < 0 ? r : 0;

	r = container_env_driver_caps(env, &caps, err);
	if (r >= 0)
		r = select_devices(env, devices, n_devices, n_named, opts, &src, fs, &sel, err);
	if (r >= 0)
		r = check_requirements(env, &sel, opts->host_root, err);
	if (r >= 0)
		r = filter_sources(&src, n_named, caps, fs, owned, err);
	if (r >= 0)
		r = mig_admin_source(oci, env, &sel, opts, &src, owned, err);
	if (r >= 0)
		r = mps_edits(opts->host_root, opts->mps_pipe_dir, caps, &mps, err);
	if (r >= 0)
		r = add_source(&src, mps, MPS_PIPE_DIR_ENV, owned, err);
	if (r < 0)
		return r;
	r = cdi_apply_edit_sources(oci, src.v, src.n, NULL, err);
	return r < 0 ? r : 0;
}
