"""Values equal to the native file's: every dataset's shape, values, chunk shape (when
chunked) and numeric fill value and every attribute's value that h5py reads in an HDF5 file
are what zarr-python reads in a Zarr store.

    compare_h5_zarr.py NATIVE STORE [--storage-options JSON] [--unreadable PATH=WHY ...]
    compare_h5_zarr.py --snapshot NATIVE.h5 OUT.pickle

NATIVE is an HDF5 file (read with h5py) or a snapshot of one: --snapshot writes what h5py
reads to a pickle, so that a Python without h5py (the zarr-python 3 environment) judges a
store against it. STORE is a path or a URL (s3://bucket/key with fsspec's storage options
as JSON). --unreadable PATH=WHY names a dataset this zarr-python cannot read (a limit of
that reader, WHY saying which): reading it must fail, and it is not compared; every
other dataset must read. Exit 1 with a list of differences.

Scalars are shape () in HDF5 and (1,) in NCZarr; variable-length strings are Python str in
h5py and bytes (|S<n>) in Zarr: both are compared as text."""
import argparse
import json
import pickle
import sys

import numpy as np
import zarr

# NCZarr's own keys and xarray's dimension names are not HDF5 attributes.
HIDDEN = {"_ARRAY_DIMENSIONS", "_nczarr_array", "_nczarr_attr", "_nczarr_group", "_nczarr_superblock",
          "_NCProperties", "_nczarr_maxstrlen"}


def snapshot(path):
    """{object path: entry} of an HDF5 file, with what the comparison needs of h5py. Every
    path of an object with several hard links gets an entry; "addr" tells them apart."""
    import h5py

    out = {}

    def attrs(hobj):
        a = {}
        for k in hobj.attrs.keys():
            aid = hobj.attrs.get_id(k)
            if aid.shape is None:  # a null dataspace: no elements (h5py's Empty)
                a[k] = {"value": [], "dtype": aid.dtype, "rank": 0}
            else:
                a[k] = {"value": hobj.attrs[k], "dtype": aid.dtype, "rank": len(aid.shape)}
        return a

    with h5py.File(path, "r") as h5:
        seen = set()

        def walk(path, hobj):
            addr = h5py.h5o.get_info(hobj.id).addr
            e = {"kind": "group", "attrs": attrs(hobj), "addr": addr}
            if isinstance(hobj, h5py.Dataset):
                e.update(kind="dataset", value=hobj[()], shape=hobj.shape, dtype=hobj.dtype, chunks=hobj.chunks)
                if hobj.dtype.kind in "iuf":  # (h5py's fillvalue crashes on some string types)
                    e["fill"] = hobj.fillvalue
            out[path] = e
            if isinstance(hobj, h5py.Group) and addr not in seen:
                seen.add(addr)
                for name in hobj:
                    if hobj.get(name, getlink=True).__class__.__name__ == "HardLink":
                        walk(path.rstrip("/") + "/" + name, hobj[name])

        walk("/", h5)
    return out


def text(v):
    if isinstance(v, bytes):
        return v.decode("utf-8").rstrip("\0")
    return v


def norm(v):
    """numpy-comparable form of an attribute or data value"""
    # compound values: h5py gives numpy records (padded like the HDF5 type), zarr-python
    # packed structured arrays or (attributes) JSON objects: compare member by member
    if isinstance(v, (np.void, np.ndarray)) and v.dtype.names:
        if isinstance(v, np.void) or v.shape == ():
            return {k: norm(v[k]) for k in v.dtype.names}
        return [norm(x) for x in v]
    if isinstance(v, dict):
        return {k: norm(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)) or (isinstance(v, np.ndarray) and v.dtype.kind in "OSU"):
        return [norm(x) for x in (v.tolist() if isinstance(v, np.ndarray) else v)]
    if isinstance(v, (bytes, str)):
        return text(v)
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, np.generic):
        return v.item()
    return v


