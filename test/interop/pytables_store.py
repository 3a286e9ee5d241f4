"""PyTables (and pandas on it) through the connector: writes the same file natively and as
a zip store (PyTables takes regular files only: a directory store is refused before HDF5 is
asked, "is not a regular file"), then lists and reads both back with PyTables and compares.

    pytables_store.py write PATH | dump PATH | pandas PATH
"""
import json
import sys

import numpy as np
import tables


class Rec(tables.IsDescription):
    name = tables.StringCol(8, pos=0)
    n = tables.Int32Col(pos=1)
    x = tables.Float64Col(pos=2)
    flag = tables.BoolCol(pos=3)


def write(path):
    with tables.open_file(path, "w", title="pytables through the connector") as f:
        g = f.create_group("/", "g", "a group")
        t = f.create_table(g, "table", Rec, "a table")
        row = t.row
        for i in range(10):
            row["name"] = ("r%d" % i).encode()
            row["n"] = i * 3
            row["x"] = i / 4
            row["flag"] = i % 2 == 0
            row.append()
        t.flush()
        t.attrs.units = "m"
        t.attrs.scale = 2.5
        f.create_array("/", "arr", np.arange(12, dtype="i4").reshape(3, 4), "an array")
        ca = f.create_carray(g, "carr", tables.Float32Atom(), (20, 5),
                             filters=tables.Filters(complevel=5, complib="zlib", shuffle=True))
        ca[:] = np.arange(100, dtype="f4").reshape(20, 5)
        ea = f.create_earray("/", "earr", tables.Int16Atom(), (0, 3))
        ea.append(np.arange(9, dtype="i2").reshape(3, 3))
        ea.append(np.arange(6, dtype="i2").reshape(2, 3))
        f.create_group(g, "sub").__setattr__("_v_title", "inner")
        f.root._v_attrs.author = "test"


def dump(path):
    out = {}
    with tables.open_file(path, "r") as f:
        for node in f.walk_nodes("/"):
            d = {"class": node._v_classid if hasattr(node, "_v_classid") else type(node).__name__,
                 "attrs": {k: repr(node._v_attrs[k]) for k in node._v_attrs._f_list("user")}}
            if isinstance(node, tables.Leaf):
                d["shape"] = [int(x) for x in node.shape]
                d["data"] = repr(node.read().tolist())
            out[node._v_pathname] = d
    json.dump(out, sys.stdout, sort_keys=True, indent=1)


def pandas_roundtrip(path):
    import pandas as pd
    df = pd.DataFrame({"a": np.arange(6), "b": np.linspace(0, 1, 6), "c": list("uvwxyz")})
    df.to_hdf(path, key="fixed", mode="w", format="fixed")
    df.to_hdf(path, key="table", mode="a", format="table", data_columns=True)
    for key in ("fixed", "table"):
        back = pd.read_hdf(path, key)
        assert back.equals(df), (key, back)
    print("pandas: to_hdf/read_hdf round trip (fixed and table)")


if __name__ == "__main__":
    {"write": write, "dump": dump, "pandas": pandas_roundtrip}[sys.argv[1]](sys.argv[2])
