"""h5py writes attributes of every shape netCDF and HDF5 programs use: scalar and
1-element, fixed-length and variable-length strings, on the root, a group and a dataset;
datasets with a fill value, an unlimited (resizable) dimension, and gzip.
    write_h5py.py OUT"""
import sys

import h5py
import numpy as np


def attrs(obj):
    a = obj.attrs
    a.create("int_scalar", np.int32(7))  # dataspace SCALAR
    a.create("int_one", np.array([7], "i4"))  # dataspace SIMPLE { (1) }
    a.create("float_scalar", np.float64(2.5))
    a.create("float_one", np.array([2.5], "f8"))
    a.create("fixed_scalar", np.bytes_("fixed"), dtype=h5py.string_dtype("ascii", 5))
    a.create("fixed_one", np.array([b"fixed"], "S5"))
    a.create("vlen_scalar", "variable", dtype=h5py.string_dtype())
    a.create("vlen_one", np.array(["variable"], dtype=object), dtype=h5py.string_dtype())
    a.create("vlen_many", np.array(["a", "", "ccc"], dtype=object), dtype=h5py.string_dtype())


with h5py.File(sys.argv[1], "w") as f:
    attrs(f)
    d = f.create_dataset("grid", shape=(3, 4), maxshape=(None, 4), chunks=(1, 4), dtype="f4", fillvalue=-1.0)
    d[0:2] = np.arange(8, dtype="f4").reshape(2, 4)  # row 2 stays the fill value
    attrs(d)
    g = f.create_group("g")
    attrs(g)
    g.create_dataset("packed", data=np.arange(100, dtype="i2"), chunks=(50,), compression="gzip", compression_opts=6)
    g.create_dataset("names", data=np.array(["x", "yy", ""], dtype=object), dtype=h5py.string_dtype())
