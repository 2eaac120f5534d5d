/* SPDX-License-Identifier: Apache-2.0 */
/* FNV-1a, the one string hash of cdikit's tables (internal). Not for adversarial keys. */
#ifndef CDIKIT_HASH_H
#define CDIKIT_HASH_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t hash_fnv1a64(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* 32-bit tables take the 64-bit hash folded; FNV's low bits alone mix poorly. */
static inline uint32_t hash_fnv1a32(const void *data, size_t len)
{
	uint64_t h = hash_fnv1a64(data, len);

	return (uint32_t)(h ^ (h >> 32));
}

#endif
