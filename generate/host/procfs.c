/* SPDX-License-Identifier: Apache-2.0 */
/*
 * GPUs, driver version, device majors and MIG cap minors as the NVIDIA kernel
 * modules publish them under /proc. Formats: nv-procfs.c and nv-caps.c of
 * open-gpu-kernel-modules, as libnvidia-container reads them.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "host.h"
#include "host_file.h"
#include "macro.h"
#include "problem.h"
#include "procfs.h"

/* Next line of buf from *pos: [*ret_start, *ret_start + *ret_len). False at the end. */
static bool next_line(const char *buf, size_t len, size_t *pos, const char **ret_start,
		      size_t *ret_len)
{
	const char *start, *nl;

	if (*pos >= len)
		return false;
	start = buf + *pos;
	nl = memchr(start, '\n', len - *pos);
	*ret_start = start;
	*ret_len = nl ? (size_t)(nl - start) : len - *pos;
	*pos += *ret_len + (nl ? 1 : 0);
	return true;
}

/* Parse a decimal unsigned of at most max; the whole [s, s + n) must be digits. */
static bool parse_uint(const char *s, size_t n, unsigned max, unsigned *ret)
{
	uint64_t v = 0;

	if (n == 0 || n > 10)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > max)
		return false;
	*ret = (unsigned)v;
	return true;
}

static bool is_version_token(const char *s, size_t n)
{
	bool dot = false;

	if (n == 0 || !isdigit((unsigned char)s[0]) || !isdigit((unsigned char)s[n - 1]))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '.') {
			if (s[i + 1] == '.')
				return false;
			dot = true;
		} else if (!isdigit((unsigned char)s[i]))
			return false;
	}
	return dot;
}

int procfs_parse_driver_version(const char *name, const char *buf, char ret[GPU_VERSION_MAX],
				struct cdi_error *err)
{
	static const char prefix[] = "NVRM version:";
	size_t len = strlen(buf), pos = 0, n;
	const char *line;

	while (next_line(buf, len, &pos, &line, &n)) {
		size_t i;

		if (n < sizeof(prefix) - 1 || memcmp(line, prefix, sizeof(prefix) - 1) != 0)
			continue;
		if (n > PROCFS_MAX_LINE)
			return cdi_problem_add(err, -EINVAL, name, 0, 0, NULL,
					       "NVRM version line longer than %u bytes",
					       PROCFS_MAX_LINE);
		/* The version is the first dotted number: the words before it vary by
		 * flavour (proprietary/open) and architecture; the date after it has none. */
		for (i = sizeof(prefix) - 1; i < n;) {
			size_t start;

			while (i < n && isspace((unsigned char)line[i]))
				i++;
			start = i;
			while (i < n && !isspace((unsigned char)line[i]))
				i++;
			if (is_version_token(line + start, i - start)) {
				if (i - start >= GPU_VERSION_MAX)
					break;
				memcpy(ret, line + start, i - start);
				ret[i - start] = '\0';
				return 0;
			}
		}
		return cdi_problem_add(err, -EINVAL, name, 0, 0, NULL,
				       "no driver version on the NVRM version line");
	}
	return cdi_problem_add(err, -EINVAL, name, 0, 0, NULL, "no \"NVRM version:\" line");
}

int procfs_driver_version(const char *root, char ret[GPU_VERSION_MAX], struct cdi_error *err)
{
	_cleanup_free_ char *path = host_path(root, PROCFS_VERSION);
	_cleanup_free_ char *buf = NULL;
	int r;

	if (!path)
		return cdi_fail(err, -ENOMEM, "out of memory");
	r = host_file_read(root, PROCFS_VERSION, PROCFS_MAX_FILE, 0, &buf, NULL, err);
	if (r < 0)
		return r;
	return procfs_parse_driver_version(path, buf, ret, err);
}

int procfs_parse_char_major(const char *name, const char *buf, const char *dev, unsigned *ret_major,
			    struct cdi_error *err)
{
	size_t len = strlen(buf), pos = 0, n, devlen = strlen(dev);
	const char *line;
	bool in_chars = false;
	unsigned lineno = 0;

