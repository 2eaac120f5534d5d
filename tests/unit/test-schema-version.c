/* SPDX-License-Identifier: Apache-2.0 */
/* Spec versions: the table, the minimum version of a spec, ValidateVersion (schema/version.c). */
#include <errno.h>
#include <string.h>

#include <criterion/criterion.h>

#include <cdi/spec.h>

#include "check.h"
#include "rules.h"

static json_t *parse(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, 0, &e);

	cr_assert_not_null(j, "bad test JSON: %s: %s", e.text, text);
	return j;
}

/* The minimum version of a spec written as JSON, and why. */
static void expect_min(const char *text, const char *want, const char *want_why)
{
	json_t *spec = parse(text);
	char why[256];

	cr_expect_str_eq(cdi_minimum_version(spec), want, "%s", text);
	cr_expect_str_eq(cdi_required_version(spec, why, sizeof(why)), want, "%s", text);
	if (want_why)
		cr_expect_str_eq(why, want_why, "%s", text);
	json_decref(spec);
}

/* Reference: pkg/cdi/spec_test.go TestRequiredVersion, every case. */
Test(version, spec_test_required_version)
{
	expect_min("{}", "0.3.0", "");
	/* hostPath set, and hostPath equal to path */
	expect_min(
		"{\"devices\":[{\"name\":\"device0\",\"containerEdits\":{\"deviceNodes\":[{\"path\":\"/dev/foo\",\"hostPath\":\"/dev/bar\"}]}}]}",
		"0.5.0", "devices[0].containerEdits.deviceNodes[0].hostPath");
	expect_min(
		"{\"devices\":[{\"name\":\"device0\",\"containerEdits\":{\"deviceNodes\":[{\"path\":\"/dev/foo\",\"hostPath\":\"/dev/foo\"}]}}]}",
		"0.5.0", NULL);
	expect_min(
		"{\"devices\":[{\"name\":\"device0\",\"containerEdits\":{\"mounts\":[{\"hostPath\":\"/a\",\"containerPath\":\"/a\",\"type\":\"bind\"}]}}]}",
		"0.4.0", "devices[0].containerEdits.mounts[0].type");
	/* annotations + hostPath + mount type: the newest wins */
	expect_min(
		"{\"annotations\":{\"key\":\"value\"},\"devices\":[{\"name\":\"device0\",\"containerEdits\":{\"deviceNodes\":[{\"path\":\"/dev/foo\",\"hostPath\":\"/dev/bar\"}],\"mounts\":[{\"hostPath\":\"/a\",\"containerPath\":\"/a\",\"type\":\"bind\"}]}}]}",
		"0.6.0", "annotations");
	expect_min("{\"devices\":[{\"name\":\"0\"}]}", "0.5.0",
		   "devices[0].name \"0\" starting with a digit");
	expect_min("{\"devices\":[{\"name\":\"device0\"}]}", "0.3.0", "");
	expect_min("{\"annotations\":{\"key\":\"value\"}}", "0.6.0", "annotations");
	expect_min("{\"devices\":[{\"name\":\"device0\",\"annotations\":{\"key\":\"value\"}}]}",
		   "0.6.0", "devices[0].annotations");
	expect_min("{\"kind\":\"vendor.com/class.sub\"}", "0.6.0",
		   "the '.' in class \"class.sub\"");
	expect_min("{\"containerEdits\":{\"intelRdt\":{\"closID\":\"foo\"}}}", "0.7.0",
		   "containerEdits.intelRdt");
	expect_min(
		"{\"devices\":[{\"name\":\"d\",\"containerEdits\":{\"intelRdt\":{\"closID\":\"foo\"}}}]}",
		"0.7.0", "devices[0].containerEdits.intelRdt");
	expect_min("{\"containerEdits\":{\"additionalGids\":[5]}}", "0.7.0",
		   "containerEdits.additionalGids");
	expect_min("{\"devices\":[{\"name\":\"d\",\"containerEdits\":{\"additionalGids\":[5]}}]}",
		   "0.7.0", "devices[0].containerEdits.additionalGids");
	expect_min("{\"containerEdits\":{\"intelRdt\":{\"schemata\":[\"foo\"]}}}", "1.1.0",
		   "containerEdits.intelRdt.schemata");
	expect_min("{\"containerEdits\":{\"intelRdt\":{\"enableMonitoring\":true}}}", "1.1.0",
		   "containerEdits.intelRdt.enableMonitoring");
	expect_min(
		"{\"devices\":[{\"name\":\"d\",\"containerEdits\":{\"intelRdt\":{\"schemata\":[\"foo\"]}}}]}",
		"1.1.0", "devices[0].containerEdits.intelRdt.schemata");
	expect_min(
		"{\"devices\":[{\"name\":\"d\",\"containerEdits\":{\"intelRdt\":{\"enableMonitoring\":true}}}]}",
		"1.1.0", "devices[0].containerEdits.intelRdt.enableMonitoring");
}