def same(a, b):
    a, b = norm(a), norm(b)
    if isinstance(a, list) and len(a) == 1 and not isinstance(b, list):
        a = a[0]
    if isinstance(b, list) and len(b) == 1 and not isinstance(a, list):
        b = b[0]
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (a != a and b != b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b


def json_text_of(hv, zv):
    """NCZarr's convention: a text attribute whose text is canonical JSON is stored as that
    JSON (type "|J0"), so zarr-python reads the JSON value the text spells."""
    t = norm(hv)
    if isinstance(t, list) and len(t) == 1:
        t = t[0]
    if not isinstance(t, str) or isinstance(zv, str):
        return False
    try:
        return json.loads(t) == zv
    except ValueError:
        return False


def open_store(store, storage_options):
    if store.endswith(".zip"):  # zarr-python's layout (the connector's zip-root option)
        return zarr.open_group(zarr.storage.ZipStore(store, mode="r"), mode="r")
    if storage_options:
        return zarr.open_group(store, mode="r", storage_options=storage_options)
    return zarr.open_group(store, mode="r")


def compare(native, zg, unreadable):
    problems = []
    checked = [0, 0, 0]

    def attrs(path, entry, zobj):
        zattrs = {k: v for k, v in zobj.attrs.items() if k not in HIDDEN}
        if set(entry["attrs"]) != set(zattrs):
            problems.append(f"{path}: attributes {sorted(entry['attrs'])} vs {sorted(zattrs)}")
        for k, a in entry["attrs"].items():
            if k not in zattrs:
                continue
            checked[1] += 1
            zv, hv, dt = zattrs[k], a["value"], a["dtype"]
            if a["rank"] > 1:
                # a dataspace of rank > 1: NCZarr attributes are flat JSON lists (the shape
                # is kept aside); array-typed elements stay nested
                hv = hv.reshape((-1,) + hv.shape[a["rank"]:])
            if dt.kind in "iuf":
                # JSON holds the value; compare it in the attribute's own type
                zv = np.asarray(zv).astype(dt)
            if not same(hv, zv) and not json_text_of(hv, zv):
                problems.append(f"{path}@{k}: {hv!r} vs {zattrs[k]!r}")

    def dataset(path, e, zobj, zv):
        hv, hdt, hshape = e["value"], e["dtype"], e["shape"]
        if hdt.subdtype is not None and zobj.dtype.names == ("value",):
            # an HDF5 array type is the one structured field "value" (h5py expands it)
            zv = zv["value"]
        if hshape == ():
            if zobj.shape != (1,):
                problems.append(f"{path}: scalar stored with shape {zobj.shape}")
            zv = zv.reshape(())
        elif hshape != zobj.shape:
            problems.append(f"{path}: shape {hshape} vs {zobj.shape}")
            return
        if e.get("chunks") and tuple(e["chunks"]) != tuple(zobj.chunks):
            problems.append(f"{path}: chunks {e['chunks']} vs {zobj.chunks}")
        if "fill" in e and not same(e["fill"], zobj.fill_value):
            problems.append(f"{path}: fill value {e['fill']!r} vs {zobj.fill_value!r}")
        if hdt.names:
            if hdt.names != zobj.dtype.names:
                problems.append(f"{path}: fields {hdt.names} vs {zobj.dtype.names}")
            elif not same(hv, zv):
                problems.append(f"{path}: records differ:\n{hv}\nvs\n{zv}")
        elif hdt.kind in "OS" or zobj.dtype.kind == "S":
            if not same(hv if hshape else [hv], zv if zobj.shape else [zv]):
                problems.append(f"{path}: strings {norm(hv)!r} vs {norm(zv)!r}")
        else:
            hv = np.asarray(hv)
            if hv.dtype.kind == "b" and zv.dtype == np.int8 and np.isin(zv, [0, 1]).all():
                # h5py shows an HDF5 enum {FALSE=0, TRUE=1} over int8 as numpy bool; the
                # store keeps the enum's integers
                zv = zv.astype(bool)
            # byte order is how each reader hands the values over (h5py in the machine's,
            # zarr-python 3 in the store's), not a difference between them
            if hv.dtype.str[1:] != zv.dtype.str[1:]:
                problems.append(f"{path}: dtype {hv.dtype.str} vs {zv.dtype.str}")
            if not np.array_equal(hv, zv, equal_nan=hv.dtype.kind == "f"):
                problems.append(f"{path}: values differ:\n{hv}\nvs\n{zv}")

    # An object with several hard links is one key in NCZarr, under one of its paths (the
    # others are links only HDF5 readers see): it is compared under the first of its paths
    # the store has.
    paths = {}
    for path, e in native.items():
        paths.setdefault(e["addr"], []).append(path)
    for addr, plist in paths.items():
        e, zobj, value, err = native[plist[0]], None, None, None
        for path in plist:
            name = path.lstrip("/")
            try:
                zobj = zg[name] if name else zg
                if e["kind"] == "dataset":
                    value = zobj[...]
                err = None
                break
            except KeyError as x:
                err = x
            except Exception as x:
                err = x
                break
        if err is not None:
            x = err
            if path in unreadable:  # the reader's own limit, named by the caller
                checked[2] += 1
                print(f"not compared: {path}: this zarr-python cannot read it ({unreadable[path]}): "
                      f"{type(x).__name__}: {str(x)[:200]}")
            else:
                problems.append(f"{' or '.join(plist)}: zarr-python cannot read it: {type(x).__name__}: {str(x)[:300]}")
            continue
        if path in unreadable:
            problems.append(f"{path}: named unreadable ({unreadable[path]}) but read: drop --unreadable")
            continue
        attrs(path, e, zobj)
        if e["kind"] == "dataset":
            checked[0] += 1
            dataset(path, e, zobj, value)
    unknown = set(unreadable) - set(native)
    if unknown:
        problems.append(f"--unreadable names no dataset of the native file: {sorted(unknown)}")
    for p in problems:
        print("DIFF", p)
    print(f"zarr-python {zarr.__version__}: compared {checked[0]} datasets and {checked[1]} attributes "
          f"with the native file ({checked[2]} unreadable, named): {len(problems)} differences")
    return 1 if problems else 0


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--snapshot":
        with open(sys.argv[3], "wb") as f:
            pickle.dump(snapshot(sys.argv[2]), f, protocol=4)
        return 0
    ap = argparse.ArgumentParser()
    ap.add_argument("native")
    ap.add_argument("store")
    ap.add_argument("--storage-options", default="")
    ap.add_argument("--unreadable", action="append", default=[])
    a = ap.parse_args()
    if a.native.endswith(".pickle"):
        with open(a.native, "rb") as f:
            native = pickle.load(f)
    else:
        native = snapshot(a.native)
    unreadable = dict(u.split("=", 1) for u in a.unreadable)
    opts = json.loads(a.storage_options) if a.storage_options else None
    return compare(native, open_store(a.store, opts), unreadable)


sys.exit(main())
