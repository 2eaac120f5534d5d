/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CDI_ANNOTATIONS_H
#define CDI_ANNOTATIONS_H

#include <stddef.h>
#include <jansson.h>

#include <cdi/error.h>
#include <cdi/memory.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CDI_ANNOTATION_PREFIX "cdi.k8s.io/"

/* AnnotationKey: "cdi.k8s.io/<plugin>_<devid with / as _>", checked; free *ret_key with
 * cdi_free(). */
int cdi_annotation_key(const char *plugin, const char *device_id, char **ret_key,
		       struct cdi_error *err);

/*
 * UpdateAnnotations: add key(plugin, device_id) = devices joined by ','
 * to the JSON object annotations. Error when the key is already used or a
 * device is not a qualified name; annotations is unchanged on error.
 */
int cdi_annotations_update(json_t *annotations, const char *plugin, const char *device_id,
			   const char *const *devices, size_t n_devices, struct cdi_error *err);

/*
 * ParseAnnotations: the devices named by every cdi.k8s.io/ key of the JSON
 * object annotations (NULL allowed), in key order. ret_devices is a
 * NULL-terminated malloc'd array of malloc'd strings (free with
 * cdi_strv_free); *ret_n gets the count.
 */
int cdi_annotations_parse(const json_t *annotations, char ***ret_devices, size_t *ret_n,
			  struct cdi_error *err);

#ifdef __cplusplus
}
#endif

#endif
