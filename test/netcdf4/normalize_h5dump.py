"""The dimension-scale facts of an `h5dump -A` listing, one per line, sorted, so that a
netCDF-4 file and an NCZarr store shown through the connector can be compared with diff:
  DATASET <path> dataspace <dims / max dims>
  <DATASET|GROUP> <path> CLASS|NAME|DIMENSION_LABELS "<value>"
  DATASET <path> DIMENSION_LIST <dim index> <dataset path> (one line per attached scale;
                 "-" for a dimension without one)
  DATASET <path> REFERENCE_LIST <dataset path> <dim index>
  <DATASET|GROUP> <path> _Netcdf4Dimid|_Netcdf4Coordinates <values>
                 (_Netcdf4Dimid of dimension scales only)
The dimension-only scale of an unlimited dimension shows "<length>" for its current size
and for the length at the end of its NAME (netCDF-C never extends it).
Left out, because they legitimately differ: object tokens/addresses in references, the
file name, _NCProperties, every other attribute, datatypes and storage details, and
_nc3_strict (NCZarr has no classic model: netCDF-C's NCZarr writes a classic-model file
as a plain netCDF-4 one).
Usage: normalize_h5dump.py < h5dump-output > facts"""
import re
import sys

SCALAR_ATTRS = {"CLASS", "NAME", "DIMENSION_LABELS"}
VALUE_ATTRS = {"_Netcdf4Dimid", "_Netcdf4Coordinates"}
KEPT = SCALAR_ATTRS | VALUE_ATTRS | {"DIMENSION_LIST", "REFERENCE_LIST"}
DIM_ONLY = "This is a netCDF dimension but not a netCDF variable."
QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')
INDEX = re.compile(r"\(\d+(?:,\d+)*\):")
# old-style references print "DATASET <address> "/path"", new-style ones (what H5DS writes
# in a file of a VOL connector) "DATASET "<file name>/path"" with no address
REF = re.compile(r'(?:DATASET|GROUP|DATATYPE)\s+(?:\d+\s+)?("(?:[^"\\]|\\.)*")')


def unquote(q):
    """The object path of a printed reference, without the file name new-style references
    put in front of it."""
    t = q[1:-1]
    m = re.match(r"^[a-z0-9]+://[^#]*#mode=[^/]*(/.*)$", t)
    if m:  # a store named by its URL (https://host/bucket/key#mode=nczarr,s3/path)
        return m.group(1)
    for ext in (".zarr/", ".nc/", ".zip/"):
        if ext in t:
            return "/" + t.split(ext, 1)[1]
    return t


