#!/usr/bin/env bash
# The interop writers of the earlier issues, on S3: each HDF5 program (test/interop: every
# atomic and derived type, variable-length sequences, extra hard links, JSON-looking text
# attributes, every codec) writes once to a local directory store and once straight to the
# bucket, and every reader must see the same in both: h5dump through the connector (S3 vs
# local), netCDF-C's ncdump through its own S3 client (https) vs its file reader, and
# zarr-python 3 over s3fs vs on the directory (every array's values, every attribute). What
# each reader must see of the local stores is checked by test/interop's own scripts.
set -euo pipefail
: "${NCZ_S3_ENV:?}" "${NCZARR_BUILD:?}" "${NCZARR_PREFIX:?}" "${NCZARR_ZARR3_PYTHON:?}"
. "$NCZ_S3_ENV"
export AWS_ACCESS_KEY_ID=$NCZ_S3_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$NCZ_S3_SECRET_KEY
export AWS_REGION=$NCZ_S3_REGION AWS_CA_BUNDLE=$NCZ_S3_CA
# botocore 1.36+ sends checksummed chunked uploads that Ceph 16's gateway refuses.
export AWS_REQUEST_CHECKSUM_CALCULATION=when_required AWS_RESPONSE_CHECKSUM_VALIDATION=when_required
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-s3w.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
t=$NCZARR_BUILD/test
bucket=writers-$$-$RANDOM
s3() { echo "$NCZ_S3_HTTPS_ENDPOINT/$bucket/$1#mode=nczarr,s3"; }
nc() { env -u HDF5_VOL_CONNECTOR LD_PRELOAD= HDF5_PLUGIN_PATH="$NCZARR_PREFIX/lib/plugin" "$@"; }
# h5dump with the store's name replaced by STORE and no line wrapping.
dump() {
  "$NCZARR_PREFIX/bin/h5dump" -w 0 "$1" 2>&1 | tail -n +2 | perl -pe 'BEGIN { $n = shift } s/\Q$n\E/STORE/g' "$1"
}
status=0
# name: the command that writes the store given as its last argument is "$@" STORE
cases=(
  "types|$t/interop_writer --types"
  "plain|$t/interop_writer"
  "vlen|$t/interop_vlen_writer"
  "hardlinks|$t/interop_hardlinks_writer"
  "attrs|$t/interop_attr_fidelity"
)
for c in "${cases[@]}"; do
  n=${c%%|*}
  read -r -a cmd <<<"${c#*|}"
  # the program's first argument is the store
  "${cmd[0]}" "$tmp/$n.zarr" "${cmd[@]:1}" >"$tmp/$n.local.log" 2>&1 ||
    { cat "$tmp/$n.local.log"; echo "FAIL: $n: writing the local store"; status=1; continue; }
  # HDF5 falls back to native HDF5 silently when the connector does not load: a file, then
  [ -d "$tmp/$n.zarr" ] || { echo "FAIL: $n: not a directory store: the connector did not load"; exit 1; }
  "${cmd[0]}" "$(s3 "$n")" "${cmd[@]:1}" >"$tmp/$n.s3.log" 2>&1 ||
    { cat "$tmp/$n.s3.log"; echo "FAIL: $n: writing to S3"; status=1; continue; }
  (cd "$tmp" && dump "$n.zarr") >"$tmp/$n.local.h5"
  dump "$(s3 "$n")" >"$tmp/$n.s3.h5"
  if diff -u "$tmp/$n.local.h5" "$tmp/$n.s3.h5" >"$tmp/$n.diff"; then
    echo "ok: $n: h5dump of the store on S3 = of the local store ($(wc -l <"$tmp/$n.s3.h5") lines)"
  else
    head -n 30 "$tmp/$n.diff"
    echo "FAIL: $n: h5dump differs on S3"
    status=1
  fi
  # netCDF-C refuses some of these stores (types it cannot show); it must do the same on S3
  lrc=0 src=0
  nc "$NCZARR_PREFIX/bin/ncdump" "file://$tmp/$n.zarr#mode=nczarr,file" 2>&1 | tail -n +2 >"$tmp/$n.local.cdl" || lrc=$?
  nc "$NCZ_S3_NETCDF" "$NCZARR_PREFIX/bin/ncdump" "$(s3 "$n")" 2>&1 | tail -n +2 >"$tmp/$n.s3.cdl" || src=$?
  if [ "$lrc" = "$src" ] && diff -u "$tmp/$n.local.cdl" "$tmp/$n.s3.cdl" >"$tmp/$n.diff"; then
    echo "ok: $n: netCDF-C's ncdump on S3 = on the local store (exit $src)"
  else
    head -n 30 "$tmp/$n.diff"
    echo "FAIL: $n: netCDF-C's ncdump differs on S3 (exit $lrc local, $src S3)"
    status=1
  fi
  env -u HDF5_VOL_CONNECTOR LD_PRELOAD= timeout 300 "$NCZARR_ZARR3_PYTHON" - "$tmp/$n.zarr" "$NCZ_S3_ENDPOINT" "$bucket" "$n" <<'PY' || { echo "FAIL: $n: zarr-python 3 on S3"; status=1; }
