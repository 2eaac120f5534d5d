/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Loading the NVIDIA modules through the real libkmod against a modules tree made here: stand-in
 * .ko files (relocatable objects with a .modinfo section and the symbols that give depmod the
 * real dependencies: nvidia-uvm and nvidia-modeset on nvidia), indexed by Debian's depmod -b.
 * Nothing can be inserted in CI, so the probes are dry runs (KMOD_PROBE_DRY_RUN), captured
 * through libkmod's print_action; a module listed in modules.builtin takes the real path
 * (live, nothing to do) without inserting anything.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot/kmod_load.h"
#include "macro.h"
#include "../lib/simhost.h"
#include "../lib/testlib.h"

#define RELEASE "6.1.0-18-amd64"

static char root[] = "/tmp/cdikit-kmod-XXXXXX";
static char mods[512];

static void setup(void)
{
	if (access("/usr/sbin/depmod", X_OK) != 0 && access("/sbin/depmod", X_OK) != 0)
		cr_skip_test("no depmod (Debian package kmod)");
	/* libkmod reads the live /sys/module: a host running the NVIDIA driver probes nothing. */
	if (access("/sys/module/nvidia", F_OK) == 0)
		cr_skip_test("the nvidia module is loaded on this machine");
	strcpy(root, "/tmp/cdikit-kmod-XXXXXX");
	cr_assert(mkdtemp(root));
	snprintf(mods, sizeof(mods), "%s/lib/modules/%s", root, RELEASE);
	sh("mkdir -p %s/kernel/drivers/video %s/etc/modprobe.d %s/proc/sys/kernel", mods, root,
	   root);
	sh("echo %s >%s/proc/sys/kernel/osrelease", RELEASE, root);
}

static void teardown(void)
{
	sh("rm -rf %s", root);
}

TestSuite(kmod, .init = setup, .fini = teardown);

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert(f, "%s", path);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

/* One stand-in module: exports are defined and listed in __ksymtab_strings, imports called. */
static void stand_in(const char *file, const char *name, const char *exports, const char *imports)
{
	char src[600], words[256], *w, *save = NULL;
	FILE *f;

	snprintf(src, sizeof(src), "%s/%s.s", root, file);
	f = fopen(src, "w");
	cr_assert(f);
	fprintf(f,
		"\t.section .modinfo,\"a\"\n\t.asciz \"name=%s\"\n\t.asciz \"license=NVIDIA\"\n"
		"\t.asciz \"vermagic=%s SMP preempt mod_unload modversions \"\n"
		"\t.section __ksymtab_strings,\"a\"\n",
		name, RELEASE);
	snprintf(words, sizeof(words), "%s", exports);
	for (w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save))
		fprintf(f, "\t.asciz \"%s\"\n", w);
	fprintf(f, "\t.text\n");
	snprintf(words, sizeof(words), "%s", exports);
	for (w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save))
		fprintf(f, "\t.globl %s\n%s:\n\tret\n", w, w);
	fprintf(f, "init:\n");
	snprintf(words, sizeof(words), "%s", imports);
	for (w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save))
		fprintf(f, "\tcall %s\n", w);
	fprintf(f, "\tret\n\t.section .note.GNU-stack,\"\",@progbits\n");
	cr_assert_eq(fclose(f), 0);
	sh("as -o %s/kernel/drivers/video/%s.ko %s && rm %s", mods, file, src, src);
}

enum { NV = 1, UVM = 2, MODESET = 4, ALL = 7 };

/* The .run installer's layout: kernel/drivers/video/nvidia*.ko, then depmod. */
static void tree(unsigned which, const char *modprobe_conf)
{
	if (which & NV)
		stand_in("nvidia", "nvidia", "nvUvmInterfaceRegisterUvmOps nvidia_get_rm_ops", "");
	if (which & UVM)
		stand_in("nvidia-uvm", "nvidia_uvm", "", "nvUvmInterfaceRegisterUvmOps");
	if (which & MODESET)
		stand_in("nvidia-modeset", "nvidia_modeset", "nvKmsKapiGetFunctionsTable",
			 "nvidia_get_rm_ops");
	if (modprobe_conf) {
		char path[600];

		snprintf(path, sizeof(path), "%s/etc/modprobe.d/nvidia.conf", root);
		write_file(path, modprobe_conf);
	}
	sh("touch %s/modules.order %s/modules.builtin %s/modules.builtin.modinfo", mods, mods,
	   mods);
	sh("PATH=$PATH:/usr/sbin:/sbin depmod -b %s %s", root, RELEASE);
}

