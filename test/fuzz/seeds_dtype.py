#!/usr/bin/env python3
"""Seeds of fuzz_dtype: seeds_dtype.py STORES_DIR OUT_DIR.

Walks the Zarr stores (directories) under STORES_DIR and writes inputs in fuzz_dtype.c's
format: each array's whole metadata ("zarray" + its .zarray, "zarr3" + its zarr.json), its
dtype and fill value ("dtype", v2 dtype strings), its structured dtype with an element
("struct"), and the HDF5 types NCZarr keeps ("htype": "_nczarr_array.hdf5_type" and the
attributes' "_nczarr_attr.hdf5.atypes", each with the attribute's value)."""
import hashlib
import json
import os
import sys


def dumps(v):
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def zero_elem(dt):
    """A zero element of a structured dtype, as JSON: {field: value}."""
    if isinstance(dt, list):
        rec = {}
        for f in dt:
            v = zero_elem(f[1])
            for d in reversed(f[2] if len(f) > 2 else []):
                v = [v] * d
            rec[f[0]] = v
        return rec
    if isinstance(dt, str) and len(dt) > 1 and dt[1] in "SV":
        return ""
    return 0


def write(out, text):
    data = text.encode() if isinstance(text, str) else text
    with open(os.path.join(out, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


def main():
    stores, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    n = 0
    for root, dirs, files in os.walk(stores):
        dirs.sort()
        for meta_name, mode in ((".zarray", "zarray"), ("zarr.json", "zarr3")):
            if meta_name not in files:
                continue
            try:
                text = open(os.path.join(root, meta_name), encoding="utf-8").read()
                meta = json.loads(text)
            except (OSError, ValueError):
                continue
            attrs = meta.get("attributes", {}) if mode == "zarr3" else {}
            if mode == "zarray" and ".zattrs" in files:
                try:
                    attrs = json.load(open(os.path.join(root, ".zattrs")))
                except (OSError, ValueError):
                    attrs = {}
            if not isinstance(attrs, dict):
                attrs = {}
            if mode == "zarr3" and meta.get("node_type") != "array":
                pass
            elif len(text) < 64 << 10:
                write(out, f"{mode}\n{text}")
                n += 1
            dt = meta.get("dtype")
            if mode == "zarray" and isinstance(dt, str):
                write(out, f"dtype\n{dt}\n{dumps(meta.get('fill_value'))}")
                n += 1
            if mode == "zarray" and isinstance(dt, list):
                write(out, f"struct\n{dumps(dt)}\n{dumps(zero_elem(dt))}")
                n += 1
            na = attrs.get("_nczarr_array")
            ht = na.get("hdf5_type") if isinstance(na, dict) else None
            if isinstance(ht, str):
                write(out, f"htype\n{ht}\n0")
                n += 1
            nat = attrs.get("_nczarr_attr")
            h5 = nat.get("hdf5") if isinstance(nat, dict) else None
            atypes = h5.get("atypes") if isinstance(h5, dict) else None
            for k, v in (atypes.items() if isinstance(atypes, dict) else []):
                if isinstance(v, str) and k in attrs:
                    val = attrs[k]
                    elem = val[0] if isinstance(val, list) and val else val
                    write(out, f"htype\n{v}\n{dumps(elem)}")
                    n += 1
    print(f"seeds_dtype: {n} inputs in {out}")


if __name__ == "__main__":
    main()
