/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cdi-apply and cdi-generate build a few thousand small JSON values (a spec's mounts, the
 * config's edits) and exit: glibc's malloc and free spend more instructions on them than the
 * parsing and building that make them. Here an allocation is a pointer increment in a chunk,
 * and a free only counts: a chunk whose values are all freed is given back (or, the current
 * one, reused), so a tree that is built and dropped, such as an invalid spec the registry
 * skips, costs its memory only while it lives.
 *
 * Chunks are CHUNK_SIZE-aligned, so a value's chunk is its address rounded down. They stay
 * linked from a static list, so valgrind sees the ones left at exit as reachable, not leaked.
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
	struct chunk *prev, *next;
	size_t live; /* values not freed yet */
	alignas(max_align_t) unsigned char data[];
};

static struct chunk *chunks;  /* every chunk, for valgrind */
static struct chunk *current; /* where small values go */
static size_t used;

static struct chunk *chunk_new(size_t size)
{
	size_t total;
	struct chunk *c;

	if (size > SIZE_MAX - sizeof(struct chunk) - CHUNK_SIZE)
		return NULL;
	total = (sizeof(struct chunk) + size + CHUNK_SIZE - 1) & ~(size_t)(CHUNK_SIZE - 1);
	c = aligned_alloc(CHUNK_SIZE, total);
	if (!c)
		return NULL;
	*c = (struct chunk){ .next = chunks };
	if (chunks)
		chunks->prev = c;
	chunks = c;
	return c;
}

static void *arena_malloc(size_t size)
{
	const size_t room = CHUNK_SIZE - offsetof(struct chunk, data);
	struct chunk *c;

	size = (size + alignof(max_align_t) - 1) & ~(size_t)(alignof(max_align_t) - 1);
	if (size >= BIG_SIZE) {
		c = chunk_new(size);
		if (!c)
			return NULL;
		c->live = 1;
		return c->data;
	}
	if (!current || room - used < size) {
		c = chunk_new(room);
		if (!c)
			return NULL;
		current = c;
		used = 0;
	}
	used += size;
	current->live++;
	return current->data + used - size;
}

static void arena_free(void *p)
{
	struct chunk *c;

	if (!p)
		return;
	c = (struct chunk *)((uintptr_t)p & ~(uintptr_t)(CHUNK_SIZE - 1));
	if (--c->live > 0)
		return;
	if (c == current) {
		used = 0; /* empty again: start over in it */
		return;
	}
	if (c->prev)
		c->prev->next = c->next;
	else
		chunks = c->next;
	if (c->next)
		c->next->prev = c->prev;
	free(c);
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
