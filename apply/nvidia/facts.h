/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The facts file cdi-generate writes beside a spec, NAME.yaml.cdikit (internal to apply/):
 * which GPU each device is, the driver's versions and the driver capability of each file.
 * What a spec cannot say without raising its cdiVersion; read at container start in one small
 * JSON parse, without NVML.
 */
#ifndef CDIKIT_APPLY_FACTS_H
#define CDIKIT_APPLY_FACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include <cdi/error.h>

#define CDI_FACTS_SUFFIX ".cdikit"
#define CDI_FACTS_VERSION 1
/* 64 GPUs with 7 MIG devices each and a few hundred files are about 100 KiB. */
#define CDI_FACTS_MAX_BYTES (4u * 1024 * 1024)

/* Strings point into the facts' JSON tree and live as long as the facts. */
struct cdi_facts_mig {
	const char *index;	    /* "2:0" */
	const char *uuid;	    /* "MIG-..." */
	long long gi, ci;	    /* -1 when absent */
	const char *const *devices; /* the spec's names of this MIG device */
	size_t n_devices;
};

struct cdi_facts_gpu {
	long long index;
	long long minor;			   /* -1 when absent */
	const char *uuid;			   /* "GPU-..." */
	const char *bus_id, *model, *brand, *arch; /* NULL when absent */
	bool mig; /* in MIG mode: devices is empty, mig_devices are its devices */
	const char *const *devices;
	size_t n_devices;
	struct cdi_facts_mig *mig_devices;
	size_t n_mig_devices;
};

struct cdi_facts {
	char *path;
	const char *kind;
	const char *driver_version, *cuda; /* NULL when absent */
	struct cdi_facts_gpu *gpus;
	size_t n_gpus;
	json_t *root;
	const json_t *capabilities; /* object: path -> capability; NULL when absent */
	const json_t *library_tree; /* the library directory's record (lib_tree.h); NULL: none */
	const char **strings;	    /* backing store of the devices lists */
};

/*
 * Read the facts beside spec_path (spec_path + ".cdikit"). A missing file is -ENOENT with no
 * problem added (not an error: the caller goes on without facts); any other problem, a bad
 * file included, is reported naming the file.
 */
int cdi_facts_load_for_spec(const char *spec_path, struct cdi_facts **ret, struct cdi_error *err);

/* Read a facts file by its own path (the same rules). */
int cdi_facts_load(const char *path, struct cdi_facts **ret, struct cdi_error *err);

/* Parse and check facts text; name labels problems. */
int cdi_facts_parse(const char *name, const char *buf, size_t len, struct cdi_facts **ret,
		    struct cdi_error *err);

void cdi_facts_free(struct cdi_facts *f);

/* The facts of the specs one container start uses, each file read once (few: one per kind and
 * directory). */
#define CDI_FACTS_MEMO_MAX 8
struct cdi_facts_memo {
	char *spec[CDI_FACTS_MEMO_MAX];
	struct cdi_facts *facts[CDI_FACTS_MEMO_MAX]; /* NULL: the spec has no facts file */
	size_t n;
};

/* The facts beside spec_path, read on first need: *ret NULL when there is no facts file (or the
 * memo is full, which one start never fills); owned by the memo. Problems as
 * cdi_facts_load_for_spec(). */
int cdi_facts_memo_get(struct cdi_facts_memo *m, const char *spec_path, struct cdi_facts **ret,
		       struct cdi_error *err);

/* Remember facts (taken, also on failure) as those beside spec_path. */
int cdi_facts_memo_put(struct cdi_facts_memo *m, const char *spec_path, struct cdi_facts *facts);

void cdi_facts_memo_done(struct cdi_facts_memo *m);

/* The GPU with this UUID ("GPU-...", case as written), or NULL. */
const struct cdi_facts_gpu *cdi_facts_gpu_by_uuid(const struct cdi_facts *f, const char *uuid);
const struct cdi_facts_gpu *cdi_facts_gpu_by_index(const struct cdi_facts *f, long long index);

/* The capability recorded for a containerPath or node path ("compute", "utility/32"...), or
 * NULL when the file is not listed (it then goes with every selection). */
const char *cdi_facts_capability(const struct cdi_facts *f, const char *path);

#endif
