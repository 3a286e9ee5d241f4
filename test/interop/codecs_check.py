"""Judges of the store codecs_writer writes (codecs_writer.sh). One subcommand per judge;
each prints "ok CASE ..." or "FAIL CASE: why" per dataset and exits 1 when any failed.

  codecs_check.py zarr   STORE RAWDIR   zarr-python (2 or 3, whichever runs this) reads
                                        every dataset with the writer's values
  codecs_check.py zarray STORE          .zarray: the numcodecs chain each case must give,
                                        parameters JSON integers, shuffle's element size
  codecs_check.py names                 the datasets' names, one a line
  codecs_check.py cdl    CDLDIR RAWDIR  ncdump -p 9,17 output (CDLDIR/NAME.cdl) holds the
                                        writer's values
"""
import json
import os
import re
import sys

import numpy as np

SHAPE = (60, 90)
DTYPES = {"f32": "<f4", "i16": "<i2"}


def chain(case, esz):
    """(filters, compressor) as numcodecs names them: the parameters that must be there."""
    return {
        "deflate": ([], {"id": "zlib", "level": 6}),
        "shuffle_deflate": ([{"id": "shuffle", "elementsize": esz}], {"id": "zlib", "level": 4}),
        "blosc_lz4": ([], {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1}),
        "blosc_zstd": ([], {"id": "blosc", "cname": "zstd", "clevel": 5, "shuffle": 1}),
        "zstd": ([], {"id": "zstd", "level": 3}),
        "bzip2": ([], {"id": "bz2", "level": 9}),
        "deflate_fletcher32": ([{"id": "zlib", "level": 6}], {"id": "fletcher32"}),
    }[case]


CASES = ["deflate", "shuffle_deflate", "blosc_lz4", "blosc_zstd", "zstd", "bzip2", "deflate_fletcher32"]


def datasets():
    for case in CASES:
        for kind in ("f32", "i16"):
            yield case, kind, f"{case}_{kind}"


def expected(rawdir, kind):
    return np.fromfile(os.path.join(rawdir, kind + ".bin"), dtype=DTYPES[kind]).reshape(SHAPE)


def same(got, want):
    """Exact: the same bits (floats compared as integers of their size)."""
    got = np.asarray(got)
    if got.shape != want.shape or got.dtype != want.dtype:
        return f"shape/dtype {got.shape} {got.dtype}, not {want.shape} {want.dtype}"
    if want.dtype.kind == "f":
        bad = got.view(f"<u{want.dtype.itemsize}") != want.view(f"<u{want.dtype.itemsize}")
    else:
        bad = got != want
    if bad.any():
        i = tuple(int(x) for x in np.argwhere(bad)[0])
        return f"{int(bad.sum())} values differ, first at {i}: {got[i]!r} != {want[i]!r}"
    return None


def hdf5_fletcher32(data):
    """HDF5's Fletcher-32 (H5_checksum_fletcher32): big-endian 16-bit words, sums folded."""
    b = np.frombuffer(data, dtype=np.uint8)
    n = len(b) // 2
    words = (b[: 2 * n : 2].astype(np.uint64) << 8) | b[1 : 2 * n : 2].astype(np.uint64)
    if len(b) % 2:
        words = np.append(words, np.uint64(int(b[-1]) << 8))
    s1 = s2 = 0
    for k in range(0, len(words), 360):
        blk = words[k : k + 360]
        # sum2 gains sum1 after each word: s2 += len*s1_before + sum of running prefix sums
        pref = np.cumsum(blk)
        s2 += len(blk) * s1 + int(pref.sum())
        s1 += int(pref[-1])
        s1 = (s1 & 0xFFFF) + (s1 >> 16)
        s2 = (s2 & 0xFFFF) + (s2 >> 16)
    s1 = (s1 & 0xFFFF) + (s1 >> 16)
    s2 = (s2 & 0xFFFF) + (s2 >> 16)
    return (s2 << 16) | s1


def register_fletcher32():
    """numcodecs < 0.12 (Debian's, under zarr-python 2.13) has no fletcher32 codec. The test
    brings a decoder of its own that checks HDF5's checksum (little-endian, after the data)
    so that zarr-python 2 still judges the data; numcodecs' own is used where it exists."""
    import numcodecs
    from numcodecs.abc import Codec

    if "fletcher32" in numcodecs.registry.codec_registry:
        return

    class Fletcher32(Codec):
        codec_id = "fletcher32"

        def encode(self, buf):
            raw = bytes(memoryview(buf).cast("B"))
            return raw + hdf5_fletcher32(raw).to_bytes(4, "little")

        def decode(self, buf, out=None):
            raw = bytes(memoryview(buf).cast("B"))
            body, stored = raw[:-4], int.from_bytes(raw[-4:], "little")
            if len(raw) < 4 or hdf5_fletcher32(body) != stored:
                raise RuntimeError("fletcher32 checksum mismatch")
            if out is not None:
                np.frombuffer(out, dtype=np.uint8)[:] = np.frombuffer(body, dtype=np.uint8)
                return out
            return body

    numcodecs.register_codec(Fletcher32)


