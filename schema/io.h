/* SPDX-License-Identifier: Apache-2.0 */
/* Small file-descriptor helpers shared by the library and the tools (internal). */
#ifndef CDIKIT_IO_H
#define CDIKIT_IO_H

#include <stddef.h>

/* Write all len bytes of buf to fd, retrying short writes and EINTR. 0 or -errno. */
int cdi_write_all(int fd, const void *buf, size_t len);

#endif
