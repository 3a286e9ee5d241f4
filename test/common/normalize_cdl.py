"""Normalises ncdump output for comparing a store with a native file: only what must differ
between the two is rewritten, everything else (named dimensions with their sizes and
UNLIMITED, groups, types, variables, attributes, data) stays as ncdump printed it.

What must differ:
- the title line ("netcdf NAME {": the file's name) becomes "netcdf X {";
- the provenance attribute :_NCProperties (netCDF-C's library versions) is dropped;
- anonymous dimensions: netCDF-C names the dimensions of an HDF5 dataset without
  dimension scales phony_dim_N, in the dataset's own group, numbered in the order it met
  them; its NCZarr reader names those of an array without dimension names
  _Anonymous_Dim_SIZE (_Anonymous_UDim_N when unlimited), all in the root group. Each use
  of one in a variable's dimension list becomes _anon_SIZE (_anon_unlimited_LENGTH for an
  unlimited one, LENGTH its current length), and their lines in the dimensions blocks are
  dropped (a block left empty goes with them): their sizes are still compared, in every
  variable that uses them;
- with --nil-as-empty, NIL (netCDF-C's NCZarr reader shows an all-zero fixed-width string,
  which is how NCZarr stores "", as NULL) is shown as _, the empty string of an HDF5 file.

Usage: normalize_cdl.py [--nil-as-empty] < in.cdl > out.cdl"""
import re
import sys

ANON = re.compile(r"^(phony_dim_\d+|_Anonymous_U?Dim_\d+)$")
DIM_LINE = re.compile(r"^\s*(\S+) = (\d+|UNLIMITED) ;(?: // \((\d+) currently\))?\s*$")
# a variable declaration: TYPE NAME(DIMS) ; (attribute lines hold " = ")
VAR_DECL = re.compile(r"^(\s*\S.*? )([^ (]+)\(([^)]*)\) ;$")
GROUP_OPEN = re.compile(r"^\s*group: .* \{$")
GROUP_CLOSE = re.compile(r"^\s*\} // group ")
SECTION = re.compile(r"^\s*(types|dimensions|variables|data):$")


def normalize(lines, nil_as_empty=False):
    out = []
    scopes = [{}]  # dimension name -> canonical name, per group from the root down
    section = None
    dims_at = None  # index in out of the current "dimensions:" line
    for line in lines:
        s = line.rstrip("\n")
        if section == "dimensions":
            m = DIM_LINE.match(s)
            if m:
                name, size, current = m.groups()
                if ANON.match(name):
                    scopes[-1][name] = "_anon_unlimited_%s" % current if size == "UNLIMITED" else "_anon_%s" % size
                else:
                    scopes[-1][name] = name
                    out.append(s)
                continue
            if dims_at == len(out) - 1:  # every dimension of the block was anonymous
                out.pop()
            section = None
        if not out and s.startswith("netcdf ") and s.endswith("{"):
            out.append("netcdf X {")
            continue
        if re.match(r"^\s*:_NCProperties = ", s):
            continue
        m = SECTION.match(s)
        if m:
            section = m.group(1)
            if section == "dimensions":
                dims_at = len(out)
        elif GROUP_OPEN.match(s):
            scopes.append({})
            section = None
        elif GROUP_CLOSE.match(s) or s == "}":
            if len(scopes) > 1:
                scopes.pop()
            section = None
        elif section == "variables":
            m = VAR_DECL.match(s)
            if m and " = " not in s:
                names = [d.strip() for d in m.group(3).split(",")]
                s = "%s%s(%s) ;" % (m.group(1), m.group(2), ", ".join(canonical(d, scopes) for d in names))
        if nil_as_empty:
            s = re.sub(r"\bNIL\b", "_", s)
        out.append(s)
    return out


def canonical(name, scopes):
    for scope in reversed(scopes):
        if name in scope:
            return scope[name]
    m = re.match(r"^_Anonymous_Dim_(\d+)$", name)
    if m:  # declared in an ancestor ncdump does not show: the name holds the size
        return "_anon_" + m.group(1)
    return name


def main():
    nil = "--nil-as-empty" in sys.argv[1:]
    sys.stdout.write("\n".join(normalize(sys.stdin, nil)) + "\n")


if __name__ == "__main__":
    main()
