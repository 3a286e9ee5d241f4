#!/usr/bin/env bash
# Seeds of fuzz_zip: zip stores as the connector writes them (the examples' and tests'
# writers under each connector option that changes what goes into the archive), the zip
# samples of test/data (netCDF-C's folder layout, zarr-python's root layout), and small
# archives made here with Python's zipfile for what the writers never make: zip64 records,
# deflated and stored entries, data descriptors, no directory entries, a renamed top
# folder, a comment ending in "rw" (fuzz_zip then writes the archive too).
#   test/fuzz/seeds_zip.sh OUT_DIR [BUILD_DIR]
# Then minimise into the corpus:
#   build-fuzz/test/fuzz/fuzz_zip -merge=1 test/fuzz/corpus/zip OUT_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: seeds_zip.sh OUT_DIR [BUILD_DIR]}
build=${2:-$root/build}
mkdir -p "$out"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-seeds-zip.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export HDF5_PLUGIN_PATH="$build/vol_connector"
n=0
# fuzz_zip opens its input as store.zip: the folder layout's folder is "store/"
write() { # write OPTIONS WRITER [ARGS...]
  local opts=$1; shift
  n=$((n + 1))
  mkdir -p "$tmp/$n"
  if HDF5_VOL_CONNECTOR="nczarr zip $opts" "$@" "$tmp/$n/store.zip" >/dev/null 2>&1 && [ -f "$tmp/$n/store.zip" ]; then
    cp "$tmp/$n/store.zip" "$out/writer-$n.zip"
  else
    echo "seeds_zip: skipped ($opts) $*" >&2
  fi
}
for opts in "" "mode=zarr" "consolidated" "zip-root" "v3" "v3 shards=2" "noxarray ascii-json"; do
  write "$opts" "$build/examples/write_store"
done
for opts in "" "v3" "consolidated zip-root"; do
  write "$opts" "$build/test/interop_writer"
done
for f in "$root"/test/data/netcdf-c-*/*.zip "$root"/test/data/zarr-python/*.zip; do
  [ -f "$f" ] && cp "$f" "$out/sample-$(basename "$f")"
done
python3 - "$out" <<'PY'
import io, sys, zipfile
out = sys.argv[1]
meta = {".zgroup": b'{"zarr_format": 2}', ".zattrs": b'{"title": "t"}',
        "a/.zarray": b'{"chunks":[2],"compressor":null,"dtype":"<i4","fill_value":0,"filters":null,'
                     b'"order":"C","shape":[4],"zarr_format":2}',
        "a/0": b"\x01\x00\x00\x00\x02\x00\x00\x00", "a/1": b"\x03\x00\x00\x00\x04\x00\x00\x00"}
def make(name, folder="store/", method=zipfile.ZIP_STORED, dirs=True, zip64=False, comment=b"",
         stream=False):
    buf = io.BytesIO()
    # a stream (no seeking) makes zipfile write data descriptors after each entry
    class Stream(io.RawIOBase):
        def writable(self): return True
        def write(self, b): return buf.write(b)
    with zipfile.ZipFile(Stream() if stream else buf, "w", method) as z:
        if dirs and folder:
            z.writestr(zipfile.ZipInfo(folder), b"")
        for k, v in meta.items():
            if dirs and "/" in k:
                d = folder + k.rsplit("/", 1)[0] + "/"
                if d not in z.namelist():
                    z.writestr(zipfile.ZipInfo(d), b"")
            with z.open(zipfile.ZipInfo(folder + k), "w", force_zip64=zip64) as f:
                f.write(v)
        z.comment = comment
    open(f"{out}/{name}.zip", "wb").write(buf.getvalue())
make("made-stored")
make("made-deflated", method=zipfile.ZIP_DEFLATED)
make("made-zip64", zip64=True)
make("made-root", folder="", dirs=False)
make("made-nodirs", dirs=False)
make("made-renamed", folder="other.nczarr/")
make("made-stream", stream=True, method=zipfile.ZIP_DEFLATED)
make("made-rw", comment=b"rw")
make("made-rw-root", folder="", dirs=False, comment=b"fuzz rw")
PY
echo "seeds_zip: $(ls "$out" | wc -l) seeds in $out" >&2
