# Sourced by shell suites: modules_live ROOT lists the NVIDIA modules of a simulated host's
# modules tree (make-host --modules) in modules.builtin and indexes it again, so libkmod finds
# them live (built into the kernel) and cdi-generate --load-modules has nothing to insert into
# this machine's kernel.
modules_live() {
	local root=$1 release
	release=$(cat "$root/proc/sys/kernel/osrelease") || return 1
	printf 'kernel/drivers/video/%s.ko\n' nvidia nvidia-uvm nvidia-modeset \
		>"$root/lib/modules/$release/modules.builtin" &&
		PATH=$PATH:/usr/sbin:/sbin depmod -b "$root" "$release"
}
