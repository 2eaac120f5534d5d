/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The boot steps of cdi-generate, run before discovery: at boot the driver's control nodes may
 * not exist yet (the driver makes them on demand), and a spec written without them would
 * break every CUDA program while nvidia-smi works. Part of the front end: it prints.
 */
#include <stdio.h>

#include "boot_steps.h"
#include "cli.h"
#include "kmod_load.h"
#include "node_create.h"

/* "cdi-generate: <what>: <state>" on stderr at level (normal: changes; verbose: the rest). */
static void say(enum cli_level level, const char *what, const char *state)
{
	if (cli_level() >= level)
		fprintf(stderr, "%s: %s: %s\n", cli_program(), what, state);
}

static void report_modules(const struct kmod_load_result *res, bool dry_run)
{
	for (size_t i = 0; i < res->n_actions; i++) {
		const struct kmod_load_action *a = &res->actions[i];
		char line[1024];

		if (a->command)
			snprintf(line, sizeof(line), "%s install command: %s",
				 dry_run ? "would run its" : "ran its", a->command);
		else
			snprintf(line, sizeof(line), "%s %s%s%s",
				 dry_run ? "would insert" : "inserted",
				 a->path ? a->path : a->module, *a->options ? " " : "", a->options);
		say(dry_run ? CLI_NORMAL : CLI_VERBOSE, a->module, line);
	}
	for (size_t i = 0; i < KMOD_LOAD_N_MODULES; i++) {
		enum kmod_load_state s = res->modules[i].state;
		/* "not tried" follows an error that says why; a dry run's steps said the rest. */
		bool usual = s == KMOD_LOAD_LOADED || s == KMOD_LOAD_BUILTIN ||
			     s == KMOD_LOAD_SKIPPED || (dry_run && s == KMOD_LOAD_INSERTED);

		say(usual ? CLI_VERBOSE : CLI_NORMAL, res->modules[i].name,
		    kmod_load_state_str(s, dry_run));
	}
}

static void report_nodes(const struct node_create_result *res, bool dry_run)
{
	for (size_t i = 0; i < res->n; i++) {
		const struct node_outcome *n = &res->nodes[i];
		bool usual = n->change == NODE_PRESENT || n->change == NODE_LEFT_ALONE;
		char state[160];

		snprintf(state, sizeof(state), "%s (c %u:%u, %04o, %u:%u)",
			 node_change_str(n->change, dry_run), n->major, n->minor,
			 (unsigned)n->perms.mode, (unsigned)n->perms.uid, (unsigned)n->perms.gid);
		say(usual ? CLI_VERBOSE : CLI_NORMAL, n->path, state);
	}
	if (res->n == 0)
		say(CLI_VERBOSE, "device nodes", "none the loaded driver calls for");
}

/* Warnings, then errors; the exit status. */
static int finish(int r, struct cdi_error *warn, struct cdi_error *err)
{
	if (cli_level() >= CLI_NORMAL)
		cli_print_problems(warn, "warning: ");
	if (r < 0)
		cli_print_problems(err, "");
	cdi_error_reset(warn);
	cdi_error_reset(err);
	return r < 0 ? CLI_EXIT_PROBLEM : 0;
}

static int load_modules(const struct gen_host *host, const struct boot_options *o)
{
	struct kmod_load_options ko = { .modules_dir = o->modules_dir, .dry_run = o->dry_run };
	struct kmod_load_result res;
	struct cdi_error warn = { 0 }, err = { 0 };
	int r = kmod_load_nvidia(host, &ko, &res, &warn, &err);

	report_modules(&res, o->dry_run);
	kmod_load_result_clear(&res);
	return finish(r, &warn, &err);
}

static int create_nodes(const struct gen_host *host, const struct boot_options *o)
{
	struct node_create_result res;
	struct cdi_error warn = { 0 }, err = { 0 };
	int r = o->dry_run ? node_preview_nvidia(host, &res, &warn, &err)
			   : node_create_nvidia(host, &res, &warn, &err);

	report_nodes(&res, o->dry_run);
	node_create_result_clear(&res);
	return finish(r, &warn, &err);
}

int boot_steps_run(const struct gen_host *host, const struct boot_options *o)
{
	int status = 0;

	if (o->load_modules)
		status = load_modules(host, o);
	if (status == 0 && o->create_nodes)
		status = create_nodes(host, o);
	return status;
}
