/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cdi-runtime's log lines (apply/runtime/runc_log.c) byte for byte as runc 1.1.5 writes its own
 * with
 * --log-format json and text (the lines below were checked against `runc --log X state nope`
 * and Go's encoding/json and %q on the same strings). containerd's shim parses the JSON
 * line of a failed create, and only an RFC 3339 time lets Docker show the message.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <jansson.h>

#include "runtime/runc_log.h"

/* 2026-11-25T11:38:20Z */
#define WHEN ((time_t)1795606700)

static void line_is(bool json, enum runtime_log_level level, const char *msg, const char *want)
{
	size_t len;
	char *line = runc_log_line(json, level, msg, WHEN, &len);

	cr_assert_not_null(line);
	cr_assert_eq(len, strlen(line));
	cr_assert_str_eq(line, want);
	free(line);
}

Test(runc_log, json_like_runc)
{
	line_is(true, RUNTIME_LOG_ERROR, "container does not exist",
		"{\"level\":\"error\",\"msg\":\"container does not exist\",\"time\":\"2026-11-25T11:38:20Z\"}\n");
	line_is(true, RUNTIME_LOG_WARNING, "w",
		"{\"level\":\"warning\",\"msg\":\"w\",\"time\":\"2026-11-25T11:38:20Z\"}\n");
	line_is(true, RUNTIME_LOG_DEBUG, "d",
		"{\"level\":\"debug\",\"msg\":\"d\",\"time\":\"2026-11-25T11:38:20Z\"}\n");
}

Test(runc_log, text_like_runc)
{
	line_is(false, RUNTIME_LOG_ERROR, "container does not exist",
		"time=\"2026-11-25T11:38:20Z\" level=error msg=\"container does not exist\"\n");
	/* logrus quotes a value only when it needs it. */
	line_is(false, RUNTIME_LOG_INFO, "plain/path-1.0_x@y^z+",
		"time=\"2026-11-25T11:38:20Z\" level=info msg=plain/path-1.0_x@y^z+\n");
	line_is(false, RUNTIME_LOG_INFO, "", "time=\"2026-11-25T11:38:20Z\" level=info msg=\"\"\n");
}

/* Go: json.Marshal("q\"b\\s\n\t\x01é\xff<>&\u2028") and fmt.Sprintf("%q", ...). */
Test(runc_log, escaping_as_go)
{
	const char *msg = "q\"b\\s\n\t\x01\xc3\xa9\xff<>&\xe2\x80\xa8";

	line_is(true, RUNTIME_LOG_ERROR, msg,
		"{\"level\":\"error\",\"msg\":\"q\\\"b\\\\s\\n\\t\\u0001\xc3\xa9\\ufffd\\u003c\\u003e\\u0026\\u2028\",\"time\":\"2026-11-25T11:38:20Z\"}\n");
	line_is(false, RUNTIME_LOG_ERROR, "q\"b\\s\n\t\x01\xc3\xa9\xff<>&",
		"time=\"2026-11-25T11:38:20Z\" level=error msg=\"q\\\"b\\\\s\\n\\t\\x01\xc3\xa9\\xff<>&\"\n");
}

/* Whatever the bytes, the JSON line parses and gives back the message (valid UTF-8 kept). */
Test(runc_log, json_always_parses)
{
	static const char *const msgs[] = {
		"unresolvable CDI devices nvidia.com/gpu=9 (searched /etc/cdi, /var/run/cdi)",
		"\xc0\xaf overlong, \xed\xa0\x80 surrogate, \xf4\x90\x80\x80 too high, \xe2\x82 cut",
		"\x7f del \x1f unit sep",
	};

	for (size_t i = 0; i < sizeof(msgs) / sizeof(msgs[0]); i++) {
		size_t len;
		char *line = runc_log_line(true, RUNTIME_LOG_ERROR, msgs[i], WHEN, &len);
		json_error_t jerr;
		json_t *j = json_loadb(line, len, 0, &jerr);

		cr_assert_not_null(j, "%s: %s", line, jerr.text);
		cr_assert_str_eq(json_string_value(json_object_get(j, "level")), "error");
		cr_assert_str_eq(json_string_value(json_object_get(j, "time")),
				 "2026-11-25T11:38:20Z");
		if (i == 0)
			cr_assert_str_eq(json_string_value(json_object_get(j, "msg")), msgs[i]);
		json_decref(j);
		free(line);
	}
}
