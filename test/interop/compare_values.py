"""Compares what h5dump prints through the nczarr connector with what the real readers
print for the same store: zarr-python 2.13 (values, attributes) and, for stores written
by netCDF-C, ncdump (values, attributes).

usage: compare_values.py STORE [NCDUMP_URL] [--h5dump-name NAME]

With --h5dump-name, h5dump opens the store as NAME (an S3 URL) while zarr-python reads STORE
(a copy of the objects under NAME).

Environment: H5DUMP (path), NCDUMP (path, when NCDUMP_URL is given), H5DUMP_ENV_PRELOAD
(LD_PRELOAD for h5dump, which loads the connector), NCDUMP_PLUGIN_PATH (HDF5 filter plugins
for ncdump). h5dump runs with HDF5_VOL_CONNECTOR/HDF5_PLUGIN_PATH as inherited; ncdump
runs without the connector (it reads NCZarr itself).

Compressed arrays (any compressor or filter) cannot be read by the connector yet: for
those, reading must fail with a message naming one of the array's codecs, and the rest of
the store must still dump. Exit status 0 when everything matches, 1 otherwise.
"""
import collections.abc
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import zipfile

import numpy as np
import zarr

failures = []
checked = {"values": 0, "ncdump_values": 0, "attrs": 0, "ncdump_attrs": 0, "codec_errors": 0}


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


# ---------------------------------------------------------------- running the tools
# The name h5dump opens the store by, when it is not the local path zarr-python reads
# (--h5dump-name: a store on S3, of which STORE is a copy s3fs made).
H5DUMP_NAME = {}


def h5dump(args):
    args = args[:-1] + [H5DUMP_NAME.get(args[-1], args[-1])]
    env = dict(os.environ)
    pre = os.environ.get("H5DUMP_ENV_PRELOAD", "")
    if pre:
        env["LD_PRELOAD"] = pre
    else:
        env.pop("LD_PRELOAD", None)
    p = subprocess.run([os.environ["H5DUMP"]] + args, env=env, capture_output=True, timeout=120)
    if p.returncode < 0 or p.returncode > 1:
        fail("h5dump %s: crashed or aborted (status %d): %s" % (" ".join(args), p.returncode,
                                                                 p.stderr.decode(errors="replace")[-2000:]))
    for bad in (b"AddressSanitizer", b"runtime error:", b"LeakSanitizer"):
        if bad in p.stderr:
            fail("h5dump %s: sanitizer report: %s" % (" ".join(args), p.stderr.decode(errors="replace")[-3000:]))
            break
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def ncdump(url):
    env = dict(os.environ)
    for k in ("HDF5_VOL_CONNECTOR", "LD_PRELOAD"):
        env.pop(k, None)
    env["HDF5_PLUGIN_PATH"] = os.environ.get("NCDUMP_PLUGIN_PATH", "")
    p = subprocess.run([os.environ["NCDUMP"], "-p", "9,17", url], env=env, capture_output=True, timeout=120)
    if p.returncode != 0:
        fail("ncdump %s failed: %s" % (url, p.stderr.decode(errors="replace")))
        return ""
    return p.stdout.decode(errors="replace")


# ---------------------------------------------------------------- opening with zarr-python
class IntCodecParams(collections.abc.MutableMapping):
    """A read-only view of a store in which codec parameters that are strings of digits
    (netCDF-C 4.9.3 writes {"id": "shuffle", "elementsize": "4"}) read as integers, as
    netCDF-C 4.10 writes them: numcodecs rejects the strings, and zarr-python is the
    reference these values are compared with."""

    def __init__(self, inner):
        self.inner = inner

    def __getitem__(self, key):
        v = self.inner[key]
        if key == ".zarray" or key.endswith("/.zarray"):
            meta = json.loads(v)
            for c in [meta.get("compressor")] + list(meta.get("filters") or []):
                for k, x in list((c or {}).items()):
                    if k != "id" and isinstance(x, str) and x.lstrip("-").isdigit():
                        c[k] = int(x)
                # netCDF-C 4.9.3 records shuffle's element size as 0 and shuffles by the
                # type's size (numcodecs would not shuffle at all): read it as netCDF-C does
                if (c or {}).get("id") == "shuffle" and c.get("elementsize") in (0, None):
                    c["elementsize"] = np.dtype(meta["dtype"]).itemsize
            v = json.dumps(meta).encode()
        return v

    def __iter__(self):
        return iter(self.inner)

    def __len__(self):
        return len(self.inner)

    def __contains__(self, key):
        return key in self.inner

    def __setitem__(self, key, value):
        raise PermissionError("read-only")

    def __delitem__(self, key):
        raise PermissionError("read-only")


