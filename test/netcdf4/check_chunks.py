"""Every variable that the native netCDF-4 file stores chunked (`ncdump -hs` shows
_ChunkSizes) must have the same chunk shape in the store (.zarray "chunks"): netCDF-C's
HDF5 layer sets the HDF5 chunks, and the connector must keep them as the Zarr chunks.
Usage: check_chunks.py NATIVE_HS_CDL STORE_DIR   (exit 1 with one line per difference)"""
import json
import os
import re
import sys


def chunked_vars(cdl):
    """{"/group/var": [chunk sizes]} from ncdump -hs output."""
    out, path = {}, []
    for line in cdl.splitlines():
        s = line.strip()
        m = re.match(r'^group: (.+) \{$', s)
        if m:
            path.append(m.group(1))
            continue
        if re.match(r'^\} // group ', s):
            path.pop()
            continue
        m = re.match(r'^(\S+):_ChunkSizes = ([\d, ]+) ;$', s)
        if m:
            key = "/" + "/".join(path + [m.group(1)])
            out[key] = [int(x) for x in m.group(2).split(",")]
    return out


def main():
    native_hs, store = sys.argv[1], sys.argv[2]
    with open(native_hs, encoding="utf-8") as f:
        want = chunked_vars(f.read())
    bad = []
    for var, chunks in sorted(want.items()):
        zarray = os.path.join(store, var.lstrip("/"), ".zarray")
        try:
            with open(zarray, encoding="utf-8") as f:
                got = json.load(f).get("chunks")
        except (OSError, ValueError) as e:
            bad.append(f"{var}: cannot read {zarray}: {e}")
            continue
        if got != chunks:
            bad.append(f"{var}: native _ChunkSizes {chunks}, store chunks {got}")
    for b in bad:
        print("FAIL: chunks: " + b)
    if not want:
        print("check_chunks: no chunked variable in the native file")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
