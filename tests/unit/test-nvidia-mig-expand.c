/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A request for a GPU in MIG mode (apply/nvidia/mig_expand.c): Docker's --gpus 2 sends
 * NVIDIA_VISIBLE_DEVICES=0,1 whatever the GPUs' modes, and a generated spec rightly has no
 * whole-GPU device for a MIG-mode GPU. Its index becomes its N:M devices (from the spec's
 * names); its UUID, through the facts file beside the spec. The spec and facts here are
 * written by hand in the shape cdi-generate gives them (names index and uuid; GPU 2 in MIG
 * mode with four MIG devices, 2:10 among them to show the order is numeric).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include <cdi/cdi.h>

#include "nvidia/mig_expand.h"
#include "../lib/testlib.h"

#define GPU0 "GPU-54e67eb0-c6b5-d687-008a-2323a63630c7"
#define GPU2 "GPU-7ad0c01a-caf1-bed9-cebc-0b21ab553c68"
#define MIG20 "MIG-e8055dbf-d998-89d6-179d-90049a49fa6b"

static const char spec[] =
	"{\"cdiVersion\": \"0.5.0\", \"kind\": \"nvidia.com/gpu\",\n"
	" \"containerEdits\": {\"env\": [\"SPEC=1\"]},\n"
	" \"devices\": [\n"
	"  {\"name\": \"0\", \"containerEdits\": {\"env\": [\"G0=1\"]}},\n"
	"  {\"name\": \"" GPU0 "\", \"containerEdits\": {\"env\": [\"G0=1\"]}},\n"
	"  {\"name\": \"2:0\", \"containerEdits\": {\"env\": [\"M20=1\"]}},\n"
	"  {\"name\": \"2:1\", \"containerEdits\": {\"env\": [\"M21=1\"]}},\n"
	"  {\"name\": \"2:2\", \"containerEdits\": {\"env\": [\"M22=1\"]}},\n"
	"  {\"name\": \"2:10\", \"containerEdits\": {\"env\": [\"M210=1\"]}},\n"
	"  {\"name\": \"" MIG20 "\", \"containerEdits\": {\"env\": [\"M20=1\"]}},\n"
	"  {\"name\": \"none\", \"containerEdits\": {\"env\": [\"NONE=1\"]}},\n"
	"  {\"name\": \"all\", \"containerEdits\": {\"env\": [\"ALL=1\"]}}]}\n";

/* The MIG devices of GPU 2 by their first name that the spec has: 2:1 is known only as
 * mig2:1 (a strategy the spec was not generated with), so its second name is taken. */
static const char facts[] =
	"{\"cdikitFacts\": 1, \"kind\": \"nvidia.com/gpu\", \"gpus\": [\n"
	" {\"index\": 0, \"uuid\": \"" GPU0 "\", \"mig\": false, \"devices\": [\"0\", \"" GPU0
	"\"]},\n"
	" {\"index\": 2, \"uuid\": \"" GPU2
	"\", \"mig\": true, \"devices\": [], \"migDevices\": [\n"
	"   {\"index\": \"2:0\", \"uuid\": \"" MIG20 "\", \"devices\": [\"" MIG20 "\", \"2:0\"]},\n"
	"   {\"index\": \"2:1\", \"uuid\": \"MIG-b\", \"devices\": [\"mig2:1\", \"2:1\"]},\n"
	"   {\"index\": \"2:10\", \"uuid\": \"MIG-c\", \"devices\": [\"2:10\"]}]}]}\n";

static char dir[] = "/tmp/cdikit-test-mig.XXXXXX";
static cdi_registry *reg;

static void write_file(const char *name, const char *text)
{
	free(write_file_in(dir, name, text));
}

static void open_registry(void)
{
	const char *dirs[] = { dir };
	struct cdi_error err = { 0 };

	cdi_registry_free(reg);
	reg = NULL;
	cr_assert_eq(cdi_registry_new(dirs, 1, 0, &reg, &err), 0, "%s", cdi_error_message(&err));
	cr_assert_eq(cdi_error_count(cdi_registry_errors(reg)), 0, "%s",
		     cdi_error_message(cdi_registry_errors(reg)));
}

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	write_file("nvidia.json", spec);
	write_file("nvidia.json.cdikit", facts);
	open_registry();
}

static void teardown(void)
{
	cdi_registry_free(reg);
	reg = NULL;
	sh("rm -rf '%s'", dir);
}

TestSuite(mig, .init = setup, .fini = teardown);

/* Expand the comma-separated names from source; want: the result, NULL-terminated. */
static void expand(enum device_request_source source, const char *names, ...)
{
	struct device_requests r = { .source = source };
	char *copy = strdup(names), *save = NULL;
	struct cdi_error err = { 0 };
	const char *want;
	size_t cap = 16, i = 0;
	va_list ap;

	r.devices = calloc(cap, sizeof(*r.devices));
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
		r.devices[r.n++] = strdup(t);
	free(copy);
	cr_assert_eq(mig_expand(reg, &r, &err), 0, "%s", cdi_error_message(&err));
	va_start(ap, names);
	while ((want = va_arg(ap, const char *))) {
		cr_assert_lt(i, r.n, "%s: missing %s", names, want);
		cr_assert_str_eq(r.devices[i], want, "%s: item %zu", names, i);
		i++;
	}
	va_end(ap);
	cr_assert_eq(r.n, i, "%s: %zu devices, want %zu", names, r.n, i);
	cr_assert_null(r.devices[r.n]);
	device_requests_done(&r);
}

