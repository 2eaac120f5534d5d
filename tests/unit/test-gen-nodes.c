/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Making the NVIDIA device nodes with real mknod in temporary dev roots, from a /proc laid out
 * as the driver publishes it, the way nvidia-modprobe's mknod helper does: major from
 * /proc/devices, owner and mode from /proc/driver/nvidia/params or the capability file,
 * ModifyDeviceFiles 0 respected, a node of the wrong type or numbers replaced, links never
 * followed.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "boot/node_create.h"
#include "boot/node_plan.h"
#include "../lib/simhost.h"
#include "../lib/testlib.h"
#include "macro.h"

static char root[] = "/tmp/cdikit-nodes-XXXXXX";

/* mkdir -p of root/rel, without a process per call (the suites share two busy cores). */
static void mkdirs(const char *rel)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;

		*p = '\0';
		cr_assert(mkdir(path, 0755) == 0 || errno == EEXIST, "%s: %s", path,
			  strerror(errno));
		*p = c;
		if (!c)
			break;
	}
}

static void setup(void)
{
	strcpy(root, "/tmp/cdikit-nodes-XXXXXX");
	cr_assert(mkdtemp(root));
	mkdirs("dev");
}

static void teardown(void)
{
	sh("rm -rf %s", root);
}

TestSuite(nodes, .init = setup, .fini = teardown);

static void need_root(void)
{
	if (geteuid() != 0)
		cr_skip_test("mknod needs root");
}

/* root/rel with text, its directories made. */
static void put(const char *rel, const char *text)
{
	char path[600], dir[600];
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", rel);
	if (strrchr(dir, '/')) {
		*strrchr(dir, '/') = '\0';
		mkdirs(dir);
	}
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	cr_assert(f, "%s", path);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

static const char devices_r550[] = "Character devices:\n"
				   "  1 mem\n"
				   "195 nvidia-frontend\n"
				   "235 nvidia-caps\n"
				   "236 nvidia-nvlink\n"
				   "508 nvidia-uvm\n"
				   "\n"
				   "Block devices:\n"
				   "  8 sd\n"
				   "195 notthisone\n";

static void gpu(const char *bus, unsigned minor, bool excluded)
{
	char rel[200], text[600];

	snprintf(rel, sizeof(rel), "proc/driver/nvidia/gpus/%s/information", bus);
	snprintf(text, sizeof(text),
		 "Model: \t\t NVIDIA A100-SXM4-40GB\nIRQ:   \t\t 42\n"
		 "GPU UUID: \t GPU-54e6a3c8-2b5e-4d0e-8e4a-0a7c1f3b9d0%u\n"
		 "Bus Location: \t %s\nDevice Minor: \t %u\nGPU Excluded:\t %s\n",
		 minor, bus, minor, excluded ? "Yes" : "No");
	put(rel, text);
}

/* Two GPUs (minors 0 and 2), one excluded (3), MIG on GPU 0: gi1 and gi1/ci0. */
static void host(const char *devices, const char *params)
{
	put("proc/devices", devices);
	if (params)
		put("proc/driver/nvidia/params", params);
	gpu("0000:07:00.0", 0, false);
	gpu("0000:0f:00.0", 2, false);
	gpu("0000:47:00.0", 3, true);
	mkdirs("sys/module/nvidia_modeset");
	put("proc/driver/nvidia/capabilities/mig/config",
	    "DeviceFileMinor: 1\nDeviceFileMode: 256\nDeviceFileModify: 1\n");
	put("proc/driver/nvidia/capabilities/mig/monitor",
	    "DeviceFileMinor: 2\nDeviceFileMode: 292\nDeviceFileModify: 1\n");
	put("proc/driver/nvidia/capabilities/gpu0/mig/gi1/access",
	    "DeviceFileMinor: 12\nDeviceFileMode: 292\nDeviceFileModify: 1\n");
	put("proc/driver/nvidia/capabilities/gpu0/mig/gi1/ci0/access",
	    "DeviceFileMinor: 13\nDeviceFileMode: 292\nDeviceFileModify: 1\n");
}

static const char params_r550[] = "ResmanDebugLevel: 4294967295\n"
				  "ModifyDeviceFiles: 1\n"
				  "DeviceFileUID: 0\n"
				  "DeviceFileGID: 44\n"
				  "DeviceFileMode: 432\n"
				  "RegistryDwords: \"\"\n";

static struct node_create_result res;
static struct cdi_error warn, err;

static int run(void)
{
	struct gen_host h = { .root = root, .driver_root = root, .dev_root = root };

	node_create_result_clear(&res);
	cdi_error_reset(&warn);
	cdi_error_reset(&err);
	return node_create_nvidia(&h, &res, &warn, &err);
}

static void done(void)
{
	node_create_result_clear(&res);
	cdi_error_reset(&warn);
	cdi_error_reset(&err);
}

static enum node_change change_of(const char *rel)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/dev/%s", root, rel);
	for (size_t i = 0; i < res.n; i++)
		if (strcmp(res.nodes[i].path, path) == 0)
			return res.nodes[i].change;
	cr_assert_fail("%s not in the result", path);
	return NODE_FAILED;
}