	while (next_line(buf, len, &pos, &line, &n)) {
		size_t i = 0, num;
		unsigned major;

		lineno++;
		if (n > PROCFS_MAX_LINE)
			return cdi_problem_add(err, -EINVAL, name, lineno, 0, NULL,
					       "line longer than %u bytes", PROCFS_MAX_LINE);
		if (n == 0) {
			if (in_chars)
				break; /* a blank line ends the section */
			continue;
		}
		if (n == strlen("Character devices:") &&
		    memcmp(line, "Character devices:", n) == 0) {
			in_chars = true;
			continue;
		}
		if (!in_chars)
			continue;
		if (line[n - 1] == ':')
			break; /* "Block devices:" without the blank line */
		while (i < n && line[i] == ' ')
			i++;
		num = i;
		while (i < n && isdigit((unsigned char)line[i]))
			i++;
		if (!parse_uint(line + num, i - num, 4095, &major) || i >= n || line[i] != ' ')
			return cdi_problem_add(err, -EINVAL, name, lineno, 0, NULL,
					       "malformed character device line");
		i++;
		if (n - i == devlen && memcmp(line + i, dev, devlen) == 0) {
			*ret_major = major;
			return 0;
		}
	}
	return -ENOENT;
}

int pci_bus_id_normalize(const char *in, char out[GPU_BUSID_MAX])
{
	unsigned long domain, bus, dev, fn;
	char *end;

	/* domain:bus:device.function, hex; NVML writes an 8-digit domain, procfs 4. */
	if (!isxdigit((unsigned char)in[0]))
		return -EINVAL;
	domain = strtoul(in, &end, 16);
	if (*end != ':' || end - in > 8 || !isxdigit((unsigned char)end[1]))
		return -EINVAL;
	in = end + 1;
	bus = strtoul(in, &end, 16);
	if (*end != ':' || end - in > 2 || !isxdigit((unsigned char)end[1]))
		return -EINVAL;
	in = end + 1;
	dev = strtoul(in, &end, 16);
	if (*end != '.' || end - in > 2 || !isxdigit((unsigned char)end[1]))
		return -EINVAL;
	in = end + 1;
	fn = strtoul(in, &end, 16);
	if (*end != '\0' || end - in > 1 || dev > 0x1f || fn > 7)
		return -EINVAL;
	snprintf(out, GPU_BUSID_MAX,
		 domain > 0xffff ? "%08lx:%02lx:%02lx.%lx" : "%04lx:%02lx:%02lx.%lx", domain, bus,
		 dev, fn);
	return 0;
}

/* Copy the trimmed value [s, s + n) into dst of size cap; false if it does not fit. */
static bool copy_value(char *dst, size_t cap, const char *s, size_t n)
{
	while (n > 0 && isspace((unsigned char)*s))
		s++, n--;
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	if (n >= cap)
		return false;
	memcpy(dst, s, n);
	dst[n] = '\0';
	return true;
}

/* What one information file said so far. */
struct gpu_info {
	struct gpu_device gpu;
	bool have_uuid, have_bus, have_minor, excluded;
	const char *bad_uuid; /* why the UUID is not one, judged at the end */
	unsigned bad_uuid_line;
};

/* One "Key: value" line of an information file. */
static int gpu_info_line(const char *name, unsigned lineno, const char *line, size_t n,
			 struct gpu_info *g, struct cdi_error *err)
{
	const char *colon = memchr(line, ':', n), *val;
	size_t klen, vlen;
	char tmp[GPU_BUSID_MAX];

	if (!colon)
		return 0;
	klen = (size_t)(colon - line);
	val = colon + 1;
	vlen = n - klen - 1;
#define KEY(k) (klen == strlen(k) && memcmp(line, k, klen) == 0)
	if (KEY("Model")) {
		if (!copy_value(g->gpu.name, sizeof(g->gpu.name), val, vlen))
			return cdi_problem_add(err, -EINVAL, name, lineno, 0, "Model",
					       "longer than %d bytes", GPU_NAME_MAX - 1);
	} else if (KEY("GPU UUID")) {
		/* Judged at the end: an excluded GPU's UUID does not matter ("GPU Excluded" is
		 * the last line). */
		if (!copy_value(g->gpu.uuid, sizeof(g->gpu.uuid), val, vlen) ||
		    strncmp(g->gpu.uuid, "GPU-", 4) != 0 || g->gpu.uuid[4] == '\0')
			g->bad_uuid = "not a GPU-<uuid>";
		for (const char *c = g->gpu.uuid; !g->bad_uuid && *c; c++)
			if (!isalnum((unsigned char)*c) && *c != '-')
				g->bad_uuid = "invalid character";
		if (g->bad_uuid)
			g->bad_uuid_line = lineno;
		g->have_uuid = true;
	} else if (KEY("Bus Location")) {
		if (!copy_value(tmp, sizeof(tmp), val, vlen) ||
		    pci_bus_id_normalize(tmp, g->gpu.bus_id) < 0)
			return cdi_problem_add(err, -EINVAL, name, lineno, 0, "Bus Location",
					       "not a PCI bus id");
		g->have_bus = true;
	} else if (KEY("Device Minor")) {
		if (!copy_value(tmp, sizeof(tmp), val, vlen) ||
		    !parse_uint(tmp, strlen(tmp), PROCFS_MAX_DEVICE_MINOR, &g->gpu.minor))
			return cdi_problem_add(err, -EINVAL, name, lineno, 0, "Device Minor",
					       "not a number from 0 to %u",
					       PROCFS_MAX_DEVICE_MINOR);
		g->have_minor = true;
	} else if (KEY("GPU Excluded")) {
		if (copy_value(tmp, sizeof(tmp), val, vlen) && strcmp(tmp, "Yes") == 0)
			g->excluded = true;
	}
#undef KEY
	return 0;
}

