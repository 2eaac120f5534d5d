/* SPDX-License-Identifier: Apache-2.0 */
/*
 * An OCI config.json as a jansson tree that writes back with every number as it was written
 * (internal to apply/; cdi-apply and cdi-runtime read and write configs through it).
 */
#ifndef CDIKIT_APPLY_OCI_CONFIG_H
#define CDIKIT_APPLY_OCI_CONFIG_H

#include <stddef.h>
#include <jansson.h>

#include <cdi/error.h>

/*
 * Parse the JSON text of a config (RFC 8259; the top level must be an object) into a jansson
 * tree for the edits, as json_loadb() would, except that numbers keep their text: jansson holds
 * integers as int64 and the rest as doubles, so RLIM_INFINITY (18446744073709551615) in
 * process.rlimits would be refused and 0.1, 1e2 or 2.5E-3 in a field cdikit does not know
 * would come back as 0.10000000000000001, 100.0 and 0.0025000000000000001. A number jansson
 * cannot write back as written becomes the nearest double (an integer beyond int64 too) and
 * its text is kept in the tree, under the member JSON_DUMP_NUMBER_TEXT of the top object,
 * which cdi_json_dump() (json_dump.h) uses and does not write; an input that has that member
 * itself is refused. A key repeated in an object keeps its last value, as encoding/json does;
 * a NUL in a string (\u0000) is kept. Problems name the config (name) and its line:column.
 * Returns 0, -EINVAL or -ENOMEM.
 */
int oci_config_parse(const char *name, const char *buf, size_t len, json_t **ret,
		     struct cdi_error *err);

enum {
	/*
	 * Read the text as runc reads config.json, with Go's json.Decoder.Decode into the spec's
	 * structs: the first JSON value only (what follows is never looked at); a byte of a string
	 * that is not UTF-8 becomes U+FFFD, one per byte; a \u escape of a lone surrogate becomes
	 * U+FFFD; a key repeated with an object value both times merges the two objects (Go decodes
	 * the second into the struct or map the first made), members merged the same way, and a
	 * repeated null leaves a string, number, bool or struct field (process.user) as it was.
	 * So the tree, written back, is what runc would have read. Not copied: Go also matches
	 * struct field names case-insensitively ("Process"), which this reader leaves as written.
	 */
	OCI_CONFIG_GO_DECODER = 1u << 0,
};

/* oci_config_parse() with OCI_CONFIG_* flags. */
int oci_config_parse_flags(const char *name, const char *buf, size_t len, unsigned flags,
			   json_t **ret, struct cdi_error *err);

#endif
