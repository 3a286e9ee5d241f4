"""Zarr v3 stores as zarr-python 3 writes them, for v3_readers.sh:

    v3_make.py make DIR     writes DIR/v3.zarr (and DIR/xr.zarr, from xarray) and, for
                            every array, what zarr-python reads in it: DIR/raw/<n>.bin (the
                            values, C order, little-endian), and a line of DIR/arrays.txt:
                            "<n> <path> <numpy dtype> <shape> read"; DIR/later.zarr holds the
                            data types the connector does not map yet, named in DIR/later.txt
                            ("<array> <data type>": it must refuse them naming the type)
    v3_make.py damage DIR   copies of v3.zarr, each damaged one way, DIR/bad/<case>.zarr,
                            and DIR/bad.txt: "<case> <array path> <what the message names>"

The cases cover the data types (every integer and float in both byte orders, bool,
complex as the structure {r, i}, datetime64 and timedelta64 as int64, text as "string",
numpy "U" and "S", and variable-length bytes; text and bytes are saved as records, see
records() in zarr_values.py),
fill values (numbers, NaN, Infinity, hex bit patterns), 1-D to 3-D arrays, the codecs
(bytes, transpose, gzip, zstd with and without checksum, blosc, crc32c, none), sharding
(1-D and 2-D, index at the end and at the start, partial and missing shards and inner
chunks), both chunk key encodings and separators, nested groups and consolidated metadata."""
import json
import os
import shutil
import sys
import warnings

import numpy as np
import zarr
from zarr.codecs import (BloscCodec, BytesCodec, Crc32cCodec, GzipCodec, ShardingCodec, TransposeCodec,
                         ZstdCodec)

warnings.simplefilter("ignore")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from zarr_values import records, save, walk  # noqa: E402