static struct kmod_load_result res;
static struct cdi_error warn, err;

static int probe(bool dry_run, const char *modules_dir)
{
	struct gen_host host = { .root = root, .driver_root = root, .dev_root = root };
	struct kmod_load_options o = { .modules_dir = modules_dir, .dry_run = dry_run };

	kmod_load_result_clear(&res);
	cdi_error_reset(&warn);
	cdi_error_reset(&err);
	return kmod_load_nvidia(&host, &o, &res, &warn, &err);
}

static void done(void)
{
	kmod_load_result_clear(&res);
	cdi_error_reset(&warn);
	cdi_error_reset(&err);
}

static void assert_action(size_t i, const char *module, const char *file, const char *options)
{
	char path[600];

	cr_assert_lt(i, res.n_actions, "only %zu actions", res.n_actions);
	cr_assert_str_eq(res.actions[i].module, module);
	snprintf(path, sizeof(path), "%s/kernel/drivers/video/%s.ko", mods, file);
	cr_assert_str_eq(res.actions[i].path, path);
	cr_assert_str_eq(res.actions[i].options, options);
	cr_assert_null(res.actions[i].command);
}

/*
 * The installer's modprobe.d: options for nvidia, uvm as a post softdep of nvidia. libkmod
 * visits nvidia three times and uvm twice (as the dependency, the softdep, itself): each is
 * reported once, dependencies first.
 */
Test(kmod, dry_run_order_options_softdep)
{
	tree(ALL, "# generated by nvidia-installer\n"
		  "options nvidia NVreg_DeviceFileMode=0660 NVreg_DeviceFileGID=44\n"
		  "softdep nvidia post: nvidia-uvm\n");
	cr_assert_eq(probe(true, NULL), 0, "%s", cdi_error_message(&err));
	cr_assert_eq(cdi_error_count(&warn), 0, "%s", cdi_error_message(&warn));
	cr_assert_str_eq(res.modules_dir, mods);
	cr_assert_eq(res.n_actions, 3);
	assert_action(0, "nvidia", "nvidia", "NVreg_DeviceFileMode=0660 NVreg_DeviceFileGID=44");
	assert_action(1, "nvidia_uvm", "nvidia-uvm", "");
	assert_action(2, "nvidia_modeset", "nvidia-modeset", "");
	for (size_t i = 0; i < KMOD_LOAD_N_MODULES; i++)
		cr_assert_eq(res.modules[i].state, KMOD_LOAD_INSERTED, "%s", res.modules[i].name);
	cr_assert_str_eq(kmod_load_state_str(res.modules[1].state, true), "would be loaded");
	done();
}

/* Without the softdep, uvm comes in its own turn: nvidia first as its dependency. */
Test(kmod, dry_run_dependencies_first_and_usr_lib_modules)
{
	char dir[600];

	tree(ALL, NULL);
	/* A merged-/usr tree: lib/modules/<release> missing, usr/lib/modules/<release> present. */
	sh("mkdir -p %s/usr/lib && mv %s/lib/modules %s/usr/lib/ && rmdir %s/lib", root, root, root,
	   root);
	snprintf(dir, sizeof(dir), "%s/usr/lib/modules/%s", root, RELEASE);
	strcpy(mods, dir);
	cr_assert_eq(probe(true, NULL), 0, "%s", cdi_error_message(&err));
	cr_assert_str_eq(res.modules_dir, dir);
	cr_assert_eq(res.n_actions, 3);
	assert_action(0, "nvidia", "nvidia", "");
	assert_action(1, "nvidia_uvm", "nvidia-uvm", "");
	assert_action(2, "nvidia_modeset", "nvidia-modeset", "");
	done();
}

/* --modules-dir: the directory given wins over the release under the root. */
Test(kmod, explicit_modules_dir)
{
	tree(ALL, NULL);
	sh("mv %s %s/elsewhere", mods, root);
	snprintf(mods, sizeof(mods), "%s/elsewhere", root);
	cr_assert_eq(probe(true, mods), 0, "%s", cdi_error_message(&err));
	cr_assert_str_eq(res.modules_dir, mods);
	cr_assert_eq(res.n_actions, 3);
	done();
}