def open_zarr(path):
    """Returns (root, prefix_for_messages, root_is_array_name)."""
    if zipfile.is_zipfile(path):
        names = zipfile.ZipFile(path).namelist()
        sub = ""
        if ".zgroup" not in names and ".zarray" not in names:
            tops = sorted({n.split("/")[0] for n in names if n.endswith("/.zgroup") and n.count("/") == 1})
            if len(tops) != 1:
                raise SystemExit("cannot find the root of zip store %s" % path)
            sub = tops[0]
        store = zarr.ZipStore(path, mode="r")
        return zarr.open(zarr.storage.KVStore(IntCodecParams(store)), mode="r", path=sub or None)
    return zarr.open(zarr.storage.KVStore(IntCodecParams(zarr.DirectoryStore(path))), mode="r")


class Unreadable:
    """An array zarr-python itself cannot open (numcodecs lacks its codec, e.g.
    fletcher32): its codecs and attributes come from the raw JSON."""

    def __init__(self, group, name):
        store, base = group.store, (group.path + "/" if group.path else "") + name
        meta = json.loads(store[base + "/.zarray"])
        self.compressor_id = (meta.get("compressor") or {}).get("id")
        self.filter_ids = [f["id"] for f in meta.get("filters") or []]
        self.attrs = json.loads(store[base + "/.zattrs"]) if (base + "/.zattrs") in store else {}
        self.dtype = np.dtype(meta["dtype"])


def walk(node, h5path, out):
    """(h5 path, zarr node) for every group and array."""
    out.append((h5path, node))
    if isinstance(node, zarr.hierarchy.Group):
        for name in node.array_keys():
            try:
                child = node[name]
            except ValueError:
                child = Unreadable(node, name)
            out.append((h5path.rstrip("/") + "/" + name, child))
        for name, child in node.groups():
            walk(child, h5path.rstrip("/") + "/" + name, out)
    return out


def is_array(node):
    return isinstance(node, (zarr.core.Array, Unreadable))


def attrs_of(node):
    return node.attrs if isinstance(node, Unreadable) else node.attrs.asdict()


# Codecs the connector decodes (its own, or through netCDF-C's filter plugins). Not szip:
# its HDF5 parameters depend on the chunk shape and type, which the chain is not given yet;
# reading it must fail naming the codec.
SUPPORTED_CODECS = {"zlib", "gzip", "shuffle", "fletcher32", "bz2", "zstd", "blosc", "lz4"}


def unsupported_codecs(a):
    """The array's codecs the connector cannot decode ([] when it reads the values)."""
    return [c for c in codecs_of(a) if c not in SUPPORTED_CODECS]


def codecs_of(a):
    if isinstance(a, Unreadable):
        return [c for c in [a.compressor_id] + a.filter_ids if c]
    ids = []
    if a.compressor is not None:
        ids.append(a.compressor.codec_id)
    for f in a.filters or []:
        ids.append(f.codec_id)
    return ids


# ---------------------------------------------------------------- h5dump text parsing
STR_RE = re.compile(r'"((?:[^"\\]|\\.)*)"')


def unescape(s):
    out = bytearray()
    i = 0
    b = s.encode("utf-8")
    while i < len(b):
        c = b[i]
        if c == 0x5C and i + 1 < len(b):
            n = b[i + 1]
            if 0x30 <= n <= 0x37:
                j = i + 1
                while j < len(b) and j < i + 4 and 0x30 <= b[j] <= 0x37:
                    j += 1
                out.append(int(b[i + 1:j], 8) & 0xFF)
                i = j
                continue
            out.append({ord("n"): 10, ord("t"): 9, ord("r"): 13, ord("b"): 8, ord("f"): 12}.get(n, n))
            i += 2
            continue
        out.append(c)
        i += 1
    return bytes(out)


def strip_indices(text):
    return re.sub(r"\(\d+(?:,\d+)*\):", " ", text)


