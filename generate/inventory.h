/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The host inventory (internal): everything discovery found on a host and everything assembly
 * needs to write its spec. Discovery (discover.h and its sources) fills it and never builds
 * spec objects; assembly (spec_build.h) turns it into a spec and never looks at the host. A test
 * or a new host mode can therefore build one by hand.
 */
#ifndef CDIKIT_INVENTORY_H
#define CDIKIT_INVENTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <cdi/error.h>

#define GPU_UUID_MAX 96
#define GPU_NAME_MAX 96
#define GPU_BUSID_MAX 32
#define GPU_VERSION_MAX 80
#define GPU_ARCH_MAX 16
#define GPU_MAX_COUNT 64
#define GPU_MAX_MIGS 8
/* DRM nodes of one GPU: card and render, and their by-path names (controlD is not taken). */
#define GPU_MAX_DRM 4

/* No node (yet): a GPU or MIG device whose nodes discovery did not look for. */
#define INV_NO_NODE ((size_t)-1)

/*
 * The driver capability a file or node belongs to (NVIDIA_DRIVER_CAPABILITIES), as
 * libnvidia-container files them (nvidia-driver-layout.md §1.1, §1.2). Unknown: goes with
 * every selection.
 */
enum drv_cap {
	DRV_CAP_UNKNOWN = 0,
	DRV_CAP_UTILITY,
	DRV_CAP_COMPUTE,
	DRV_CAP_VIDEO,
	DRV_CAP_GRAPHICS,
	DRV_CAP_DISPLAY,
	DRV_CAP_NGX,
};

/* "utility", ..., "ngx"; NULL for DRV_CAP_UNKNOWN. */
const char *drv_cap_name(enum drv_cap cap);

struct mig_device {
	unsigned index;		 /* position in nvmlDeviceGetMigDeviceHandleByIndex order */
	unsigned gi;		 /* nvmlDeviceGetGpuInstanceId */
	unsigned ci;		 /* nvmlDeviceGetComputeInstanceId */
	char uuid[GPU_UUID_MAX]; /* MIG-... */
	unsigned gi_cap_minor;	 /* mig-minors' gpu<minor>/gi<gi>/access */
	unsigned ci_cap_minor;	 /* mig-minors' gpu<minor>/gi<gi>/ci<ci>/access */
	size_t gi_node, ci_node; /* its nvidia-caps nodes in inventory.nodes, or INV_NO_NODE */
};

struct gpu_device {
	unsigned index;		    /* NVML index */
	unsigned minor;		    /* /dev/nvidia<minor> */
	char uuid[GPU_UUID_MAX];    /* GPU-... */
	char name[GPU_NAME_MAX];    /* the model: "NVIDIA A100-SXM4-40GB" */
	char bus_id[GPU_BUSID_MAX]; /* 0000:07:00.0 (4-digit domain, lower case) */
	const char *brand;	    /* libnvidia-container's name (static), NULL when unknown */
	char arch[GPU_ARCH_MAX];    /* CUDA compute capability "8.0", "" when unknown */
	bool mig_enabled;
	struct mig_device *migs;
	size_t n_migs;
	size_t node; /* /dev/nvidia<minor> in inventory.nodes, or INV_NO_NODE */
	/* Its /dev/dri nodes in inventory.nodes (card, render, then their by-path names), the
	 * ones nvidia-drm registered for it; none when nvidia-drm is not loaded. */
	size_t drm[GPU_MAX_DRM];
	size_t n_drm;
	/* The host path of its EGL application profile (EGLVisibleDGPUDevices = 1 << minor),
	 * mounted at APP_PROFILE_PATH in its device; NULL when the host has none. */
	char *app_profile;
};

/* Where NVIDIA's EGL and Vulkan drivers read a container's profile (nvidia-ctk's hook writes it
 * there), and the minors its bitmask can name. */
#define APP_PROFILE_PATH "/etc/nvidia/nvidia-application-profiles-rc.d/10-container.conf"
#define APP_PROFILE_MAX_MINOR 64u

enum node_role {
	NODE_CONTROL, /* nvidiactl, nvidia-uvm, nvidia-uvm-tools, nvidia-modeset */
	NODE_GPU,     /* /dev/nvidia<minor> */
	NODE_MIG_CAP, /* /dev/nvidia-caps/nvidia-cap<minor> */
	NODE_DRM,     /* /dev/dri/card<N>, renderD<N>, /dev/dri/by-path/pci-<bus>-{card,render} */
	NODE_OTHER,   /* whatever else a mode describes (management: IMEX channels, ...) */
};

/*
 * A device node. When error is 0 the node is a character device under dev-root and the
 * numbers are what lstat inside the root said; otherwise error (-ENOENT missing, -ELOOP a
 * symlink, -ENOTTY not a character device, -ESTALE numbers the driver contradicts) and
 * problem say what is wrong, and assembly decides whether that matters (it does for a node
 * the spec uses).
 */