/* Reference: specs-go/version_test.go TestMinimumRequiredVersion, every case. */
Test(version, specs_go_minimum_required_version)
{
	expect_min("{}", "0.3.0", "");
	expect_min("{\"containerEdits\":{\"mounts\":[{\"type\":\"bind\"}]}}", "0.4.0",
		   "containerEdits.mounts[0].type");
	expect_min("{\"containerEdits\":{\"deviceNodes\":[{\"hostPath\":\"/host/path\"}]}}",
		   "0.5.0", "containerEdits.deviceNodes[0].hostPath");
	expect_min("{\"devices\":[{\"name\":\"0example\"}]}", "0.5.0", NULL);
	expect_min("{\"annotations\":{\"a\":\"b\"}}", "0.6.0", NULL);
	expect_min("{\"kind\":\"example.com/example.class\"}", "0.6.0", NULL);
	expect_min("{\"containerEdits\":{\"additionalGids\":[1]}}", "0.7.0", NULL);
	/* an empty intelRdt counts */
	expect_min("{\"containerEdits\":{\"intelRdt\":{}}}", "0.7.0", "containerEdits.intelRdt");
	expect_min("{\"containerEdits\":{\"intelRdt\":{\"schemata\":[\"L2:0=ff\"]}}}", "1.1.0",
		   NULL);
	expect_min("{\"containerEdits\":{\"intelRdt\":{\"enableMonitoring\":true}}}", "1.1.0",
		   NULL);
	/* a netDevices entry, even an empty one */
	expect_min("{\"containerEdits\":{\"netDevices\":[{}]}}", "1.1.0",
		   "containerEdits.netDevices");
	expect_min("{\"devices\":[{\"containerEdits\":{\"additionalGids\":[1]}}]}", "0.7.0", NULL);
	expect_min(
		"{\"annotations\":{\"a\":\"b\"},\"containerEdits\":{\"additionalGids\":[1],\"netDevices\":[{\"hostInterfaceName\":\"eth0\",\"name\":\"eth1\"}]}}",
		"1.1.0", "containerEdits.netDevices");
}

/* Edges of the predicates, as the Go code reads them. */
Test(version, predicate_edges)
{
	/* Schemata != nil: an empty list counts; enableMonitoring false does not */
	expect_min("{\"containerEdits\":{\"intelRdt\":{\"schemata\":[]}}}", "1.1.0", NULL);
	expect_min("{\"containerEdits\":{\"intelRdt\":{\"enableMonitoring\":false}}}", "0.7.0",
		   NULL);
	/* len() > 0: empty lists and maps do not count */
	expect_min(
		"{\"annotations\":{},\"containerEdits\":{\"additionalGids\":[],\"netDevices\":[]}}",
		"0.3.0", "");
	expect_min(
		"{\"containerEdits\":{\"deviceNodes\":[{\"hostPath\":\"\"}],\"mounts\":[{\"type\":\"\"}]}}",
		"0.3.0", "");
	/* the class is what follows the first '/', dots in the vendor do not count */
	expect_min("{\"kind\":\"vendor.com/class\"}", "0.3.0", "");
	expect_min("{\"kind\":\"vendor.com\"}", "0.3.0", "");
	expect_min("{\"kind\":\"a/b/c.d\"}", "0.6.0", NULL);
	/* only a digit first (not '_' or '-') */
	expect_min("{\"devices\":[{\"name\":\"_x\"},{\"name\":\"\"}]}", "0.3.0", "");
	/* the reference looks at the spec edits first for 0.7.0 and 1.1.0 ... */
	expect_min(
		"{\"devices\":[{\"containerEdits\":{\"netDevices\":[{}]}}],\"containerEdits\":{\"intelRdt\":{\"schemata\":[]}}}",
		"1.1.0", "containerEdits.intelRdt.schemata");
	/* ... and at the devices first for 0.4.0 and 0.5.0 */
	expect_min(
		"{\"devices\":[{\"containerEdits\":{\"deviceNodes\":[{\"hostPath\":\"/b\"}]}}],\"containerEdits\":{\"deviceNodes\":[{\"hostPath\":\"/a\"}]}}",
		"0.5.0", "devices[0].containerEdits.deviceNodes[0].hostPath");
	/* nodes of the wrong type are absent, nothing crashes */
	expect_min(
		"{\"devices\":\"x\",\"containerEdits\":{\"intelRdt\":[],\"additionalGids\":{},\"deviceNodes\":[1,{\"hostPath\":5}],\"mounts\":[null]},\"kind\":3,\"annotations\":[1]}",
		"0.3.0", "");
	expect_min("[]", "0.3.0", "");
	cr_expect_str_eq(cdi_minimum_version(NULL), "0.3.0");
}

