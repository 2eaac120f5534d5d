/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CUDA forward compatibility (internal to apply/): an image built for a newer CUDA ships the
 * newer driver's user-space libraries in /usr/local/cuda/compat; they must be loaded instead of
 * the host's older ones, or CUDA reports "driver version is insufficient". As nvidia-ctk's
 * enable-cuda-compat hook decides: only when the compat libcuda's driver major version is
 * greater than the host driver's (560 compat on a 550 host yes, 550.90 on 550.54 no).
 */
#ifndef CDIKIT_APPLY_CUDA_COMPAT_H
#define CDIKIT_APPLY_CUDA_COMPAT_H

#include "ldcache_merge.h"

#define CUDA_COMPAT_DIR "/usr/local/cuda/compat"

/*
 * When the rootfs at root_fd has a compat libcuda newer than host_major, add the libraries of
 * CUDA_COMPAT_DIR (regular ELF files; links are the image's names for them) to m at
 * LDCACHE_RANK_COMPAT and set *ret_used. A missing or unreadable directory is no compat.
 */
int cuda_compat_add(int root_fd, unsigned host_major, struct ldcache_merge *m, int *ret_used);

#endif
