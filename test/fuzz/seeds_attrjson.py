#!/usr/bin/env python3
"""Seeds of fuzz_attrjson: seeds_attrjson.py STORES_DIR OUT_DIR.

Walks the Zarr stores (directories) under STORES_DIR and writes, for each user attribute
of each node (a v2 .zattrs, the "attributes" of a v3 zarr.json), an input in
fuzz_attrjson.c's format: its "_nczarr_attr.types" entry, its kept HDF5 type
("_nczarr_attr.hdf5.atypes"), its kept shape ("_nczarr_attr.hdf5.ashapes"), one line each
(empty when the store has none), then its value."""
import hashlib
import json
import os
import sys


def dumps(v):
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def attrs_of(root, files):
    try:
        if ".zattrs" in files:
            return json.load(open(os.path.join(root, ".zattrs")))
        if "zarr.json" in files:
            return json.load(open(os.path.join(root, "zarr.json"))).get("attributes")
    except (OSError, ValueError, AttributeError):
        pass
    return None


def main():
    stores, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    n = 0
    for root, dirs, files in os.walk(stores):
        dirs.sort()
        attrs = attrs_of(root, files)
        if not isinstance(attrs, dict):
            continue
        na = attrs.get("_nczarr_attr") if isinstance(attrs.get("_nczarr_attr"), dict) else {}
        types = na.get("types") if isinstance(na.get("types"), dict) else {}
        h5 = na.get("hdf5") if isinstance(na.get("hdf5"), dict) else {}
        atypes = h5.get("atypes") if isinstance(h5.get("atypes"), dict) else {}
        ashapes = h5.get("ashapes") if isinstance(h5.get("ashapes"), dict) else {}
        for name, value in attrs.items():
            if name.startswith("_nczarr"):
                continue
            t = dumps(types[name]) if name in types else ""
            a = atypes.get(name, "") if isinstance(atypes.get(name, ""), str) else ""
            s = dumps(ashapes[name]) if name in ashapes else ""
            data = f"{t}\n{a}\n{s}\n{dumps(value)}".encode()
            if len(data) > 64 << 10:
                continue
            with open(os.path.join(out, hashlib.sha1(data).hexdigest()), "wb") as f:
                f.write(data)
            n += 1
    print(f"seeds_attrjson: {n} inputs in {out}")


if __name__ == "__main__":
    main()