/* Reference: specs-go/version.go validSpecVersions; newVersion strips one leading "v". */
Test(version, known_versions)
{
	static const char *const known[] = {
		"0.1.0", "0.2.0", "0.3.0", "0.4.0", "0.5.0",  "0.6.0",
		"0.7.0", "0.8.0", "1.0.0", "1.1.0", "v1.1.0", "v0.3.0"
	};
	static const char *const unknown[] = { "1.2.0",	 "0.0.0",  "",	      "not-a-version",
					       "1.0",	 "1",	   "vv1.1.0", "V1.1.0",
					       "1.1.0 ", " 1.1.0", "v",	      "1.1.0-rc1" };

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		cr_expect(cdi_version_known(known[i]), "%s", known[i]);
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++)
		cr_expect_not(cdi_version_known(unknown[i]), "%s", unknown[i]);
	cr_expect_not(cdi_version_known(NULL));
	/* the current version (CDI_SPEC_CURRENT_VERSION) is known: TestCurrentVersionIsValid */
	cr_expect(cdi_version_known("1.1.0"));
}

Test(version, compare)
{
	static const char *const order[] = { "0.1.0", "0.2.0", "0.3.0", "0.4.0", "0.5.0",
					     "0.6.0", "0.7.0", "0.8.0", "1.0.0", "1.1.0" };
	size_t n = sizeof(order) / sizeof(order[0]);

	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			int c = cdi_version_compare(order[i], order[j]);

			cr_expect_eq(c, (i > j) - (i < j), "%s vs %s: %d", order[i], order[j], c);
		}
	cr_expect_eq(cdi_version_compare("v1.1.0", "1.1.0"), 0);
	cr_expect_gt(cdi_version_compare("0.1.0", "1.2.0"), 0,
		     "a known version is newer than an unknown one");
	cr_expect_lt(cdi_version_compare("1.2.0", "0.1.0"), 0);
	cr_expect_eq(cdi_version_compare("1.2.0", "x"), 0);
	/* compare is not lexical: 0.10.0 would sort before 0.9.0 as text */
	cr_expect_gt(cdi_version_compare("1.0.0", "0.8.0"), 0);
}

/* A spec that passes every other rule, with the given version and extra top-level JSON. */
static int check_version(const char *version, const char *extra, struct cdi_error *err)
{
	char text[1024];
	json_t *spec;
	int r;

	snprintf(
		text, sizeof(text),
		"{\"cdiVersion\":\"%s\",\"kind\":\"vendor.com/device\",\"devices\":[{\"name\":\"dev1\",\"containerEdits\":{\"env\":[\"FOO=BAR\"]}}]%s}",
		version, extra);
	spec = parse(text);
	r = cdi_spec_check(spec, "v.json", NULL, 0, false, err);
	json_decref(spec);
	return r;
}

