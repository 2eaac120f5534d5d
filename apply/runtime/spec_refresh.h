/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The spec that heals itself (internal to apply/; docs/runtime.md): when the spec a create
 * needs for its nvidia.com/gpu devices is missing, or its facts file records another driver
 * than the one running, cdi-runtime has cdi-generate write it again before it resolves them.
 * Once per driver change: concurrent creates take turns on a lock beside the spec, and one that
 * finds the spec fresh after the wait uses it.
 */
#ifndef CDIKIT_APPLY_SPEC_REFRESH_H
#define CDIKIT_APPLY_SPEC_REFRESH_H

#include <stdbool.h>
#include <stddef.h>

#include <cdi/error.h>
#include <cdi/registry.h>

#include "nvidia/facts.h"

/* The lock beside the spec DIR/NAME is DIR/.NAME + this (not *.yaml or *.json: no registry or
 * CDI watcher reads it). */
#define SPEC_REFRESH_LOCK_SUFFIX ".lock"

struct spec_refresh_config {
	const char *output;    /* the spec regenerated, path-cleaned, in one of reg's directories */
	const char *host_root; /* cdi-generate's --root; NULL: "/" */
	bool no_ipc;	       /* cdi-generate --no-ipc */
	const char *generator; /* the program; NULL: generator_find() */
};

enum spec_refresh_outcome {
	SPEC_REFRESH_NONE, /* nothing to do: the request does not need the spec, or it is fresh */
	SPEC_REFRESH_WRITTEN,	  /* regenerated here; reg was rescanned */
	SPEC_REFRESH_FOUND_FRESH, /* stale before the lock, fresh after it; reg was rescanned */
};

struct spec_refresh_result {
	enum spec_refresh_outcome outcome;
	char why[256]; /* why it was stale: "it does not exist", "its facts record driver ..." */
	long long ms;  /* the time spent waiting and regenerating */
};

/*
 * Before the devices are resolved in reg. The spec matters when the request's first
 * nvidia.com/gpu device resolves from c->output, or no spec of reg defines the kind at all; it
 * is then regenerated when
 *   - it does not exist (and a driver is loaded), or
 *   - its facts file records a driver version other than host_root's
 *     /proc/driver/nvidia/version.
 * A spec without a facts file beside it is another tool's and is never written. The fast path
 * (a fresh spec) reads the facts and the version file, nothing else, and leaves the facts in
 * memo for the injection. On a failed regeneration the spec is as it was and one problem names
 * it and says why; the caller goes on without.
 */
int spec_refresh(cdi_registry *reg, const char *const *devices, size_t n_devices,
		 const struct spec_refresh_config *c, struct cdi_facts_memo *memo,
		 struct spec_refresh_result *ret, struct cdi_error *err);

#endif
