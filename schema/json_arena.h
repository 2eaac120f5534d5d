/* SPDX-License-Identifier: Apache-2.0 */
/* A bump allocator for jansson in short-lived tools (internal; cdi-apply, cdi-generate). */
#ifndef CDIKIT_APPLY_JSON_ARENA_H
#define CDIKIT_APPLY_JSON_ARENA_H

/*
 * Make every jansson allocation of this process a pointer increment and every free a no-op;
 * the memory goes back with the process. Call before the first JSON value is made. Only for
 * programs that exit when done (cdi-apply, cdi-generate): a tree freed and rebuilt in a loop would grow.
 */
void json_arena_install(void);

#endif
