/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runc's log lines: logrus's JSONFormatter (keys sorted: level, msg, time; Go's JSON string
 * escaping, HTML characters included) and TextFormatter without a terminal (a value is quoted
 * with Go's %q when it holds anything but [A-Za-z0-9-._/@^+]).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runc_log.h"
#include "utf8_seq.h"

/* Each byte of msg can become at most 6 (\u00XX); the rest of the line is short. */
static size_t worst_case(const char *msg)
{
	return strlen(msg) * 6 + 128;
}

static char *put_json_string(char *o, const char *msg)
{
	const unsigned char *s = (const unsigned char *)msg;

	*o++ = '"';
	while (*s) {
		size_t n = utf8_sequence_at((const char *)s, strnlen((const char *)s, 4));

		if (n == 0) {
			o += sprintf(o, "\\ufffd");
			s++;
		} else if (n == 3 && s[0] == 0xe2 && s[1] == 0x80 &&
			   (s[2] == 0xa8 || s[2] == 0xa9)) {
			o += sprintf(o, "\\u%04x", s[2] == 0xa8 ? 0x2028 : 0x2029);
			s += 3;
		} else if (n > 1) {
			memcpy(o, s, n);
			o += n;
			s += n;
		} else if (*s == '"' || *s == '\\') {
			*o++ = '\\';
			*o++ = (char)*s++;
		} else if (*s == '\n' || *s == '\r' || *s == '\t') {
			*o++ = '\\';
			*o++ = *s == '\n' ? 'n' : *s == '\r' ? 'r' : 't';
			s++;
		} else if (*s < 0x20 || *s == '<' || *s == '>' || *s == '&') {
			o += sprintf(o, "\\u%04x", *s++);
		} else {
			*o++ = (char)*s++;
		}
	}
	*o++ = '"';
	return o;
}

static bool text_needs_quoting(const char *s)
{
	if (!*s)
		return true;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("-._/@^+", *s)))
			return true;
	return false;
}

/* Go's %q, for the bytes runc's messages hold (printable Unicode is kept as is). */
static char *put_text_value(char *o, const char *msg)
{
	static const char esc_from[] = "\a\b\f\n\r\t\v", esc_to[] = "abfnrtv";
	const unsigned char *s = (const unsigned char *)msg;

	if (!text_needs_quoting(msg)) {
		size_t n = strlen(msg);

		memcpy(o, msg, n);
		return o + n;
	}
	*o++ = '"';
	while (*s) {
		size_t n = utf8_sequence_at((const char *)s, strnlen((const char *)s, 4));
		const char *e = *s ? strchr(esc_from, *s) : NULL;

		if (n > 1) {
			memcpy(o, s, n);
			o += n;
			s += n;
		} else if (n == 0 || *s == 0x7f || (*s < 0x20 && !e)) {
			o += sprintf(o, "\\x%02x", *s++);
		} else if (e) {
			*o++ = '\\';
			*o++ = esc_to[e - esc_from];
			s++;
		} else {
			if (*s == '"' || *s == '\\')
				*o++ = '\\';
			*o++ = (char)*s++;
		}
	}
	*o++ = '"';
	return o;
}

char *runc_log_line(bool json, enum runtime_log_level level, const char *msg, time_t when,
		    size_t *ret_len)
{
	const char *lvl = runtime_log_level_name(level); /* logrus's names too */
	char stamp[32], *line, *o;
	struct tm tm;

	if (!gmtime_r(&when, &tm) || strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		strcpy(stamp, "1970-01-01T00:00:00Z");
	line = malloc(worst_case(msg));
	if (!line)
		return NULL;
	if (json) {
		o = line + sprintf(line, "{\"level\":\"%s\",\"msg\":", lvl);
		o = put_json_string(o, msg);
		o += sprintf(o, ",\"time\":\"%s\"}\n", stamp);
	} else {
		o = line + sprintf(line, "time=\"%s\" level=%s msg=", stamp, lvl);
		o = put_text_value(o, msg);
		*o++ = '\n';
		*o = '\0';
	}
	*ret_len = (size_t)(o - line);
	return line;
}