static void assert_node(const char *rel, unsigned maj, unsigned min, mode_t mode, uid_t uid,
			gid_t gid)
{
	char path[600];
	struct stat st;

	snprintf(path, sizeof(path), "%s/dev/%s", root, rel);
	cr_assert_eq(lstat(path, &st), 0, "%s: %s", path, strerror(errno));
	cr_assert(S_ISCHR(st.st_mode), "%s is not a character device", rel);
	cr_assert_eq(major(st.st_rdev), maj, "%s", rel);
	cr_assert_eq(minor(st.st_rdev), min, "%s", rel);
	cr_assert_eq(st.st_mode & 07777, mode, "%s: mode %o", rel, st.st_mode & 07777);
	cr_assert_eq(st.st_uid, uid, "%s", rel);
	cr_assert_eq(st.st_gid, gid, "%s", rel);
}

static bool exists(const char *rel)
{
	char path[600];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	return lstat(path, &st) == 0;
}

Test(nodes, creates_every_node)
{
	mode_t old;

	need_root();
	host(devices_r550, params_r550);
	/* A strict umask must not leak into the modes. */
	old = umask(077);
	cr_assert_eq(run(), 0, "%s", cdi_error_message(&err));
	umask(old);
	cr_assert_eq(cdi_error_count(&warn), 0, "%s", cdi_error_message(&warn));
	cr_assert_eq(res.n, 10);
	assert_node("nvidiactl", 195, 255, 0660, 0, 44);
	assert_node("nvidia0", 195, 0, 0660, 0, 44);
	assert_node("nvidia2", 195, 2, 0660, 0, 44);
	cr_assert(!exists("dev/nvidia3"), "an excluded GPU got a node");
	assert_node("nvidia-modeset", 195, 254, 0660, 0, 44);
	assert_node("nvidia-uvm", 508, 0, 0666, 0, 0);
	assert_node("nvidia-uvm-tools", 508, 1, 0666, 0, 0);
	/* Capability nodes: the mode of their files (256 = 0400, 292 = 0444). */
	assert_node("nvidia-caps/nvidia-cap1", 235, 1, 0400, 0, 0);
	assert_node("nvidia-caps/nvidia-cap2", 235, 2, 0444, 0, 0);
	assert_node("nvidia-caps/nvidia-cap12", 235, 12, 0444, 0, 0);
	assert_node("nvidia-caps/nvidia-cap13", 235, 13, 0444, 0, 0);
	{
		char path[600];
		struct stat st;

		snprintf(path, sizeof(path), "%s/dev/nvidia-caps", root);
		cr_assert_eq(stat(path, &st), 0);
		cr_assert_eq(st.st_mode & 07777, 0755);
	}
	for (size_t i = 0; i < res.n; i++)
		cr_assert_eq(res.nodes[i].change, NODE_CREATED, "%s", res.nodes[i].path);
	cr_assert_str_eq(node_change_str(NODE_CREATED, false), "created");
	/* Again: everything is as it should be, nothing is touched. */
	cr_assert_eq(run(), 0, "%s", cdi_error_message(&err));
	for (size_t i = 0; i < res.n; i++)
		cr_assert_eq(res.nodes[i].change, NODE_PRESENT, "%s", res.nodes[i].path);
	done();
}

