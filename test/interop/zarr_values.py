"""What zarr-python reads in an array, saved for the C reader to be compared with
(interop_read_raw): numbers as their little-endian bytes, C order; text and bytes as
records. Works with zarr-python 2 and 3 (v3_make.py, v2_types_make.py)."""
import os

import numpy as np


def is_text(v):
    return v.dtype.kind in "OSUT"


def records(v):
    """Text and bytes values as interop_read_raw writes them: per element, uint32 LE length
    and the UTF-8 (str) or raw bytes."""
    out = bytearray()
    for x in np.asarray(v, dtype=object).reshape(-1):
        if x is None:  # zarr-python 2's unwritten object elements: empty
            x = b""
        b = x.encode("utf-8") if isinstance(x, str) else bytes(x).rstrip(b"\0") if v.dtype.kind == "S" else bytes(x)
        out += len(b).to_bytes(4, "little") + b
    return bytes(out)


def save(d, n, v):
    """What zarr-python read in array n: DIR/raw/n.bin; returns the dtype word of arrays.txt."""
    f = os.path.join(d, "raw", f"{n}.bin")
    if is_text(v):
        open(f, "wb").write(records(v))
        return "text"
    if v.dtype.kind in "Mm":
        v = v.view("i8")
    np.ascontiguousarray(v.astype(v.dtype.newbyteorder("<"))).tofile(f)
    return v.dtype.str


def walk(g, prefix):
    for name in sorted(g.array_keys()):
        yield prefix + name, g[name]
    for name in sorted(g.group_keys()):
        yield from walk(g[name], prefix + name + "/")
