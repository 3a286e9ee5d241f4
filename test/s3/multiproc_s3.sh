#!/usr/bin/env bash
# test/interop/multiproc.sh on S3: 4 processes open one store in the bucket read-write and
# each writes 64 chunks of each of two arrays (disjoint, chunk-aligned); the store is then
# complete and consistent (every value right through the connector and in zarr-python 3
# over s3fs, netCDF-C's S3 client reads it), and no metadata object was rewritten: each is
# marked beforehand with user metadata (a server-side copy onto itself), which a PUT would
# drop. With and without consolidated metadata. Then the same in Zarr v3 shards, each
# process writing whole shards: one PUT per shard (the gateway's request log).
set -euo pipefail
: "${NCZ_S3_ENV:?}" "${NCZARR_BUILD:?}" "${NCZARR_PREFIX:?}" "${NCZARR_ZARR3_PYTHON:?}"
# the server's settings and the AWS variables
. "$(cd "$(dirname "$0")" && pwd)/s3_common.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-mps3.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
w="$NCZARR_BUILD/test/interop_multiproc_writer"
bucket=multiproc-$$-$RANDOM
nproc=4 nchunk=64
py() { env -u HDF5_VOL_CONNECTOR LD_PRELOAD= "$NCZARR_ZARR3_PYTHON" - "$NCZ_S3_ENDPOINT" "$bucket" "$@"; }
for opt in "" consolidated; do
  key=mp${opt:+-$opt}
  url="$NCZ_S3_ENDPOINT/$bucket/$key#mode=nczarr,s3"
  HDF5_VOL_CONNECTOR="nczarr $opt" "$w" create "$url" $nproc $nchunk
  py "$key" mark <<'PY' || { echo "FAIL: marking the metadata objects"; exit 1; }
import os, sys, s3fs
endpoint, bucket, key, what = sys.argv[1:5]
fs = s3fs.S3FileSystem(key=os.environ["AWS_ACCESS_KEY_ID"], secret=os.environ["AWS_SECRET_ACCESS_KEY"],
                       client_kwargs={"endpoint_url": endpoint, "region_name": os.environ["AWS_REGION"]})
meta = [p for p in fs.find(f"{bucket}/{key}") if p.rsplit("/", 1)[-1].startswith(".z")]
assert meta, "no metadata objects"
for p in meta:
    fs.setxattr(p, nczarrmark="before-writers")
print(f"marked {len(meta)} metadata objects")
PY
  "$w" writers "$url" $nproc || { echo "FAIL: ${opt:-default}: a writer failed (above)"; exit 1; }
  py "$key" check $nproc $nchunk <<'PY' || { echo "FAIL: ${opt:-default}: the store on S3"; exit 1; }
import os, sys
import numpy as np
import s3fs, zarr
endpoint, bucket, key, what, nproc, nchunk = sys.argv[1:7]
fs = s3fs.S3FileSystem(key=os.environ["AWS_ACCESS_KEY_ID"], secret=os.environ["AWS_SECRET_ACCESS_KEY"],
                       client_kwargs={"endpoint_url": endpoint, "region_name": os.environ["AWS_REGION"]})
keys = fs.find(f"{bucket}/{key}")
meta = [p for p in keys if p.rsplit("/", 1)[-1].startswith(".z")]
rewritten = [p for p in meta if fs.getxattr(p, "nczarrmark") != "before-writers"]
assert not rewritten, f"chunk writers rewrote metadata: {rewritten}"
chunks = len(keys) - len(meta)
assert chunks == 2 * int(nproc) * int(nchunk), f"{chunks} chunks"
g = zarr.open_group(fs.get_mapper(f"{bucket}/{key}"), mode="r", zarr_format=2)
rows, cols = g["a"].shape
r = np.arange(rows)[:, None]
c = np.arange(cols)[None, :]
assert (g["a"][:] == r * 1000 + c).all(), "a differs"
assert (g["b"][:] == r + c / 1024.0).all(), "b differs"
print(f"{len(meta)} metadata objects untouched, {chunks} chunks, zarr-python 3: {rows} x {cols} ok")
PY
  "$w" verify "$url" $nproc || { echo "FAIL: ${opt:-default}: values through the connector"; exit 1; }
  env -u HDF5_VOL_CONNECTOR LD_PRELOAD= HDF5_PLUGIN_PATH="$NCZARR_PREFIX/lib/plugin" "$NCZ_S3_NETCDF" \
    "$NCZARR_PREFIX/bin/ncdump" -h "$NCZ_S3_HTTPS_ENDPOINT/$bucket/$key#mode=nczarr,s3" >"$tmp/nc.txt" 2>&1 ||
    { cat "$tmp/nc.txt"; echo "FAIL: ${opt:-default}: netCDF-C's ncdump on S3"; exit 1; }
  echo "${opt:-default}: $nproc writers x $nchunk chunks x 2 arrays on S3: ok"
