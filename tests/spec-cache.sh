#!/usr/bin/env bash
# The spec cache cdi-generate writes beside the spec (NAME.yaml.cdikit-cache, schema/spec_cache.h)
# on simulated hosts, against the spec and the facts file it stands for:
#   - its trees, decoded by a reader of its own (tests/lib/spec-cache-decode.py), are the spec's
#     (as --format json writes it) and the facts file's;
#   - differential: every device of several topologies injected by cdi-apply gives the same
#     config.json with the cache as with the spec alone (the cache deleted), and so does
#     cdi-runtime on a Docker --gpus config;
#   - an unchanged spec leaves the cache alone; --output - writes none, a JSON spec has one;
#   - a spec edited by hand (even to the same size, with its mtime put back) is read, not the
#     cache; a link at the cache's place is refused before anything is written.
# Needs root (make-host mknods the device nodes); exits 77 otherwise.
. "$(dirname "$0")/lib/suite.sh" spec-cache "the simulated hosts have real device nodes" \
	cdi-generate cdi-apply cdi-runtime tests/mock-nvml/libnvidia-ml.so.1
G=$B/cdi-generate A=$B/cdi-apply RT=$B/cdi-runtime
: >"$tmp/runtime.conf"
export CDIKIT_CONFIG=$tmp/runtime.conf # never the machine's /etc/cdikit/runtime.conf
printf '%s\n' '{"ociVersion": "1.0.2", "process": {"args": ["sh"], "cwd": "/", "env": ["PATH=/bin"]},' \
	'"root": {"path": "rootfs"}, "linux": {"namespaces": [{"type": "mount"}]}}' >"$tmp/config.json"

