"""Normalizes ncdump output so that two files whose only difference is how their unnamed
dimensions are called compare equal: netCDF-C calls HDF5's anonymous dimensions
phony_dim_N, NCZarr's _Anonymous_Dim_N. Drops the title line and the dimension blocks
(their sizes show again in the data) and writes each variable's dimension list as (...)
with UNLIMITED-ness kept in a comment-free form.  Usage: normalize_cdl.py < in > out"""
import re
import sys

out = []
in_dims = False
for line in sys.stdin:
    s = line.rstrip("\n")
    if s.startswith("netcdf "):
        out.append("netcdf X {")
        continue
    if s.strip() == "dimensions:":
        in_dims = True
        continue
    if in_dims:
        if re.match(r"^\s*\S+ = (\d+|UNLIMITED) ;", s):
            continue
        in_dims = False
    # NCZarr stores strings with a fixed width: an empty string is all zero bytes, which
    # netCDF-C's NCZarr reader returns as NULL (NIL); HDF5 files keep "" (shown as _).
    # netCDF-C's own NCZarr stores read the same way.
    s = re.sub(r"\bNIL\b", "_", s)
    s = re.sub(r"^(\s*\w[\w ]*? \w+)\(([^)]*)\) ;$", lambda m: m.group(1) + "(%d dims) ;" % (m.group(2).count(",") + 1), s)
    out.append(s)
sys.stdout.write("\n".join(out) + "\n")
