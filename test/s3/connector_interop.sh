#!/usr/bin/env bash
# The connector on S3 (the RGW test server, https), judged by the real tools:
# 1. every CDL of the netCDF-4 corpus (test/netcdf4/cdl) written through the connector
#    straight to the bucket (ncgen -4; nc4_copy of the native file in sanitizer builds; the
#    option s3root maps their plain output names into the bucket) reads
#    in netCDF-C's own S3 client exactly as its netCDF-4 file reads natively;
# 2. netCDF-C writes the same CDLs to the bucket (nccopy) and h5dump through the connector
#    shows each as it shows netCDF-C's local store of the same file;
# 3. zarr-python 3 (s3fs) reads the values of a store the connector wrote, and the
#    connector reads a store zarr-python 3 wrote to the bucket.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../netcdf4/nc4_lib.sh"
: "${NCZ_S3_ENV:?}" "${NCZARR_ZARR3_PYTHON:?}"
. "$NCZ_S3_ENV"
# The connector's credentials, region and CA come from the standard AWS variables.
export AWS_ACCESS_KEY_ID=$NCZ_S3_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$NCZ_S3_SECRET_KEY
export AWS_REGION=$NCZ_S3_REGION AWS_CA_BUNDLE=$NCZ_S3_CA
# botocore 1.36+ sends checksummed chunked uploads that Ceph 16's gateway refuses
# (MissingContentLength): checksums only where an operation requires them.
export AWS_REQUEST_CHECKSUM_CALCULATION=when_required AWS_RESPONSE_CHECKSUM_VALIDATION=when_required
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-s3i.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
bucket=interop-$$-$RANDOM
s3() { echo "$NCZ_S3_HTTPS_ENDPOINT/$bucket/$1#mode=nczarr,s3"; }
ncs3() { env -u HDF5_VOL_CONNECTOR LD_PRELOAD= HDF5_PLUGIN_PATH="$NCZARR_PREFIX/lib/plugin" "$NCZ_S3_NETCDF" "$@"; }
# h5dump of a store with its name (in the header and in references) replaced by STORE, and
# no line wrapping (names of different length wrap differently).
h5dump_c() {
  local name=${*: -1}
  "$NCBIN/h5dump" -w 0 "$@" | tail -n +2 | perl -pe 'BEGIN { $n = shift } s/\Q$n\E/STORE/g' "$name"
}
status=0

