/* Fuzz target (c): NCZarr attribute JSON to HDF5 values (translate/types), for every type
 * the connector knows, the way the loader (translate/store/ncztr_loadattrs.c) calls it. The
 * input is three lines and the value:
 *   line 1: the attribute's entry in "_nczarr_attr.types" (JSON: "<i4", ">S1", "|J0", ...;
 *           empty: none, as pure Zarr has)
 *   line 2: its entry in "_nczarr_attr.hdf5.atypes" (Base64 of an encoded HDF5 type: an
 *           enum, compound, array, 16-bit float, string, or a type holding references;
 *           empty: none)
 *   line 3: its entry in "_nczarr_attr.hdf5.ashapes" (JSON; [] says scalar; empty: none)
 *   then the attribute's value in .zattrs (any JSON, to the end of the input).
 * A value that decodes is encoded again (what saving the attributes does), copied and
 * freed. */
#include "ncztr_refval.h"
#include "ncztr_types.h"

#include <hdf5.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME "fuzz_attr"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (H5open() < 0)
        abort();
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    return 0;
}

/* The next line of the input (without its newline), as a NUL-terminated copy. */
static char *fuzz_line(const uint8_t **p, const uint8_t *end)
{
    const uint8_t *nl = memchr(*p, '\n', (size_t)(end - *p));
    const uint8_t *stop = nl ? nl : end;
    char *s = strndup((const char *)*p, (size_t)(stop - *p));
    *p = nl ? nl + 1 : end;
    return s;
}

/* As the loader's: a reference's path names an object when it is absolute (ids made from
 * the path's length, any will do). */
static herr_t fuzz_ref_id(void *ctx, const char *path, uint64_t *id)
{
    (void)ctx;
    if (path[0] != '/')
        return NCZ_PUSH(NCZ_E_NOTFOUND, "a reference names \"%s\", which is no object", path);
    *id = strlen(path) + 1;
    return SUCCEED;
}

static herr_t fuzz_ref_path(void *ctx, uint64_t id, char **path)
{
    (void)ctx;
    *path = NULL;
    if (id == 0)
        return SUCCEED;
    char buf[32];
    snprintf(buf, sizeof buf, "/obj%llu", (unsigned long long)id);
    *path = strdup(buf);
    return *path ? SUCCEED : FAIL;
}

/* What saving does with a value that loaded: encoded again, and copied (the model copies
 * values it hands out). */
static void fuzz_reencode(ncztr_attrval *v)
{
    json_t *j = NULL;
    char dtype[NCZTR_DTYPE_MAX];
    ncztr_attrval_note_parts(v);
    if (ncztr_cattr_is_special(v->type))
        ncztr_cattr_to_json(NAME, v, &j, dtype);
    else
        ncztr_attr_to_json(NAME, v, &j, dtype);
    char *text = j ? ncztr_json_dump(j) : NULL;
    free(text);
    json_decref(j);
    ncztr_attrval cp;
    ncztr_attrval_init(&cp);
    if (ncztr_attrval_copy(v, &cp) >= 0)
        ncztr_attrval_clear(&cp);
    ncztr_attr_default_scalar(v->type, true);
    ncztr_attr_default_scalar(v->type, false);
}

/* A kept type holding references: its value read with paths made ids, and written back. */
static void fuzz_refs(hid_t kept, json_t *val, const json_t *ashape)
{
    hid_t t = ncztr_reftype_rebuild(kept);
    if (t < 0)
        return;
    bool scalar = ncztr_reftype_elem_is_list(t) ? json_is_array(ashape) && json_array_size(ashape) == 0
                                                : !json_is_array(val);
    size_t n = scalar ? 1 : json_array_size(val);
    void *data = NULL;
    if ((scalar || json_is_array(val)) &&
        ncztr_refattr_from_json(NAME, val, scalar, t, n, fuzz_ref_id, NULL, &data) >= 0) {
        hsize_t dim = n;
        ncztr_attrval v = {.type = t, .nelem = n, .data = data};
        v.space = scalar ? H5Screate(H5S_SCALAR) : n ? H5Screate_simple(1, &dim, NULL) : H5Screate(H5S_NULL);
        json_t *j = NULL;
        char dtype[NCZTR_DTYPE_MAX];
        if (v.space >= 0 && ncztr_refattr_to_json(NAME, &v, fuzz_ref_path, NULL, &j, dtype) >= 0)
            json_decref(j);
        if (v.space >= 0)
            H5Sclose(v.space);
        ncztr_refval_free(t, data, n);
        free(data);
    }
    H5Tclose(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *p = data, *end = data + size;
    char *tline = fuzz_line(&p, end), *aline = fuzz_line(&p, end), *sline = fuzz_line(&p, end);
    json_error_t jerr;
    json_t *type =
        tline && *tline ? ncztr_json_parse_text(tline, strlen(tline), JSON_DECODE_ANY, &jerr) : NULL;
    json_t *ashape =
        sline && *sline ? ncztr_json_parse_text(sline, strlen(sline), JSON_DECODE_ANY, &jerr) : NULL;
    json_t *val = ncztr_json_parse_text((const char *)p, (size_t)(end - p), JSON_DECODE_ANY, &jerr);
    if (!tline || !aline || !sline || !val)
        goto done;

    ncztr_attrval v;
    ncztr_attrval_init(&v);
    herr_t got = FAIL;
    if (*aline) {
        /* the loader's order: references, then enum/compound/array, then kept strings */
        hid_t t = ncztr_type_decode(aline, NAME);
        if (t >= 0 && ncztr_type_has_path_ref(t)) {
            fuzz_refs(t, val, ashape);
        } else if (t >= 0 && ncztr_cattr_is_special(t)) {
            got = ncztr_cattr_from_json(NAME, val, t, json_is_array(ashape) && json_array_size(ashape) == 0,
                                        &v);
        } else if (t >= 0 && H5Tget_class(t) == H5T_STRING) {
            got = ncztr_attr_decode(NAME, val, type, &v);
        }
        if (t >= 0)
            H5Tclose(t);
        H5Eclear2(H5E_DEFAULT);
    }
    if (got < 0)
        got = ncztr_attr_decode(NAME, val, type, &v);
    if (got >= 0)
        fuzz_reencode(&v);
    ncztr_attrval_clear(&v);
    /* the dtype taken as it is, without the entry's checks */
    if (json_is_string(type) || !type) {
        ncztr_attrval_init(&v);
        if (ncztr_attr_from_json(NAME, val, type ? json_string_value(type) : NULL, &v) >= 0)
            fuzz_reencode(&v);
        ncztr_attrval_clear(&v);
    }
done:
    json_decref(type);
    json_decref(ashape);
    json_decref(val);
    free(tline);
    free(aline);
    free(sline);
    H5Eclear2(H5E_DEFAULT);
    return 0;
}
