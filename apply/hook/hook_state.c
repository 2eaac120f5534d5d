/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bundle/bundle_config.h"
#include "hook_state.h"
#include "macro.h"
#include "path_clean.h"
#include "problem.h"
#include "read_file.h"

/* The bundle the state names. */
static int state_bundle(const char *state_file, char **ret, struct cdi_error *err)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_json_ json_t *state = NULL;
	const char *label = "<stdin>", *bundle;
	json_error_t jerr;
	size_t len = 0;
	int r;

	if (!state_file || !*state_file || strcmp(state_file, "-") == 0)
		r = read_fd_all(STDIN_FILENO, label, HOOK_STATE_MAX_BYTES, &buf, &len, err);
	else {
		label = state_file;
		r = read_regular_at(AT_FDCWD, state_file, label, HOOK_STATE_MAX_BYTES, 0, &buf,
				    &len, NULL, err);
	}
	if (r < 0)
		return r;
	state = json_loadb(buf, len, 0, &jerr);
	if (!json_is_object(state))
		return cdi_problem_add(err, -EINVAL, label, state ? 0 : (unsigned)jerr.line,
				       state ? 0 : (unsigned)jerr.column, NULL,
				       "not an OCI container state: %s",
				       state ? "not a JSON object" : jerr.text);
	bundle = json_string_value(json_object_get(state, "bundle"));
	if (!bundle || !*bundle)
		return cdi_problem_add(err, -EINVAL, label, 0, 0, "bundle",
				       "the container state names no bundle");
	*ret = strdup(bundle);
	return *ret ? 0 : cdi_fail(err, -ENOMEM, "out of memory");
}

/* root.path of the bundle's config.json, joined to the bundle when relative, cleaned. */
static int config_root(const char *bundle, char **ret, struct cdi_error *err)
{
	struct bundle_config c = { .dir_fd = -1 };
	_cleanup_free_ char *config = NULL, *joined = NULL;
	_cleanup_json_ json_t *oci = NULL;
	const char *root;
	int r;

	if (asprintf(&config, "%s/config.json", bundle) < 0) {
		config = NULL;
		return cdi_fail(err, -ENOMEM, "out of memory");
	}
	r = bundle_config_read(config, &c, err);
	/* runc has read this config already: read it as runc did (Go's decoder). */
	if (r >= 0)
		r = bundle_config_parse(&c, OCI_CONFIG_GO_DECODER, &oci, err);
	bundle_config_done(&c);
	if (r < 0)
		return r;
	root = json_string_value(json_object_get(json_object_get(oci, "root"), "path"));
	/* As NVIDIA's hook: no root.path is the bundle itself. */
	if (!root)
		root = "";
	if (root[0] != '/' && asprintf(&joined, "%s/%s", bundle, root) < 0) {
		joined = NULL;
		return cdi_fail(err, -ENOMEM, "out of memory");
	}
	*ret = cdi_path_clean(joined ? joined : root);
	if (!*ret)
		return cdi_fail(err, -ENOMEM, "out of memory");
	if (strcmp(*ret, "/") == 0) {
		free(TAKE_PTR(*ret));
		return cdi_problem_add(
			err, -EINVAL, config, 0, 0, "root.path",
			"the container's root is the host's /: refusing to write there");
	}
	return 0;
}

int hook_root_load(const char *state_file, struct hook_root *ret, struct cdi_error *err)
{
	_cleanup_free_ char *bundle = NULL, *path = NULL;
	int fd, r;

	r = state_bundle(state_file, &bundle, err);
	if (r >= 0)
		r = config_root(bundle, &path, err);
	if (r < 0)
		return r;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return cdi_problem_add(err, negative_errno(), path, 0, 0, NULL,
				       "cannot open the container's root: %s", strerror(errno));
	*ret = (struct hook_root){ .path = TAKE_PTR(path), .fd = fd };
	return 0;
}

void hook_root_done(struct hook_root *root)
{
	if (!root)
		return;
	free(root->path);
	if (root->fd >= 0)
		close(root->fd);
	*root = (struct hook_root){ .fd = -1 };
}
