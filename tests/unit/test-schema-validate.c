/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The validator (schema/check.c) on trees built with jansson: the reference's test vectors,
 * then malformed input of our own, each message checked exactly. Positions come from marks
 * added by hand here; test-schema-spec.c checks them end to end through the YAML loader.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include <cdi/spec.h>

#include "check.h"
#include "marks.h"

static json_t *parse(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, JSON_DECODE_ANY, &e);

	cr_assert_not_null(j, "bad test JSON: %s: %s", e.text, text);
	return j;
}

/*
 * Check text and compare the problems with the NULL-terminated list of texts, in order.
 * Returns the check's result.
 */
static int expect_problems_v(const char *text, unsigned flags, bool coerce, va_list ap)
{
	struct cdi_error err = { 0 };
	json_t *spec = parse(text);
	const char *want;
	size_t i = 0;
	int r;

	r = cdi_spec_check(spec, "t.json", NULL, flags, coerce, &err);
	while ((want = va_arg(ap, const char *))) {
		cr_expect_lt(i, cdi_error_count(&err), "missing problem %zu: %s\n  in %s", i, want,
			     text);
		if (i < cdi_error_count(&err))
			cr_expect_str_eq(cdi_problem_text(cdi_error_problem(&err, i)), want,
					 "problem %zu of %s", i, text);
		i++;
	}
	for (; i < cdi_error_count(&err); i++)
		cr_expect_fail("unexpected problem: %s\n  in %s",
			       cdi_problem_text(cdi_error_problem(&err, i)), text);
	cr_expect_eq(r, i ? -EINVAL : 0, "%s", text);
	cr_expect_eq(cdi_error_code(&err), i ? -EINVAL : 0, "%s", text);
	cdi_error_reset(&err);
	json_decref(spec);
	return r;
}

/* Loaded from a file: values are coerced as the reference coerces them. */
static int expect(const char *text, ...)
{
	va_list ap;
	int r;

	va_start(ap, text);
	r = expect_problems_v(text, 0, true, ap);
	va_end(ap);
	return r;
}

static int expect_strict(const char *text, ...)
{
	va_list ap;
	int r;

	va_start(ap, text);
	r = expect_problems_v(text, CDI_LOAD_STRICT, true, ap);
	va_end(ap);
	return r;
}

/* Built in memory (cdi_spec_validate_json): nothing is coerced. */
static int expect_exact(const char *text, ...)
{
	va_list ap;
	int r;

	va_start(ap, text);
	r = expect_problems_v(text, 0, false, ap);
	va_end(ap);
	return r;
}

/* A 1.1.0 spec with one device "dev" whose containerEdits is edits. */
static const char *with_edits(const char *edits)
{
	static char buf[8192];

	snprintf(
		buf, sizeof(buf),
		"{\"cdiVersion\":\"1.1.0\",\"kind\":\"vendor.com/device\",\"devices\":[{\"name\":\"dev\",\"containerEdits\":%s}]}",
		edits);
	return buf;
}

#define DEV "t.json: devices[0].containerEdits."

/* Reference: pkg/cdi/container-edits_test.go TestValidateContainerEdits, env. */
Test(validate, container_edits_env)
{
	/* nil edits: the device needs some edit, so only the spec level can be nil */
	expect("{\"cdiVersion\":\"0.3.0\",\"kind\":\"vendor.com/device\",\"devices\":[{\"name\":\"d\",\"containerEdits\":{\"env\":[\"A=B\"]}}]}",
	       NULL);
	expect(with_edits("{\"env\":[\"BAR=BARVALUE1\"]}"), NULL);
	expect(with_edits("{\"env\":[\"\"]}"), DEV "env[0]: \"\" is not NAME=VALUE", NULL);
	expect(with_edits("{\"env\":[\"=foo\"]}"),
	       DEV "env[0]: \"=foo\" is not NAME=VALUE (the name is empty)", NULL);
	expect(with_edits("{\"env\":[\"FOOBAR\"]}"), DEV "env[0]: \"FOOBAR\" is not NAME=VALUE",
	       NULL);
	/* an empty value is fine; only the first '=' counts */
	expect(with_edits("{\"env\":[\"FOO=\",\"A==\",\"B=c=d\"]}"), NULL);
	expect(with_edits("{\"env\":[\"=a=b\"]}"),
	       DEV "env[0]: \"=a=b\" is not NAME=VALUE (the name is empty)", NULL);
	/* every bad entry is reported */
	expect(with_edits("{\"env\":[\"A=1\",\"FOO\",\"B=2\",\"BAR\"]}"),
	       DEV "env[1]: \"FOO\" is not NAME=VALUE", DEV "env[3]: \"BAR\" is not NAME=VALUE",
	       NULL);
}

/* Reference: TestValidateContainerEdits, deviceNodes. */
Test(validate, container_edits_device_nodes)
{
	expect(with_edits("{\"deviceNodes\":[{\"path\":\"/dev/null\"}]}"), NULL);
	expect(with_edits("{\"deviceNodes\":[{\"path\":\"/dev/null\",\"type\":\"c\"}]}"), NULL);
	expect(with_edits(
		       "{\"deviceNodes\":[{\"path\":\"/dev/null\",\"type\":\"b\",\"permissions\":\"rwm\"}]}"),
	       NULL);
	expect(with_edits("{\"deviceNodes\":[{\"path\":\"\"}]}"),
	       DEV "deviceNodes[0].path: must not be empty", NULL);
	expect(with_edits("{\"deviceNodes\":[{\"path\":\"/dev/null\",\"type\":\"f\"}]}"),
	       DEV "deviceNodes[0].type: invalid device node type \"f\" (want b, c, u or p)", NULL);
	expect(with_edits(
		       "{\"deviceNodes\":[{\"path\":\"/dev/null\",\"type\":\"b\",\"permissions\":\"to land\"}]}"),
	       DEV
	       "deviceNodes[0].permissions: invalid permissions \"to land\" (want r, w and m, or \"none\")",
	       NULL);
	expect(with_edits(
		       "{\"deviceNodes\":[{\"path\":\"/dev/null\",\"type\":\"b\",\"permissions\":\"none\"}]}"),
	       NULL);
	/* every type, any mix or repeat of r, w, m; an empty type and permissions */
	expect(with_edits(
		       "{\"deviceNodes\":[{\"path\":\"/a\",\"type\":\"u\",\"permissions\":\"mmr\"},{\"path\":\"/b\",\"type\":\"p\",\"permissions\":\"\"},{\"path\":\"/c\",\"type\":\"\"}]}"),
	       NULL);
	expect(with_edits(
		       "{\"deviceNodes\":[{\"path\":\"/a\",\"type\":\"cc\",\"permissions\":\"RW\"}]}"),
	       DEV "deviceNodes[0].type: invalid device node type \"cc\" (want b, c, u or p)",
	       DEV
	       "deviceNodes[0].permissions: invalid permissions \"RW\" (want r, w and m, or \"none\")",
	       NULL);
	/* missing path: the object is named */
	expect(with_edits("{\"deviceNodes\":[{\"type\":\"c\"}]}"),
	       DEV "deviceNodes[0]: missing required field \"path\"", NULL);
}

