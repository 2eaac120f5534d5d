/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Regenerating the spec a create needs. The check runs at every create that asks for a GPU, so
 * it only compares what the runtime reads anyway: the facts' driver version and the running
 * one. Everything else (the lock, the generator) happens once per driver change.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cdi/spec.h>

#include "generator_exec.h"
#include "macro.h"
#include "nvidia/facts.h"
#include "nvidia/host_driver.h"
#include "nvidia/visible_devices.h"
#include "problem.h"
#include "spec_refresh.h"

#define KIND_PREFIX CDI_VISIBLE_DEVICES_KIND "="

/* The output as it is on disk. */
enum output_state {
	OUTPUT_CURRENT, /* fresh, or nothing to compare with (no driver, no recorded version) */
	OUTPUT_ABSENT,
	OUTPUT_STALE,
	OUTPUT_FOREIGN, /* no facts file beside it: another tool's, left alone */
};

/* Some spec of reg that defines the kind, or NULL. */
static const cdi_spec *kind_spec(const cdi_registry *reg)
{
	size_t plen = strlen(KIND_PREFIX);

	for (const char *const *d = cdi_registry_devices(reg); *d; d++)
		if (strncmp(*d, KIND_PREFIX, plen) == 0)
			return cdi_registry_lookup(reg, *d, NULL);
	return NULL;
}

/*
 * Whether the request depends on c->output: its first GPU device resolves from it, or nothing
 * defines the kind (loaded: reg has read the output, so it exists).
 */
static bool needs_output(const cdi_registry *reg, const char *const *devices, size_t n,
			 const char *output, bool *loaded)
{
	const cdi_spec *spec = NULL;
	size_t i;

	for (i = 0; i < n; i++)
		if (strncmp(devices[i], KIND_PREFIX, strlen(KIND_PREFIX)) == 0)
			break;
	if (i == n)
		return false;
	spec = cdi_registry_lookup(reg, devices[i], NULL);
	if (!spec)
		spec = kind_spec(reg);
	*loaded = spec != NULL;
	return !spec || strcmp(cdi_spec_path(spec), output) == 0;
}

/*
 * What the output is now. loaded: it exists (no lstat needed). memo: where the facts read go
 * when the spec is used as it is (NULL: nowhere), so the injection does not read them again.
 */
static int output_state(const struct spec_refresh_config *c, bool loaded,
			struct cdi_facts_memo *memo, enum output_state *ret, char *why, size_t size,
			struct cdi_error *err)
{
	struct cdi_error ferr = CDI_ERROR_INIT;
	char running[HOST_DRIVER_VERSION_MAX];
	struct cdi_facts *f = NULL;
	struct stat st;
	int r;

	*ret = OUTPUT_CURRENT;
	r = host_driver_version(c->host_root, running, err);
	if (r == -ENOENT)
		return 0; /* no driver loaded: nothing to generate a spec from */
	if (r < 0)
		return r;
	if (!loaded && lstat(c->output, &st) < 0) {
		if (errno != ENOENT)
			return cdi_problem_add(err, negative_errno(), c->output, 0, 0, NULL,
					       "cannot stat: %s", strerror(errno));
		*ret = OUTPUT_ABSENT;
		snprintf(why, size, "it does not exist");
		return 0;
	}
	r = cdi_facts_load_for_spec(c->output, &f, &ferr);
	cdi_error_reset(&ferr);
	if (r == -ENOMEM)
		return cdi_fail(err, r, "out of memory");
	if (r == -ENOENT)
		*ret = OUTPUT_FOREIGN;
	/* An unreadable facts file is reported where it is used; not a reason to rewrite. */
	if (r < 0 || !f->driver_version || strcmp(f->driver_version, running) == 0) {
		if (r < 0 && r != -ENOENT)
			return 0; /* read again by the injection, which says why */
		if (memo)
			return cdi_facts_memo_put(memo, c->output, f) == -ENOMEM
				       ? cdi_fail(err, -ENOMEM, "out of memory")
				       : 0;
		cdi_facts_free(f);
		return 0;
	}
	*ret = OUTPUT_STALE;
	snprintf(why, size, "its facts record driver %.64s, the host runs %s", f->driver_version,
		 running);
	cdi_facts_free(f);
	return 0;
}