Test(kmod, absent_uvm_is_one_error_naming_the_directory)
{
	char want[700];

	tree(NV | MODESET, NULL);
	cr_assert_eq(probe(true, NULL), -ENOENT);
	cr_assert_eq(cdi_error_count(&err), 1, "%s", cdi_error_message(&err));
	snprintf(want, sizeof(want), "nvidia_uvm: no such module in %s", mods);
	cr_assert_str_eq(cdi_error_message(&err), want);
	cr_assert_eq(res.modules[0].state, KMOD_LOAD_INSERTED);
	cr_assert_eq(res.modules[1].state, KMOD_LOAD_ABSENT);
	cr_assert_eq(res.modules[2].state, KMOD_LOAD_INSERTED);
	done();
}

/* No nvidia: one line; the modules that need it are not tried. */
Test(kmod, absent_nvidia_skips_the_rest)
{
	char want[700];

	tree(0, NULL);
	cr_assert_eq(probe(true, NULL), -ENOENT);
	cr_assert_eq(cdi_error_count(&err), 1, "%s", cdi_error_message(&err));
	snprintf(want, sizeof(want), "nvidia: no such module in %s", mods);
	cr_assert_str_eq(cdi_error_message(&err), want);
	cr_assert_eq(res.modules[0].state, KMOD_LOAD_ABSENT);
	cr_assert_eq(res.modules[1].state, KMOD_LOAD_SKIPPED);
	cr_assert_eq(res.modules[2].state, KMOD_LOAD_SKIPPED);
	cr_assert_eq(res.n_actions, 0);
	done();
}

/* nvidia_modeset serves displays only: its absence is a warning, the run goes on. */
Test(kmod, absent_modeset_is_a_warning)
{
	char want[700];

	tree(NV | UVM, NULL);
	cr_assert_eq(probe(true, NULL), 0, "%s", cdi_error_message(&err));
	cr_assert_eq(cdi_error_count(&err), 0);
	snprintf(want, sizeof(want), "nvidia_modeset: no such module in %s (only displays need it)",
		 mods);
	cr_assert_str_eq(cdi_error_message(&warn), want);
	cr_assert_eq(res.modules[2].state, KMOD_LOAD_ABSENT);
	done();
}

Test(kmod, no_modules_directory)
{
	char want[700];

	sh("rm -rf %s/lib", root);
	cr_assert_eq(probe(true, NULL), -ENOENT);
	snprintf(
		want, sizeof(want),
		"%s: no such directory: nvidia, nvidia_uvm, nvidia_modeset cannot be loaded (no driver for this kernel?)",
		mods);
	cr_assert_str_eq(cdi_error_message(&err), want);
	done();
}

/* A tree depmod never indexed: said once, then each module is missing. */
Test(kmod, no_index)
{
	char want[700];

	stand_in("nvidia", "nvidia", "", "");
	cr_assert_eq(probe(true, NULL), -ENOENT);
	snprintf(want, sizeof(want), "%s: no module index (modules.dep.bin): was depmod run?",
		 mods);
	cr_assert_str_eq(cdi_error_message(&warn), want);
	snprintf(want, sizeof(want), "nvidia: no such module in %s", mods);
	cr_assert_str_eq(cdi_error_message(&err), want);
	done();
}

/* An administrator's blacklist holds (modprobe -b): a warning, and the module is left out. */
Test(kmod, blacklist_honoured)
{
	tree(ALL, "blacklist nvidia_modeset\n");
	cr_assert_eq(probe(true, NULL), 0, "%s", cdi_error_message(&err));
	cr_assert_str_eq(cdi_error_message(&warn),
			 "nvidia_modeset: blacklisted in modprobe.d, not loaded");
	cr_assert_eq(res.modules[2].state, KMOD_LOAD_BLACKLISTED);
	cr_assert_eq(res.n_actions, 2);
	done();
}

Test(kmod, blacklisted_nvidia_leaves_the_rest)
{
	tree(ALL, "blacklist nvidia\n");
	cr_assert_eq(probe(true, NULL), 0);
	cr_assert_eq(cdi_error_count(&err), 0, "%s", cdi_error_message(&err));
	cr_assert_str_eq(cdi_error_message(&warn), "nvidia: blacklisted in modprobe.d, not loaded");
	cr_assert_eq(res.modules[1].state, KMOD_LOAD_SKIPPED);
	cr_assert_eq(res.n_actions, 0);
	done();
}

