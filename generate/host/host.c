/* SPDX-License-Identifier: Apache-2.0 */
/* Host paths under a root, so a directory tree can stand in for a machine. */
#include <stdlib.h>
#include <string.h>

#include "host.h"

char *host_path(const char *root, const char *path)
{
	size_t rlen, plen;
	char *p;

	if (!path)
		return NULL;
	if (!root)
		root = "";
	/* Roots are given without a trailing slash; tolerate one ("/" is the real root). */
	rlen = strlen(root);
	while (rlen > 0 && root[rlen - 1] == '/')
		rlen--;
	plen = strlen(path);
	p = malloc(rlen + 1 + plen + 1);
	if (!p)
		return NULL;
	memcpy(p, root, rlen);
	if (path[0] != '/')
		p[rlen++] = '/';
	memcpy(p + rlen, path, plen + 1);
	return p;
}
