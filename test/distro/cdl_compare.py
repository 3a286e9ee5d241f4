"""Compares the data sections of two ncdump outputs, variable by variable: ncdump of a
native file and ncdump of a store by URL (netCDF-C's own NCZarr reader), both normalised
by test/common/normalize_cdl.py (--nil-as-empty: netCDF-C's NCZarr shows "" as NIL).

The distribution's netCDF-C (Debian trixie's 4.9.3) is built without NCZarr filter support
("Plugins Enabled: no"): its NCZarr reader ignores an array's "compressor" and "filters"
and returns the stored (compressed) chunk bytes as the values, with exit status 0. So:
  - a variable stored without codecs must show the native file's values;
  - a variable stored with codecs, with at least one chunk written, must show OTHER values
    (printed as a LIMIT line): when it shows the right ones, the limit is gone and the
    README's text about it must change, so that is a failure too.
Which arrays have codecs is read from the store itself (each .zarray).

    cdl_compare.py NATIVE.cdl STORE.cdl STORE_DIR
Prints one line per variable that is not simply equal, then a summary; exits 1 on a failure."""
import json
import os
import re
import sys

sys.path.insert(0, "/src/test/common")
from normalize_cdl import normalize  # noqa: E402


def data_values(lines):
    """{"/group/var": "values text, whitespace collapsed"} of a normalised CDL."""
    out = {}
    groups = []
    in_data = False
    cur = None
    for line in lines:
        s = line.strip()
        m = re.match(r"^group: (\S+) \{$", s)
        if m:
            groups.append(m.group(1))
            in_data = False
            continue
        if re.match(r"^\} // group ", s):
            groups.pop()
            in_data = False
            continue
        if s == "data:":
            in_data = True
            continue
        if re.match(r"^(types|dimensions|variables):$", s):
            in_data = False
            continue
        if not in_data:
            continue
        if cur is None:
            m = re.match(r"^(\S+) =\s*(.*)$", s)
            if not m:
                continue
            cur = ["/" + "/".join(groups + [m.group(1)]), m.group(2)]
        else:
            cur[1] += " " + s
        if cur[1].endswith(";"):
            out[cur[0]] = re.sub(r"\s+", " ", cur[1][:-1]).strip()
            cur = None
    return out


def codecs(store):
    """{"/group/var": (codec ids, has a chunk)} for every array of the store."""
    out = {}
    for d, _dirs, files in os.walk(store):
        if ".zarray" not in files:
            continue
        with open(os.path.join(d, ".zarray")) as f:
            za = json.load(f)
        ids = []
        if za.get("compressor"):
            ids.append(za["compressor"].get("id", "?"))
        ids += [c.get("id", "?") for c in (za.get("filters") or [])]
        chunks = any(not n.startswith(".") for n in files) or any(
            not n.startswith(".") for n in os.listdir(d) if os.path.isdir(os.path.join(d, n)))
        rel = "/" + os.path.relpath(d, store).replace(os.sep, "/")
        out[rel] = (ids, chunks)
    return out


def short(text, n=70):
    return text if len(text) <= n else text[:n] + "..."


def main():
    nat_cdl, st_cdl, store = sys.argv[1:4]
    # errors=surrogateescape: compressed bytes read as text are not UTF-8
    with open(nat_cdl, encoding="utf-8", errors="surrogateescape") as f:
        nat = data_values(normalize(f, True))
    with open(st_cdl, encoding="utf-8", errors="surrogateescape") as f:
        st = data_values(normalize(f, True))
    arrays = codecs(store)
    failures, limits, equal = [], [], 0
    for v in sorted(set(nat) | set(st)):
        if v not in st or v not in nat:
            failures.append("FAIL: %s: only in the %s's ncdump" % (v, "native file" if v in nat else "store"))
            continue
        ids, chunks = arrays.get(v, ([], False))
        if ids and chunks:
            if nat[v] == st[v]:
                failures.append("FAIL: %s is stored with codecs %s but this ncdump now reads its values right: "
                                "the limit is gone (update README and this check)" % (v, "+".join(ids)))
            else:
                limits.append("LIMIT: %s (codecs %s): ncdump shows [%s] where the native file holds [%s]"
                              % (v, "+".join(ids), short(st[v]), short(nat[v])))
        elif nat[v] != st[v]:
            failures.append("FAIL: %s: ncdump of the store shows [%s], the native file [%s]" % (v, short(st[v]), short(nat[v])))
        else:
            equal += 1
    for line in failures + limits:
        print(line.encode("utf-8", "backslashreplace").decode())
    n = len(set(nat) | set(st))
    if limits:  # the summary: one line
        names = [line.split()[1] for line in limits]
        print("%d of %d variables equal; LIMIT: the %d compressed (%s) read as garbage"
              % (equal, n, len(limits), ", ".join(names)))
    else:
        print("%d of %d variables equal" % (equal, n))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
