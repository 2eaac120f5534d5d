/* SPDX-License-Identifier: Apache-2.0 */
/* Loading the NVIDIA kernel modules through libkmod, as modprobe would (internal). */
#ifndef CDIKIT_KMOD_LOAD_H
#define CDIKIT_KMOD_LOAD_H

#include <stdbool.h>
#include <stddef.h>

#include <cdi/error.h>

#include "host/host.h"

/* nvidia, nvidia_uvm, nvidia_modeset: in this order (the last two need the first). */
#define KMOD_LOAD_N_MODULES 3

struct kmod_load_options {
	/*
	 * The modules directory (kmod_new's dirname). NULL: libkmod's own default
	 * (/lib/modules/<uname -r>) when the driver root is "/"; else <driver root>/lib/modules/
	 * <release> (or usr/lib/modules/<release>), the release read from <root>/proc/sys/kernel/
	 * osrelease. modprobe.d is read from the driver root (the system's when it is "/").
	 */
	const char *modules_dir;
	/* KMOD_PROBE_DRY_RUN: nothing is inserted, no install command runs; needs no root. */
	bool dry_run;
};

enum kmod_load_state {
	KMOD_LOAD_LOADED,      /* live before this run (or on its way in) */
	KMOD_LOAD_BUILTIN,     /* part of the kernel */
	KMOD_LOAD_INSERTED,    /* loaded now, by itself or as a dependency or softdep (dry run:
				  would be) */
	KMOD_LOAD_BLACKLISTED, /* modprobe.d blacklists it: left out, a warning */
	KMOD_LOAD_ABSENT,      /* not in the modules directory */
	KMOD_LOAD_FAILED,      /* libkmod or the kernel refused */
	KMOD_LOAD_SKIPPED,     /* not tried: nvidia is not there, or no privilege to load */
};

/* One step libkmod took (or, in a dry run, would take), in order, each module once. */
struct kmod_load_action {
	char *module;  /* "nvidia_uvm" */
	char *path;    /* its .ko file; NULL for a module known only by an install command */
	char *options; /* parameters from modprobe.d options lines, "" when none */
	char *command; /* an install command from modprobe.d run instead of insmod, or NULL */
};

struct kmod_load_result {
	char *modules_dir; /* the directory libkmod read; NULL when none was opened */
	struct {
		const char *name;
		enum kmod_load_state state;
	} modules[KMOD_LOAD_N_MODULES];
	struct kmod_load_action *actions;
	size_t n_actions, cap_actions;
};

/*
 * Load nvidia, nvidia_uvm and nvidia_modeset: each one already live (kmod_module_get_initstate)
 * is left as it is; the others are looked up (kmod_module_new_from_lookup, so modprobe.d aliases
 * such as Debian's nvidia -> nvidia-current apply) and probed with
 * kmod_module_probe_insert_module, which inserts the dependencies first and honours modprobe.d
 * options, install commands and softdeps; KMOD_PROBE_APPLY_BLACKLIST: a module modprobe.d
 * blacklists is not loaded (a boot step must not undo that choice; modprobe's -b).
 *
 * Without dry_run: as root only (else an error), and skipped with a warning in a user namespace
 * (the modules are the host's). A module absent from the modules directory is one problem
 * naming it and the directory: an error for nvidia and nvidia_uvm, a warning for
 * nvidia_modeset (display only). libkmod's own error messages (a bad modprobe.d line) are
 * warnings. ret is always filled (free with kmod_load_result_clear), also when an error is
 * returned; 0 when nvidia and nvidia_uvm are (or would be) loaded, else the first error.
 */
int kmod_load_nvidia(const struct gen_host *host, const struct kmod_load_options *opts,
		     struct kmod_load_result *ret, struct cdi_error *warn, struct cdi_error *err);

void kmod_load_result_clear(struct kmod_load_result *res);

/* "loaded", "built in", "inserted", ... for messages. */
const char *kmod_load_state_str(enum kmod_load_state state, bool dry_run);

#endif