int procfs_parse_gpu_information(const char *name, const char *buf, struct gpu_device *ret,
				 bool *ret_excluded, struct cdi_error *err)
{
	size_t len = strlen(buf), pos = 0, n;
	struct gpu_info g = { 0 };
	unsigned lineno = 0;
	const char *line;
	int r;

	while (next_line(buf, len, &pos, &line, &n)) {
		lineno++;
		if (n > PROCFS_MAX_LINE)
			return cdi_problem_add(err, -EINVAL, name, lineno, 0, NULL,
					       "line longer than %u bytes", PROCFS_MAX_LINE);
		r = gpu_info_line(name, lineno, line, n, &g, err);
		if (r < 0)
			return r;
	}
	/*
	 * nv-procfs.c prints "GPU UUID" only when RM knows it, which it does not for a GPU
	 * excluded with NVreg_ExcludedGpus (never initialised). Such a GPU is skipped by the
	 * caller, so its UUID is not required.
	 */
	if (g.excluded && (!g.have_uuid || g.bad_uuid)) {
		memset(g.gpu.uuid, 0, sizeof(g.gpu.uuid));
		g.have_uuid = true;
		g.bad_uuid = NULL;
	}
	if (g.bad_uuid)
		return cdi_problem_add(err, -EINVAL, name, g.bad_uuid_line, 0, "GPU UUID",
				       "%s (GPU-<uuid> of less than %d bytes)", g.bad_uuid,
				       GPU_UUID_MAX);
	if (!g.have_uuid || !g.have_bus || !g.have_minor)
		return cdi_problem_add(err, -EINVAL, name, 0, 0,
				       !g.have_uuid  ? "GPU UUID"
				       : !g.have_bus ? "Bus Location"
						     : "Device Minor",
				       "missing");
	memcpy(ret->name, g.gpu.name, sizeof(g.gpu.name));
	memcpy(ret->uuid, g.gpu.uuid, sizeof(g.gpu.uuid));
	memcpy(ret->bus_id, g.gpu.bus_id, sizeof(g.gpu.bus_id));
	ret->minor = g.gpu.minor;
	if (ret_excluded)
		*ret_excluded = g.excluded;
	return 0;
}

#define MIG_KEY(gpu, gi, ci1) (((uint32_t)(gpu) << 16) | ((uint32_t)(gi) << 8) | (uint32_t)(ci1))

