/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NVIDIA_DRIVER_CAPABILITIES (internal to apply/): which driver files and nodes a container
 * gets, with libnvidia-container's groups and the rules that tie them (options.h): video
 * brings compute's libraries (not its binaries), display brings graphics, compat32 adds the
 * 32-bit copies of the groups asked for and nothing else.
 */
#ifndef CDIKIT_APPLY_DRIVER_CAPS_H
#define CDIKIT_APPLY_DRIVER_CAPS_H

#include <stdbool.h>
#include <jansson.h>

#include <cdi/error.h>

#define DRIVER_CAPS_ENV "NVIDIA_DRIVER_CAPABILITIES"

enum driver_cap {
	DRIVER_CAP_UTILITY = 1u << 0,
	DRIVER_CAP_COMPUTE = 1u << 1,
	DRIVER_CAP_VIDEO = 1u << 2,
	DRIVER_CAP_GRAPHICS = 1u << 3,
	DRIVER_CAP_DISPLAY = 1u << 4,
	DRIVER_CAP_NGX = 1u << 5,
	DRIVER_CAP_COMPAT32 = 1u << 6,
};
#define DRIVER_CAPS_ALL 0x7fu
/* What an empty or unset variable means. */
#define DRIVER_CAPS_DEFAULT (DRIVER_CAP_UTILITY | DRIVER_CAP_COMPUTE)

/*
 * The set a value of NVIDIA_DRIVER_CAPABILITIES asks for, as nvidia-container-toolkit reads it:
 * NULL or "" is the default (utility,compute); otherwise comma-separated names, spaces around
 * them trimmed, empty items skipped (so " , " asks for nothing), case-sensitive; "all"
 * anywhere means every capability. An unknown name, unless "all" is there too, is -EINVAL with
 * a problem naming it (the toolkit's hook fails the container the same way).
 */
int driver_caps_parse(const char *value, unsigned *ret_caps, struct cdi_error *err);

/* "compute,utility" (libnvidia-container's order), "all", or "" for none, in buf. */
#define DRIVER_CAPS_NAME_MAX 64
char *driver_caps_name(unsigned caps, char buf[static DRIVER_CAPS_NAME_MAX]);

/*
 * Whether a mount containerPath or device node path whose recorded capability is tag
 * ("compute", "graphics/32"... as the facts file writes them) goes into a container asking
 * for caps. An unrecorded (NULL) or unknown tag goes with every selection, except the three
 * nodes libnvidia-container ties to a capability: /dev/nvidia-uvm and /dev/nvidia-uvm-tools
 * need compute's libraries (compute or video), /dev/nvidia-modeset needs display.
 * A compute or utility file under a bin/ or sbin/ directory is a binary: video does not bring
 * compute's binaries.
 */
bool driver_caps_keep(unsigned caps, const char *tag, const char *path);

/*
 * A new containerEdits object: edits with only the deviceNodes and mounts that
 * driver_caps_keep() keeps, tags being the facts' "capabilities" object (path -> tag); every
 * other field as it was. edits is never changed; the result shares its unchanged values and the
 * kept entries with it (as json_object_set() does): copy one before changing it in place.
 * tags NULL (no facts recorded): an unfiltered copy.
 */
int driver_caps_filter_edits(const json_t *edits, const json_t *tags, unsigned caps,
			     json_t **ret_edits, struct cdi_error *err);

#endif