/* Reference: TestValidateContainerEdits, mounts. */
Test(validate, container_edits_mounts)
{
	expect(with_edits(
		       "{\"mounts\":[{\"hostPath\":\"/dev/vendorctl\",\"containerPath\":\"/dev/vendorctl\"}]}"),
	       NULL);
	expect(with_edits(
		       "{\"mounts\":[{\"hostPath\":\"\",\"containerPath\":\"/dev/vendorctl\"}]}"),
	       DEV "mounts[0].hostPath: must not be empty", NULL);
	expect(with_edits(
		       "{\"mounts\":[{\"hostPath\":\"/dev/vendorctl\",\"containerPath\":\"\"}]}"),
	       DEV "mounts[0].containerPath: must not be empty", NULL);
	expect(with_edits("{\"mounts\":[{\"containerPath\":\"/x\"}]}"),
	       DEV "mounts[0]: missing required field \"hostPath\"", NULL);
	expect(with_edits("{\"mounts\":[{}]}"),
	       DEV "mounts[0]: missing required field \"hostPath\"",
	       DEV "mounts[0]: missing required field \"containerPath\"", NULL);
}

/* Reference: TestValidateContainerEdits, hooks. */
Test(validate, container_edits_hooks)
{
	expect(with_edits(
		       "{\"hooks\":[{\"hookName\":\"prestart\",\"path\":\"/usr/local/bin/prestart-vendor-hook\",\"args\":[\"--verbose\"],\"env\":[\"VENDOR_ENV1=value1\"]},"
		       "{\"hookName\":\"createRuntime\",\"path\":\"/usr/local/bin/cr-vendor-hook\",\"args\":[\"--debug\"],\"env\":[\"VENDOR_ENV2=value2\"]},"
		       "{\"hookName\":\"createContainer\",\"path\":\"/usr/local/bin/cc-vendor-hook\",\"args\":[\"--create\"],\"env\":[\"VENDOR_ENV3=value3\"]},"
		       "{\"hookName\":\"startContainer\",\"path\":\"/usr/local/bin/sc-vendor-hook\",\"args\":[\"--start\"],\"env\":[\"VENDOR_ENV4=value4\"]},"
		       "{\"hookName\":\"poststart\",\"path\":\"/usr/local/bin/poststart-vendor-hook\",\"env\":[\"VENDOR_ENV5=value5\"]},"
		       "{\"hookName\":\"poststop\",\"path\":\"/usr/local/bin/poststop-vendor-hook\"}]}"),
	       NULL);
	expect(with_edits("{\"hooks\":[{\"hookName\":\"prestart\"}]}"),
	       DEV "hooks[0]: missing required field \"path\"", NULL);
	expect(with_edits("{\"hooks\":[{\"hookName\":\"prestart\",\"path\":\"\"}]}"),
	       DEV "hooks[0].path: must not be empty", NULL);
	expect(with_edits(
		       "{\"hooks\":[{\"hookName\":\"misCreateRuntime\",\"path\":\"/usr/local/bin/cr-vendor-hook\",\"args\":[\"--debug\"],\"env\":[\"VENDOR_ENV2=value2\"]}]}"),
	       DEV
	       "hooks[0].hookName: invalid hook name \"misCreateRuntime\" (want prestart, createRuntime, createContainer, startContainer, poststart or poststop)",
	       NULL);
	expect(with_edits(
		       "{\"hooks\":[{\"hookName\":\"createRuntime\",\"path\":\"/usr/local/bin/cr-vendor-hook\",\"env\":[\"VENDOR_ENV2=value2\",\"=value2\"]}]}"),
	       DEV "hooks[0].env[1]: \"=value2\" is not NAME=VALUE (the name is empty)", NULL);
	/* names are case-sensitive and exact */
	expect(with_edits(
		       "{\"hooks\":[{\"hookName\":\"Prestart\",\"path\":\"/h\"},{\"hookName\":\"prestart \",\"path\":\"/h\"}]}"),
	       DEV
	       "hooks[0].hookName: invalid hook name \"Prestart\" (want prestart, createRuntime, createContainer, startContainer, poststart or poststop)",
	       DEV
	       "hooks[1].hookName: invalid hook name \"prestart \" (want prestart, createRuntime, createContainer, startContainer, poststart or poststop)",
	       NULL);
	/* timeouts and relative paths pass unless strict */
	expect(with_edits(
		       "{\"hooks\":[{\"hookName\":\"poststop\",\"path\":\"rel/hook\",\"timeout\":0},{\"hookName\":\"poststop\",\"path\":\"/h\",\"timeout\":-1}]}"),
	       NULL);
}

/* Reference: TestValidateContainerEdits, intelRdt. */
Test(validate, container_edits_intel_rdt)
{
	expect(with_edits("{\"intelRdt\":{\"closID\":\"foo.bar\"}}"), NULL);
	expect(with_edits("{\"intelRdt\":{\"closID\":\"/\"}}"), NULL);
	expect(with_edits("{\"intelRdt\":{\"closID\":\"\"}}"), NULL);
	expect(with_edits("{\"intelRdt\":{\"closID\":\"foo/bar\"}}"),
	       DEV
	       "intelRdt.closID: invalid closID \"foo/bar\" (contains '/'; only \"/\" alone names the root group)",
	       NULL);
	expect(with_edits("{\"intelRdt\":{\"closID\":\".\"}}"),
	       DEV "intelRdt.closID: invalid closID \".\" (must be a file name)", NULL);
	expect(with_edits("{\"intelRdt\":{\"closID\":\"..\"}}"),
	       DEV "intelRdt.closID: invalid closID \"..\" (must be a file name)", NULL);
	expect(with_edits("{\"intelRdt\":{\"closID\":\"foo\\nbar\"}}"),
	       DEV "intelRdt.closID: invalid closID \"foo\\nbar\" (contains a newline)", NULL);
	{
		char *long_id = malloc(4096 + 64), *text = malloc(8192);

		memset(long_id, 'a', 4096);
		long_id[4096] = '\0';
		snprintf(text, 8192, "{\"intelRdt\":{\"closID\":\"%s\"}}", long_id);
		expect(with_edits(text),
		       DEV "intelRdt.closID: closID is 4096 bytes long (at most 4095)", NULL);
		long_id[4095] = '\0';
		snprintf(text, 8192, "{\"intelRdt\":{\"closID\":\"%s\"}}", long_id);
		expect(with_edits(text), NULL);
		free(long_id);
		free(text);
	}
	/* every 1.1.0 field */
	expect(with_edits(
		       "{\"intelRdt\":{\"closID\":\"clos-1\",\"l3CacheSchema\":\"L3:0=ff;1=ff\",\"memBwSchema\":\"MB:0=50;1=50\",\"schemata\":[\"L2:0=ffff\"],\"enableMonitoring\":true}}"),
	       NULL);
}

