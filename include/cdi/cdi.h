/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CDI_CDI_H
#define CDI_CDI_H

/*
 * libcdi: Container Device Interface specs and their application to OCI runtime specs.
 * Link with `pkg-config --cflags --libs libcdi`.
 *
 * JSON values in this API are jansson's json_t (<jansson.h>, https://jansson.readthedocs.io):
 * a spec's tree (cdi_spec_json), a device (cdi_registry_lookup), the OCI config edits are
 * applied to (cdi_registry_inject, cdi_apply_edits), the annotations object. CDI specs and OCI
 * configs are JSON documents, and a runtime that edits config.json already holds it as a tree;
 * jansson's types are that tree, with a stable ABI (libjansson.so.4) and reference counting
 * that fits values shared between a spec and a config. libcdi.pc therefore Requires jansson.
 * Values libcdi returns are borrowed (owned by the spec or registry they come from) unless a
 * function says otherwise.
 */

#include <cdi/error.h>
#include <cdi/memory.h>
#include <cdi/names.h>
#include <cdi/spec.h>
#include <cdi/registry.h>
#include <cdi/annotations.h>

#define CDI_SPEC_CURRENT_VERSION "1.1.0"

#endif