import os, sys, warnings
import s3fs, zarr, zarr.storage
warnings.simplefilter("ignore")
local, endpoint, bucket, key = sys.argv[1:5]
opts = dict(key=os.environ["AWS_ACCESS_KEY_ID"], secret=os.environ["AWS_SECRET_ACCESS_KEY"],
            client_kwargs={"endpoint_url": endpoint, "region_name": os.environ["AWS_REGION"]})
fs = s3fs.S3FileSystem(**opts)
def nodes(keys):
    """(path, kind) of every group and array, from the store's keys."""
    out = []
    for k in keys:
        d, _, leaf = k.rpartition("/")
        if leaf in (".zgroup", ".zarray"):
            out.append((d, leaf))
    return sorted(out)
def content(store, keys):
    out = {}
    for path, kind in nodes(keys):
        # what zarr-python 3 cannot open or read (vlen sequences, say) must fail alike
        try:
            node = (zarr.open_group if kind == ".zgroup" else zarr.open_array)(store=store, path=path, mode="r", zarr_format=2)
            entry = {"attrs": dict(node.attrs)}
            if kind == ".zarray":
                v = node[...]
                entry["data"] = v.tobytes() if v.dtype != object else repr(v.tolist())
        except Exception as e:
            entry = {"error": type(e).__name__}
        out[path] = entry
    return out
lkeys = [os.path.relpath(os.path.join(r, f), local) for r, _, fs_ in os.walk(local) for f in fs_]
skeys = [k[len(f"{bucket}/{key}/"):] for k in fs.find(f"{bucket}/{key}")]
a = content(zarr.storage.LocalStore(local, read_only=True), lkeys)
b = content(zarr.storage.FsspecStore.from_url(f"s3://{bucket}/{key}", storage_options=opts, read_only=True), skeys)
assert a.keys() == b.keys(), f"objects differ: {sorted(set(a) ^ set(b))}"
bad = [p for p in a if a[p] != b[p]]
assert not bad, f"differ on S3: {bad}; first: local {a[bad[0]]!r:.300} S3 {b[bad[0]]!r:.300}"
print(f"ok: {key}: zarr-python 3 on S3 = on the local store ({len(a)} objects)")
PY
done
# every codec, written by the codecs writer (its second argument is a folder for raw data)
mkdir -p "$tmp/raw1" "$tmp/raw2"
"$t/interop_codecs_writer" "$tmp/codecs.zarr" "$tmp/raw1" >/dev/null 2>&1 && "$t/interop_codecs_writer" "$(s3 codecs)" "$tmp/raw2" >"$tmp/codecs.log" 2>&1 ||
  { cat "$tmp/codecs.log"; echo "FAIL: codecs: writing"; status=1; }
(cd "$tmp" && dump codecs.zarr) >"$tmp/codecs.local.h5"
dump "$(s3 codecs)" >"$tmp/codecs.s3.h5"
if diff -u "$tmp/codecs.local.h5" "$tmp/codecs.s3.h5" >"$tmp/codecs.diff"; then
  echo "ok: codecs: h5dump of the store on S3 = of the local store"
else
  head -n 30 "$tmp/codecs.diff"
  echo "FAIL: codecs: h5dump differs on S3"
  status=1
fi
[ "$status" -eq 0 ] || { echo "FAIL: writers_s3"; exit 1; }
echo "writers_s3: ok"
