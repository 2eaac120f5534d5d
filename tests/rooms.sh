#!/usr/bin/env bash
# The rooms of the tree call one way (docs/design.md, "Rooms"): each room's objects may use only
# the symbols of the rooms it lists below, and libcdi (schema/ and apply/libcdi/, all that
# libcdi.so and libcdi.a hold) knows nothing of NVIDIA: no symbol of another room, no NVIDIA_*
# variable, no facts file, runc or bundle in its names or strings; "nvidia" only in the
# documented examples.
# shellcheck source=lib/suite.sh
. "$(dirname "$0")/lib/suite.sh"
command -v nm >/dev/null && command -v readelf >/dev/null || skip "binutils missing"

# room: the rooms (besides itself) whose symbols it may use.
declare -A may=(
	[schema]=""
	[apply/libcdi]="schema"
	[apply/nvidia]="apply/libcdi schema"
	[apply/bundle]="apply/libcdi schema"
	[apply/runtime]="apply/nvidia apply/libcdi schema"
	[apply/hook]="apply/bundle apply/nvidia apply/libcdi schema"
	[generate/host]="schema"
	[generate/inventory]="schema"
	[generate/discover]="generate/host generate/inventory schema"
	[generate/boot]="generate/host schema"
	[generate/assemble]="generate/host generate/inventory schema"
	[generate/output]="generate/assemble generate/host generate/inventory schema"
)

room_of() { # source path -> room
	case $1 in
	schema/*) echo schema ;;
	generate/inventory.c) echo generate/inventory ;;
	apply/*/* | generate/*/*) echo "${1%/*}" ;;
	*) echo main ;;
	esac
}

declare -A owner # symbol -> room defining it
objs=()
while IFS= read -r src; do
	o=$B/obj/${src%.c}.o
	[ -e "$o" ] || die "$o not built"
	objs+=("$src")
	r=$(room_of "$src")
	while read -r _ _ s; do owner[$s]=$r; done < <(nm --defined-only "$o" | awk '$2 ~ /[TDRBC]/')
done < <(git ls-files 'schema/*.c' 'apply/*.c' 'generate/*.c')

bad=0
for src in "${objs[@]}"; do
	r=$(room_of "$src")
	[ "$r" = main ] && continue
	[ -n "${may[$r]+x}" ] || { echo "$src: room $r is not in tests/rooms.sh"; bad=1; continue; }
	while read -r _ s; do
		d=${owner[$s]-}
		[ -z "$d" ] || [ "$d" = "$r" ] && continue
		case " ${may[$r]} " in *" $d "*) continue ;; esac
		echo "$src ($r) calls $s of $d"
		bad=1
	done < <(nm -u "$B/obj/${src%.c}.o")
done
[ $bad -eq 0 ] || die "calls against the rooms' direction (above)"
ok "every room calls only the rooms under it (${#objs[@]} objects)"

# libcdi's objects: exactly those of its two rooms, and nothing of NVIDIA in them.
members=$(ar t "$B/libcdi.a" | sort)
want=$(git ls-files 'schema/*.c' 'apply/libcdi/*.c' | sed 's|.*/||; s|\.c$|.o|' | sort)
[ "$members" = "$want" ] || die "libcdi.a holds $(comm -3 <(echo "$members") <(echo "$want") | tr -d '\t' | tr '\n' ' ')"
ok "libcdi.a holds schema/ and apply/libcdi/ only"
for src in $(git ls-files 'schema/*.c' 'apply/libcdi/*.c'); do
	o=$B/obj/${src%.c}.o
	if nm "$o" | awk '{print $NF}' | grep -Ei 'nvidia|facts|(^|_)runc(_|$)|bundle'; then
		die "$src: a symbol of NVIDIA's policy or of the runtime (above)"
	fi
	# Strings the object holds; the one documented example may name nvidia.com/gpu.
	strs=$(readelf -p .rodata -p .rodata.str1.1 -p .rodata.str1.8 -p .data "$o" 2>/dev/null |
		sed -n 's/^ *\[ *[0-9a-f]*\]  //p' | grep -Ei 'nvidia|facts|\brunc\b' |
		grep -v 'such as nvidia\.com/gpu=0)$' || true)
	[ -z "$strs" ] || die "$src: NVIDIA or runtime strings: $strs"
	if grep -n 'NVIDIA_[A-Z]' "$src" "${src%.c}.h" 2>/dev/null; then
		die "$src: names an NVIDIA_* variable (above)"
	fi
done
[ -z "$(grep -l 'include "\(nvidia\|bundle\|runtime\|discover\|boot\|assemble\|output\|host\)/' schema/* apply/libcdi/* include/cdi/*)" ] ||
	die "schema/, apply/libcdi/ or include/cdi/ include a header of another room"
ok "libcdi names nothing of NVIDIA, the runtime or the bundle (symbols, strings, variables, includes)"
