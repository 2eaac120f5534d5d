/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CDI_NAMES_H
#define CDI_NAMES_H

#include <stdbool.h>

#include <cdi/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * CDI names, with the rules of the reference's pkg/parser. Every call that can fail returns 0
 * or a negative errno and says why in err (which may be NULL); outputs are written only on
 * success, and strings they return are the caller's to free with cdi_free().
 */

/*
 * Split "vendor/class=name" the way the reference's ParseDevice does: cut at the first '=',
 * then the qualifier at the first '/'. No validation of the parts. -EINVAL when the string
 * does not have that shape (`unqualified device "x", missing vendor`), -ENOMEM.
 */
int cdi_split_device(const char *s, char **ret_vendor, char **ret_class, char **ret_name,
		     struct cdi_error *err);

/*
 * ParseQualifiedName: split and validate. -EINVAL with a problem such as
 * `unqualified device "x", missing vendor` or `invalid device "a/b=-c": invalid device name
 * "-c": must start with a letter or digit`. Any of the outputs may be NULL.
 */
int cdi_parse_qualified_name(const char *s, char **ret_vendor, char **ret_class, char **ret_name,
			     struct cdi_error *err);

/* Whether s is a valid qualified name (a question, not a failure: no report). */
bool cdi_is_qualified_name(const char *s);

/* The vendor, class and device name rules: 0, or -EINVAL with `invalid vendor "x": must
 * start with a letter`. */
int cdi_check_vendor_name(const char *vendor, struct cdi_error *err);
int cdi_check_class_name(const char *class_name, struct cdi_error *err);
int cdi_check_device_name(const char *name, struct cdi_error *err);

#ifdef __cplusplus
}
#endif

#endif
