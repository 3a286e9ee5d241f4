#!/bin/sh
# check_callbacks.sh FILE: every callback of the connector's class struct (H5VL_nczarr_g in
# FILE, vol_connector/H5VL_nczarr.c) goes through its wrapper, H5VL_nczarr_cb_* (made by
# H5VL_nczarr_wrap.c from H5VL_nczarr_wrap.def), which keeps the connector's error messages
# from being cleared by HDF5 calls during cleanup. Exceptions, by name: the connector info
# callbacks (no object, no error stack of their own) and initialize/terminate.
# Fails when the file or the struct is missing, or when the struct holds too few wrapped
# callbacks to be the real one.
f=${1:?usage: check_callbacks.sh vol_connector/H5VL_nczarr.c}
[ -f "$f" ] || { echo "FAIL: $f does not exist"; exit 1; }
struct=$(sed -n '/^const H5VL_class_t H5VL_nczarr_g = {$/,/^};$/p' "$f")
[ -n "$struct" ] || { echo "FAIL: no 'const H5VL_class_t H5VL_nczarr_g = {' ... '};' in $f"; exit 1; }
# every ".member = identifier" whose identifier is a function (not NULL, not a MACRO)
values=$(printf '%s\n' "$struct" | sed -n 's/^ *\.[a-z_]* = \([A-Za-z_][A-Za-z0-9_]*\),\{0,1\}$/\1/p' |
  grep -v '^[A-Z0-9_]*$')
wrapped=$(printf '%s\n' "$values" | grep -c '^H5VL_nczarr_cb_')
bad=$(printf '%s\n' "$values" | grep -v '^H5VL_nczarr_cb_' |
  grep -vxE 'H5VL_nczarr_info_(copy|cmp|free|to_str)|H5VL_nczarr_str_to_info|nczarr_(initialize|terminate)')
if [ -n "$bad" ]; then
  echo "FAIL: callbacks of H5VL_nczarr_g that are not wrapped (H5VL_nczarr_cb_*):"
  printf '    %s\n' $bad
  exit 1
fi
# 59 wrapped callbacks today (attr, dataset, datatype, file, group, link, object,
# introspect, blob, token, wrap): a struct with far fewer is not the connector's.
[ "$wrapped" -ge 50 ] || { echo "FAIL: only $wrapped wrapped callbacks in H5VL_nczarr_g"; exit 1; }
echo "ok: $wrapped callbacks wrapped, the rest named exceptions"
