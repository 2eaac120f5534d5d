/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Injecting CDI devices into an OCI spec: the reference's Cache.InjectDevices (cache.go).
 * Every name is resolved before anything is edited; the edits are merged spec-then-device in
 * request order (a spec's own edits once, before its first requested device) and applied in
 * one pass, all or nothing.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cdi/names.h>
#include <cdi/registry.h>
#include <cdi/spec.h>

#include "edits.h"
#include "macro.h"
#include "problem.h"

/* At most this many candidates are named in a hint. */
#define HINT_MAX 3

/* True when the qualified name q ends in "/" + s (s = "class=name") or "=" + s (s = "name"). */
static bool completes(const char *q, const char *s)
{
	size_t ql = strlen(q), sl = strlen(s);
	char before;

	if (sl >= ql || strcmp(q + ql - sl, s) != 0)
		return false;
	before = q[ql - sl - 1];
	return strchr(s, '=') ? before == '/' : before == '=';
}

/* True when q is the qualified name of a MIG device of GPU name: "<prefix>=<name>:<n>". */
static bool mig_of(const char *q, const char *name)
{
	size_t nl = strlen(name);

	return strncmp(q, name, nl) == 0 && q[nl] == ':';
}

/*
 * Hints where users stumble: an unqualified name ("gpu=0", "0") that some device completes,
 * and a GPU in MIG mode, which has devices "N:M" but no "N" of its own.
 */
static void hint(const cdi_registry *reg, const char *name, struct cdi_error *err)
{
	const char *const *devs = cdi_registry_devices(reg);
	const char *found[HINT_MAX];
	size_t n = 0, eq;
	char list[512] = "";
	bool qualified = cdi_is_qualified_name(name);

	for (size_t i = 0; devs[i]; i++) {
		if (qualified ? !mig_of(devs[i], name) : !completes(devs[i], name))
			continue;
		if (n < HINT_MAX)
			found[n] = devs[i];
		n++;
	}
	for (size_t i = 0, o = 0; i < n && i < HINT_MAX && o < sizeof(list); i++)
		o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s", i ? ", " : "", found[i]);
	if (qualified && n > 0) {
		eq = (size_t)(strchr(name, '=') - name);
		cdi_fail(err, -ENOENT,
			 "%s: GPU %s is in MIG mode, and the spec has only its MIG devices: %s%s "
			 "(ask for one of those)",
			 name, name + eq + 1, list, n > HINT_MAX ? ", ..." : "");
	} else if (!qualified && n == 1) {
		cdi_fail(err, -ENOENT, "%s is not a qualified name: did you mean %s?", name, list);
	} else if (!qualified && n > 1) {
		cdi_fail(err, -ENOENT, "%s is not a qualified name: did you mean one of %s%s?",
			 name, list, n > HINT_MAX ? ", ..." : "");
	} else if (!qualified) {
		cdi_fail(err, -ENOENT,
			 "%s is not a qualified name (vendor/class=name, such as nvidia.com/gpu=0)",
			 name);
	}
}

/* "a, b" of the names, then the searched directories, as one message; then the hints. */
static int report_unresolved(const cdi_registry *reg, const char *const *devices, size_t n,
			     const bool *unresolved, struct cdi_error *err)
{
	_cleanup_free_ char *buf = NULL;
	size_t size = 0;
	FILE *f;
	const char *sep = "";

	f = open_memstream(&buf, &size);
	if (!f)
		return cdi_fail(err, -ENOENT, "unresolvable CDI devices");
	fputs("unresolvable CDI devices ", f);
	for (size_t i = 0; i < n; i++) {
		if (!unresolved[i])
			continue;
		fprintf(f, "%s%s", sep, devices[i] ? devices[i] : "(null)");
		sep = ", ";
	}
	fputs(" (searched ", f);
	sep = "";
	for (size_t i = 0; i < cdi_registry_dir_count(reg); i++) {
		fprintf(f, "%s%s", sep, cdi_registry_dir(reg, i));
		sep = ", ";
	}
	fputs(cdi_registry_dir_count(reg) ? ")" : "no directory)", f);
	if (fclose(f) != 0)
		return cdi_fail(err, -ENOENT, "unresolvable CDI devices");
	cdi_fail(err, -ENOENT, "%s", buf);
	for (size_t i = 0; i < n; i++)
		if (unresolved[i] && devices[i])
			hint(reg, devices[i], err);
	return -ENOENT;
}

/* The index of dev in spec, for the field path of a problem. */
static size_t device_index(const cdi_spec *spec, const json_t *dev)
{
	size_t n = cdi_spec_device_count(spec);

	for (size_t i = 0; i < n; i++)
		if (cdi_spec_device(spec, i) == dev)
			return i;
	return n;
}

void cdi_edit_sources_done(struct cdi_edit_sources *s)
{
	if (!s)
		return;
	free(s->v);
	free(s->device);
	free(s->fields);
	*s = (struct cdi_edit_sources){ 0 };
}

int cdi_registry_edit_sources(const cdi_registry *reg, const char *const *devices, size_t n_devices,
			      struct cdi_edit_sources *ret, struct cdi_error *err)
{
	struct cdi_edit_sources out __attribute__((cleanup(cdi_edit_sources_done))) = { 0 };
	_cleanup_free_ const cdi_spec **seen = NULL;
	_cleanup_free_ bool *unresolved = NULL;
	size_t n_seen = 0, n_unresolved = 0;

	if (n_devices > SIZE_MAX / (2 * sizeof(*out.v) + 32) - CDI_EDIT_SOURCES_EXTRA)
		return cdi_fail(err, -E2BIG, "can't inject devices, too many devices");

	out.cap = 2 * n_devices + CDI_EDIT_SOURCES_EXTRA;
	out.v = calloc(out.cap, sizeof(*out.v));
	out.device = calloc(out.cap, sizeof(*out.device));
	seen = calloc(n_devices + 1, sizeof(*seen));
	unresolved = calloc(n_devices + 1, sizeof(*unresolved));
	/* One field label per device: "devices[NNN].containerEdits". */
	out.fields = malloc(n_devices * 48 + 1);
	if (!out.v || !out.device || !seen || !unresolved || !out.fields)
		return cdi_fail(err, -ENOMEM, "out of memory");

	for (size_t i = 0; i < n_devices; i++) {
		const json_t *dev = NULL;
		const cdi_spec *spec =
			devices[i] ? cdi_registry_lookup(reg, devices[i], &dev) : NULL;
		char *field = out.fields + i * 48;
		bool known = false;

		if (!spec || !dev) {
			unresolved[i] = true;
			n_unresolved++;
			continue;
		}
		if (n_unresolved)
			continue; /* failing anyway; only collect the other unresolved names */

		/* Specs are few, so a linear look-up over those already seen stays cheap. */
		for (size_t k = 0; k < n_seen && !known; k++)
			known = seen[k] == spec;
		if (!known) {
			seen[n_seen++] = spec;
			out.device[out.n] = i;
			out.v[out.n++] = (struct cdi_edit_source){
				.edits = json_object_get(cdi_spec_json(spec), "containerEdits"),
				.file = cdi_spec_path(spec),
				.field = "containerEdits",
			};
		}
		snprintf(field, 48, "devices[%zu].containerEdits", device_index(spec, dev));
		out.device[out.n] = i;
		out.v[out.n++] = (struct cdi_edit_source){
			.edits = json_object_get(dev, "containerEdits"),
			.file = cdi_spec_path(spec),
			.field = field,
		};
	}
	if (n_unresolved)
		return report_unresolved(reg, devices, n_devices, unresolved, err);
	*ret = out;
	out = (struct cdi_edit_sources){ 0 };
	return 0;
}

_public_ int cdi_registry_inject(cdi_registry *reg, json_t *oci, const char *const *devices,
				 size_t n_devices, const struct cdi_inject_options *opts,
				 struct cdi_error *err)
{
	struct cdi_edit_sources src __attribute__((cleanup(cdi_edit_sources_done))) = { 0 };
	int r;

	if (!reg || !oci)
		return cdi_fail(err, -EINVAL, "can't inject devices, no registry or nil OCI Spec");
	if (!json_is_object(oci))
		return cdi_fail(err, -EINVAL,
				"can't inject devices, OCI Spec is not a JSON object");
	if (n_devices == 0)
		return 0;
	if (!devices)
		return cdi_fail(err, -EINVAL, "can't inject devices, no device list");
	r = cdi_registry_edit_sources(reg, devices, n_devices, &src, err);
	if (r < 0)
		return r;
	r = cdi_apply_edit_sources(oci, src.v, src.n, opts, err);
	return r < 0 ? r : 0;
}
