# shellcheck shell=bash
# Sourced by the suites and benchmarks of nvidia-cdi-hook: what NVIDIA's update-ldcache hook does
# to a container (v1.20, internal/ldconfig), with this machine's ldconfig in place of the
# host's that NVIDIA mounts in and runs after a pivot_root: the oracle cdikit's hook is held to.
#
# ldcache_standin ROOT FOLDER...:
#   1. /etc/ld.so.conf, when missing: "include /etc/ld.so.conf.d/*.conf";
#   2. the FOLDERs that neither ld.so.conf (and its includes) nor the container's system
#      directories name, in /etc/ld.so.conf.d/00-nvcr-<N>.conf;
#   3. the container's system directories (Debian-like: its multiarch ones, /lib, /usr/lib)
#      in /etc/ld.so.conf.d/zz-nvcr-<N>.conf;
#   4. ldconfig -r ROOT -f /etc/ld.so.conf -C /etc/ld.so.cache (ldconfig chroots into ROOT,
#      as NVIDIA's pivot_root does). Its exit status.

# _standin_conf_dirs ROOT FILE: the directory lines of FILE and of the files it includes.
_standin_conf_dirs() {
	local root=$1 file=$2 line word g
	[ -f "$root$file" ] || return 0
	while IFS= read -r line || [ -n "$line" ]; do
		line=${line%%#*}
		line=${line#"${line%%[![:space:]]*}"}
		line=${line%"${line##*[![:space:]]}"}
		[ -n "$line" ] || continue
		case $line in
		include[[:blank:]]*)
			for word in ${line#include}; do
				[ "${word#/}" != "$word" ] || word=$(dirname "$file")/$word
				for g in $root$word; do
					[ -e "$g" ] && _standin_conf_dirs "$root" "${g#"$root"}"
				done
			done
			;;
		*) echo "$line" ;;
		esac
	done <"$root$file"
}

ldcache_standin() {
	local root=$1 f n known system
	shift
	mkdir -p "$root/etc/ld.so.conf.d" || return 1
	[ -e "$root/etc/ld.so.conf" ] || [ -L "$root/etc/ld.so.conf" ] ||
		echo 'include /etc/ld.so.conf.d/*.conf' >"$root/etc/ld.so.conf"
	if [ -e "$root/etc/debian_version" ] && [ ! -d "$root/etc/debian_version" ]; then
		system="/lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /lib /usr/lib"
	else
		system="/lib /usr/lib /lib64 /usr/lib64 /libx32 /usr/libx32"
	fi
	known=$(_standin_conf_dirs "$root" /etc/ld.so.conf; printf '%s\n' $system)
	n=
	for f in "$@"; do
		grep -qxF -- "$f" <<<"$known$n" && continue
		n="$n"$'\n'"$f"
	done
	if [ -n "$n" ]; then
		printf '%s\n' ${n} >"$root/etc/ld.so.conf.d/00-nvcr-$RANDOM$RANDOM.conf" || return 1
	fi
	printf '%s\n' $system >"$root/etc/ld.so.conf.d/zz-nvcr-$RANDOM$RANDOM.conf" || return 1
	ldconfig -r "$root" -f /etc/ld.so.conf -C /etc/ld.so.cache
}