def facts(lines):
    out = []
    stack = []  # frames: [kind, name, collected data lines or None]
    for line in lines:
        s = line.strip()
        bare = QUOTED.sub('""', s)
        net = bare.count("{") - bare.count("}")
        # text inside an ATTRIBUTE's DATA block (at any depth)
        for i in range(len(stack) - 1, -1, -1):
            if stack[i][0] == "DATA" and i > 0 and stack[i - 1][0] == "ATTRIBUTE":
                if not (net < 0 and i == len(stack) - 1):  # not the line closing DATA
                    stack[i][2].append(s)
                break
        if stack and stack[-1][0] == "DATASET" and s.startswith("DATASPACE"):
            out.append(f"DATASET {path(stack)} dataspace {s.split(None, 1)[1] if ' ' in s else ''}")
        if net > 0:
            m = re.match(r'^(GROUP|DATASET|ATTRIBUTE) ("(?:[^"\\]|\\.)*") \{$', s)
            if m:
                stack.append([m.group(1), unquote(m.group(2)), None])
            elif re.match(r"^DATA \{$", s):
                stack.append(["DATA", "", []])
            else:
                stack.append(["OTHER", "", None])
            for _ in range(net - 1):
                stack.append(["OTHER", "", None])
        elif net < 0:
            for _ in range(-net):
                frame = stack.pop()
                if frame[0] == "ATTRIBUTE" and frame[1] in KEPT and len(stack) >= 1:
                    out.extend(attr_facts(stack, frame))
                elif frame[0] == "DATA" and stack and stack[-1][0] == "ATTRIBUTE":
                    stack[-1][2] = frame[2]
    # netCDF-C also writes _Netcdf4Dimid (its first dimension's id) on variables of several
    # dimensions that are not scales; its HDF5 layer reads it only on dimension scales
    scales = {f.split(" CLASS ")[0] for f in out if " CLASS " in f}
    out = [f for f in out if " _Netcdf4Dimid " not in f or f.split(" _Netcdf4Dimid ")[0] in scales]
    # netCDF-C creates the dimension-only scale of an unlimited dimension 0 long and never
    # extends it (its reader takes the length from the datasets using the dimension): their
    # current size, and the length in their NAME, are not compared
    dimonly = {f.split(" NAME ")[0] for f in out if f.split(" NAME ", 1)[-1].startswith('"' + DIM_ONLY)}
    unlim = {f.split(" dataspace ")[0] for f in out if " dataspace " in f and "/ ( H5S_UNLIMITED )" in f}
    for i, f in enumerate(out):
        who = f.split(" NAME ")[0].split(" dataspace ")[0]
        if who in dimonly and who in unlim:
            if " NAME " in f:
                out[i] = re.sub(r"\s*\d+\"$", ' <length>"', f)
            elif " dataspace " in f:
                out[i] = re.sub(r"\( \d+ \) /", "( <length> ) /", f)
    return sorted(set(out))


def path(stack):
    names = [f[1] for f in stack if f[0] in ("GROUP", "DATASET") and f[1] != "/"]
    return "/" + "/".join(names)


def attr_facts(stack, frame):
    owner = stack[-1][0]
    if owner not in ("GROUP", "DATASET"):
        return []
    where = f"{owner} {path(stack)}"
    name, data = frame[1], " ".join(frame[2] or [])
    if name in SCALAR_ATTRS:
        return [f"{where} {name} " + " ".join(QUOTED.findall(data))]
    if name in VALUE_ATTRS:
        return [f"{where} {name} " + " ".join(INDEX.sub(" ", data).split())]
    if name == "DIMENSION_LIST":
        res = []
        for dim, group in enumerate(re.findall(r"\(([^()]*)\)", INDEX.sub(" ", data))):
            refs = sorted(unquote(q) for q in REF.findall(group))
            res.extend(f"{where} DIMENSION_LIST {dim} {r}" for r in refs or ["-"])
        return res
    if name == "REFERENCE_LIST":
        return [f"{where} REFERENCE_LIST {unquote(q)} {d}"
                for q, d in re.findall(r'(?:DATASET|GROUP|DATATYPE)\s+(?:\d+\s+)?("(?:[^"\\]|\\.)*")\s*,\s*(\d+)', data)]
    return []


def without_coord_dimids(fs):
    """netCDF-C writes _Netcdf4Dimid on a coordinate variable only when it defined the
    coordinates out of order (an internal choice, not dimension-scale structure): kept only
    for dimension-only scales, where it is always written."""
    dimonly = {f.split(" NAME ")[0] for f in fs if " NAME \"This is a netCDF dimension" in f}
    fs = [f for f in fs if " _Netcdf4Dimid " not in f or f.split(" _Netcdf4Dimid ")[0] in dimonly]
    # An array on an unlimited dimension: NCZarr (netCDF-C's and ours) stores it with the
    # dimension's length, netCDF-4 with what was written; only the maximum is compared.
    return [re.sub(r"SIMPLE \{ \([^)]*\) /", "SIMPLE { (*) /", f) if " dataspace " in f and "H5S_UNLIMITED" in f
            else f for f in fs]


if __name__ == "__main__":
    sys.stdout.write("".join(f + "\n" for f in without_coord_dimids(facts(sys.stdin.read().splitlines()))))
