/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Log lines in runc's formats (internal to apply/), for the --log file an engine hands the
 * runtime: containerd's shim reads the last error of a failed create from it, and Docker shows
 * it only when it is in the format it asked for.
 */
#ifndef CDIKIT_APPLY_RUNC_LOG_H
#define CDIKIT_APPLY_RUNC_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "runtime_config.h"

/*
 * One line, newline-terminated, as runc 1.1 (logrus) writes it:
 *   json: {"level":"error","msg":"...","time":"2024-03-05T22:23:56Z"}
 *   text: time="2024-03-05T22:23:56Z" level=error msg="..."
 * The time is RFC 3339 in UTC. msg is escaped as Go escapes it (JSON: invalid UTF-8 becomes
 * U+FFFD). malloc'd; NULL on ENOMEM.
 */
char *runc_log_line(bool json, enum runtime_log_level level, const char *msg, time_t when,
		    size_t *ret_len);

#endif
