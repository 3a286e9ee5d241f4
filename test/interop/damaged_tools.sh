#!/usr/bin/env bash
# h5dump and h5ls on damaged stores: a chunk that is a symbolic link to a file outside
# the store, and a zip archive whose chunk does not match its CRC-32. Neither tool may show
# the outside file's values or the damaged bytes, crash or hang; h5dump fails, and with
# --enable-error-stack both show the connector's message naming the chunk.
set -euo pipefail
: "${NCZARR_BUILD:?}" "${NCZARR_PREFIX:?}"
. "$(cd "$(dirname "$0")" && pwd)/../common/judge.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-damaged.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3
h5dump="$NCZARR_PREFIX/bin/h5dump"
h5ls="$NCZARR_PREFIX/bin/h5ls"

# runs a tool with a time limit; sets rc, output in $tmp/out.txt
run() {
  set +e
  timeout 120 "$@" >"$tmp/out.txt" 2>&1
  rc=$?
  set -e
  if [ "$rc" -ge 124 ]; then
    echo "FAIL: $* crashed or hung (exit $rc):"; tail -n 30 "$tmp/out.txt"; exit 1
  fi
}
must_have() {
  grep -qF -- "$1" "$tmp/out.txt" || { echo "FAIL: $2: output lacks \"$1\":"; cat "$tmp/out.txt"; exit 1; }
}
must_not_have() {
  if grep -qF -- "$1" "$tmp/out.txt"; then echo "FAIL: $2: output shows \"$1\":"; cat "$tmp/out.txt"; exit 1; fi
}

# A directory store whose chunk temperature/0.0 (2x3 float32) is a link to an outside file
# of the same size holding 12345.0 six times.
store="$tmp/linked.zarr"
"$NCZARR_BUILD/examples/write_store" "$store" >/dev/null
assert_store "$store" "damaged_tools" || exit 1
$py -c 'import struct,sys; open(sys.argv[1],"wb").write(struct.pack("<6f",*[12345.0]*6))' "$tmp/secret.bin"
rm "$store/temperature/0.0"
ln -s "$tmp/secret.bin" "$store/temperature/0.0"

run "$h5dump" "$store"
[ "$rc" -ne 0 ] || { echo "FAIL: h5dump of a store with a linked chunk succeeded:"; cat "$tmp/out.txt"; exit 1; }
must_not_have 12345 "h5dump, linked chunk"
run "$h5dump" --enable-error-stack "$store"
must_have "NCZarr VOL" "h5dump --enable-error-stack, linked chunk"
must_have '"temperature/0.0": the key is, or passes through, a symbolic link' "h5dump, linked chunk"
must_not_have 12345 "h5dump --enable-error-stack, linked chunk"
# h5ls reports data it cannot print but exits 0 (its own policy)
run "$h5ls" -rd "$store"
must_have "Unable to print data" "h5ls -rd, linked chunk"
must_not_have 12345 "h5ls -rd, linked chunk"
run "$h5ls" --enable-error-stack -rd "$store"
must_have "symbolic link" "h5ls --enable-error-stack -rd, linked chunk"
# the other dataset is still listed and read
must_have "3, 1, 4, 1, 5" "h5ls -rd, linked chunk: the other dataset"
echo "linked chunk: ok"

# A zip archive whose chunk temperature/0.0 has one byte changed after it was written.
zip="$tmp/crc.zip"
"$NCZARR_BUILD/examples/write_store" "$zip" >/dev/null
$py - "$zip" <<'EOF'
import struct, sys, zipfile
path = sys.argv[1]
with zipfile.ZipFile(path) as z:
    info = z.getinfo("crc/temperature/0.0")
    assert info.compress_type == zipfile.ZIP_STORED
data = bytearray(open(path, "rb").read())
h = info.header_offset
n, x = struct.unpack("<HH", data[h + 26:h + 30])
data[h + 30 + n + x] ^= 0xFF
open(path, "wb").write(data)
EOF
run "$h5dump" "$zip"
[ "$rc" -ne 0 ] || { echo "FAIL: h5dump of a zip with a damaged chunk succeeded:"; cat "$tmp/out.txt"; exit 1; }
run "$h5dump" --enable-error-stack "$zip"
must_have "NCZarr VOL" "h5dump --enable-error-stack, zip CRC"
must_have '"temperature/0.0": its data does not match the CRC-32' "h5dump, zip CRC"
run "$h5ls" --enable-error-stack -rd "$zip"
must_have "Unable to print data" "h5ls -rd, zip CRC"
must_have "CRC-32" "h5ls --enable-error-stack -rd, zip CRC"
echo "zip CRC: ok"
