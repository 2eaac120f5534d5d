/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The specs of nvidia-ctk's imex, nvswitch, gds, mofed and gdrcopy modes, a discovery source:
 * each lists the nodes of one subsystem (and the few files it needs) as a spec of its own
 * kind, so that a GPU spec never carries them (nvidia-ctk.md §2 "Other modes").
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "discover.h"
#include "macro.h"
#include "problem.h"

/* What one mode lists: its node patterns, the files it mounts, what to say when it has none. */
struct fabric_mode {
	enum gen_mode mode;
	struct node_pattern nodes[2];
	struct {
		bool host; /* under the host root (/run); else the driver root */
		const char *path;
		mode_t type;
		enum inv_file_kind kind;
	} files[2];
	const char *none; /* "no ... under <dev-root>" */
};

static const struct fabric_mode fabric_modes[] = {
	{ MODE_IMEX,
	  { { "/dev/nvidia-caps-imex-channels", "channel[0-9]*", "nvidia-caps-imex-channels",
	      true } },
	  { { 0 } },
	  "IMEX channels (/dev/nvidia-caps-imex-channels/channel<N>: nvidia-modprobe -i N, or the nvidia module's NVreg_CreateImexChannel0=1)" },
	{ MODE_NVSWITCH,
	  { { "/dev", "nvidia-nvswitch*", "nvidia-nvswitch", true },
	    { "/dev", "nvidia-nvlink", NULL, false } },
	  { { true, "/run/nvidia-fabricmanager/socket", S_IFSOCK, INV_IPC },
	    { true, "/var/run/nvidia-fabricmanager/socket", S_IFSOCK, INV_IPC } },
	  "NVSwitch nodes (/dev/nvidia-nvswitch*)" },
	{ MODE_GDS,
	  { { "/dev", "nvidia-fs*", "nvidia-fs", true } },
	  { { false, "/etc/cufile.json", S_IFREG, INV_CONFIG },
	    { true, "/run/udev", S_IFDIR, INV_CONFIG } },
	  "GPUDirect Storage nodes (/dev/nvidia-fs*: is nvidia_fs loaded?)" },
	{ MODE_MOFED,
	  /* What verbs and RDMA CM users open; umad and issm are the subnet manager's. */
	  { { "/dev/infiniband", "uverbs*", NULL, false },
	    { "/dev/infiniband", "rdma_cm", NULL, false } },
	  { { 0 } },
	  "InfiniBand verbs nodes (/dev/infiniband/uverbs*: is ib_uverbs loaded?)" },
	{ MODE_GDRCOPY,
	  { { "/dev", "gdrdrv", "gdrdrv", false } },
	  { { 0 } },
	  "gdrcopy node (/dev/gdrdrv: is gdrdrv loaded?)" },
};

/* Every node of the run from first, one device each, named by its number (channel7: "7"). */
static int channel_devices(struct discovery *d, size_t first)
{
	size_t n = d->inv->n_nodes;
	int r = 0;

	for (size_t i = first; r >= 0 && i < n; i++) {
		const char *name = strrchr(d->inv->nodes[i].path, '/') + 1;

		r = inventory_add_device(d->inv, name + strlen("channel"), false, i, 1, d->err);
	}
	return r;
}

int discover_fabric(struct discovery *d, enum gen_mode mode)
{
	const struct fabric_mode *m = NULL;
	size_t first = d->inv->n_nodes;
	bool have_socket = false;
	int r;

	for (size_t i = 0; i < ELEMENTSOF(fabric_modes); i++)
		if (fabric_modes[i].mode == mode)
			m = &fabric_modes[i];
	if (!m)
		return cdi_fail(d->err, -EINVAL, "no such fabric mode: %s", gen_mode_name(mode));
	r = discover_pattern_nodes(d, m->nodes, m->nodes[1].dir ? 2 : 1);
	if (r < 0)
		return r;
	if (d->inv->n_nodes == first) {
		_cleanup_free_ char *dev = host_path(d->host->dev_root, m->nodes[0].dir);

		return cdi_problem_add(d->err, -ENODEV, dev, 0, 0, NULL, "no %s", m->none);
	}
	for (size_t i = 0; i < ELEMENTSOF(m->files) && m->files[i].path; i++) {
		/* /var/run -> /run: the socket once; none with --no-ipc. */
		if ((have_socket || d->no_ipc) && m->files[i].kind == INV_IPC)
			continue;
		r = discovery_add_path(d, m->files[i].host ? &d->host_fs : &d->driver_fs,
				       m->files[i].path, m->files[i].type, m->files[i].kind,
				       m->files[i].path);
		if (r == -ENOENT)
			continue;
		if (r < 0)
			return r;
		have_socket = have_socket || m->files[i].kind == INV_IPC;
	}
	if (mode == MODE_IMEX)
		return channel_devices(d, first);
	return inventory_add_device(d->inv, "all", false, first, d->inv->n_nodes - first, d->err);
}