/* Reference: TestValidateContainerEdits, netDevices; ValidateNetDevices duplicates. */
Test(validate, container_edits_net_devices)
{
	expect(with_edits(
		       "{\"netDevices\":[{\"hostInterfaceName\":\"eno1\",\"name\":\"netdev0\"}]}"),
	       NULL);
	expect(with_edits("{\"netDevices\":[{\"hostInterfaceName\":\"\",\"name\":\"netdev0\"}]}"),
	       DEV "netDevices[0].hostInterfaceName: must not be empty", NULL);
	expect(with_edits("{\"netDevices\":[{\"hostInterfaceName\":\"eno1\",\"name\":\"\"}]}"),
	       DEV "netDevices[0].name: must not be empty", NULL);
	expect(with_edits(
		       "{\"netDevices\":[{\"hostInterfaceName\":\"eno1\",\"name\":\"a\"},{\"hostInterfaceName\":\"eno2\",\"name\":\"b\"},{\"hostInterfaceName\":\"eno1\",\"name\":\"b\"}]}"),
	       DEV
	       "netDevices[2].hostInterfaceName: duplicate hostInterfaceName \"eno1\" (first at devices[0].containerEdits.netDevices[0].hostInterfaceName)",
	       DEV
	       "netDevices[2].name: duplicate name \"b\" (first at devices[0].containerEdits.netDevices[1].name)",
	       NULL);
	expect(with_edits("{\"netDevices\":[{\"name\":\"a\"}]}"),
	       DEV "netDevices[0]: missing required field \"hostInterfaceName\"", NULL);
	/* the same names in two edits blocks are not duplicates for the reference */
	expect("{\"cdiVersion\":\"1.1.0\",\"kind\":\"v.com/c\",\"containerEdits\":{\"netDevices\":[{\"hostInterfaceName\":\"eno1\",\"name\":\"a\"}]},\"devices\":[{\"name\":\"d\",\"containerEdits\":{\"netDevices\":[{\"hostInterfaceName\":\"eno1\",\"name\":\"a\"}]}}]}",
	       NULL);
}

/* Reference: pkg/cdi/device_test.go. */
Test(validate, device_test)
{
	expect("{\"cdiVersion\":\"0.3.0\",\"kind\":\"vendor.com/device\",\"devices\":[{\"name\":\"dev\",\"containerEdits\":{\"env\":[\"FOO=BAR\"]}}]}",
	       NULL);
	expect("{\"cdiVersion\":\"0.3.0\",\"kind\":\"vendor.com/device\",\"devices\":[{\"name\":\"dev\",\"containerEdits\":{\"env\":[\"=BAR\"]}}]}",
	       DEV "env[0]: \"=BAR\" is not NAME=VALUE (the name is empty)", NULL);
	expect("{\"cdiVersion\":\"0.3.0\",\"kind\":\"vendor.com/device\",\"devices\":[{\"name\":\"a dev ice\",\"containerEdits\":{\"env\":[\"FOO=BAR\"]}}]}",
	       "t.json: devices[0].name: invalid device name \"a dev ice\": may only contain letters, digits, '_', '-', '.' and ':' (found ' ')",
	       NULL);
}

#define BASE "\"cdiVersion\":\"0.3.0\",\"kind\":\"vendor.com/device\""
#define DEV1 "{\"name\":\"dev1\",\"containerEdits\":{\"env\":[\"FOO=BAR\"]}}"

/* Reference: pkg/cdi/spec_test.go TestNewSpec and TestReadSpec (after parsing). */
Test(validate, spec_test_new_spec)
{
	expect("{" BASE ",\"devices\":[" DEV1 "]}", NULL);
	/* no version */
	expect("{\"kind\":\"vendor.com/device\",\"devices\":[" DEV1 "]}",
	       "t.json: missing required field \"cdiVersion\"", NULL);
	expect("{\"cdiVersion\":\"0.0.0\",\"kind\":\"vendor.com/device\",\"devices\":[" DEV1 "]}",
	       "t.json: cdiVersion: invalid version \"0.0.0\"", NULL);
	/* no kind */
	expect("{\"cdiVersion\":\"0.3.0\",\"devices\":[" DEV1 "]}",
	       "t.json: missing required field \"kind\"", NULL);
	expect("{\"cdiVersion\":\"0.3.0\",\"kind\":\"vendor.com-/device\",\"devices\":[" DEV1 "]}",
	       "t.json: kind: invalid vendor \"vendor.com-\": must end with a letter or digit",
	       NULL);
	expect("{\"cdiVersion\":\"0.3.0\",\"kind\":\"vendor.com/device=\",\"devices\":[" DEV1 "]}",
	       "t.json: kind: invalid class \"device=\": must end with a letter or digit", NULL);
	/* dev1 without containerEdits */
	expect("{" BASE ",\"devices\":[{\"name\":\"dev1\"}]}",
	       "t.json: devices[0].containerEdits: device \"dev1\" has no container edits", NULL);
	/* dev1, dev2, dev1 */
	expect("{" BASE ",\"devices\":[" DEV1
	       ",{\"name\":\"dev2\",\"containerEdits\":{\"env\":[\"BAR=FOO\"]}}," DEV1 "]}",
	       "t.json: devices[2].name: duplicate device name \"dev1\" (first at devices[0].name)",
	       NULL);
	expect("{" BASE ",\"devices\":[" DEV1
	       ",{\"name\":\"dev2\",\"containerEdits\":{\"env\":[\"BAR=FOO\"]}},{\"name\":\"dev3\",\"containerEdits\":{\"env\":[\"SPACE=BAR\"]}}]}",
	       NULL);
	/* TestReadSpec: a garbled document parses but is all wrong */
	expect("{\"xyzzy\":\"garbled\"}", "t.json: unknown field \"xyzzy\"",
	       "t.json: missing required field \"cdiVersion\"",
	       "t.json: missing required field \"kind\"",
	       "t.json: missing required field \"devices\"", NULL);
}

/* Reference: spec_test TestWriteSpec, the invalid specs (written specs are validated too). */
Test(validate, spec_test_write_spec)
{
	expect("{\"cdiVersion\":\"\",\"kind\":\"vendor.com/device\",\"devices\":[" DEV1 "]}",
	       "t.json: cdiVersion: invalid version \"\"", NULL);
	expect("{" BASE ",\"containerEdits\":{\"env\":[\"FOO=BAR\"]},\"devices\":[]}",
	       "t.json: devices: no devices", NULL);
	/* the v0.4.0 getters spec: a tmpfs mount with a type and options */
	expect("{\"cdiVersion\":\"0.4.0\",\"kind\":\"vendor.com/device\",\"devices\":[{\"name\":\"dev1\",\"containerEdits\":{\"env\":[\"FOO=BAR\"],\"mounts\":[{\"hostPath\":\"tmpfs\",\"containerPath\":\"/usr/local/container\",\"type\":\"tmpfs\",\"options\":[\"ro\",\"mode=755\",\"size=65536k\"]}]}}]}",
	       NULL);
}

/* Reference: schema/testdata good/minimal.json, good/spec-example.json, bad/explicit-empty.json. */
Test(validate, schema_testdata)
{
	expect("{\"cdiVersion\":\"0.3.0\",\"kind\":\"vendor.com/device\",\"devices\":[{\"name\":\"myDevice\",\"containerEdits\":{\"deviceNodes\":[{\"path\":\"/dev/card1\"}]}}]}",
	       NULL);
	expect("{\"cdiVersion\":\"0.6.0\",\"kind\":\"vendor.com/device\",\"devices\":[{\"name\":\"myDevice\",\"containerEdits\":{\"deviceNodes\":[{\"hostPath\":\"/vendorroot/dev/card1\",\"path\":\"/dev/card1\"},{\"path\":\"/dev/card2\"}]}}],"
	       "\"containerEdits\":{\"env\":[\"FOO=CDI_SPEC\",\"BAR=BARVALUE1\"],\"deviceNodes\":[{\"path\":\"/dev/vendorctl\",\"uid\":1000,\"gid\":1000}],"
	       "\"mounts\":[{\"hostPath\":\"/bin/vendorBin\",\"containerPath\":\"/bin/vendorBin\"},{\"hostPath\":\"/usr/lib/libVendor.so.0\",\"containerPath\":\"/usr/lib/libVendor.so.0\"}],"
	       "\"hooks\":[{\"hookName\":\"createContainer\",\"path\":\"/bin/vendor-hook\"},{\"hookName\":\"startContainer\",\"path\":\"/usr/bin/ldconfig\"}]}}",
	       NULL);
	expect("{}", "t.json: missing required field \"cdiVersion\"",
	       "t.json: missing required field \"kind\"",
	       "t.json: missing required field \"devices\"", NULL);
}

