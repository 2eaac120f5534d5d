# shellcheck shell=bash
# Sourced by the suites that start a daemon of their own (dockerd, containerd).

# leftovers_note PATH...: remember which of these do not exist yet; daemons create them outside
# their private dirs (dockerd: /etc/docker/key.json; containerd 1.6: the shim socket dir
# /run/containerd/s). List a directory's contents before the directory.
leftovers_note() {
	leftovers=()
	local p
	for p in "$@"; do [ -e "$p" ] || leftovers+=("$p"); done
}

# leftovers_clean: remove what leftovers_note found missing (a directory only if empty).
leftovers_clean() {
	local p
	for p in "${leftovers[@]}"; do
		if [ -d "$p" ]; then rmdir "$p" 2>/dev/null; else rm -f "$p"; fi
	done
}

# stop_pid PID: SIGTERM, wait up to 15 s, then SIGKILL.
stop_pid() {
	[ -n "$1" ] || return 0
	kill "$1" 2>/dev/null
	for _ in $(seq 150); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
	kill -9 "$1" 2>/dev/null
}

# umount_under DIR: lazily unmount what a daemon killed hard left mounted under DIR.
umount_under() {
	grep -o " $1/[^ ]*" /proc/self/mounts | sort -r | xargs -r -n1 umount -l 2>/dev/null
}