static int mig_entry_cmp(const void *a, const void *b)
{
	const struct mig_minor_entry *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

/* "gpu<N>/gi<G>/access" or "gpu<N>/gi<G>/ci<C>/access" → key; false if malformed. */
static bool parse_mig_name(const char *s, size_t n, uint32_t *ret_key)
{
	unsigned gpu, gi, ci;
	size_t i = 3, start;

#define NUMBER(var, max)                                                                           \
	do {                                                                                       \
		start = i;                                                                         \
		while (i < n && isdigit((unsigned char)s[i]))                                      \
			i++;                                                                       \
		if (!parse_uint(s + start, i - start, (max), &(var)))                              \
			return false;                                                              \
	} while (0)
#define LITERAL(lit)                                                                               \
	do {                                                                                       \
		if (n - i < strlen(lit) || memcmp(s + i, lit, strlen(lit)) != 0)                   \
			return false;                                                              \
		i += strlen(lit);                                                                  \
	} while (0)

	if (n < 3 || memcmp(s, "gpu", 3) != 0)
		return false;
	NUMBER(gpu, 255);
	LITERAL("/gi");
	NUMBER(gi, 255);
	if (n - i == strlen("/access") && memcmp(s + i, "/access", n - i) == 0) {
		*ret_key = MIG_KEY(gpu, gi, 0);
		return true;
	}
	LITERAL("/ci");
	NUMBER(ci, 254);
	LITERAL("/access");
	if (i != n)
		return false;
	*ret_key = MIG_KEY(gpu, gi, ci + 1);
	return true;
#undef NUMBER
#undef LITERAL
}

/* One "<name> <minor>" line into mm (entries grown in *cap; *sorted cleared when out of order). */
static int mig_minors_line(const char *name, unsigned lineno, const char *line, size_t n,
			   struct mig_minors *mm, size_t *cap, bool *sorted, struct cdi_error *err)
{
	const char *sp = memchr(line, ' ', n);
	unsigned minor;
	uint32_t key;

	if (!sp || sp == line ||
	    !parse_uint(sp + 1, n - (size_t)(sp + 1 - line), PROCFS_MAX_CAP_MINOR, &minor))
		return cdi_problem_add(err, -EINVAL, name, lineno, 0, NULL,
				       "expected \"<name> <minor>\", minor at most %u",
				       PROCFS_MAX_CAP_MINOR);
	n = (size_t)(sp - line);
	if (n == 6 && memcmp(line, "config", 6) == 0) {
		mm->has_config = true;
		mm->config = minor;
		return 0;
	}
	if (n == 7 && memcmp(line, "monitor", 7) == 0) {
		mm->has_monitor = true;
		mm->monitor = minor;
		return 0;
	}
	if (n < 3 || memcmp(line, "gpu", 3) != 0)
		return 0; /* a cap this version does not know: not ours to judge */
	if (!parse_mig_name(line, n, &key))
		return cdi_problem_add(err, -EINVAL, name, lineno, 0, NULL,
				       "malformed name \"%.*s\"", (int)n, line);
	if (mm->n >= PROCFS_MAX_MIG_MINORS)
		return cdi_problem_add(err, -E2BIG, name, lineno, 0, NULL, "more than %u entries",
				       PROCFS_MAX_MIG_MINORS);
	if (mm->n == *cap && ARRAY_RESERVE(mm->entries, *cap, mm->n + 1) < 0)
		return cdi_fail(err, -ENOMEM, "out of memory");
	if (mm->n > 0 && key <= mm->entries[mm->n - 1].key)
		*sorted = false;
	mm->entries[mm->n++] = (struct mig_minor_entry){ .key = key, .minor = minor };
	return 0;
}

int mig_minors_parse(const char *name, const char *buf, size_t len, struct mig_minors *ret,
		     struct cdi_error *err)
{
	struct mig_minors mm = { 0 };
	size_t pos = 0, n, cap = 0;
	const char *line;
	unsigned lineno = 0;
	bool sorted = true;
	int r = 0;

	while (r >= 0 && next_line(buf, len, &pos, &line, &n)) {
		lineno++;
		if (n > PROCFS_MAX_LINE)
			r = cdi_problem_add(err, -EINVAL, name, lineno, 0, NULL,
					    "line longer than %u bytes", PROCFS_MAX_LINE);
		else if (n > 0)
			r = mig_minors_line(name, lineno, line, n, &mm, &cap, &sorted, err);
	}
	/* The kernel writes keys in order; sort only if someone else did not. */
	if (r >= 0 && !sorted)
		qsort(mm.entries, mm.n, sizeof(*mm.entries), mig_entry_cmp);
	for (size_t i = 1; r >= 0 && i < mm.n; i++)
		if (mm.entries[i].key == mm.entries[i - 1].key) {
			uint32_t k = mm.entries[i].key;

			r = cdi_problem_add(err, -EINVAL, name, 0, 0, NULL,
					    "duplicate entry for gpu%u/gi%u%s", k >> 16,
					    (k >> 8) & 0xff, (k & 0xff) ? "/ci..." : "");
		}
	if (r < 0) {
		mig_minors_clear(&mm);
		return r;
	}
	*ret = mm;
	return 0;
}

int mig_minors_read(const char *root, struct mig_minors *ret, struct cdi_error *err)
{
	_cleanup_free_ char *path = host_path(root, PROCFS_MIG_MINORS);
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r;

	if (!path)
		return cdi_fail(err, -ENOMEM, "out of memory");
	r = host_file_read(root, PROCFS_MIG_MINORS, PROCFS_MAX_FILE, 0, &buf, &len, err);
	if (r < 0)
		return r;
	return mig_minors_parse(path, buf, len, ret, err);
}

void mig_minors_clear(struct mig_minors *mm)
{
	if (!mm)
		return;
	free(mm->entries);
	*mm = (struct mig_minors){ 0 };
}

int mig_minors_lookup(const struct mig_minors *mm, unsigned gpu_minor, unsigned gi, int ci,
		      unsigned *ret_minor)
{
	struct mig_minor_entry probe, *hit;

	if (mm->n == 0 || gpu_minor > 255 || gi > 255 || ci > 254)
		return -ENOENT;
	probe.key = MIG_KEY(gpu_minor, gi, ci < 0 ? 0 : (unsigned)ci + 1);
	hit = bsearch(&probe, mm->entries, mm->n, sizeof(*mm->entries), mig_entry_cmp);
	if (!hit)
		return -ENOENT;
	*ret_minor = hit->minor;
	return 0;
}