/* The order of the plan: control, GPUs by minor, modeset, uvm, caps; numbers and sources. */
Test(nodes, plan_without_root)
{
	struct node_plan plan = { 0 };
	struct cdi_error w = { 0 }, e = { 0 };
	static const char *const names[] = { "nvidiactl",      "nvidia0",     "nvidia2",
					     "nvidia-modeset", "nvidia-uvm",  "nvidia-uvm-tools",
					     "nvidia-cap1",    "nvidia-cap2", "nvidia-cap12",
					     "nvidia-cap13" };
	char params[600];

	host(devices_r550, params_r550);
	cr_assert_eq(node_plan_nvidia(root, &plan, &w, &e), 0, "%s", cdi_error_message(&e));
	cr_assert_eq(plan.n, ELEMENTSOF(names));
	for (size_t i = 0; i < plan.n; i++) {
		cr_assert_str_eq(plan.entries[i].name, names[i]);
		cr_assert_eq(plan.entries[i].in_caps, i >= 6);
	}
	snprintf(params, sizeof(params), "%s/proc/driver/nvidia/params", root);
	cr_assert_str_eq(plan.entries[0].perms_from, params);
	cr_assert_null(plan.entries[4].perms_from);
	cr_assert(strstr(plan.entries[8].perms_from, "/capabilities/gpu0/mig/gi1/access"));
	node_plan_clear(&plan);
}

/* From R545, /proc/devices names "nvidia", "nvidia-modeset" and "nvidiactl" (all 195). */
Test(nodes, r545_devices_modeset_without_sys_module)
{
	struct node_plan plan = { 0 };
	struct cdi_error w = { 0 }, e = { 0 };

	host("Character devices:\n195 nvidia\n195 nvidia-modeset\n195 nvidiactl\n510 nvidia-uvm\n\n",
	     NULL);
	sh("rm -rf %s/sys/module/nvidia_modeset", root);
	cr_assert_eq(node_plan_nvidia(root, &plan, &w, &e), 0, "%s", cdi_error_message(&e));
	cr_assert_str_eq(plan.entries[3].name, "nvidia-modeset");
	cr_assert_eq(plan.entries[4].major, 510);
	/* No params file: nvidia-modprobe's defaults. */
	cr_assert_eq(plan.entries[0].perms.mode, 0666);
	cr_assert_eq(plan.entries[0].perms.gid, 0);
	/* No nvidia-caps major: no capability nodes. */
	cr_assert_eq(plan.n, 6);
	node_plan_clear(&plan);
	/* Before R545 without /sys/module/nvidia_modeset: modeset is not loaded, no node. */
	host(devices_r550, NULL);
	sh("rm -rf %s/sys/module/nvidia_modeset", root);
	cr_assert_eq(node_plan_nvidia(root, &plan, &w, &e), 0, "%s", cdi_error_message(&e));
	for (size_t i = 0; i < plan.n; i++)
		cr_assert_str_neq(plan.entries[i].name, "nvidia-modeset");
	node_plan_clear(&plan);
	cr_assert_eq(cdi_error_count(&w), 0);
}

/* A driver part that is not loaded: one warning naming the nodes it leaves out. */
Test(nodes, modules_not_loaded_are_warnings)
{
	struct node_plan plan = { 0 };
	struct cdi_error w = { 0 }, e = { 0 };
	char want[700];

	host("Character devices:\n  1 mem\n\nBlock devices:\n195 nvidia\n", params_r550);
	cr_assert_eq(node_plan_nvidia(root, &plan, &w, &e), 0, "%s", cdi_error_message(&e));
	cr_assert_eq(plan.n, 0);
	cr_assert_eq(cdi_error_count(&w), 2);
	snprintf(
		want, sizeof(want),
		"%s/proc/devices: no nvidia device (the nvidia module is not loaded): /dev/nvidiactl and the GPU nodes not made",
		root);
	cr_assert_str_eq(cdi_problem_text(cdi_error_problem(&w, 0)), want);
	snprintf(
		want, sizeof(want),
		"%s/proc/devices: no nvidia-uvm device (the nvidia_uvm module is not loaded): /dev/nvidia-uvm and /dev/nvidia-uvm-tools not made",
		root);
	cr_assert_str_eq(cdi_problem_text(cdi_error_problem(&w, 1)), want);
	cdi_error_reset(&w);
	node_plan_clear(&plan);
}

