/* SPDX-License-Identifier: Apache-2.0 */
/* The facts file's content, from the inventory and the spec assembled from it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cdi/names.h>

#include "facts.h"
#include "macro.h"
#include "problem.h"
#include "rules.h"
#include "strv.h"

#define FACTS_VERSION 1

/* The device names the spec has for a GPU (mig NULL) or MIG device; [] when not selected. */
static json_t *names_json(const struct spec_options *o, const struct gpu_device *gpu,
			  const struct mig_device *mig, bool selected)
{
	char names[NAME_MAX_STRATEGIES][DEVICE_NAME_MAX];
	json_t *list = json_array();
	size_t n = selected ? device_names(o->name_strategies, gpu, mig, names) : 0;

	for (size_t i = 0; list && i < n; i++)
		if (!cdi_name_problem(CDI_NAME_DEVICE, names[i], strlen(names[i]), NULL) &&
		    json_array_append_new(list, json_string(names[i])) < 0) {
			json_decref(list);
			return NULL;
		}
	return list;
}

static json_t *mig_json(const struct spec_options *o, const struct gpu_device *gpu,
			const struct mig_device *mig, bool selected)
{
	char index[32];

	snprintf(index, sizeof(index), "%u:%u", gpu->index, mig->index);
	return json_pack("{s:s, s:s, s:I, s:I, s:o}", "index", index, "uuid", mig->uuid, "gi",
			 (json_int_t)mig->gi, "ci", (json_int_t)mig->ci, "devices",
			 names_json(o, gpu, mig, selected));
}

static json_t *gpu_json(const struct spec_options *o, const struct gpu_device *gpu,
			const struct device_selection *sel, size_t i)
{
	_cleanup_json_ json_t *g =
		json_pack("{s:I, s:I, s:s, s:s, s:s}", "index", (json_int_t)gpu->index, "minor",
			  (json_int_t)gpu->minor, "uuid", gpu->uuid, "busId", gpu->bus_id, "model",
			  gpu->name);
	_cleanup_json_ json_t *migs = json_array();

	if (!g || !migs ||
	    (gpu->brand && json_object_set_new(g, "brand", json_string(gpu->brand)) < 0) ||
	    (gpu->arch[0] && json_object_set_new(g, "arch", json_string(gpu->arch)) < 0) ||
	    json_object_set_new(g, "mig", json_boolean(gpu->mig_enabled)) < 0 ||
	    json_object_set_new(g, "devices", names_json(o, gpu, NULL, sel->gpus && sel->gpus[i])) <
		    0)
		return NULL;
	if (!gpu->mig_enabled)
		return TAKE_PTR(g);
	for (size_t j = 0; j < gpu->n_migs && j < GPU_MAX_MIGS; j++)
		if (json_array_append_new(
			    migs, mig_json(o, gpu, &gpu->migs[j],
					   sel->migs && sel->migs[i * GPU_MAX_MIGS + j])) < 0)
			return NULL;
	if (json_object_set_new(g, "migDevices", TAKE_PTR(migs)) < 0)
		return NULL;
	return TAKE_PTR(g);
}

/* The capabilities, keys sorted (the same host gives the same bytes). */
static json_t *sorted_caps(const json_t *caps)
{
	_cleanup_strv_free_ char **keys = calloc(json_object_size(caps) + 1, sizeof(*keys));
	json_t *out = json_object(), *v;
	const char *key;
	size_t n = 0;

	if (!keys || !out) {
		json_decref(out);
		return NULL;
	}
	json_object_foreach ((json_t *)caps, key, v) {
		if (!(keys[n] = strdup(key))) {
			json_decref(out);
			return NULL;
		}
		n++;
	}
	strv_sort(keys, n);
	for (size_t i = 0; i < n; i++)
		if (json_object_set(out, keys[i], json_object_get(caps, keys[i])) < 0) {
			json_decref(out);
			return NULL;
		}
	return out;
}

static json_t *driver_json(const struct inventory *inv)
{
	json_t *d = json_pack("{s:s}", "version", inv->driver_version);
	char cuda[32];

	if (d && inventory_cuda_version(inv, cuda, sizeof(cuda)) &&
	    json_object_set_new(d, "cuda", json_string(cuda)) < 0) {
		json_decref(d);
		return NULL;
	}
	return d;
}

int facts_build(const struct inventory *inv, const struct spec_options *opts,
		const struct spec_result *res, json_t **ret, struct cdi_error *err)
{
	struct device_selection sel = { 0 };
	_cleanup_json_ json_t *facts = NULL, *gpus = json_array();
	int r = 0;

	if (!res->capabilities)
		return cdi_fail(err, -EINVAL, "facts: the spec was built without its capabilities");
	/* The GPUs a spec of its own devices (WSL's "all") names: none by name, all by "all". */
	if (!opts->management && inv->n_devices == 0)
		r = device_select(inv, opts->device_ids, opts->n_device_ids, &sel, err);
	if (r < 0)
		return r;
	for (size_t i = 0; gpus && i < inv->n_gpus && !opts->management; i++)
		if (json_array_append_new(gpus, gpu_json(opts, &inv->gpus[i], &sel, i)) < 0) {
			json_decref(TAKE_PTR(gpus));
			break;
		}
	device_selection_clear(&sel);
	facts = json_pack("{s:i, s:O, s:o, s:o, s:o}", "cdikitFacts", FACTS_VERSION, "kind",
			  json_object_get(res->spec, "kind"), "driver", driver_json(inv), "gpus",
			  TAKE_PTR(gpus), "capabilities", sorted_caps(res->capabilities));
	if (!facts)
		return cdi_fail(err, -ENOMEM, "out of memory");
	*ret = TAKE_PTR(facts);
	return 0;
}

int facts_emit(const json_t *facts, char **ret_buf, size_t *ret_len, struct cdi_error *err)
{
	_cleanup_json_text_ char *text = json_dumps(facts, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	size_t len;

	if (!text)
		return cdi_fail(err, -ENOMEM, "out of memory");
	len = strlen(text);
	*ret_buf = malloc(len + 2);
	if (!*ret_buf)
		return cdi_fail(err, -ENOMEM, "out of memory");
	memcpy(*ret_buf, text, len);
	(*ret_buf)[len] = '\n';
	(*ret_buf)[len + 1] = '\0';
	*ret_len = len + 1;
	return 0;
}
