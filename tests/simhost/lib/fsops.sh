# SPDX-License-Identifier: Apache-2.0
# Sourced by make-host: queued file-system operations, made by one python process (a fork per
# file is slow). Needs R (the root), devnodes (1: mknod, 0: regular files) and PY.

fsops=()
op_cp() { fsops+=("C"$'\t'"$1"$'\t'"$2"); }
op_ln() { fsops+=("L"$'\t'"$1"$'\t'"$2"); }
op_dir() { fsops+=("D"$'\t'"$R/$1"$'\t'"$2"); }
op_sock() { fsops+=("S"$'\t'"$R/$1"); }
# op_node path major minor mode [uid gid]: uid and gid are numbers (0 unless given).
op_node() { fsops+=("N"$'\t'"$R/$1"$'\t'"$2"$'\t'"$3"$'\t'"$4"$'\t'"${5:-0}"$'\t'"${6:-0}"); }
# op_file path content: a regular file (mode 0644) holding content (escapes: \n, \t).
op_file() { fsops+=("F"$'\t'"$R/$1"$'\t'"$2"); }

# Run the queued operations: C src dst (copy, 0755), L target link, D dir mode, F path content,
# N path major minor mode uid gid (char device node, a regular file when mknod is not allowed:
# then ROOT/.simhost-no-devnodes marks the host), S path (unix socket, nobody listening).
apply_ops() {
	[ ${#fsops[@]} -gt 0 ] || return 0
	printf '%s\n' "${fsops[@]}" | "$PY" -c "$apply_py" "$R" "$devnodes"
	fsops=()
}
apply_py='
import os, shutil, socket, stat, sys
root, nodes = sys.argv[1], sys.argv[2] == "1"
marker = os.path.join(root, ".simhost-no-devnodes")
def parent(p):
    os.makedirs(os.path.dirname(p), exist_ok=True)
for line in sys.stdin.read().split("\n"):
    if not line:
        continue
    op, *a = line.split("\t")
    # Every path made is inside the root (the last argument of C, the first of the others).
    made = a[1] if op in "CL" else a[0]
    if not made.startswith(root + "/"):
        sys.exit("make-host: outside the root: " + made)
    if op == "C":
        parent(a[1])
        shutil.copyfile(a[0], a[1])
        os.chmod(a[1], 0o755)
    elif op == "L":
        parent(a[1])
        if os.path.lexists(a[1]):
            os.unlink(a[1])
        os.symlink(a[0], a[1])
    elif op == "D":
        os.makedirs(a[0], exist_ok=True)
        os.chmod(a[0], int(a[1], 8))
    elif op == "F":
        parent(a[0])
        with open(a[0], "w") as f:
            f.write(a[1].replace("\\n", "\n").replace("\\t", "\t"))
    elif op == "N":
        path, major, minor, mode = a[0], int(a[1]), int(a[2]), int(a[3], 8)
        uid, gid = int(a[4]), int(a[5])
        parent(path)
        if nodes:
            try:
                os.mknod(path, stat.S_IFCHR | mode, os.makedev(major, minor))
            except PermissionError:
                nodes = False
        if nodes:
            # nvidia-modprobe and udev also keep /dev/char/<major>:<minor> -> ../<node>
            link = os.path.join(root, "dev/char/%d:%d" % (major, minor))
            parent(link)
            os.symlink(os.path.relpath(path, os.path.dirname(link)), link)
        else:
            open(path, "w").close()
            open(marker, "w").close()
        os.chmod(path, mode)
        if uid or gid:
            try:
                os.chown(path, uid, gid)
            except PermissionError:
                pass
    elif op == "S":
        # bind by relative name: sun_path holds only 108 bytes
        parent(a[0])
        cwd = os.open(".", os.O_RDONLY)
        os.chdir(os.path.dirname(a[0]))
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(os.path.basename(a[0]))
        s.close()
        os.fchdir(cwd)
        os.close(cwd)
    else:
        sys.exit("make-host: bad op " + line)
'