/* An install command is reported, not run, in a dry run. */
Test(kmod, install_command_not_run_in_dry_run)
{
	char conf[700], flag[600];

	snprintf(flag, sizeof(flag), "%s/ran", root);
	snprintf(conf, sizeof(conf), "install nvidia_modeset touch %s\n", flag);
	tree(ALL, conf);
	cr_assert_eq(probe(true, NULL), 0, "%s", cdi_error_message(&err));
	cr_assert_eq(res.n_actions, 3);
	cr_assert_str_eq(res.actions[2].module, "nvidia_modeset");
	cr_assert_not_null(res.actions[2].command);
	cr_assert_eq(strncmp(res.actions[2].command, "touch ", 6), 0);
	cr_assert_neq(access(flag, F_OK), 0, "the install command ran");
	done();
}

/* Debian's packages: nvidia-current.ko and aliases in modprobe.d; the lookup follows them. */
Test(kmod, modprobe_d_alias)
{
	tree(0, "alias nvidia nvidia-current\nalias nvidia-uvm nvidia-current-uvm\n"
		"alias nvidia-modeset nvidia-current-modeset\n"
		"options nvidia-current NVreg_DeviceFileGID=44\n");
	stand_in("nvidia-current", "nvidia_current", "nvidia_get_rm_ops", "");
	stand_in("nvidia-current-uvm", "nvidia_current_uvm", "", "nvidia_get_rm_ops");
	stand_in("nvidia-current-modeset", "nvidia_current_modeset", "", "nvidia_get_rm_ops");
	sh("PATH=$PATH:/usr/sbin:/sbin depmod -b %s %s", root, RELEASE);
	cr_assert_eq(probe(true, NULL), 0, "%s", cdi_error_message(&err));
	cr_assert_eq(res.n_actions, 3);
	assert_action(0, "nvidia_current", "nvidia-current", "NVreg_DeviceFileGID=44");
	assert_action(1, "nvidia_current_uvm", "nvidia-current-uvm", "");
	assert_action(2, "nvidia_current_modeset", "nvidia-current-modeset", "");
	done();
}

/*
 * The real path, as root, with install commands in place of insmod (so nothing reaches the
 * kernel): a failing command is an error naming the module, with libkmod's own message as a
 * warning, never on stderr; the modules that need nvidia are not tried.
 */
Test(kmod, failing_install_command)
{
	if (geteuid() != 0)
		cr_skip_test("loading needs root");
	tree(ALL, "install nvidia false\n");
	cr_assert_eq(probe(false, NULL), -EINVAL);
	cr_assert_eq(cdi_error_count(&err), 1, "%s", cdi_error_message(&err));
	cr_assert_str_eq(cdi_error_message(&err),
			 "nvidia: its install command in modprobe.d failed");
	cr_assert_eq(cdi_error_count(&warn), 1);
	cr_assert(strstr(cdi_error_message(&warn),
			 "libkmod: Error running install command 'false' for module nvidia"),
		  "%s", cdi_error_message(&warn));
	cr_assert_eq(res.modules[0].state, KMOD_LOAD_FAILED);
	cr_assert_eq(res.modules[1].state, KMOD_LOAD_SKIPPED);
	done();
}

/* An install command that succeeds but loads nothing: the kernel's word wins. */
Test(kmod, install_command_that_loads_nothing)
{
	char conf[700], flag[600];

	if (geteuid() != 0)
		cr_skip_test("loading needs root");
	snprintf(flag, sizeof(flag), "%s/ran", root);
	snprintf(conf, sizeof(conf), "install nvidia touch %s\n", flag);
	tree(ALL, conf);
	cr_assert_eq(probe(false, NULL), -ENOENT);
	cr_assert_eq(access(flag, F_OK), 0, "the install command did not run");
	cr_assert(strstr(cdi_error_message(&err), "nvidia: not loaded after probing "), "%s",
		  cdi_error_message(&err));
	cr_assert_eq(res.n_actions, 1);
	cr_assert_eq(res.modules[0].state, KMOD_LOAD_FAILED);
	done();
}

