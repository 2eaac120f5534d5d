/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CDI_NAMES_H
#define CDI_NAMES_H

#include <stdbool.h>

#include <cdi/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Split "vendor/class=name" the way the reference's ParseDevice does: cut at
 * the first '=', then the qualifier at the first '/'. No validation. Returns
 * false (and sets nothing) when the string does not have that shape; the
 * three parts are malloc'd and owned by the caller on success.
 */
bool cdi_split_device(const char *s, char **ret_vendor, char **ret_class, char **ret_name);

/*
 * ParseQualifiedName: split and validate. On error adds a problem such as
 * `unqualified device "x", missing vendor` and returns -EINVAL.
 */
int cdi_parse_qualified_name(const char *s, char **ret_vendor, char **ret_class,
			     char **ret_name, struct cdi_error *err);
bool cdi_is_qualified_name(const char *s);

/* Each returns NULL when valid, else a static description of the problem. */
const char *cdi_check_vendor_name(const char *vendor);
const char *cdi_check_class_name(const char *class_name);
const char *cdi_check_device_name(const char *name);

#ifdef __cplusplus
}
#endif

#endif
