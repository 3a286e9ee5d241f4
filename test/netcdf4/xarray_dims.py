"""xarray opens every group of an NCZarr store with the netCDF dimension names.
Usage: xarray_dims.py NATIVE_H_CDL STORE [--save-values FILE | --same-values FILE]
                     [--storage-options JSON]
(NATIVE_H_CDL: `ncdump -h` of the netCDF-4 file). STORE is a directory of Zarr v2 (groups
found by their .zgroup) or v3 (zarr.json of node_type group: opened with zarr_format=3,
dimension names from "dimension_names"); a v3 store may also be a .zip (zarr-python's
ZipStore layout) or s3://bucket/key (with --storage-options, for s3fs): their groups are
found by zarr-python 3. --save-values FILE keeps every variable's values (a pickle);
--same-values FILE: every variable's values in STORE are those kept from another store of
the same program, judged by other means, perhaps read by another xarray (text is compared
as text, whether it reads as str or bytes).
For every group of the native file (and no other: the store's groups, found by their
.zgroup, must be the same), xr.open_zarr(STORE, group=..., consolidated=False) must open,
and each variable's dims must be the netCDF dimension names ncdump shows for it. Arrays
are raw (decode_cf=False: xarray's CF decoding folds a char array's last dimension into
its strings); a scalar is stored with shape [1] and is ("_scalar_",), as netCDF-C writes
it. A variable of several dimensions named like one of them (x(x, y)) is left out: xarray
refuses it by design. A second open with xarray's default decoding must succeed too. Exit 1 on any
difference, with one line per difference."""
import os
import re
import sys
import warnings

import json
import pickle

import numpy as np
import xarray as xr

warnings.simplefilter("ignore")


def parse_cdl(text):
    """{"group/path": {var: (dim, ...)}} ("" for the root group) from ncdump -h."""
    groups, path, section = {"": {}}, [], None
    for line in text.splitlines():
        s = line.strip()
        m = re.match(r"^group: (.+) \{$", s)
        if m:
            path.append(m.group(1))
            groups["/".join(path)] = {}
            section = None
            continue
        if re.match(r"^\} // group ", s):
            path.pop()
            section = None
            continue
        if s in ("dimensions:", "variables:", "data:", "types:"):
            section = s[:-1]
            continue
        if section != "variables" or s.startswith("//") or ":" in s.split("(")[0]:
            continue
        m = re.match(r"^(?:\S+) (\S+?)(?:\((.*)\))? ;$", s)
        if m:
            dims = tuple(d.strip() for d in m.group(2).split(",")) if m.group(2) else ()
            groups["/".join(path)][m.group(1)] = dims
    return groups


def store_groups(store):
    out = set()
    for root, dirs, files in os.walk(store):
        group = ".zgroup" in files
        if "zarr.json" in files:
            with open(os.path.join(root, "zarr.json"), encoding="utf-8") as f:
                group = json.load(f).get("node_type") == "group"
        if group:
            rel = os.path.relpath(root, store)
            out.add("" if rel == "." else rel.replace(os.sep, "/"))
    return out


def zarr_format(store):
    if not os.path.isdir(store):
        return 3  # a .zip or s3:// store: v3 only
    return 3 if os.path.exists(os.path.join(store, "zarr.json")) else 2


def zarr3_groups(store, so):
    """Every group's path in a v3 store that is not a directory, as zarr-python 3 lists them."""
    import zarr
    root = zarr.open_group(store, mode="r", zarr_format=3, **({"storage_options": so} if so else {}))
    out = set()

    def walk(g, prefix):
        out.add(prefix.rstrip("/"))
        for name in sorted(g.group_keys()):
            walk(g[name], prefix + name + "/")
    walk(root, "")
    return out


def as_text(v):
    if v.dtype.kind in "OSUT":
        return np.array([x.decode("utf-8") if isinstance(x, bytes) else str(x) for x in v.reshape(-1)],
                        dtype=object).reshape(v.shape)
    return v


