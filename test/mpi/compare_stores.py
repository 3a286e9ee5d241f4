"""compare_stores.py A B: zarr-python 3 reads two stores (directories, or s3://bucket/key
with the AWS_* variables and NCZ_S3_ENDPOINT) and every group, array (values, shape, dtype,
chunks, codecs) and attribute must be the same. Prints what differs; exit 1 then."""
import os
import sys

import numpy as np
import zarr


def open_store(loc):
    if loc.startswith("s3://"):
        import s3fs
        fs = s3fs.S3FileSystem(key=os.environ["AWS_ACCESS_KEY_ID"], secret=os.environ["AWS_SECRET_ACCESS_KEY"],
                               client_kwargs={"endpoint_url": os.environ["NCZ_S3_ENDPOINT"],
                                              "region_name": os.environ["AWS_REGION"]})
        return zarr.open_group(fs.get_mapper(loc[5:]), mode="r", zarr_format=2)
    return zarr.open_group(loc, mode="r", zarr_format=2)


def walk(g, path, out):
    out[path or "/"] = ("group", dict(g.attrs))
    for name, a in sorted(g.arrays()):
        out[f"{path}/{name}"] = ("array", dict(a.attrs), a.shape, str(a.dtype), a.chunks,
                                 repr(a.metadata.compressor), repr(a.metadata.filters), a[...])
    for name, sub in sorted(g.groups()):
        walk(sub, f"{path}/{name}", out)


def main():
    a, b = {}, {}
    walk(open_store(sys.argv[1]), "", a)
    walk(open_store(sys.argv[2]), "", b)
    bad = 0
    for k in sorted(set(a) | set(b)):
        if k not in a or k not in b:
            print(f"differs: {k} only in {'the first' if k in a else 'the second'} store")
            bad += 1
            continue
        x, y = a[k], b[k]
        if x[:-1] != y[:-1] if x[0] == "array" else x != y:
            print(f"differs: {k}: {x[:-1] if x[0] == 'array' else x} != {y[:-1] if y[0] == 'array' else y}")
            bad += 1
        elif x[0] == "array" and not np.array_equal(x[-1], y[-1], equal_nan=x[-1].dtype.kind == "f"):
            print(f"differs: {k}: the values")
            bad += 1
    n = sum(1 for v in a.values() if v[0] == "array")
    print(f"zarr-python {zarr.__version__}: {len(a)} nodes, {n} arrays, {bad} differences")
    return 1 if bad else 0


sys.exit(main())
