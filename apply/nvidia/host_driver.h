/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The NVIDIA driver running on the host (internal to apply/): its version as the kernel module
 * states it in /proc/driver/nvidia/version, read under the host root. What a facts file's
 * recorded driver is compared with, at container start: a few system calls, no NVML.
 */
#ifndef CDIKIT_APPLY_HOST_DRIVER_H
#define CDIKIT_APPLY_HOST_DRIVER_H

#include <stddef.h>

#include <cdi/error.h>

#define HOST_DRIVER_VERSION_PROC "/proc/driver/nvidia/version"
/* "550.54.15" and its NUL, with room to spare. */
#define HOST_DRIVER_VERSION_MAX 64

/*
 * The running driver's version ("550.54.15": the first dotted number of the "NVRM version:"
 * line) into ret. -ENOENT, with no problem, when no driver is loaded (the file is missing,
 * unreadable or names no version); a host root that cannot be opened is a problem naming it.
 */
int host_driver_version(const char *host_root, char ret[HOST_DRIVER_VERSION_MAX],
			struct cdi_error *err);

#endif