/* Reference: cdi-semantics.md §2, kind = ParseQualifier then the vendor and class rules. */
Test(validate, kinds)
{
	static const char *const cases[][2] = {
		{ "vendor.com", "invalid kind \"vendor.com\" (want vendor/class)" },
		{ "", "invalid kind \"\" (want vendor/class)" },
		{ "/device", "invalid kind \"/device\" (want vendor/class)" },
		{ "vendor.com/", "invalid kind \"vendor.com/\" (want vendor/class)" },
		{ "vendor.com/a/b",
		  "invalid class \"a/b\": may only contain letters, digits, '_', '-' and '.' (found '/')" },
		{ "1vendor.com/device",
		  "invalid vendor \"1vendor.com\": must start with a letter" },
		{ "vendor.com/_device", "invalid class \"_device\": must start with a letter" },
	};
	char text[512], want[512];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text),
			 "{\"cdiVersion\":\"0.6.0\",\"kind\":\"%s\",\"devices\":[" DEV1 "]}",
			 cases[i][0]);
		snprintf(want, sizeof(want), "t.json: kind: %s", cases[i][1]);
		expect(text, want, NULL);
	}
	/* vendor and class both wrong: both reported */
	expect("{\"cdiVersion\":\"0.6.0\",\"kind\":\"_v/c_\",\"devices\":[" DEV1 "]}",
	       "t.json: kind: invalid vendor \"_v\": must start with a letter",
	       "t.json: kind: invalid class \"c_\": must end with a letter or digit", NULL);
	expect("{\"cdiVersion\":\"0.6.0\",\"kind\":\"a/b\",\"devices\":[" DEV1 "]}", NULL);
	expect("{\"cdiVersion\":\"0.6.0\",\"kind\":\"vendor.com/class.sub\",\"devices\":[" DEV1
	       "]}",
	       NULL);
	/* a class with a dot needs 0.6.0 */
	expect("{\"cdiVersion\":\"0.5.0\",\"kind\":\"vendor.com/class.sub\",\"devices\":[" DEV1
	       "]}",
	       "t.json: cdiVersion: the spec version must be at least v0.6.0 (the '.' in class \"class.sub\" needs it), got 0.5.0",
	       NULL);
}

/* isEmpty: what counts as an edit (reference container-edits.go). */
Test(validate, empty_device_edits)
{
	static const char *const empty[] = { "{}", "{\"env\":[]}",
					     "{\"deviceNodes\":[],\"mounts\":[],\"hooks\":[]}",
					     "{\"additionalGids\":[],\"netDevices\":[]}" };
	static const char *const not_empty[] = {
		"{\"intelRdt\":{}}", "{\"additionalGids\":[0]}",
		"{\"netDevices\":[{\"hostInterfaceName\":\"a\",\"name\":\"b\"}]}"
	};

	for (size_t i = 0; i < sizeof(empty) / sizeof(empty[0]); i++)
		expect(with_edits(empty[i]),
		       "t.json: devices[0].containerEdits: device \"dev\" has no container edits",
		       NULL);
	for (size_t i = 0; i < sizeof(not_empty) / sizeof(not_empty[0]); i++)
		expect(with_edits(not_empty[i]), NULL);
	/* spec-level edits do not count for a device (reference; issue #250) */
	expect("{" BASE
	       ",\"containerEdits\":{\"env\":[\"A=B\"]},\"devices\":[{\"name\":\"d\",\"containerEdits\":{}}]}",
	       "t.json: devices[0].containerEdits: device \"d\" has no container edits", NULL);
	/* a device with no name at all */
	expect("{" BASE ",\"devices\":[{}]}", "t.json: devices[0]: missing required field \"name\"",
	       "t.json: devices[0].containerEdits: the device has no container edits", NULL);
	/* an empty spec-level edits block is fine */
	expect("{" BASE ",\"containerEdits\":{},\"devices\":[" DEV1 "]}", NULL);
}

Test(validate, unknown_fields)
{
	expect("{" BASE ",\"devices\":[" DEV1 "],\"extra\":1}", "t.json: unknown field \"extra\"",
	       NULL);
	expect("{" BASE
	       ",\"devices\":[{\"name\":\"d\",\"alias\":\"x\",\"containerEdits\":{\"env\":[\"A=B\"],\"devicenodes\":[]}}]}",
	       "t.json: devices[0]: unknown field \"alias\"",
	       "t.json: devices[0].containerEdits: unknown field \"devicenodes\" (did you mean \"deviceNodes\"?)",
	       NULL);
	/* Go matches keys case-insensitively; we do not, but say what was meant */
	expect("{\"CDIVersion\":\"0.3.0\",\"Kind\":\"vendor.com/device\",\"devices\":[" DEV1 "]}",
	       "t.json: unknown field \"CDIVersion\" (did you mean \"cdiVersion\"?)",
	       "t.json: unknown field \"Kind\" (did you mean \"kind\"?)",
	       "t.json: missing required field \"cdiVersion\"",
	       "t.json: missing required field \"kind\"", NULL);
	/* a misspelt edit is reported once, not also as "no container edits" */
	expect("{" BASE
	       ",\"devices\":[{\"name\":\"dev1\",\"containerEdits\":{\"DeviceNodes\":[{\"Path\":\"/dev/null\"}]}}]}",
	       "t.json: devices[0].containerEdits: unknown field \"DeviceNodes\" (did you mean \"deviceNodes\"?)",
	       NULL);
	/* fields removed in 1.1.0 */
	expect(with_edits("{\"intelRdt\":{\"enableCMT\":true}}"),
	       DEV "intelRdt: unknown field \"enableCMT\"", NULL);
	/* odd keys are quoted */
	expect("{" BASE ",\"devices\":[" DEV1 "],\"a\\nb\\u0001c\":1}",
	       "t.json: unknown field \"a\\nb\\x01c\"", NULL);
	/* unknown fields inside unknown fields are not looked at */
	expect("{" BASE ",\"devices\":[" DEV1 "],\"x\":{\"cdiVersion\":5}}",
	       "t.json: unknown field \"x\"", NULL);
}

