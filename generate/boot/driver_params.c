/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The device-file settings of the NVIDIA driver: /proc/driver/nvidia/params and the capability
 * files, read as nvidia-modprobe's mknod helper reads them ("%31[^:]: %u" per line), but line by
 * line, so a string-valued entry does not end the scan and a bad number is reported.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "driver_params.h"
#include "load.h"
#include "macro.h"
#include "problem.h"

#define PARAMS_MAX_LINE 512u

enum param_key { KEY_UID, KEY_GID, KEY_MODE, KEY_MODIFY, KEY_MINOR };

static const struct {
	const char *name;
	enum param_key key;
} keys[] = {
	{ "DeviceFileUID", KEY_UID },	    { "DeviceFileGID", KEY_GID },
	{ "DeviceFileMode", KEY_MODE },	    { "ModifyDeviceFiles", KEY_MODIFY },
	{ "DeviceFileModify", KEY_MODIFY }, { "DeviceFileMinor", KEY_MINOR },
};

/* A decimal number in [s, s + n), surrounding blanks allowed; false if anything else. */
static bool parse_decimal(const char *s, size_t n, uint32_t *ret)
{
	uint64_t v = 0;
	size_t digits = 0;

	while (n > 0 && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	for (; digits < n; digits++) {
		if (s[digits] < '0' || s[digits] > '9')
			return false;
		v = v * 10 + (uint64_t)(s[digits] - '0');
		if (v > UINT32_MAX)
			return false;
	}
	if (digits == 0)
		return false;
	*ret = (uint32_t)v;
	return true;
}

/* Apply one known entry; an error names the file, line and entry. */
static int apply(struct dev_file_params *p, enum param_key key, uint32_t v, const char *name,
		 unsigned lineno, const char *field, struct cdi_error *err)
{
	switch (key) {
	case KEY_UID:
	case KEY_GID:
		/* -1 asks chown to leave the owner as it is: not an owner. */
		if (v == UINT32_MAX)
			return cdi_problem_add(err, -EINVAL, name, lineno, 0, field,
					       "%u is not a user or group id", v);
		if (key == KEY_UID)
			p->uid = (uid_t)v;
		else
			p->gid = (gid_t)v;
		return 0;
	case KEY_MODE:
		if (v > 0777)
			return cdi_problem_add(err, -EINVAL, name, lineno, 0, field,
					       "%u is not a permission mode (0 to 511, i.e. 0777)",
					       v);
		p->mode = (mode_t)v;
		return 0;
	case KEY_MODIFY:
		p->modify = v == 1;
		return 0;
	case KEY_MINOR:
		/* The kernel's MINORMASK: 20 bits. */
		if (v > (1u << 20) - 1)
			return cdi_problem_add(err, -EINVAL, name, lineno, 0, field,
					       "%u is beyond the largest minor number", v);
		p->minor = v;
		p->has_minor = true;
		return 0;
	}
	return 0;
}

int driver_params_parse(const char *name, const char *buf, size_t len, struct dev_file_params *ret,
			struct cdi_error *err)
{
	struct dev_file_params p = DEV_FILE_PARAMS_DEFAULT;
	unsigned lineno = 0;
	size_t pos = 0;
	int r;

	while (pos < len) {
		const char *line = buf + pos, *nl = memchr(line, '\n', len - pos), *colon;
		size_t n = nl ? (size_t)(nl - line) : len - pos;

		pos += n + (nl ? 1 : 0);
		lineno++;
		if (n > PARAMS_MAX_LINE)
			return cdi_problem_add(err, -EINVAL, name, lineno, 0, NULL,
					       "line longer than %u bytes", PARAMS_MAX_LINE);
		colon = memchr(line, ':', n);
		if (!colon)
			continue;
		for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
			size_t klen = strlen(keys[i].name);
			uint32_t v;

			if ((size_t)(colon - line) != klen || memcmp(line, keys[i].name, klen) != 0)
				continue;
			if (!parse_decimal(colon + 1, n - klen - 1, &v))
				return cdi_problem_add(err, -EINVAL, name, lineno, 0, keys[i].name,
						       "not a decimal number: \"%.*s\"",
						       (int)(n - klen - 1), colon + 1);
			r = apply(&p, keys[i].key, v, name, lineno, keys[i].name, err);
			if (r < 0)
				return r;
			break;
		}
	}
	*ret = p;
	return 0;
}

int driver_params_read(const char *path, bool optional, struct dev_file_params *ret,
		       struct cdi_error *err)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r;

	r = cdi_read_file(path, DRIVER_PARAMS_MAX_FILE, &buf, &len);
	if (r == -ENOENT && optional) {
		*ret = DEV_FILE_PARAMS_DEFAULT;
		return 0;
	}
	if (r < 0)
		return cdi_problem_add(err, r, path, 0, 0, NULL, "cannot read: %s", strerror(-r));
	return driver_params_parse(path, buf, len, ret, err);
}
