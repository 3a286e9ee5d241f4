#!/usr/bin/env python3
"""Seeds of fuzz_codecs: seeds_codecs.py STORES_DIR OUT_DIR.

Walks the Zarr stores (directories) under STORES_DIR and writes, for each array, inputs
in fuzz_codecs.c's format: a line of JSON with the array's codecs (v2 "filters" and
"compressor", or v3 "codecs"), its element size, its chunk's shape (and "vlen"/"utf32"
where the data type says so), then the bytes of one of its stored chunks (up to two
chunks an array, each at most 256 KiB)."""
import hashlib
import json
import os
import sys

MAX_CHUNK = 256 << 10
META = {".zarray", ".zattrs", ".zgroup", ".zmetadata", "zarr.json"}


def v2_esz(dt):
    """(element size, vlen, utf32) of a v2 dtype, or None."""
    if isinstance(dt, list):
        total = 0
        for f in dt:
            sub = v2_esz(f[1])
            if not sub or sub[1]:
                return None
            n = 1
            for d in (f[2] if len(f) > 2 else []):
                n *= d
            total += sub[0] * n
        return (total, False, None)
    if not isinstance(dt, str) or len(dt) < 2:
        return None
    if dt == "|O":
        return (0, True, None)
    kind, num = dt[1], dt[2:]
    num = num.split("[")[0]
    if not num.isdigit():
        return None
    if kind == "U":
        return (4 * int(num), False, dt[0] if dt[0] in "<>" else "<")
    return (int(num), False, None)


V3_SIZES = {"bool": 1, "int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "float16": 2, "int32": 4,
            "uint32": 4, "float32": 4, "int64": 8, "uint64": 8, "float64": 8, "complex64": 8,
            "complex128": 16, "numpy.datetime64": 8, "numpy.timedelta64": 8}


def v3_esz(dt, codecs):
    name = dt if isinstance(dt, str) else dt.get("name") if isinstance(dt, dict) else None
    conf = dt.get("configuration", {}) if isinstance(dt, dict) else {}
    if name in V3_SIZES:
        return (V3_SIZES[name], False, None)
    if name in ("string", "bytes", "variable_length_bytes"):
        return (0, True, None)
    if name and name.startswith("r") and name[1:].isdigit():
        return (int(name[1:]) // 8, False, None)
    if name == "fixed_length_utf32":
        big = any(c.get("name") == "bytes" and c.get("configuration", {}).get("endian") == "big"
                  for c in codecs if isinstance(c, dict))
        return (int(conf.get("length_bytes", 4)), False, ">" if big else "<")
    if name == "structured":
        total = 0
        for f in conf.get("fields", []):
            sub = v3_esz(f[1], codecs)
            if not sub or sub[1]:
                return None
            total += sub[0]
        return (total, False, None)
    return None


def chunk_files(adir):
    """The stored chunks of the array at adir (not those of the nodes below it)."""
    out = []
    for root, dirs, files in os.walk(adir):
        if root != adir and any(m in files for m in (".zarray", ".zgroup", "zarr.json")):
            dirs[:] = []
            continue
        for f in sorted(files):
            if f not in META and not f.startswith("."):
                p = os.path.join(root, f)
                if os.path.getsize(p) <= MAX_CHUNK:
                    out.append(p)
        dirs.sort()
    return out


def header(adir):
    p2, p3 = os.path.join(adir, ".zarray"), os.path.join(adir, "zarr.json")
    try:
        if os.path.exists(p2):
            meta = json.load(open(p2))
            esz = v2_esz(meta.get("dtype"))
            h = {"filters": meta.get("filters"), "compressor": meta.get("compressor")}
            shape = meta.get("chunks")
        else:
            meta = json.load(open(p3))
            if meta.get("node_type") != "array":
                return None
            codecs = meta.get("codecs", [])
            esz = v3_esz(meta.get("data_type"), codecs)
            h = {"v3": codecs}
            grid = meta.get("chunk_grid", {})
            shape = grid.get("configuration", {}).get("chunk_shape")
    except (OSError, ValueError, AttributeError):
        return None
    if not esz or not isinstance(shape, list):
        return None
    n = 1
    for d in shape:
        n *= d if isinstance(d, int) else 0
    if n == 0 or n * max(esz[0], 16) > (16 << 20):
        return None
    h["shape"] = shape
    if esz[1]:
        h["vlen"] = True
    else:
        h["esz"] = esz[0]
    if esz[2]:
        h["utf32"] = esz[2]
    return h


def main():
    stores, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    n = 0
    for root, dirs, files in os.walk(stores):
        dirs.sort()
        if ".zarray" not in files and "zarr.json" not in files:
            continue
        h = header(root)
        if not h:
            continue
        line = json.dumps(h, separators=(",", ":")).encode()
        chunks = chunk_files(root)[:2] or [None]
        for c in chunks:
            body = open(c, "rb").read() if c else b""
            data = line + b"\n" + body
            name = hashlib.sha1(data).hexdigest()
            with open(os.path.join(out, name), "wb") as f:
                f.write(data)
            n += 1
    n += extra_seeds(out)
    print(f"seeds_codecs: {n} inputs in {out}")


def extra_seeds(out):
    """Codecs that no store of the tests writes (numcodecs' lz4 for one): encoded here by
    numcodecs, Debian's python3-numcodecs, from a small ramp of int32."""
    try:
        import numcodecs
        import numpy as np
    except ImportError:
        return 0
    raw = np.arange(64, dtype="<i4").tobytes()
    n = 0
    for conf in ({"id": "lz4", "acceleration": 1}, {"id": "lz4", "acceleration": 9}):
        body = bytes(numcodecs.get_codec(conf).encode(raw))
        line = json.dumps({"filters": None, "compressor": conf, "esz": 4, "shape": [64]},
                          separators=(",", ":")).encode()
        data = line + b"\n" + body
        with open(os.path.join(out, hashlib.sha1(data).hexdigest()), "wb") as f:
            f.write(data)
        n += 1
    return n


if __name__ == "__main__":
    main()
