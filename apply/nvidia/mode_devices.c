/* SPDX-License-Identifier: Apache-2.0 */
/*
 * IMEX channels and gated modes as CDI devices. nvidia-container-runtime's jit-cdi mode asks its
 * in-memory generator for "mode=imex,id=<N>" and "mode=gds" (internal/modifier/cdi.go
 * imexDevices, gatedDevices); the same devices, written to disk by cdi-generate --mode imex|gds|
 * mofed|gdrcopy|nvswitch, are nvidia.com/imex-channel=<N> and nvidia.com/<mode>=all (the names
 * NVIDIA's k8s device plugin asks for in its CDI strategies).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "macro.h"
#include "mode_devices.h"
#include "problem.h"
#include "strv.h"
#include "visible_devices.h"

static const struct {
	const char *env, *mode;
} gated_modes[GATED_N] = {
	[GATED_GDS] = { GATED_GDS_ENV, "gds" },
	[GATED_MOFED] = { GATED_MOFED_ENV, "mofed" },
	[GATED_GDRCOPY] = { GATED_GDRCOPY_ENV, "gdrcopy" },
	[GATED_NVSWITCH] = { GATED_NVSWITCH_ENV, "nvswitch" },
};

const char *gated_mode_env(enum gated_mode m)
{
	return (unsigned)m < GATED_N ? gated_modes[m].env : NULL;
}

void mode_devices_done(struct mode_devices *d)
{
	for (size_t i = 0; d && i < d->n; i++) {
		free(d->v[i].name);
		free(d->v[i].origin);
	}
	if (d) {
		free(d->v);
		*d = (struct mode_devices){ 0 };
	}
}

/* Take name and origin (freed on failure too); a name asked for before is dropped. */
static int add(struct mode_devices *d, char *name, const char *mode, char *origin)
{
	for (size_t i = 0; name && i < d->n; i++)
		if (strcmp(d->v[i].name, name) == 0) {
			free(name);
			free(origin);
			return 0;
		}
	if (!name || !origin || ARRAY_RESERVE(d->v, d->cap, d->n + 1) < 0) {
		free(name);
		free(origin);
		return -ENOMEM;
	}
	d->v[d->n++] = (struct mode_device){ name, mode, origin };
	return 0;
}

int imex_channels_parse(const char *value, char ***ret, size_t *ret_n, struct cdi_error *err)
{
	static const char *const special[] = { "void", "none", "all" };
	_cleanup_strv_free_ char **items = NULL;
	struct strv_set ids = { 0 };
	size_t n;

	if (nvidia_list_split(value, &items, NULL) < 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	/* image.NewVisibleDevices: a special value anywhere stands for the whole list, and for
	 * channels each of them means none (imexChannelsFromEnvVar drops "all"). */
	for (size_t k = 0; k < ELEMENTSOF(special); k++)
		if (strv_contains(items, special[k]))
			strv_free(TAKE_PTR(items));
	for (char **item = items; item && *item; item++)
		if (strv_set_add(&ids, *item) < 0) {
			strv_set_clear(&ids);
			return cdi_fail(err, -ENOMEM, "out of memory");
		}
	*ret = strv_set_steal(&ids, &n);
	if (!*ret)
		return cdi_fail(err, -ENOMEM, "out of memory");
	if (ret_n)
		*ret_n = n;
	return 0;
}

/* nvcdi's validation (lib-imex.go): strconv.ParseUint(id, 10, 64) and at most 2^20 - 1. */
static bool imex_channel_number(const char *id)
{
	unsigned long long v = 0;

	if (!*id)
		return false;
	for (const char *p = id; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		v = v * 10 + (unsigned)(*p - '0');
		if (v > IMEX_CHANNEL_MAX)
			return false;
	}
	return true;
}

int mode_devices_add_imex(struct mode_devices *d, const char *id, bool allow_all,
			  const char *origin, struct cdi_error *err)
{
	const char *number = strncmp(id, "channel", 7) == 0 ? id + 7 : id;
	char *name;

	if (!(allow_all && strcmp(number, "all") == 0) && !imex_channel_number(number))
		return cdi_problem_add(err, -EINVAL, NULL, 0, 0, origin,
				       "\"%.64s\" is not an IMEX channel (a number from 0 to %lu)",
				       id, IMEX_CHANNEL_MAX);
	if (asprintf(&name, IMEX_CHANNEL_KIND "=%s", number) < 0)
		name = NULL;
	if (add(d, name, "imex", strdup(origin)) < 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	return 0;
}

int mode_devices_add_gated(struct mode_devices *d, const char *const *values, struct cdi_error *err)
{
	for (size_t m = 0; m < GATED_N; m++) {
		char *name, *origin;

		if (!values[m] || strcmp(values[m], GATED_ENABLED) != 0)
			continue;
		if (asprintf(&name, "nvidia.com/%s=all", gated_modes[m].mode) < 0)
			name = NULL;
		if (asprintf(&origin, "%s=" GATED_ENABLED, gated_modes[m].env) < 0)
			origin = NULL;
		if (add(d, name, gated_modes[m].mode, origin) < 0)
			return cdi_fail(err, -ENOMEM, "out of memory");
	}
	return 0;
}

/* "/etc/cdi, /var/run/cdi" */
static char *searched_dirs(const cdi_registry *reg)
{
	_cleanup_free_ char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	if (!f)
		return NULL;
	for (size_t i = 0; i < cdi_registry_dir_count(reg); i++)
		fprintf(f, "%s%s", i ? ", " : "", cdi_registry_dir(reg, i));
	if (cdi_registry_dir_count(reg) == 0)
		fputs("no directory", f);
	if (fclose(f) != 0)
		return NULL;
	return TAKE_PTR(buf);
}

int mode_devices_check(const struct mode_devices *d, const cdi_registry *reg, struct cdi_error *err)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct mode_device *m = &d->v[i];
		_cleanup_free_ char *dirs = NULL;

		if (cdi_registry_lookup(reg, m->name, NULL))
			continue;
		dirs = searched_dirs(reg);
		if (!dirs)
			return cdi_fail(err, -ENOMEM, "out of memory");
		if (strcmp(m->mode, "imex") == 0)
			return cdi_problem_add(
				err, -ENOENT, NULL, 0, 0, m->origin,
				"IMEX channel %s is not in the CDI specs (no %s in %s): cdi-generate --mode imex writes them",
				strchr(m->name, '=') + 1, m->name, dirs);
		return cdi_problem_add(
			err, -ENOENT, NULL, 0, 0, m->origin,
			"no spec of the %s mode (no %s in %s): cdi-generate --mode %s writes it",
			m->mode, m->name, dirs, m->mode);
	}
	return 0;
}
