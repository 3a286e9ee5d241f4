"""The Python peers of bench_codecs: writes or reads one Zarr array (format 2, or 3 with
--zarr-format 3, in shards of N x N chunks with --shards N) with the same shape, chunks,
rows per call and codecs as the C peers, and prints one line on stdout: "ok <seconds>" or
"failed <message>". bench_codecs runs it once per run and phase, in a process of its own,
and measures that process's peak RSS. --impl picks the library, each used the way its
documentation recommends for writing and reading blocks of rows:
- zarr: zarr-python 3, one assignment or slice per block, in order;
- zarrs: zarr-python 3 with zarrs' codec pipeline (zarrs-python's README: set
  codec_pipeline.path to zarrs.ZarrsCodecPipeline), the same calls;
- tensorstore: every block's write issued at once, then all awaited (its documentation's
  asynchronous pattern); a sharded array written inside one transaction (its advice for
  writes that cover part of a shard: each shard is then written once, whole); reads issued
  at once too, each block checked as it arrives.

The source rows come from the file bench_codecs writes (nslabs slabs of slab_rows x cols
float32, little-endian), so every peer writes and checks the same bytes. The clock starts
after the imports and after the source file is loaded, as it does in the C peers; comparing
what was read with the source is not timed.
Not a test: no assertion on speed."""

import argparse
import json
import sys
import time
import warnings


def codecs(case, zstd_level):
    import numcodecs

    if case == "raw":
        return None, None
    if case == "deflate":
        return numcodecs.Zlib(level=4), [numcodecs.Shuffle(elementsize=4)]
    if case == "blosc":
        return numcodecs.Blosc(cname="lz4", clevel=5, shuffle=1), None
    if case == "zstd":
        return numcodecs.Zstd(level=zstd_level), None
    raise ValueError("unknown case " + case)


def codecs3(case, zstd_level):
    """The v3 codecs of a case (the connector's spelling: zstd as v3's "zstd", the others
    as numcodecs codecs)."""
    from zarr.codecs import BloscCodec, ZstdCodec

    if case == "raw":
        return None
    if case == "zstd":
        return ZstdCodec(level=zstd_level, checksum=False)
    if case == "blosc":
        return BloscCodec(cname="lz4", clevel=5, shuffle="shuffle")
    raise ValueError("case %s is not benchmarked in Zarr v3" % case)