Test(mig, index_of_a_mig_gpu_gives_its_mig_devices_in_order)
{
	expand(DEVICE_REQUEST_ENV, "nvidia.com/gpu=2", "nvidia.com/gpu=2:0", "nvidia.com/gpu=2:1",
	       "nvidia.com/gpu=2:2", "nvidia.com/gpu=2:10", NULL);
	/* Docker's --gpus 2 on a host whose GPU 0 is whole and GPU 1 absent: 1 stays as asked
	 * (the injection then names it as unresolvable). */
	expand(DEVICE_REQUEST_ENV, "nvidia.com/gpu=0,nvidia.com/gpu=1", "nvidia.com/gpu=0",
	       "nvidia.com/gpu=1", NULL);
}

Test(mig, uuid_of_a_mig_gpu_through_the_facts)
{
	expand(DEVICE_REQUEST_ENV, "nvidia.com/gpu=" GPU2, "nvidia.com/gpu=" MIG20,
	       "nvidia.com/gpu=2:1", "nvidia.com/gpu=2:10", NULL);
	/* A whole GPU's UUID is a spec name: as asked. */
	expand(DEVICE_REQUEST_ENV, "nvidia.com/gpu=" GPU0, "nvidia.com/gpu=" GPU0, NULL);
	/* Unknown UUIDs stay for the injection to report. */
	expand(DEVICE_REQUEST_ENV, "nvidia.com/gpu=GPU-unknown", "nvidia.com/gpu=GPU-unknown",
	       NULL);
}

Test(mig, repeats_dropped_after_expansion)
{
	expand(DEVICE_REQUEST_ENV, "nvidia.com/gpu=2:1,nvidia.com/gpu=2,nvidia.com/gpu=" GPU2,
	       "nvidia.com/gpu=2:1", "nvidia.com/gpu=2:0", "nvidia.com/gpu=2:2",
	       "nvidia.com/gpu=2:10", "nvidia.com/gpu=" MIG20, NULL);
	expand(DEVICE_REQUEST_ANNOTATIONS, "vendor.com/x=1,vendor.com/x=1", "vendor.com/x=1", NULL);
}

/* CDI names from annotations are exact: no expansion (a native CDI consumer would fail too). */
Test(mig, annotations_are_not_expanded)
{
	expand(DEVICE_REQUEST_ANNOTATIONS, "nvidia.com/gpu=2,nvidia.com/gpu=" GPU2,
	       "nvidia.com/gpu=2", "nvidia.com/gpu=" GPU2, NULL);
}

Test(mig, other_kinds_and_names_untouched)
{
	expand(DEVICE_REQUEST_ENV,
	       "nvidia.com/gpu=all,nvidia.com/gpu=none,other.com/gpu=2,nvidia.com/gpu=9",
	       "nvidia.com/gpu=all", "nvidia.com/gpu=none", "other.com/gpu=2", "nvidia.com/gpu=9",
	       NULL);
}

Test(mig, without_facts_a_uuid_stays)
{
	char *path;

	cr_assert(asprintf(&path, "%s/nvidia.json.cdikit", dir) > 0);
	cr_assert_eq(unlink(path), 0);
	free(path);
	expand(DEVICE_REQUEST_ENV, "nvidia.com/gpu=" GPU2, "nvidia.com/gpu=" GPU2, NULL);
	/* The index needs no facts. */
	expand(DEVICE_REQUEST_ENV, "nvidia.com/gpu=2", "nvidia.com/gpu=2:0", "nvidia.com/gpu=2:1",
	       "nvidia.com/gpu=2:2", "nvidia.com/gpu=2:10", NULL);
}

Test(mig, bad_facts_are_an_error_only_when_needed)
{
	struct device_requests r = { .source = DEVICE_REQUEST_ENV };
	struct cdi_error err = { 0 };
	char *want;

	write_file("nvidia.json.cdikit", "{\"cdikitFacts\": 1, \"kind\": 7}");
	expand(DEVICE_REQUEST_ENV, "nvidia.com/gpu=2", "nvidia.com/gpu=2:0", "nvidia.com/gpu=2:1",
	       "nvidia.com/gpu=2:2", "nvidia.com/gpu=2:10", NULL);
	r.devices = calloc(2, sizeof(*r.devices));
	r.devices[0] = strdup("nvidia.com/gpu=" GPU2);
	r.n = 1;
	cr_assert_eq(mig_expand(reg, &r, &err), -EINVAL);
	cr_assert(asprintf(&want, "%s/nvidia.json.cdikit: kind: must be a string", dir) > 0);
	cr_assert_str_eq(cdi_error_message(&err), want);
	cr_assert_str_eq(r.devices[0], "nvidia.com/gpu=" GPU2, "requests unchanged on error");
	free(want);
	cdi_error_reset(&err);
	device_requests_done(&r);
}

/* The expanded names inject: GPU 2's MIG devices, the spec's edits once. */
Test(mig, expanded_requests_inject)
{
	struct device_requests r = { .source = DEVICE_REQUEST_ENV };
	struct cdi_error err = { 0 };
	json_t *oci = load("{'process': {'env': []}}"), *want;

	r.devices = calloc(2, sizeof(*r.devices));
	r.devices[0] = strdup("nvidia.com/gpu=2");
	r.n = 1;
	cr_assert_eq(mig_expand(reg, &r, &err), 0, "%s", cdi_error_message(&err));
	cr_assert_eq(cdi_registry_inject(reg, oci, (const char *const *)r.devices, r.n, NULL, &err),
		     0, "%s", cdi_error_message(&err));
	want = load("{'process': {'env': ['SPEC=1', 'M20=1', 'M21=1', 'M22=1', 'M210=1']}}");
	assert_json_eq(oci, want);
	json_decref(want);
	json_decref(oci);
	device_requests_done(&r);
}