def parse_numbers(text):
    vals = []
    for tok in re.split(r"[,\s]+", strip_indices(text).strip()):
        if tok:
            vals.append(tok)
    return vals


def parse_h5dump(text):
    """Objects and attributes of an h5dump text listing: {path: {"kind", "attrs": {name:
    {"string": bool, "scalar": bool, "data": text}}, "data": text}}."""
    objs = {}
    stack = []  # frames: [kind, name, info]
    lines = text.splitlines()
    i = 0

    def cur_path():
        parts = [f[1] for f in stack if f[0] in ("GROUP", "DATASET")]
        if not parts:
            return None
        p = "/".join(x for x in parts if x not in ("/",))
        return "/" + p.lstrip("/") if parts[0] == "/" else parts[-1]

    while i < len(lines):
        line = lines[i]
        s = line.strip()
        m = re.match(r'^(GROUP|DATASET|ATTRIBUTE) "(.*)" \{$', s)
        if m:
            kind, name = m.group(1), m.group(2)
            info = {"kind": kind, "attrs": {}, "data": None, "string": False, "scalar": False}
            if kind == "DATASET" and name.startswith("/"):
                stack.append([kind, name, info])
                objs[name] = info
            else:
                stack.append([kind, name, info])
                if kind != "ATTRIBUTE":
                    objs[cur_path()] = info
                else:
                    owner = [f for f in stack[:-1] if f[0] in ("GROUP", "DATASET")][-1][2]
                    owner["attrs"][name] = info
            i += 1
            continue
        if s.startswith("DATATYPE") and stack:
            if "H5T_STRING" in s:
                stack[-1][2]["string"] = True
            if s.endswith("{"):
                depth = 1
                i += 1
                while i < len(lines) and depth:
                    depth += lines[i].count("{") - lines[i].count("}")
                    i += 1
                continue
            i += 1
            continue
        if s.startswith("DATASPACE") and stack:
            stack[-1][2]["scalar"] = "SCALAR" in s
            m = re.search(r"SIMPLE \{ \( ([^)]*) \)", s)
            stack[-1][2]["dims"] = tuple(int(x) for x in m.group(1).split(",")) if m else ()
            i += 1
            continue
        if s.startswith("DATA {") and stack:
            buf = [s[len("DATA {"):]]
            i += 1
            # the data ends at the line holding only "}" that closes it (strings may contain
            # braces; compound elements open with "(i): {" and close with a lone "}")
            depth = 1
            while i < len(lines):
                t = lines[i].strip()
                if not t.startswith('"'):
                    depth += (1 if t.endswith("{") else 0) - (1 if t.startswith("}") else 0)
                    if depth == 0:
                        break
                buf.append(lines[i])
                i += 1
            stack[-1][2]["data"] = "\n".join(buf)
            i += 1
            continue
        if s == "}" and stack:
            stack.pop()
        i += 1
    return objs


def h5_values(info):
    """Decoded values of a dataset/attribute: list of bytes (strings) or of str (numbers)."""
    if info.get("data") is None:
        return None
    if info["string"]:
        # h5dump quotes strings without escaping quotes inside them: split on '", "'
        text = " ".join(l.strip() for l in strip_indices(info["data"]).splitlines()).strip()
        if not text:
            return []
        if not (text.startswith('"') and text.endswith('"')):
            return None
        return [unescape(x) for x in re.split(r'",\s*"', text[1:-1])]
    return parse_numbers(info["data"])


# ---------------------------------------------------------------- comparisons
def num_equal(tok, want, dtype):
    """tok: h5dump/ncdump text of one number; want: numpy scalar of dtype."""
    tok = tok.strip()
    # ncdump type suffixes: 1b 2s 3L 4LL 5UB 6US 7U 8UL 9ULL -999.f NaNf
    if dtype.kind == "f":
        t = tok.lower()
        t = re.sub(r"(ub|us|ull|ul|u|ll|l|b|s)$", "", t)
        if t.endswith("f") and not t.endswith("inf"):
            t = t[:-1]
        t = t.replace("infinity", "inf")
        try:
            got = dtype.type(float(t))
        except ValueError:
            return False
        if math.isnan(float(want)):
            return math.isnan(float(got))
        return got == want
    try:
        return int(re.sub(r"(UB|US|ULL|UL|U|LL|L|b|s)$", "", tok)) == int(want)
    except ValueError:
        return False


