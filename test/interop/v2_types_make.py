"""Zarr v2 stores holding the numpy types that v2 spells apart, as zarr-python 2 (Debian's
python3-zarr) and zarr-python 3 (zarr_format=2) write them, for v3_readers.sh:

    v2_types_make.py DIR TAG   writes DIR/TAG.zarr, DIR/raw/TAG<n>.bin (what zarr-python reads
                               in each array, as zarr_values.save writes it) and DIR/TAG.txt (one
                               line per array, as v3_make's arrays.txt)

The arrays: text ("|O" with vlen-utf8: zarr-python's str, xarray's string variables), bytes
("|O" with vlen-bytes), numpy "<U" and "|S", complex "<c8" and ">c16", datetime64 "<M8[s]"
and timedelta64 "<m8[ms]"; a chunk of each never written (read as the fill)."""
import os
import sys
import warnings

import numpy as np
import zarr

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from zarr_values import save, walk  # noqa: E402

warnings.simplefilter("ignore")
V3 = int(zarr.__version__.split(".")[0]) >= 3


def create(g, name, shape, chunks, dtype, fill, kind=None):
    if V3:
        if kind == "bytes":
            from zarr.core.dtype import VariableLengthBytes
            dtype = VariableLengthBytes()
        return g.create_array(name, shape=shape, chunks=chunks, dtype=dtype, fill_value=fill)
    import numcodecs
    codec = {"text": numcodecs.VLenUTF8(), "bytes": numcodecs.VLenBytes()}.get(kind)
    if kind == "bytes":
        fill = None  # zarr-python 2 writes object fill values as JSON: bytes have none
    return g.create_dataset(name, shape=shape, chunks=chunks, dtype=object if codec else dtype,
                            fill_value=fill, object_codec=codec)


def main(d, tag):
    path = os.path.join(d, tag + ".zarr")
    g = zarr.open_group(path, mode="w", zarr_format=2) if V3 else zarr.open_group(path, mode="w")
    create(g, "text", (5,), (2,), str, "", "text")[:3] = np.array(["a", "héllo", ""], dtype=object)
    create(g, "bytes", (3,), (2,), bytes, b"", "bytes")[:2] = np.array([b"x\x00y", b""], dtype=object)
    create(g, "unicode", (4,), (3,), "<U4", "")[:3] = ["ab", "çd", "日本"]
    create(g, "fixed", (4,), (3,), "|S3", b"")[:3] = [b"ab", b"abc", b""]
    create(g, "complex64", (5,), (2,), "<c8", 0)[:3] = [1 + 2j, -3, 4j]
    create(g, "complex128", (2, 3), (2, 2), ">c16", 0)[:, :2] = [[1.5, 2j], [-1, 3 + 3j]]
    create(g, "datetime", (4,), (2,), "<M8[s]", 0)[:2] = np.array(["2020-01-01", "2021-06-15T12:00"], dtype="M8[s]")
    create(g, "timedelta", (3,), (2,), "<m8[ms]", 0)[:2] = np.array([1500, -20], dtype="m8[ms]")
    os.makedirs(os.path.join(d, "raw"), exist_ok=True)
    lines = []
    for p, a in walk(zarr.open_group(path, mode="r"), ""):
        n = f"{tag}{len(lines)}"
        lines.append(f"{n} {p} {save(d, n, a[...])} {'x'.join(map(str, a.shape))} read")
    open(os.path.join(d, tag + ".txt"), "w").write("\n".join(lines) + "\n")
    print(f"{len(lines)} v2 arrays written by zarr-python {zarr.__version__}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
