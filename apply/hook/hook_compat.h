/* SPDX-License-Identifier: Apache-2.0 */
/*
 * enable-cuda-compat (internal to apply/hook/): NVIDIA's v1.20 choice of the image's CUDA
 * forward-compatibility libraries over the host driver's, written as a drop-in that puts the
 * compat directory first for the update-ldcache that follows it in the spec.
 */
#ifndef CDIKIT_APPLY_HOOK_COMPAT_H
#define CDIKIT_APPLY_HOOK_COMPAT_H

#include <stdbool.h>
#include <stddef.h>

#include <cdi/error.h>

#define COMPAT_DEFAULT_ROOT "/usr/local/cuda/compat"
#define COMPAT_DROPIN "00-compat-"
/* The ELF note the compat libcuda carries since CUDA 12.9's compat packages. */
#define COMPAT_NOTE_SECTION ".note.cuda.fwd_compatibility"
#define COMPAT_NOTE_OWNER "NVIDIA Corporation"

struct hook_compat {
	const char *host_driver_version; /* --host-driver-version, NULL or "" when not given */
	const char *host_cuda_version;	 /* --host-cuda-version */
	const char *compat_root;	 /* --cuda-compat-container-root, NULL: the default */
};

/* What the compat libcuda's note says; found false when it has none. */
struct compat_note {
	bool found;
	char *cuda_version;	/* "CUDA Version": "12.9" */
	unsigned long *drivers; /* "Driver": the driver branches it supports */
	size_t n_drivers;
};

void compat_note_clear(struct compat_note *note);

/*
 * Parse the bytes of the note section (the file's byte order msb, the section's alignment):
 * 1 with *ret filled, 0 when it is not NVIDIA's note, -EINVAL when its text is not the JSON
 * expected. Every length is checked against len.
 */
int compat_note_parse(const char *data, size_t len, bool msb, unsigned long long align,
		      struct compat_note *ret);

/*
 * UseCompat(): whether a compat driver of version compat beats the host (host_driver and
 * host_cuda NULL when unknown, each a valid version): with the note, the host driver's branch
 * must be one the note lists and compat newer than it, else (no host driver) the note's CUDA
 * version newer than the host's; without the note, compat's major above the host driver's.
 */
bool compat_use(const char *compat, const char *host_driver, const char *host_cuda,
		const struct compat_note *note);

/*
 * When the rootfs has exactly one compat libcuda.so.<version> (a regular file) in the compat
 * root and compat_use() says so, write LD_CONF_D/00-compat-<N>.conf naming that directory as
 * the container sees it (its links resolved inside the rootfs). Anything that rules it out
 * is no change; what looks wrong (several compat libraries, a version that does not parse) is
 * a warning. Problems name the file that could not be written.
 */
int hook_enable_cuda_compat(int root_fd, const struct hook_compat *opts, struct cdi_error *warnings,
			    struct cdi_error *err);

#endif