def compare_dataset(h5path, a, store):
    """Values through the connector (h5dump) == values from zarr-python."""
    want = a[...]
    if want.dtype.kind in "f" or want.dtype.kind in "iub":
        with tempfile.TemporaryDirectory() as td:
            out = os.path.join(td, "out.bin")
            rc, so, se = h5dump(["-d", h5path, "-b", "LE", "-o", out, store])
            if rc != 0:
                fail("%s: h5dump -d %s failed: %s" % (store, h5path, se[-1500:]))
                return
            got = open(out, "rb").read()
        dt = want.dtype.newbyteorder("<") if want.dtype.itemsize > 1 else want.dtype
        if want.dtype.kind == "b":
            dt = np.dtype("u1")
        exp = np.ascontiguousarray(want).astype(dt).tobytes()
        if got != exp:
            fail("%s %s: h5dump binary values differ from zarr-python (%d vs %d bytes)\n  h5dump: %r\n  zarr:   %r"
                 % (store, h5path, len(got), len(exp), got[:200], exp[:200]))
            return
        # the shape h5dump reports must be zarr's
        rc, so, se = h5dump(["-H", "-d", h5path, store])
        info = parse_h5dump(so).get(h5path)
        if info is None or (info["dims"] or (1,)) != (want.shape or (1,)) and not (info["scalar"] and want.size == 1):
            fail("%s %s: h5dump shape %r, zarr-python %r" % (store, h5path, info and info.get("dims"), want.shape))
            return
    elif want.dtype.kind == "S":
        rc, so, se = h5dump(["-y", "-w", "0", "-d", h5path, store])
        if rc != 0:
            fail("%s: h5dump -d %s failed: %s" % (store, h5path, se[-1500:]))
            return
        info = parse_h5dump(so).get(h5path)
        got = [g.rstrip(b"\0") for g in h5_values(info) or []]
        exp = [bytes(x) for x in want.reshape(-1)]
        if got != exp:
            fail("%s %s: h5dump strings %r, zarr-python %r" % (store, h5path, got[:20], exp[:20]))
            return
    else:
        fail("%s %s: dtype %s not handled by this test" % (store, h5path, want.dtype))
        return
    checked["values"] += 1


def compare_dataset_ncdump(h5path, a, store, cdl):
    """An array zarr-python cannot open (its numcodecs lacks fletcher32 or szip): the values
    through the connector (h5dump) == ncdump's (netCDF-C's own reader and plugins)."""
    ent = (cdl or {}).get(h5path)
    if ent is None or ent["data"] is None:
        fail("%s %s: zarr-python cannot read it and ncdump shows no values to compare" % (store, h5path))
        return
    with tempfile.TemporaryDirectory() as td:
        out = os.path.join(td, "out.bin")
        rc, so, se = h5dump(["-d", h5path, "-b", "LE", "-o", out, store])
        if rc != 0:
            fail("%s: h5dump -d %s failed: %s" % (store, h5path, se[-1500:]))
            return
        got = np.frombuffer(open(out, "rb").read(), dtype=a.dtype.newbyteorder("<"))
    try:
        exp = np.array([float(t[1]) for t in ent["data"]], dtype=a.dtype)
    except ValueError:
        fail("%s %s: ncdump values are not all numbers: %r" % (store, h5path, ent["data"][:20]))
        return
    if got.shape != exp.shape or not np.array_equal(got, exp):
        fail("%s %s: h5dump values %r differ from ncdump's %r" % (store, h5path, got[:20], exp[:20]))
        return
    checked["values"] += 1


def compare_codec_error(h5path, a, store):
    rc, so, se = h5dump(["--enable-error-stack", "-d", h5path, store])
    ids = codecs_of(a)
    if rc == 0:
        fail("%s %s: compressed array (%s) read without error" % (store, h5path, ids))
        return
    named = [c for c in ids if ('codec "%s"' % c) in se]
    if not named or h5path not in se:
        fail("%s %s: error does not name the dataset and one of its codecs %s:\n%s" % (store, h5path, ids, se[-1500:]))
        return
    checked["codec_errors"] += 1