done
# Zarr v3 in shards of 4 chunks, each process writing a shard-aligned block of rows: every
# shard object is written once, by its one writer; the store is complete for zarr-python 3
key=mp-v3
url="$NCZ_S3_ENDPOINT/$bucket/$key#mode=nczarr,s3"
HDF5_VOL_CONNECTOR="nczarr v3 shards=4" "$w" create "$url" $nproc 16
MULTIPROC_BLOCKS=1 "$w" writers "$url" $nproc || { echo "FAIL: v3: a writer failed (above)"; exit 1; }
MULTIPROC_BLOCKS=1 "$w" verify "$url" $nproc || { echo "FAIL: v3: values through the connector"; exit 1; }
# one PUT per shard: the gateway's request log (written by a thread of its own: a marker
# request, then read until the marker is in it)
rgwlog=$NCZ_S3_ROOT/log/client.rgw.log
[ -f "$rgwlog" ] || { echo "FAIL: v3: no gateway log $rgwlog"; exit 1; }
marker="$bucket/marker-$$"
s3_status GET "$marker" >/dev/null
for _ in $(seq 200); do grep -q "GET /$marker " "$rgwlog" && break; sleep 0.1; done
grep -q "GET /$marker " "$rgwlog" || { echo "FAIL: v3: the marker request never reached the gateway's log"; exit 1; }
# (awk and curl without the sanitizer builds' preloaded runtimes: they fail or hang under them)
puts=$(env LD_PRELOAD= awk -v p="\"PUT /$bucket/$key/" 'index($0, p) && $0 ~ "/[ab]/c/" { n++ } END { print n + 0 }' "$rgwlog")
shards=$((2 * nproc * 16 / 4))
[ "$puts" -eq "$shards" ] || { echo "FAIL: v3: $puts shard PUTs for $shards shards (one PUT per shard wanted)"; exit 1; }
echo "v3: $puts PUTs for $shards shards (gateway log)"
py "$key" check $nproc <<'PY' || { echo "FAIL: v3: the sharded store on S3"; exit 1; }
import os, sys
import numpy as np
import s3fs, zarr
endpoint, bucket, key, what, nproc = sys.argv[1:6]
fs = s3fs.S3FileSystem(key=os.environ["AWS_ACCESS_KEY_ID"], secret=os.environ["AWS_SECRET_ACCESS_KEY"],
                       client_kwargs={"endpoint_url": endpoint, "region_name": os.environ["AWS_REGION"]})
shards = [p for p in fs.find(f"{bucket}/{key}") if "/c/" in p]
assert len(shards) == 2 * int(nproc) * 16 // 4, f"{len(shards)} shard objects"
g = zarr.open_group(fs.get_mapper(f"{bucket}/{key}"), mode="r", zarr_format=3)
rows, cols = g["a"].shape
r = np.arange(rows)[:, None]
c = np.arange(cols)[None, :]
assert (g["a"][:] == r * 1000 + c).all(), "a differs"
assert (g["b"][:] == r + c / 1024.0).all(), "b differs"
print(f"v3: {len(shards)} shard objects, zarr-python 3: {rows} x {cols}, shards {g['a'].shards} ok")
PY
echo "multiproc_s3: ok"
