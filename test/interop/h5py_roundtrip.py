"""h5py (built against the project's HDF5) natively and through the connector.

    h5py_roundtrip.py write PATH        writes the corpus below with h5py
    h5py_roundtrip.py dump PATH OUT     reads it back by path into OUT (a pickle): values,
                                        dtypes, shapes, chunks, compression, fill values,
                                        maxshape, attributes, dimension labels and scales
    h5py_roundtrip.py compare A B       exit 1, one line per difference, unless equal
    h5py_roundtrip.py sequences PATH    the call sequences that crashed h5py (issue [10]):
                                        a native-only call that fails (visititems, "in",
                                        H5Rcreate1 through .ref), then reads, a new compound
                                        dataset and close; exit 0 when the process survives
The corpus: nested groups, a chunked + gzip + shuffle dataset, a resizable dataset grown
twice, variable-length and fixed strings, a compound, complex numbers, attributes of several
types, dimension scales with labels."""
import pickle
import sys

import h5py
import numpy as np

PATHS = ["grid/x", "grid/y", "grid/temp", "grid/series", "text/vlen", "text/fixed", "records", "cplx"]


def write(path):
    with h5py.File(path, "w") as f:
        f.attrs["title"] = "h5py corpus"
        f.attrs["version"] = np.int32(3)
        f.attrs["scales"] = np.array([1.5, 2.5], dtype="f8")
        g = f.create_group("grid")
        x = g.create_dataset("x", data=np.arange(8, dtype="f4"))
        y = g.create_dataset("y", data=np.linspace(0, 1, 6))
        t = g.create_dataset("temp", data=np.arange(48, dtype="f4").reshape(6, 8) / 7, chunks=(3, 4),
                             compression="gzip", compression_opts=5, shuffle=True, fillvalue=-1.0)
        t.attrs["units"] = "K"
        x.make_scale("x")
        y.make_scale("y")
        t.dims[0].attach_scale(y)
        t.dims[1].attach_scale(x)
        t.dims[0].label = "y"
        t.dims[1].label = "x"
        s = g.create_dataset("series", shape=(4,), maxshape=(None,), chunks=(4,), dtype="i8", fillvalue=7)
        s[:] = [1, 2, 3, 4]
        s.resize((10,))
        s[6:8] = [60, 70]
        s.resize((12,))
        txt = f.create_group("text/nested/deeper").parent.parent
        txt.create_dataset("vlen", data=["alpha", "beta", ""], dtype=h5py.string_dtype("utf-8"))
        txt.create_dataset("fixed", data=np.array([b"ab", b"cde"], dtype="S4"))
        rec = np.dtype([("id", "i4"), ("val", "f8"), ("name", "S6")])
        f.create_dataset("records", data=np.array([(1, 0.5, b"one"), (2, -1.5, b"two")], dtype=rec))
        f.create_dataset("cplx", data=np.array([1 + 2j, -3.5j], dtype="c16"))


def dump(path, out):
    got = {}
    with h5py.File(path, "r") as f:
        got["/"] = {k: np.asarray(v).tolist() for k, v in sorted(f.attrs.items())}
        # by opening each ("name in group" is H5Oget_info1, which HDF5 keeps for native files)
        got["groups"] = [isinstance(f[k], h5py.Group) for k in ["grid", "text", "text/nested", "text/nested/deeper"]]
        for p in PATHS:
            d = f[p]
            v = d[...]
            got[p] = {
                "dtype": str(d.dtype), "shape": d.shape, "maxshape": d.maxshape, "chunks": d.chunks,
                "compression": d.compression, "compression_opts": d.compression_opts, "shuffle": d.shuffle,
                "fillvalue": np.asarray(d.fillvalue).tolist() if d.dtype.kind not in "OV" else None,
                "values": v.tolist(),
                "slice": d[1:3].tolist() if d.ndim else None,
                "fancy": d[[0, 1]].tolist() if d.ndim and d.shape[0] > 1 else None,
                # (the scales' reference attributes: h5py has no dtype for HDF5 1.14's references;
                # the dimensions are compared through d.dims below)
                "attrs": {k: np.asarray(d.attrs[k]).tolist() for k in sorted(d.attrs.keys())
                          if k not in ("DIMENSION_LIST", "REFERENCE_LIST")},
                "labels": [dim.label for dim in d.dims],
                "scales": [[s.name for s in dim.values()] for dim in d.dims],
                "is_scale": d.is_scale,
            }
    with open(out, "wb") as fp:
        pickle.dump(got, fp)


def compare(a, b):
    with open(a, "rb") as fp:
        x = pickle.load(fp)
    with open(b, "rb") as fp:
        y = pickle.load(fp)
    bad = 0
    for k in sorted(set(x) | set(y)):
        if x.get(k) == y.get(k):
            continue
        if isinstance(x.get(k), dict) and isinstance(y.get(k), dict):
            for f in sorted(set(x[k]) | set(y[k])):
                if x[k].get(f) != y[k].get(f):
                    print(f"FAIL: {k}: {f}: native {x[k].get(f)!r}, connector {y[k].get(f)!r}")
                    bad += 1
        else:
            print(f"FAIL: {k}: native {x.get(k)!r}, connector {y.get(k)!r}")
            bad += 1
    print(f"{len(x)} entries compared, {bad} differences")
    return 1 if bad else 0


def sequences(path):
    write(path)
    f = h5py.File(path, "r+")
    for what, call in (("visititems", lambda: f.visititems(lambda n, o: None)),
                       ("in", lambda: "grid/temp" in f),
                       ("ref", lambda: f.ref)):
        try:
            call()
            print(f"{what}: works")
        except Exception as e:  # noqa: BLE001 - h5py refuses native-only calls; only survival counts
            print(f"{what}: {type(e).__name__} (HDF5 refuses its native-only call)")
    print("read:", float(f["grid/temp"][...].sum()))
    rec = np.dtype([("a", "i4"), ("b", "f8")])
    f.create_dataset("scalar_compound", data=np.array((1, 2.0), dtype=rec))
    f.close()
    print("survived")
    return 0


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "write":
        write(sys.argv[2])
    elif cmd == "dump":
        dump(sys.argv[2], sys.argv[3])
    elif cmd == "compare":
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    elif cmd == "sequences":
        sys.exit(sequences(sys.argv[2]))
