#!/usr/bin/env bash
# cdi-runtime's passthrough before libc (apply/runtime/fast_exec.h), in the built program: the
# static x86-64 build enters there; its objects call nothing outside themselves; a passthrough
# makes only the system calls of its checks before exec'ing the runtime, with the runtime's
# argv, exit status and output; everything else reaches libc's _start and the full program
# (its errors as before). test-runtime-fast-exec holds its decisions against the full
# program's.
# shellcheck source=lib/suite.sh
. "$(dirname "$0")/lib/suite.sh"
command -v nm >/dev/null || skip "binutils missing"
case $(cc -dumpmachine) in x86_64-*) ;; *) skip "the passthrough is built for x86-64 only" ;; esac
[ -e "$B/cdi-runtime" ] || die "$B/cdi-runtime not built"
file_type=$(readelf -h "$B/cdi-runtime" | sed -n 's/^ *Type: *\([A-Z]*\).*/\1/p')
if ! readelf -d "$B/cdi-runtime" 2>/dev/null | grep -q NEEDED; then
	static=1
else
	static=0
fi
[ "$static" = 1 ] || skip "cdi-runtime is linked dynamically (STATIC_DEPS=0 or SANITIZE=1): no passthrough entry"

# The entry point is the passthrough's, in a fixed-address executable (its tables hold
# addresses no relocation fixes before _start).
entry=$(readelf -h "$B/cdi-runtime" | sed -n 's/^ *Entry point address: *0x0*//p')
sym=$(nm "$B/cdi-runtime" | sed -n 's/^0*\([0-9a-f]*\) T cdikit_fast_entry$/\1/p')
[ -n "$sym" ] && [ "$entry" = "$sym" ] || die "cdi-runtime's entry point ($entry) is not cdikit_fast_entry (${sym:-absent})"
[ "$file_type" = EXEC ] || die "cdi-runtime is $file_type, not a fixed-address executable"
ok "the static cdi-runtime enters at its passthrough"

# Freestanding: undefined symbols only each other's, _start (where it goes on) and the GOT.
objs=()
for s in fast_exec config_lex runc_flags; do objs+=("$B/obj/apply/runtime/$s.o"); done
defined=$(nm --defined-only "${objs[@]}" | awk 'NF == 3 { print $3 }' | sort -u)
undefined=$(nm -u "${objs[@]}" | awk 'NF == 2 { print $2 }' | sort -u)
stray=$(comm -23 <(echo "$undefined") <(printf '%s\n' "$defined" _start _GLOBAL_OFFSET_TABLE_ | sort -u) | tr '\n' ' ')
[ -z "$stray" ] || die "the passthrough's objects call outside themselves: $stray"
ok "the passthrough's objects call nothing outside themselves"

tmp=$(mktemp -d /tmp/cdikit-fast-exec.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP
mkdir "$tmp/bin"
cat >"$tmp/show.c" <<'C'
#include <stdio.h>
int main(int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		printf("%s[%s]", i ? " " : "", argv[i]);
	printf("\n");
	return 42;
}
C
cc -o "$tmp/bin/runc" "$tmp/show.c" || die "cannot build the stand-in runtime"
conf() { printf 'runtime = runc   # the stand-in\nspec-dirs = %s\n' "$tmp/cdi" >"$tmp/runtime.conf"; }
conf
export CDIKIT_CONFIG=$tmp/runtime.conf PATH=$tmp/bin:$PATH
unset CDIKIT_RUNTIME CDIKIT_SPEC_DIRS

# run NAME ARGS...: cdi-runtime ARGS under strace; out, status, trace in $tmp/NAME.*
run() {
	local name=$1
	shift
	strace -f -qq -o "$tmp/$name.trace" "$B/cdi-runtime" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.status"
}
# The system calls cdi-runtime made before the runtime's execve (its own execve excluded).
before_exec() {
	awk -v rt="$tmp/bin/runc" '
		/execve\(/ && index($0, "\"" rt "\"") { exit }
		/execve\(/ && !seen { seen = 1; next }
		seen { sub(/^[0-9]+ +/, ""); sub(/\(.*/, ""); print }' "$tmp/$1.trace"
}
strace -o /dev/null true 2>/dev/null || skip "strace cannot trace here"

run state --root "$tmp/state" --log-format json state ctr
[ "$(cat "$tmp/state.status")" = 42 ] || die "state: exit $(cat "$tmp/state.status"), not the runtime's 42"
[ "$(cat "$tmp/state.out")" = "[runc] [--root] [$tmp/state] [--log-format] [json] [state] [ctr]" ] ||
	die "state: the runtime saw $(cat "$tmp/state.out")"
calls=$(before_exec state | sort -u | tr '\n' ' ')
for c in $calls; do
	case $c in openat | newfstatat | fstat | read | close | geteuid) ;;
	*) die "state: the passthrough made a $c call before the exec (all: $calls)" ;;
	esac
done
grep -q "openat(AT_FDCWD, \"$tmp/runtime.conf\"" "$tmp/state.trace" || die "state: the config file was not read"
ok "state: the runtime exec'd from the passthrough ($calls), its argv, status and output as they were"

# What the full program decides: an edit, a setting the passthrough leaves to it.
run create --root "$tmp/state" create --bundle "$tmp/none" ctr
before_exec create | grep -qx arch_prctl || die "create: libc did not start before the exec"
[ "$(cat "$tmp/create.status")" = 42 ] || die "create: exit $(cat "$tmp/create.status") ($(cat "$tmp/create.err"))"
printf 'spec-refresh-output = %s\n' "$tmp/cdi/nvidia.yaml" >>"$tmp/runtime.conf"
run output --root "$tmp/state" delete ctr
before_exec output | grep -qx arch_prctl || die "spec-refresh-output: the passthrough did not leave it to the full program"
[ "$(cat "$tmp/output.out")" = "[runc] [--root] [$tmp/state] [delete] [ctr]" ] ||
	die "spec-refresh-output: the runtime saw $(cat "$tmp/output.out")"
ok "create, and a config with spec-refresh-output: the full program, the same exec"

# A config others may write: the full program refuses it, as before.
chmod 666 "$tmp/runtime.conf"
run unsafe delete ctr
chmod 644 "$tmp/runtime.conf"
[ "$(cat "$tmp/unsafe.status")" != 42 ] && grep -q "insecure" "$tmp/unsafe.err" ||
	die "an insecure config: exit $(cat "$tmp/unsafe.status"), $(cat "$tmp/unsafe.err")"
# An exec that fails: the full program runs and says why.
conf
printf 'garbage\n' >"$tmp/bin/broken"
chmod 755 "$tmp/bin/broken"
CDIKIT_RUNTIME=$tmp/bin/broken run broken delete ctr
[ "$(cat "$tmp/broken.status")" = 1 ] && grep -q "cannot run $tmp/bin/broken" "$tmp/broken.err" ||
	die "a runtime that cannot run: exit $(cat "$tmp/broken.status"), $(cat "$tmp/broken.err")"
execs=$(grep -cF "execve(\"$tmp/bin/broken\"" "$tmp/broken.trace")
[ "$execs" = 2 ] || die "a runtime that cannot run: tried $execs times, not by both paths"
ok "an insecure config and a runtime that cannot run: the full program's errors"
