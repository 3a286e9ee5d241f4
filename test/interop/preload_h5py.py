"""h5py's calls that reach HDF5's deprecated API, for preload_h5py.sh:

    preload_h5py.py probe PATH            prints "attr" and "dset" when the file's connector takes
                                          object references in an attribute, a dataset
    preload_h5py.py write PATH [attr] [dset]
                                          a tree (creation order tracked, as a store's always is,
                                          so that h5py lists both in the same order) with a soft
                                          link, a second hard link, a committed datatype, attributes
                                          and object references kept where the connector takes them
    preload_h5py.py read PATH [attr] [dset]
                                          prints what h5py answers: list(), keys(), items(),
                                          values(), reversed(), visit/visititems (and their _links
                                          forms), "a/b" in a group, get(getclass=True) and
                                          get(getlink=True), low-level object and link info,
                                          references (create, dereference, type, name, kept in an
                                          attribute and a dataset), object identity (==, hash),
                                          h5g.iterate; addresses only as what they must be
    preload_h5py.py addrs PATH            the raw addresses h5py sees (object info, links, a
                                          visit), for a native file read with and without the
                                          preload
    preload_h5py.py region PATH           a native file's region references
    preload_h5py.py bad PATH              a store: bad input fails with a clear message, no crash

The first line of read and addrs says whether the preload library is in the process."""
import ctypes
import sys

import h5py
import numpy as np

mode, path = sys.argv[1], sys.argv[2]
opts = set(sys.argv[3:])


def preload_loaded():
    with open("/proc/self/maps") as m:
        return "libnczarr_preload" in m.read()


def kind(obj):
    return type(obj).__name__


def name_of(obj):
    # x has two hard links (x and a/x2): HDF5 names such an object by either
    return "/x|/a/x2" if obj.name in ("/x", "/a/x2") else obj.name


def probe():
    found = []
    with h5py.File(path, "w") as f:
        g = f.create_group("g")
        for what in ("attr", "dset"):
            try:
                if what == "attr":
                    f.attrs["r"] = g.ref
                    back = f.attrs["r"]
                else:
                    f.create_dataset("r", data=[g.ref], dtype=h5py.ref_dtype)
                    back = f["r"][0]
                if f[back].name == "/g":
                    found.append(what)
            except Exception:  # refused: not compared
                pass
    print(" ".join(found))


def write():
    h5py.get_config().track_order = True
    with h5py.File(path, "w") as f:
        f.create_group("a/b/c")
        f["x"] = np.arange(3, dtype="i4")
        f["a/y"] = np.int32(5)
        f["a/b/z"] = np.arange(4.0)
        f["a/s"] = h5py.SoftLink("/x")
        f["a/x2"] = f["x"]
        f["t"] = np.dtype("<i2")
        for i, n in enumerate(("units", "scale", "long_name")):
            f["a/y"].attrs[n] = i
        if "attr" in opts:
            f.attrs["r"] = f["a/y"].ref
        if "dset" in opts:
            f.create_dataset("refs", data=[f["x"].ref, f["a/b"].ref, h5py.Reference()], dtype=h5py.ref_dtype)


def out(*args):
    print(*args)


def read():
    out("preload:", "loaded" if preload_loaded() else "absent")
    with h5py.File(path, "r") as f:
        a = f["a"]
        out("list /:", list(f))
        out("list a:", list(a))
        out("keys a/b:", list(f["a/b"].keys()))
        out("items /:", [(k, kind(v)) for k, v in f.items()])
        out("values a:", [kind(v) for v in a.values()])
        out("reversed a:", list(reversed(a)))
        out("len:", len(f), len(a))
        names = []
        f.visit(names.append)
        out("visit:", names)
        items = []
        f.visititems(lambda n, o: items.append((n, kind(o), name_of(o))))
        out("visititems:", items)
        out("visit bailout:", f.visit(lambda n: n if n.endswith("c") else None))
        sub = []
        out("visit a:", a.visit(sub.append), sub)
        if hasattr(f, "visit_links"):
            links = []
            f.visit_links(links.append)
            out("visit_links:", links)
            litems = []
            f.visititems_links(lambda n, lk: litems.append((n, kind(lk))))
            out("visititems_links:", litems)
        for p in ("a", "a/b", "a/b/c", "a/zz", "a/b/zz", "a/s", "a/x2", "/a/y", "x/y", "zz/b", "a/b/c/"):
            out("contains %s:" % p, p in f)
        for p in ("a", "x", "a/y", "t", "a/s", "a/x2", "a/b/z"):
            lk = f.get(p, getlink=True)
            out("get %s:" % p, f.get(p, getclass=True).__name__, kind(lk), getattr(lk, "path", ""),
                kind(f.get(p, getclass=True, getlink=True)))
        out("get missing:", f.get("nope", "dflt"), f.get("a/nope"))
        # low level: object info (H5Oget_info*1), link info (H5Lget_info1)
        for p in (b"a", b"a/y", b"x", b"a/x2", b"t"):
            oi = h5py.h5o.get_info(f.id, p)
            li = f.id.links.get_info(p)
            out("h5o.get_info %s:" % p.decode(), oi.type, oi.rc, oi.num_attrs,
                "addr=link" if li.u == oi.addr else "addr differs from the link's")
        oi = h5py.h5o.get_info(f["a/y"].id)
        out("h5o.get_info a/y itself:", oi.type, oi.rc, oi.num_attrs, oi.addr == h5py.h5o.get_info(f.id, b"a/y").addr)
        for i in range(4):
            oi = h5py.h5o.get_info(a.id, index=i)
            out("h5o.get_info a[%d]:" % i, oi.type, oi.rc)
        out("h5l.get_info a/s:", f.id.links.get_info(b"a/s").type, f.id.links.get_val(b"a/s"))
        # references
        for p in ("a/y", "a", "t", "/", "a/x2"):
            r = f[p].ref
            o = f[r]
            out("ref %s:" % p, bool(r), name_of(o), o == f[p], h5py.h5r.get_obj_type(r, f.id),
                h5py.h5r.get_name(r, f.id) in (b"/x", b"/a/x2") if p == "a/x2" else h5py.h5r.get_name(r, f.id))
        null = h5py.Reference()
        out("null ref:", bool(null), h5py.h5r.dereference(null, f.id))
        if "attr" in opts:
            out("ref in an attribute:", f[f.attrs["r"]].name)
        if "dset" in opts:
            out("refs in a dataset:", [name_of(f[r]) if r else None for r in f["refs"][...]])
        # identity
        out("identity:", f["a"] == f["a"], hash(f["a"]) == hash(f["a"]), f["a"] == f["x"], f["a/x2"] == f["x"],
            hash(f["a/x2"]) == hash(f["x"]), f["a/s"] == f["x"], f == f["/"].file)
        objs = []
        f.visititems(lambda n, o: objs.append(o))
        out("distinct objects:", len(set(objs)), len(objs))
        # H5Giterate
        got = []
        out("h5g.iterate a from 1:", h5py.h5g.iterate(a.id, lambda n: got.append(n), 1), got)
        out("h5g.iterate / stop:", h5py.h5g.iterate(f.id, lambda n: n if n == b"t" else None))