Test(validate, wrong_types)
{
	expect_exact("{\"cdiVersion\":1,\"kind\":[],\"devices\":{},\"containerEdits\":\"x\"}",
		     "t.json: cdiVersion: expected a string, got a number",
		     "t.json: kind: expected a string, got an array",
		     "t.json: devices: expected an array, got an object",
		     "t.json: containerEdits: expected an object, got the string \"x\"", NULL);
	/* never a string into a number or a boolean, as in Go */
	expect(with_edits(
		       "{\"deviceNodes\":[{\"path\":\"/a\",\"major\":\"7\",\"uid\":true}],\"intelRdt\":{\"enableMonitoring\":\"yes\"}}"),
	       DEV "deviceNodes[0].major: expected an integer, got the string \"7\"",
	       DEV "deviceNodes[0].uid: expected an integer, got a boolean",
	       DEV "intelRdt.enableMonitoring: expected a boolean, got the string \"yes\"", NULL);
	expect(with_edits("{\"env\":\"FOO=bar\"}"),
	       DEV "env: expected an array, got the string \"FOO=bar\"", NULL);
	expect(with_edits("{\"env\":[[\"A=B\"]],\"deviceNodes\":[\"/dev/null\"]}"),
	       DEV "env[0]: expected a string, got an array",
	       DEV "deviceNodes[0]: expected an object, got the string \"/dev/null\"", NULL);
	expect("{\"cdiVersion\":\"0.6.0\",\"kind\":\"v.com/c\",\"annotations\":{\"a\":{}},\"devices\":[" DEV1
	       "]}",
	       "t.json: annotations[\"a\"]: expected a string, got an object", NULL);
	expect("[]", "t.json: expected an object, got an array", NULL);
	expect("\"spec\"", "t.json: expected an object, got a string", NULL);
	expect("{" BASE ",\"devices\":[" DEV1 ", 5]}",
	       "t.json: devices[1]: expected an object, got a number", NULL);
}

Test(validate, number_ranges)
{
	expect(with_edits(
		       "{\"deviceNodes\":[{\"path\":\"/a\",\"major\":-1,\"minor\":9223372036854775807,\"uid\":4294967295,\"gid\":0,\"fileMode\":438}],\"additionalGids\":[0,4294967295]}"),
	       NULL);
	expect(with_edits(
		       "{\"deviceNodes\":[{\"path\":\"/a\",\"uid\":-1,\"gid\":4294967296,\"fileMode\":-438}],\"additionalGids\":[5,-5],\"hooks\":[{\"hookName\":\"poststop\",\"path\":\"/h\",\"timeout\":9223372036854775807}]}"),
	       DEV "deviceNodes[0].uid: -1 is out of range for a uint32 (0 to 4294967295)",
	       DEV "deviceNodes[0].gid: 4294967296 is out of range for a uint32 (0 to 4294967295)",
	       DEV "deviceNodes[0].fileMode: -438 is out of range for a uint32 (0 to 4294967295)",
	       DEV "additionalGids[1]: -5 is out of range for a uint32 (0 to 4294967295)", NULL);
	/* reals: a whole number decodes (Go marshals 7.0 as 7), a fraction does not */
	expect(with_edits(
		       "{\"deviceNodes\":[{\"path\":\"/a\",\"major\":7.0,\"minor\":1e3,\"uid\":1.5}]}"),
	       DEV "deviceNodes[0].uid: expected an integer, got 1.5", NULL);
	expect(with_edits("{\"deviceNodes\":[{\"path\":\"/a\",\"major\":1e30,\"gid\":-1.0}]}"),
	       DEV "deviceNodes[0].major: 1e+30 is out of range for an int64",
	       DEV "deviceNodes[0].gid: -1 is out of range for a uint32 (0 to 4294967295)", NULL);
	/* built in memory: a real is not an integer */
	expect_exact(with_edits("{\"deviceNodes\":[{\"path\":\"/a\",\"major\":7.0}]}"),
		     DEV "deviceNodes[0].major: expected an integer, got 7", NULL);
}

/* Coercion as the reference's YAML-to-JSON step does it, and issue 2: an unquoted number
 * where a string belongs never passes. */
Test(validate, coerced_scalars)
{
	json_t *spec;
	struct cdi_error err = { 0 };

	expect("{\"cdiVersion\":1.0,\"kind\":\"vendor.com/device\",\"devices\":[" DEV1 "]}",
	       "t.json: cdiVersion: invalid version \"1\" (an unquoted 1.0 reads as the number 1; write \"1.0.0\")",
	       NULL);
	expect("{\"cdiVersion\":0.3,\"kind\":\"vendor.com/device\",\"devices\":[" DEV1 "]}",
	       "t.json: cdiVersion: invalid version \"0.3\" (an unquoted 0.3 reads as the number 0.3; write \"0.3.0\")",
	       NULL);
	expect("{\"cdiVersion\":1,\"kind\":\"vendor.com/device\",\"devices\":[" DEV1 "]}",
	       "t.json: cdiVersion: invalid version \"1\" (an unquoted 1 is a number; write \"1.0.0\")",
	       NULL);
	/* Go formats the float as a float32: 1.10 -> "1.1" */
	expect("{\"cdiVersion\":1.10,\"kind\":\"vendor.com/device\",\"devices\":[" DEV1 "]}",
	       "t.json: cdiVersion: invalid version \"1.1\" (an unquoted 1.1 reads as the number 1.1; write \"1.1.0\")",
	       NULL);
	expect("{\"cdiVersion\":2.5,\"kind\":\"vendor.com/device\",\"devices\":[" DEV1 "]}",
	       "t.json: cdiVersion: invalid version \"2.5\" (an unquoted 2.5 reads as the number 2.5; write \"2.5\")",
	       NULL);
	expect("{\"cdiVersion\":true,\"kind\":\"vendor.com/device\",\"devices\":[" DEV1 "]}",
	       "t.json: cdiVersion: invalid version \"true\"", NULL);
	/* Under strict a converted value is an error even when it would be valid; by default the
	 * reference's conversion stands: name 0 is the device "0" (sigs.k8s.io/yaml). */
	expect("{\"cdiVersion\":\"0.5.0\",\"kind\":\"vendor.com/device\",\"devices\":[{\"name\":0,\"containerEdits\":{\"env\":[\"A=B\"]}}]}",
	       NULL);
	expect_strict(
		"{\"cdiVersion\":\"0.5.0\",\"kind\":\"vendor.com/device\",\"devices\":[{\"name\":0,\"containerEdits\":{\"env\":[\"A=B\"]}}]}",
		"t.json: devices[0].name: expected a string, got the number 0 (write \"0\" in quotes)",
		NULL);
	/* the converted value is what the minimum version sees ("0" starts with a digit) */
	expect("{\"cdiVersion\":\"0.3.0\",\"kind\":\"vendor.com/device\",\"devices\":[{\"name\":7,\"containerEdits\":{\"env\":[\"A=B\"]}}]}",
	       "t.json: cdiVersion: the spec version must be at least v0.5.0 (devices[0].name \"7\" starting with a digit needs it), got 0.3.0",
	       NULL);
	expect_strict(
		"{\"cdiVersion\":\"0.3.0\",\"kind\":\"vendor.com/device\",\"devices\":[{\"name\":7,\"containerEdits\":{\"env\":[\"A=B\"]}}]}",
		"t.json: devices[0].name: expected a string, got the number 7 (write \"7\" in quotes)",
		"t.json: cdiVersion: the spec version must be at least v0.5.0 (devices[0].name \"7\" starting with a digit needs it), got 0.3.0",
		NULL);
	/* and what the rules see: two "true" devices are duplicates */
	expect_strict(
		"{\"cdiVersion\":\"0.3.0\",\"kind\":\"vendor.com/device\",\"devices\":[{\"name\":true,\"containerEdits\":{\"env\":[\"A=B\"]}},{\"name\":true,\"containerEdits\":{\"env\":[1.5]}}]}",
		"t.json: devices[0].name: expected a string, got the boolean true (write \"true\" in quotes)",
		"t.json: devices[1].name: expected a string, got the boolean true (write \"true\" in quotes)",
		"t.json: devices[1].containerEdits.env[0]: expected a string, got the number 1.5 (write \"1.5\" in quotes)",
		"t.json: devices[1].containerEdits.env[0]: \"1.5\" is not NAME=VALUE",
		"t.json: devices[1].name: duplicate device name \"true\" (first at devices[0].name)",
		NULL);
	expect_strict(
		"{" BASE ",\"annotations\":{\"n\":12},\"devices\":[" DEV1 "]}",
		"t.json: annotations[\"n\"]: expected a string, got the number 12 (write \"12\" in quotes)",
		"t.json: cdiVersion: the spec version must be at least v0.6.0 (annotations needs it), got 0.3.0",
		NULL);

	/* the tree holds what the reference would hold */
	spec = parse(
		"{\"cdiVersion\":1.0,\"kind\":\"v.com/c\",\"devices\":[{\"name\":false,\"containerEdits\":{\"env\":[12,1e21,0.1]}}]}");
	cdi_spec_check(spec, "t.json", NULL, 0, true, &err);
	cr_expect_str_eq(json_string_value(json_object_get(spec, "cdiVersion")), "1");
	{
		json_t *dev = json_array_get(json_object_get(spec, "devices"), 0);
		json_t *env = json_object_get(json_object_get(dev, "containerEdits"), "env");

		cr_expect_str_eq(json_string_value(json_object_get(dev, "name")), "false");
		cr_expect_str_eq(json_string_value(json_array_get(env, 0)), "12");
		cr_expect_str_eq(json_string_value(json_array_get(env, 1)), "1e+21");
		cr_expect_str_eq(json_string_value(json_array_get(env, 2)), "0.1");
	}
	cdi_error_reset(&err);
	json_decref(spec);

	/* not coerced when built in memory */
	expect_exact(
		"{\"cdiVersion\":\"0.3.0\",\"kind\":\"vendor.com/device\",\"devices\":[{\"name\":0,\"containerEdits\":{\"env\":[\"A=B\"]}}]}",
		"t.json: devices[0].name: expected a string, got a number", NULL);
}

