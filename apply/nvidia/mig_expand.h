/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A request for a GPU in MIG mode, by its index or UUID, becomes requests for all of its MIG
 * devices (internal to apply/). A MIG-mode GPU has no device of its own in the spec (rightly:
 * its nodes alone give no compute), but Docker's --gpus 2 sends NVIDIA_VISIBLE_DEVICES=0,1
 * whatever the GPUs' modes, as nvidia-container-cli accepted.
 */
#ifndef CDIKIT_APPLY_MIG_EXPAND_H
#define CDIKIT_APPLY_MIG_EXPAND_H

#include <cdi/registry.h>

#include "device_requests.h"

/*
 * Settle r against reg: repeats dropped (first kept); for requests that came from
 * NVIDIA_VISIBLE_DEVICES, each nvidia.com/gpu=X that reg cannot resolve becomes
 *   - X an index N: every nvidia.com/gpu=N:M reg has, M ascending;
 *   - X a GPU UUID: the MIG devices the facts file beside the kind's spec lists for that GPU
 *     (each by the first of its names reg resolves).
 * Anything else is left for the injection to report as unresolvable. A facts file that is
 * needed but unreadable is an error naming it; a missing one is not (the UUID stays as asked).
 */
int mig_expand(const cdi_registry *reg, struct device_requests *r, struct cdi_error *err);

#endif
