/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CDI_CDI_H
#define CDI_CDI_H

/* libcdi: Container Device Interface specs and their application to OCI
 * runtime specs. Link with pkg-config --libs libcdi. */

#include <cdi/error.h>
#include <cdi/names.h>
#include <cdi/spec.h>
#include <cdi/registry.h>
#include <cdi/annotations.h>

#define CDI_SPEC_CURRENT_VERSION "1.1.0"

#endif