/* Modules the kernel has built in (modules.builtin, indexed by depmod) are live. */
static void builtin_tree(void)
{
	sh("printf 'kernel/drivers/video/nvidia.ko\\nkernel/drivers/video/nvidia-uvm.ko\\nkernel/drivers/video/nvidia-modeset.ko\\n' >%s/modules.builtin",
	   mods);
	sh("touch %s/modules.order %s/modules.builtin.modinfo", mods, mods);
	sh("PATH=$PATH:/usr/sbin:/sbin depmod -b %s %s", root, RELEASE);
}

/* The real path, not a dry run: everything is live, so nothing is (or needs to be) inserted. */
Test(kmod, builtin_modules_need_nothing)
{
	if (geteuid() != 0)
		cr_skip_test("loading needs root");
	builtin_tree();
	cr_assert_eq(probe(false, NULL), 0, "%s", cdi_error_message(&err));
	for (size_t i = 0; i < KMOD_LOAD_N_MODULES; i++)
		cr_assert_eq(res.modules[i].state, KMOD_LOAD_BUILTIN, "%s", res.modules[i].name);
	cr_assert_eq(res.n_actions, 0);
	cr_assert_eq(cdi_error_count(&warn), 0);
	cr_assert_str_eq(kmod_load_state_str(res.modules[0].state, false), "built into the kernel");
	done();
}

/* Run as nobody (effective ids only, taken back after: the test worker stays root). */
static int as_nobody(bool dry_run)
{
	int r;

	cr_assert_eq(setegid(65534), 0);
	cr_assert_eq(seteuid(65534), 0);
	r = probe(dry_run, NULL);
	cr_assert_eq(seteuid(0), 0);
	cr_assert_eq(setegid(0), 0);
	return r;
}

/* Loading for real needs root: anyone else gets one line, and nothing is looked up. */
Test(kmod, not_root)
{
	if (geteuid() != 0)
		cr_skip_test("needs root to become someone else");
	tree(ALL, NULL);
	sh("chmod 0755 %s", root);
	cr_assert_eq(as_nobody(false), -EPERM);
	cr_assert_str_eq(cdi_error_message(&err), "loading kernel modules needs root");
	cr_assert_eq(res.modules[0].state, KMOD_LOAD_SKIPPED);
	/* A dry run needs no privilege. */
	cr_assert_eq(as_nobody(true), 0, "%s", cdi_error_message(&err));
	cr_assert_eq(res.n_actions, 3);
	done();
}

/* Nothing to load is nothing to refuse: modules already live need no root. */
Test(kmod, live_modules_need_no_root)
{
	if (geteuid() != 0)
		cr_skip_test("needs root to become someone else");
	builtin_tree();
	sh("chmod 0755 %s", root);
	cr_assert_eq(as_nobody(false), 0, "%s", cdi_error_message(&err));
	cr_assert_eq(res.modules[2].state, KMOD_LOAD_BUILTIN);
	done();
}

/*
 * The modules tree of tests/simhost (make-host --modules: the .run installer's layout, depmod,
 * the installer's modprobe.d) found from --root alone: the release from
 * <root>/proc/sys/kernel/osrelease, the tree through the root's lib -> usr/lib link, the options
 * --params puts in modprobe.d.
 */
Test(kmod, simulated_host)
{
	char host_root[600], want[700];
	struct gen_host h;
	struct kmod_load_options o = { .dry_run = true };

	snprintf(host_root, sizeof(host_root), "%s/h", root);
	simhost_make(host_root, "--topology single --modules --params DeviceFileGID=44");
	if (simhost_has(host_root, ".simhost-no-depmod"))
		cr_skip_test("make-host found no depmod");
	h = (struct gen_host){ .root = host_root, .driver_root = host_root, .dev_root = host_root };
	cr_assert_eq(kmod_load_nvidia(&h, &o, &res, &warn, &err), 0, "%s", cdi_error_message(&err));
	snprintf(want, sizeof(want), "%s/lib/modules/%s", host_root, RELEASE);
	cr_assert_str_eq(res.modules_dir, want);
	strcpy(mods, want);
	cr_assert_eq(res.n_actions, 3);
	assert_action(0, "nvidia", "nvidia", "NVreg_DeviceFileGID=44");
	assert_action(1, "nvidia_uvm", "nvidia-uvm", "");
	assert_action(2, "nvidia_modeset", "nvidia-modeset", "");
	done();
}
