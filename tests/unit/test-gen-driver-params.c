/* SPDX-License-Identifier: Apache-2.0 */
/*
 * /proc/driver/nvidia/params and capability files as nvidia-modprobe's
 * init_device_file_parameters() reads them (defaults 0:0 0666, modify 1; DeviceFileMode
 * decimal; ModifyDeviceFiles or DeviceFileModify other than 1 means leave the files alone).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot/driver_params.h"
#include "macro.h"

static struct dev_file_params parse_ok(const char *buf)
{
	struct dev_file_params p;
	struct cdi_error e = { 0 };

	cr_assert_eq(driver_params_parse("params", buf, strlen(buf), &p, &e), 0, "%s",
		     cdi_error_message(&e));
	cr_assert_eq(cdi_error_count(&e), 0);
	return p;
}

/* The R550 params file as the kernel prints it: numbers, then strings. */
Test(driver_params, r550_params_file)
{
	struct dev_file_params p = parse_ok("ResmanDebugLevel: 4294967295\n"
					    "RmLogonRC: 1\n"
					    "ModifyDeviceFiles: 1\n"
					    "DeviceFileUID: 0\n"
					    "DeviceFileGID: 44\n"
					    "DeviceFileMode: 432\n"
					    "InitializeSystemMemoryAllocations: 1\n"
					    "RegistryDwords: \"\"\n"
					    "RmMsg: \"\"\n"
					    "ExcludedGpus: \"\"\n");

	cr_assert_eq(p.uid, 0);
	cr_assert_eq(p.gid, 44);
	cr_assert_eq(p.mode, 0660);
	cr_assert(p.modify);
	cr_assert(!p.has_minor);
}

Test(driver_params, defaults_when_empty_or_absent)
{
	struct dev_file_params p = parse_ok("");
	struct cdi_error e = { 0 };

	cr_assert_eq(p.uid, 0);
	cr_assert_eq(p.gid, 0);
	cr_assert_eq(p.mode, 0666);
	cr_assert(p.modify);
	p = (struct dev_file_params){ 0 };
	cr_assert_eq(driver_params_read("/nonexistent/params", true, &p, &e), 0);
	cr_assert_eq(p.mode, 0666);
	cr_assert(p.modify);
	cr_assert_eq(driver_params_read("/nonexistent/params", false, &p, &e), -ENOENT);
	cr_assert_str_eq(cdi_error_message(&e),
			 "/nonexistent/params: cannot read: No such file or directory");
	cdi_error_reset(&e);
}

/* A capability file: gpu0/mig/gi1/access on an A100 (minor 12, 0444). */
Test(driver_params, capability_file)
{
	struct dev_file_params p =
		parse_ok("DeviceFileMinor: 12\nDeviceFileMode: 292\nDeviceFileModify: 1\n");

	cr_assert(p.has_minor);
	cr_assert_eq(p.minor, 12);
	cr_assert_eq(p.mode, 0444);
	cr_assert(p.modify);
	cr_assert_eq(p.uid, 0);
}

Test(driver_params, modify_zero_and_other_values)
{
	cr_assert(!parse_ok("ModifyDeviceFiles: 0\n").modify);
	cr_assert(!parse_ok("DeviceFileModify: 0\n").modify);
	/* nvidia-modprobe: "if (modification_allowed != 1)" leaves the files alone. */
	cr_assert(!parse_ok("ModifyDeviceFiles: 2\n").modify);
	cr_assert(parse_ok("ModifyDeviceFiles: 0\nModifyDeviceFiles: 1\n").modify);
}

Test(driver_params, blanks_crlf_and_no_trailing_newline)
{
	struct dev_file_params p = parse_ok("DeviceFileUID:\t1000 \r\nDeviceFileMode: 384");

	cr_assert_eq(p.uid, 1000);
	cr_assert_eq(p.mode, 0600);
}

/* Names must match whole: a longer name with the same start is someone else's. */
Test(driver_params, other_names_ignored)
{
	struct dev_file_params p = parse_ok("DeviceFileModeX: abc\nXDeviceFileUID: 5\nno colon\n"
					    "DeviceFileMode : 1\n");

	cr_assert_eq(p.mode, 0666);
	cr_assert_eq(p.uid, 0);
}

Test(driver_params, malformed_values)
{
	static const struct {
		const char *buf, *msg;
	} bad[] = {
		{ "DeviceFileMode: 0660x\n",
		  "params:1: DeviceFileMode: not a decimal number: \" 0660x\"" },
		{ "A: 1\nDeviceFileMode: 512\n",
		  "params:2: DeviceFileMode: 512 is not a permission mode (0 to 511, i.e. 0777)" },
		{ "DeviceFileUID: -1\n", "params:1: DeviceFileUID: not a decimal number: \" -1\"" },
		{ "DeviceFileGID: 4294967295\n",
		  "params:1: DeviceFileGID: 4294967295 is not a user or group id" },
		{ "DeviceFileUID: 4294967296\n",
		  "params:1: DeviceFileUID: not a decimal number: \" 4294967296\"" },
		{ "DeviceFileMinor: 1048576\n",
		  "params:1: DeviceFileMinor: 1048576 is beyond the largest minor number" },
		{ "DeviceFileMinor:\n", "params:1: DeviceFileMinor: not a decimal number: \"\"" },
	};

	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		struct dev_file_params p = { .uid = 7 };
		struct cdi_error e = { 0 };

		cr_assert_eq(driver_params_parse("params", bad[i].buf, strlen(bad[i].buf), &p, &e),
			     -EINVAL, "%s", bad[i].buf);
		cr_assert_str_eq(cdi_error_message(&e), bad[i].msg);
		cr_assert_eq(p.uid, 7, "written on failure");
		cdi_error_reset(&e);
	}
}

Test(driver_params, line_too_long)
{
	char buf[700];
	struct dev_file_params p;
	struct cdi_error e = { 0 };

	memset(buf, 'x', sizeof(buf));
	buf[sizeof(buf) - 1] = '\0';
	cr_assert_eq(driver_params_parse("params", buf, strlen(buf), &p, &e), -EINVAL);
	cr_assert_str_eq(cdi_error_message(&e), "params:1: line longer than 512 bytes");
	cdi_error_reset(&e);
}