/* The lock beside the output (its directory made 0755 if missing), held on return. */
static int lock_output(const char *output, int *ret_fd, struct cdi_error *err)
{
	const char *slash = strrchr(output, '/');
	_cleanup_free_ char *dir = strndup(output, slash == output ? 1 : (size_t)(slash - output));
	_cleanup_free_ char *name = NULL;
	_cleanup_close_ int dir_fd = -1, fd = -1;
	bool made = false;
	struct stat st;

	if (!dir || asprintf(&name, ".%s" SPEC_REFRESH_LOCK_SUFFIX, slash + 1) < 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	if (mkdir(dir, 0755) == 0)
		made = true;
	else if (errno != EEXIST)
		return cdi_problem_add(err, negative_errno(), output, 0, 0, NULL,
				       "cannot create its directory %s: %s", dir, strerror(errno));
	/* The directory's own path may hold links (/var/run -> /run), as the generator's. */
	dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0 || (made && fchmod(dir_fd, 0755) < 0))
		return cdi_problem_add(err, negative_errno(), dir, 0, 0, NULL,
				       "cannot open the directory: %s", strerror(errno));
	fd = openat(dir_fd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
		    0600);
	if (fd < 0 || fstat(fd, &st) < 0)
		return cdi_problem_add(err, negative_errno(), output, 0, 0, NULL,
				       "cannot open its lock %s/%s: %s", dir, name,
				       strerror(errno));
	if (!S_ISREG(st.st_mode))
		return cdi_problem_add(err, -EINVAL, output, 0, 0, NULL,
				       "its lock %s/%s is not a regular file", dir, name);
	while (flock(fd, LOCK_EX) < 0)
		if (errno != EINTR)
			return cdi_problem_add(err, negative_errno(), output, 0, 0, NULL,
					       "cannot lock %s/%s: %s", dir, name, strerror(errno));
	*ret_fd = TAKE_FD(fd);
	return 0;
}

/* cdi-generate writing c->output of host_root's driver. */
static int run_generator(const struct spec_refresh_config *c, struct cdi_error *err)
{
	_cleanup_free_ char *found = NULL;
	const char *argv[8];
	size_t n = 0;
	int r;

	if (!c->generator) {
		r = generator_find(&found, err);
		if (r < 0)
			return r;
	}
	argv[n++] = GENERATOR_NAME;
	argv[n++] = "--quiet";
	argv[n++] = "--root";
	argv[n++] = c->host_root ? c->host_root : "/";
	argv[n++] = "--output";
	argv[n++] = c->output;
	if (c->no_ipc)
		argv[n++] = "--no-ipc";
	argv[n] = NULL;
	return generator_run(found ? found : c->generator, (char *const *)argv,
			     GENERATOR_TIMEOUT_MS, err);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Under the lock: the state again (another create may have regenerated it while this one
 * waited), then the generator if it is still needed, then reg rescanned. */
static int regenerate(cdi_registry *reg, const struct spec_refresh_config *c,
		      struct spec_refresh_result *res, struct cdi_error *err)
{
	struct cdi_error gerr = CDI_ERROR_INIT;
	_cleanup_close_ int lock_fd = -1;
	enum output_state state;
	char why[sizeof(res->why)];
	int r;

	r = lock_output(c->output, &lock_fd, err);
	if (r < 0)
		return r;
	r = output_state(c, false, NULL, &state, why, sizeof(why), err);
	if (r < 0 || state == OUTPUT_FOREIGN)
		return r;
	if (state == OUTPUT_CURRENT) {
		res->outcome = SPEC_REFRESH_FOUND_FRESH;
		return cdi_registry_refresh(reg, err);
	}
	memcpy(res->why, why, sizeof(why));
	r = run_generator(c, &gerr);
	if (r < 0) {
		cdi_problem_add(err, r, c->output, 0, 0, NULL, "not regenerated (%s): %s", res->why,
				cdi_error_message(&gerr));
		cdi_error_reset(&gerr);
		return r;
	}
	res->outcome = SPEC_REFRESH_WRITTEN;
	return cdi_registry_refresh(reg, err);
}

int spec_refresh(cdi_registry *reg, const char *const *devices, size_t n_devices,
		 const struct spec_refresh_config *c, struct cdi_facts_memo *memo,
		 struct spec_refresh_result *ret, struct cdi_error *err)
{
	enum output_state state;
	bool loaded = false;
	long long start;
	int r;

	*ret = (struct spec_refresh_result){ .outcome = SPEC_REFRESH_NONE };
	if (!needs_output(reg, devices, n_devices, c->output, &loaded))
		return 0;
	/* The facts of a spec the registry read are the ones the injection reads. */
	r = output_state(c, loaded, loaded ? memo : NULL, &state, ret->why, sizeof(ret->why), err);
	if (r < 0 || (state != OUTPUT_ABSENT && state != OUTPUT_STALE))
		return r;
	start = now_ms();
	r = regenerate(reg, c, ret, err);
	ret->ms = now_ms() - start;
	return r;
}
