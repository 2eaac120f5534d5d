/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The spec that heals itself (apply/runtime/spec_refresh.c) with the real cdi-generate of $B on
 * simulated hosts: a missing spec and one whose facts record another driver are written again,
 * a fresh one is used as it is (its facts handed on), another tool's spec is never touched, a
 * failed regeneration leaves the spec byte for byte; and the generator's child
 * (apply/runtime/generator_exec.c) starts from a clean state whatever this process holds.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cdi/registry.h>

#include "../lib/simhost.h"
#include "../lib/testlib.h"
#include "runtime/generator_exec.h"
#include "runtime/spec_refresh.h"

static struct scratch scratch;
static const char *const tmp = scratch.path;
static char generator[PATH_MAX];

static void setup(void)
{
	const char *b = getenv("B");
	char rel[PATH_MAX];

	scratch_make(&scratch, "refresh");
	/* Absolute, as the runtime gives it: the child runs in "/". */
	snprintf(rel, sizeof(rel), "%s/cdi-generate", b ? b : "build");
	if (!realpath(rel, generator))
		snprintf(generator, sizeof(generator), "%s", rel);
	sh("mkdir -p '%s/cdi'", tmp);
}

static void teardown(void)
{
	scratch_remove(&scratch);
}

TestSuite(refresh, .init = setup, .fini = teardown, .timeout = 60);

#define path_of(rel) scratch_at(&scratch, rel)

/* A simulated host under tmp/rel (make-host options after it), or the test is skipped. */
static const char *host(const char *rel, const char *opts)
{
	static char roots[2][PATH_MAX];
	static int k;
	char *root = roots[k++ % 2];

	snprintf(root, PATH_MAX, "%s/%s", tmp, rel);
	if (access(generator, X_OK) != 0)
		cr_skip_test("%s not built", generator);
	simhost_make(root, "--topology single %s", opts);
	if (simhost_has(root, ".simhost-no-devnodes"))
		cr_skip_test("the simulated host has no device nodes (not root)");
	return root;
}

/* What spec_refresh does for devices, with the spec at tmp/cdi/nvidia.yaml, on host_root. */
struct run {
	int r;
	struct spec_refresh_result res;
	struct cdi_error err;
	cdi_registry *reg;
	struct cdi_facts_memo memo;
};

static void run_done(struct run *run)
{
	cdi_error_reset(&run->err);
	cdi_registry_free(run->reg);
	cdi_facts_memo_done(&run->memo);
}

static struct run refresh(const char *host_root, const char *const *devices, size_t n)
{
	const char *dir = path_of("cdi");
	const struct spec_refresh_config c = {
		.output = path_of("cdi/nvidia.yaml"),
		.host_root = host_root,
		.generator = generator,
	};
	struct run run = { 0 };

	cr_assert_eq(cdi_registry_new(&dir, 1, 0, &run.reg, &run.err), 0);
	run.r = spec_refresh(run.reg, devices, n, &c, &run.memo, &run.res, &run.err);
	return run;
}

static const char *const gpu0[] = { "nvidia.com/gpu=0" };

