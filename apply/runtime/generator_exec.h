/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Running cdi-generate from cdi-runtime (internal to apply/). The generator is a program of its
 * own: it loads NVML with dlopen, which a static cdi-runtime cannot, and it keeps NVML out of
 * the process that then becomes the container's runtime. It runs as a child cut off from the
 * engine's context: a clean environment, umask 022, "/" as its directory, /dev/null as stdin
 * and stdout, a pipe as stderr and no other file descriptor, default signal handling.
 */
#ifndef CDIKIT_APPLY_GENERATOR_EXEC_H
#define CDIKIT_APPLY_GENERATOR_EXEC_H

#include <cdi/error.h>

#define GENERATOR_NAME "cdi-generate"
/* A run that hangs in the driver is killed: waiting containers fail instead of hanging. */
#define GENERATOR_TIMEOUT_MS 60000

/*
 * cdi-generate in the directory of this program's own executable (never PATH), trusted as
 * runtime.conf is, since root runs it: a regular executable file owned by root or the caller
 * that nobody else may write, in a directory of the same owners that nobody else may write.
 * *ret is malloc'd. Problems name the file.
 */
int generator_find(char **ret, struct cdi_error *err);

/*
 * Run path with argv (argv[0] its name, NULL-terminated) and wait for it, killing it after
 * timeout_ms. 0 when it exited 0; otherwise one problem: the last line it wrote on stderr
 * ("cdi-generate: ..."), else how it ended.
 */
int generator_run(const char *path, char *const argv[], unsigned timeout_ms, struct cdi_error *err);

#endif
