/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Defects found by attacking the generator, kept as tests (tests/hostile.sh runs the same at the
 * command line). A root is the machine the spec describes: a symlink in it that points out of
 * it must not bring another tree's content into the spec. Here /proc files of a root link to
 * files outside it with other facts; those facts must not come back.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "discover/discover.h"
#include "host/host.h"
#include "../lib/testlib.h"
#include "host/procfs.h"

static char dir[] = "/tmp/cdikit-gen-regressions.XXXXXX";
static char root[sizeof(dir) + 8];

static void setup(void)
{
	cr_assert(mkdtemp(dir));
	snprintf(root, sizeof(root), "%s/root", dir);
	sh("mkdir -p %s/proc/driver/nvidia/gpus/0000:07:00.0", root);
	sh("printf 'NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 "
	   "22:23:56 UTC 2024\\n' >%s/proc/driver/nvidia/version",
	   root);
	sh("printf 'Model: \\t\\t NVIDIA A100-SXM4-40GB\\nGPU UUID: \\t "
	   "GPU-54e67eb0-c6b5-d687-008a-2323a63630c7\\nBus Location: \\t 0000:07:00.0\\nDevice "
	   "Minor: \\t 0\\n' >%s/proc/driver/nvidia/gpus/0000:07:00.0/information",
	   root);
}

static void teardown(void)
{
	sh("rm -rf %s", dir);
}

TestSuite(root_links, .init = setup, .fini = teardown);

Test(root_links, gpu_information_is_not_read_outside_the_root)
{
	const char *info = "proc/driver/nvidia/gpus/0000:07:00.0/information";
	struct gen_host host = { .root = root, .driver_root = root, .dev_root = root };
	struct inventory inv = { 0 };
	struct discovery d;
	struct cdi_error err = { 0 };

	sh("sed 's/GPU-[0-9a-f-]*/GPU-0ae5e0e0-0000-4000-8000-000000000000/' %s/%s >%s/outside",
	   root, info, dir);
	sh("rm %s/%s && ln -s %s/outside %s/%s", root, info, dir, root, info);
	discovery_init(&d, &host, &inv, NULL, &err);
	if (discover_procfs_gpus(&d) == 0)
		for (size_t i = 0; i < inv.n_gpus; i++)
			cr_expect(strcmp(inv.gpus[i].uuid,
					 "GPU-0ae5e0e0-0000-4000-8000-000000000000"),
				  "GPU %zu is described by %s/outside, which %s/%s links to", i,
				  dir, root, info);
	discovery_done(&d);
	inventory_clear(&inv);
	cdi_error_reset(&err);
}

Test(root_links, driver_version_is_not_read_outside_the_root)
{
	char version[GPU_VERSION_MAX] = "";
	struct cdi_error err = { 0 };

	sh("printf 'NVRM version: NVIDIA UNIX x86_64 Kernel Module  999.1.2  Tue Mar  5 22:23:56 "
	   "UTC 2024\\n' >%s/outside-version",
	   dir);
	sh("rm %s/proc/driver/nvidia/version && ln -s %s/outside-version "
	   "%s/proc/driver/nvidia/version",
	   root, dir, root);
	if (procfs_driver_version(root, version, &err) == 0)
		cr_expect_str_neq(version, "999.1.2",
				  "the version comes from %s/outside-version, outside the root",
				  dir);
	cdi_error_reset(&err);
}
