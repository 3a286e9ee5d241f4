"""netCDF4-python writes the stage's dataset to OUT (a plain name: netCDF-C's nc_create,
so HDF5's H5Fcreate, so the connector when HDF5_VOL_CONNECTOR names it).
    write_nc4py.py OUT"""
import sys

import netCDF4
import numpy as np

with netCDF4.Dataset(sys.argv[1], "w", format="NETCDF4") as ds:
    ds.title = "netCDF4-python"
    ds.answer = np.int32(42)  # one value: a 1-element dataspace
    ds.weights = np.array([0.5, 0.25], "f8")
    ds.createDimension("time", None)  # unlimited
    ds.createDimension("x", 4)
    t = ds.createVariable("time", "f8", ("time",))
    t.units = "hours since 2020-01-01"
    v = ds.createVariable("temp", "f4", ("time", "x"), fill_value=np.float32(-999))
    v.units = "K"
    v.factor = np.float32(1.5)
    v.flag_values = np.array([1, 2], "i1")
    s = ds.createVariable("label", str, ("x",))
    s.long_name = "labels"
    t[:] = [0, 6, 12]
    v[:] = np.ma.masked_equal(np.arange(12, dtype="f4").reshape(3, 4), 5)
    s[:] = np.array(["a", "bb", "", "dddd"], dtype=object)
    g = ds.createGroup("sub")
    g.note = "a group"
    w = g.createVariable("w", "i8", ("x",), fill_value=np.int64(-1))
    w[:2] = [1, 2]  # the rest stays the fill value
