"""xarray (zarr-python 3's) opens every group of a Zarr v3 store the connector wrote, and
each variable has the dimension names of its "dimension_names" and zarr-python's values.

    v3_xarray.py STORE      STORE: a directory, a .zip (zarr-python's ZipStore layout) or
                            s3://bucket/key with --storage-options JSON

A variable of several dimensions named like one of them is left out (xarray refuses it by
design); so are arrays zarr-python itself cannot read (named by --unreadable PATH, as in
compare_h5_zarr.py). Exit 1 with one line per difference."""
import argparse
import json
import sys
import warnings

import numpy as np
import xarray as xr
import zarr

warnings.simplefilter("ignore")


def same(a, b):
    if a.dtype.kind in "OSUT" or b.dtype.kind in "OSUT":
        return [str(x) for x in a.reshape(-1)] == [str(x) for x in b.reshape(-1)]
    return a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")


def groups(g, prefix=""):
    yield prefix, g
    for name in sorted(g.group_keys()):
        yield from groups(g[name], prefix + name + "/")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("store")
    p.add_argument("--storage-options")
    p.add_argument("--unreadable", action="append", default=[])
    a = p.parse_args()
    so = json.loads(a.storage_options) if a.storage_options else None
    store = zarr.storage.ZipStore(a.store, mode="r") if a.store.endswith(".zip") else a.store
    root = zarr.open_group(store, mode="r", zarr_format=3, storage_options=so) if so else \
        zarr.open_group(store, mode="r", zarr_format=3)
    skip = {u.split("=", 1)[0].strip("/") for u in a.unreadable}
    bad, nvars = [], 0
    for path, g in groups(root):
        arrays = {n: g[n] for n in g.array_keys() if (path + n) not in skip}
        drop = [n for n, arr in arrays.items() if len(arr.metadata.dimension_names or ()) > 1
                and n in arr.metadata.dimension_names]
        drop += [n for n in g.array_keys() if (path + n) in skip]
        kw = {"storage_options": so} if so else {}
        try:
            ds = xr.open_zarr(store, group=path.rstrip("/") or None, zarr_format=3, consolidated=False,
                              decode_cf=False, drop_variables=drop, **kw)
        except Exception as e:  # noqa: BLE001 - any failure to open is the finding
            bad.append(f"/{path}: xr.open_zarr fails: {type(e).__name__}: {e}")
            continue
        for n, arr in arrays.items():
            if n in drop:
                continue
            nvars += 1
            names = tuple(arr.metadata.dimension_names or ())
            if n not in ds.variables:
                bad.append(f"/{path}{n}: not in xarray's dataset")
            elif tuple(ds.variables[n].dims) != names:
                bad.append(f"/{path}{n}: xarray's dims {tuple(ds.variables[n].dims)}, dimension_names {names}")
            elif not same(np.asarray(ds.variables[n].values), np.asarray(arr[...])):
                bad.append(f"/{path}{n}: xarray's values differ from zarr-python's")
        ds.close()
    for b in bad:
        print("FAIL: xarray: " + b)
    print(f"xarray: {a.store}: {nvars} variables with their dimension names and values")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
