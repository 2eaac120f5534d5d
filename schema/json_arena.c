/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cdi-apply and cdi-generate build a few thousand small JSON values (a spec's mounts, the
 * config's edits) and exit: glibc's malloc and free spend more instructions on them than the
 * parsing and building that make them.
 * Chunks stay linked from a static list, so valgrind sees them as reachable, not leaked.
 */
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <jansson.h>

#include "json_arena.h"

#define CHUNK_SIZE (256u * 1024)
#define BIG_SIZE (CHUNK_SIZE / 4) /* larger requests get a chunk of their own */

struct chunk {
	struct chunk *next;
	alignas(max_align_t) unsigned char data[];
};

static struct chunk *chunks;
static size_t used = CHUNK_SIZE, avail = CHUNK_SIZE;

static void *arena_malloc(size_t size)
{
	struct chunk *c;

	size = (size + alignof(max_align_t) - 1) & ~(size_t)(alignof(max_align_t) - 1);
	if (size >= BIG_SIZE) {
		if (size > SIZE_MAX - sizeof(*c))
			return NULL;
		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		/* Behind the current chunk, so its free space stays in use. */
		c->next = chunks ? chunks->next : NULL;
		if (chunks)
			chunks->next = c;
		else
			chunks = c;
		return c->data;
	}
	if (avail - used < size) {
		c = malloc(sizeof(*c) + CHUNK_SIZE);
		if (!c)
			return NULL;
		c->next = chunks;
		chunks = c;
		used = 0;
		avail = CHUNK_SIZE;
	}
	used += size;
	return chunks->data + used - size;
}

static void arena_free(void *p)
{
	(void)p;
}

void json_arena_install(void)
{
#ifndef __SANITIZE_ADDRESS__
	json_set_alloc_funcs(arena_malloc, arena_free);
#else
	/* Under AddressSanitizer every JSON value keeps its own allocation, so a use after
	 * free in the tools is still caught (make check SANITIZE=1). */
	(void)arena_malloc;
	(void)arena_free;
#endif
}
