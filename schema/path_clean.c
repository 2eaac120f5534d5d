/* SPDX-License-Identifier: Apache-2.0 */
/* Go's filepath.Clean(), which the reference uses to sort mounts by depth. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "path_clean.h"

/* Writes Clean(path[0..len)) to out (room for len + 2 bytes) and returns its length. */
static size_t path_clean(const char *path, size_t len, char *out)
{
	size_t r = 0, w = 0, dotdot = 0;
	bool rooted;

	if (len == 0) {
		out[0] = '.';
		return 1;
	}
	rooted = path[0] == '/';
	if (rooted) {
		out[w++] = '/';
		r = dotdot = 1;
	}
	while (r < len) {
		if (path[r] == '/') {
			r++;
		} else if (path[r] == '.' && (r + 1 == len || path[r + 1] == '/')) {
			r++;
		} else if (path[r] == '.' && path[r + 1] == '.' &&
			   (r + 2 == len || path[r + 2] == '/')) {
			r += 2;
			if (w > dotdot) {
				w--;
				while (w > dotdot && out[w] != '/')
					w--;
			} else if (!rooted) {
				if (w > 0)
					out[w++] = '/';
				out[w++] = '.';
				out[w++] = '.';
				dotdot = w;
			}
		} else {
			if ((rooted && w != 1) || (!rooted && w != 0))
				out[w++] = '/';
			for (; r < len && path[r] != '/'; r++)
				out[w++] = path[r];
		}
	}
	if (w == 0)
		out[w++] = '.';
	return w;
}

char *cdi_path_clean(const char *path)
{
	size_t len = strlen(path);
	char *out = malloc(len + 3);

	if (!out)
		return NULL;
	out[path_clean(path, len, out)] = '\0';
	return out;
}

/* Whether Clean(path) is path itself: no empty, "." or ".." component, no trailing slash
 * (but "/"), not empty. Nearly every mount path is, and then nothing needs copying: its
 * slashes are counted into *depth on the way. */
static bool already_clean(const char *p, size_t len, size_t *depth)
{
	if (len == 0 || (len > 1 && p[len - 1] == '/'))
		return false;
	for (size_t i = 0; i < len;) {
		const char *slash;
		size_t j;

		if (p[i] == '/') {
			if (i > 0 && p[i - 1] == '/')
				return false;
			++*depth;
			i++;
			continue;
		}
		slash = memchr(p + i, '/', len - i);
		j = slash ? (size_t)(slash - p) : len;
		if (p[i] == '.' && (j - i == 1 || (j - i == 2 && p[i + 1] == '.')))
			return false;
		i = j;
	}
	return true;
}

size_t cdi_path_clean_depth(const char *path, size_t len)
{
	char stackbuf[256];
	_cleanup_free_ char *heap = NULL;
	char *out = stackbuf;
	size_t n, depth = 0;

	if (already_clean(path, len, &depth))
		return depth;
	depth = 0;
	if (len + 3 > sizeof(stackbuf)) {
		heap = malloc(len + 3);
		if (!heap) {
			/* Counting the raw separators is the best we can do without memory. */
			for (size_t i = 0; i < len; i++)
				depth += path[i] == '/';
			return depth;
		}
		out = heap;
	}
	n = path_clean(path, len, out);
	for (size_t i = 0; i < n; i++)
		depth += out[i] == '/';
	return depth;
}
