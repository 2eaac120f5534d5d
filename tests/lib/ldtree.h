/* SPDX-License-Identifier: Apache-2.0 */
/* Trees of tiny real shared objects for the linker cache suites, and glibc's view of a cache. */
#ifndef CDIKIT_TEST_LDTREE_H
#define CDIKIT_TEST_LDTREE_H

#include <jansson.h>
#include <stdbool.h>

/*
 * Make the shared object root/path (directories created) with DT_SONAME soname (none when
 * NULL), 64-bit (x86-64) or 32-bit (i386), needing libc.so.6 when libc6. Assembled from a
 * one-function source; symbol, when given, is exported too (a name to dlsym for).
 */
void ldtree_lib(const char *root, const char *path, const char *soname, int bits, bool libc6,
		const char *symbol);

/* Remove the objects ldtree_lib assembled for this process (call from a suite's fini). */
void ldtree_cleanup(void);

/* `ldconfig -p -C cache` without its file name and generator line, malloc'ed; the test fails
 * if ldconfig does. */
char *ldtree_listing(const char *cache);

/* The lines of a listing after its count line, sorted (a set to compare). malloc'ed. */
char *ldtree_listing_set(const char *cache);

/*
 * A host driver of this version under host: x86-64 libcuda (exporting cdikit_driver_libcuda)
 * and libnvidia-ml in usr/lib/x86_64-linux-gnu, an i386 libcuda in usr/lib/i386-linux-gnu,
 * each named libX.so.<version> with its soname.
 */
void ldtree_driver(const char *host, const char *version);

/* A config (root.path "rootfs") mounting that driver's three libraries by soname in their
 * directories, as a CDI spec does. */
json_t *ldtree_config(const char *host, const char *version);

/* The path of the first entry of key with ldconfig -p's kind ("libc6,x86-64"), "" if none. */
char *ldtree_first(const char *cache, const char *key, const char *kind);

/* One suite's world under a fresh /tmp/cdikit-<name>.XXXXXX: a host driver 550.54.15
 * (ldtree_driver) and a bundle whose rootfs has an empty /etc; fini removes it all. */
struct ldtree_world {
	char tmp[64];
	char *host, *bundle, *rootfs, *cache; /* cache: the rootfs's /etc/ld.so.cache */
};
void ldtree_world_init(struct ldtree_world *w, const char *name);
void ldtree_world_fini(struct ldtree_world *w);

#endif
