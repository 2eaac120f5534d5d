#!/usr/bin/env bash
# Root editing a bundle another user owns (issue 8, defect 1), with cdi-apply and cdi-runtime:
#   - a config.json (or --output) that is a link the user planted to a root-only file is
#     refused, and the root file keeps its content and owner;
#   - the replacement gets the user's owner on its fd before the rename: an LD_PRELOAD shim
#     plays the user who swaps the renamed config for a link to a root file at once (the race
#     that handed files away, 30 of 30 tries); the root file must keep its owner, and the
#     shim records the temp file's owner at the rename.
# Needs root (chown to another user); else exit 77.
set -u
cd "$(dirname "$0")/.."
: "${B:=build}"

# shellcheck source=lib/tap.sh
. tests/lib/tap.sh

[ "$(id -u)" -eq 0 ] || skip "needs root (files owned by another user)"
CC=${CC:-cc}
command -v "$CC" >/dev/null 2>&1 || skip "no C compiler"
for f in cdi-apply cdi-runtime; do [ -x "$B/$f" ] || die "$B/$f not built"; done

tmp=$(mktemp -d /tmp/cdikit-bundle-links.XXXXXX)
: >"$tmp/runtime.conf" # cdi-runtime never reads the machine's /etc/cdikit/runtime.conf
export CDIKIT_CONFIG=$tmp/runtime.conf
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP
user=12345:23456

mkdir -p "$tmp/cdi"
cat >"$tmp/cdi/vendor.yaml" <<'EOF'
cdiVersion: "0.5.0"
kind: nvidia.com/gpu
devices:
  - name: "0"
    containerEdits:
      env: [GPU0=1]
EOF
config='{"ociVersion":"1.0.2","process":{"env":["PATH=/bin","NVIDIA_VISIBLE_DEVICES=0"]}}'

# A root-only file the user must not get written or given.
victim() {
	printf '%s\n' "$config" >"$tmp/$1"
	chmod 0600 "$tmp/$1"
	cp "$tmp/$1" "$tmp/$1.orig"
}
untouched() { # name: content, owner and mode as made
	cmp -s "$tmp/$1" "$tmp/$1.orig" && [ "$(stat -c %u:%g:%a "$tmp/$1")" = 0:0:600 ]
}
user_bundle() { # dir: a bundle dir owned by the user
	mkdir -p "$1"
	chown "$user" "$1"
}

# ---- a planted link as the config ----
victim secret
user_bundle "$tmp/b1"
ln -s "$tmp/secret" "$tmp/b1/config.json"
"$B/cdi-apply" --spec-dir "$tmp/cdi" --config "$tmp/b1/config.json" --from-env >"$tmp/out" 2>&1
rc=$?
check "cdi-apply: a linked config is refused" [ "$rc" -eq 1 ]
check "cdi-apply: the message names it" grep -q "b1/config.json: is a symbolic link; refusing to follow it" "$tmp/out"
check "cdi-apply: the root file behind the link is untouched" untouched secret

"$B/cdi-runtime" --cdi-spec-dir "$tmp/cdi" --cdi-runtime /bin/false create --bundle "$tmp/b1" id \
	>"$tmp/out" 2>&1
rc=$?
check "cdi-runtime: a linked config fails create" [ "$rc" -eq 1 ]
check "cdi-runtime: one line naming it" \
	[ "$(cat "$tmp/out")" = "cdi-runtime: $tmp/b1/config.json: is a symbolic link; refusing to follow it (the config must be a regular file in the bundle)" ]
check "cdi-runtime: the root file behind the link is untouched" untouched secret

# ---- a planted link as the output ----
victim secret2
printf '%s\n' "$config" >"$tmp/b1/real.json"
ln -s "$tmp/secret2" "$tmp/b1/out.json"
"$B/cdi-apply" --spec-dir "$tmp/cdi" --config "$tmp/b1/real.json" --output "$tmp/b1/out.json" \
	--from-env >"$tmp/out" 2>&1
rc=$?
check "cdi-apply: a linked --output is refused" [ "$rc" -eq 1 ] &&
	grep -q "out.json: is a symbolic link; refusing to write through it" "$tmp/out"
check "cdi-apply: the root file behind the output link is untouched" untouched secret2

# ---- the swap right after the rename ----
cat >"$tmp/swap.c" <<'EOF'
/* After a rename onto a file named config.json, put a link to $SWAP_VICTIM in its place, as a
 * user racing root would; log the owner the renamed file had at the rename to $SWAP_LOG. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void note(int dirfd, const char *from)
{
	FILE *f = fopen(getenv("SWAP_LOG"), "a");
	struct stat st;

	if (f && fstatat(dirfd, from, &st, AT_SYMLINK_NOFOLLOW) == 0)
		fprintf(f, "%u:%u\n", (unsigned)st.st_uid, (unsigned)st.st_gid);
	if (f)
		fclose(f);
}

static void swap(int dirfd, const char *to)
{
	const char *base = strrchr(to, '/');

	if (strcmp(base ? base + 1 : to, "config.json") == 0 && unlinkat(dirfd, to, 0) == 0 &&
	    symlinkat(getenv("SWAP_VICTIM"), dirfd, to) != 0)
		abort();
}

int rename(const char *from, const char *to)
{
	int (*real)(const char *, const char *) = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
	int r;

	note(AT_FDCWD, from);
	r = real(from, to);
	if (r == 0)
		swap(AT_FDCWD, to);
	return r;
}

int renameat(int fd1, const char *from, int fd2, const char *to)
{
	int (*real)(int, const char *, int, const char *) =
		(int (*)(int, const char *, int, const char *))dlsym(RTLD_NEXT, "renameat");
	int r;

	note(fd1, from);
	r = real(fd1, from, fd2, to);
	if (r == 0)
		swap(fd2, to);
	return r;
}
EOF
"$CC" -shared -fPIC -O2 -o "$tmp/swap.so" "$tmp/swap.c" -ldl || die "cannot build the swap shim"

victim secret3
user_bundle "$tmp/b2"
printf '%s\n' "$config" >"$tmp/b2/config.json"
chown "$user" "$tmp/b2/config.json"
SWAP_VICTIM=$tmp/secret3 SWAP_LOG=$tmp/swap.log LD_PRELOAD=$tmp/swap.so \
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
	"$B/cdi-apply" --spec-dir "$tmp/cdi" --config "$tmp/b2/config.json" --from-env >"$tmp/out" 2>&1
rc=$?
[ -s "$tmp/swap.log" ] || die "the swap shim did not run (cdi-apply linked statically?)"
check "cdi-apply with the swap: edit done" [ "$rc" -eq 0 ]
check "cdi-apply: the new config had the user's owner at the rename" \
	[ "$(head -1 "$tmp/swap.log")" = "$user" ]
check "cdi-apply: nothing chowned by path after the rename (the swapped-in root file is still root's)" \
	untouched secret3
echo "(cdi-runtime writes through the same bundle_replace_at(); a static build is out of LD_PRELOAD's reach)"
tap_end
