#!/usr/bin/env python3
"""The file system's floor under a store of one file per chunk, beside bench_raw.sh's
figures: in the same directory, N new files of S bytes each (written to a temporary and
renamed into place, as the connector writes a chunk) against one new file of N x S bytes
(as native HDF5 writes its data) and N new files of S bytes written in place, with no
temporary (as zarrs writes a chunk: a reader may then see a chunk half written), each run
in a fresh subdirectory, the three taking turns,
each run's files deleted before the next run (as bench_codecs deletes its stores), the
median of the runs printed. On ext2/3/4 without a journal, which passes over every inode
freed in the last minute at each file creation (fs/ext4/ialloc.c, recently_deleted), a
run's files are emptied and kept until the end, and the first run starts after a sync, six
minutes after the last bench there removed its stores (a minute after anything else), as
bench_codecs does (bench_retire.c). No HDF5 or Zarr: only open, write, rename and close. Where the
N files take longer than the one file takes to write, no chunk-per-file store can write
at native HDF5's speed there.

usage: bench/fs_floor.py DIR [--files N] [--mib S] [--runs K]"""
import argparse
import glob
import os
import shutil
import statistics
import tempfile
import time


def many(d, n, buf):
    t = time.perf_counter()
    for i in range(n):
        tmp, final = f"{d}/.tmp.{i}", f"{d}/c{i}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        os.write(fd, buf)
        os.close(fd)
        os.rename(tmp, final)
    return time.perf_counter() - t


def direct(d, n, buf):
    t = time.perf_counter()
    for i in range(n):
        fd = os.open(f"{d}/c{i}", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
        os.write(fd, buf)
        os.close(fd)
    return time.perf_counter() - t


def one(d, n, buf):
    t = time.perf_counter()
    fd = os.open(f"{d}/data", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    for _ in range(n):
        os.write(fd, buf)
    os.close(fd)
    return time.perf_counter() - t


def skips_freed_inodes(d):
    """Whether d is on ext2/3/4 with no journal (no /proc/fs/jbd2 entry for its device)."""
    st = os.stat(d)
    devno = f"{os.major(st.st_dev)}:{os.minor(st.st_dev)}"
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            if left.split()[2] != devno:
                continue
            fstype, source = right.split()[:2]
            if fstype not in ("ext2", "ext3", "ext4"):
                return False
            return not glob.glob(f"/proc/fs/jbd2/{os.path.basename(source)}-*")
    return False


def mark_path(d):
    """bench_retire.c's mark: when the last bench on d's file system removed its stores."""
    dev = os.stat(d).st_dev
    return f"/tmp/.vol-nczarr-bench-removed-{os.major(dev)}-{os.minor(dev)}"


def freed_wait(d):
    """Seconds to wait before writing in d: 361 (RECENTCY_MIN + RECENTCY_DIRTY of
    fs/ext4/ialloc.c, and a second) after the last bench there removed its stores, at least
    61 after anything else."""
    try:
        with open(mark_path(d)) as f:
            return max(61.0, 361.0 - (time.time() - float(f.read().split()[0])))
    except (OSError, ValueError, IndexError):
        return 61.0


def mark_removed(d):
    try:
        with open(mark_path(os.path.dirname(d)), "w") as f:
            f.write(f"{int(time.time())}\n")
    except OSError:
        pass


def retire(d, held):
    """Empties the files of d and moves it into held (kept: no inode freed)."""
    for name in os.listdir(d):
        os.truncate(f"{d}/{name}", 0)
    os.rename(d, f"{held}/{len(os.listdir(held))}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--files", type=int, default=1024)
    ap.add_argument("--mib", type=float, default=1.0, help="MiB per file")
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    buf = b"\1" * int(a.mib * (1 << 20))
    top = tempfile.mkdtemp(prefix="fs_floor.", dir=a.dir)
    fns = {"many": many, "direct": direct, "one": one}
    times = {k: [] for k in fns}
    order = list(fns)
    held = None
    if skips_freed_inodes(top):
        held = f"{top}/held"
        os.mkdir(held)
        os.sync()
        time.sleep(freed_wait(top))
    try:
        for r in range(a.runs):
            for side in order[r % 3 :] + order[: r % 3]:  # who goes first rotates
                d = f"{top}/{side}"
                os.mkdir(d)
                times[side].append(fns[side](d, a.files, buf))
                if held:
                    retire(d, held)
                else:
                    shutil.rmtree(d)
    finally:
        shutil.rmtree(top, ignore_errors=True)
        if held:
            mark_removed(top)
    m, o, di = (statistics.median(times[k]) for k in ("many", "one", "direct"))
    total = a.files * len(buf) / (1 << 20)
    print(f"fs floor in {a.dir}: {a.files} files of {a.mib:g} MiB {m:.3f} s ({total / m:.0f} MiB/s), "
          f"one file of {total:g} MiB {o:.3f} s ({total / o:.0f} MiB/s): many/one {o / m:.2f}x; "
          f"the files written in place {di:.3f} s ({total / di:.0f} MiB/s): many/in place {di / m:.2f}x; "
          f"median of {a.runs}" + ("; removed files kept until the end (ext4 without a journal)" if held else ""))


if __name__ == "__main__":
    main()