def open_array(path):
    import zarr

    if zarr.__version__.startswith("2."):
        register_fletcher32()
        return zarr.open_array(path, mode="r")
    return zarr.open_array(path, mode="r", zarr_format=2)


def judge_zarr(store, rawdir):
    import zarr

    who = f"zarr-python {zarr.__version__}"
    bad = 0
    for case, kind, name in datasets():
        try:
            why = same(open_array(os.path.join(store, name))[...], expected(rawdir, kind))
        except Exception as e:  # any failure to read is this case's failure
            why = f"{type(e).__name__}: {e}"
        if why:
            print(f"FAIL {case}: {who} reads {name}: {why}")
            bad = 1
        else:
            print(f"ok {case}: {who} reads {name}")
    return bad


def integer_params(codec, where):
    """Every numeric parameter must be a JSON integer (netCDF-C 4.9.3 wrote strings)."""
    probs = []
    for k, v in codec.items():
        if k in ("id", "cname"):
            continue
        if isinstance(v, bool) or not isinstance(v, int):
            probs.append(f"{where} {codec.get('id')}.{k} = {json.dumps(v)} is not a JSON integer")
    return probs


def judge_zarray(store):
    bad = 0
    for case, kind, name in datasets():
        path = os.path.join(store, name, ".zarray")
        try:
            with open(path) as f:
                za = json.load(f)
        except Exception as e:
            print(f"FAIL {case}: {name}/.zarray: {type(e).__name__}: {e}")
            bad = 1
            continue
        esz = np.dtype(DTYPES[kind]).itemsize
        want_f, want_c = chain(case, esz)
        got_f, got_c = za.get("filters") or [], za.get("compressor")
        probs = []
        ids = [c.get("id") for c in got_f] + [got_c.get("id") if got_c else None]
        want_ids = [c["id"] for c in want_f] + [want_c["id"]]
        if ids != want_ids:
            probs.append(f"codecs {ids}, not {want_ids}")
        else:
            for g, w in zip(got_f + [got_c], want_f + [want_c]):
                for k, v in w.items():
                    if g.get(k) != v:
                        probs.append(f"{w['id']}.{k} = {json.dumps(g.get(k))}, not {json.dumps(v)}")
        for i, c in enumerate(got_f):
            probs += integer_params(c, f"filters[{i}]")
        if got_c:
            probs += integer_params(got_c, "compressor")
        if probs:
            print(f"FAIL {case}: {name}/.zarray: " + "; ".join(probs))
            bad = 1
        else:
            print(f"ok {case}: {name}/.zarray " + json.dumps({"filters": got_f or None, "compressor": got_c}))
    return bad


def cdl_values(text, name):
    m = re.search(r"^data:\s*$(.*)", text, re.M | re.S)
    if not m:
        raise ValueError("no data section")
    m = re.search(r"^\s*" + re.escape(name) + r"\s*=(.*?);", m.group(1), re.M | re.S)
    if not m:
        raise ValueError(f"no data for {name}")
    return [t.strip() for t in m.group(1).replace("\n", " ").split(",") if t.strip()]


def judge_cdl(cdldir, rawdir):
    bad = 0
    for case, kind, name in datasets():
        want = expected(rawdir, kind)
        try:
            with open(os.path.join(cdldir, name + ".cdl")) as f:
                toks = cdl_values(f.read(), name)
            if "_" in toks:
                raise ValueError(f"{toks.count('_')} values are fill values (_)")
            conv = np.float32 if kind == "f32" else np.int16
            got = np.array([conv(float(t) if kind == "f32" else int(t)) for t in toks]).astype(want.dtype)
            if got.size != want.size:
                raise ValueError(f"{got.size} values, not {want.size}")
            why = same(got.reshape(SHAPE), want)
        except Exception as e:
            why = f"{type(e).__name__}: {e}"
        if why:
            print(f"FAIL {case}: ncdump {name}: {why}")
            bad = 1
        else:
            print(f"ok {case}: ncdump {name}")
    return bad


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "names":
        print("\n".join(name for _, _, name in datasets()))
        sys.exit(0)
    rc = {"zarr": judge_zarr, "zarray": judge_zarray, "cdl": judge_cdl}[cmd](*args)
    sys.exit(rc)
