/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Vendor, class and device names and qualified device names "vendor/class=name", with the
 * rules of the reference's pkg/parser (ParseDevice, ParseQualifier, ParseQualifiedName,
 * ValidateVendorName, ValidateClassName, ValidateDeviceName). Since spec 0.6.0 a class follows
 * the vendor rule (dots allowed). Names are ASCII: the reference tests runes against ASCII
 * ranges, so any byte from 0x80 breaks the rule just as its rune would.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cdi/names.h>

#include "macro.h"
#include "problem.h"
#include "rules.h"

static bool is_letter(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_alnum(char c)
{
	return is_letter(c) || is_digit(c);
}

const char *cdi_name_problem(enum cdi_name_type type, const char *name, size_t len, size_t *ret_bad)
{
	bool device = type == CDI_NAME_DEVICE;
	size_t bad = SIZE_MAX;
	const char *problem = NULL;

	if (!name || len == 0) {
		problem = "must not be empty";
		goto out;
	}
	if (device ? !is_alnum(name[0]) : !is_letter(name[0])) {
		problem = device ? "must start with a letter or digit" : "must start with a letter";
		bad = 0;
		goto out;
	}
	for (size_t i = 1; i + 1 < len; i++) {
		char c = name[i];

		if (is_alnum(c) || c == '_' || c == '-' || c == '.' || (device && c == ':'))
			continue;
		problem = device ? "may only contain letters, digits, '_', '-', '.' and ':'"
				 : "may only contain letters, digits, '_', '-' and '.'";
		bad = i;
		goto out;
	}
	if (!is_alnum(name[len - 1])) {
		problem = "must end with a letter or digit";
		bad = len - 1;
	}
out:
	if (problem && ret_bad)
		*ret_bad = bad;
	return problem;
}

int cdi_name_message(char *buf, size_t size, enum cdi_name_type type, const char *what,
		     const char *name, size_t len)
{
	char q[CDI_QUOTE_MAX], found[32] = "";
	const char *problem;
	size_t bad;

	problem = cdi_name_problem(type, name, len, &bad);
	if (!problem)
		return -1;
	/* The first and last bytes show in the quoted name; one in the middle is easy to miss. */
	if (bad != SIZE_MAX && bad > 0 && bad + 1 < len) {
		unsigned char c = (unsigned char)name[bad];

		if (c >= 0x20 && c < 0x7f)
			snprintf(found, sizeof(found), " (found '%c')", c);
		else
			snprintf(found, sizeof(found), " (found byte 0x%02x)", c);
	}
	return snprintf(buf, size, "invalid %s %s: %s%s", what,
			cdi_quote(q, sizeof(q), name ? name : "", name ? len : 0), problem, found);
}

static int check_name(enum cdi_name_type type, const char *what, const char *name,
		      struct cdi_error *err)
{
	char msg[2 * CDI_QUOTE_MAX + 128];

	if (cdi_name_message(msg, sizeof(msg), type, what, name, name ? strlen(name) : 0) < 0)
		return 0;
	return cdi_fail(err, -EINVAL, "%s", msg);
}

_public_ int cdi_check_vendor_name(const char *vendor, struct cdi_error *err)
{
	return check_name(CDI_NAME_VENDOR, "vendor", vendor, err);
}

_public_ int cdi_check_class_name(const char *class_name, struct cdi_error *err)
{
	return check_name(CDI_NAME_CLASS, "class", class_name, err);
}

_public_ int cdi_check_device_name(const char *name, struct cdi_error *err)
{
	return check_name(CDI_NAME_DEVICE, "device name", name, err);
}

char *cdi_quote(char *buf, size_t size, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	if (size < 8) {
		if (size)
			buf[0] = '\0';
		return buf;
	}
	buf[o++] = '"';
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		char esc[5];
		size_t n = 0;

		switch (c) {
		case '"':
		case '\\':
			esc[n++] = '\\';
			esc[n++] = (char)c;
			break;
		case '\n':
			esc[n++] = '\\';
			esc[n++] = 'n';
			break;
		case '\t':
			esc[n++] = '\\';
			esc[n++] = 't';
			break;
		case '\r':
			esc[n++] = '\\';
			esc[n++] = 'r';
			break;
		default:
			if (c < 0x20 || c == 0x7f) {
				esc[n++] = '\\';
				esc[n++] = 'x';
				esc[n++] = hex[c >> 4];
				esc[n++] = hex[c & 15];
			} else {
				esc[n++] = (char)c;
			}
		}
		/* Keep room for the closing quote, "..." and the NUL. */
		if (o + n + 5 > size) {
			/* Cutting before a continuation byte: drop the sequence it continues
			 * rather than leave half of it before the dots. */
			if ((c & 0xc0) == 0x80) {
				while (o > 1 && ((unsigned char)buf[o - 1] & 0xc0) == 0x80)
					o--;
				if (o > 1 && ((unsigned char)buf[o - 1] & 0xc0) == 0xc0)
					o--;
			}
			memcpy(buf + o, "\"...", 5);
			return buf;
		}
		memcpy(buf + o, esc, n);
		o += n;
	}
	buf[o++] = '"';
	buf[o] = '\0';
	return buf;
}

