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
/* What NVIDIA_VISIBLE_DEVICES=none asks cdi-runtime for: the driver without any GPU. */
#define VISIBLE_DEVICES_NONE_DEVICE "nvidia.com/gpu=none"

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

/*
 * The items of a list-valued NVIDIA_* variable as the runtime splits it: comma-separated,
 * spaces around an item trimmed, empty items skipped; repeats kept. NULL or "" has none.
 * *ret NULL-terminated; -ENOMEM.
 */
int nvidia_list_split(const char *value, char ***ret, size_t *ret_n);

/* The device one item of the list asks for: a qualified CDI name as it is, anything else as
 * nvidia.com/gpu=<item>. malloc'd; NULL on ENOMEM. */
char *visible_device_name(const char *item);

/* The same for a value of the variable (NULL = unset). */
int cdi_visible_devices_parse(const char *value, char ***ret_devices, size_t *ret_n,
			      struct cdi_error *err);

#endif
