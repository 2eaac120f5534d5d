/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CDI annotations: the reference's pkg/cdi/annotations_test.go (TestAnnotationKey,
 * TestUpdateAnnotations, TestParseAnnotation) and what ParseAnnotations promises.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include <cdi/annotations.h>

static void key_ok(const char *plugin, const char *dev, const char *want)
{
	struct cdi_error err = { 0 };
	char *key = NULL;

	cr_assert_eq(cdi_annotation_key(plugin, dev, &key, &err), 0, "(%s, %s): %s", plugin, dev,
		     cdi_error_message(&err));
	cr_assert_str_eq(key, want);
	free(key);
}

static void key_bad(const char *plugin, const char *dev, const char *msg)
{
	struct cdi_error err = { 0 };
	char *key = NULL;

	cr_assert_eq(cdi_annotation_key(plugin, dev, &key, &err), -EINVAL, "(%s, %s) accepted",
		     plugin, dev);
	cr_assert_null(key);
	cr_assert_not_null(strstr(cdi_error_message(&err), msg), "\"%s\" lacks \"%s\"",
			   cdi_error_message(&err), msg);
	cdi_error_reset(&err);
}

/* TestAnnotationKey */
Test(annotation_key, invalid)
{
	key_bad("", "device", "invalid plugin name, empty");
	key_bad("plugin", "", "invalid deviceID, empty");
	key_bad("_vendor.class", "device", "first '_' should be alphanumeric");
	key_bad("vendor.class", "device_", "last '_' should be alphanumeric");
	key_bad("ven.dor-cl+ass", "device", "invalid character '+'");
	key_bad("vendor.class", "dev+ice", "invalid character '+'");
	key_bad("123456789012345678901234567890123456789012345678901234567", "device", "too long");
}

Test(annotation_key, valid)
{
	key_ok("vendor.class", "device", "cdi.k8s.io/vendor.class_device");
	key_ok("v-e.n_d.or.cl-as_s", "d_e-v-i-c_e", "cdi.k8s.io/v-e.n_d.or.cl-as_s_d_e-v-i-c_e");
	key_ok("v-e.n_d.or.cl-as_s", "d-e/v/i/c-e", "cdi.k8s.io/v-e.n_d.or.cl-as_s_d-e_v_i_c-e");
	/* 63 characters is the limit, inclusive. */
	key_ok("12345678901234567890123456789012345678901234567890123456", "device",
	       "cdi.k8s.io/12345678901234567890123456789012345678901234567890123456_device");
	key_ok("a", "b", "cdi.k8s.io/a_b");
}

static json_t *parse_back(const json_t *ann, size_t want_n)
{
	struct cdi_error err = { 0 };
	char **devs = NULL;
	size_t n = 99;
	json_t *list = json_array();

	cr_assert_eq(cdi_annotations_parse(ann, &devs, &n, &err), 0, "%s", cdi_error_message(&err));
	cr_assert_eq(n, want_n);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(list, json_string(devs[i]));
	cr_assert_null(devs[n]);
	cdi_strv_free(devs);
	return list;
}

/* TestUpdateAnnotations: "one plugin, one device" and "one plugin, multiple devices" */
Test(annotations_update, single_and_multiple)
{
	json_t *ann = json_object(), *back;
	struct cdi_error err = { 0 };

	cr_assert_eq(cdi_annotations_update(ann, "vendor.class", "device",
					    (const char *[]){ "vendor.com/class=device" }, 1, &err),
		     0);
	cr_assert_str_eq(json_string_value(json_object_get(ann, "cdi.k8s.io/vendor.class_device")),
			 "vendor.com/class=device");
	json_decref(ann);

	ann = json_object();
	cr_assert_eq(cdi_annotations_update(ann, "vendor.class", "device",
					    (const char *[]){ "vendor.com/class=device1",
							      "vendor.com/class=device2",
							      "vendor.com/class=device3" },
					    3, &err),
		     0);
	cr_assert_str_eq(
		json_string_value(json_object_get(ann, "cdi.k8s.io/vendor.class_device")),
		"vendor.com/class=device1,vendor.com/class=device2,vendor.com/class=device3");
	back = parse_back(ann, 3);
	cr_assert_str_eq(json_string_value(json_array_get(back, 2)), "vendor.com/class=device3");
	json_decref(back);
	json_decref(ann);
}

