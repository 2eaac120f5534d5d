/* SPDX-License-Identifier: Apache-2.0 */
/* A bump allocator for jansson in short-lived tools (internal; cdi-apply, cdi-generate). */
#ifndef CDIKIT_JSON_ARENA_H
#define CDIKIT_JSON_ARENA_H

/*
 * Make every jansson allocation of this process a pointer increment in a chunk and every free
 * a count; a chunk goes back when all its values are freed. Call before the first JSON value is
 * made. For programs that build a few trees and exit (cdi-apply, cdi-generate): a long-lived
 * value keeps its whole chunk alive, so a daemon that rebuilds trees in a loop could grow.
 */
void json_arena_install(void);

#endif