def same_values(label, a, b, var, bad):
    a, b = as_text(a), as_text(b)
    if a.shape != b.shape:
        bad.append(f"{label}: {var}: shape {a.shape}, the other store's {b.shape}")
    elif a.dtype.kind == "O" or b.dtype.kind == "O":
        if not all(x == y for x, y in zip(a.reshape(-1), b.reshape(-1))):
            bad.append(f"{label}: {var}: text {a.reshape(-1)[:6]} differs from the other store's {b.reshape(-1)[:6]}")
    elif a.dtype != b.dtype or not np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"):
        bad.append(f"{label}: {var}: values ({a.dtype}) differ from the other store's ({b.dtype})")


def main():
    args = sys.argv[1:]
    so = None
    if "--storage-options" in args:
        i = args.index("--storage-options")
        so = json.loads(args[i + 1])
        del args[i:i + 2]
    native_h, store = args[0], args[1]
    mode, vfile = (args[2], args[3]) if len(args) > 3 else (None, None)
    kept = {}
    if mode == "--same-values":
        with open(vfile, "rb") as f:
            kept = pickle.load(f)
    fmt = zarr_format(store)
    v3 = {"zarr_format": 3} if fmt == 3 else {}  # (Debian's xarray has no zarr_format)
    if so:
        v3["storage_options"] = so
    label_store = store
    if store.endswith(".zip"):
        import zarr
        store = zarr.storage.ZipStore(store, mode="r")
    with open(native_h, encoding="utf-8") as f:
        want = parse_cdl(f.read())
    bad = []
    got_groups = store_groups(store) if isinstance(store, str) and os.path.isdir(store) else zarr3_groups(store, so)
    if set(want) != got_groups:
        bad.append(f"groups: native {sorted(want)}, store {sorted(got_groups)}")
    for group, variables in sorted(want.items()):
        label = "/" + group
        # xarray refuses a variable of several dimensions named like one of them
        # (MissingDimensionsError): it is left out, the rest of the group is checked
        drop = sorted(v for v, dims in variables.items() if len(dims) > 1 and v in dims)
        for v in drop:
            print(f"{label}: {v}{variables[v]} left out: xarray cannot open a variable named like one of its dimensions")
            del variables[v]
        try:
            ds = xr.open_zarr(store, group=group or None, consolidated=False, decode_cf=False, drop_variables=drop,
                              **v3)
        except Exception as e:  # noqa: BLE001 - any failure to open is the finding
            bad.append(f"{label}: xr.open_zarr fails: {type(e).__name__}: {e}")
            continue
        for var, dims in sorted(variables.items()):
            expect = dims if dims else ("_scalar_",)
            if var not in ds.variables:
                bad.append(f"{label}: variable {var} missing (xarray has {sorted(ds.variables)})")
            elif tuple(ds.variables[var].dims) != expect:
                bad.append(f"{label}: {var}: dims {tuple(ds.variables[var].dims)}, netCDF {expect}")
            elif mode:
                key = f"{label}/{var}"
                if mode == "--save-values":
                    kept[key] = as_text(ds.variables[var].values)
                elif key not in kept:
                    bad.append(f"{label}: {var}: no values kept from the other store")
                else:
                    same_values(label, ds.variables[var].values, kept[key], var, bad)
        extra = set(ds.variables) - set(variables)
        if extra:
            bad.append(f"{label}: variables not in the netCDF file: {sorted(extra)}")
        ds.close()
        try:
            xr.open_zarr(store, group=group or None, consolidated=False, drop_variables=drop, **v3).close()
        except Exception as e:  # noqa: BLE001
            bad.append(f"{label}: xr.open_zarr with CF decoding fails: {type(e).__name__}: {e}")
    if mode == "--save-values":
        with open(vfile, "wb") as f:
            pickle.dump(kept, f, protocol=4)
    for b in bad:
        print("FAIL: xarray: " + b)
    print(f"xarray: {label_store} (Zarr v{fmt}): {len(want)} group(s), {sum(map(len, want.values()))} variable(s)"
          + (", values equal to the other store's" if mode == "--same-values" else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
