"""Compares an HDF5 file (read with h5py) with a Zarr store (read with zarr-python): every
dataset's shape and values, every attribute's values. Exit 1 with a list of differences.
    /usr/bin/python3 compare_h5_zarr.py native.h5 store.zarr
Scalars are shape () in HDF5 and (1,) in NCZarr; variable-length strings are Python str
in h5py and bytes (|S<n>) in Zarr: both are compared as text."""
import sys
import h5py
import numpy as np
import zarr

# NCZarr's own keys and xarray's dimension names are not HDF5 attributes.
HIDDEN = {"_ARRAY_DIMENSIONS", "_nczarr_array", "_nczarr_attr", "_nczarr_group", "_nczarr_superblock",
          "_NCProperties", "_nczarr_maxstrlen"}


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


def main():
    h5 = h5py.File(sys.argv[1], "r")
    zg = zarr.open_group(sys.argv[2], mode="r")
    problems = []
    checked = [0, 0]

    def attrs(path, hobj, zobj):
        zattrs = {k: v for k, v in zobj.attrs.items() if k not in HIDDEN}
        if set(hobj.attrs.keys()) != set(zattrs.keys()):
            problems.append(f"{path}: attributes {sorted(hobj.attrs.keys())} vs {sorted(zattrs.keys())}")
        for k in hobj.attrs.keys():
            if k in zattrs:
                checked[1] += 1
                zv = zattrs[k]
                hv = hobj.attrs[k]
                dt = hobj.attrs.get_id(k).dtype
                if len(hobj.attrs.get_id(k).shape) > 1:
                    # a dataspace of rank > 1: NCZarr attributes are flat JSON lists (the
                    # shape is kept aside); array-typed elements stay nested
                    hv = hv.reshape((-1,) + hv.shape[len(hobj.attrs.get_id(k).shape):])
                if dt.kind in "iuf":
                    # JSON holds the value; compare it in the attribute's own type
                    zv = np.asarray(zv).astype(dt)
                if not same(hv, zv):
                    problems.append(f"{path}@{k}: {hv!r} vs {zattrs[k]!r}")

    def visit(name, hobj):
        path = "/" + name
        if name not in zg:
            problems.append(f"{path}: missing in the Zarr store")
            return
        zobj = zg[name]
        attrs(path, hobj, zobj)
        if isinstance(hobj, h5py.Dataset):
            checked[0] += 1
            hv = hobj[()]
            zv = zobj[...]
            if hobj.dtype.subdtype is not None and zobj.dtype.names == ("value",):
                # an HDF5 array type is the one structured field "value" (h5py expands it)
                zv = zv["value"]
            if hobj.shape == ():
                if zobj.shape != (1,):
                    problems.append(f"{path}: scalar stored with shape {zobj.shape}")
                zv = zv.reshape(())
            elif hobj.shape != zobj.shape:
                problems.append(f"{path}: shape {hobj.shape} vs {zobj.shape}")
                return
            if hobj.dtype.names:
                if hobj.dtype.names != zobj.dtype.names:
                    problems.append(f"{path}: fields {hobj.dtype.names} vs {zobj.dtype.names}")
                elif not same(hv, zv):
                    problems.append(f"{path}: records differ:\n{hv}\nvs\n{zv}")
            elif hobj.dtype.kind in "OS" or zobj.dtype.kind == "S":
                if not same(hv if hobj.shape else [hv], zv if zobj.shape else [zv]):
                    problems.append(f"{path}: strings {norm(hv)!r} vs {norm(zv)!r}")
            else:
                if hv.dtype.kind == "b" and zv.dtype == np.int8 and np.isin(zv, [0, 1]).all():
                    # h5py shows an HDF5 enum {FALSE=0, TRUE=1} over int8 as numpy bool; the
                    # store keeps the enum's integers
                    zv = zv.astype(bool)
                if hv.dtype != zv.dtype:
                    problems.append(f"{path}: dtype {hv.dtype.str} vs {zv.dtype.str}")
                if not np.array_equal(hv, zv, equal_nan=hv.dtype.kind == "f"):
                    problems.append(f"{path}: values differ:\n{hv}\nvs\n{zv}")

    attrs("/", h5, zg)
    h5.visititems(visit)
    for p in problems:
        print("DIFF", p)
    print(f"compared {checked[0]} datasets and {checked[1]} attributes: {len(problems)} differences")
    return 1 if problems else 0


sys.exit(main())
