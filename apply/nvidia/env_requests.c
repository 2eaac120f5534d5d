/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The order of nvidia-container-runtime's image.CUDA, with the settings of its config.toml.
 * Volume mounts are not subject to the trust rule (the kubelet writes them from the device
 * plugin's answer), and they replace the variables kind by kind: GPU mounts the GPU list,
 * imex/ mounts NVIDIA_IMEX_CHANNELS. The gated variables are read as they are, as the runtime
 * reads them (it has no trust rule for them), but only for a container that gets GPUs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env_requests.h"
#include "env_trust.h"
#include "macro.h"
#include "mount_requests.h"
#include "problem.h"
#include "strv.h"
#include "visible_devices.h"

void env_requests_done(struct env_requests *r)
{
	if (!r)
		return;
	strv_free(r->gpus);
	mode_devices_done(&r->modes);
	free(r->var);
	*r = (struct env_requests){ 0 };
}

/* The first variable of the swarm-resource list that the container sets (even to ""): its
 * value, its name in *ret_name; NULL when none is set. -ENOMEM. */
static int swarm_variable(const json_t *oci, const char *list, const char **ret_value,
			  char **ret_name)
{
	_cleanup_strv_free_ char **names = NULL;

	if (nvidia_list_split(list, &names, NULL) < 0)
		return -ENOMEM;
	for (char **n = names; *n; n++) {
		*ret_value = oci_env_value(oci, *n);
		if (*ret_value) {
			*ret_name = strdup(*n);
			return *ret_name ? 0 : -ENOMEM;
		}
	}
	return 0;
}

/* The GPU list of the variables: the swarm one, else NVIDIA_VISIBLE_DEVICES. */
static int gpus_from_variable(const json_t *oci, const struct container_env *env,
			      const struct env_request_options *o, struct env_requests *r,
			      struct cdi_error *err)
{
	const char *value = NULL;

	if (o->swarm_resource && swarm_variable(oci, o->swarm_resource, &value, &r->var) < 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	if (!r->var) {
		r->var = strdup(CDI_VISIBLE_DEVICES_ENV);
		if (!r->var)
			return cdi_fail(err, -ENOMEM, "out of memory");
		value = container_env_visible_devices(env);
	}
	r->value = value;
	if (value && strcmp(value, "none") == 0 && !o->none_asks_nothing) {
		/* The driver without a GPU: the generator's none device. */
		r->gpus = calloc(2, sizeof(*r->gpus));
		if (!r->gpus || !(r->gpus[0] = strdup(VISIBLE_DEVICES_NONE_DEVICE)))
			return cdi_fail(err, -ENOMEM, "out of memory");
		r->n_gpus = 1;
		return 0;
	}
	return cdi_visible_devices_parse(value, &r->gpus, &r->n_gpus, err);
}

/*
 * The device plugin's volume-mounts strategy points NVIDIA_VISIBLE_DEVICES at the mounts'
 * directory. The runtime then asks for a device of that name, which no spec has; say what is
 * meant instead.
 */
static int mounts_not_read(const struct env_requests *r, bool accepted, struct cdi_error *err)
{
	_cleanup_free_ char *field = NULL;

	if (asprintf(&field, "%s=%s", r->var, r->value) < 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	if (accepted)
		return cdi_problem_add(
			err, -EINVAL, NULL, 0, 0, field,
			"the devices are listed as volume mounts, and there is none (no /dev/null mount under " VOLUME_MOUNTS_ROOT
			")");
	return cdi_problem_add(
		err, -EINVAL, NULL, 0, 0, field,
		"the devices are listed as volume mounts, which are read only with " VOLUME_MOUNTS_SETTING
		" = true (cdi-runtime's runtime.conf)");
}

static int imex_from_variable(const struct container_env *env, bool trusted, struct env_requests *r,
			      struct cdi_error *err)
{
	_cleanup_strv_free_ char **ids = NULL;
	_cleanup_free_ char *origin = NULL;
	size_t n;
	int code = imex_channels_parse(env->imex_channels, &ids, &n, err);

	if (code < 0 || n == 0)
		return code;
	if (!trusted) {
		r->ignored_imex = env->imex_channels;
		return 0;
	}
	if (asprintf(&origin, IMEX_CHANNELS_ENV "=%s", env->imex_channels) < 0) {
		origin = NULL;
		return cdi_fail(err, -ENOMEM, "out of memory");
	}
	for (char **id = ids; code == 0 && *id; id++)
		code = mode_devices_add_imex(&r->modes, *id, false, origin, err);
	return code;
}

int env_requests_read(const json_t *oci, const struct container_env *env,
		      const struct env_request_options *o, struct env_requests *ret,
		      struct cdi_error *err)
{
	struct mount_requests m __attribute__((cleanup(mount_requests_done))) = { 0 };
	struct env_requests r __attribute__((cleanup(env_requests_done))) = { 0 };
	bool trusted = o->accept_env_unprivileged || oci_privileged(oci);
	int code = 0;

	if (o->accept_mounts)
		code = mount_requests_read(oci, &m, err);
	if (code < 0)
		return code;
	if (m.n_gpus) {
		r.gpus = TAKE_PTR(m.gpus);
		r.n_gpus = m.n_gpus;
		r.from_mounts = true;
	} else {
		code = gpus_from_variable(oci, env, o, &r, err);
		if (code < 0)
			return code;
		if (r.n_gpus && !trusted) {
			r.ignored = true;
			strv_free(TAKE_PTR(r.gpus));
			r.n_gpus = 0;
		}
		if (r.n_gpus &&
		    strv_contains(r.gpus, CDI_VISIBLE_DEVICES_KIND "=" VOLUME_MOUNTS_ROOT))
			return mounts_not_read(&r, o->accept_mounts, err);
	}
	if (r.n_gpus) {
		for (size_t i = 0; code == 0 && i < m.n_imex; i++)
			code = mode_devices_add_imex(&r.modes, m.imex[i], true, m.imex_paths[i],
						     err);
		if (code == 0 && m.n_imex == 0)
			code = imex_from_variable(env, trusted, &r, err);
		if (code == 0)
			code = mode_devices_add_gated(&r.modes, env->gated, err);
		if (code < 0)
			return code;
	}
	if (!r.gpus && !(r.gpus = calloc(1, sizeof(*r.gpus))))
		return cdi_fail(err, -ENOMEM, "out of memory");
	*ret = r;
	r = (struct env_requests){ 0 };
	return 0;
}