/* TestUpdateAnnotations: "multiple plugins, multiple devices" */
Test(annotations_update, multiple_plugins)
{
	json_t *ann = json_object(), *back;
	struct cdi_error err = { 0 };

	cr_assert_eq(cdi_annotations_update(ann, "vendor1.class", "device1",
					    (const char *[]){ "vendor1.com/class=device1" }, 1,
					    &err),
		     0);
	cr_assert_eq(cdi_annotations_update(ann, "vendor1.class", "device2",
					    (const char *[]){ "vendor2.com/class=device1",
							      "vendor2.com/class=device2" },
					    2, &err),
		     0);
	cr_assert_eq(cdi_annotations_update(ann, "vendor3.class2", "device",
					    (const char *[]){ "vendor3.com/class2=device1",
							      "vendor3.com/class2=device2",
							      "vendor3.com/class2=device3" },
					    3, &err),
		     0);
	cr_assert_eq(json_object_size(ann), 3);
	cr_assert_not_null(json_object_get(ann, "cdi.k8s.io/vendor1.class_device1"));
	cr_assert_not_null(json_object_get(ann, "cdi.k8s.io/vendor1.class_device2"));
	cr_assert_not_null(json_object_get(ann, "cdi.k8s.io/vendor3.class2_device"));
	back = parse_back(ann, 6);
	/* Keys in byte order: vendor1.class_device1, vendor1.class_device2, vendor3.class2_device
	 */
	cr_assert_str_eq(json_string_value(json_array_get(back, 0)), "vendor1.com/class=device1");
	cr_assert_str_eq(json_string_value(json_array_get(back, 1)), "vendor2.com/class=device1");
	cr_assert_str_eq(json_string_value(json_array_get(back, 5)), "vendor3.com/class2=device3");
	json_decref(back);
	json_decref(ann);
	cdi_error_reset(&err);
}

static void update_bad(json_t *ann, const char *plugin, const char *dev, const char *const *devs,
		       size_t n, const char *msg)
{
	struct cdi_error err = { 0 };
	char *before = json_dumps(ann, JSON_COMPACT | JSON_SORT_KEYS), *after;

	cr_assert_lt(cdi_annotations_update(ann, plugin, dev, devs, n, &err), 0);
	cr_assert_not_null(strstr(cdi_error_message(&err), msg), "\"%s\" lacks \"%s\"",
			   cdi_error_message(&err), msg);
	after = json_dumps(ann, JSON_COMPACT | JSON_SORT_KEYS);
	cr_assert_str_eq(after, before, "annotations changed on error");
	free(before);
	free(after);
	cdi_error_reset(&err);
}

/* TestUpdateAnnotations: the error cases */
Test(annotations_update, errors_leave_map_unchanged)
{
	json_t *ann = json_object();
	struct cdi_error err = { 0 };

	cr_assert_eq(cdi_annotations_update(ann, "vendor1.class", "device1",
					    (const char *[]){ "vendor1.com/class=device1" }, 1,
					    &err),
		     0);
	update_bad(ann, "", "device", (const char *[]){ "vendor3.com/class2=device1" }, 1,
		   "CDI annotation failed: invalid plugin name, empty");
	update_bad(ann, "vendor2.class", "device", (const char *[]){ "vendor2.com/device2" }, 1,
		   "CDI annotation failed: unqualified device \"vendor2.com/device2\"");
	update_bad(ann, "vendor2.class", "device",
		   (const char *[]){ "vendor2.com/class=ok", "/dev/null" }, 2,
		   "CDI annotation failed: unqualified device \"/dev/null\"");
	json_object_set_new(ann, "cdi.k8s.io/vendor3.class2_device",
			    json_string("vendor3.com/class2=device1"));
	update_bad(ann, "vendor3.class2", "device",
		   (const char *[]){ "vendor3.com/class2=device2" }, 1,
		   "CDI annotation failed, key \"cdi.k8s.io/vendor3.class2_device\" used");
	cr_assert_eq(cdi_annotations_update(NULL, "a", "b", NULL, 0, &err), -EINVAL);
	cdi_error_reset(&err);
	json_decref(ann);
}

Test(annotations_update, empty_device_list_gives_empty_value)
{
	/* AnnotationValue of no devices is "" (which ParseAnnotations then rejects, as in Go). */
	json_t *ann = json_object();
	struct cdi_error err = { 0 };
	char **devs = NULL;

	cr_assert_eq(cdi_annotations_update(ann, "p", "d", NULL, 0, &err), 0);
	cr_assert_str_eq(json_string_value(json_object_get(ann, "cdi.k8s.io/p_d")), "");
	cr_assert_eq(cdi_annotations_parse(ann, &devs, NULL, &err), -EINVAL);
	cr_assert_not_null(strstr(cdi_error_message(&err), "invalid CDI device name \"\""));
	cdi_error_reset(&err);
	json_decref(ann);
}