/* ParseDevice: the parts, or false when s is not shaped vendor/class=name. */
static bool split_device(const char *s, const char **ret_eq, const char **ret_slash)
{
	const char *eq, *slash;

	if (!s || !*s || *s == '/')
		return false;
	eq = strchr(s, '=');
	if (!eq || eq == s || !eq[1])
		return false;
	slash = memchr(s, '/', (size_t)(eq - s));
	if (!slash || slash == s || slash + 1 == eq)
		return false;
	*ret_eq = eq;
	*ret_slash = slash;
	return true;
}

/* Which part is missing, for a string that does not split (the reference says "vendor"). */
static const char *missing_part(const char *s)
{
	const char *eq = s ? strchr(s, '=') : NULL;
	const char *slash;

	if (!s || !*s || *s == '/' || !eq || eq == s)
		return "vendor";
	slash = memchr(s, '/', (size_t)(eq - s));
	if (!slash || slash == s)
		return "vendor";
	if (slash + 1 == eq)
		return "class";
	return "device name";
}

static int unqualified(struct cdi_error *err, const char *s)
{
	char q[CDI_QUOTE_MAX];

	if (!s)
		return cdi_fail(err, -EINVAL, "unqualified device (null), missing vendor");
	return cdi_fail(err, -EINVAL, "unqualified device %s, missing %s",
			cdi_quote(q, sizeof(q), s, strlen(s)), missing_part(s));
}

_public_ int cdi_split_device(const char *s, char **ret_vendor, char **ret_class, char **ret_name,
			      struct cdi_error *err)
{
	_cleanup_free_ char *vendor = NULL, *class_name = NULL, *name = NULL;
	const char *eq, *slash;

	if (!split_device(s, &eq, &slash))
		return unqualified(err, s);
	vendor = strndup(s, (size_t)(slash - s));
	class_name = strndup(slash + 1, (size_t)(eq - slash - 1));
	name = strdup(eq + 1);
	if (!vendor || !class_name || !name)
		return cdi_fail(err, -ENOMEM, "out of memory");
	if (ret_vendor)
		*ret_vendor = TAKE_PTR(vendor);
	if (ret_class)
		*ret_class = TAKE_PTR(class_name);
	if (ret_name)
		*ret_name = TAKE_PTR(name);
	return 0;
}

static int name_problem(struct cdi_error *err, const char *device, const char *what,
			enum cdi_name_type type, const char *part)
{
	char qd[CDI_QUOTE_MAX], msg[2 * CDI_QUOTE_MAX + 128];

	if (cdi_name_message(msg, sizeof(msg), type, what, part, strlen(part)) < 0)
		return 0;
	return cdi_fail(err, -EINVAL, "invalid device %s: %s",
			cdi_quote(qd, sizeof(qd), device, strlen(device)), msg);
}

_public_ int cdi_parse_qualified_name(const char *s, char **ret_vendor, char **ret_class,
				      char **ret_name, struct cdi_error *err)
{
	_cleanup_free_ char *vendor = NULL, *class_name = NULL, *name = NULL;
	int r;

	r = cdi_split_device(s, &vendor, &class_name, &name, err);
	if (r < 0)
		return r;
	r = name_problem(err, s, "vendor", CDI_NAME_VENDOR, vendor);
	if (r == 0)
		r = name_problem(err, s, "class", CDI_NAME_CLASS, class_name);
	if (r == 0)
		r = name_problem(err, s, "device name", CDI_NAME_DEVICE, name);
	if (r < 0)
		return r;
	if (ret_vendor)
		*ret_vendor = TAKE_PTR(vendor);
	if (ret_class)
		*ret_class = TAKE_PTR(class_name);
	if (ret_name)
		*ret_name = TAKE_PTR(name);
	return 0;
}

_public_ bool cdi_is_qualified_name(const char *s)
{
	return cdi_parse_qualified_name(s, NULL, NULL, NULL, NULL) == 0;
}
