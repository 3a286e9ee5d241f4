/* Fuzz target (d): data types and fill values in every spelling the connector reads
 * (translate/types: ncztr_dtype.c, ncztr_fill.c, ncztr_ctype.c, ncztr_typecode.c), and the
 * whole array metadata they come in (translate/format: a v2 .zarray, a v3 zarr.json). The
 * input's first line says what the rest is:
 *   "zarray"  the text of a .zarray (ncztr_zarray_parse)
 *   "zarr3"   the text of an array's zarr.json (ncztr_zarr3_array_from_json)
 *   "dtype"   a Zarr v2 dtype string, a newline, a fill value (JSON)
 *   "struct"  a structured dtype (a JSON list of fields), a newline, one element's value as
 *             JSON (ncztr_celem_from_json), as a compound attribute would hold it
 *   "htype"   Base64 of an encoded HDF5 type, as "_nczarr_array.hdf5" keeps it
 * Whatever parses is turned back the way a writer would (dump, HDF5 type, fill value, the
 * other Zarr version's metadata), then freed. */
#include "ncztr_format.h"
#include "ncztr_refval.h"
#include "ncztr_types.h"

#include <hdf5.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define WHAT "fuzz"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (H5open() < 0)
        abort();
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    return 0;
}

/* An HDF5 type as the connector would store it again: its packed storage type, its
 * structured dtype or dtype, and its encoding. */
static void fuzz_htype(hid_t t)
{
    hid_t st = ncztr_ctype_storage(t, WHAT);
    if (st >= 0)
        H5Tclose(st);
    if (H5Tget_class(t) == H5T_COMPOUND || H5Tget_class(t) == H5T_ARRAY) {
        json_t *list = ncztr_struct_from_hdf5(t, WHAT);
        char *text = list ? ncztr_json_dump(list) : NULL;
        free(text);
        json_decref(list);
    } else {
        ncztr_dtype dt;
        ncztr_dtype_from_hdf5(t, 0, WHAT, &dt);
    }
    char *b64 = ncztr_type_encode(t, WHAT);
    hid_t back = b64 ? ncztr_type_decode(b64, WHAT) : H5I_INVALID_HID;
    if (back >= 0)
        H5Tclose(back);
    free(b64);
    ncztr_cvalue_check(t, WHAT);
}

/* One element of type t from JSON and back (the value of a compound attribute or fill). */
static void fuzz_elem(hid_t t, const json_t *j)
{
    size_t sz = H5Tget_size(t);
    if (sz == 0 || sz > ((size_t)64 << 20))
        return;
    unsigned char *elem = calloc(1, sz);
    if (elem && ncztr_celem_from_json(t, j, elem, WHAT) >= 0) {
        json_t *back = ncztr_celem_to_json(t, elem, WHAT);
        json_decref(back);
    }
    /* the parts made before a failure are the caller's too (as ncztr_vlen.c frees them) */
    if (elem)
        ncztr_refval_free(t, elem, 1);
    free(elem);
}

/* A parsed array's metadata written back as both versions spell it. */
static void fuzz_zarray_out(const ncztr_zarray *za)
{
    char *text = ncztr_zarray_dump(za);
    free(text);
    /* v3's metadata (of a v2 array too: its codecs missing, it fails, freeing all it made) */
    if (ncztr_zarr3_check_dtype(WHAT, za) >= 0) {
        json_t *j = ncztr_zarr3_node_json(WHAT, za, NULL);
        text = j ? ncztr_json_dump(j) : NULL;
        free(text);
        json_decref(j);
    }
    if (za->dtype.tclass == NCZTR_T_STRUCT && za->structured) {
        hid_t t = ncztr_struct_to_hdf5(za->structured, WHAT);
        if (t >= 0) {
            fuzz_htype(t);
            H5Tclose(t);
        }
    } else if (za->dtype.tclass != NCZTR_T_VLEN) {
        hid_t t = ncztr_dtype_to_hdf5(&za->dtype);
        if (t >= 0)
            H5Tclose(t);
        json_t *f = ncztr_fill_to_json(&za->dtype, za->has_fill ? za->fill : NULL);
        json_decref(f);
    }
    uint64_t idx[NCZTR_MAX_RANK];
    for (int k = 0; k < za->rank; k++)
        idx[k] = za->chunks[k] ? (za->shape[k] + za->chunks[k] - 1) / za->chunks[k] : 0;
    char *key = ncztr_chunk_key_at("a/b", za->rank, za->dimsep, za->chunk_c, idx);
    free(key);
}