# 1. the connector writes, netCDF-C reads from S3 (the connector creates the bucket)
for cdl in "$here"/../netcdf4/cdl/*.cdl; do
  n=$(basename "$cdl" .cdl)
  ncgen_native "$cdl" "$tmp/$n.nc" || exit 1
  dump_native "$tmp/$n.nc" >"$tmp/$n.native.cdl"
  # netCDF-C takes any URL for its own NCZarr: a netCDF program names its output plainly,
  # and the connector's s3root option puts it in the bucket.
  if [ -z "$NC4_SANITIZED" ]; then
    # shellcheck disable=SC2046
    w=("$NCBIN/ncgen" $(ncgen_args "$cdl") -o "$n" "$cdl")
  else
    w=("$NC4_PROGS/nc4_copy" "$tmp/$n.nc" "$n")
  fi
  if ! HDF5_VOL_CONNECTOR="nczarr s3root=$NCZ_S3_HTTPS_ENDPOINT/$bucket/ours" run_logged "$tmp/w.log" nc_connector "${w[@]}"; then
    echo "FAIL: $n: writing to S3 through the connector"
    status=1
    continue
  fi
  if ! ncs3 "$NCBIN/ncdump" "$(s3 "ours/$n")" >"$tmp/$n.s3.raw" 2>"$tmp/$n.err"; then
    cat "$tmp/$n.err"
    echo "FAIL: $n: netCDF-C's ncdump cannot read the connector's store on S3"
    status=1
    continue
  fi
  normalize_cdl <"$tmp/$n.s3.raw" >"$tmp/$n.s3.cdl"
  if diff -u "$tmp/$n.native.cdl" "$tmp/$n.s3.cdl" >"$tmp/$n.diff"; then
    echo "ok: $n: ncdump of the connector's store on S3 = ncdump of the netCDF-4 file"
  else
    head -n 40 "$tmp/$n.diff"
    echo "FAIL: $n: ncdump of the connector's store on S3 differs"
    status=1
  fi
done

# 2. netCDF-C writes to S3, the connector reads (h5dump), against netCDF-C's local store
for cdl in "$here"/../netcdf4/cdl/*.cdl; do
  n=$(basename "$cdl" .cdl)
  nc_native "$NCBIN/nccopy" "$tmp/$n.nc" "$(store_url "$tmp/$n.local.zarr")"
  if ! ncs3 "$NCBIN/nccopy" "$tmp/$n.nc" "$(s3 "netcdf-c/$n")" >"$tmp/$n.err" 2>&1; then
    cat "$tmp/$n.err"
    echo "FAIL: $n: netCDF-C's nccopy to S3"
    status=1
    continue
  fi
  (cd "$tmp" && h5dump_c "$n.local.zarr") >"$tmp/$n.local.h5" 2>&1 || true
  h5dump_c "$(s3 "netcdf-c/$n")" >"$tmp/$n.s3.h5" 2>&1 || true
  if [ -s "$tmp/$n.s3.h5" ] && diff -u "$tmp/$n.local.h5" "$tmp/$n.s3.h5" >"$tmp/$n.diff"; then
    echo "ok: $n: h5dump of netCDF-C's store on S3 = of its local store"
  else
    head -n 40 "$tmp/$n.diff"
    echo "FAIL: $n: h5dump through the connector of netCDF-C's store on S3 differs"
    status=1
  fi
done

# 3. zarr-python 3 through s3fs, both ways
"$NCZARR_BUILD/examples/write_store" "$(s3 ours/example)" >/dev/null
"$NCZARR_ZARR3_PYTHON" - "$NCZ_S3_HTTPS_ENDPOINT" "$bucket" <<'PY' || { echo "FAIL: zarr-python 3 on S3"; status=1; }
import os, sys
import numpy as np
import s3fs, zarr
endpoint, bucket = sys.argv[1], sys.argv[2]
opts = dict(key=os.environ["AWS_ACCESS_KEY_ID"], secret=os.environ["AWS_SECRET_ACCESS_KEY"],
            client_kwargs={"endpoint_url": endpoint, "region_name": os.environ["AWS_REGION"],
                           "verify": os.environ["AWS_CA_BUNDLE"]})
g = zarr.open_group(f"s3://{bucket}/ours/example", mode="r", zarr_format=2, storage_options=opts)
assert g["temperature"][0, 0] == 270.5, g["temperature"][0, 0]
assert list(g["station/counts"][...]) == [3, 1, 4, 1, 5]
print("ok: zarr-python 3 reads the connector's store on S3")
z = zarr.open_group(f"s3://{bucket}/zarr3", mode="w", zarr_format=2, storage_options=opts)
a = z.create_array("grid", shape=(6, 8), chunks=(3, 4), dtype="<f8")
a[...] = np.arange(48, dtype="<f8").reshape(6, 8) / 4
z.attrs["title"] = "from zarr-python 3"
PY
h5dump_c -d /grid "$(s3 zarr3)" >"$tmp/zarr3.h5" 2>&1 || true
if grep -q "(5,0): 10, 10.25, 10.5, 10.75, 11, 11.25, 11.5, 11.75" "$tmp/zarr3.h5"; then
  echo "ok: the connector reads zarr-python 3's store on S3"
else
  cat "$tmp/zarr3.h5"
  echo "FAIL: h5dump of zarr-python 3's store on S3"
  status=1
fi
[ "$status" -eq 0 ] || { echo "FAIL: connector_interop"; exit 1; }
echo "connector_interop: ok"