def addrs():
    out("preload:", "loaded" if preload_loaded() else "absent")
    with h5py.File(path, "r") as f:
        for p in (b"a", b"a/y", b"x", b"a/x2", b"t", b"a/b/c"):
            out(p.decode(), h5py.h5o.get_info(f.id, p).addr, f.id.links.get_info(p).u)
        vis = []
        h5py.h5o.visit(f.id, lambda n, i: vis.append((n.decode(), i.addr)), info=True)
        out("visit:", vis)


def region():
    with h5py.File(path, "r+") as f:
        rr = f["x"].regionref[1:3]
        out("region:", bool(rr), f["x"][rr].tolist(), name_of(f[rr]), h5py.h5r.get_name(rr, f.id) in (b"/x", b"/a/x2"),
            h5py.h5r.get_region(rr, f.id).get_select_npoints())


def expect(what, fn, want):
    """fn() must raise, with want in its message"""
    try:
        fn()
    except Exception as e:
        if want.lower() in str(e).lower():  # h5py capitalises the message
            out("ok: %s: %s" % (what, kind(e)))
            return 0
        out("FAIL: %s: %s: %s (wanted %r)" % (what, kind(e), e, want))
        return 1
    out("FAIL: %s: no error" % what)
    return 1


def bad():
    failed = 0
    lib = ctypes.CDLL(None)  # the process's global scope: the preload's definitions first
    lib.H5Oopen_by_addr.restype = ctypes.c_int64
    lib.H5Oopen_by_addr.argtypes = [ctypes.c_int64, ctypes.c_uint64]
    with h5py.File(path, "r+") as f:
        g = f.create_group("gone")
        r = g.ref
        del g
        del f["gone"]
        failed += expect("a reference to a deleted object", lambda: f[r], "it was deleted")
        failed += expect("its type", lambda: h5py.h5r.get_obj_type(r, f.id), "unable to open the object")
        failed += expect("its name", lambda: h5py.h5r.get_name(r, f.id), "unable to open the object")
        failed += expect("a region reference", lambda: f["x"].regionref[0:2], "region references")
        failed += expect("a missing name", lambda: h5py.h5o.get_info(f.id, b"a/nope"), "a/nope")
        # H5Oopen_by_addr (h5py has no call of its own for it)
        oid = lib.H5Oopen_by_addr(f.id.id, 12345)
        out("ok: an address that names no object: refused" if oid < 0 else "FAIL: address 12345 opened")
        failed += oid >= 0
        addr = h5py.h5o.get_info(f.id, b"a/y").addr
        oid = lib.H5Oopen_by_addr(f.id.id, addr)
        ok = oid >= 0 and h5py.h5i.get_name(h5py.h5d.DatasetID(oid)) == b"/a/y"
        out("ok: H5Oopen_by_addr(a/y's address) opens /a/y" if ok else "FAIL: H5Oopen_by_addr(%d)" % addr)
        failed += not ok
        grp = f["a"]
        gid = grp.id
    # closed file: HDF5 itself says the id is not valid any more
    failed += expect("listing a group of a closed file", lambda: list(grp), "invalid group (or file) id")
    failed += expect("visiting with a closed id", lambda: h5py.h5o.visit(gid, lambda n: None),
                     "invalid location identifier")
    failed += expect("h5g.iterate with a closed id", lambda: h5py.h5g.iterate(gid, lambda n: None),
                     "invalid identifier")
    failed += expect("link info with a closed id", lambda: gid.links.get_info(b"b"), "invalid location identifier")
    out("%d failed" % failed)
    return failed


if __name__ == "__main__":
    h5py._errors.silence_errors()
    if mode == "probe":
        probe()
    elif mode == "write":
        write()
    elif mode == "read":
        read()
    elif mode == "addrs":
        addrs()
    elif mode == "region":
        region()
    elif mode == "bad":
        sys.exit(bad())
    else:
        sys.exit("unknown mode " + mode)