Test(nodes, bad_proc_files_are_errors)
{
	struct node_plan plan = { 0 };
	struct cdi_error w = { 0 }, e = { 0 };
	char want[700];

	host(devices_r550, "DeviceFileMode: 0660x\n");
	cr_assert_eq(node_plan_nvidia(root, &plan, &w, &e), -EINVAL);
	snprintf(want, sizeof(want),
		 "%s/proc/driver/nvidia/params:1: DeviceFileMode: not a decimal number: \" 0660x\"",
		 root);
	cr_assert_str_eq(cdi_error_message(&e), want);
	cdi_error_reset(&e);

	host(devices_r550, params_r550);
	put("proc/driver/nvidia/capabilities/gpu0/mig/gi1/access", "DeviceFileMode: 292\n");
	cr_assert_eq(node_plan_nvidia(root, &plan, &w, &e), -EINVAL);
	snprintf(want, sizeof(want),
		 "%s/proc/driver/nvidia/capabilities/gpu0/mig/gi1/access: DeviceFileMinor: missing",
		 root);
	cr_assert_str_eq(cdi_error_message(&e), want);
	cdi_error_reset(&e);

	put("proc/devices", "Character devices:\nnvidia-uvm\n\n");
	cr_assert_eq(node_plan_nvidia(root, &plan, &w, &e), -EINVAL);
	snprintf(want, sizeof(want), "%s/proc/devices:2: malformed character device line", root);
	cr_assert_str_eq(cdi_error_message(&e), want);
	cdi_error_reset(&e);
	sh("rm %s/proc/devices", root);
	cr_assert_eq(node_plan_nvidia(root, &plan, &w, &e), -ENOENT);
	cdi_error_reset(&e);
	cdi_error_reset(&w);
}

/* Wrong type or numbers: removed and made again; a link is removed, never followed. */
Test(nodes, wrong_type_or_numbers_replaced)
{
	char path[600], target[600];
	struct stat st;

	need_root();
	host(devices_r550, params_r550);
	put("dev/nvidia-uvm", "a regular file\n");
	put("target", "someone else's file\n");
	snprintf(target, sizeof(target), "%s/target", root);
	sh("chmod 0600 %s", target);
	sh("ln -s %s %s/dev/nvidiactl", target, root);
	sh("mknod %s/dev/nvidia0 c 1 3", root);		   /* /dev/null's numbers */
	sh("mknod %s/dev/nvidia-uvm-tools b 508 1", root); /* a block device */
	sh("mkfifo %s/dev/nvidia2", root);
	cr_assert_eq(run(), 0, "%s", cdi_error_message(&err));
	assert_node("nvidia-uvm", 508, 0, 0666, 0, 0);
	assert_node("nvidiactl", 195, 255, 0660, 0, 44);
	assert_node("nvidia0", 195, 0, 0660, 0, 44);
	assert_node("nvidia-uvm-tools", 508, 1, 0666, 0, 0);
	assert_node("nvidia2", 195, 2, 0660, 0, 44);
	cr_assert_eq(change_of("nvidia-uvm"), NODE_REPLACED);
	cr_assert_eq(change_of("nvidiactl"), NODE_REPLACED);
	cr_assert_eq(change_of("nvidia0"), NODE_REPLACED);
	cr_assert_eq(change_of("nvidia-uvm-tools"), NODE_REPLACED);
	cr_assert_eq(change_of("nvidia2"), NODE_REPLACED);
	cr_assert_eq(stat(target, &st), 0);
	cr_assert(S_ISREG(st.st_mode));
	cr_assert_eq(st.st_mode & 07777, 0600, "the link's target was chmod'ed");
	cr_assert_eq(st.st_gid, 0, "the link's target was chown'ed");
	snprintf(path, sizeof(path), "%s/dev/nvidiactl", root);
	cr_assert_eq(lstat(path, &st), 0);
	cr_assert(!S_ISLNK(st.st_mode));
	done();
}

