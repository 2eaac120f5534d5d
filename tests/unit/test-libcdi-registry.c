/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The registry over spec directories: the reference's cache_test.go vectors (TestNewCache,
 * TestRefreshCache, priorities and conflicts) and its directory walk (spec-dirs.go
 * scanSpecDirs over filepath.Walk), on spec directories laid out in a temp dir.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include <cdi/registry.h>
#include <cdi/spec.h>

static char root[64];

static void setup(void)
{
	snprintf(root, sizeof(root), "/tmp/cdikit-registry.XXXXXX");
	cr_assert_not_null(mkdtemp(root));
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(registry, .init = setup, .fini = teardown);

static const char *at(const char *rel)
{
	static char bufs[8][PATH_MAX];
	static int next;
	char *b = bufs[next++ % 8];

	snprintf(b, PATH_MAX, "%s/%s", root, rel);
	return b;
}

static void mkdir_at(const char *rel)
{
	cr_assert_eq(mkdir(at(rel), 0755), 0, "mkdir %s: %s", rel, strerror(errno));
}

static void write_at(const char *rel, const char *text)
{
	FILE *f = fopen(at(rel), "w");

	cr_assert_not_null(f, "%s: %s", rel, strerror(errno));
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

/* A vendor.com-style spec: kind, then "name:maj:min" device entries. */
static void write_spec(const char *rel, const char *kind, const char *const *devs)
{
	char text[4096];
	size_t n;

	n = snprintf(text, sizeof(text), "cdiVersion: \"0.3.0\"\nkind: \"%s\"\ndevices:\n", kind);
	for (; *devs; devs++) {
		char name[64];
		unsigned maj, min;

		cr_assert_eq(sscanf(*devs, "%63[^:]:%u:%u", name, &maj, &min), 3);
		n += snprintf(
			text + n, sizeof(text) - n,
			"  - name: \"%s\"\n    containerEdits:\n      deviceNodes:\n"
			"        - path: \"/dev/%s-%s\"\n          type: b\n          major: %u\n"
			"          minor: %u\n",
			name, kind, name, maj, min);
	}
	write_at(rel, text);
}

static cdi_registry *open_dirs(const char *const *rels, size_t n)
{
	const char *dirs[8];
	struct cdi_error err = { 0 };
	cdi_registry *reg = NULL;

	for (size_t i = 0; i < n; i++)
		dirs[i] = strdup(at(rels[i]));
	cr_assert_eq(cdi_registry_new(dirs, n, 0, &reg, &err), 0, "%s", cdi_error_message(&err));
	cr_assert_not_null(reg);
	for (size_t i = 0; i < n; i++)
		free((char *)dirs[i]);
	return reg;
}

static void assert_list(const char *const *got, const char *const *want)
{
	size_t i;

	for (i = 0; got[i] && want[i]; i++)
		cr_assert_str_eq(got[i], want[i], "entry %zu", i);
	cr_assert_null(got[i], "extra entry %s", got[i]);
	cr_assert_null(want[i], "missing entry %s", want[i]);
}

/* The directory a device resolved from ("etc" or "run"). */
static const char *origin(const cdi_registry *reg, const char *name)
{
	const json_t *dev = NULL;
	const cdi_spec *spec = cdi_registry_lookup(reg, name, &dev);
	const char *p;

	if (!spec)
		return NULL;
	cr_assert_not_null(dev);
	p = cdi_spec_path(spec) + strlen(root) + 1;
	return strncmp(p, "etc/", 4) == 0 ? "etc" : strncmp(p, "run/", 4) == 0 ? "run" : p;
}

static bool errors_mention(const struct cdi_error *err, const char *needle)
{
	for (size_t i = 0; err && i < cdi_error_count(err); i++)
		if (strstr(cdi_problem_text(cdi_error_problem(err, i)), needle))
			return true;
	return false;
}

/* cache_test TestNewCache: "no spec dirs" */
Test(registry, missing_dirs_are_skipped)
{
	const char *dirs[] = { "etc", "run" };
	cdi_registry *reg = open_dirs(dirs, 2);

	assert_list(cdi_registry_devices(reg), (const char *[]){ NULL });
	assert_list(cdi_registry_vendors(reg), (const char *[]){ NULL });
	cr_assert_eq(cdi_error_count(cdi_registry_errors(reg)), 0);
	cr_assert_eq(cdi_registry_dir_count(reg), 2);
	cr_assert_str_eq(cdi_registry_dir(reg, 1), at("run"));
	cr_assert_null(cdi_registry_dir(reg, 2));
	cdi_registry_free(reg);
}

/* TestNewCache: "one spec file" */
Test(registry, one_spec_file)
{
	const char *dirs[] = { "etc", "run" };
	cdi_registry *reg;

	mkdir_at("etc");
	write_spec("etc/vendor1.yaml", "vendor1.com/device", (const char *[]){ "dev1:10:1", NULL });
	reg = open_dirs(dirs, 2);
	assert_list(cdi_registry_devices(reg), (const char *[]){ "vendor1.com/device=dev1", NULL });
	cr_assert_str_eq(origin(reg, "vendor1.com/device=dev1"), "etc");
	cr_assert_null(cdi_registry_lookup(reg, "vendor1.com/device=dev2", NULL));
	cr_assert_null(cdi_registry_lookup(reg, "dev1", NULL));
	cdi_registry_free(reg);
}

/* TestNewCache: "multiple spec files, override" */
Test(registry, higher_priority_overrides)
{
	const char *dirs[] = { "etc", "run" };
	cdi_registry *reg;

	mkdir_at("etc");
	mkdir_at("run");
	write_spec("etc/vendor1.yaml", "vendor1.com/device",
		   (const char *[]){ "dev1:10:1", "dev2:10:2", NULL });
	write_spec("run/vendor1.yaml", "vendor1.com/device", (const char *[]){ "dev1:10:1", NULL });
	reg = open_dirs(dirs, 2);
	assert_list(cdi_registry_devices(reg),
		    (const char *[]){ "vendor1.com/device=dev1", "vendor1.com/device=dev2", NULL });
	cr_assert_str_eq(origin(reg, "vendor1.com/device=dev1"), "run");
	cr_assert_str_eq(origin(reg, "vendor1.com/device=dev2"), "etc");
	cr_assert_eq(cdi_error_count(cdi_registry_errors(reg)), 0);
	cdi_registry_free(reg);
}

/* TestNewCache: "multiple spec files, conflict" */
Test(registry, same_priority_conflict_on_both_files)
{
	const char *dirs[] = { "etc", "run" };
	const struct cdi_error *e1, *e2;
	cdi_registry *reg;

	mkdir_at("run");
	write_spec("run/vendor1.yaml", "vendor1.com/device",
		   (const char *[]){ "dev1:10:1", "dev2:10:2", NULL });
	write_spec("run/vendor1-other.yaml", "vendor1.com/device",
		   (const char *[]){ "dev1:10:1", NULL });
	reg = open_dirs(dirs, 2);
	assert_list(cdi_registry_devices(reg), (const char *[]){ "vendor1.com/device=dev2", NULL });
	cr_assert_null(cdi_registry_lookup(reg, "vendor1.com/device=dev1", NULL));
	e1 = cdi_registry_file_errors(reg, at("run/vendor1.yaml"));
	e2 = cdi_registry_file_errors(reg, at("run/vendor1-other.yaml"));
	cr_assert_not_null(e1);
	cr_assert_not_null(e2);
	cr_assert(errors_mention(e1, "conflicting device \"vendor1.com/device=dev1\""));
	cr_assert(errors_mention(e2, "conflicting device \"vendor1.com/device=dev1\""));
	/* One conflict, one entry in the scan's list; both specs stay loaded. */
	cr_assert_eq(cdi_error_count(cdi_registry_errors(reg)), 1);
	assert_list(cdi_registry_vendors(reg), (const char *[]){ "vendor1.com", NULL });
	cdi_registry_free(reg);
}

/* TestRefreshCache: a conflicting file appears, then a refresh. */
Test(registry, refresh_picks_up_conflict)
{
	const char *dirs[] = { "etc", "run" };
	struct cdi_error err = { 0 };
	cdi_registry *reg;

	mkdir_at("run");
	write_spec("run/vendor1.yaml", "vendor1.com/device",
		   (const char *[]){ "dev1:10:1", "dev2:10:2", NULL });
	reg = open_dirs(dirs, 2);
	assert_list(cdi_registry_devices(reg),
		    (const char *[]){ "vendor1.com/device=dev1", "vendor1.com/device=dev2", NULL });

	write_spec("run/vendor1-other.yaml", "vendor1.com/device",
		   (const char *[]){ "dev1:10:1", "dev3:10:3", NULL });
	cr_assert_eq(cdi_registry_refresh(reg, &err), 0);
	assert_list(cdi_registry_devices(reg),
		    (const char *[]){ "vendor1.com/device=dev2", "vendor1.com/device=dev3", NULL });
	cr_assert(errors_mention(cdi_registry_file_errors(reg, at("run/vendor1.yaml")),
				 "conflicting"));
	cr_assert(errors_mention(cdi_registry_file_errors(reg, at("run/vendor1-other.yaml")),
				 "conflicting"));

	/* Resolve the conflict and refresh again: the whole registry is rebuilt. */
	cr_assert_eq(unlink(at("run/vendor1-other.yaml")), 0);
	cr_assert_eq(cdi_registry_refresh(reg, &err), 0);
	assert_list(cdi_registry_devices(reg),
		    (const char *[]){ "vendor1.com/device=dev1", "vendor1.com/device=dev2", NULL });
	cr_assert_eq(cdi_error_count(cdi_registry_errors(reg)), 0);
	cr_assert_null(cdi_registry_file_errors(reg, at("run/vendor1.yaml")));
	cdi_registry_free(reg);
}

/* cache.go refresh [quirk]: a conflict at one priority removes the name even when a higher
 * priority directory defines it again. */
Test(registry, conflict_wins_over_later_override)
{
	const char *dirs[] = { "etc", "run" };
	cdi_registry *reg;

	mkdir_at("etc");
	mkdir_at("run");
	write_spec("etc/a.yaml", "vendor1.com/device", (const char *[]){ "dev1:10:1", NULL });
	write_spec("etc/b.yaml", "vendor1.com/device",
		   (const char *[]){ "dev1:10:2", "dev2:1:1", NULL });
	write_spec("run/c.yaml", "vendor1.com/device", (const char *[]){ "dev1:10:3", NULL });
	reg = open_dirs(dirs, 2);
	assert_list(cdi_registry_devices(reg), (const char *[]){ "vendor1.com/device=dev2", NULL });
	cr_assert_null(cdi_registry_lookup(reg, "vendor1.com/device=dev1", NULL));
	cdi_registry_free(reg);
}

Test(registry, conflict_between_higher_priority_files)
{
	const char *dirs[] = { "etc", "run" };
	cdi_registry *reg;

	mkdir_at("etc");
	mkdir_at("run");
	write_spec("etc/a.yaml", "vendor1.com/device", (const char *[]){ "dev1:10:1", NULL });
	write_spec("run/b.yaml", "vendor1.com/device", (const char *[]){ "dev1:10:2", NULL });
	write_spec("run/c.yaml", "vendor1.com/device", (const char *[]){ "dev1:10:3", NULL });
	reg = open_dirs(dirs, 2);
	assert_list(cdi_registry_devices(reg), (const char *[]){ NULL });
	cr_assert(errors_mention(cdi_registry_errors(reg), at("run/b.yaml")));
	cr_assert(errors_mention(cdi_registry_errors(reg), at("run/c.yaml")));
	cr_assert_null(cdi_registry_file_errors(reg, at("etc/a.yaml")));
	cdi_registry_free(reg);
}

Test(registry, three_dirs_in_priority_order)
{
	const char *dirs[] = { "a", "b", "c" };
	cdi_registry *reg;

	mkdir_at("a");
	mkdir_at("b");
	mkdir_at("c");
	write_spec("a/x.yaml", "v.com/c", (const char *[]){ "d1:1:1", "d2:1:2", "d3:1:3", NULL });
	write_spec("b/x.yaml", "v.com/c", (const char *[]){ "d2:2:2", "d3:2:3", NULL });
	write_spec("c/x.yaml", "v.com/c", (const char *[]){ "d3:3:3", NULL });
	reg = open_dirs(dirs, 3);
	cr_assert_str_eq(origin(reg, "v.com/c=d1"), "a/x.yaml");
	cr_assert_str_eq(origin(reg, "v.com/c=d2"), "b/x.yaml");
	cr_assert_str_eq(origin(reg, "v.com/c=d3"), "c/x.yaml");
	cdi_registry_free(reg);
}

Test(registry, invalid_spec_skipped_error_kept)
{
	const char *dirs[] = { "etc" };
	const struct cdi_error *fe;
	cdi_registry *reg;

	mkdir_at("etc");
	write_at("etc/bad.yaml",
		 "cdiVersion: \"0.3.0\"\nkind: \"vendor.com/device\"\nxyzzy: garbled\n");
	write_at("etc/empty.json", "");
	write_spec("etc/good.yaml", "vendor.com/device", (const char *[]){ "ok:1:1", NULL });
	reg = open_dirs(dirs, 1);
	assert_list(cdi_registry_devices(reg), (const char *[]){ "vendor.com/device=ok", NULL });
	fe = cdi_registry_file_errors(reg, at("etc/bad.yaml"));
	cr_assert_not_null(fe);
	cr_assert_geq(cdi_error_count(fe), 1);
	cr_assert(errors_mention(fe, "bad.yaml"));
	cr_assert_not_null(cdi_registry_file_errors(reg, at("etc/empty.json")));
	cr_assert_null(cdi_registry_file_errors(reg, at("etc/good.yaml")));
	cdi_registry_free(reg);
}

Test(registry, only_json_and_yaml_no_recursion)
{
	const char *dirs[] = { "etc" };
	cdi_registry *reg;

	mkdir_at("etc");
	mkdir_at("etc/sub.yaml");
	mkdir_at("etc/subdir");
	write_spec("etc/sub.yaml/inner.yaml", "v.com/c", (const char *[]){ "inner:1:1", NULL });
	write_spec("etc/subdir/inner.yaml", "v.com/c", (const char *[]){ "inner2:1:1", NULL });
	write_spec("etc/x.yml", "v.com/c", (const char *[]){ "yml:1:1", NULL });
	write_spec("etc/x.yaml.bak", "v.com/c", (const char *[]){ "bak:1:1", NULL });
	write_spec("etc/x.JSON", "v.com/c", (const char *[]){ "upper:1:1", NULL });
	write_spec("etc/x.json", "v.com/c",
		   (const char *[]){ "json:1:1", NULL }); /* YAML content */
	write_spec("etc/.hidden.yaml", "v.com/c", (const char *[]){ "hidden:1:1", NULL });
	reg = open_dirs(dirs, 1);
	assert_list(cdi_registry_devices(reg),
		    (const char *[]){ "v.com/c=hidden", "v.com/c=json", NULL });
	cr_assert_eq(cdi_error_count(cdi_registry_errors(reg)), 0);
	cdi_registry_free(reg);
}

Test(registry, scan_order_is_name_order)
{
	/* Within one directory the first file (by name) holds a name; a later one at the same
	 * priority conflicts, so order matters only through conflicts, which name both files in
	 * scan order: the later file first. */
	const char *dirs[] = { "etc" };
	cdi_registry *reg;

	mkdir_at("etc");
	write_spec("etc/b.yaml", "v.com/c", (const char *[]){ "x:1:1", NULL });
	write_spec("etc/a.yaml", "v.com/c", (const char *[]){ "x:1:2", NULL });
	reg = open_dirs(dirs, 1);
	cr_assert_eq(cdi_error_count(cdi_registry_errors(reg)), 1);
	cr_assert_str_eq(cdi_problem_file(cdi_error_problem(cdi_registry_errors(reg), 0)),
			 at("etc/b.yaml"));
	cr_assert(errors_mention(cdi_registry_errors(reg), "(specs \""));
	cdi_registry_free(reg);
}

Test(registry, symlinks)
{
	const char *dirs[] = { "etc" };
	cdi_registry *reg;

	mkdir_at("etc");
	mkdir_at("elsewhere");
	write_spec("elsewhere/real.yaml", "v.com/c", (const char *[]){ "linked:1:1", NULL });
	cr_assert_eq(symlink(at("elsewhere/real.yaml"), at("etc/link.yaml")), 0);
	cr_assert_eq(symlink(at("elsewhere"), at("etc/dirlink.yaml")), 0);
	cr_assert_eq(symlink(at("nowhere.yaml"), at("etc/dangling.json")), 0);
	cr_assert_eq(symlink(at("elsewhere"), at("etc/dirlink-noext")), 0);
	reg = open_dirs(dirs, 1);
	/* A symlink to a file is read (ReadSpec follows it). */
	assert_list(cdi_registry_devices(reg), (const char *[]){ "v.com/c=linked", NULL });
	/* Walk does not treat a symlink to a directory as one: reading it fails. */
	cr_assert(errors_mention(cdi_registry_file_errors(reg, at("etc/dirlink.yaml")),
				 "is a directory"));
	cr_assert(errors_mention(cdi_registry_file_errors(reg, at("etc/dangling.json")),
				 "No such file or directory"));
	cr_assert_null(cdi_registry_file_errors(reg, at("etc/dirlink-noext")));
	cr_assert_eq(cdi_error_count(cdi_registry_errors(reg)), 2);
	cdi_registry_free(reg);
}

Test(registry, symlinked_spec_dir_not_entered)
{
	const char *dirs[] = { "etc" };
	cdi_registry *reg;

	mkdir_at("real");
	write_spec("real/x.yaml", "v.com/c", (const char *[]){ "d:1:1", NULL });
	cr_assert_eq(symlink(at("real"), at("etc")), 0);
	reg = open_dirs(dirs, 1);
	/* filepath.Walk lstat()s its root: the reference never enters it, nor do we. */
	assert_list(cdi_registry_devices(reg), (const char *[]){ NULL });
	cr_assert(errors_mention(cdi_registry_errors(reg), "symlink"));
	cdi_registry_free(reg);
}

Test(registry, fifo_is_not_read)
{
	const char *dirs[] = { "etc" };
	cdi_registry *reg;

	mkdir_at("etc");
	cr_assert_eq(mkfifo(at("etc/pipe.yaml"), 0644), 0);
	write_spec("etc/z.yaml", "v.com/c", (const char *[]){ "d:1:1", NULL });
	/* The reference would block reading it; we report it and go on. */
	reg = open_dirs(dirs, 1);
	assert_list(cdi_registry_devices(reg), (const char *[]){ "v.com/c=d", NULL });
	cr_assert(errors_mention(cdi_registry_file_errors(reg, at("etc/pipe.yaml")),
				 "not a regular file"));
	cdi_registry_free(reg);
}

Test(registry, dir_that_is_a_file)
{
	const char *dirs[] = { "file", "run" };
	cdi_registry *reg;

	write_at("file", "not a directory\n");
	mkdir_at("run");
	write_spec("run/x.yaml", "v.com/c", (const char *[]){ "d:1:1", NULL });
	reg = open_dirs(dirs, 2);
	assert_list(cdi_registry_devices(reg), (const char *[]){ "v.com/c=d", NULL });
	cdi_registry_free(reg);
}

Test(registry, unreadable_dir_recorded_others_scanned)
{
	const char *dirs[] = { "file/sub", "run" };
	cdi_registry *reg;

	/* ENOTDIR on the path: an error other than "missing", recorded against the dir. */
	write_at("file", "x");
	mkdir_at("run");
	write_spec("run/x.yaml", "v.com/c", (const char *[]){ "d:1:1", NULL });
	reg = open_dirs(dirs, 2);
	assert_list(cdi_registry_devices(reg), (const char *[]){ "v.com/c=d", NULL });
	cr_assert(errors_mention(cdi_registry_file_errors(reg, at("file/sub")), "Not a directory"));
	cdi_registry_free(reg);
}

Test(registry, lists_sorted_vendors_classes)
{
	const char *dirs[] = { "etc", "run" };
	cdi_registry *reg;

	mkdir_at("etc");
	mkdir_at("run");
	write_spec("etc/z.yaml", "zeta.com/gpu", (const char *[]){ "b:1:1", "a:1:2", NULL });
	write_spec("etc/a.yaml", "alpha.io/net", (const char *[]){ "x:1:1", NULL });
	write_spec("run/m.yaml", "alpha.io/gpu", (const char *[]){ "a10:1:1", "a9:1:2", NULL });
	reg = open_dirs(dirs, 2);
	assert_list(cdi_registry_devices(reg),
		    (const char *[]){ "alpha.io/gpu=a10", "alpha.io/gpu=a9", "alpha.io/net=x",
				      "zeta.com/gpu=a", "zeta.com/gpu=b", NULL });
	assert_list(cdi_registry_vendors(reg), (const char *[]){ "alpha.io", "zeta.com", NULL });
	assert_list(cdi_registry_classes(reg), (const char *[]){ "gpu", "net", NULL });
	cdi_registry_free(reg);
}

Test(registry, dirs_are_cleaned)
{
	char dir[PATH_MAX + 8];
	const char *dirs[1] = { dir };
	struct cdi_error err = { 0 };
	cdi_registry *reg = NULL;

	mkdir_at("etc");
	write_spec("etc/x.yaml", "v.com/c", (const char *[]){ "d:1:1", "d:1:2", NULL });
	snprintf(dir, sizeof(dir), "%s//etc/./", root);
	cr_assert_eq(cdi_registry_new(dirs, 1, 0, &reg, &err), 0);
	cr_assert_str_eq(cdi_registry_dir(reg, 0), at("etc"));
	/* Paths are built on the clean dir; a caller's unclean path finds them too. */
	snprintf(dir, sizeof(dir), "%s//etc/x.yaml", root);
	cr_assert_not_null(cdi_registry_file_errors(reg, at("etc/x.yaml")));
	cr_assert_not_null(cdi_registry_file_errors(reg, dir));
	cdi_registry_free(reg);
}

Test(registry, defaults_and_bad_arguments)
{
	const char *empty[] = { "" };
	struct cdi_error err = { 0 };
	cdi_registry *reg = NULL;

	cr_assert_eq(cdi_registry_new(NULL, 0, 0, &reg, &err), 0);
	cr_assert_eq(cdi_registry_dir_count(reg), 2);
	cr_assert_str_eq(cdi_registry_dir(reg, 0), "/etc/cdi");
	cr_assert_str_eq(cdi_registry_dir(reg, 1), "/var/run/cdi");
	cdi_registry_free(reg);
	reg = NULL;
	cr_assert_eq(cdi_registry_new(empty, 1, 0, &reg, &err), -EINVAL);
	cr_assert_null(reg);
	cr_assert_eq(cdi_registry_new(NULL, 0, 0, NULL, &err), -EINVAL);
	cdi_error_reset(&err);
	/* NULL-safe accessors. */
	cdi_registry_free(NULL);
	cr_assert_null(cdi_registry_devices(NULL)[0]);
	cr_assert_null(cdi_registry_lookup(NULL, "a/b=c", NULL));
	cr_assert_eq(cdi_registry_dir_count(NULL), 0);
}

Test(registry, strict_flag_reaches_the_loader)
{
	const char *dirs[1];
	struct cdi_error err = { 0 };
	cdi_registry *reg = NULL;

	mkdir_at("etc");
	/* A relative container path: the reference accepts it, strict mode does not. */
	write_at("etc/rel.yaml", "cdiVersion: \"0.3.0\"\nkind: \"v.com/c\"\ndevices:\n  - name: d\n"
				 "    containerEdits:\n      mounts:\n        - hostPath: /h\n"
				 "          containerPath: relative/path\n");
	dirs[0] = strdup(at("etc"));
	cr_assert_eq(cdi_registry_new(dirs, 1, 0, &reg, &err), 0);
	assert_list(cdi_registry_devices(reg), (const char *[]){ "v.com/c=d", NULL });
	cdi_registry_free(reg);
	cr_assert_eq(cdi_registry_new(dirs, 1, CDI_LOAD_STRICT, &reg, &err), 0);
	assert_list(cdi_registry_devices(reg), (const char *[]){ NULL });
	cr_assert_not_null(cdi_registry_file_errors(reg, at("etc/rel.yaml")));
	cdi_registry_free(reg);
	free((char *)dirs[0]);
}

Test(registry, many_devices)
{
	const char *dirs[] = { "etc" };
	char *text = malloc(1 << 20);
	size_t n;
	cdi_registry *reg;
	const char *const *list;

	mkdir_at("etc");
	n = snprintf(text, 1 << 20, "cdiVersion: \"0.5.0\"\nkind: \"v.com/c\"\ndevices:\n");
	for (int i = 0; i < 3000; i++)
		n += snprintf(text + n, (1 << 20) - n,
			      "  - name: \"%d\"\n    containerEdits:\n      env: [\"N=%d\"]\n", i,
			      i);
	write_at("etc/big.yaml", text);
	free(text);
	reg = open_dirs(dirs, 1);
	list = cdi_registry_devices(reg);
	for (n = 0; list[n]; n++)
		if (n > 0)
			cr_assert_lt(strcmp(list[n - 1], list[n]), 0);
	cr_assert_eq(n, 3000);
	cr_assert_not_null(cdi_registry_lookup(reg, "v.com/c=2999", NULL));
	cdi_registry_free(reg);
}

/* A spec with many problems costs one line: its first problem, with the field. */
Test(registry, invalid_spec_keeps_one_line)
{
	const char *dirs[] = { "etc" };
	const struct cdi_error *fe;
	char *text = malloc(1 << 16);
	size_t n;
	cdi_registry *reg;

	mkdir_at("etc");
	n = snprintf(text, 1 << 16, "cdiVersion: \"0.3.0\"\nkind: \"v.com/c\"\ndevices:\n");
	for (int i = 0; i < 200; i++)
		n += snprintf(text + n, (1 << 16) - n,
			      "  - name: \"d%d\"\n    containerEdits:\n      env: [\"=bad\"]\n", i);
	write_at("etc/bad.yaml", text);
	free(text);
	write_spec("etc/good.yaml", "v.com/other", (const char *[]){ "ok:1:1", NULL });
	reg = open_dirs(dirs, 1);
	assert_list(cdi_registry_devices(reg), (const char *[]){ "v.com/other=ok", NULL });
	fe = cdi_registry_file_errors(reg, at("etc/bad.yaml"));
	cr_assert_eq(cdi_error_count(fe), 1);
	cr_assert_str_eq(cdi_problem_field(cdi_error_problem(fe, 0)),
			 "devices[0].containerEdits.env[0]");
	cr_assert_eq(cdi_error_count(cdi_registry_errors(reg)), 1);
	cdi_registry_free(reg);
}

/* The line is the one a full check would put first: decoding (types, unknown fields) comes
 * before the rules, wherever in the file each problem is. The decoding stops at its first
 * problem and the rules are not run: a directory of bad specs costs their parse. */
Test(registry, invalid_spec_line_is_the_first_a_full_check_gives)
{
	const char *dirs[] = { "etc" };
	const struct cdi_error *fe;
	struct cdi_error full = { 0 };
	cdi_spec *spec = NULL;
	cdi_registry *reg;

	mkdir_at("etc");
	write_at("etc/bad.yaml", "cdiVersion: \"0.3.0\"\nkind: \"v.com/c\"\ndevices:\n"
				 "  - name: \"d0\"\n    containerEdits:\n      env: [\"=bad\"]\n"
				 "  - name: \"d1\"\n    containerEdits:\n      bogus: 1\n"
				 "  - name: \"d2\"\n    containerEdits:\n      env: [7]\n");
	reg = open_dirs(dirs, 1);
	fe = cdi_registry_file_errors(reg, at("etc/bad.yaml"));
	cr_assert_eq(cdi_error_count(fe), 1);
	cr_assert_lt(cdi_spec_load_file(at("etc/bad.yaml"), 0, &spec, &full), 0);
	cr_assert_gt(cdi_error_count(&full), 1);
	cr_assert_str_eq(cdi_problem_message(cdi_error_problem(fe, 0)),
			 cdi_problem_message(cdi_error_problem(&full, 0)));
	cr_assert_str_eq(cdi_problem_field(cdi_error_problem(fe, 0)), "devices[1].containerEdits");
	cdi_error_reset(&full);
	cdi_registry_free(reg);
}

/* Two files defining the same devices at one priority: one line for the pair, not one per
 * device, naming a few devices and how many. */
Test(registry, conflicting_files_are_one_line)
{
	const char *dirs[] = { "etc" };
	const struct cdi_error *e;
	cdi_registry *reg;

	mkdir_at("etc");
	write_spec("etc/a.yaml", "v.com/gpu",
		   (const char *[]){ "g0:1:0", "g1:1:1", "g2:1:2", "g3:1:3", "g4:1:4", NULL });
	write_spec("etc/b.yaml", "v.com/gpu",
		   (const char *[]){ "g0:1:0", "g1:1:1", "g2:1:2", "g3:1:3", "g9:1:9", NULL });
	reg = open_dirs(dirs, 1);
	assert_list(cdi_registry_devices(reg),
		    (const char *[]){ "v.com/gpu=g4", "v.com/gpu=g9", NULL });
	e = cdi_registry_errors(reg);
	cr_assert_eq(cdi_error_count(e), 1, "%s", cdi_error_message(e));
	cr_assert(errors_mention(e, "conflicting devices \"v.com/gpu=g0\", \"v.com/gpu=g1\", "
				    "\"v.com/gpu=g2\" and 1 more"),
		  "%s", cdi_error_message(e));
	cr_assert(errors_mention(e, "none of the 4 resolves"));
	cr_assert_eq(cdi_error_count(cdi_registry_file_errors(reg, at("etc/a.yaml"))), 1);
	cdi_registry_free(reg);
}

/* /var/run/cdi over /etc/cdi: the device resolves to the later directory, which says what it
 * overrides. */
Test(registry, overrides_are_known)
{
	const char *dirs[] = { "etc", "run" };
	cdi_registry *reg;

	mkdir_at("etc");
	mkdir_at("run");
	write_spec("etc/x.yaml", "v.com/c", (const char *[]){ "a:1:1", "b:1:2", NULL });
	write_spec("run/x.yaml", "v.com/c", (const char *[]){ "a:1:1", NULL });
	reg = open_dirs(dirs, 2);
	cr_assert_str_eq(origin(reg, "v.com/c=a"), "run");
	cr_assert_str_eq(cdi_spec_path(cdi_registry_overridden(reg, "v.com/c=a")),
			 at("etc/x.yaml"));
	cr_assert_null(cdi_registry_overridden(reg, "v.com/c=b"));
	cr_assert_null(cdi_registry_overridden(reg, "v.com/c=zz"));
	cdi_registry_free(reg);
}

/* A spec others could write is used with a warning, or refused with CDI_LOAD_SECURE; the same
 * for a spec directory. */
Test(registry, specs_others_may_write)
{
	const char *dirs[2];
	struct cdi_error err = CDI_ERROR_INIT;
	const struct cdi_error *w;
	cdi_registry *reg = NULL;

	mkdir_at("etc");
	mkdir_at("open");
	write_spec("etc/safe.yaml", "v.com/c", (const char *[]){ "safe:1:1", NULL });
	write_spec("etc/loose.yaml", "v.com/d", (const char *[]){ "loose:1:1", NULL });
	cr_assert_eq(chmod(at("etc/loose.yaml"), 0666), 0);
	write_spec("open/x.yaml", "v.com/e", (const char *[]){ "x:1:1", NULL });
	cr_assert_eq(chmod(at("open"), 01777), 0);
	dirs[0] = strdup(at("etc"));
	dirs[1] = strdup(at("open"));

	cr_assert_eq(cdi_registry_new(dirs, 2, 0, &reg, &err), 0);
	assert_list(cdi_registry_devices(reg),
		    (const char *[]){ "v.com/c=safe", "v.com/d=loose", "v.com/e=x", NULL });
	w = cdi_registry_warnings(reg);
	cr_assert_eq(cdi_error_count(w), 2);
	cr_assert(errors_mention(w, "loose.yaml: spec is writable by everyone (mode 0666)"), "%s",
		  cdi_error_message(w));
	cr_assert(errors_mention(w, "open: spec directory is writable by everyone (mode 1777)"));
	cr_assert_eq(cdi_error_count(cdi_registry_errors(reg)), 0);
	cdi_registry_free(reg);

	cr_assert_eq(cdi_registry_new(dirs, 2, CDI_LOAD_SECURE, &reg, &err), 0);
	assert_list(cdi_registry_devices(reg), (const char *[]){ "v.com/c=safe", NULL });
	cr_assert_eq(cdi_error_count(cdi_registry_warnings(reg)), 0);
	cr_assert(errors_mention(cdi_registry_file_errors(reg, at("etc/loose.yaml")),
				 "not used (secure specs asked for)"));
	cr_assert_not_null(cdi_registry_file_errors(reg, at("open")));
	cdi_registry_free(reg);
	free((char *)dirs[0]);
	free((char *)dirs[1]);
}

/* Past CDI_REGISTRY_MAX_DIR_SPECS the rest of the directory is skipped with one line; what
 * loaded resolves. (The byte cap is exercised by tests/registry-limits.sh.) */
Test(registry, file_cap, .timeout = 60)
{
	const char *dirs[] = { "etc" };
	const struct cdi_error *e;
	char rel[64];
	cdi_registry *reg;

	mkdir_at("etc");
	for (unsigned i = 0; i <= CDI_REGISTRY_MAX_DIR_SPECS; i++) {
		snprintf(rel, sizeof(rel), "etc/%05u.yaml", i);
		write_at(rel, "x");
	}
	write_spec("etc/00000.yaml", "v.com/c", (const char *[]){ "first:1:1", NULL });
	write_spec("etc/10000.yaml", "v.com/c", (const char *[]){ "last:1:1", NULL });
	reg = open_dirs(dirs, 1);
	assert_list(cdi_registry_devices(reg), (const char *[]){ "v.com/c=first", NULL });
	e = cdi_registry_errors(reg);
	cr_assert(errors_mention(e, "more than 10000 spec files: 10000.yaml and the 0 after it are "
				    "skipped"));
	cr_assert_eq(cdi_error_count(e), CDI_REGISTRY_MAX_DIR_SPECS);
	cdi_registry_free(reg);
}