def arrays(g):
    n = 0
    rng = np.random.default_rng(7)

    def add(path, shape, chunks, dtype, fill, values=None, **kw):
        nonlocal n
        a = g.create_array(path, shape=shape, chunks=chunks, dtype=dtype, fill_value=fill, **kw)
        if values is None:
            size = int(np.prod(shape))
            if np.dtype(dtype).kind == "b":
                values = (np.arange(size) % 3 == 0).reshape(shape)
            elif np.dtype(dtype).kind in "iu":
                info = np.iinfo(dtype)
                values = (np.arange(size) * 37 % (min(info.max, 1000) + 1)).astype(dtype).reshape(shape)
                if info.min < 0:
                    values = values - (values // 3)
            else:
                values = (rng.standard_normal(size) * 100).astype(dtype).reshape(shape)
        a[...] = values
        n += 1
        return a

    # every integer and float, little- and big-endian bytes
    for dt in ("i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "f4", "f8"):
        for endian in ("little", "big"):
            if dt[1] == "1" and endian == "big":
                continue
            add(f"types/{dt}_{endian}", (7, 5), (3, 2), dt, 0, serializer=BytesCodec(endian=endian),
                compressors=None)
    add("types/bool", (11,), (4,), "bool", False)
    # fill values: unwritten chunks read as the fill
    a = g.create_array("fill/nan", shape=(10,), chunks=(3,), dtype="f4", fill_value=np.nan)
    a[:4] = [1, 2, 3, 4]
    a = g.create_array("fill/inf", shape=(10,), chunks=(3,), dtype="f8", fill_value=-np.inf)
    a[7:] = [7, 8, 9]
    a = g.create_array("fill/int", shape=(3, 4), chunks=(2, 2), dtype="i4", fill_value=-99)
    a[0, 0] = 5
    # dimensions and chunking
    add("dims/d1", (13,), (5,), "f4", 0)
    add("dims/d3", (4, 5, 6), (2, 3, 4), "i2", 0)
    add("dims/scalar_like", (1,), (1,), "f8", 0)
    # codecs
    add("codecs/gzip", (20, 30), (7, 11), "f8", 0, compressors=GzipCodec(level=5))
    add("codecs/zstd_checksum", (20, 30), (7, 11), "i4", 0, compressors=ZstdCodec(level=3, checksum=True))
    add("codecs/blosc", (20, 30), (7, 11), "f4", 0,
        compressors=BloscCodec(cname="lz4", clevel=5, shuffle="shuffle"))
    add("codecs/blosc_bitshuffle", (20, 30), (7, 11), "u2", 0,
        compressors=BloscCodec(cname="zstd", clevel=3, shuffle="bitshuffle"))
    add("codecs/gzip_crc32c", (20, 30), (7, 11), "i8", 0, compressors=[GzipCodec(level=1), Crc32cCodec()])
    add("codecs/none", (20, 30), (7, 11), "u4", 0, compressors=None)
    add("codecs/transpose", (6, 8, 4), (3, 4, 2), "f4", 0, filters=[TransposeCodec(order=(2, 0, 1))])
    # sharding: 1-D and 2-D, partial edge shards, shards and inner chunks never written
    add("shards/s1", (100,), (10,), "i4", -1, shards=(40,))
    a = g.create_array("shards/s2_sparse", shape=(30, 40), chunks=(5, 10), shards=(10, 20), dtype="f4",
                       fill_value=-7.5)
    a[0:5, 0:10] = 1.5     # one inner chunk of the first shard
    a[22:27, 35:40] = 2.5  # inside the last row of shards; most shards never written
    n += 1
    a = g.create_array("shards/s2_start", shape=(12, 12), dtype="u1", fill_value=0,
                       chunks=(12, 12),
                       serializer=ShardingCodec(chunk_shape=(4, 4), codecs=[BytesCodec(), GzipCodec(level=1)],
                                                index_location="start"))
    a[...] = np.arange(144, dtype="u1").reshape(12, 12)
    n += 1
    # the same without the outer compressor zarr-python adds to an explicit serializer, so that
    # inner chunks can be read on their own; one inner chunk of fill, never written
    a = g.create_array("shards/s2_start_inner", shape=(12, 16), dtype="i2", fill_value=3, chunks=(12, 16),
                       compressors=None,
                       serializer=ShardingCodec(chunk_shape=(4, 4), codecs=[BytesCodec(), GzipCodec(level=1)],
                                                index_location="start"))
    v = np.arange(192, dtype="i2").reshape(12, 16) * 5 - 300
    v[4:8, 8:12] = 3
    a[...] = v
    n += 1
    # chunk key encodings
    add("keys/v2_dot", (9, 9), (4, 4), "i4", 0, chunk_key_encoding={"name": "v2", "separator": "."})
    add("keys/default_dot", (9, 9), (4, 4), "i4", 0, chunk_key_encoding={"name": "default", "separator": "."})
    # nested groups
    add("a/b/c/deep", (5,), (2,), "u8", 0)
    # numpy's complex (the structure {r, i}) and datetime64 / timedelta64 (int64)
    g.create_array("numpy/complex64", shape=(4,), chunks=(2,), dtype="c8", fill_value=1 - 1j)[:3] = [1 + 2j, 3, 4j]
    g.create_array("numpy/complex128", shape=(3, 2), chunks=(2, 2), dtype=">c16", fill_value=0)[...] = \
        np.array([[1.5 + 2j, -3], [4j, 5], [6, 7 - 7j]])
    g.create_array("numpy/datetime", shape=(3,), chunks=(2,), dtype="M8[s]", fill_value=0)[:2] = \
        np.array(["2020-01-01T00:00:00", "2021-06-15T12:00:00"], dtype="M8[s]")
    g.create_array("numpy/timedelta", shape=(2,), chunks=(2,), dtype="m8[ms]", fill_value=0)[...] = \
        np.array([1500, -20], dtype="m8[ms]")
    # text and bytes: "string" (vlen-utf8, zarr-python's str), numpy "U" (fixed_length_utf32,
    # xarray's string coordinates), "S" (null_terminated_bytes), variable_length_bytes; a chunk
    # never written reads as the fill ""; strings in shards
    from zarr.core.dtype import VariableLengthBytes
    words = np.array(["alpha", "", "héllo wörld", "日本語", "x" * 300, "tab\tand space"], dtype=object)
    a = g.create_array("text/vlen", shape=(3, 4), chunks=(2, 2), dtype=str, fill_value="")
    a[0:2, 0:2] = words[:4].reshape(2, 2)
    a[2, 3] = words[4]
    g.create_array("text/vlen_gzip", shape=(6,), chunks=(4,), dtype=str, fill_value="",
                   compressors=GzipCodec(level=5))[...] = words
    g.create_array("text/utf32", shape=(5,), chunks=(2,), dtype="<U6", fill_value="")[:4] = \
        ["ab", "cdé", "", "日本語12"]
    g.create_array("text/bytes_fixed", shape=(4,), chunks=(3,), dtype="S4", fill_value=b"")[...] = \
        [b"ab", b"abcd", b"", b"x\x01"]
    g.create_array("text/vlen_bytes", shape=(3,), chunks=(2,), dtype=VariableLengthBytes(), fill_value=b"")[...] = \
        np.array([b"a\x00b", b"", b"\xff\xfe"], dtype=object)
    a = g.create_array("text/sharded", shape=(10,), chunks=(2,), shards=(4,), dtype=str, fill_value="")
    a[0:3] = ["s0", "s1", "s2"]
    a[9] = "last"
    n += 6
    # numpy structured types of numbers, bool and bytes (v3 "structured"; one byte order:
    # zarr-python 3.1 writes no per-field order, and reads mixed ones wrongly itself)
    rec = np.dtype([("a", "<i4"), ("b", "<f8"), ("c", "S3"), ("d", "?")])
    g.create_array("numpy/structured", shape=(3,), chunks=(2,), dtype=rec)[...] = \
        np.array([(1, 2.5, b"x", True), (3, -4.5, b"yz", False), (5, 6.0, b"", True)], dtype=rec)
    n += 1
    return n


def later(d):
    """Data types the connector does not map yet, in a store of their own (one such array
    keeps h5dump from dumping the store it is in): refused naming the type."""
    g = zarr.open_group(os.path.join(d, "later.zarr"), mode="w", zarr_format=3)
    g.create_array("raw", shape=(3,), chunks=(2,), dtype="V4")
    g.create_array("ok", shape=(2,), chunks=(2,), dtype="i4", fill_value=0)[...] = [1, 2]
    open(os.path.join(d, "later.txt"), "w").write("raw raw_bytes\n")


def make(d):
    path = os.path.join(d, "v3.zarr")
    g = zarr.open_group(path, mode="w", zarr_format=3)
    g.attrs["title"] = "zarr-python 3 corpus"
    g.attrs["numbers"] = [1, 2.5, 3]
    arrays(g)
    zarr.consolidate_metadata(path)
    # a hex fill value bit pattern (a NaN with a payload): zarr-python writes "NaN" itself
    meta = json.load(open(os.path.join(path, "fill", "nan", "zarr.json")))
    meta["fill_value"] = "0x7fc00000"
    json.dump(meta, open(os.path.join(path, "fill", "nan", "zarr.json"), "w"))
    os.makedirs(os.path.join(d, "raw"), exist_ok=True)
    lines = []
    root = zarr.open_group(path, mode="r", use_consolidated=False)
    for p, a in walk(root, ""):
        v = a[...]
        n = len(lines)
        lines.append(f"{n} {p} {save(d, n, v)} {'x'.join(map(str, v.shape))} read")
    open(os.path.join(d, "arrays.txt"), "w").write("\n".join(lines) + "\n")
    later(d)
    # xarray's v3 (dimension_names; coordinates)
    import xarray as xr
    ds = xr.Dataset({"temp": (("time", "lat"), np.arange(12, dtype="f8").reshape(3, 4)),
                     "obs": (("station",), [1.5, 2.5, 3.5]),
                     "remark": (("station",), np.array(["calm", "", "windy día"], dtype=object))},
                    coords={"time": np.array([1, 2, 3], dtype="i8"), "lat": [10.0, 20.0, 30.0, 40.0],
                            "station": ["north", "south", "ëast"]})
    ds.attrs["title"] = "xarray v3"
    ds.to_zarr(os.path.join(d, "xr.zarr"), zarr_format=3, mode="w")
    lines = []
    for p, a in walk(zarr.open_group(os.path.join(d, "xr.zarr"), mode="r"), ""):
        n = f"xr{len(lines)}"
        lines.append(f"{n} {p} {save(d, n, a[...])} {'x'.join(map(str, a.shape))} read")
    open(os.path.join(d, "xr_arrays.txt"), "w").write("\n".join(lines) + "\n")
    print(f"{len(lines)} arrays written by zarr-python {zarr.__version__}")


def damage(d):
    src = os.path.join(d, "v3.zarr")
    bad = os.path.join(d, "bad")
    os.makedirs(bad, exist_ok=True)
    cases = []

    def copy(case):
        p = os.path.join(bad, case + ".zarr")
        shutil.copytree(src, p)
        os.remove(os.path.join(p, "zarr.json"))  # the consolidated root: one without it
        json.dump({"zarr_format": 3, "node_type": "group", "attributes": {}}, open(os.path.join(p, "zarr.json"), "w"))
        return p

    def edit(p, arr, fn):
        f = os.path.join(p, arr, "zarr.json")
        m = json.load(open(f))
        fn(m)
        json.dump(m, open(f, "w"))

    def case(name, arr, needle, fn):
        p = copy(name)
        fn(p)
        cases.append(f"{name} {arr} {needle}")

    case("no_shape", "dims/d1", "shape", lambda p: edit(p, "dims/d1", lambda m: m.pop("shape")))
    case("shape_type", "dims/d1", "shape", lambda p: edit(p, "dims/d1", lambda m: m.update(shape="13")))
    case("no_fill", "dims/d1", "fill_value", lambda p: edit(p, "dims/d1", lambda m: m.pop("fill_value")))
    case("unknown_type", "dims/d1", "float128", lambda p: edit(p, "dims/d1", lambda m: m.update(data_type="float128")))
    case("unknown_codec", "dims/d1", "nosuchcodec",
         lambda p: edit(p, "dims/d1", lambda m: m["codecs"].append({"name": "nosuchcodec"})))
    case("must_understand", "dims/d1", "my_extension",
         lambda p: edit(p, "dims/d1", lambda m: m.update(my_extension={"must_understand": True})))
    case("grid", "dims/d1", "rectilinear",
         lambda p: edit(p, "dims/d1", lambda m: m["chunk_grid"].update(name="rectilinear")))
    case("not_json", "dims/d1", "zarr.json",
         lambda p: open(os.path.join(p, "dims/d1/zarr.json"), "w").write("{\"zarr_format\": 3, "))
    case("codec_order", "dims/d1", "array->bytes",
         lambda p: edit(p, "dims/d1", lambda m: m.update(codecs=[{"name": "gzip", "configuration": {"level": 1}}])))

    def shard_file(p):
        return os.path.join(p, "shards", "s1", "c", "0")

    def truncate(p):
        f = shard_file(p)
        data = open(f, "rb").read()
        open(f, "wb").write(data[: len(data) // 2])

    def flip_index(p):
        f = shard_file(p)
        data = bytearray(open(f, "rb").read())
        data[-10] ^= 0xFF  # inside the index: its crc32c no longer matches
        open(f, "wb").write(data)

    def past_end(p):
        f = shard_file(p)
        data = bytearray(open(f, "rb").read())
        idx = len(data) - 4 - 4 * 16  # the first (offset, length) of the index
        data[idx:idx + 8] = (len(data) * 2).to_bytes(8, "little")
        body = bytes(data[len(data) - 4 - 4 * 16: len(data) - 4])
        data[-4:] = crc32c(body).to_bytes(4, "little")
        open(f, "wb").write(data)

    def truncate_text(p):
        f = os.path.join(p, "text", "vlen", "c", "0", "0")
        data = open(f, "rb").read()
        open(f, "wb").write(data[: len(data) // 2])

    case("text_truncated", "text/vlen", "c/0/0", truncate_text)
    case("text_codec", "text/vlen", "vlen-utf8",
         lambda p: edit(p, "text/vlen", lambda m: m.update(codecs=[{"name": "bytes", "configuration": {"endian": "little"}}])))
    def overlap_index(p):
        f = shard_file(p)
        data = bytearray(open(f, "rb").read())
        idx = len(data) - 4 - 4 * 16  # the first (offset, length): a range running into the index
        data[idx:idx + 8] = (idx - 8).to_bytes(8, "little")
        data[idx + 8:idx + 16] = (32).to_bytes(8, "little")
        body = bytes(data[len(data) - 4 - 4 * 16: len(data) - 4])
        data[-4:] = crc32c(body).to_bytes(4, "little")
        open(f, "wb").write(data)

    def damage_inner(p):
        f = shard_file(p)
        data = bytearray(open(f, "rb").read())
        data[0] ^= 0xFF  # the first inner chunk starts the shard: its zstd frame no longer is one
        open(f, "wb").write(data)

    def zero_length(p):
        f = shard_file(p)
        data = bytearray(open(f, "rb").read())
        idx = len(data) - 4 - 4 * 16 + 3 * 16  # the fourth (offset, length): stored, 0 bytes long
        data[idx:idx + 16] = (0).to_bytes(8, "little") * 2
        body = bytes(data[len(data) - 4 - 4 * 16: len(data) - 4])
        data[-4:] = crc32c(body).to_bytes(4, "little")
        open(f, "wb").write(data)

    case("shard_inner", "shards/s1", "inner chunk 0", damage_inner)
    case("shard_zero_length", "shards/s1", "inner chunk 3", zero_length)
    case("shard_index_overlap", "shards/s1", "index is corrupt", overlap_index)
    case("shard_truncated", "shards/s1", "c/0", truncate)
    case("shard_crc", "shards/s1", "crc32c", flip_index)
    case("shard_past_end", "shards/s1", "index is corrupt", past_end)
    open(os.path.join(d, "bad.txt"), "w").write("\n".join(cases) + "\n")
    # chunk objects outside the grid: past the last chunk, far past it, not a number; and a
    # shard past the last one. Not damage to any Zarr reader: they are never read.
    p = copy("stray")
    for key, body in (("dims/d1/c/3", b"\xff" * 20), ("dims/d1/c/99", b"\x01" * 7), ("dims/d1/c/x", b"junk"),
                      ("shards/s1/c/9", open(shard_file(p), "rb").read()[:-3])):
        open(os.path.join(p, key), "wb").write(body)
    open(os.path.join(d, "stray.txt"), "w").write("dims/d1\nshards/s1\n")
    print(f"{len(cases)} damaged stores")


def crc32c(b):
    c = 0xFFFFFFFF
    for x in b:
        c ^= x
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    return c ^ 0xFFFFFFFF


if __name__ == "__main__":
    {"make": make, "damage": damage}[sys.argv[1]](sys.argv[2])