/* The right node with the wrong mode or owner: set, not made again. */
Test(nodes, perms_set_on_the_right_node)
{
	char path[600];
	struct stat before, after;

	need_root();
	host(devices_r550, params_r550);
	sh("mknod -m 0600 %s/dev/nvidiactl c 195 255 && chown 1000:1000 %s/dev/nvidiactl", root,
	   root);
	snprintf(path, sizeof(path), "%s/dev/nvidiactl", root);
	cr_assert_eq(lstat(path, &before), 0);
	cr_assert_eq(run(), 0, "%s", cdi_error_message(&err));
	cr_assert_eq(change_of("nvidiactl"), NODE_PERMS_SET);
	assert_node("nvidiactl", 195, 255, 0660, 0, 44);
	cr_assert_eq(lstat(path, &after), 0);
	cr_assert_eq(before.st_ino, after.st_ino, "the node was made again");
	done();
}

/*
 * ModifyDeviceFiles: 0 in the params file: the 195 nodes are not made or changed (a missing one
 * is a warning); the uvm nodes, which nvidia-modprobe makes without the params file, still are.
 */
Test(nodes, modify_device_files_zero)
{
	char want[700];

	need_root();
	host(devices_r550, "ModifyDeviceFiles: 0\nDeviceFileGID: 44\nDeviceFileMode: 432\n");
	sh("mknod -m 0600 %s/dev/nvidiactl c 195 255", root);
	cr_assert_eq(run(), 0, "%s", cdi_error_message(&err));
	assert_node("nvidiactl", 195, 255, 0600, 0, 0);
	cr_assert_eq(change_of("nvidiactl"), NODE_LEFT_ALONE);
	cr_assert(!exists("dev/nvidia0"));
	cr_assert(!exists("dev/nvidia-modeset"));
	cr_assert_eq(change_of("nvidia0"), NODE_LEFT_ALONE);
	assert_node("nvidia-uvm", 508, 0, 0666, 0, 0);
	cr_assert_eq(cdi_error_count(&warn), 3, "%s", cdi_error_message(&warn));
	snprintf(
		want, sizeof(want),
		"%s/dev/nvidia0: missing, and not made: %s/proc/driver/nvidia/params says DeviceFileModify/ModifyDeviceFiles 0 (the files are managed elsewhere)",
		root, root);
	cr_assert_str_eq(cdi_problem_text(cdi_error_problem(&warn, 0)), want);
	done();
}

/* A capability file's DeviceFileModify 0 leaves its node alone; its mode is its own. */
Test(nodes, capability_file_mode_and_modify)
{
	need_root();
	host(devices_r550, params_r550);
	put("proc/driver/nvidia/capabilities/mig/config",
	    "DeviceFileMinor: 1\nDeviceFileMode: 384\nDeviceFileModify: 1\n");
	put("proc/driver/nvidia/capabilities/mig/monitor",
	    "DeviceFileMinor: 2\nDeviceFileMode: 292\nDeviceFileModify: 0\n");
	cr_assert_eq(run(), 0, "%s", cdi_error_message(&err));
	assert_node("nvidia-caps/nvidia-cap1", 235, 1, 0600, 0, 0);
	cr_assert(!exists("dev/nvidia-caps/nvidia-cap2"));
	cr_assert_eq(change_of("nvidia-caps/nvidia-cap2"), NODE_LEFT_ALONE);
	done();
}

