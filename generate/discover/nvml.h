/* SPDX-License-Identifier: Apache-2.0 */
/* GPUs and MIG devices as NVML reports them: a discovery source (internal). */
#ifndef CDIKIT_NVML_H
#define CDIKIT_NVML_H

#include <cdi/error.h>

#include "inventory.h"

/*
 * Load NVML from lib_path with dlopen (every symbol by dlsym; the MIG, brand and compute
 * capability calls optional) and fill the inventory's driver version, CUDA version and GPUs
 * (with their MIG devices, brand and compute capability). Nodes are left to discovery.
 * -ELIBACC when the library cannot be loaded.
 */
int nvml_enumerate(const char *lib_path, struct inventory *inv, struct cdi_error *err);

#endif
