#!/usr/bin/env python3
"""What creating a file costs in DIR after stores were removed there, against the same after
stores were only emptied: on ext2/3/4 without a journal every file creation passes over the
inodes freed in the last minute (fs/ext4/ialloc.c, find_inode_bit and recently_deleted), so
the cost grows with what was removed; on other file systems the two sides are alike.

Each side writes --stores stores one after the other, --gap seconds apart (a benchmark's
pace), each store a directory of 64 directories of 16 empty files (the 1024 chunk files of
a 1 GiB array of 1 MiB chunks and their 64 row directories), and prints the microseconds
per file created of each store. "removed": each store is removed before the next is made,
as a benchmark that removes its stores at once does; "kept": each store's files are kept
(emptied), as bench_codecs keeps them on such a file system (bench_retire.c), and the side
starts a minute after a sync. Kept comes first. No HDF5 or Zarr.

usage: bench/fs_freed_inodes.py DIR [--stores N] [--gap S]"""
import argparse
import os
import shutil
import statistics
import tempfile
import time


def make_store(d):
    """Creates the store's directories and files; returns microseconds per file."""
    t = time.perf_counter()
    os.mkdir(d)
    n = 0
    for i in range(64):
        os.mkdir(f"{d}/{i}")
        for j in range(16):
            os.close(os.open(f"{d}/{i}/{j}", os.O_CREAT | os.O_WRONLY, 0o666))
            n += 1
    return (time.perf_counter() - t) / (n + 65) * 1e6


def side(top, name, stores, gap, keep):
    base = f"{top}/{name}"
    os.mkdir(base)
    if keep:
        os.sync()
        time.sleep(61)  # what was removed before: RECENTCY_MIN (60 s) and a second
    us = []
    for k in range(stores):
        time.sleep(gap)
        d = f"{base}/s{k}"
        us.append(make_store(d))
        if not keep:
            shutil.rmtree(d)
    return us


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--stores", type=int, default=8)
    ap.add_argument("--gap", type=float, default=2.0)
    a = ap.parse_args()
    top = tempfile.mkdtemp(prefix="fs_freed_inodes.", dir=a.dir)
    try:
        kept = side(top, "kept", a.stores, a.gap, True)
        removed = side(top, "removed", a.stores, a.gap, False)
    finally:
        shutil.rmtree(top, ignore_errors=True)
    for label, us in (("kept", kept), ("removed", removed)):
        print(f"{label:8s} us per file created, store by store: {' '.join(f'{x:.0f}' for x in us)}; "
              f"median {statistics.median(us):.0f}")
    print(f"fs_freed_inodes in {a.dir}: {a.stores} stores of 1089 files, {a.gap:g} s apart: "
          f"removed/kept {statistics.median(removed) / statistics.median(kept):.1f}x")


if __name__ == "__main__":
    main()
