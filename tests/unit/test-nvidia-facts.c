/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The facts file beside a generated spec (apply/nvidia/facts.c): the draft interface's example
 * reads back field by field; what a version-1 reader does not know is ignored; a wrong type, a
 * newer version or an unknown capability is an error naming the file and field; a missing file
 * is -ENOENT without a problem (not an error for the runtime).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "nvidia/facts.h"
#include "../lib/testlib.h"

/* FACTS.md's example, with the UUIDs of the simulated DGX (tests/simhost/README.md). */
static const char example[] =
	"{\n"
	"  \"cdikitFacts\": 1,\n"
	"  \"kind\": \"nvidia.com/gpu\",\n"
	"  \"driver\": { \"version\": \"550.54.15\", \"cuda\": \"12.4\" },\n"
	"  \"gpus\": [\n"
	"    { \"index\": 0, \"minor\": 0, \"uuid\": \"GPU-54e67eb0-c6b5-d687-008a-2323a63630c7\",\n"
	"      \"busId\": \"0000:07:00.0\", \"model\": \"NVIDIA A100-SXM4-40GB\", \"brand\": \"Unknown\",\n"
	"      \"arch\": \"8.0\", \"mig\": false,\n"
	"      \"devices\": [\"0\", \"GPU-54e67eb0-c6b5-d687-008a-2323a63630c7\", \"gpu0\"] },\n"
	"    { \"index\": 2, \"minor\": 2, \"uuid\": \"GPU-7ad0c01a-caf1-bed9-cebc-0b21ab553c68\",\n"
	"      \"busId\": \"0000:47:00.0\", \"model\": \"NVIDIA A100-SXM4-40GB\", \"brand\": \"Unknown\",\n"
	"      \"arch\": \"8.0\", \"mig\": true, \"devices\": [],\n"
	"      \"migDevices\": [\n"
	"        { \"index\": \"2:0\", \"uuid\": \"MIG-e8055dbf-d998-89d6-179d-90049a49fa6b\", \"gi\": 7, \"ci\": 0,\n"
	"          \"devices\": [\"2:0\", \"MIG-e8055dbf-d998-89d6-179d-90049a49fa6b\", \"mig2:0\"] } ] }\n"
	"  ],\n"
	"  \"capabilities\": {\n"
	"    \"/usr/lib/x86_64-linux-gnu/libcuda.so.1\": \"compute\",\n"
	"    \"/usr/lib/i386-linux-gnu/libcuda.so.1\": \"compute/32\",\n"
	"    \"/usr/bin/nvidia-smi\": \"utility\",\n"
	"    \"/dev/nvidia-uvm\": \"compute\",\n"
	"    \"/dev/nvidia-modeset\": \"display\"\n"
	"  },\n"
	"  \"laterField\": {\"a newer generator\": \"may add fields\"}\n"
	"}\n";

static struct cdi_facts *parse(const char *text)
{
	struct cdi_facts *f = NULL;
	struct cdi_error err = { 0 };

	cr_assert_eq(cdi_facts_parse("nvidia.yaml.cdikit", text, strlen(text), &f, &err), 0, "%s",
		     cdi_error_message(&err));
	return f;
}

Test(facts, example_reads_back)
{
	struct cdi_facts *f = parse(example);
	const struct cdi_facts_gpu *g;

	cr_assert_str_eq(f->kind, "nvidia.com/gpu");
	cr_assert_str_eq(f->driver_version, "550.54.15");
	cr_assert_str_eq(f->cuda, "12.4");
	cr_assert_eq(f->n_gpus, 2);

	g = cdi_facts_gpu_by_uuid(f, "GPU-54e67eb0-c6b5-d687-008a-2323a63630c7");
	cr_assert_not_null(g);
	cr_assert_eq(g, cdi_facts_gpu_by_index(f, 0));
	cr_assert_eq(g->minor, 0);
	cr_assert_str_eq(g->bus_id, "0000:07:00.0");
	cr_assert_str_eq(g->model, "NVIDIA A100-SXM4-40GB");
	cr_assert_str_eq(g->brand, "Unknown");
	cr_assert_str_eq(g->arch, "8.0");
	cr_assert_not(g->mig);
	cr_assert_eq(g->n_devices, 3);
	cr_assert_str_eq(g->devices[2], "gpu0");
	cr_assert_eq(g->n_mig_devices, 0);

	g = cdi_facts_gpu_by_index(f, 2);
	cr_assert(g->mig);
	cr_assert_eq(g->n_devices, 0);
	cr_assert_eq(g->n_mig_devices, 1);
	cr_assert_str_eq(g->mig_devices[0].index, "2:0");
	cr_assert_str_eq(g->mig_devices[0].uuid, "MIG-e8055dbf-d998-89d6-179d-90049a49fa6b");
	cr_assert_eq(g->mig_devices[0].gi, 7);
	cr_assert_eq(g->mig_devices[0].ci, 0);
	cr_assert_eq(g->mig_devices[0].n_devices, 3);
	cr_assert_str_eq(g->mig_devices[0].devices[0], "2:0");

	cr_assert_null(cdi_facts_gpu_by_uuid(f, "GPU-nope"));
	cr_assert_null(cdi_facts_gpu_by_index(f, 1));
	cr_assert_str_eq(cdi_facts_capability(f, "/usr/lib/i386-linux-gnu/libcuda.so.1"),
			 "compute/32");
	cr_assert_str_eq(cdi_facts_capability(f, "/dev/nvidia-modeset"), "display");
	cr_assert_null(cdi_facts_capability(f, "/dev/nvidiactl"),
		       "not listed: goes with everything");
	cdi_facts_free(f);
}

