/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Device lists as volume mounts (internal to apply/): NVIDIA's k8s device plugin, with its
 * volume-mounts list strategy, bind-mounts /dev/null at
 * /var/run/nvidia-container-devices/<device> for each device it allocated, and
 * nvidia-container-runtime reads those mounts instead of NVIDIA_VISIBLE_DEVICES when its
 * accept-nvidia-visible-devices-as-volume-mounts is true (internal/config/image/cuda_image.go
 * requestsFromMounts). A mount's destination is set by the kubelet from the plugin's answer,
 * not by the pod, which is what makes this channel trusted.
 */
#ifndef CDIKIT_APPLY_MOUNT_REQUESTS_H
#define CDIKIT_APPLY_MOUNT_REQUESTS_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include <cdi/error.h>

#define VOLUME_MOUNTS_ROOT "/var/run/nvidia-container-devices"
/* The runtime.conf key (nvidia-container-toolkit's config.toml name) and its default. */
#define VOLUME_MOUNTS_SETTING "accept-nvidia-visible-devices-as-volume-mounts"
#define VOLUME_MOUNTS_DEFAULT false

struct mount_requests {
	char **gpus; /* device names: nvidia.com/gpu=<id>, or the CDI name of a cdi/ mount */
	size_t n_gpus;
	char **imex; /* IMEX channel ids (imex/<id>), as written */
	size_t n_imex;
	char **imex_paths; /* the mount destination each channel came from */
};

/*
 * The requests among oci's mounts: a mount whose source is /dev/null and whose destination
 * lies under VOLUME_MOUNTS_ROOT (both cleaned as Go's filepath.Clean does); the rest of the
 * destination is
 *   imex/<id>                                          an IMEX channel;
 *   cdi/<vendor>/<class>/<device>, cdi/<vendor>/<class>=<device>  a CDI device;
 *   <id>                              an NVIDIA_VISIBLE_DEVICES item (visible_device_name()).
 * In mounts order, each device once. The mounts themselves stay in oci, as NVIDIA leaves them.
 * A cdi/ request of neither form is -EINVAL naming the mount.
 */
int mount_requests_read(const json_t *oci, struct mount_requests *ret, struct cdi_error *err);

void mount_requests_done(struct mount_requests *m);

#endif
