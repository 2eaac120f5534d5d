/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Devices of cdi-generate's other modes that a GPU container asks for beside its GPUs
 * (internal to apply/): IMEX channels (NVIDIA_IMEX_CHANNELS, or imex/<id> volume mounts) and the
 * gated modes (NVIDIA_GDS, NVIDIA_MOFED, NVIDIA_GDRCOPY, NVIDIA_NVSWITCH = enabled), as
 * nvidia-container-runtime v1.20 reads them (internal/config/image/cuda_image.go,
 * internal/modifier/cdi.go). Each lives in a spec of its own kind that cdi-generate --mode <mode>
 * writes, so a missing one is named with that command.
 */
#ifndef CDIKIT_APPLY_MODE_DEVICES_H
#define CDIKIT_APPLY_MODE_DEVICES_H

#include <stdbool.h>
#include <stddef.h>

#include <cdi/error.h>
#include <cdi/registry.h>

#define IMEX_CHANNELS_ENV "NVIDIA_IMEX_CHANNELS"
#define IMEX_CHANNEL_KIND "nvidia.com/imex-channel"
/* A channel is the minor of a device number: 20 bits (nvcdi's lib-imex.go since v1.20). */
#define IMEX_CHANNEL_MAX ((1ul << 20) - 1)
/* The only value of a gated variable that asks for anything (case-sensitive). */
#define GATED_ENABLED "enabled"

enum gated_mode { GATED_GDS, GATED_MOFED, GATED_GDRCOPY, GATED_NVSWITCH, GATED_N };
#define GATED_GDS_ENV "NVIDIA_GDS"
#define GATED_MOFED_ENV "NVIDIA_MOFED"
#define GATED_GDRCOPY_ENV "NVIDIA_GDRCOPY"
#define GATED_NVSWITCH_ENV "NVIDIA_NVSWITCH"

/* A device asked for beside the GPUs. */
struct mode_device {
	char *name;	  /* qualified: nvidia.com/imex-channel=3, nvidia.com/gds=all */
	const char *mode; /* cdi-generate's --mode that writes its spec: "imex", "gds", ... */
	char *origin;	  /* what asked, for messages: "NVIDIA_GDS=enabled", a mount's path */
};

struct mode_devices {
	struct mode_device *v; /* no name twice */
	size_t n, cap;
};

void mode_devices_done(struct mode_devices *d);

/*
 * The channel ids NVIDIA_IMEX_CHANNELS lists, by the runtime's list rules: comma-separated,
 * spaces around items trimmed, empty items skipped, repeats dropped; unset, no item, or an
 * item void, none or all anywhere: none (the runtime ignores "all", which a legacy image's
 * default would otherwise turn into every channel). *ret NULL-terminated; may be empty.
 */
int imex_channels_parse(const char *value, char ***ret, size_t *ret_n, struct cdi_error *err);

/*
 * Ask for IMEX channel id (origin: what asked): nvidia.com/imex-channel=<id>, "channel<N>"
 * read as N as nvcdi does; id is digits up to IMEX_CHANNEL_MAX, kept as written, or (from a
 * volume mount only, allow_all) "all". Anything else is -EINVAL naming origin and id.
 */
int mode_devices_add_imex(struct mode_devices *d, const char *id, bool allow_all,
			  const char *origin, struct cdi_error *err);

/* The gated modes whose variable (values, indexed by enum gated_mode; NULL unset) is
 * exactly "enabled": nvidia.com/<mode>=all each. */
int mode_devices_add_gated(struct mode_devices *d, const char *const *values,
			   struct cdi_error *err);

/* The variable of a gated mode ("NVIDIA_GDS"). */
const char *gated_mode_env(enum gated_mode m);

/*
 * Every device of d must be in reg: the first that is not is -ENOENT with one problem naming
 * what asked for it, the device, the directories searched and the cdi-generate command that
 * writes its spec.
 */
int mode_devices_check(const struct mode_devices *d, const cdi_registry *reg,
		       struct cdi_error *err);

#endif
