/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NVIDIA_DRIVER_CAPABILITIES over the library directory (apply/nvidia/lib_tree.c): the
 * directory's one mount when every group comes whole, else a mount per group asked for (or per
 * kept part of a group kept in part), and the per-file mounts moved to their group's copy.
 */
#include <criterion/criterion.h>

#include "nvidia/driver_caps.h"
#include "nvidia/lib_tree.h"
#include "../lib/testlib.h"

/* The facts' record as cdi-generate writes it for a host with these groups. */
static json_t *tree(void)
{
	return load("{'containerPath': '/usr/local/nvidia', 'hostPath': '/etc/cdi/nvidia.lib',"
		    " 'groups': {"
		    "  'compute': {'tag': 'compute', 'parts': ['bin', 'files', 'lib64']},"
		    "  'utility': {'tag': 'utility', 'parts': ['bin', 'lib64']},"
		    "  'compute32': {'tag': 'compute/32', 'parts': ['lib']},"
		    "  'video': {'tag': 'video', 'parts': ['lib64']},"
		    "  'any': {'tag': null, 'parts': ['files']}}}");
}

static json_t *tags(void)
{
	return load("{'/usr/lib/x86_64-linux-gnu/libcuda.so.1': 'compute',"
		    " '/usr/bin/nvidia-smi': 'utility',"
		    " '/usr/lib/i386-linux-gnu/libcuda.so.1': 'compute/32'}");
}

/* The spec's edits, filtered by caps as env_inject filters them. */
static json_t *edits(unsigned caps)
{
	_cleanup_json_ json_t *e = load(
		"{'mounts': ["
		" {'hostPath': '/host/run/socket', 'containerPath': '/run/socket', 'options': ['bind']},"
		" {'hostPath': '/etc/cdi/nvidia.lib', 'containerPath': '/usr/local/nvidia',"
		"  'options': ['ro', 'rbind']},"
		" {'hostPath': '/etc/cdi/nvidia.lib/lib64/libcuda.so.1',"
		"  'containerPath': '/usr/lib/x86_64-linux-gnu/libcuda.so.1', 'options': ['ro', 'rbind']},"
		" {'hostPath': '/etc/cdi/nvidia.lib/lib/libcuda.so.1',"
		"  'containerPath': '/usr/lib/i386-linux-gnu/libcuda.so.1', 'options': ['ro', 'rbind']},"
		" {'hostPath': '/etc/cdi/nvidia.lib/bin/nvidia-smi',"
		"  'containerPath': '/usr/bin/nvidia-smi', 'options': ['ro', 'rbind']}]}");
	_cleanup_json_ json_t *t = tags();
	struct cdi_error err = { 0 };
	json_t *out = NULL;

	cr_assert_eq(driver_caps_filter_edits(e, t, caps, &out, &err), 0);
	return out;
}

static void selected(unsigned caps, const char *want_mounts)
{
	_cleanup_json_ json_t *e = edits(caps), *t = tree(), *g = tags(), *want = NULL;
	struct cdi_error err = { 0 };

	cr_assert_eq(lib_tree_select(e, t, g, caps, &err), 0, "%s", cdi_error_message(&err));
	want = load(want_mounts);
	assert_json_eq(json_object_get(e, "mounts"), want);
}

Test(lib_tree, all_keeps_the_one_mount)
{
	selected(
		DRIVER_CAPS_ALL,
		"[{'hostPath': '/host/run/socket', 'containerPath': '/run/socket', 'options': ['bind']},"
		" {'hostPath': '/etc/cdi/nvidia.lib', 'containerPath': '/usr/local/nvidia',"
		"  'options': ['ro', 'rbind']},"
		" {'hostPath': '/etc/cdi/nvidia.lib/lib64/libcuda.so.1',"
		"  'containerPath': '/usr/lib/x86_64-linux-gnu/libcuda.so.1', 'options': ['ro', 'rbind']},"
		" {'hostPath': '/etc/cdi/nvidia.lib/lib/libcuda.so.1',"
		"  'containerPath': '/usr/lib/i386-linux-gnu/libcuda.so.1', 'options': ['ro', 'rbind']},"
		" {'hostPath': '/etc/cdi/nvidia.lib/bin/nvidia-smi',"
		"  'containerPath': '/usr/bin/nvidia-smi', 'options': ['ro', 'rbind']}]");
}