/* TestParseAnnotation */
Test(annotations_parse, valid_unions)
{
	json_t *ann = json_pack("{s:s,s:s,s:s,s:s}", "cdi.k8s.io/vendor3.class2_device",
				"vendor3.com/class2=device1,vendor3.com/class2=device2",
				"cdi.k8s.io/vendor1.class_device", "vendor1.com/class=device1",
				"other.io/ignored", "not,even,names",
				"cdi.k8s.io/vendor2.class_device", "vendor2.com/class=device1");
	json_t *back = parse_back(ann, 4);

	cr_assert_str_eq(json_string_value(json_array_get(back, 0)), "vendor1.com/class=device1");
	cr_assert_str_eq(json_string_value(json_array_get(back, 1)), "vendor2.com/class=device1");
	cr_assert_str_eq(json_string_value(json_array_get(back, 2)), "vendor3.com/class2=device1");
	cr_assert_str_eq(json_string_value(json_array_get(back, 3)), "vendor3.com/class2=device2");
	json_decref(back);
	json_decref(ann);
}

static void parse_bad(const char *key, const char *value, const char *msg)
{
	json_t *ann = json_pack("{s:s,s:s}", "cdi.k8s.io/vendor1.class_device",
				"vendor1.com/class=device1", key, value);
	struct cdi_error err = { 0 };
	char **devs = (char **)0x1;
	size_t n = 77;

	cr_assert_eq(cdi_annotations_parse(ann, &devs, &n, &err), -EINVAL);
	cr_assert_eq(devs, (char **)0x1, "output written on error");
	cr_assert_eq(n, 77);
	cr_assert_not_null(strstr(cdi_error_message(&err), msg), "\"%s\" lacks \"%s\"",
			   cdi_error_message(&err), msg);
	cdi_error_reset(&err);
	json_decref(ann);
}

Test(annotations_parse, invalid)
{
	parse_bad("cdi.k8s.io/vendor3.class_device", "vendor3.com=device3",
		  "invalid CDI device name \"vendor3.com=device3\"");
	parse_bad("cdi.k8s.io/vendor3.class_device", "/dev/null",
		  "invalid CDI device name \"/dev/null\"");
	parse_bad("cdi.k8s.io/x", "vendor.com/class=a,", "invalid CDI device name \"\"");
	parse_bad("cdi.k8s.io/x", "", "invalid CDI device name \"\"");
	parse_bad("cdi.k8s.io/devices", "foobar", "invalid CDI device name \"foobar\"");
	parse_bad("cdi.k8s.io/x", "_v.com/c=d", "invalid CDI device name");
}

Test(annotations_parse, non_string_value_and_bad_container)
{
	json_t *ann = json_pack("{s:i}", "cdi.k8s.io/x", 3), *arr = json_array();
	struct cdi_error err = { 0 };
	char **devs = NULL;

	cr_assert_eq(cdi_annotations_parse(ann, &devs, NULL, &err), -EINVAL);
	cr_assert_not_null(
		strstr(cdi_error_message(&err), "annotation \"cdi.k8s.io/x\" is not a string"));
	cr_assert_eq(cdi_annotations_parse(arr, &devs, NULL, &err), -EINVAL);
	cdi_error_reset(&err);
	json_decref(ann);
	json_decref(arr);
}

Test(annotations_parse, nil_and_empty)
{
	struct cdi_error err = { 0 };
	json_t *empty = json_object(), *ignored = json_pack("{s:s}", "cdi.k8s.io", "x");
	char **devs = NULL;
	size_t n = 5;

	cr_assert_eq(cdi_annotations_parse(NULL, &devs, &n, &err), 0);
	cr_assert_eq(n, 0);
	cr_assert_not_null(devs);
	cr_assert_null(devs[0]);
	cdi_strv_free(devs);
	cr_assert_eq(cdi_annotations_parse(empty, &devs, &n, &err), 0);
	cr_assert_eq(n, 0);
	cdi_strv_free(devs);
	/* "cdi.k8s.io" without the slash is not a CDI key. */
	cr_assert_eq(cdi_annotations_parse(ignored, &devs, &n, &err), 0);
	cr_assert_eq(n, 0);
	cdi_strv_free(devs);
	cdi_strv_free(NULL);
	json_decref(empty);
	json_decref(ignored);
}

Test(annotations_parse, duplicates_kept)
{
	/* The reference returns every listed device; deduplication is the caller's choice. */
	json_t *ann = json_pack("{s:s,s:s}", "cdi.k8s.io/a", "v.com/c=d,v.com/c=d", "cdi.k8s.io/b",
				"v.com/c=d");
	json_t *back = parse_back(ann, 3);

	json_decref(back);
	json_decref(ann);
}
