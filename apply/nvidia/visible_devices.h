/* SPDX-License-Identifier: Apache-2.0 */
/* Device requests from NVIDIA_VISIBLE_DEVICES, as nvidia-container-runtime reads them in cdi
 * mode (internal to apply/). */
#ifndef CDIKIT_APPLY_VISIBLE_DEVICES_H
#define CDIKIT_APPLY_VISIBLE_DEVICES_H

#include <stddef.h>
#include <jansson.h>

#include <cdi/error.h>

#define CDI_VISIBLE_DEVICES_ENV "NVIDIA_VISIBLE_DEVICES"
#define CDI_VISIBLE_DEVICES_KIND "nvidia.com/gpu"

/*
 * The devices NVIDIA_VISIBLE_DEVICES in the process.env of oci (an OCI spec) asks for: the last
 * assignment of the variable counts; unset, "", "void" and "none" ask for nothing; otherwise
 * every comma-separated item (spaces around it trimmed, empty items skipped) is a device:
 * a qualified CDI name is kept, anything else (all, 0, 1:0, GPU-<uuid>, MIG-<uuid>) becomes
 * nvidia.com/gpu=<item>. Duplicates are dropped, first occurrence kept.
 * *ret_devices: NULL-terminated, free with cdi_strv_free(); *ret_n the count (may be 0).
 */
int cdi_visible_devices(const json_t *oci, char ***ret_devices, size_t *ret_n,
			struct cdi_error *err);

/* The value of the last NVIDIA_VISIBLE_DEVICES= in oci's process.env (borrowed), or NULL. */
const char *cdi_visible_devices_value(const json_t *oci);

/* The same for a value of the variable (NULL = unset). */
int cdi_visible_devices_parse(const char *value, char ***ret_devices, size_t *ret_n,
			      struct cdi_error *err);

#endif