def attr_matches(info, want):
    """h5dump attribute vs a JSON value (zarr-python attrs / ncdump values)."""
    vals = h5_values(info)
    if vals is None:
        return False
    if isinstance(want, (dict,)) or (isinstance(want, list) and any(isinstance(x, (dict, list)) for x in want)) \
            or (isinstance(want, list) and len({type(x) for x in want}) > 1 and not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in want)):
        # structures come back as char text holding their JSON
        return info["string"] and len(vals) == 1 and json.loads(vals[0].decode()) == want
    items = want if isinstance(want, list) else [want]
    # a list is 1-D; a single value that nothing else describes is what netCDF-4 would make
    # of it: text a scalar, anything else 1-D of one element
    if info["scalar"] != (isinstance(want, str)):
        return False
    if not isinstance(want, list) and not isinstance(want, str) and info.get("dims") != (1,):
        return False
    if all(isinstance(x, str) for x in items):
        return info["string"] and [v.rstrip(b"\0").decode() for v in vals] == items
    if info["string"] or len(vals) != len(items):
        return False
    for tok, w in zip(vals, items):
        if isinstance(w, bool):
            w = int(w)
        if isinstance(w, int):
            if not num_equal(tok, w, np.dtype("i8")):
                return False
        elif not (float(tok) == float(w) or (math.isnan(float(w)) and math.isnan(float(tok)))):
            return False
    return True


HIDDEN = re.compile(r"^(_nczarr_.*|_NCProperties|_ARRAY_DIMENSIONS)$")
# What the connector shows of shared dimensions, as netCDF-4 files show them: H5DS and
# netCDF-4 attributes made from the NCZarr metadata, which zarr-python does not have.
DIMSCALE_ATTRS = {"CLASS", "NAME", "DIMENSION_LIST", "REFERENCE_LIST", "_Netcdf4Dimid", "_Netcdf4Coordinates"}


def compare_attrs(h5objs, nodes, store):
    for h5path, node in nodes:
        info = h5objs.get(h5path)
        if info is None:
            fail("%s: h5dump -A does not show %s" % (store, h5path))
            continue
        want = {k: v for k, v in attrs_of(node).items() if not HIDDEN.match(k)}
        got = {k: v for k, v in info["attrs"].items() if not HIDDEN.match(k) and k not in DIMSCALE_ATTRS}
        if set(want) != set(got):
            fail("%s %s: attributes %s through the connector, %s in zarr-python" % (store, h5path, sorted(got), sorted(want)))
            continue
        for k, v in want.items():
            if not attr_matches(got[k], v):
                fail("%s %s: attribute %s = %r through h5dump, %r in zarr-python" % (store, h5path, k, got[k].get("data"), v))
            else:
                checked["attrs"] += 1


# ---------------------------------------------------------------- ncdump (CDL) parsing
CDL_TOK = re.compile(r'"((?:[^"\\]|\\.)*)"|([^\s,;"]+)')


def cdl_tokens(text):
    return [("n", m.group(2)) if m.group(2) else ("s", unescape(m.group(1))) for m in CDL_TOK.finditer(text)]


def parse_cdl(text):
    """{"/grp/var": {"data": [tokens], "attrs": {name: [tokens]}}, "/grp": {...}}: tokens
    are ("s", bytes) or ("n", text)."""
    out = {}
    gstack = []
    section = None
    lines = text.splitlines()
    i = 0

    def gpath():
        return "/" + "/".join(gstack)

    def full(name):
        return gpath().rstrip("/") + "/" + name if name else gpath()

    def entry(path):
        return out.setdefault(path, {"data": None, "attrs": {}})

    while i < len(lines):
        s = lines[i].strip()
        i += 1
        m = re.match(r"^group: (\S+) \{$", s)
        if m:
            gstack.append(m.group(1))
            section = None
            continue
        if s.startswith("} // group"):
            gstack.pop()
            section = None
            continue
        if s in ("dimensions:", "variables:", "data:"):
            section = s[:-1]
            continue
        if s.startswith("// global attributes:") or s.startswith("// group attributes:"):
            section = "variables"
            continue
        if not s or s.startswith("//"):
            continue
        # gather a statement up to its terminating ';' (outside quotes)
        stmt = s
        while not re.search(r';\s*(//.*)?$', re.sub(r'"(?:[^"\\]|\\.)*"', '""', stmt)) and i < len(lines):
            stmt += " " + lines[i].strip()
            i += 1
        if section == "variables":
            m = re.match(r'^(?:[a-z0-9 ]+ )?(\w*):(\w+) = (.*);$', stmt)
            if m:
                owner = full(m.group(1))
                entry(owner)["attrs"][m.group(2)] = cdl_tokens(m.group(3))
        elif section == "data":
            m = re.match(r"^(\w+) =(.*);$", stmt)
            if m:
                entry(full(m.group(1)))["data"] = cdl_tokens(m.group(2))
    return out


