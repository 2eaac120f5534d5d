/* SPDX-License-Identifier: Apache-2.0 */
/* Cleanup helpers shared by every part of cdikit (systemd/kmod style). */
#ifndef CDIKIT_MACRO_H
#define CDIKIT_MACRO_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <dirent.h>
#include <jansson.h>

#define _public_ __attribute__((visibility("default")))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _unused_ __attribute__((unused))
#define _cleanup_(f) __attribute__((cleanup(f)))

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

/* A public accessor of an opaque object: obj->member, or fallback for NULL. */
#define PUBLIC_GETTER(type, name, obj_type, member, fallback)                                      \
	_public_ type name(const obj_type *obj)                                                    \
	{                                                                                          \
		return obj ? obj->member : (fallback);                                             \
	}

/* Hand ownership on: returns the pointer and leaves NULL behind. */
#define TAKE_PTR(p)                                                                                \
	({                                                                                         \
		__typeof__(p) _p_ = (p);                                                           \
		(p) = NULL;                                                                        \
		_p_;                                                                               \
	})
#define TAKE_FD(fd)                                                                                \
	({                                                                                         \
		int _fd_ = (fd);                                                                   \
		(fd) = -1;                                                                         \
		_fd_;                                                                              \
	})

static inline void freep(void *p)
{
	free(*(void **)p);
}
static inline void closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;
		close(*fd);
		errno = saved;
	}
}
static inline void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}
static inline void closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}
/* json_decrefp() comes with jansson (>= 2.9), NULL-safe. */

/* Text from json_dumps() comes from jansson's allocator, which a tool may replace
 * (json_set_alloc_funcs): free it with jansson's free, not free(). */
static inline void json_free_text(char *text)
{
	json_free_t free_fn;

	json_get_alloc_funcs(NULL, &free_fn);
	free_fn(text);
}
static inline void json_free_textp(char **text)
{
	if (*text)
		json_free_text(*text);
}
#define _cleanup_json_text_ _cleanup_(json_free_textp)

#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)
#define _cleanup_fclose_ _cleanup_(fclosep)
#define _cleanup_closedir_ _cleanup_(closedirp)
#define _cleanup_json_ _cleanup_(json_decrefp)

static inline int negative_errno(void)
{
	return errno > 0 ? -errno : -EIO;
}

#endif
