/* SPDX-License-Identifier: Apache-2.0 */
/* Device names under nvidia-ctk's strategies, their order, and --device-id selection. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_names.h"
#include "macro.h"
#include "problem.h"
#include "host/procfs.h"

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
			return cdi_problem_add(
				err, -EINVAL, NULL, 0, 0, "--device-name-strategy",
				"unknown strategy \"%.*s\" (index, uuid, type-index)", (int)n, p);
		if (p[n] == '\0')
			return 0;
		p += n + 1;
	}
}

size_t device_names(unsigned strategies, const struct gpu_device *gpu, const struct mig_device *mig,
		    char names[NAME_MAX_STRATEGIES][DEVICE_NAME_MAX])
{
	size_t n = 0;

	if (!strategies)
		strategies = NAME_DEFAULT;
	if (strategies & NAME_INDEX) {
		if (mig)
			snprintf(names[n++], DEVICE_NAME_MAX, "%u:%u", gpu->index, mig->index);
		else
			snprintf(names[n++], DEVICE_NAME_MAX, "%u", gpu->index);
	}
	if (strategies & NAME_UUID)
		snprintf(names[n++], DEVICE_NAME_MAX, "%s", mig ? mig->uuid : gpu->uuid);
	if (strategies & NAME_TYPE_INDEX) {
		if (mig)
			snprintf(names[n++], DEVICE_NAME_MAX, "mig%u:%u", gpu->index, mig->index);
		else
			snprintf(names[n++], DEVICE_NAME_MAX, "gpu%u", gpu->index);
	}
	return n;
}

static bool is_uuid_name(const char *s)
{
	return strncmp(s, "GPU-", 4) == 0 || strncmp(s, "MIG-", 4) == 0;
}

/* Compare the digit runs at *a and *b as numbers, moving both past them. */
static int digits_cmp(const char **a, const char **b)
{
	const char *ea, *eb;
	size_t la, lb;
	int c;

	while (**a == '0' && isdigit((unsigned char)(*a)[1]))
		(*a)++;
	while (**b == '0' && isdigit((unsigned char)(*b)[1]))
		(*b)++;
	for (ea = *a; isdigit((unsigned char)*ea); ea++)
		;
	for (eb = *b; isdigit((unsigned char)*eb); eb++)
		;
	la = (size_t)(ea - *a);
	lb = (size_t)(eb - *b);
	if (la != lb)
		return la < lb ? -1 : 1;
	c = memcmp(*a, *b, la);
	*a = ea;
	*b = eb;
	return c;
}

int device_name_cmp(const char *a, const char *b)
{
	const char *a0 = a, *b0 = b;

	/* UUIDs are hex: "GPU-8d..." vs "GPU-54..." must not compare 8 with 54. */
	if (is_uuid_name(a) || is_uuid_name(b))
		return strcmp(a, b);
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			int c = digits_cmp(&a, &b);

			if (c)
				return c;
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

/* "3", "3:1", "gpu3", "mig3:1". */
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

/* One --device-id: the GPU or MIG device it names, marked. */
static int select_one(const struct inventory *inv, const char *id, struct device_selection *sel,
		      struct cdi_error *err)
{
	char bus[GPU_BUSID_MAX];
	bool is_bus = pci_bus_id_normalize(id, bus) == 0;
	unsigned g = 0;
	long m = -1;
	bool is_index = parse_index_id(id, &g, &m);

	for (size_t i = 0; i < inv->n_gpus; i++) {
		const struct gpu_device *gpu = &inv->gpus[i];

		if ((is_index && m < 0 && gpu->index == g) || strcmp(id, gpu->uuid) == 0 ||
		    (is_bus && strcmp(bus, gpu->bus_id) == 0)) {
			if (gpu->mig_enabled)
				return cdi_problem_add(
					err, -EINVAL, NULL, 0, 0, "--device-id",
					"%s: GPU %u is in MIG mode; select its MIG devices (%u:<n>) instead",
					id, gpu->index, gpu->index);
			sel->gpus[i] = true;
			return 0;
		}
		for (size_t j = 0; j < gpu->n_migs; j++) {
			const struct mig_device *mig = &gpu->migs[j];

			if ((is_index && m >= 0 && gpu->index == g &&
			     mig->index == (unsigned long)m) ||
			    strcmp(id, mig->uuid) == 0) {
				sel->migs[i * GPU_MAX_MIGS + j] = true;
				return 0;
			}
		}
	}
	return cdi_problem_add(err, -ENOENT, NULL, 0, 0, "--device-id",
			       "%s: no such GPU or MIG device", id);
}

int device_select(const struct inventory *inv, const char *const *ids, size_t n_ids,
		  struct device_selection *ret, struct cdi_error *err)
{
	struct device_selection sel = { 0 };
	bool everything = n_ids == 0;
	int r = 0;

	sel.gpus = calloc(inv->n_gpus + 1, sizeof(*sel.gpus));
	sel.migs = calloc((inv->n_gpus + 1) * GPU_MAX_MIGS, sizeof(*sel.migs));
	if (!sel.gpus || !sel.migs) {
		device_selection_clear(&sel);
		return cdi_fail(err, -ENOMEM, "out of memory");
	}
	for (size_t k = 0; k < n_ids; k++) {
		everything |= strcmp(ids[k], "all") == 0;
		sel.none |= strcmp(ids[k], DEVICE_NONE) == 0;
	}
	for (size_t i = 0; everything && i < inv->n_gpus; i++) {
		sel.gpus[i] = !inv->gpus[i].mig_enabled;
		for (size_t j = 0; j < inv->gpus[i].n_migs && j < GPU_MAX_MIGS; j++)
			sel.migs[i * GPU_MAX_MIGS + j] = true;
	}
	for (size_t k = 0; !everything && r >= 0 && k < n_ids; k++)
		if (strcmp(ids[k], DEVICE_NONE) != 0)
			r = select_one(inv, ids[k], &sel, err);
	if (r < 0) {
		device_selection_clear(&sel);
		return r;
	}
	*ret = sel;
	return 0;
}

void device_selection_clear(struct device_selection *sel)
{
	free(sel->gpus);
	free(sel->migs);
	*sel = (struct device_selection){ 0 };
}
