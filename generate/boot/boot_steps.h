/* SPDX-License-Identifier: Apache-2.0 */
/* cdi-generate's boot steps: load the NVIDIA modules, make their device nodes (internal). */
#ifndef CDIKIT_BOOT_STEPS_H
#define CDIKIT_BOOT_STEPS_H

#include <stdbool.h>

#include "host/host.h"

struct boot_options {
	bool load_modules;	 /* nvidia, nvidia_uvm, nvidia_modeset through libkmod */
	bool create_nodes;	 /* the device nodes the driver does not make itself */
	bool dry_run;		 /* say what would be loaded and made; change nothing */
	const char *modules_dir; /* NULL: the kernel's, under the driver root */
};

/*
 * The steps asked for, modules first (the nodes' majors appear when the modules load). They
 * report as the program: what changed (in a dry run, what would) at the normal level, what
 * was already right with -v, warnings and errors through cli. 0 when the spec can be
 * generated now; CLI_EXIT_PROBLEM when a step failed (the nodes are not tried after a failed
 * load).
 */
int boot_steps_run(const struct gen_host *host, const struct boot_options *o);

#endif