/* What cannot be made is named; every other node is still made. */
Test(nodes, failure_names_the_node_and_the_rest_go_on)
{
	char want[700];

	need_root();
	host(devices_r550, params_r550);
	sh("mkdir %s/dev/nvidia-uvm", root);
	cr_assert_eq(run(), -EISDIR);
	snprintf(want, sizeof(want),
		 "%s/dev/nvidia-uvm: a directory is where the device node belongs; not removed",
		 root);
	cr_assert_str_eq(cdi_error_message(&err), want);
	cr_assert_eq(cdi_error_count(&err), 1);
	cr_assert_eq(change_of("nvidia-uvm"), NODE_FAILED);
	assert_node("nvidia-uvm-tools", 508, 1, 0666, 0, 0);
	assert_node("nvidia-caps/nvidia-cap13", 235, 13, 0444, 0, 0);
	done();
}

/* /dev/nvidia-caps planted as a link: refused, nothing made where it points. */
Test(nodes, caps_dir_link_refused)
{
	char want[700];

	need_root();
	host(devices_r550, params_r550);
	sh("mkdir %s/elsewhere && ln -s ../elsewhere %s/dev/nvidia-caps", root, root);
	cr_assert_lt(run(), 0);
	snprintf(want, sizeof(want), "%s/dev/nvidia-caps: not a directory (or a link to one): %s",
		 root, strerror(ENOTDIR));
	cr_assert_str_eq(cdi_error_message(&err), want);
	cr_assert_eq(cdi_error_count(&err), 1, "one line for the directory, not one per node");
	cr_assert_eq(change_of("nvidia-caps/nvidia-cap13"), NODE_FAILED);
	cr_assert(!exists("elsewhere/nvidia-cap1"));
	assert_node("nvidiactl", 195, 255, 0660, 0, 44);
	done();
}

/* With /dev/char (udev's), each node gets its <major>:<minor> link; wrong links are fixed. */
Test(nodes, dev_char_links)
{
	char path[600], buf[128];
	ssize_t n;

	need_root();
	host(devices_r550, params_r550);
	sh("mkdir %s/dev/char && ln -s ../wrong %s/dev/char/508:0 && touch %s/dev/char/508:1", root,
	   root, root);
	cr_assert_eq(run(), 0, "%s", cdi_error_message(&err));
	snprintf(path, sizeof(path), "%s/dev/char/195:255", root);
	n = readlink(path, buf, sizeof(buf) - 1);
	cr_assert_gt(n, 0);
	buf[n] = '\0';
	cr_assert_str_eq(buf, "../nvidiactl");
	snprintf(path, sizeof(path), "%s/dev/char/235:12", root);
	n = readlink(path, buf, sizeof(buf) - 1);
	cr_assert_gt(n, 0);
	buf[n] = '\0';
	cr_assert_str_eq(buf, "../nvidia-caps/nvidia-cap12");
	snprintf(path, sizeof(path), "%s/dev/char/508:0", root);
	n = readlink(path, buf, sizeof(buf) - 1);
	cr_assert_gt(n, 0);
	buf[n] = '\0';
	cr_assert_str_eq(buf, "../nvidia-uvm");
	cr_assert_eq(cdi_error_count(&warn), 1);
	cr_assert(strstr(cdi_error_message(&warn), "/dev/char/508:1 is not a link: left alone"));
	done();
}

/* Making nodes needs root: anyone else gets one line and nothing is made. */
Test(nodes, not_root)
{
	int r;

	need_root();
	host(devices_r550, params_r550);
	sh("chmod -R a+rwX %s", root);
	/* Effective ids only, taken back after: the test worker stays root. */
	cr_assert_eq(setegid(65534), 0);
	cr_assert_eq(seteuid(65534), 0);
	r = run();
	cr_assert_eq(seteuid(0), 0);
	cr_assert_eq(setegid(0), 0);
	cr_assert_eq(r, -EPERM);
	cr_assert_str_eq(cdi_error_message(&err), "creating device nodes needs root");
	cr_assert_eq(res.n, 0);
	cr_assert(!exists("dev/nvidiactl"));
	done();
}

