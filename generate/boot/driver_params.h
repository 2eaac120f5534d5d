/* SPDX-License-Identifier: Apache-2.0 */
/* Who owns the NVIDIA device files and with which mode, as the driver says (internal). */
#ifndef CDIKIT_DRIVER_PARAMS_H
#define CDIKIT_DRIVER_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <cdi/error.h>

#define DRIVER_PARAMS_PATH "/proc/driver/nvidia/params"
#define DRIVER_PARAMS_MAX_FILE (64u * 1024)

/*
 * The device-file settings of /proc/driver/nvidia/params (the nvidia module's NVreg_DeviceFile*
 * and NVreg_ModifyDeviceFiles options) or of a capability file
 * (/proc/driver/nvidia/capabilities/.../access: DeviceFileMinor, DeviceFileMode,
 * DeviceFileModify). Without a file, nvidia-modprobe's defaults: root:root, 0666, modify.
 */
struct dev_file_params {
	uid_t uid;
	gid_t gid;
	mode_t mode; /* permission bits only, at most 0777 */
	bool modify; /* false: the driver's files are someone else's business, leave them */
	bool has_minor;
	unsigned minor; /* DeviceFileMinor of a capability file */
};

#define DEV_FILE_PARAMS_DEFAULT                                                                    \
	((struct dev_file_params){ .uid = 0, .gid = 0, .mode = 0666, .modify = true })

/*
 * Parse "Name: value" lines, starting from the defaults. Read: DeviceFileUID, DeviceFileGID,
 * DeviceFileMode (decimal, as the kernel prints them: 438 = 0666), ModifyDeviceFiles and
 * DeviceFileModify (any value but 1 means "leave the files alone", as nvidia-modprobe takes
 * it), DeviceFileMinor. Other names and lines without a colon are skipped (the params file also
 * holds strings: RegistryDwords: ""). A value of those names that is not a decimal number, a
 * mode above 0777 or an id of -1 is an error naming the file (name) and the line.
 */
int driver_params_parse(const char *name, const char *buf, size_t len, struct dev_file_params *ret,
			struct cdi_error *err);

/* The same, read from path (a regular file; /proc reports size 0). A missing file gives the
 * defaults when optional, else an error. */
int driver_params_read(const char *path, bool optional, struct dev_file_params *ret,
		       struct cdi_error *err);

#endif
