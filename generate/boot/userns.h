/* SPDX-License-Identifier: Apache-2.0 */
/* Whether this process runs in a user namespace other than the host's (internal). */
#ifndef CDIKIT_USERNS_H
#define CDIKIT_USERNS_H

#include <stdbool.h>
#include <stddef.h>

#include <cdi/error.h>

/*
 * The content of a /proc/<pid>/uid_map or gid_map: *ret_initial is true when it maps the whole
 * id range onto itself ("0 0 4294967295", the host's own namespace), false for any other
 * mapping or for an empty map (a namespace whose map is not written yet). -EINVAL when the first
 * line is not three numbers.
 */
int userns_parse_map(const char *buf, size_t len, bool *ret_initial);

/*
 * Whether this process is in a user namespace, judged as libnvidia-container does before it
 * loads modules: /proc/self/uid_map and gid_map both the identity map means the host's
 * namespace; a kernel without user namespaces (no uid_map) counts as the host's. proc_dir is
 * the live /proc ("/proc"; tests may point elsewhere): this is about the running process, never
 * a --root.
 */
int userns_detect(const char *proc_dir, bool *ret_in_userns, struct cdi_error *err);

#endif