/* Reference: specs-go/version_test.go TestValidateVersion, every case, with our messages. */
Test(version, specs_go_validate_version)
{
	static const struct {
		const char *version, *extra, *message;
	} cases[] = {
		{ "1.1.0", "", NULL },
		{ "v1.1.0", "", NULL },
		{ "0.3.0", "", NULL },
		{ "0.1.0", "",
		  "v.json: cdiVersion: the spec version must be at least v0.3.0 (the earliest supported), got 0.1.0" },
		{ "v0.2.0", "",
		  "v.json: cdiVersion: the spec version must be at least v0.3.0 (the earliest supported), got v0.2.0" },
		{ "1.2.0", "", "v.json: cdiVersion: invalid version \"1.2.0\"" },
		{ "not-a-version", "", "v.json: cdiVersion: invalid version \"not-a-version\"" },
		{ "0.6.0", ",\"containerEdits\":{\"additionalGids\":[1]}",
		  "v.json: cdiVersion: the spec version must be at least v0.7.0 (containerEdits.additionalGids needs it), got 0.6.0" },
		{ "0.7.0", ",\"containerEdits\":{\"additionalGids\":[1]}", NULL },
		{ "1.1.0", ",\"containerEdits\":{\"additionalGids\":[1]}", NULL },
		/* spec_test newSpec: "0.0.0"; WriteSpec: "" */
		{ "0.0.0", "", "v.json: cdiVersion: invalid version \"0.0.0\"" },
		{ "", "", "v.json: cdiVersion: invalid version \"\"" },
		/* over-declaring is fine (schema testdata good/spec-example.json declares 0.6.0) */
		{ "1.0.0", "", NULL },
		{ "0.8.0", ",\"annotations\":{\"a\":\"b\"}", NULL },
		/* our hint for a version missing its patch number */
		{ "1.0", "",
		  "v.json: cdiVersion: invalid version \"1.0\" (did you mean \"1.0.0\"?)" },
		{ "v0.5", "",
		  "v.json: cdiVersion: invalid version \"v0.5\" (did you mean \"v0.5.0\"?)" },
		{ "1", "", "v.json: cdiVersion: invalid version \"1\" (did you mean \"1.0.0\"?)" },
		{ "1.1.0.0", "", "v.json: cdiVersion: invalid version \"1.1.0.0\"" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cdi_error err = { 0 };
		int r = check_version(cases[i].version, cases[i].extra, &err);

		if (!cases[i].message) {
			cr_expect_eq(r, 0, "%s: %s", cases[i].version, cdi_error_message(&err));
			cr_expect_eq(cdi_error_count(&err), 0);
		} else {
			cr_expect_eq(r, -EINVAL, "%s", cases[i].version);
			cr_expect_eq(cdi_error_count(&err), 1, "%s: %zu problems", cases[i].version,
				     cdi_error_count(&err));
			cr_expect_str_eq(cdi_error_message(&err), cases[i].message);
		}
		cdi_error_reset(&err);
	}
}

/* The reason names the first feature in the reference's order, with its path. */
Test(version, too_low_names_the_feature)
{
	static const struct {
		const char *version, *extra, *message;
	} cases[] = {
		{ "0.3.0", ",\"annotations\":{\"a\":\"b\"}",
		  "v.json: cdiVersion: the spec version must be at least v0.6.0 (annotations needs it), got 0.3.0" },
		{ "1.0.0",
		  ",\"containerEdits\":{\"netDevices\":[{\"hostInterfaceName\":\"eth0\",\"name\":\"eth1\"}]}",
		  "v.json: cdiVersion: the spec version must be at least v1.1.0 (containerEdits.netDevices needs it), got 1.0.0" },
		{ "0.4.0",
		  ",\"containerEdits\":{\"deviceNodes\":[{\"path\":\"/dev/a\",\"hostPath\":\"/dev/a\"}]}",
		  "v.json: cdiVersion: the spec version must be at least v0.5.0 (containerEdits.deviceNodes[0].hostPath needs it), got 0.4.0" },
		{ "0.3.0",
		  ",\"containerEdits\":{\"mounts\":[{\"hostPath\":\"tmpfs\",\"containerPath\":\"/t\",\"type\":\"tmpfs\"}]}",
		  "v.json: cdiVersion: the spec version must be at least v0.4.0 (containerEdits.mounts[0].type needs it), got 0.3.0" },
		{ "0.6.0", ",\"containerEdits\":{\"intelRdt\":{}}",
		  "v.json: cdiVersion: the spec version must be at least v0.7.0 (containerEdits.intelRdt needs it), got 0.6.0" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cdi_error err = { 0 };

		cr_expect_eq(check_version(cases[i].version, cases[i].extra, &err), -EINVAL);
		cr_expect_eq(cdi_error_count(&err), 1, "%zu: %zu problems", i,
			     cdi_error_count(&err));
		cr_expect_str_eq(cdi_error_message(&err), cases[i].message);
		cdi_error_reset(&err);
	}
}
