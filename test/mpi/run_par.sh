#!/usr/bin/env bash
# run_par.sh PROGRAM WHERE [RANKS]: an MPI program of test/mpi run on RANKS ranks (4 by
# default, oversubscribed on any number of cores) and on one, through the connector, into a
# directory (WHERE=dir) or a bucket of the S3 test server (WHERE=s3). The two outputs must be
# equal for h5diff (through the connector), for netCDF-C's own NCZarr reader (ncdump) and for
# zarr-python 3; a netCDF program's output must also be what ncdump shows of the same program
# run natively (a netCDF-4 file written with MPI-IO).
set -euo pipefail
: "${NCZARR_BUILD:?}" "${NCZARR_PREFIX:?}" "${NCZARR_ZARR3_PYTHON:?}" "${HDF5_VOL_CONNECTOR:?}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../common/judge.sh"
. "$here/mpi_lib.sh"
prog=$NCZARR_BUILD/test/mpi/${1:?usage: run_par.sh PROGRAM dir|s3 [RANKS]}
where=${2:?usage: run_par.sh PROGRAM dir|s3 [RANKS]}
n=${3:-4}
[ -x "$prog" ] || { echo "FAIL: $prog was not built"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-mpi.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
name=${prog##*/}

if [ "$where" = s3 ]; then
  : "${NCZ_S3_ENV:?}"
  . "$here/../s3/s3_common.sh"
  bucket=mpi-${name//_/-}-$$-$RANDOM
  s3_make_bucket "$bucket"
  one="$NCZ_S3_ENDPOINT/$bucket/one#mode=nczarr,s3" many="$NCZ_S3_ENDPOINT/$bucket/many#mode=nczarr,s3"
  zone=s3://$bucket/one zmany=s3://$bucket/many
  ncone="$NCZ_S3_HTTPS_ENDPOINT/$bucket/one#mode=nczarr,s3" ncmany="$NCZ_S3_HTTPS_ENDPOINT/$bucket/many#mode=nczarr,s3"
  ncdump_of() { nc_native "$NCZ_S3_NETCDF" "$NCZARR_PREFIX/bin/ncdump" "$1" | tail -n +2; }
  # netCDF-C takes a URL for its own NCZarr: a netCDF program names a plain path, which the
  # connector's s3root option puts in the bucket
  if [ "$name" = nc_par ]; then
    export HDF5_VOL_CONNECTOR="nczarr s3root=$NCZ_S3_ENDPOINT/$bucket"
    pone=one pmany=many reopen=--no-reopen
  fi
else
  one=$tmp/one.zarr many=$tmp/many.zarr zone=$one zmany=$many ncone=$(store_url "$one") ncmany=$(store_url "$many")
  ncdump_of() { nc_native "$NCZARR_PREFIX/bin/ncdump" "$1" | tail -n +2; }
fi

mpi_run 1 "$tmp/one.log" "$prog" "${pone:-$one}" ${reopen:-} || { echo "FAIL: $name on one rank"; exit 1; }
mpi_run "$n" "$tmp/many.log" "$prog" "${pmany:-$many}" ${reopen:-} || { echo "FAIL: $name on $n ranks"; exit 1; }
[ "$where" = s3 ] || { assert_store "$one" "$name (1 rank)" && assert_store "$many" "$name ($n ranks)"; }
status=0

# h5diff through the connector: no difference, and nothing it could not compare. (h5diff reads
# a fixed-length string attribute with strlen, past its end when it has no NUL, as netCDF's
# text attributes have not: HDF5's tools bug, which the preloaded AddressSanitizer would stop
# at in the sanitizer builds, so its strlen check is off for h5diff.)
if ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}intercept_strlen=0" \
   "$NCZARR_PREFIX/bin/h5diff" -c "$one" "$many" >"$tmp/h5diff.txt" 2>&1 &&
   ! grep -q "not comparable" "$tmp/h5diff.txt"; then
  echo "ok: h5diff finds no difference between 1 and $n ranks"
else
  sed 's/^/    | /' "$tmp/h5diff.txt"; echo "FAIL: h5diff: the outputs of 1 and $n ranks differ"; status=1
fi

# netCDF-C's own NCZarr reader
if ncdump_of "$ncone" >"$tmp/one.cdl" 2>"$tmp/nc1.err" && ncdump_of "$ncmany" >"$tmp/many.cdl" 2>"$tmp/nc4.err"; then
  if diff -u "$tmp/one.cdl" "$tmp/many.cdl"; then
    echo "ok: ncdump shows the same store for 1 and $n ranks ($(wc -l <"$tmp/one.cdl") lines)"
  else
    echo "FAIL: ncdump: the outputs of 1 and $n ranks differ"; status=1
  fi
else
  cat "$tmp/nc1.err" "$tmp/nc4.err"; echo "FAIL: netCDF-C's ncdump cannot read the stores"; status=1
fi

# zarr-python 3
if env -u HDF5_VOL_CONNECTOR LD_PRELOAD= "$NCZARR_ZARR3_PYTHON" "$here/compare_stores.py" "$zone" "$zmany"; then
  echo "ok: zarr-python 3 reads the same store for 1 and $n ranks"
else
  echo "FAIL: zarr-python 3: the outputs of 1 and $n ranks differ"; status=1
fi

# a netCDF program: natively too (parallel netCDF-4 into one file), the same ncdump
if [ "$name" = nc_par ]; then
  if mpi_run_native "$n" "$tmp/native.log" "$prog" "$tmp/native.nc"; then
    nc_native "$NCZARR_PREFIX/bin/ncdump" "$tmp/native.nc" | tail -n +2 >"$tmp/native.cdl"
    if diff -u "$tmp/native.cdl" "$tmp/many.cdl"; then
      echo "ok: ncdump of the store ($n ranks) = ncdump of the native parallel netCDF-4 file"
    else
      echo "FAIL: the store differs from the native parallel netCDF-4 file"; status=1
    fi
  else
    echo "FAIL: $name natively on $n ranks"; status=1
  fi
fi
[ "$status" -eq 0 ] || exit 1
echo "run_par $name $where: ok"
