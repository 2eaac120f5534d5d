/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NVIDIA_VISIBLE_DEVICES to CDI names, as nvidia-container-runtime does in cdi mode
 * (internal/modifier/cdi.go getDevicesFromSpec: unqualified requests get nvidia.com/gpu,
 * duplicates dropped). "none" deliberately asks for nothing (see apply/nvidia/visible_devices.c).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include <cdi/annotations.h>

#include "nvidia/visible_devices.h"

/* want: the expected names, NULL-terminated. */
static void check_value(const char *value, ...)
{
	struct cdi_error err = { 0 };
	char **devs = NULL;
	size_t n = 99, i = 0;
	const char *want;
	va_list ap;

	cr_assert_eq(cdi_visible_devices_parse(value, &devs, &n, &err), 0, "%s",
		     cdi_error_message(&err));
	va_start(ap, value);
	while ((want = va_arg(ap, const char *))) {
		cr_assert_lt(i, n, "\"%s\": missing %s", value, want);
		cr_assert_str_eq(devs[i], want, "\"%s\" item %zu", value, i);
		i++;
	}
	va_end(ap);
	cr_assert_eq(n, i, "\"%s\": %zu devices, want %zu", value, n, i);
	cr_assert_null(devs[n]);
	cdi_strv_free(devs);
}

Test(visible, nothing_requested)
{
	check_value(NULL, NULL);
	check_value("", NULL);
	check_value("void", NULL);
	check_value("none", NULL);
	check_value(" , ,", NULL);
}

Test(visible, all)
{
	check_value("all", "nvidia.com/gpu=all", NULL);
}

Test(visible, indices_and_mig)
{
	check_value("0", "nvidia.com/gpu=0", NULL);
	check_value("0,1,3", "nvidia.com/gpu=0", "nvidia.com/gpu=1", "nvidia.com/gpu=3", NULL);
	check_value("2:0,2:1", "nvidia.com/gpu=2:0", "nvidia.com/gpu=2:1", NULL);
}

Test(visible, uuids)
{
	check_value(
		"GPU-4cf8db2d-06c0-7d70-1a51-e59b25b2c16c,MIG-1f3a2c7e-0b2d-5f4e-9c1a-7d2e3b4c5a6f",
		"nvidia.com/gpu=GPU-4cf8db2d-06c0-7d70-1a51-e59b25b2c16c",
		"nvidia.com/gpu=MIG-1f3a2c7e-0b2d-5f4e-9c1a-7d2e3b4c5a6f", NULL);
}

Test(visible, qualified_names_kept)
{
	check_value("nvidia.com/gpu=1,vendor.com/class=x,0", "nvidia.com/gpu=1",
		    "vendor.com/class=x", "nvidia.com/gpu=0", NULL);
}

Test(visible, dedup_keeps_first_order)
{
	check_value("1,0,1,nvidia.com/gpu=0,all,all", "nvidia.com/gpu=1", "nvidia.com/gpu=0",
		    "nvidia.com/gpu=all", NULL);
}

Test(visible, blanks_and_empty_items)
{
	check_value(" 0 ,, 1 ,", "nvidia.com/gpu=0", "nvidia.com/gpu=1", NULL);
}

Test(visible, none_and_void_only_as_whole_value)
{
	/* Inside a list they are names like any other, as in the runtime. */
	check_value("0,none", "nvidia.com/gpu=0", "nvidia.com/gpu=none", NULL);
	check_value("void,1", "nvidia.com/gpu=void", "nvidia.com/gpu=1", NULL);
}

static void check_oci(const char *oci_text, size_t want_n, const char *first)
{
	json_error_t jerr;
	json_t *oci = json_loads(oci_text, 0, &jerr);
	struct cdi_error err = { 0 };
	char **devs = NULL;
	size_t n = 99;

	cr_assert_not_null(oci, "%s", jerr.text);
	cr_assert_eq(cdi_visible_devices(oci, &devs, &n, &err), 0);
	cr_assert_eq(n, want_n, "%s", oci_text);
	if (first)
		cr_assert_str_eq(devs[0], first);
	cdi_strv_free(devs);
	json_decref(oci);
}

Test(visible, from_process_env)
{
	check_oci("{}", 0, NULL);
	check_oci("{\"process\":{}}", 0, NULL);
	check_oci("{\"process\":{\"env\":[\"PATH=/bin\"]}}", 0, NULL);
	check_oci("{\"process\":{\"env\":[\"NVIDIA_VISIBLE_DEVICES=0,2:1\"]}}", 2,
		  "nvidia.com/gpu=0");
	/* The last assignment wins, as in a Go map built from the environment. */
	check_oci(
		"{\"process\":{\"env\":[\"NVIDIA_VISIBLE_DEVICES=all\",\"NVIDIA_VISIBLE_DEVICES=3\"]}}",
		1, "nvidia.com/gpu=3");
	check_oci(
		"{\"process\":{\"env\":[\"NVIDIA_VISIBLE_DEVICES=1\",\"NVIDIA_VISIBLE_DEVICES=void\"]}}",
		0, NULL);
	/* Only the exact name. */
	check_oci(
		"{\"process\":{\"env\":[\"NVIDIA_VISIBLE_DEVICESX=1\",\"XNVIDIA_VISIBLE_DEVICES=1\","
		"\"NVIDIA_VISIBLE_DEVICES\"]}}",
		0, NULL);
	/* Non-string entries are ignored rather than fatal. */
	check_oci("{\"process\":{\"env\":[7,\"NVIDIA_VISIBLE_DEVICES=0\"]}}", 1,
		  "nvidia.com/gpu=0");
}

Test(visible, long_list_linear)
{
	size_t len = 200000, at = 0;
	char *value = malloc(len);
	struct cdi_error err = { 0 };
	char **devs = NULL;
	size_t n = 0;

	for (int i = 0; at + 16 < len; i++)
		at += snprintf(value + at, len - at, "%d,", i % 20000);
	value[at] = '\0';
	cr_assert_eq(cdi_visible_devices_parse(value, &devs, &n, &err), 0);
	cr_assert_eq(n, 20000);
	cr_assert_str_eq(devs[19999], "nvidia.com/gpu=19999");
	cdi_strv_free(devs);
	free(value);
}

Test(visible, bad_arguments)
{
	struct cdi_error err = { 0 };

	cr_assert_eq(cdi_visible_devices_parse("0", NULL, NULL, &err), -EINVAL);
	cdi_error_reset(&err);
}
