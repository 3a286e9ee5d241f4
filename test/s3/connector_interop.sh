#!/usr/bin/env bash
# The connector on S3 (the RGW test server, https), judged by the real tools:
# 1. every CDL of the netCDF-4 corpus (test/netcdf4/cdl) written through the connector
#    straight to the bucket (ncgen -4; nc4_copy of the native file in sanitizer builds; the
#    option s3root maps their plain output names into the bucket) reads in netCDF-C's own
#    S3 client exactly as its netCDF-4 file reads natively;
# 2. netCDF-C writes the same CDLs to the bucket (nccopy), and the connector reads each
#    store on S3: h5dump shows the netCDF-4 file's dimension scales (compare_scales) and
#    its data and attribute values (compare_h5dump_data; netcdf_c_store_skips names what
#    netCDF-C's writer does not keep);
# 3. zarr-python 3 (s3fs) reads the values of the native file in a store the connector
#    wrote to the bucket, and the connector reads a store zarr-python 3 wrote there with
#    the values and attributes zarr-python reads in the same objects (s3_compare_values).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../netcdf4/nc4_lib.sh"
: "${NCZ_S3_ENV:?}" "${NCZARR_ZARR3_PYTHON:?}"
# the server's settings, the AWS variables, s3_fetch and s3_compare_values
. "$here/s3_common.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-s3i.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
bucket=interop-$$-$RANDOM
s3() { echo "$NCZ_S3_HTTPS_ENDPOINT/$bucket/$1#mode=nczarr,s3"; }
ncs3() { env -u HDF5_VOL_CONNECTOR LD_PRELOAD= HDF5_PLUGIN_PATH="$NCZARR_PREFIX/lib/plugin" "$NCZ_S3_NETCDF" "$@"; }
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

# 2. netCDF-C writes to S3, the connector reads (h5dump): the netCDF-4 file's scales and values
for cdl in "$here"/../netcdf4/cdl/*.cdl; do
  n=$(basename "$cdl" .cdl)
  if ! ncs3 "$NCBIN/nccopy" "$tmp/$n.nc" "$(s3 "netcdf-c/$n.zarr")" >"$tmp/$n.err" 2>&1; then
    cat "$tmp/$n.err"
    echo "FAIL: $n: netCDF-C's nccopy to S3"
    status=1
    continue
  fi
  compare_scales "$tmp/$n.nc" "$(s3 "netcdf-c/$n.zarr")" "$n: netCDF-C's store on S3" || status=1
  # shellcheck disable=SC2046
  compare_h5dump_data "$tmp/$n.nc" "$(s3 "netcdf-c/$n.zarr")" "$n: netCDF-C's store on S3" \
    $(netcdf_c_store_skips "$n") || status=1
done

# 3. zarr-python 3 through s3fs, both ways
"$NCZARR_BUILD/examples/write_store" "$(s3 ours/example)" >/dev/null
env -u HDF5_VOL_CONNECTOR -u HDF5_PLUGIN_PATH LD_PRELOAD= "$NCZARR_BUILD/examples/write_store" "$tmp/example.h5"
compare_values "$tmp/example.h5" "s3://$bucket/ours/example" "examples/write_store on S3" \
  --python "$NCZARR_ZARR3_PYTHON" --storage-options "$(s3_storage_options)" || status=1
nc_native "$NCZARR_ZARR3_PYTHON" - "$bucket" "$(s3_storage_options)" <<'PY' || { echo "FAIL: zarr-python 3 writing to S3"; status=1; }
import json, sys
import numpy as np
import zarr
bucket, opts = sys.argv[1], json.loads(sys.argv[2])
z = zarr.open_group(f"s3://{bucket}/zarr3", mode="w", zarr_format=2, storage_options=opts)
a = z.create_array("grid", shape=(6, 8), chunks=(3, 4), dtype="<f8", fill_value=-1.0)
a[...] = np.arange(48, dtype="<f8").reshape(6, 8) / 4
b = z.create_group("sub").create_array("ints", shape=(5,), chunks=(2,), dtype="<i2", fill_value=0)
b[:3] = [7, -8, 9]  # chunk 2 never written: fill
z.attrs["title"] = "from zarr-python 3"
b.attrs["units"] = "m"
PY
s3_compare_values "$(s3 zarr3)" "$bucket/zarr3" "zarr-python 3's store on S3" || status=1
[ "$status" -eq 0 ] || { echo "FAIL: connector_interop"; exit 1; }
echo "connector_interop: ok"