/* node_ensure_at refuses names that would leave the directory. */
Test(nodes, ensure_rejects_paths)
{
	struct dev_file_params p = DEV_FILE_PARAMS_DEFAULT;
	struct cdi_error e = { 0 };
	enum node_change c;

	cr_assert_eq(node_ensure_at(AT_FDCWD, "../x", "x", 1, 3, &p, &c, &e), -EINVAL);
	cr_assert_eq(node_ensure_at(AT_FDCWD, "..", "x", 1, 3, &p, &c, &e), -EINVAL);
	cr_assert_eq(node_ensure_at(AT_FDCWD, "", "x", 1, 3, &p, &c, &e), -EINVAL);
	cr_assert_eq(c, NODE_FAILED);
	cr_assert_str_eq(cdi_error_message(&e), "x: not a file name");
	cdi_error_reset(&e);
}

/* Every NVIDIA node under dev (and dev/nvidia-caps) with its lstat, sorted by name. */
struct seen {
	char name[128];
	struct stat st;
};

static size_t list_nodes(const char *dev, struct seen *out, size_t cap)
{
	char cmd[700], line[128];
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "cd %s && ls -d nvidia* nvidia-caps/* 2>/dev/null | sort", dev);
	p = popen(cmd, "r");
	cr_assert(p);
	while (n < cap && fgets(line, sizeof(line), p)) {
		char path[800];

		line[strcspn(line, "\n")] = '\0';
		if (strcmp(line, "nvidia-caps") == 0)
			continue;
		snprintf(out[n].name, sizeof(out[n].name), "%s", line);
		snprintf(path, sizeof(path), "%s/%s", dev, line);
		cr_assert_eq(lstat(path, &out[n].st), 0, "%s", path);
		n++;
	}
	pclose(p);
	return n;
}

/*
 * The DGX A100 of tests/simhost, with its nodes made as nvidia-modprobe makes them (MIG on two
 * GPUs, params GID 44 mode 0660): all removed, then made again from its /proc, they come back
 * the same: names, numbers, modes, owners. nvidiactl and the uvm nodes, which the host never
 * had (--no-ctl-node --no-uvm-nodes), are made too.
 */
Test(nodes, simulated_host_made_again_the_same)
{
	struct gen_host h;
	char host_root[600], dev[700];
	static struct seen before[128], after[128];
	size_t n_before, n_after;

	need_root();
	snprintf(host_root, sizeof(host_root), "%s/h", root);
	simhost_make(
		host_root,
		"--topology dgx-mig --no-ctl-node --no-uvm-nodes --params DeviceFileGID=44 --params DeviceFileMode=432");
	if (simhost_has(host_root, ".simhost-no-devnodes"))
		cr_skip_test("make-host made no device nodes");
	snprintf(dev, sizeof(dev), "%s/dev", host_root);
	n_before = list_nodes(dev, before, ELEMENTSOF(before));
	cr_assert_gt(n_before, 10);
	sh("cd %s && rm -rf nvidia* nvidia-caps char", dev);
	h = (struct gen_host){ .root = host_root, .driver_root = host_root, .dev_root = host_root };
	cr_assert_eq(node_create_nvidia(&h, &res, &warn, &err), 0, "%s", cdi_error_message(&err));
	cr_assert_eq(cdi_error_count(&warn), 0, "%s", cdi_error_message(&warn));
	n_after = list_nodes(dev, after, ELEMENTSOF(after));
	cr_assert_eq(n_after, n_before + 3, "%zu nodes before, %zu after", n_before, n_after);
	for (size_t i = 0, j = 0; i < n_after; i++) {
		if (!strcmp(after[i].name, "nvidiactl") ||
		    !strncmp(after[i].name, "nvidia-uvm", 10))
			continue;
		cr_assert_str_eq(after[i].name, before[j].name);
		cr_assert_eq(after[i].st.st_mode, before[j].st.st_mode, "%s", after[i].name);
		cr_assert_eq(after[i].st.st_rdev, before[j].st.st_rdev, "%s", after[i].name);
		cr_assert_eq(after[i].st.st_uid, before[j].st.st_uid, "%s", after[i].name);
		cr_assert_eq(after[i].st.st_gid, before[j].st.st_gid, "%s", after[i].name);
		j++;
	}
	assert_node("../h/dev/nvidiactl", 195, 255, 0660, 0, 44); /* <root>/dev is the suite's */
	assert_node("../h/dev/nvidia-uvm", 508, 0, 0666, 0, 0);
	done();
}
