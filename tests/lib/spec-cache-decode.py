#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Decode a spec cache (schema/spec_cache.c, schema/tree_pack.c) independently of the C code:
spec-cache-decode.py CACHE spec|facts prints that tree as JSON (sorted keys), or exits 1."""
import json
import struct
import sys


defs = []


def unpack(data, pos):
    tag = data[pos:pos + 1]
    pos += 1
    if tag == b"D":
        v, pos = unpack(data, pos)
        defs.append(v)
        return v, pos
    if tag == b"R":
        (k,) = struct.unpack_from("<I", data, pos)
        return defs[k], pos + 4
    if tag == b"n":
        return None, pos
    if tag == b"t":
        return True, pos
    if tag == b"f":
        return False, pos
    if tag == b"i":
        return struct.unpack_from("<q", data, pos)[0], pos + 8
    if tag == b"r":
        return struct.unpack_from("<d", data, pos)[0], pos + 8
    if tag == b"s":
        (n,) = struct.unpack_from("<I", data, pos)
        return data[pos + 4:pos + 4 + n].decode("utf-8"), pos + 4 + n
    if tag == b"a":
        (n,) = struct.unpack_from("<I", data, pos)
        pos += 4
        out = []
        for _ in range(n):
            v, pos = unpack(data, pos)
            out.append(v)
        return out, pos
    if tag == b"o":
        (n,) = struct.unpack_from("<I", data, pos)
        pos += 4
        out = {}
        for _ in range(n):
            (k,) = struct.unpack_from("<I", data, pos)
            key = data[pos + 4:pos + 4 + k].decode("utf-8")
            v, pos = unpack(data, pos + 4 + k)
            out[key] = v
        return out, pos
    raise ValueError("bad tag %r at %d" % (tag, pos - 1))


data = open(sys.argv[1], "rb").read()
if data[:8] != b"cdikit\0c" or struct.unpack_from("<I", data, 8)[0] != 2:
    sys.exit("not a cache of format 2")
spec_len, facts_len = struct.unpack_from("<QQ", data, 128)
if 144 + spec_len + facts_len != len(data):
    sys.exit("lengths do not add up")
start = 144 if sys.argv[2] == "spec" else 144 + spec_len
end = start + (spec_len if sys.argv[2] == "spec" else facts_len)
tree, pos = unpack(data, start)
if pos != end:
    sys.exit("the tree does not end where its length says")
json.dump(tree, sys.stdout, sort_keys=True)
