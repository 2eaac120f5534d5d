/* SPDX-License-Identifier: Apache-2.0 */
/* The reference library's naming and version rules, as the validator needs them (internal). */
#ifndef CDIKIT_RULES_H
#define CDIKIT_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

enum cdi_name_type {
	CDI_NAME_VENDOR,
	CDI_NAME_CLASS,
	CDI_NAME_DEVICE,
};

/*
 * Check a vendor, class or device name of len bytes (a NUL among them breaks the rule like any
 * other byte). NULL when valid; else the same static description cdi_check_*_name() returns,
 * and *ret_bad (may be NULL) is the offset of the byte that breaks the rule, or SIZE_MAX when
 * the problem is not one byte (an empty name).
 */
const char *cdi_name_problem(enum cdi_name_type type, const char *name, size_t len,
			     size_t *ret_bad);

/* A name's problem as a message: `invalid <what> "name": <rule>[ (found 'c')]`. Returns the
 * length written (snprintf's), or -1 when the name is valid. */
int cdi_name_message(char *buf, size_t size, enum cdi_name_type type, const char *what,
		     const char *name, size_t len);

/*
 * Quote s the way Go's %q does for ASCII (\" \\ \n \t \r, other control bytes as \xNN; bytes
 * from 0x80 are copied), into buf, truncated with "..." so it fits size bytes. Returns buf.
 */
char *cdi_quote(char *buf, size_t size, const char *s, size_t len);

/* Room for cdi_quote() of anything: long values are cut. */
#define CDI_QUOTE_MAX 160

/*
 * The reference's requiredVersion(): the newest version whose predicate holds for spec, else
 * "0.3.0" (static strings). why (may be NULL) receives what made that version necessary: a
 * field path such as "devices[0].containerEdits.additionalGids", or "" for the default.
 * Nodes of the wrong type count as absent.
 */
const char *cdi_required_version(const json_t *spec, char *why, size_t why_size);

/* Position of a version in the table, newest first; -1 when unknown ("v" prefix allowed). */
int cdi_version_index(const char *version);

#define CDI_VERSION_EARLIEST "0.3.0"

#endif
