"""xarray writes the stage's dataset to OUT with engine="netcdf4", one variable compressed
(zlib), time unlimited.
    write_xarray.py OUT"""
import sys

import numpy as np
import pandas as pd
import xarray as xr

time = pd.date_range("2021-01-01", periods=3, freq="D")
temp = np.arange(24, dtype="f4").reshape(3, 2, 4) + 270
temp[1, 1, 1] = np.nan  # written as the fill value
ds = xr.Dataset(
    {
        "temp": (("time", "lat", "lon"), temp, {"units": "K", "long_name": "temperature"}),
        "precip": (("time", "lat", "lon"), np.linspace(0, 1, 24).reshape(3, 2, 4), {"units": "mm"}),
        "station": (("lat",), np.array(["north", "south"])),
    },
    coords={"time": time, "lat": [10.0, 20.0], "lon": [0.0, 1.0, 2.0, 3.0]},
    attrs={"title": "xarray", "version": np.int32(2)},
)
ds.to_netcdf(
    sys.argv[1],
    engine="netcdf4",
    unlimited_dims=["time"],
    encoding={"temp": {"_FillValue": np.float32(-999)}, "precip": {"zlib": True, "complevel": 4}},
)