# same_output DIR DEVICE: cdi-apply of DEVICE over DIR with its cache, then without it.
same_output() {
	local dir=$1 dev=$2 nocache=$tmp/nocache
	rm -rf "$nocache" && mkdir "$nocache" && cp -p "$dir"/*.yaml* "$nocache"/ && rm "$nocache"/*.cdikit-cache ||
		die "cannot copy $dir without its cache"
	"$A" --spec-dir "$dir" -c "$tmp/config.json" -o "$tmp/with.json" "$dev" ||
		die "cdi-apply $dev with the cache failed"
	"$A" --spec-dir "$nocache" -c "$tmp/config.json" -o "$tmp/without.json" "$dev" ||
		die "cdi-apply $dev without the cache failed"
	cmp -s "$tmp/with.json" "$tmp/without.json" || die "$dev: the cache gives another config than the spec"
}

for topo in dgx-mig single dgx-nvswitch workstation; do
	h=$tmp/$topo d=$tmp/cdi-$topo
	make_host "$topo" "$h"
	"$G" -q --root "$h" --output "$d/nvidia.yaml" || die "cdi-generate $topo failed"
	c=$d/nvidia.yaml.cdikit-cache
	[ -f "$c" ] && [ "$(stat -c '%a %u' "$c")" = "644 0" ] || die "$topo: no cache, or not root's 0644"
	# The trees, decoded by a reader of the format of its own: the spec's as --format json
	# writes it, the facts' as the facts file says.
	python3 tests/lib/spec-cache-decode.py "$c" spec >"$tmp/cached-spec.json" || die "$topo: the cache's spec tree does not decode"
	"$G" -q --root "$h" --library-dir "$d/nvidia.lib" --format json --output - | jq -S -c . >"$tmp/want-spec.json"
	jq -S -c . "$tmp/cached-spec.json" | cmp -s - "$tmp/want-spec.json" || die "$topo: the cached spec tree is not the spec"
	python3 tests/lib/spec-cache-decode.py "$c" facts | jq -S -c . >"$tmp/cached-facts.json" || die "$topo: the cache's facts tree does not decode"
	jq -S -c . "$d/nvidia.yaml.cdikit" | cmp -s - "$tmp/cached-facts.json" || die "$topo: the cached facts tree is not the facts file"
	n=0
	for dev in $("$A" --spec-dir "$d" --list | awk '$1 ~ /^nvidia.com\// { print $1 }'); do
		same_output "$d" "$dev"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || die "$topo: cdi-apply --list shows no device"
	ok "$topo: $n devices, the same config with the cache as with the spec"
done

# cdi-runtime on Docker's --gpus config: the same edit with the cache as without.
d=$tmp/cdi-dgx-mig
jq '.process.env += ["NVIDIA_VISIBLE_DEVICES=0,2:1,GPU-67db9f65-c8d3-cab0-e7a3-172228c5b697", "NVIDIA_DRIVER_CAPABILITIES=all"]' \
	"$tmp/config.json" >"$tmp/gpus.json"
for run in with without; do
	mkdir -p "$tmp/bundle-$run/rootfs"
	cp "$tmp/gpus.json" "$tmp/bundle-$run/config.json"
	dir=$d
	if [ $run = without ]; then
		dir=$tmp/nocache
		rm -rf "$dir" && mkdir "$dir" && cp -p "$d"/nvidia.yaml "$d"/nvidia.yaml.cdikit "$dir"/ || die "cannot copy $d"
	fi
	"$RT" --cdi-spec-dir "$dir" --cdi-runtime /bin/true create --bundle "$tmp/bundle-$run" x ||
		die "cdi-runtime create ($run the cache) failed"
done
cmp -s "$tmp/bundle-with/config.json" "$tmp/bundle-without/config.json" ||
	die "cdi-runtime: the cache gives another config than the spec"
ok "cdi-runtime: the same bundle with the cache as with the spec"

# Unchanged: nothing rewritten, the cache included.
c=$d/nvidia.yaml.cdikit-cache
before=$(stat -c '%i %Y' "$c")
"$G" -q --root "$tmp/dgx-mig" --output "$d/nvidia.yaml" || die "cdi-generate (again) failed"
[ "$(stat -c '%i %Y' "$c")" = "$before" ] || die "an unchanged spec had its cache rewritten"
ok "an unchanged spec leaves its cache alone"

# No cache with --output -; a JSON spec has one too, of the same tree.
"$G" -q --root "$tmp/dgx-mig" --output - >/dev/null || die "cdi-generate --output - failed"
[ -z "$(find "$tmp" -maxdepth 1 -name '*cdikit-cache')" ] || die "--output - left a cache"
"$G" -q --root "$tmp/dgx-mig" --format json --output "$tmp/json/nvidia.json" || die "cdi-generate --format json failed"
[ -f "$tmp/json/nvidia.json.cdikit-cache" ] || die "no cache beside the JSON spec"
"$A" --spec-dir "$tmp/json" -c "$tmp/config.json" -o "$tmp/j1.json" nvidia.com/gpu=all || die "cdi-apply over the JSON spec failed"
rm "$tmp/json/nvidia.json.cdikit-cache"
"$A" --spec-dir "$tmp/json" -c "$tmp/config.json" -o "$tmp/j2.json" nvidia.com/gpu=all || die "cdi-apply over the JSON spec failed"
cmp -s "$tmp/j1.json" "$tmp/j2.json" || die "JSON spec: the cache gives another config than the spec"
ok "a JSON spec's cache gives what the spec does"

# Edited by hand to the same size, mtime put back: the spec is read.
sleep 0.02 # past the kernel's coarse file-time tick since the cache was written
cp -p "$d/nvidia.yaml" "$tmp/mtime-ref"
sed -i 's/^- name: "0"$/- name: "Z"/; s/^  - name: "0"$/  - name: "Z"/' "$d/nvidia.yaml"
[ "$(stat -c %s "$d/nvidia.yaml")" = "$(stat -c %s "$tmp/mtime-ref")" ] || die "the edit changed the size"
cmp -s "$d/nvidia.yaml" "$tmp/mtime-ref" && die "the edit changed nothing (the spec's layout moved?)"
touch -r "$tmp/mtime-ref" "$d/nvidia.yaml"
"$A" --spec-dir "$d" -c "$tmp/config.json" -o "$tmp/z.json" nvidia.com/gpu=Z ||
	die "the hand edit is not seen: the stale cache was used"
"$A" --spec-dir "$d" -c "$tmp/config.json" -o "$tmp/z.json" nvidia.com/gpu=0 2>/dev/null &&
	die "a device the edited spec no longer has still resolves: the stale cache was used"
ok "a spec edited in place (same size, mtime put back) is read, not its cache"

# A link at the cache's place: refused, and nothing written.
e=$tmp/linked
mkdir "$e"
ln -s /etc/passwd "$e/nvidia.yaml.cdikit-cache"
"$G" -q --root "$tmp/dgx-mig" --output "$e/nvidia.yaml" 2>"$tmp/err" && die "a link at the cache's place was written through"
grep -q "nvidia.yaml.cdikit-cache: exists and is not a regular file" "$tmp/err" || die "unclear message: $(cat "$tmp/err")"
[ "$(ls -A "$e")" = "nvidia.yaml.cdikit-cache" ] || die "written beside a refused cache place: $(ls -A "$e")"
ok "a link at the cache's place is refused before anything is written"