def ts_codecs(case, zstd_level, zarr_format):
    """tensorstore's spelling of a case: a v3 codec list, or a v2 compressor (its zarr driver
    takes no filters: the deflate case's shuffle has no spelling there)."""
    if zarr_format == 3:
        chain = [{"name": "bytes", "configuration": {"endian": "little"}}]
        if case == "zstd":
            chain.append({"name": "zstd", "configuration": {"level": zstd_level, "checksum": False}})
        elif case == "blosc":
            chain.append({"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 4}})
        elif case != "raw":
            raise ValueError("case %s is not benchmarked in Zarr v3" % case)
        return chain
    if case == "raw":
        return None
    if case == "zstd":
        return {"id": "zstd", "level": zstd_level}
    if case == "blosc":
        return {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1}
    raise ValueError("tensorstore's zarr driver takes no filters (case %s: shuffle + deflate)" % case)


def ts_spec(a):
    """The tensorstore spec of the array a describes (a local directory store)."""
    kv = {"driver": "file", "path": a.store}
    if a.zarr_format == 2:
        return {
            "driver": "zarr",
            "kvstore": kv,
            "metadata": {
                "shape": [a.rows, a.cols],
                "chunks": [a.chunk_rows, a.chunk_cols],
                "dtype": "<f4",
                "order": "C",
                "fill_value": None,
                "compressor": ts_codecs(a.case, a.zstd_level, 2),
                "filters": None,
            },
        }
    chain = ts_codecs(a.case, a.zstd_level, 3)
    grid = [a.chunk_rows, a.chunk_cols]
    if a.shards:
        grid = [a.chunk_rows * a.shards, a.chunk_cols * a.shards]
        chain = [
            {
                "name": "sharding_indexed",
                "configuration": {
                    "chunk_shape": [a.chunk_rows, a.chunk_cols],
                    "codecs": chain,
                    # zarr-python's and the connector's index: little-endian, crc32c
                    "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
                    "index_location": "end",
                },
            }
        ]
    return {
        "driver": "zarr3",
        "kvstore": kv,
        "metadata": {
            "shape": [a.rows, a.cols],
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": grid}},
            "chunk_key_encoding": {"name": "default"},
            "data_type": "float32",
            "fill_value": 0,
            "codecs": chain,
        },
    }


def run_tensorstore(a, src, nblocks):
    """One write or read with tensorstore; returns (seconds, None) or (None, message)."""
    import numpy as np
    import tensorstore as ts

    if a.phase == "write":
        t0 = time.perf_counter()
        arr = ts.open(ts_spec(a), create=True, delete_existing=True).result()
        txn = ts.Transaction() if a.zarr_format == 3 and a.shards else None
        target = arr.with_transaction(txn) if txn else arr
        futs = [target[k * a.slab_rows : (k + 1) * a.slab_rows, :].write(src[k % a.nslabs]) for k in range(nblocks)]
        for f in futs:
            f.result()
        if txn:
            txn.commit_sync()
        return time.perf_counter() - t0, None
    verify = 0.0
    t0 = time.perf_counter()
    spec = ts_spec(a)  # its driver and store; the metadata is the stored one
    arr = ts.open({"driver": spec["driver"], "kvstore": spec["kvstore"]}, open=True).result()
    futs = [arr[k * a.slab_rows : (k + 1) * a.slab_rows, :].read() for k in range(nblocks)]
    for k, f in enumerate(futs):
        block = f.result()
        v0 = time.perf_counter()
        if not np.array_equal(block, src[k % a.nslabs]):
            return None, "rows %d..%d differ from what was written" % (k * a.slab_rows, (k + 1) * a.slab_rows - 1)
        verify += time.perf_counter() - v0
    return time.perf_counter() - t0 - verify, None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--store", required=True)
    p.add_argument("--phase", choices=["write", "read", "remove"], required=True)
    p.add_argument("--case")
    p.add_argument("--rows", type=int)
    p.add_argument("--cols", type=int)
    p.add_argument("--chunk-rows", type=int)
    p.add_argument("--chunk-cols", type=int)
    p.add_argument("--slab-rows", type=int)
    p.add_argument("--nslabs", type=int)
    p.add_argument("--src")
    p.add_argument("--zstd-level", type=int, default=1)
    p.add_argument("--zarr-format", type=int, default=2)
    p.add_argument("--shards", type=int, default=0)
    p.add_argument("--storage-options", help="s3fs's options (JSON), for an s3:// store")
    p.add_argument("--impl", choices=["zarr", "zarrs", "tensorstore"], default="zarr")
    a = p.parse_args()
    if a.phase == "remove":  # a store in a bucket (bench_codecs --s3), any peer's
        import s3fs

        # its requests carry a user agent of their own: bench_v3.sh leaves them out of the counts
        so = json.loads(a.storage_options)
        so.setdefault("config_kwargs", {})["user_agent_extra"] = "bench-remove"
        fs = s3fs.S3FileSystem(**so)
        if fs.exists(a.store):
            fs.rm(a.store, recursive=True)
        return 0
    try:
        warnings.simplefilter("ignore")
        import numpy as np

        src = np.fromfile(a.src, dtype="<f4").reshape(a.nslabs, a.slab_rows, a.cols)
        nblocks = a.rows // a.slab_rows
        if a.impl == "tensorstore":
            if a.storage_options:
                raise ValueError("the tensorstore peer runs on a directory store only")
            secs, failed = run_tensorstore(a, src, nblocks)
            print("ok %.9f" % secs if failed is None else "failed " + failed)
            return 0
        import zarr

        if a.impl == "zarrs":
            import zarrs  # noqa: F401  (the pipeline's module must import)

            zarr.config.set({"codec_pipeline.path": "zarrs.ZarrsCodecPipeline"})
        so = {"storage_options": json.loads(a.storage_options)} if a.storage_options else {}
        verify = 0.0
        t0 = time.perf_counter()
        if a.phase == "write":
            if a.zarr_format == 3:
                filters, compressor = None, codecs3(a.case, a.zstd_level)
                extra = {"shards": (a.chunk_rows * a.shards, a.chunk_cols * a.shards)} if a.shards else {}
            else:
                compressor, filters = codecs(a.case, a.zstd_level)
                extra = {}
            z = zarr.create_array(
                store=a.store,
                shape=(a.rows, a.cols),
                chunks=(a.chunk_rows, a.chunk_cols),
                dtype="<f4",
                zarr_format=a.zarr_format,
                compressors=compressor,
                filters=filters,
                fill_value=None if a.zarr_format == 2 else 0,
                overwrite=True,
                **extra,
                **so,
            )
            for k in range(nblocks):
                z[k * a.slab_rows : (k + 1) * a.slab_rows, :] = src[k % a.nslabs]
        else:
            z = zarr.open_array(a.store, mode="r", **so)
            for k in range(nblocks):
                block = z[k * a.slab_rows : (k + 1) * a.slab_rows, :]
                v0 = time.perf_counter()
                if not np.array_equal(block, src[k % a.nslabs]):
                    print("failed rows %d..%d differ from what was written" % (k * a.slab_rows, (k + 1) * a.slab_rows - 1))
                    return 0
                verify += time.perf_counter() - v0
        print("ok %.9f" % (time.perf_counter() - t0 - verify))
    except Exception as e:  # the bench reports the message in its table's notes
        print("failed %s: %s" % (type(e).__name__, str(e).replace("\n", " ")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