def compare_ncdump(cdl, nodes, h5objs, store):
    """ncdump values/attributes == zarr-python values (already equal to h5dump's) and
    h5dump attributes."""
    for h5path, node in nodes:
        ent = cdl.get(h5path)
        if is_array(node):
            if ent is None or ent["data"] is None:
                fail("%s: ncdump shows no data for %s" % (store, h5path))
                continue
        # (arrays with codecs the connector cannot decode: nothing to compare)
        if is_array(node) and not unsupported_codecs(node) and not isinstance(node, Unreadable):
            want = node[...]
            toks = ent["data"]
            if want.dtype.kind == "S" and want.dtype.itemsize == 1:
                got = b"".join(t[1] for t in toks if t[0] == "s")
                exp = b"".join(bytes(x) for x in want.reshape(-1)).rstrip(b"\0")
                ok = got == exp
            elif want.dtype.kind == "S":
                ok = [t[1] for t in toks] == [bytes(x) for x in want.reshape(-1)]
            else:
                flat = want.reshape(-1)
                ok = len(toks) == flat.size and all(t[0] == "n" and num_equal(t[1], w, want.dtype)
                                                    for t, w in zip(toks, flat))
            if not ok:
                fail("%s %s: ncdump values %r, zarr-python/h5dump %r" % (store, h5path, toks[:20], want.reshape(-1)[:20]))
            else:
                checked["ncdump_values"] += 1
        # attributes ncdump shows must be the ones h5dump shows, with the same values
        info = h5objs.get(h5path)
        for name, toks in (ent or {"attrs": {}})["attrs"].items():
            if info is None or name not in info["attrs"]:
                fail("%s %s: ncdump attribute %s not shown by h5dump" % (store, h5path, name))
                continue
            ai = info["attrs"][name]
            vals = h5_values(ai)
            if all(t[0] == "s" for t in toks):
                text = [t[1] for t in toks]
                h5s = [v.rstrip(b"\0") for v in vals]
                ok = h5s == text
                if not ok and len(text) == 1:
                    # pure Zarr: netCDF-C shows an untyped list of strings as its JSON text
                    try:
                        ok = json.loads(text[0].decode()) == [v.decode() for v in h5s]
                    except ValueError:
                        ok = False
            else:
                ok = not ai["string"] and len(vals) == len(toks) and all(
                    num_equal(t[1], float(v), np.dtype("f8")) for t, v in zip(toks, vals))
            if not ok:
                fail("%s %s: attribute %s: ncdump %r, h5dump %r" % (store, h5path, name, toks, vals))
            else:
                checked["ncdump_attrs"] += 1


# ---------------------------------------------------------------- uncompressed twins
def read_keys(path):
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            return {n: z.read(n) for n in z.namelist() if not n.endswith("/")}
    out = {}
    for d, _, files in os.walk(path):
        for f in files:
            full = os.path.join(d, f)
            out[os.path.relpath(full, path).replace(os.sep, "/")] = open(full, "rb").read()
    return out