/* Go's strconv.FormatFloat(v, 'g', -1, 32), as the YAML-to-JSON step formats floats. */
Test(validate, float32_formatting)
{
	static const char *const cases[][2] = {
		{ "1.0", "1" },
		{ "0.5", "0.5" },
		{ "100000.0", "100000" },
		{ "1000000.0", "1e+06" },
		{ "1234567.0", "1.234567e+06" },
		{ "0.0001", "0.0001" },
		{ "0.00001", "1e-05" },
		{ "-2.5", "-2.5" },
		{ "3.14159265358979", "3.1415927" },
		{ "0.1", "0.1" },
		{ "16777217.0", "1.6777216e+07" },
		{ "1e-40", "1e-40" },
		{ "-0.0", "-0" },
		{ "1e39", "+Inf" },
		{ "123456.7", "123456.7" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[256];
		json_t *spec;
		struct cdi_error err = { 0 };

		snprintf(text, sizeof(text), "{\"annotations\":{\"a\":%s}}", cases[i][0]);
		spec = parse(text);
		cdi_spec_check(spec, "t.json", NULL, 0, true, &err);
		cr_expect_str_eq(json_string_value(json_object_get(
					 json_object_get(spec, "annotations"), "a")),
				 cases[i][1], "%s", cases[i][0]);
		cdi_error_reset(&err);
		json_decref(spec);
	}
}

/* null is absent (members), or Go's zero value (array elements, map values). */
Test(validate, nulls)
{
	json_t *spec;
	struct cdi_error err = { 0 };

	expect("{" BASE
	       ",\"containerEdits\":{\"env\":null,\"mounts\":null},\"annotations\":null,\"devices\":[{\"name\":\"dev1\",\"containerEdits\":{\"env\":[\"FOO=BAR\"],\"hooks\":null,\"deviceNodes\":[{\"path\":\"/dev/null\",\"type\":null,\"fileMode\":null}]}}]}",
	       NULL);
	/* a null required field is missing */
	expect("{\"cdiVersion\":null,\"kind\":\"vendor.com/device\",\"devices\":[" DEV1 "]}",
	       "t.json: missing required field \"cdiVersion\"", NULL);
	/* containerEdits: null is a device without edits */
	expect("{" BASE ",\"devices\":[{\"name\":\"d\",\"containerEdits\":null}]}",
	       "t.json: devices[0].containerEdits: device \"d\" has no container edits", NULL);
	/* a null element: "" for strings (then "" is not NAME=VALUE), 0 for integers, an
	 * error for objects (the reference rejects a nil device node) */
	expect(with_edits(
		       "{\"env\":[null],\"hooks\":[{\"hookName\":\"poststop\",\"path\":\"/h\",\"args\":[null]}],\"additionalGids\":[null],\"deviceNodes\":[null]}"),
	       DEV "deviceNodes[0]: expected an object, got null",
	       DEV "env[0]: \"\" is not NAME=VALUE", NULL);
	spec = parse(with_edits("{\"additionalGids\":[null],\"env\":[\"A=B\"]}"));
	cr_expect_eq(cdi_spec_check(spec, "t.json", NULL, 0, true, &err), 0);
	cr_expect(json_is_integer(json_array_get(
		json_object_get(json_object_get(json_array_get(json_object_get(spec, "devices"), 0),
						"containerEdits"),
				"additionalGids"),
		0)));
	cdi_error_reset(&err);
	json_decref(spec);
	/* not when built in memory */
	expect_exact(with_edits("{\"env\":[\"A=B\"],\"intelRdt\":null}"),
		     DEV "intelRdt: expected an object, got null", NULL);
}

Test(validate, no_devices)
{
	expect("{" BASE ",\"devices\":[]}", "t.json: devices: no devices", NULL);
	expect("{" BASE "}", "t.json: missing required field \"devices\"", NULL);
	expect("{" BASE ",\"devices\":null}", "t.json: missing required field \"devices\"", NULL);
}

/* Every problem of a spec, in the reference's order after the decoding problems. */
Test(validate, every_problem)
{
	expect("{\"cdiVersion\":\"0.2.0\",\"kind\":\"nvidia.com/gpu\",\"bogus\":1,"
	       "\"containerEdits\":{\"env\":[\"X\"],\"mounts\":[{\"hostPath\":\"\",\"containerPath\":\"/c\",\"type\":\"bind\"}]},"
	       "\"devices\":[{\"name\":\"gpu0\",\"containerEdits\":{\"env\":[\"FOO\"],\"deviceNodes\":[{\"path\":\"/dev/nvidia0\",\"type\":\"f\"}]}},"
	       "{\"name\":\"gpu0\",\"containerEdits\":{}},{\"name\":\"-x\",\"containerEdits\":{\"hooks\":[{\"hookName\":\"start\",\"path\":\"/h\"}]}}]}",
	       "t.json: unknown field \"bogus\"",
	       "t.json: cdiVersion: the spec version must be at least v0.4.0 (containerEdits.mounts[0].type needs it), got 0.2.0",
	       "t.json: containerEdits.env[0]: \"X\" is not NAME=VALUE",
	       "t.json: containerEdits.mounts[0].hostPath: must not be empty",
	       "t.json: devices[0].containerEdits.env[0]: \"FOO\" is not NAME=VALUE",
	       "t.json: devices[0].containerEdits.deviceNodes[0].type: invalid device node type \"f\" (want b, c, u or p)",
	       "t.json: devices[1].containerEdits: device \"gpu0\" has no container edits",
	       "t.json: devices[1].name: duplicate device name \"gpu0\" (first at devices[0].name)",
	       "t.json: devices[2].name: invalid device name \"-x\": must start with a letter or digit",
	       "t.json: devices[2].containerEdits.hooks[0].hookName: invalid hook name \"start\" (want prestart, createRuntime, createContainer, startContainer, poststart or poststop)",
	       NULL);
}

/* Beyond 1000 problems, the rest are counted. */
Test(validate, problem_cap)
{
	size_t n = 1500, len = 0;
	char *edits = malloc(n * 8 + 64);
	struct cdi_error err = { 0 };
	json_t *spec;

	len += (size_t)sprintf(edits, "{\"env\":[");
	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(edits + len, "%s\"X\"", i ? "," : "");
	sprintf(edits + len, "]}");
	spec = parse(with_edits(edits));
	cr_expect_eq(cdi_spec_check(spec, "t.json", NULL, 0, true, &err), -EINVAL);
	cr_expect_eq(cdi_error_count(&err), 1001);
	cr_expect_str_eq(cdi_problem_text(cdi_error_problem(&err, 1000)),
			 "t.json: 500 more problems not shown");
	cdi_error_reset(&err);
	json_decref(spec);
	free(edits);
}

/* SPEC.md rules the reference does not check: only with CDI_LOAD_STRICT. */
Test(validate, strict)
{
	const char *spec = with_edits(
		"{\"deviceNodes\":[{\"path\":\"dev/null\",\"hostPath\":\"host/null\",\"major\":-1,\"minor\":-2,\"fileMode\":33206},{\"path\":\"/dev/ok\",\"hostPath\":\"/dev/ok\",\"major\":0,\"fileMode\":4095}],"
		"\"mounts\":[{\"hostPath\":\"lib\",\"containerPath\":\"lib\",\"options\":[\"ro\",\"rbind\"]},{\"hostPath\":\"tmpfs\",\"containerPath\":\"/tmp\",\"type\":\"tmpfs\"},{\"hostPath\":\"x\",\"containerPath\":\"/x\",\"type\":\"bind\"},{\"hostPath\":\"none\",\"containerPath\":\"/n\"}],"
		"\"hooks\":[{\"hookName\":\"poststop\",\"path\":\"hook\",\"timeout\":0},{\"hookName\":\"poststop\",\"path\":\"/hook\",\"timeout\":-5},{\"hookName\":\"poststop\",\"path\":\"/hook\",\"timeout\":1}],"
		"\"netDevices\":[{\"hostInterfaceName\":\"eth0\",\"name\":\"a/b\"},{\"hostInterfaceName\":\"averyveryverylongname\",\"name\":\"..\"},{\"hostInterfaceName\":\"x y\",\"name\":\"ok0\"},{\"hostInterfaceName\":\"eth1:1\",\"name\":\"fifteen-chars-x\"}]}");

	expect(spec, NULL);
	expect_strict(
		spec, DEV "deviceNodes[0].path: \"dev/null\" is not an absolute path",
		DEV "deviceNodes[0].hostPath: \"host/null\" is not an absolute path",
		DEV "deviceNodes[0].major: negative device number -1",
		DEV "deviceNodes[0].minor: negative device number -2",
		DEV "deviceNodes[0].fileMode: fileMode 0100666 has bits beyond 07777",
		DEV "hooks[0].path: \"hook\" is not an absolute path",
		DEV "hooks[0].timeout: timeout 0 is not positive",
		DEV "hooks[1].timeout: timeout -5 is not positive",
		DEV "mounts[0].hostPath: \"lib\" is not an absolute path",
		DEV "mounts[0].containerPath: \"lib\" is not an absolute path",
		DEV "mounts[2].hostPath: \"x\" is not an absolute path",
		DEV
		"netDevices[0].name: invalid network interface name \"a/b\" (1 to 15 bytes, no '/', ':' or whitespace, not \".\" or \"..\")",
		DEV
		"netDevices[1].hostInterfaceName: invalid network interface name \"averyveryverylongname\" (1 to 15 bytes, no '/', ':' or whitespace, not \".\" or \"..\")",
		DEV
		"netDevices[1].name: invalid network interface name \"..\" (1 to 15 bytes, no '/', ':' or whitespace, not \".\" or \"..\")",
		DEV
		"netDevices[2].hostInterfaceName: invalid network interface name \"x y\" (1 to 15 bytes, no '/', ':' or whitespace, not \".\" or \"..\")",
		DEV
		"netDevices[3].hostInterfaceName: invalid network interface name \"eth1:1\" (1 to 15 bytes, no '/', ':' or whitespace, not \".\" or \"..\")",
		NULL);
}

/* Strict: the annotation rule the reference means (k8s ValidateAnnotations). */
Test(validate, strict_annotations)
{
	const char *spec =
		"{\"cdiVersion\":\"0.6.0\",\"kind\":\"vendor.com/device\","
		"\"annotations\":{\"ok\":\"1\",\"vendor.com/ok-key_1.x\":\"2\",\"Upper.Case/Key\":\"3\",\"a/b/c\":\"4\",\"/x\":\"5\",\"-bad.com/x\":\"6\",\"x/\":\"7\",\"bad key\":\"8\",\"x_\":\"9\"},"
		"\"devices\":[{\"name\":\"d\",\"annotations\":{\"..\":\"a\"},\"containerEdits\":{\"env\":[\"A=B\"]}}]}";

	expect(spec, NULL);
	expect_strict(
		spec,
		"t.json: annotations: invalid annotation key \"a/b/c\": a qualified name has at most one '/'",
		"t.json: annotations: invalid annotation key \"/x\": the prefix before '/' must not be empty",
		"t.json: annotations: invalid annotation key \"-bad.com/x\": the prefix must be a DNS subdomain (lowercase letters, digits, '-' and '.', each label starting and ending with a letter or digit)",
		"t.json: annotations: invalid annotation key \"x/\": the name must not be empty",
		"t.json: annotations: invalid annotation key \"bad key\": the name must consist of letters, digits, '-', '_' or '.', and start and end with a letter or digit",
		"t.json: annotations: invalid annotation key \"x_\": the name must consist of letters, digits, '-', '_' or '.', and start and end with a letter or digit",
		"t.json: devices[0].annotations: invalid annotation key \"..\": the name must consist of letters, digits, '-', '_' or '.', and start and end with a letter or digit",
		NULL);
}

/* Positions: the node's own mark; a missing field's parent; true/false/null (shared
 * singletons in jansson) their parent's; a coerced node the mark of the node it replaced. */
Test(validate, marks)
{
	json_t *spec = parse(
		"{\"cdiVersion\":1.0,\"kind\":\"vendor.com/device\",\"devices\":[{\"containerEdits\":{\"env\":[\"FOO\",7],\"intelRdt\":{\"enableMonitoring\":\"x\",\"closID\":\".\"},\"deviceNodes\":[{\"path\":\"/a\",\"uid\":true}]}},{\"name\":\"x\",\"containerEdits\":{\"env\":[\"A=B\"]}},{\"name\":\"x\",\"containerEdits\":{\"env\":[\"A=B\"]}}]}");
	struct cdi_marks *marks = cdi_marks_new(true);
	json_t *devs = json_object_get(spec, "devices");
	json_t *dev0 = json_array_get(devs, 0), *edits = json_object_get(dev0, "containerEdits");
	json_t *env = json_object_get(edits, "env"), *rdt = json_object_get(edits, "intelRdt");
	json_t *node = json_array_get(json_object_get(edits, "deviceNodes"), 0);
	struct cdi_error err = { 0 };
	static const char *const want[] = {
		"f.yaml:7:13: devices[0].containerEdits.env[1]: expected a string, got the number 7 (write \"7\" in quotes)",
		"f.yaml:9:9: devices[0].containerEdits.intelRdt.enableMonitoring: expected a boolean, got the string \"x\"",
		"f.yaml:13:11: devices[0].containerEdits.deviceNodes[0].uid: expected an integer, got a boolean",
		"f.yaml:4:7: devices[0]: missing required field \"name\"",
		"f.yaml:1:13: cdiVersion: invalid version \"1\" (an unquoted 1.0 reads as the number 1; write \"1.0.0\")",
		"f.yaml:6:9: devices[0].containerEdits.env[0]: \"FOO\" is not NAME=VALUE",
		"f.yaml:7:13: devices[0].containerEdits.env[1]: \"7\" is not NAME=VALUE",
		"f.yaml:10:17: devices[0].containerEdits.intelRdt.closID: invalid closID \".\" (must be a file name)",
		"f.yaml:20:11: devices[2].name: duplicate device name \"x\" (first at line 16)",
	};

	cdi_marks_add(marks, spec, 1, 1);
	cdi_marks_add(marks, json_object_get(spec, "cdiVersion"), 1, 13);
	cdi_marks_add(marks, devs, 3, 3);
	cdi_marks_add(marks, dev0, 4, 7);
	cdi_marks_add(marks, edits, 5, 7);
	cdi_marks_add(marks, env, 6, 7);
	cdi_marks_add(marks, json_array_get(env, 0), 6, 9);
	cdi_marks_add(marks, json_array_get(env, 1), 7, 13);
	cdi_marks_add(marks, rdt, 9, 9);
	cdi_marks_add(marks, json_object_get(rdt, "enableMonitoring"), 9, 9);
	cdi_marks_add(marks, json_object_get(rdt, "closID"), 10, 17);
	cdi_marks_add(marks, json_object_get(edits, "deviceNodes"), 11, 9);
	cdi_marks_add(marks, node, 13, 11);
	/* a boolean is a singleton: this mark must not be used for it */
	cdi_marks_add(marks, json_object_get(node, "uid"), 99, 99);
	cdi_marks_add(marks, json_object_get(json_array_get(devs, 1), "name"), 16, 11);
	cdi_marks_add(marks, json_object_get(json_array_get(devs, 2), "name"), 20, 11);

	cr_expect_eq(cdi_spec_check(spec, "f.yaml", marks, CDI_LOAD_STRICT, true, &err), -EINVAL);
	cr_expect_eq(cdi_error_count(&err), sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < cdi_error_count(&err) && i < sizeof(want) / sizeof(want[0]); i++) {
		cr_expect_str_eq(cdi_problem_text(cdi_error_problem(&err, i)), want[i]);
		cr_expect_str_eq(cdi_problem_file(cdi_error_problem(&err, i)), "f.yaml");
	}
	cr_expect_eq(cdi_problem_line(cdi_error_problem(&err, 3)), 4);
	cr_expect_eq(cdi_problem_column(cdi_error_problem(&err, 3)), 7);
	cr_expect_str_eq(cdi_problem_field(cdi_error_problem(&err, 3)), "devices[0]");
	cr_expect_str_eq(cdi_problem_message(cdi_error_problem(&err, 3)),
			 "missing required field \"name\"");
	/* the coerced node carries the old mark */
	{
		unsigned line = 0, col = 0;

		cr_expect(cdi_marks_find(marks, json_object_get(spec, "cdiVersion"), &line, &col));
		cr_expect_eq(line, 1);
		cr_expect_eq(col, 13);
		cr_expect(json_is_string(json_object_get(spec, "cdiVersion")));
	}
	cdi_error_reset(&err);
	cdi_marks_free(marks);
	json_decref(spec);
}

Test(validate, root_problems)
{
	struct cdi_error err = { 0 };

	cr_expect_eq(cdi_spec_check(NULL, "t.json", NULL, 0, true, &err), -EINVAL);
	cr_expect_str_eq(cdi_error_message(&err), "t.json: no spec data (empty document)");
	cdi_error_reset(&err);
	/* a NULL error report is fine */
	cr_expect_eq(cdi_spec_check(NULL, NULL, NULL, 0, true, NULL), -EINVAL);
}

/* cdi_spec_validate_json: the public entry for trees built in memory. */
Test(validate, validate_json)
{
	json_t *spec = parse(
		"{\"cdiVersion\":\"0.3.0\",\"kind\":\"vendor.com/device\",\"devices\":[{\"name\":\"d\",\"containerEdits\":{\"env\":[\"A=B\",5]}}]}");
	json_t *copy = json_deep_copy(spec);
	struct cdi_error err = { 0 };

	cr_expect_eq(cdi_spec_validate_json(spec, "gen", 0, &err), -EINVAL);
	cr_expect_eq(cdi_error_count(&err), 1);
	cr_expect_str_eq(cdi_error_message(&err),
			 "gen: devices[0].containerEdits.env[1]: expected a string, got a number");
	cr_expect(json_equal(spec, copy), "validate_json must not change the tree");
	cdi_error_reset(&err);
	json_array_remove(
		json_object_get(json_object_get(json_array_get(json_object_get(spec, "devices"), 0),
						"containerEdits"),
				"env"),
		1);
	cr_expect_eq(cdi_spec_validate_json(spec, "gen", CDI_LOAD_STRICT, &err), 0);
	cr_expect_eq(cdi_error_count(&err), 0);
	json_decref(spec);
	json_decref(copy);
}

/* A device node type is one of "", b, c, u, p: a lone NUL byte (only a tree built in memory
 * can hold one) is none of them, as Go's switch on the string says. */
Test(validate, node_type_nul_byte)
{
	json_t *spec = parse(with_edits("{\"deviceNodes\":[{\"path\":\"/dev/x\"}]}"));
	json_t *node = json_array_get(
		json_object_get(json_object_get(json_array_get(json_object_get(spec, "devices"), 0),
						"containerEdits"),
				"deviceNodes"),
		0);
	struct cdi_error err = { 0 };

	cr_assert_eq(json_object_set_new(node, "type", json_stringn("\0", 1)), 0);
	cr_expect_eq(cdi_spec_validate_json(spec, "gen", 0, &err), -EINVAL);
	cr_expect_eq(cdi_error_count(&err), 1);
	cr_expect_str_eq(
		cdi_error_message(&err),
		"gen: devices[0].containerEdits.deviceNodes[0].type: invalid device node type \"\\x00\" (want b, c, u or p)");
	cdi_error_reset(&err);
	json_decref(spec);
}
