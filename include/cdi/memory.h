/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CDI_MEMORY_H
#define CDI_MEMORY_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Freeing what libcdi hands over. Objects have their own: cdi_spec_free(), cdi_registry_free(),
 * cdi_error_reset(). Strings and buffers (a name part, an annotation key, an emitted spec)
 * come from malloc() and go with cdi_free() (or free(): they are the same); NULL is fine.
 */
void cdi_free(void *p);

/* A NULL-terminated vector of strings (cdi_annotations_parse): every string, then the vector. */
void cdi_strv_free(char **strv);

#ifdef __cplusplus
}
#endif

#endif
