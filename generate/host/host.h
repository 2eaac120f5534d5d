/* SPDX-License-Identifier: Apache-2.0 */
/* The host the generator describes: every host path is read under a root (internal). */
#ifndef CDIKIT_HOST_H
#define CDIKIT_HOST_H

/*
 * Roots are absolute paths without a trailing slash; "" stands for "/".
 * root: /proc, /sys, /run (IPC sockets) and binaries' PATH dirs.
 * driver_root: the driver's files (libraries, binaries, firmware, configs) and the
 * ld.so.cache that indexes them (its paths are the driver root's).
 * dev_root: /dev.
 * In a spec, hostPath = root + path (the real path on this host), while
 * path/containerPath never carry the prefix.
 */
struct gen_host {
	const char *root;
	const char *driver_root;
	const char *dev_root;
};

/* malloc'd root + path ("/dev/nvidia0" under "/tmp/h" → "/tmp/h/dev/nvidia0"). */
char *host_path(const char *root, const char *path);

#endif
