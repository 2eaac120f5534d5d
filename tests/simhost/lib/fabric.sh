# SPDX-License-Identifier: Apache-2.0
# Sourced by make-host: NVLink fabric (NVSwitch, nvidia-nvlink, fabric manager, IMEX),
# GPUDirect Storage (nvidia-fs), gdrcopy, MOFED (InfiniBand verbs) and a running MPS daemon.
# Majors of the dynamic regions: nvidia-nvlink 236 and nvidia-nvswitch 237 (as the base list
# of /proc/devices has them), IMEX 238, infiniband 231 (fixed), nvidia-fs 239, gdrdrv 507.

fs_major=239 gdr_major=507

# HGX H100: four third-generation NVSwitches (LS10, 10de:22a3) at 0000:05..08:00.0.
nvswitch_bus=(0000:05:00.0 0000:06:00.0 0000:07:00.0 0000:08:00.0)

# NVSwitch nodes as nvidia-modprobe makes them: minor N per switch, 255 for the control node,
# mode from /proc/driver/nvidia-nvswitch/permissions (procfs_nvswitch.c prints 438 = 0666).
write_nvswitch() {
	local i n=${#nvswitch_bus[@]} d=$R/proc/driver/nvidia-nvswitch
	mkdir -p "$d/devices" "$R/proc/driver/nvidia-nvlink/capabilities"
	printf 'DeviceFileMode: 438\n' >"$d/permissions"
	for ((i = 0; i < n; i++)); do
		mkdir -p "$d/devices/${nvswitch_bus[i]}"
		printf 'BIOS Version: 96.10.6d.00.01\n' >"$d/devices/${nvswitch_bus[i]}/information"
		op_node "dev/nvidia-nvswitch$i" 237 "$i" 0666
		sys_pci "${nvswitch_bus[i]}" 0x10de 0x22a3 0x10de 0x1796 0x068000 nvidia-nvswitch
	done
	op_node dev/nvidia-nvswitchctl 237 255 0666
	# The NVLink core: /dev/nvidia-nvlink and the fabric-mgmt capability fabric manager opens.
	printf 'DeviceFileMode: 438\n' >"$R/proc/driver/nvidia-nvlink/permissions"
	capfile "$R/proc/driver/nvidia-nvlink/capabilities/fabric-mgmt" 0 256
	op_node dev/nvidia-nvlink 236 0 0666
	mkdir -p "$R/usr/share/nvidia/nvswitch"
	printf '# cdikit simulated host: fabric manager configuration\nFM_CMD_BIND_INTERFACE=127.0.0.1\nFM_CMD_PORT_NUMBER=6666\nFABRIC_MODE=0\n' \
		>"$R/usr/share/nvidia/nvswitch/fabricmanager.cfg"
}

# IMEX channels: /dev/nvidia-caps-imex-channels/channel<N> at the nvidia-caps-imex-channels
# major, perms from /proc/driver/nvidia/params (as nvidia-modprobe), N < ImexChannelCount.
write_imex() {
	local ch
	op_dir dev/nvidia-caps-imex-channels 0755
	for ch in ${imex_channels//,/ }; do
		op_node "dev/nvidia-caps-imex-channels/channel$ch" 238 "$ch" "$node_mode" "$node_uid" "$node_gid"
	done
	mkdir -p "$R/etc/nvidia-imex"
	printf '# cdikit simulated host: nvidia-imex configuration\nIMEX_CMD_PORT=50005\nIMEX_NODE_CONFIG_FILE=/etc/nvidia-imex/nodes_config.cfg\n' \
		>"$R/etc/nvidia-imex/config.cfg"
	printf '10.0.0.1\n10.0.0.2\n' >"$R/etc/nvidia-imex/nodes_config.cfg"
}

# GPUDirect Storage: nvidia-fs registers 16 nodes (0666); cuFile reads /etc/cufile.json;
# nvidia-ctk's gds mode also mounts /run/udev.
write_gds() {
	local i
	for ((i = 0; i < 16; i++)); do op_node "dev/nvidia-fs$i" "$fs_major" "$i" 0666; done
	mkdir -p "$R/run/udev/data"
	cat >"$R/etc/cufile.json" <<-'EOF'
		{
		    "logging": {
		        "dir": "/var/log/cufile",
		        "level": "ERROR"
		    },
		    "profile": {
		        "nvtx": false,
		        "cufile_stats": 0
		    },
		    "execution": {
		        "max_io_queue_depth": 128,
		        "max_io_threads": 4,
		        "parallel_io": true
		    },
		    "properties": {
		        "max_direct_io_size_kb": 16384,
		        "max_device_cache_size_kb": 131072,
		        "max_device_pinned_mem_size_kb": 33554432,
		        "use_poll_mode": false,
		        "allow_compat_mode": true,
		        "rdma_dev_addr_list": []
		    },
		    "fs": {
		        "generic": {
		            "posix_unaligned_writes": false
		        }
		    }
		}
	EOF
}

# gdrcopy: one node of the gdrdrv module (its insmod script makes it 0666).
write_gdrcopy() { op_node dev/gdrdrv "$gdr_major" 0 0666; }

# MOFED / rdma-core: per HCA port uverbs<N> (231:192+N, 0666), umad<N> (231:N) and issm<N>
# (231:64+N) 0600, the rdma_cm misc node (0666), and 60-infiniband.rules' by-ibdev links.
write_mofed() {
	local i
	for ((i = 0; i < 8; i++)); do
		op_node "dev/infiniband/uverbs$i" 231 $((192 + i)) 0666
		op_node "dev/infiniband/umad$i" 231 "$i" 0600
		op_node "dev/infiniband/issm$i" 231 $((64 + i)) 0600
		op_ln "../uverbs$i" "$R/dev/infiniband/by-ibdev/uverbs-mlx5_$i"
	done
	op_node dev/infiniband/rdma_cm 10 58 0666
}

# A running MPS control daemon: its control socket and pid file in the pipe directory,
# its log in /var/log/nvidia-mps.
write_mps_daemon() {
	op_sock tmp/nvidia-mps/control
	mkdir -p "$R/var/log/nvidia-mps"
	printf '4242\n' >"$R/tmp/nvidia-mps/nvidia-cuda-mps-control.pid"
	printf '[2024-03-06 10:00:00.000 Control  4242] Starting control daemon using socket /tmp/nvidia-mps/control\n' \
		>"$R/var/log/nvidia-mps/control.log"
}