Test(lib_tree, utility_mounts_its_group_and_the_files_of_every_selection)
{
	selected(
		DRIVER_CAP_UTILITY,
		"[{'hostPath': '/host/run/socket', 'containerPath': '/run/socket', 'options': ['bind']},"
		" {'hostPath': '/etc/cdi/nvidia.lib/caps/utility',"
		"  'containerPath': '/usr/local/nvidia/caps/utility', 'options': ['ro', 'rbind']},"
		" {'hostPath': '/etc/cdi/nvidia.lib/caps/any',"
		"  'containerPath': '/usr/local/nvidia/caps/any', 'options': ['ro', 'rbind']},"
		" {'hostPath': '/etc/cdi/nvidia.lib/caps/utility/bin/nvidia-smi',"
		"  'containerPath': '/usr/bin/nvidia-smi', 'options': ['ro', 'rbind']}]");
}

Test(lib_tree, default_and_compat32)
{
	selected(
		DRIVER_CAPS_DEFAULT | DRIVER_CAP_COMPAT32,
		"[{'hostPath': '/host/run/socket', 'containerPath': '/run/socket', 'options': ['bind']},"
		" {'hostPath': '/etc/cdi/nvidia.lib/caps/compute',"
		"  'containerPath': '/usr/local/nvidia/caps/compute', 'options': ['ro', 'rbind']},"
		" {'hostPath': '/etc/cdi/nvidia.lib/caps/utility',"
		"  'containerPath': '/usr/local/nvidia/caps/utility', 'options': ['ro', 'rbind']},"
		" {'hostPath': '/etc/cdi/nvidia.lib/caps/compute32',"
		"  'containerPath': '/usr/local/nvidia/caps/compute32', 'options': ['ro', 'rbind']},"
		" {'hostPath': '/etc/cdi/nvidia.lib/caps/any',"
		"  'containerPath': '/usr/local/nvidia/caps/any', 'options': ['ro', 'rbind']},"
		" {'hostPath': '/etc/cdi/nvidia.lib/caps/compute/lib64/libcuda.so.1',"
		"  'containerPath': '/usr/lib/x86_64-linux-gnu/libcuda.so.1', 'options': ['ro', 'rbind']},"
		" {'hostPath': '/etc/cdi/nvidia.lib/caps/compute32/lib/libcuda.so.1',"
		"  'containerPath': '/usr/lib/i386-linux-gnu/libcuda.so.1', 'options': ['ro', 'rbind']},"
		" {'hostPath': '/etc/cdi/nvidia.lib/caps/utility/bin/nvidia-smi',"
		"  'containerPath': '/usr/bin/nvidia-smi', 'options': ['ro', 'rbind']}]");
}

/* video brings compute's libraries, not its binaries: compute's parts but bin, one by one. */
Test(lib_tree, video_keeps_part_of_compute)
{
	selected(
		DRIVER_CAP_VIDEO,
		"[{'hostPath': '/host/run/socket', 'containerPath': '/run/socket', 'options': ['bind']},"
		" {'hostPath': '/etc/cdi/nvidia.lib/caps/compute/files',"
		"  'containerPath': '/usr/local/nvidia/caps/compute/files', 'options': ['ro', 'rbind']},"
		" {'hostPath': '/etc/cdi/nvidia.lib/caps/compute/lib64',"
		"  'containerPath': '/usr/local/nvidia/caps/compute/lib64', 'options': ['ro', 'rbind']},"
		" {'hostPath': '/etc/cdi/nvidia.lib/caps/video',"
		"  'containerPath': '/usr/local/nvidia/caps/video', 'options': ['ro', 'rbind']},"
		" {'hostPath': '/etc/cdi/nvidia.lib/caps/any',"
		"  'containerPath': '/usr/local/nvidia/caps/any', 'options': ['ro', 'rbind']},"
		" {'hostPath': '/etc/cdi/nvidia.lib/caps/compute/lib64/libcuda.so.1',"
		"  'containerPath': '/usr/lib/x86_64-linux-gnu/libcuda.so.1', 'options': ['ro', 'rbind']}]");
}

/* No record (another tool's spec, or facts of an older cdikit): nothing changes. The spec's
 * own mount objects are never edited: a moved mount is a new object. */
Test(lib_tree, no_record_and_no_change_in_place)
{
	_cleanup_json_ json_t *e = edits(DRIVER_CAP_UTILITY), *t = tree(), *g = tags();
	_cleanup_json_ json_t *copy = json_deep_copy(e);
	json_t *smi = json_array_get(json_object_get(e, "mounts"), 2);
	struct cdi_error err = { 0 };

	json_incref(smi);
	cr_assert_eq(lib_tree_select(e, NULL, g, DRIVER_CAP_UTILITY, &err), 0);
	assert_json_eq(e, copy);
	cr_assert_eq(lib_tree_select(e, t, g, DRIVER_CAP_UTILITY, &err), 0);
	cr_assert_str_eq(json_string_value(json_object_get(smi, "hostPath")),
			 "/etc/cdi/nvidia.lib/bin/nvidia-smi");
	json_decref(smi);
}