/* A dtype string and a fill value for it. */
static void fuzz_dtype_fill(const char *dtext, json_t *fillj)
{
    ncztr_dtype dt;
    if (ncztr_dtype_parse(dtext, WHAT, &dt) < 0)
        return;
    hid_t t = ncztr_dtype_to_hdf5(&dt);
    if (t >= 0) {
        ncztr_dtype back;
        ncztr_dtype_from_hdf5(t, 0, WHAT, &back);
        H5Tclose(t);
    }
    unsigned char *fill = calloc(1, dt.size ? dt.size : 1);
    int has = 0;
    if (fill && fillj && ncztr_fill_from_json(&dt, fillj, WHAT, fill, &has) >= 0) {
        json_t *out = ncztr_fill_to_json(&dt, has ? fill : NULL);
        json_decref(out);
        if (has && (dt.tclass == NCZTR_T_INT || dt.tclass == NCZTR_T_UINT || dt.tclass == NCZTR_T_FLOAT)) {
            json_t *e = ncztr_json_from_elem(&dt, fill, WHAT);
            if (e)
                ncztr_json_to_elem(&dt, e, WHAT, fill);
            json_decref(e);
        }
    }
    if (fill && fillj &&
        (dt.tclass == NCZTR_T_INT || dt.tclass == NCZTR_T_UINT || dt.tclass == NCZTR_T_FLOAT))
        ncztr_json_to_elem(&dt, fillj, WHAT, fill);
    free(fill);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size);
    if (!nl)
        return 0;
    size_t hl = (size_t)(nl - data);
    const char *rest = (const char *)nl + 1;
    size_t rlen = size - hl - 1;
    char *text = strndup(rest, rlen); /* a NUL-terminated copy, as the store hands text over */
    if (!text)
        return 0;
    json_error_t jerr;
    if (hl == 6 && !memcmp(data, "zarray", 6)) {
        ncztr_zarray za;
        if (ncztr_zarray_parse(".zarray", text, strlen(text), &za) >= 0)
            fuzz_zarray_out(&za);
        ncztr_zarray_clear(&za);
    } else if (hl == 5 && !memcmp(data, "zarr3", 5)) {
        json_t *root = ncztr_json_parse_object("zarr.json", text, strlen(text));
        ncztr_zarray za;
        memset(&za, 0, sizeof za);
        if (root && ncztr_zarr3_array_from_json("zarr.json", root, &za) >= 0)
            fuzz_zarray_out(&za);
        ncztr_zarray_clear(&za);
        json_decref(root);
    } else if ((hl == 5 && !memcmp(data, "dtype", 5)) || (hl == 6 && !memcmp(data, "struct", 6))) {
        char *nl2 = strchr(text, '\n');
        if (nl2)
            *nl2 = '\0';
        json_t *valj = nl2 ? ncztr_json_parse_text(nl2 + 1, strlen(nl2 + 1), JSON_DECODE_ANY, &jerr) : NULL;
        if (hl == 5) {
            fuzz_dtype_fill(text, valj);
        } else {
            json_t *list = ncztr_json_parse_text(text, strlen(text), JSON_DECODE_ANY, &jerr);
            hid_t t = list ? ncztr_struct_to_hdf5(list, WHAT) : H5I_INVALID_HID;
            if (t >= 0) {
                fuzz_htype(t);
                if (valj)
                    fuzz_elem(t, valj);
                H5Tclose(t);
            }
            json_decref(list);
        }
        json_decref(valj);
    } else if (hl == 5 && !memcmp(data, "htype", 5)) {
        char *nl2 = strchr(text, '\n');
        if (nl2)
            *nl2 = '\0';
        hid_t t = ncztr_type_decode(text, WHAT);
        if (t >= 0) {
            fuzz_htype(t);
            json_t *valj =
                nl2 ? ncztr_json_parse_text(nl2 + 1, strlen(nl2 + 1), JSON_DECODE_ANY, &jerr) : NULL;
            if (valj && ncztr_cvalue_check(t, WHAT) >= 0)
                fuzz_elem(t, valj);
            json_decref(valj);
            H5Tclose(t);
        }
    }
    free(text);
    H5Eclear2(H5E_DEFAULT);
    return 0;
}
