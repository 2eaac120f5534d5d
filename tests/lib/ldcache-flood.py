#!/usr/bin/env python3
# ldcache-flood FILE N: write a glibc ld.so.cache (the "glibc-ld.so.cache1.1" format ldconfig
# writes) of N x86-64 entries naming driver libraries (libcuda.so.1, libnvidia-ml.so.1) in as
# many directories that do not exist: the shape that made the generator quadratic. The real
# ldconfig cannot make it without N real directories and files.
import struct
import sys

path, n = sys.argv[1], int(sys.argv[2])
strings = bytearray()
offsets = {}


def string(s):
    if s not in offsets:
        offsets[s] = len(strings)
        strings.extend(s.encode() + b"\0")
    return offsets[s]


entries = []
for i in range(n):
    key = "libcuda.so.1" if i % 2 == 0 else "libnvidia-ml.so.1"
    entries.append((0x0303, string(key), string("/opt/flood/d%d/%s" % (i, key))))
# Header: magic+version (20), nlibs, len_strings, flags, 3 pad, extension_offset, 3 unused.
base = 48 + 24 * n  # string offsets count from the start of the header
data = bytearray(b"glibc-ld.so.cache1.1")
data += struct.pack("<IIB3xI3I", n, len(strings), 0, 0, 0, 0, 0)
for flags, key, value in entries:
    data += struct.pack("<iIIIQ", flags, base + key, base + value, 0, 0)
data += strings
with open(path, "wb") as f:
    f.write(data)