struct inv_node {
	enum node_role role;
	enum drv_cap cap;
	char *path;	 /* in the container: /dev/nvidia0 (one allocation with host_path) */
	char *host_path; /* dev-root + path */
	int error;
	char *problem; /* the message of error, without the path; NULL when error is 0 */
	unsigned major, minor;
	mode_t mode; /* permission bits */
	gid_t gid;
};

/* A node only a group can use (not world read-write, group not root): a container user needs
 * that group, which the spec gives as additionalGids (what nvidia-ctk does). */
bool inv_node_needs_group(const struct inv_node *node);

enum inv_file_kind {
	INV_LIBRARY,
	INV_BINARY,
	INV_FIRMWARE,
	INV_IPC, /* sockets and the MPS pipe directory: mounted writable, noexec */
	INV_CONFIG,
};

/*
 * A driver file and the places it goes in a container. container_paths[0] is the file's own
 * place (a library at its host path, a binary in /usr/bin); the others are further names
 * (sonames, the host's links) that lose to any file's own place when two files want one
 * path. A 32-bit file loses to a 64-bit one of the same standing; then lower rank wins.
 */
struct inv_file {
	enum inv_file_kind kind;
	enum drv_cap cap;
	bool is32;
	char *host_path; /* the real file: root + its real path inside the root */
	char **container_paths;
	size_t n_container_paths, cap_container_paths;
	unsigned rank; /* discovery order (ld.so.cache order first); 0 for non-libraries */
	/* A library's DT_SONAME (NULL: none) and the flags ldconfig files it under (-1: none), as
	 * its linker cache entry in the library directory records them. */
	char *soname;
	int32_t ldflags;
};

/*
 * A device of a spec that does not enumerate GPUs (the wsl, csv, imex, nvswitch, gds, mofed and
 * gdrcopy modes): a name and a run of inventory nodes. Assembly adds "all" (every node) unless
 * a device has that name.
 */
struct inv_device {
	char name[32];	   /* "all", "2047" (an IMEX channel) */
	bool gpu_index;	   /* name is a GPU index: named by the strategies ("0", "gpu0") */
	size_t first_node; /* inventory.nodes[first_node .. first_node + n_nodes) */
	size_t n_nodes;
};

struct inventory {
	char driver_version[GPU_VERSION_MAX]; /* "550.54.15" */
	int cuda_version;	 /* 12040 (nvmlSystemGetCudaDriverVersion), 0 unknown */
	struct gpu_device *gpus; /* by index */
	size_t n_gpus;
	struct inv_node *nodes;
	size_t n_nodes, cap_nodes;
	struct inv_file *files;
	size_t n_files, cap_files;
	/* Set by the sources of a mode whose spec is not the GPU spec; none for GPU specs. */
	struct inv_device *devices;
	size_t n_devices, cap_devices;
	/* The spec brings a driver's files (the GPU, WSL and Jetson specs): its facts file tells
	 * that driver's versions. */
	bool has_driver;
};

void inventory_clear(struct inventory *inv);
void gpu_devices_free(struct gpu_device *gpus, size_t n);

/*
 * Append a node (path and host_path copied, error 0) and return its position in *ret_index.
 * The node is valid until the next append.
 */
int inventory_add_node(struct inventory *inv, enum node_role role, enum drv_cap cap,
		       const char *path, const char *host_path, size_t *ret_index,
		       struct cdi_error *err);
/* Record what is wrong with a node (printf-style message, without the path). */
int inv_node_set_problem(struct inv_node *node, int error, struct cdi_error *err, const char *fmt,
			 ...) __attribute__((format(printf, 4, 5)));

/* Append a file (host_path copied) with no container path yet; *ret valid until the next. */
int inventory_add_file(struct inventory *inv, enum inv_file_kind kind, enum drv_cap cap, bool is32,
		       const char *host_path, unsigned rank, struct inv_file **ret,
		       struct cdi_error *err);
/* Add a container path a + b + c (any may be "") to a file; a path it has already is skipped. */
int inv_file_add_path(struct inv_file *file, const char *a, const char *b, const char *c,
		      struct cdi_error *err);

/*
 * Of two files wanting one container path (or one name of the library directory), which one
 * has it: the lower prio (the caller's standing: own place before a name), then the lower rank,
 * then the host path. Negative when a wins.
 */
int inv_file_standing_cmp(const struct inv_file *a, unsigned prio_a, const struct inv_file *b,
			  unsigned prio_b);

/* Append a device of the nodes [first_node, first_node + n_nodes). */
int inventory_add_device(struct inventory *inv, const char *name, bool gpu_index, size_t first_node,
			 size_t n_nodes, struct cdi_error *err);

/* The "major.minor" CUDA version of inv->cuda_version ("12.4"); false when unknown. */
bool inventory_cuda_version(const struct inventory *inv, char *buf, size_t size);

#endif
