"""Packs a store directory into fuzz_store's input (fuzz_records.h): a record "@@<key>\n"
followed by the object's bytes for every file of the store, metadata first. Chunks larger
than --max-object bytes are cut to that size (a truncated chunk is an input too); metadata
objects (.zmetadata, zarr.json, ...) are kept whole up to 256 KiB.

    pack_store.py STORE OUT [--max-object N] [--options WORDS]
"""
import argparse
import os

META = (".zgroup", ".zarray", ".zattrs", ".zmetadata", "zarr.json")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("store")
    ap.add_argument("out")
    ap.add_argument("--max-object", type=int, default=4096)
    ap.add_argument("--options", default="")
    a = ap.parse_args()
    keys = []
    for d, _, files in os.walk(a.store):
        for f in files:
            p = os.path.join(d, f)
            keys.append(os.path.relpath(p, a.store))
    keys.sort(key=lambda k: (os.path.basename(k) not in META, k))
    out = bytearray(a.options.encode())
    for k in keys:
        meta = os.path.basename(k) in META
        with open(os.path.join(a.store, k), "rb") as f:
            data = f.read(max(a.max_object, 256 << 10) if meta else a.max_object)
        if out:
            out += b"\n"
        out += b"@@" + k.encode() + b"\n" + data
    with open(a.out, "wb") as f:
        f.write(out)


if __name__ == "__main__":
    main()
