/* SPDX-License-Identifier: Apache-2.0 */
/* The driver's libraries by name, and the capability each belongs to (internal). */
#ifndef CDIKIT_LIB_TABLE_H
#define CDIKIT_LIB_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "inventory.h"

struct lib_name {
	const char *prefix; /* "libcuda.so": every name of the library starts with it */
	size_t len;
	enum drv_cap cap;
	/* Versioned by its own project (libnvidia-egl-wayland.so.1.1.13), not by the driver. */
	bool own_version;
};

/* The table entry whose prefix name starts with ("libcuda.so" for "libcuda.so.1"), or NULL. */
const struct lib_name *lib_name_match(const char *name);

/*
 * A library the table does not know (a newer driver's): prefix "", no capability, so it goes
 * with every selection. lib_name_classify() gives it to "lib<stem>.so.<version>".
 */
extern const struct lib_name lib_name_unknown;

/* The table entry of name, else &lib_name_unknown when name is "lib<stem>.so.<version>" (what
 * nvidia-ctk takes from the driver's directories: any file of this driver version), else
 * NULL. */
const struct lib_name *lib_name_classify(const char *name, const char *version);

/* The length of name's "lib<stem>.so" part; 0 when it has none. */
size_t lib_name_stem_len(const char *name);

/* name is "<prefix>.<digits>[.<digits>]..." (an own-versioned library's file name). */
bool lib_name_has_own_version(const char *name, const struct lib_name *ln);

/* name is "<prefix>.<version>" ("lib<stem>.so.<version>" for lib_name_unknown): the file of this
 * driver version. */
bool lib_name_has_driver_version(const char *name, const struct lib_name *ln, const char *version);

#endif
