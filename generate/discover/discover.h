/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Discovery (internal): looking at a host and filling its inventory. Never builds spec objects.
 *
 * discover() runs the sources a mode needs, in order: the driver's presence and version, the
 * host's ld.so.cache, one GPU source (NVML, /proc), the device nodes, the driver's files. A new
 * kind of host (WSL, Jetson's CSV files, IMEX, NVSwitch) is a new source: a function that
 * takes the discovery state and adds GPUs, nodes or files to d->inv; assembly stays the same.
 */
#ifndef CDIKIT_DISCOVER_H
#define CDIKIT_DISCOVER_H

#include <stdbool.h>

#include <cdi/error.h>

#include "host/host.h"
#include "inventory.h"
#include "ldcache.h"
#include "host/root_fs.h"

#define NVML_SONAME "libnvidia-ml.so.1"

enum gen_mode {
	MODE_AUTO,	 /* nvml if NVML loads, else procfs */
	MODE_NVML,	 /* GPUs and MIG devices from NVML */
	MODE_PROCFS,	 /* full GPUs from /proc, no MIG */
	MODE_MANAGEMENT, /* every NVIDIA device node, no GPU enumeration */
	/* Specs without GPU enumeration, each a source of its own (inventory.devices). */
	MODE_WSL,      /* WSL2: /dev/dxg and the Windows driver store */
	MODE_CSV,      /* Jetson/Tegra: what the CSV files of host-files-for-container.d list */
	MODE_IMEX,     /* one device per IMEX channel */
	MODE_NVSWITCH, /* NVSwitch and NVLink nodes, the fabric manager's socket */
	MODE_GDS,      /* GPUDirect Storage: nvidia-fs nodes, cufile.json, /run/udev */
	MODE_MOFED,    /* InfiniBand verbs and rdma_cm */
	MODE_GDRCOPY,  /* /dev/gdrdrv */
};

/* nvidia-ctk's name of a mode ("auto", "wsl", ...). */
const char *gen_mode_name(enum gen_mode mode);

struct discover_options {
	enum gen_mode mode;
	const char *nvml_lib; /* NULL: libnvidia-ml.so.1 found in the driver root */
	bool no_ipc; /* no IPC sockets, no MPS pipe directory (gVisor cannot bind-mount them) */
};

/* The state the sources share during one discovery. */
struct discovery {
	const struct gen_host *host;
	struct root_fs host_fs;	  /* host->root: /proc, /run */
	struct root_fs driver_fs; /* host->driver_root: libraries, binaries, firmware, configs */
	struct ldcache *cache;	  /* the driver root's ld.so.cache; NULL when missing or unusable */
	struct inventory *inv;
	struct cdi_error *warn; /* worth saying, not fatal (may be NULL) */
	struct cdi_error *err;
	bool no_ipc; /* discover_options.no_ipc */
};

/*
 * Fill inv (zero-initialised; inventory_clear() frees it, also after a failure) with what the
 * host has. -ENODEV with "no NVIDIA driver found: ROOT/proc/driver/nvidia is missing" when
 * the host has no driver loaded.
 */
int discover(const struct gen_host *host, const struct discover_options *opts,
	     struct inventory *inv, struct cdi_error *warn, struct cdi_error *err);

/* The state of one discovery over host into inv, for running sources one by one (tests, a new
 * mode); discovery_done() frees what the sources left in it. */
void discovery_init(struct discovery *d, const struct gen_host *host, struct inventory *inv,
		    struct cdi_error *warn, struct cdi_error *err);
void discovery_done(struct discovery *d);

/* The driver root's ld.so.cache into d->cache: missing is fine (NULL); empty or corrupt is a
 * warning and NULL (the standard library directories are searched all the same); a FIFO,
 * device or link out of the root is an error. */
int discovery_load_cache(struct discovery *d);

/* Sources (one file each). */

/* GPUs from /proc/driver/nvidia/gpus/<bus>/information (discover_procfs.c): no MIG devices; a
 * GPU with GPU instances comes back mig_enabled. */
int discover_procfs_gpus(struct discovery *d);

/* Control, GPU and MIG capability nodes of the inventory's GPUs (dev_nodes.c). */
int discover_gpu_nodes(struct discovery *d);
/* Every NVIDIA device node under dev-root, for the management spec (dev_nodes.c). */
int discover_all_nodes(struct discovery *d);

/* Each GPU's EGL application profile, when cdikit's are installed in the root (app_profile.c). */
int discover_app_profiles(struct discovery *d);

/* Which character devices of a directory a mode's spec has (dev_nodes.c). */
struct node_pattern {
	const char *dir;	/* under dev-root: "/dev/infiniband" */
	const char *pattern;	/* fnmatch(3) pattern of the names: "uverbs*" */
	const char *major_name; /* /proc/devices name the nodes' major must have; NULL: any */
	bool minor_suffix;	/* the minor is the number that ends the name (channel7: 7) */
};
/* The character devices matching each pattern, sorted by name within one, added to d->inv as
 * NODE_OTHER (a path it has already is skipped); links and other files are not nodes. */
int discover_pattern_nodes(struct discovery *d, const struct node_pattern *p, size_t n_patterns);

/* The spec of a fabric, storage or network mode (MODE_IMEX .. MODE_GDRCOPY:
 * discover_fabric.c): its nodes and files, and its devices. */
int discover_fabric(struct discovery *d, enum gen_mode mode);

/* A WSL2 guest (discover_wsl.c): /dev/dxg as the device "all", the driver store's files. */
int discover_wsl(struct discovery *d);

/* A Jetson (discover_csv.c): the device "0" of the CSV files' dev rows, their other rows as
 * files. */
int discover_csv(struct discovery *d);

/* What --mode auto finds (platform.c): MODE_WSL (/dev/dxg and no /proc/driver/nvidia),
 * MODE_CSV (a Tegra SoC whose driver lists no GPU in /proc/driver/nvidia/gpus), else
 * MODE_AUTO (a GPU host). */
enum gen_mode discover_platform(struct discovery *d);

/* A file or directory of a root (the real one, links followed inside it) mounted at path
 * (discover_wsl.c); -ENOENT (no problem) when it is not there as type (S_IFREG, S_IFDIR, or
 * 0 for either). */
int discovery_add_path(struct discovery *d, struct root_fs *fs, const char *path, mode_t type,
		       enum inv_file_kind kind, const char *container_path);

/* The driver's libraries, binaries, firmware, IPC sockets and configs (driver_files.c). */
int discover_driver_files(struct discovery *d);

#endif
