"""Damaged stores judged against the peers: for each store the connector's bad-input tests
made (test_vol_badinput, test_vol_damaged with NCZARR_KEEP_STORES), what the connector
(interop_read_ints: H5Dread), netCDF-C (ncdump, its own NCZarr reader) and zarr-python 2 and 3 make of its
datasets "good" and "bad" (int32[6] each). Prints one table row per store and dataset, and
fails when
  - the connector crashes or hangs;
  - the connector refuses a dataset that every peer reads, unless the store is named in
    STRICTER with the reason the connector is right to refuse;
  - the connector reads a dataset with other values than a peer that reads it, unless the
    store is named in STRICTER;
  - a store is named in STRICTER that needs no excuse (the list stays true).
A peer that refuses, crashes or hangs on a store shows that the store is bad input; the
connector must then refuse it with a message (its own tests check the message).

    damaged_peers.py KEPT_DIR...    (environment: READ_INTS, NCDUMP, ZARR3_PYTHON,
                                     NCDUMP_PLUGIN_PATH, H5DUMP_ENV_PRELOAD)"""
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

# Stores whose bad dataset the connector refuses although some peer reads it, and why it is
# right to (or, for the data types, what is missing: issue [9] adds them).
STRICTER = {
    "damaged/linkchunk": "a chunk that is a symbolic link out of the store: reading it would read any file",
    "damaged/linkchunkrel": "a chunk that is a relative symbolic link out of the store",
    "damaged/linkinside": "a symbolic link inside the store: the directory store follows no link at all",
    "damaged/linkroot": "the root .zattrs is a symbolic link out of the store",
}
DATASETS = ("good", "bad")
TIMEOUT = 120


def run(cmd, env=None):
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return "hang", b"", b""
    if p.returncode < 0 or p.returncode >= 128:
        return "crash", p.stdout, p.stderr
    return p.returncode, p.stdout, p.stderr


def tool_env(connector):
    env = dict(os.environ)
    if connector:
        pre = os.environ.get("H5DUMP_ENV_PRELOAD", "")
        if pre:
            env["LD_PRELOAD"] = pre
        else:
            env.pop("LD_PRELOAD", None)
    else:
        for k in ("HDF5_VOL_CONNECTOR", "LD_PRELOAD"):
            env.pop(k, None)
        env["HDF5_PLUGIN_PATH"] = os.environ.get("NCDUMP_PLUGIN_PATH", "")
    return env


def connector(store, name, tmp):
    rc, so, se = run([os.environ["READ_INTS"], store, name], tool_env(True))
    if rc in ("hang", "crash"):
        return rc
    if rc != 0:
        return "refused"
    vals = so.decode().strip().split(",")
    return [int(x) for x in vals] if len(vals) == 6 else "read %d values" % len(vals)


def url_of(store):
    mode = "zip" if store.endswith(".zip") else "file"
    return "file://%s#mode=nczarr,%s" % (store, mode)


def ncdump(store):
    """{dataset: values or verdict} from one ncdump of the store."""
    rc, so, se = run([os.environ["NCDUMP"], url_of(store)], tool_env(False))
    if rc != 0:
        v = rc if rc in ("hang", "crash") else "refused"
        return {n: v for n in DATASETS}
    text = so.decode(errors="replace")
    out = {}
    for n in DATASETS:
        m = re.search(r"^ %s = ([^;]*);" % n, text, re.M)
        if not m:
            out[n] = "refused"  # not shown: netCDF-C left the array out
            continue
        vals = [t.strip() for t in m.group(1).replace("\n", " ").split(",")]
        out[n] = [0 if v == "_" else int(v) for v in vals]  # every fill value here is 0
    return out


