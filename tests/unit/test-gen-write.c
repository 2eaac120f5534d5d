/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Writing the spec and its facts file (generate/output/spec_write.c) into directories others may
 * reach: links and FIFOs at the files' places, insecure files, umask, names that are not files,
 * temp files of killed runs, and --check's verdicts.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/testlib.h"
#include "output/spec_write.h"

#define SPEC                                                                                       \
	"cdiVersion: 0.3.0\nkind: nvidia.com/gpu\ndevices:\n- name: none\n  containerEdits:\n    env:\n    - A=b\n"
#define FACTS "{\"cdikitFacts\": 1}\n"

static struct scratch scratch;
static const char *const tmp = scratch.path;

static void setup(void)
{
	scratch_make(&scratch, "write");
}

static void teardown(void)
{
	scratch_remove(&scratch);
}

TestSuite(write, .init = setup, .fini = teardown, .timeout = 30);

#define path_of(rel) scratch_at(&scratch, rel)

static struct spec_files files(const char *rel, const char *spec)
{
	return (struct spec_files){ .path = path_of(rel),
				    .spec = spec,
				    .spec_len = strlen(spec),
				    .facts = FACTS,
				    .facts_len = strlen(FACTS) };
}

static int write_files(const char *rel, const char *spec, enum spec_write_result *res,
		       struct cdi_error *err)
{
	struct spec_files f = files(rel, spec);

	return spec_files_write(&f, res, err);
}

static bool check(const char *rel, const char *spec, char *reason, size_t size)
{
	struct spec_files f = files(rel, spec);
	struct cdi_error err = { 0 };
	bool fresh = false;

	cr_assert_eq(spec_files_check(&f, NULL, &fresh, reason, size, &err), 0, "%s",
		     cdi_error_message(&err));
	return fresh;
}

static ino_t inode(const char *rel)
{
	struct stat st;

	cr_assert_eq(lstat(path_of(rel), &st), 0, "%s", rel);
	return st.st_ino;
}

Test(write, new_directories_files_and_no_rewrite)
{
	enum spec_write_result res;
	struct stat st;
	char reason[256];
	mode_t old = umask(077);
	ino_t spec_ino, facts_ino;

	cr_assert_not(check("a/b/nvidia.yaml", SPEC, reason, sizeof(reason)));
	cr_assert_str_eq(reason, "it does not exist");
	cr_assert_eq(write_files("a/b/nvidia.yaml", SPEC, &res, NULL), 0);
	umask(old);
	cr_assert_eq(res, SPEC_WRITTEN);
	for (const char *const *d = (const char *const[]){ "a", "a/b", NULL }; *d; d++) {
		cr_assert_eq(stat(path_of(*d), &st), 0);
		cr_assert_eq(st.st_mode & 07777, 0755, "%s: %o whatever the umask", *d,
			     st.st_mode & 07777);
	}
	for (const char *const *f =
		     (const char *const[]){ "a/b/nvidia.yaml", "a/b/nvidia.yaml.cdikit", NULL };
	     *f; f++) {
		cr_assert_eq(stat(path_of(*f), &st), 0);
		cr_assert_eq(st.st_mode & 07777, 0644);
		cr_assert_eq(st.st_uid, geteuid());
	}
	cr_assert(check("a/b/nvidia.yaml", SPEC, reason, sizeof(reason)), "%s", reason);
	spec_ino = inode("a/b/nvidia.yaml");
	facts_ino = inode("a/b/nvidia.yaml.cdikit");
	cr_assert_eq(write_files("a/b/nvidia.yaml", SPEC, &res, NULL), 0);
	cr_assert_eq(res, SPEC_UNCHANGED);
	cr_assert_eq(inode("a/b/nvidia.yaml"), spec_ino, "an unchanged spec is not rewritten");
	cr_assert_eq(inode("a/b/nvidia.yaml.cdikit"), facts_ino);
	cr_assert_eq(write_files("a/b/nvidia.yaml", SPEC "# changed\n", &res, NULL), 0);
	cr_assert_eq(res, SPEC_WRITTEN);
	cr_assert_neq(inode("a/b/nvidia.yaml"), spec_ino, "replaced by a rename");
	cr_assert_eq(inode("a/b/nvidia.yaml.cdikit"), facts_ino, "the facts did not change");
	sh("test \"$(ls -A '%s/a/b' | tr '\\n' ' ')\" = 'nvidia.yaml nvidia.yaml.cdikit '", tmp);
}