static char *slurp(const char *rel)
{
	char *buf = malloc(1 << 20);
	FILE *f = fopen(path_of(rel), "r");
	size_t n;

	cr_assert_not_null(f, "%s", rel);
	cr_assert_not_null(buf);
	n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static bool exists(const char *rel)
{
	return access(path_of(rel), F_OK) == 0;
}

Test(refresh, missing_spec_is_written_then_used_as_is)
{
	const char *h = host("host", "");
	struct run run = refresh(h, gpu0, 1);
	_cleanup_free_ char *facts = NULL;

	cr_assert_eq(run.r, 0, "%s", cdi_error_message(&run.err));
	cr_assert_eq(run.res.outcome, SPEC_REFRESH_WRITTEN);
	cr_assert_str_eq(run.res.why, "it does not exist");
	cr_assert_not_null(cdi_registry_lookup(run.reg, gpu0[0], NULL), "rescanned");
	cr_assert(exists("cdi/.nvidia.yaml" SPEC_REFRESH_LOCK_SUFFIX), "the lock beside the spec");
	facts = slurp("cdi/nvidia.yaml.cdikit");
	cr_assert_not_null(strstr(facts, "\"550.54.15\""), "%s", facts);
	run_done(&run);

	/* Fresh: nothing done, and its facts handed on to the injection. */
	run = refresh(h, gpu0, 1);
	cr_assert_eq(run.r, 0, "%s", cdi_error_message(&run.err));
	cr_assert_eq(run.res.outcome, SPEC_REFRESH_NONE);
	cr_assert_eq(run.memo.n, 1);
	cr_assert_str_eq(run.memo.spec[0], path_of("cdi/nvidia.yaml"));
	cr_assert_str_eq(run.memo.facts[0]->driver_version, "550.54.15");
	run_done(&run);
}

Test(refresh, facts_of_another_driver_are_regenerated)
{
	const char *old = host("old", ""), *now = host("new", "--driver 555.42.02");
	struct run run;
	_cleanup_free_ char *facts = NULL;

	sh("'%s' -q --root '%s' --output '%s'", generator, old, path_of("cdi/nvidia.yaml"));
	run = refresh(now, gpu0, 1);
	cr_assert_eq(run.r, 0, "%s", cdi_error_message(&run.err));
	cr_assert_eq(run.res.outcome, SPEC_REFRESH_WRITTEN);
	cr_assert_str_eq(run.res.why, "its facts record driver 550.54.15, the host runs 555.42.02");
	facts = slurp("cdi/nvidia.yaml.cdikit");
	cr_assert_not_null(strstr(facts, "\"555.42.02\""));
	cr_assert_eq(run.memo.n, 0, "facts read before the rewrite are not handed on");
	run_done(&run);
}

/* The kernel module says 560 while the libraries and NVML are 550's: cdi-generate refuses. */
Test(refresh, failed_regeneration_leaves_the_spec)
{
	const char *h = host("host", "");
	_cleanup_free_ char *before = NULL, *after = NULL;
	struct run run;

	sh("'%s' -q --root '%s' --output '%s'", generator, h, path_of("cdi/nvidia.yaml"));
	before = slurp("cdi/nvidia.yaml");
	sh("sed -i 's/550.54.15/560.35.03/' '%s/proc/driver/nvidia/version'", h);
	run = refresh(h, gpu0, 1);
	cr_assert_lt(run.r, 0);
	cr_assert_eq(cdi_error_count(&run.err), 1);
	cr_assert_not_null(
		strstr(cdi_error_message(&run.err),
		       "nvidia.yaml: not regenerated (its facts record driver 550.54.15, the host runs 560.35.03): cdi-generate: driver version mismatch"),
		"%s", cdi_error_message(&run.err));
	after = slurp("cdi/nvidia.yaml");
	cr_assert_str_eq(after, before, "the old spec byte for byte");
	cr_assert_not_null(cdi_registry_lookup(run.reg, gpu0[0], NULL), "and still resolvable");
	run_done(&run);
}

#define OTHER_SPEC                                                                                 \
	"cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices:\n- name: \"0\"\n  containerEdits:\n    env:\n    - OTHER=1\n"

/* A host root that only has a driver loaded: cdi-generate never gets that far here. */
static const char *driver_only(void)
{
	static char root[PATH_MAX];

	sh("mkdir -p '%s/h/proc/driver/nvidia' && echo 'NVRM version: NVIDIA UNIX x86_64 Kernel Module  555.42.02  Tue' >'%s/h/proc/driver/nvidia/version'",
	   tmp, tmp);
	snprintf(root, sizeof(root), "%s/h", tmp);
	return root;
}

Test(refresh, another_tools_spec_is_left_alone)
{
	const char *const gpu9[] = { "nvidia.com/gpu=9" };
	const char *const other[] = { "vendor.com/x=0", "nvidia.com/gpu=0" };
	const char *h = driver_only();
	_cleanup_free_ char *text = NULL;
	struct run run;

	/* At the output, without a facts file: never rewritten, whatever is asked. */
	free(write_file_in(path_of("cdi"), "nvidia.yaml", OTHER_SPEC));
	run = refresh(h, gpu9, 1);
	cr_assert_eq(run.r, 0, "%s", cdi_error_message(&run.err));
	cr_assert_eq(run.res.outcome, SPEC_REFRESH_NONE);
	text = slurp("cdi/nvidia.yaml");
	cr_assert_str_eq(text, OTHER_SPEC);
	cr_assert_not(exists("cdi/nvidia.yaml.cdikit"));
	cr_assert_not(exists("cdi/.nvidia.yaml" SPEC_REFRESH_LOCK_SUFFIX), "not even locked");
	run_done(&run);

	/* Another file defines the kind: the output is not created beside it. */
	sh("mv '%s/cdi/nvidia.yaml' '%s/cdi/other.yaml'", tmp, tmp);
	run = refresh(h, other, 2);
	cr_assert_eq(run.res.outcome, SPEC_REFRESH_NONE);
	run_done(&run);
	run = refresh(h, gpu9, 1);
	cr_assert_eq(run.res.outcome, SPEC_REFRESH_NONE);
	cr_assert_not(exists("cdi/nvidia.yaml"));
	run_done(&run);
}

Test(refresh, nothing_to_do)
{
	const char *const not_gpu[] = { "vendor.com/x=0" };
	char empty[PATH_MAX];
	struct run run;

	/* No GPU asked for; no driver loaded (nothing to generate from). */
	run = refresh(driver_only(), not_gpu, 1);
	cr_assert_eq(run.res.outcome, SPEC_REFRESH_NONE);
	run_done(&run);
	sh("mkdir -p '%s/empty'", tmp);
	run = refresh(strcpy(empty, path_of("empty")), gpu0, 1);
	cr_assert_eq(run.r, 0, "%s", cdi_error_message(&run.err));
	cr_assert_eq(run.res.outcome, SPEC_REFRESH_NONE);
	cr_assert_not(exists("cdi/nvidia.yaml"));
	run_done(&run);
}

/* generator_run: what the child sees, reported on its stderr's last line. */
Test(refresh, generator_child_starts_clean)
{
	/* The fds first, by the shell's own glob (its directory is the 3 listed). */
	char *const argv[] = {
		"sh",
		"-c",
		"for f in /proc/$$/fd/*; do fds=\"$fds${f##*/} \"; done; "
		"printf '%s|%s|%s|%s|%s|%s|%s\\n' \"$fds\" \"${CDIKIT_LEAK-unset}\" \"$(umask)\" \"$(pwd)\" "
		"\"$(readlink /proc/$$/fd/0)\" \"$(grep SigIgn /proc/$$/status | cut -f2)\" "
		"\"$(grep SigBlk /proc/$$/status | cut -f2)\" >&2; exit 3",
		NULL,
	};
	struct cdi_error err = { 0 };
	sigset_t block, old;
	unsigned long long ignored;
	const char *msg, *sig;
	int leaked, r;

	leaked = open("/dev/null", O_RDONLY); /* no O_CLOEXEC: as an engine may leave one */
	cr_assert_geq(leaked, 0);
	cr_assert_eq(dup2(leaked, 42), 42);
	setenv("CDIKIT_LEAK", "yes", 1);
	umask(077);
	cr_assert_eq(chdir(tmp), 0);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGCHLD, SIG_IGN); /* the child must still be waited for */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	r = generator_run("/bin/sh", argv, 10000, &err);
	sigprocmask(SIG_SETMASK, &old, NULL);
	signal(SIGCHLD, SIG_DFL); /* for the suite's own commands */
	cr_assert_eq(chdir("/"), 0);
	cr_assert_eq(r, -EIO);
	msg = cdi_error_message(&err);
	cr_assert_eq(strncmp(msg, "0 1 2 3 |unset|0022|/|/dev/null|", 32), 0, "%s", msg);
	/* No signal ignored or blocked, but glibc's own 32 and 33, which only the raw system call
	 * could reset (make, for one, leaves 32 ignored). */
	sig = msg + 32;
	ignored = strtoull(sig, NULL, 16);
	cr_assert_eq(ignored & ~(3ull << 31), 0, "%s", msg);
	cr_assert_str_eq(strchr(sig, '|'), "|0000000000000000", "%s", msg);
	cdi_error_reset(&err);

	/* Success is silent. (A program that cannot run says so in the child, which valgrind
	 * would follow: make memcheck.) */
	cr_assert_eq(generator_run("/bin/true", (char *const[]){ "true", NULL }, 10000, &err), 0);
	cr_assert_eq(cdi_error_count(&err), 0);
}

Test(refresh, generator_killed_after_its_time)
{
	struct cdi_error err = { 0 };
	struct timespec t0, t1;
	int r;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = generator_run("/bin/sh", (char *const[]){ "sh", "-c", "echo busy >&2; sleep 30", NULL },
			  300, &err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	cr_assert_eq(r, -ETIMEDOUT);
	cr_assert_lt(t1.tv_sec - t0.tv_sec, 10);
	cr_assert_str_eq(cdi_error_message(&err),
			 "/bin/sh killed after 0.3 s without finishing; it said: busy");
	cdi_error_reset(&err);
}

/* Beside this program's own file (build/tests/ here), never on PATH. */
Test(refresh, generator_found_beside_the_program)
{
	struct cdi_error err = { 0 };
	char self[PATH_MAX], want[PATH_MAX + 128];
	char *found = NULL;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	cr_assert_gt(n, 0);
	self[n] = '\0';
	*strrchr(self, '/') = '\0';
	snprintf(want, sizeof(want),
		 "%s/cdi-generate: cannot run the generator: No such file or directory", self);
	cr_assert_eq(generator_find(&found, &err), -ENOENT);
	cr_assert_str_eq(cdi_error_message(&err), want);
	cdi_error_reset(&err);
}