def decompress_store(src, dst):
    """Writes a copy of src in which every array whose codecs numcodecs can decode is
    stored uncompressed (same keys, same missing chunks, same metadata otherwise), so that
    the values of compressed sample arrays can be compared today."""
    import numcodecs
    keys = read_keys(src)
    out = dict(keys)
    done = []
    for k, v in keys.items():
        if not (k == ".zarray" or k.endswith("/.zarray")):
            continue
        meta = json.loads(v)
        if meta.get("compressor") is None and not meta.get("filters"):
            continue
        def codec(c):
            # netCDF-C 4.9.3 writes parameters as strings and shuffle's elementsize as "0"
            # (netCDF-C issue #3200): what they mean is the integer / the element size
            c = {ck: int(cv) if isinstance(cv, str) and cv.isdigit() else cv for ck, cv in c.items()}
            if c["id"] == "shuffle" and not c.get("elementsize"):
                c["elementsize"] = np.dtype(meta["dtype"]).itemsize
            return numcodecs.get_codec(c)
        try:
            chain = [codec(f) for f in meta.get("filters") or []]
            comp = codec(meta["compressor"]) if meta.get("compressor") else None
        except (ValueError, TypeError, KeyError):
            continue  # numcodecs cannot decode it either: leave it compressed
        prefix = k[: -len(".zarray")]
        nbytes = np.dtype(meta["dtype"]).itemsize * int(np.prod(meta["chunks"]))
        new = {}
        try:
            for ck, cv in keys.items():
                if not ck.startswith(prefix) or ck[len(prefix):].split("/")[-1].startswith("."):
                    continue
                rest = ck[len(prefix):]
                if not re.fullmatch(r"\d+([./]\d+)*", rest):
                    continue
                data = comp.decode(cv) if comp else cv
                for f in reversed(chain):
                    data = f.decode(data)
                data = bytes(np.frombuffer(memoryview(data).tobytes(), dtype="u1"))
                if len(data) != nbytes:
                    raise ValueError("chunk %s: %d bytes, expected %d" % (ck, len(data), nbytes))
                new[ck] = data
        except Exception:  # a codec that numcodecs mis-decodes (netCDF-C's string params)
            continue
        out.update(new)
        meta["compressor"] = None
        meta["filters"] = None
        out[k] = json.dumps(meta).encode()
        done.append(prefix)
    if ".zmetadata" in out:
        cons = json.loads(out[".zmetadata"])
        for mk in cons["metadata"]:
            if mk.endswith(".zarray") and mk[: -len(".zarray")] in done:
                cons["metadata"][mk]["compressor"] = None
                cons["metadata"][mk]["filters"] = None
        out[".zmetadata"] = json.dumps(cons).encode()
    if zipfile.is_zipfile(src):
        with zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as z:
            for k in sorted(out):
                z.writestr(k, out[k])
    else:
        for k, v in out.items():
            p = os.path.join(dst, k)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            open(p, "wb").write(v)
    print("%s: %d array(s) stored uncompressed in %s" % (src, len(done), dst))


def main():
    if sys.argv[1] == "--decompress":
        decompress_store(sys.argv[2], sys.argv[3])
        return 0
    argv = sys.argv[1:]
    if "--h5dump-name" in argv:
        i = argv.index("--h5dump-name")
        H5DUMP_NAME[os.path.abspath(argv[0])] = argv[i + 1]
        del argv[i:i + 2]
    store = os.path.abspath(argv[0])
    url = argv[1] if len(argv) > 1 else None
    root = open_zarr(store)
    if isinstance(root, zarr.core.Array):
        base = os.path.basename(store.rstrip("/"))
        base = base[: base.rfind(".")] if "." in base[1:] else base
        nodes = [("/" + base, root)]
        groups = [("/", None)]
    else:
        nodes = walk(root, "/", [])
        groups = []
    # The whole store dumps (arrays with unsupported codecs print an error, everything else
    # is shown).
    rc, full, se = h5dump(["-m", "%.17g", store])
    full_objs = parse_h5dump(full)
    for h5path, node in nodes:
        if h5path not in full_objs:
            fail("%s: the full h5dump does not show %s" % (store, h5path))
        elif is_array(node) and not unsupported_codecs(node) and full_objs[h5path]["data"] is None:
            fail("%s: the full h5dump shows no data for %s" % (store, h5path))
    cdl = parse_cdl(ncdump(url)) if url else None
    for h5path, node in nodes:
        if is_array(node):
            if unsupported_codecs(node):
                compare_codec_error(h5path, node, store)
            elif isinstance(node, Unreadable):
                compare_dataset_ncdump(h5path, node, store, cdl)
            else:
                compare_dataset(h5path, node, store)
    rc, attrs_txt, se = h5dump(["-A", "-y", "-w", "0", "-m", "%.17g", store])
    if rc != 0:
        fail("%s: h5dump -A failed: %s" % (store, se[-1500:]))
    h5objs = parse_h5dump(attrs_txt)
    compare_attrs(h5objs, nodes + [g for g in groups if g[1] is not None], store)
    if url:
        compare_ncdump(cdl, nodes, h5objs, store)
    print("%s: %s, %d failure(s)" % (store, ", ".join("%s %d" % kv for kv in checked.items()), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