/* The content is right but others may write it: replaced, and --check says so. */
Test(write, insecure_file_is_replaced)
{
	enum spec_write_result res;
	char reason[256];
	struct stat st;

	cr_assert_eq(write_files("nvidia.yaml", SPEC, &res, NULL), 0);
	cr_assert_eq(chmod(path_of("nvidia.yaml"), 0666), 0);
	cr_assert_not(check("nvidia.yaml", SPEC, reason, sizeof(reason)));
	cr_assert(strstr(reason, "insecure") && strstr(reason, "mode 0666"), "%s", reason);
	cr_assert_eq(write_files("nvidia.yaml", SPEC, &res, NULL), 0);
	cr_assert_eq(res, SPEC_WRITTEN);
	cr_assert_eq(stat(path_of("nvidia.yaml"), &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0644);
	cr_assert(check("nvidia.yaml", SPEC, reason, sizeof(reason)), "%s", reason);
	if (geteuid() != 0)
		return;
	/* Another owner (root writes it at boot). */
	cr_assert_eq(chown(path_of("nvidia.yaml"), 65534, 65534), 0);
	cr_assert_not(check("nvidia.yaml", SPEC, reason, sizeof(reason)));
	cr_assert(strstr(reason, "owned by uid 65534"), "%s", reason);
	cr_assert_eq(write_files("nvidia.yaml", SPEC, &res, NULL), 0);
	cr_assert_eq(stat(path_of("nvidia.yaml"), &st), 0);
	cr_assert_eq(st.st_uid, 0);
	cr_assert_eq(st.st_gid, 0);
}

/* A link or a FIFO at either place: nothing is written, a line names it, nothing hangs. */
Test(write, links_and_fifos_refused)
{
	static const struct {
		const char *setup;
		const char *named;
		int code;
	} cases[] = {
		{ "ln -s target nvidia.yaml", "nvidia.yaml", -ELOOP },
		{ "ln -s /nonexistent nvidia.yaml", "nvidia.yaml", -ELOOP },
		{ "ln -s target nvidia.yaml.cdikit", "nvidia.yaml.cdikit", -ELOOP },
		{ "mkfifo nvidia.yaml", "nvidia.yaml", -EINVAL },
		{ "mkdir nvidia.yaml", "nvidia.yaml", -EINVAL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cdi_error err = { 0 };
		enum spec_write_result res;

		sh("cd '%s' && rm -rf nvidia.yaml nvidia.yaml.cdikit target && %s", tmp,
		   cases[i].setup);
		cr_assert_eq(write_files("nvidia.yaml", SPEC, &res, &err), cases[i].code, "%s",
			     cases[i].setup);
		cr_assert_str_eq(cdi_problem_file(cdi_error_problem(&err, 0)),
				 path_of(cases[i].named));
		cr_assert(strstr(cdi_error_message(&err),
				 cases[i].code == -ELOOP
					 ? "symbolic link; refusing to write through it"
					 : "not a regular file; refusing to replace it"),
			  "%s", cdi_error_message(&err));
		sh("cd '%s' && test ! -e target && ls -A | grep -c . | grep -qx 1", tmp);
		cdi_error_reset(&err);
	}
}

Test(write, names_that_are_not_files)
{
	static const char *const bad[] = { "newdir/", "newdir/.", "newdir/.." };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cdi_error err = { 0 };
		enum spec_write_result res;

		cr_assert_eq(write_files(bad[i], SPEC, &res, &err), -EISDIR, "%s", bad[i]);
		cr_assert(strstr(cdi_error_message(&err), "names a directory, not a file"));
		cr_assert_neq(access(path_of("newdir"), F_OK), 0, "%s created newdir", bad[i]);
		cdi_error_reset(&err);
	}
}

/* Temp files a killed run left are removed under the lock; others' are not touched. */
Test(write, temp_files_of_killed_runs)
{
	enum spec_write_result res;

	sh("cd '%s' && touch .nvidia.yaml.Ab12Cd.tmp .nvidia.yaml.cdikit.Ab12Cd.tmp .other.yaml.Ab12Cd.tmp .nvidia.yaml.x.tmp",
	   tmp);
	cr_assert_eq(write_files("nvidia.yaml", SPEC, &res, NULL), 0);
	sh("test \"$(ls -A '%s' | tr '\\n' ' ')\" = '.nvidia.yaml.x.tmp .other.yaml.Ab12Cd.tmp nvidia.yaml nvidia.yaml.cdikit '",
	   tmp);
}

Test(write, without_facts)
{
	struct spec_files f = files("nvidia.yaml", SPEC);
	enum spec_write_result res;
	char reason[256];
	bool fresh = false;

	f.facts = NULL;
	cr_assert_eq(spec_files_write(&f, &res, NULL), 0);
	cr_assert_neq(access(path_of("nvidia.yaml.cdikit"), F_OK), 0);
	cr_assert_eq(spec_files_check(&f, NULL, &fresh, reason, sizeof(reason), NULL), 0);
	cr_assert(fresh, "%s", reason);
	/* With facts expected, a spec without them is stale. */
	cr_assert_not(check("nvidia.yaml", SPEC, reason, sizeof(reason)));
	cr_assert(strstr(reason, "nvidia.yaml.cdikit does not exist"), "%s", reason);
}
