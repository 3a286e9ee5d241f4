"""Compressed stores as zarr-python writes them, for codecs_foreign.sh; runs under
zarr-python 2 or 3 (zarr 3 writes Zarr format 2, which the connector reads).

  codecs_make.py make  OUTDIR        OUTDIR/store.zarr: one array per case and dtype
                                     (CASE_f32, CASE_i16, CASE_u8), OUTDIR/{f32,i16,u8}.bin
                                     the values raw (little-endian), OUTDIR/names.txt
  codecs_make.py check OUTDIR        this zarr-python reads every array of OUTDIR/store.zarr
                                     (made by either version) with the raw values

Prints "ok NAME" or "FAIL NAME: why" per array; exits 1 when any failed.
"""
import os
import sys

import numcodecs
import numpy as np
import zarr
from numcodecs import BZ2, LZ4, Blosc, GZip, Shuffle, Zlib, Zstd

ZARR3 = not zarr.__version__.startswith("2.")
SHAPE, CHUNKS = (50, 70), (16, 32)  # edge chunks in both dimensions
DTYPES = {"f32": "<f4", "i16": "<i2", "u8": "|u1"}
DEFAULT = object()  # no compressor argument at all: the library's default


def cases(itemsize):
    """name -> (filters, compressor)"""
    return {
        "zlib": (None, Zlib(level=5)),
        "gzip": (None, GZip(level=5)),
        "shuffle_zlib": ([Shuffle(elementsize=itemsize)], Zlib(level=1)),
        "blosc": (None, Blosc()),
        "blosc_lz4": (None, Blosc(cname="lz4", clevel=5, shuffle=Blosc.SHUFFLE)),
        "blosc_zstd": (None, Blosc(cname="zstd", clevel=3, shuffle=Blosc.SHUFFLE)),
        "blosc_bitshuffle": (None, Blosc(cname="lz4", clevel=5, shuffle=Blosc.BITSHUFFLE)),
        "blosc_autoshuffle": (None, Blosc(cname="zstd", clevel=5, shuffle=Blosc.AUTOSHUFFLE)),
        "zstd": (None, Zstd(level=3)),
        "bz2": (None, BZ2(level=5)),
        "lz4": (None, LZ4(acceleration=1)),
        "default": (None, DEFAULT),
    }


def values(kind):
    i, j = np.meshgrid(np.arange(SHAPE[0]), np.arange(SHAPE[1]), indexing="ij")
    if kind == "f32":  # a smooth field, as real data compresses
        return (15.0 + 8.0 * np.sin(i * 0.07) * np.cos(j * 0.05) + 0.002 * j).astype("<f4")
    if kind == "i16":
        return ((i * 61 + j * 13) % 7000 - 3500).astype("<i2")
    return ((i * 7 + j * 3) % 256).astype("|u1")


def create(group, name, data, filters, compressor):
    kw = {"shape": data.shape, "chunks": CHUNKS, "dtype": data.dtype, "fill_value": 0}
    if ZARR3:
        if filters:
            kw["filters"] = filters
        if compressor is not DEFAULT:
            kw["compressors"] = compressor
        a = group.create_array(name, **kw)
    else:
        if filters:
            kw["filters"] = filters
        if compressor is not DEFAULT:
            kw["compressor"] = compressor
        a = group.create_dataset(name, **kw)
    a[...] = data
    return a


def make(outdir):
    store = os.path.join(outdir, "store.zarr")
    g = zarr.open_group(store, mode="w", zarr_format=2) if ZARR3 else zarr.open_group(store, mode="w")
    names = []
    for kind, dt in DTYPES.items():
        data = values(kind)
        data.tofile(os.path.join(outdir, kind + ".bin"))
        for case, (filters, compressor) in cases(np.dtype(dt).itemsize).items():
            name = f"{case}_{kind}"
            create(g, name, data, filters, compressor)
            names.append(name)
    with open(os.path.join(outdir, "names.txt"), "w") as f:
        f.write("\n".join(names) + "\n")
    print(f"zarr-python {zarr.__version__} (numcodecs {numcodecs.__version__}) wrote {len(names)} arrays")
    return 0


def check(outdir):
    store = os.path.join(outdir, "store.zarr")
    who = f"zarr-python {zarr.__version__}"
    bad = 0
    for name in open(os.path.join(outdir, "names.txt")).read().split():
        kind = name.rsplit("_", 1)[1]
        want = np.fromfile(os.path.join(outdir, kind + ".bin"), dtype=DTYPES[kind]).reshape(SHAPE)
        try:
            path = os.path.join(store, name)
            a = zarr.open_array(path, mode="r", zarr_format=2) if ZARR3 else zarr.open_array(path, mode="r")
            got = a[...]
            if got.dtype != want.dtype or not np.array_equal(got.view(f"u{want.itemsize}"), want.view(f"u{want.itemsize}")):
                raise ValueError(f"values differ ({got.dtype}, {int((got != want).sum())} elements)")
            print(f"ok {name}: {who}")
        except Exception as e:
            print(f"FAIL {name}: {who}: {type(e).__name__}: {e}")
            bad = 1
    return bad


if __name__ == "__main__":
    sys.exit({"make": make, "check": check}[sys.argv[1]](sys.argv[2]))
