/* SPDX-License-Identifier: Apache-2.0 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <jansson.h>

#include "bundle/rootfs.h"
#include "dir_list.h"
#include "elf_read.h"
#include "hook_compat.h"
#include "ld_conf.h"
#include "macro.h"
#include "nvidia/require.h"
#include "problem.h"
#include "strv.h"

/* A note is a few hundred bytes; this bounds what a hostile file can make us read. */
#define COMPAT_NOTE_MAX (64u * 1024)

void compat_note_clear(struct compat_note *note)
{
	free(note->cuda_version);
	free(note->drivers);
	*note = (struct compat_note){ 0 };
}

static uint32_t note_word(const char *p, bool msb)
{
	const unsigned char *b = (const unsigned char *)p;

	return msb ? (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3]
		   : (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
}

/* len without the NULs that pad the end. */
static size_t trim_nul(const char *p, size_t len)
{
	while (len > 0 && p[len - 1] == '\0')
		len--;
	return len;
}

int compat_note_parse(const char *data, size_t len, bool msb, unsigned long long align,
		      struct compat_note *ret)
{
	_cleanup_json_ json_t *doc = NULL;
	struct compat_note note = { .found = true };
	unsigned long long namesz, descsz, name_end;
	const json_t *cuda, *drivers, *v;
	size_t i, n;

	*ret = (struct compat_note){ 0 };
	if (len < 12 || align == 0 || (align & (align - 1)) != 0 || align > 4096)
		return 0;
	namesz = note_word(data, msb);
	descsz = note_word(data + 4, msb);
	name_end = 12 + ((namesz + align - 1) & ~(align - 1));
	if (name_end > len || 12 + namesz > len || descsz > len - name_end)
		return 0;
	n = trim_nul(data + 12, (size_t)namesz);
	if (n != strlen(COMPAT_NOTE_OWNER) || memcmp(data + 12, COMPAT_NOTE_OWNER, n) != 0)
		return 0;
	doc = json_loadb(data + name_end, trim_nul(data + name_end, (size_t)descsz), 0, NULL);
	cuda = json_object_get(doc, "CUDA Version");
	drivers = json_object_get(doc, "Driver");
	if (!json_is_object(doc) || (cuda && !json_is_string(cuda)) ||
	    (drivers && !json_is_array(drivers)))
		return -EINVAL;
	if (cuda && !(note.cuda_version = strdup(json_string_value(cuda))))
		return -ENOMEM;
	if (json_array_size(drivers)) {
		note.drivers = calloc(json_array_size(drivers), sizeof(*note.drivers));
		if (!note.drivers) {
			compat_note_clear(&note);
			return -ENOMEM;
		}
	}
	json_array_foreach (drivers, i, v) {
		if (!json_is_integer(v) || json_integer_value(v) < 0) {
			compat_note_clear(&note);
			return -EINVAL;
		}
		note.drivers[note.n_drivers++] = (unsigned long)json_integer_value(v);
	}
	*ret = note;
	return 1;
}

/* A version as Masterminds' semver reads one loosely (v, then one to three numbers), without
 * its v; NULL for anything else. */
static const char *version_text(const char *v)
{
	const char *p;
	unsigned parts = 0;

	if (!v || !*v)
		return NULL;
	if (*v == 'v')
		v++;
	for (p = v;; p++) {
		size_t digits = strspn(p, "0123456789");

		if (digits == 0 || ++parts > 3)
			return NULL;
		p += digits;
		if (!*p)
			return v;
		if (*p != '.')
			return NULL;
	}
}

static unsigned long major_of(const char *v)
{
	return strtoul(v, NULL, 10);
}

static bool newer(const char *a, const char *b)
{
	return require_version_compare(a, REQUIRE_GT, b) == 1;
}

bool compat_use(const char *compat, const char *host_driver, const char *host_cuda,
		const struct compat_note *note)
{
	if (note && note->found) {
		if (compat && host_driver) {
			unsigned long branch = major_of(host_driver);

			for (size_t i = 0; i < note->n_drivers; i++)
				if (note->drivers[i] == branch)
					return newer(compat, host_driver);
			return false;
		}
		if (host_cuda && version_text(note->cuda_version))
			return newer(version_text(note->cuda_version), host_cuda);
		return false;
	}
	return compat && host_driver && major_of(compat) > major_of(host_driver);
}

/* A version option or the compat file's: NULL with a warning when it does not parse. */
static const char *checked_version(const char *v, const char *what, struct cdi_error *warnings)
{
	const char *t = version_text(v);

	if (v && *v && !t)
		cdi_fail(warnings, -EINVAL, "ignoring %s %s: not a version", what, v);
	return t;
}

struct compat_lib {
	size_t seen;
	int dfd;
};

static bool keep_compat_lib(const char *name, unsigned char d_type, void *userdata)
{
	struct compat_lib *c = userdata;
	struct stat st;

	(void)d_type;
	return fnmatch("libcuda.so.*.*", name, 0) == 0 && c->seen++ < 1024 &&
	       fstatat(c->dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

/* The note of the compat libcuda; a file that cannot be read has none. */
static int read_note(int dfd, const char *name, struct compat_note *note,
		     struct cdi_error *warnings)
{
	struct elf_section sec = { 0 };
	_cleanup_close_ int fd = -1;
	struct cdi_error ignored = { 0 };
	int r;

	fd = openat(dfd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	r = elf_read_section(fd, name, COMPAT_NOTE_SECTION, SHT_NOTE, COMPAT_NOTE_MAX, &sec,
			     &ignored);
	cdi_error_reset(&ignored);
	if (r <= 0)
		return 0;
	r = compat_note_parse(sec.data, sec.len, sec.msb, (unsigned long long)sec.align, note);
	free(sec.data);
	if (r == -EINVAL)
		cdi_fail(warnings, r, "%s: its %s note is not the JSON expected: compat not used",
			 name, COMPAT_NOTE_SECTION);
	return r;
}

/* The directory open at dfd as the container names it, its links resolved. */
static char *container_path(int root_fd, int dfd)
{
	char root[PATH_MAX], dir[PATH_MAX], link[64];
	ssize_t rn, dn;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", root_fd);
	rn = readlink(link, root, sizeof(root) - 1);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", dfd);
	dn = readlink(link, dir, sizeof(dir) - 1);
	if (rn <= 0 || dn <= 0)
		return NULL;
	root[rn] = dir[dn] = '\0';
	if (strcmp(root, "/") == 0)
		return strdup(dir);
	if (strncmp(dir, root, (size_t)rn) != 0 || (dir[rn] != '/' && dir[rn] != '\0'))
		return NULL;
	return strdup(dir[rn] ? dir + rn : "/");
}

int hook_enable_cuda_compat(int root_fd, const struct hook_compat *o, struct cdi_error *warnings,
			    struct cdi_error *err)
{
	const char *root = o->compat_root && *o->compat_root ? o->compat_root : COMPAT_DEFAULT_ROOT;
	const char *host_driver, *host_cuda, *compat;
	struct compat_note note = { 0 };
	_cleanup_strv_free_ char **names = NULL;
	_cleanup_free_ char *dir = NULL, *text = NULL;
	_cleanup_close_ int dfd = -1;
	struct compat_lib c = { 0 };
	size_t n = 0;
	bool use;
	int r;

	host_driver = checked_version(o->host_driver_version, "--host-driver-version", warnings);
	host_cuda = checked_version(o->host_cuda_version, "--host-cuda-version", warnings);
	if ((!o->host_driver_version || !*o->host_driver_version) &&
	    (!o->host_cuda_version || !*o->host_cuda_version))
		return 0;
	dfd = rootfs_open(root_fd, root, O_RDONLY | O_DIRECTORY);
	if (dfd < 0)
		return 0;
	c.dfd = dfd;
	if (dir_list_fd(dfd, keep_compat_lib, &c, &names, &n) < 0 || n == 0)
		return 0;
	if (n > 1) {
		cdi_fail(warnings, -EINVAL,
			 "unexpected number of CUDA compat libraries in container: %zu in %s", n,
			 root);
		return 0;
	}
	compat = checked_version(names[0] + strlen("libcuda.so."), "compat library version",
				 warnings);
	r = read_note(dfd, names[0], &note, warnings);
	if (r == -ENOMEM)
		return cdi_fail(err, r, "out of memory");
	use = r >= 0 && compat_use(compat, host_driver, host_cuda, &note);
	compat_note_clear(&note);
	if (!use)
		return 0;
	dir = container_path(root_fd, dfd);
	if (!dir)
		return cdi_fail(err, -ENOENT, "%s: cannot name the compat directory", root);
	if (asprintf(&text, "%s\n", dir) < 0) {
		text = NULL;
		return cdi_fail(err, -ENOMEM, "out of memory");
	}
	return ld_conf_dropin(root_fd, COMPAT_DROPIN, text, err);
}
