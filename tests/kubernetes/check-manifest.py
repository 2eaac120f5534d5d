#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""check-manifest.py SCHEMA ROOTFS VERSION MANIFEST [BROKEN]...: check the cdikit DaemonSet offline.

The manifest against the in-tree subset of the apps/v1 DaemonSet schema (python3-jsonschema),
then what the API server, the kubelet and the image would reject or break on: the selector
selects the pod template, mounts name volumes, GPU nodes only, the image's version, the
command and the programs it runs exist in the image's root filesystem ROOTFS, and the spec's
directory is writable under the chroot. Prints one line per problem and exits 1, or prints
the container's process and host mounts as JSON (for the runc test) and exits 0. Each BROKEN
manifest (a damaged copy) must fail the same checks; one that passes is a problem too.
"""
import json
import os
import sys

import jsonschema
import yaml


def problems(ds, rootfs, version):
    spec = ds["spec"]
    pod = spec["template"]["spec"]
    labels = spec["template"].get("metadata", {}).get("labels", {})
    for k, v in spec["selector"].get("matchLabels", {}).items():
        if labels.get(k) != v:
            yield f"selector {k}={v} does not select the pod template"
    if pod.get("nodeSelector", {}).get("nvidia.com/gpu.present") != "true":
        yield 'nodeSelector lacks nvidia.com/gpu.present: "true"'
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    if len(volumes) != len(pod.get("volumes", [])):
        yield "two volumes have the same name"
    if len(pod["containers"]) != 1:
        yield "not one container"
        return
    c = pod["containers"][0]
    privileged = c.get("securityContext", {}).get("privileged", False)
    paths = [m["mountPath"] for m in c.get("volumeMounts", [])]
    if len(set(paths)) != len(paths):
        yield "two volumeMounts share a mountPath"
    for m in c.get("volumeMounts", []):
        if m["name"] not in volumes:
            yield f"volumeMount {m['name']} names no volume"
        if m.get("mountPropagation") == "Bidirectional" and not privileged:
            yield f"volumeMount {m['name']}: Bidirectional propagation needs a privileged container"
    if not c.get("image", "").endswith(":" + version):
        yield f"image {c.get('image')} is not version {version}"
    argv = c.get("command", []) + c.get("args", [])
    if not argv or not os.access(rootfs + argv[0], os.X_OK):
        yield f"command {argv[:1]} is not an executable of the image"
        return
    opts = dict(a[2:].split("=", 1) for a in argv[1:argv.index("--")] if "=" in a)
    src, dest = opts.get("install", ":").split(":", 1)
    inner = argv[argv.index("--") + 1:]
    for a in inner:
        if dest and a.startswith(dest + "/") and not os.path.exists(rootfs + src + a[len(dest):]):
            yield f"{a} is not in the image (as {src}{a[len(dest):]})"
    # The chroot is the host's root; the spec and the copied programs need a writable mount.
    root_mounts = [m for m in c["volumeMounts"] if volumes.get(m["name"], {}).get("hostPath", {}).get("path") == "/"]
    if [m["mountPath"] for m in root_mounts] != [opts.get("chroot")]:
        yield f"--chroot {opts.get('chroot')} is not where the host's / is mounted"
        return
    out = inner[inner.index("--output") + 1] if "--output" in inner else None
    if out is None or not out.startswith("/var/run/cdi/"):
        yield f"--output {out} is not in /var/run/cdi"
    for d in ("/run", "/dev"):
        m = max((m for m in c["volumeMounts"] if (opts["chroot"] + d).startswith(m["mountPath"])),
                key=lambda m: len(m["mountPath"]))
        if m.get("readOnly", False):
            yield f"the host's {d} is mounted read-only ({m['name']})"


def check(schema, manifest, rootfs, version):
    """The problems of one manifest file and its one document."""
    with open(manifest) as f:
        docs = [d for d in yaml.safe_load_all(f) if d is not None]
    if len(docs) != 1:
        return [f"{manifest}: {len(docs)} documents, want one DaemonSet"], None
    validator = jsonschema.Draft7Validator(schema)
    bad = []
    for e in sorted(validator.iter_errors(docs[0]), key=lambda e: list(e.absolute_path)):
        path = ".".join(str(p) for p in e.absolute_path) or "(top)"
        bad.append(f"{manifest}: {path}: {e.message}")
    if not bad:
        bad += [f"{manifest}: {p}" for p in problems(docs[0], rootfs, version)]
    return bad, docs[0]


def main():
    schema_file, rootfs, version, manifest = sys.argv[1:5]
    with open(schema_file) as f:
        schema = json.load(f)
    bad, ds = check(schema, manifest, rootfs, version)
    for broken in sys.argv[5:]:
        if not check(schema, broken, rootfs, version)[0]:
            bad.append(f"{broken}: passes, but it is broken")
    if bad:
        print("\n".join(bad))
        return 1
    c = ds["spec"]["template"]["spec"]["containers"][0]
    volumes = {v["name"]: v for v in ds["spec"]["template"]["spec"]["volumes"]}
    print(json.dumps({
        "args": c["command"] + c.get("args", []),
        "mounts": [{"destination": m["mountPath"], "hostPath": volumes[m["name"]]["hostPath"]["path"],
                    "readOnly": m.get("readOnly", False)} for m in c["volumeMounts"]],
        "readOnlyRoot": c.get("securityContext", {}).get("readOnlyRootFilesystem", False),
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