ZARR_READER = r'''
import json, os, signal, sys, warnings, zipfile
warnings.simplefilter("ignore")
import zarr
v3 = zarr.__version__.startswith("3")
def opened(store):
    if store.endswith(".zip"):
        sub = os.path.basename(store)[:-4]
        if v3:
            zs = zarr.storage.ZipStore(store, mode="r")
            return zarr.open_group(zs, mode="r", path=sub, zarr_format=2)
        return zarr.open_group(zarr.ZipStore(store, mode="r"), mode="r", path=sub)
    if v3:
        return zarr.open_group(store, mode="r", zarr_format=2)
    return zarr.open_group(store, mode="r")
def alarm(*_):
    raise TimeoutError("hang")
signal.signal(signal.SIGALRM, alarm)
out = {}
for store in sys.argv[1:]:
    res = {}
    for name in ("good", "bad"):
        signal.alarm(60)
        try:
            a = opened(store)[name][...]
            res[name] = [int(x) for x in a.reshape(-1)] if a.dtype.kind in "iub" and a.size == 6 else "read %s%s" % (a.dtype, a.shape)
        except TimeoutError:
            res[name] = "hang"
        except Exception as e:
            res[name] = "refused"
        finally:
            signal.alarm(0)
    out[store] = res
print(json.dumps(out))
'''


def zarr_python(python, stores):
    env = tool_env(False)
    rc, so, se = run([python, "-c", ZARR_READER] + stores, env)
    if rc != 0:
        raise SystemExit("%s could not judge the stores (%s): %s" % (python, rc, se.decode(errors="replace")[-2000:]))
    return json.loads(so)


def show(v):
    return "%s" % v if isinstance(v, str) else ",".join(map(str, v))


def main():
    stores = []
    for kept in sys.argv[1:]:
        group = os.path.basename(kept.rstrip("/"))
        for f in sorted(os.listdir(kept)):
            p = os.path.join(kept, f)
            if f.startswith("good.") or f == "names.zarr" or not (f.endswith(".zarr") or f.endswith(".zip")):
                continue
            stores.append(("%s/%s" % (group, f.rsplit(".", 1)[0]), p))
    if not stores:
        raise SystemExit("no damaged stores under %s" % " ".join(sys.argv[1:]))
    paths = [p for _, p in stores]
    z2 = zarr_python("/usr/bin/python3", paths)
    z3 = zarr_python(os.environ["ZARR3_PYTHON"], paths)
    failures = []
    rows = []
    excused = set()
    with tempfile.TemporaryDirectory() as tmp:
        for case, path in stores:
            nc = ncdump(path)
            for name in DATASETS:
                con = connector(path, name, tmp)
                peers = {"ncdump": nc[name], "zarr-python 2": z2[path][name], "zarr-python 3": z3[path][name]}
                readers = {k: v for k, v in peers.items() if isinstance(v, list)}
                verdict = "ok"
                why = None
                if con in ("hang", "crash"):
                    verdict = "FAIL: the connector %s" % ("hangs" if con == "hang" else "crashes")
                elif isinstance(con, list):
                    differ = [k for k, v in readers.items() if v != con]
                    if differ:
                        why = "the connector reads %s, %s read other values" % (show(con), ", ".join(differ))
                elif len(readers) == len(peers):
                    why = "every peer reads it, the connector %s" % con
                if why and case in STRICTER:
                    verdict = "ok (stricter: %s)" % STRICTER[case]
                    excused.add(case)
                elif why:
                    verdict = "FAIL: " + why
                if verdict.startswith("FAIL"):
                    failures.append("%s %s: %s" % (case, name, verdict))
                rows.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                    case, name, show(con), show(peers["ncdump"]), show(peers["zarr-python 2"]),
                    show(peers["zarr-python 3"]), verdict))
    print("| store | dataset | connector | ncdump | zarr-python 2 | zarr-python 3 | verdict |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(r)
    for u in sorted(set(STRICTER) - {c for c, _ in stores}):
        failures.append("STRICTER names %s, which no test made" % u)
    for u in sorted(set(STRICTER) & {c for c, _ in stores} - excused):
        failures.append("STRICTER names %s, but a peer refuses it too or reads what the connector reads: "
                        "drop it" % u)
    for f in failures:
        print("FAIL: " + f)
    print("%d stores, %d datasets judged against ncdump and zarr-python 2 and 3: %d failure(s)"
          % (len(stores), len(rows), len(failures)))
    return 1 if failures else 0


sys.exit(main())