Test(facts, minimal)
{
	struct cdi_facts *f =
		parse("{\"cdikitFacts\": 1, \"kind\": \"nvidia.com/gpu\", \"gpus\": []}");

	cr_assert_null(f->driver_version);
	cr_assert_null(f->capabilities);
	cr_assert_null(cdi_facts_capability(f, "/x"));
	cr_assert_eq(f->n_gpus, 0);
	cdi_facts_free(f);
	f = parse(
		"{\"cdikitFacts\": 1, \"kind\": \"k.com/c\", \"gpus\": [{\"index\": 3, \"uuid\": \"GPU-x\"}]}");
	cr_assert_eq(f->gpus[0].minor, -1);
	cr_assert_null(f->gpus[0].model);
	cr_assert_eq(f->gpus[0].n_devices, 0);
	cdi_facts_free(f);
}

static void bad(const char *text, const char *want)
{
	struct cdi_facts *f = NULL;
	struct cdi_error err = { 0 };

	cr_assert_lt(cdi_facts_parse("f.cdikit", text, strlen(text), &f, &err), 0, "accepted %s",
		     text);
	cr_assert_null(f);
	cr_assert_str_eq(cdi_error_message(&err), want);
	cdi_error_reset(&err);
}

Test(facts, errors_name_file_and_field)
{
	bad("[]", "f.cdikit: not a cdikit facts file (a JSON object)");
	bad("{\"kind\": \"x\"}", "f.cdikit: cdikitFacts: missing: not a cdikit facts file");
	bad("{\"cdikitFacts\": 2, \"kind\": \"x\", \"gpus\": []}",
	    "f.cdikit: cdikitFacts: version 2, this cdikit reads version 1");
	bad("{\"cdikitFacts\": 1, \"gpus\": []}", "f.cdikit: kind: missing");
	bad("{\"cdikitFacts\": 1, \"kind\": \"x\"}", "f.cdikit: gpus: missing");
	bad("{\"cdikitFacts\": 1, \"kind\": \"x\", \"driver\": {\"version\": 550}, \"gpus\": []}",
	    "f.cdikit: driver.version: must be a string");
	bad("{\"cdikitFacts\": 1, \"kind\": \"x\", \"gpus\": [{\"index\": 0, \"uuid\": \"G\"}, {\"index\": -1, \"uuid\": \"G\"}]}",
	    "f.cdikit: gpus[1].index: must be an integer >= 0");
	bad("{\"cdikitFacts\": 1, \"kind\": \"x\", \"gpus\": [{\"index\": 0}]}",
	    "f.cdikit: gpus[0].uuid: missing");
	bad("{\"cdikitFacts\": 1, \"kind\": \"x\", \"gpus\": [{\"index\": 0, \"uuid\": \"G\", \"mig\": 1}]}",
	    "f.cdikit: gpus[0]: mig: must be true or false");
	bad("{\"cdikitFacts\": 1, \"kind\": \"x\", \"gpus\": [{\"index\": 0, \"uuid\": \"G\", \"devices\": [0]}]}",
	    "f.cdikit: gpus[0].devices: must be an array of device names");
	bad("{\"cdikitFacts\": 1, \"kind\": \"x\", \"gpus\": [{\"index\": 0, \"uuid\": \"G\", \"migDevices\": [{\"index\": \"0:0\"}]}]}",
	    "f.cdikit: gpus[0].migDevices[0].uuid: missing");
	bad("{\"cdikitFacts\": 1, \"kind\": \"x\", \"gpus\": [], \"capabilities\": {\"/a\": \"compute/64\"}}",
	    "f.cdikit: capabilities: \"/a\": not one of utility, compute, video, graphics, display, ngx (with /32 for a 32-bit file)");
	bad("{\"cdikitFacts\": 1, \"kind\": \"x\", \"gpus\": [], \"capabilities\": {\"/a\": \"all\"}}",
	    "f.cdikit: capabilities: \"/a\": not one of utility, compute, video, graphics, display, ngx (with /32 for a 32-bit file)");
	/* A repeated key keeps its last value, as the config reader does: the file is still
	 * checked whole. */
	bad("{\"cdikitFacts\": 1, \"cdikitFacts\": 1}", "f.cdikit: kind: missing");
	bad("{\"cdikitFacts\": 1,", "f.cdikit:1:19: expected a key in quotes, found end of file");
}

Test(facts, files)
{
	char dir[] = "/tmp/cdikit-test-facts.XXXXXX", *spec, *path;
	struct cdi_facts *f = NULL;
	struct cdi_error err = { 0 };
	FILE *out;

	cr_assert_not_null(mkdtemp(dir));
	cr_assert(asprintf(&spec, "%s/nvidia.yaml", dir) > 0);
	cr_assert(asprintf(&path, "%s/nvidia.yaml.cdikit", dir) > 0);

	/* Missing: -ENOENT and no problem. */
	cr_assert_eq(cdi_facts_load_for_spec(spec, &f, &err), -ENOENT);
	cr_assert_eq(cdi_error_count(&err), 0);

	out = fopen(path, "w");
	cr_assert_not_null(out);
	fputs(example, out);
	fclose(out);
	cr_assert_eq(cdi_facts_load_for_spec(spec, &f, &err), 0, "%s", cdi_error_message(&err));
	cr_assert_str_eq(f->path, path);
	cr_assert_eq(f->n_gpus, 2);
	cdi_facts_free(f);

	/* A FIFO in its place: refused at once, not waited on. */
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(mkfifo(path, 0644), 0);
	cr_assert_eq(cdi_facts_load(path, &f, &err), -EINVAL);
	cr_assert(strstr(cdi_error_message(&err), "nvidia.yaml.cdikit: not a regular file"));
	cdi_error_reset(&err);
	sh("rm -rf '%s'", dir);
	free(spec);
	free(path);
}
