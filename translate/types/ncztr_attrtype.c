/* An attribute's entry in "_nczarr_attr.types" checked against its .zattrs value before
 * the value is decoded with it (see ncztr_attr_decode in ncztr_types.h for the rules).
 * Zarr tools that do not know NCZarr edit values and leave "types" as it was, and damaged
 * stores exist: the type must never silently turn into another one. */
#include "ncztr_types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a JSON element is, for the check and for messages. */
static const char *kind_of(const json_t *e)
{
    uint64_t u;
    if (json_is_string(e) && ncztr_json_get_uint64(e, &u))
        return "a number"; /* a uint64 literal above INT64_MAX, held as a marker string */
    switch (json_typeof(e)) {
    case JSON_STRING:
        return "text";
    case JSON_INTEGER:
    case JSON_REAL:
        return "a number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    case JSON_NULL:
        return "null";
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "a list";
    default:
        return "an unknown JSON value";
    }
}

/* An element a numeric dtype can take: a number, a boolean, or for floats the strings
 * netCDF-C and zarr-python write for NaN and the infinities. */
static bool numeric_elem(const ncztr_dtype *dt, const json_t *e)
{
    const char *k = kind_of(e);
    if (!strcmp(k, "a number") || !strcmp(k, "a boolean"))
        return true;
    if (dt->tclass == NCZTR_T_FLOAT && json_is_string(e)) {
        const char *s = json_string_value(e);
        return !strcmp(s, "NaN") || !strcmp(s, "Infinity") || !strcmp(s, "-Infinity");
    }
    return false;
}

/* The first element (the value itself when it is not a list) that dtype dt cannot take,
 * or NULL when every one fits its kind. */
static const json_t *misfit(const ncztr_dtype *dt, const json_t *value)
{
    bool text = dt->tclass == NCZTR_T_CHAR || dt->tclass == NCZTR_T_STRING;
    size_t n = json_is_array(value) ? json_array_size(value) : 1;
    for (size_t i = 0; i < n; i++) {
        const json_t *e = json_is_array(value) ? json_array_get(value, i) : value;
        if (text ? strcmp(kind_of(e), "text") != 0 : !numeric_elem(dt, e))
            return e;
    }
    return NULL;
}

herr_t ncztr_attr_decode(const char *name, json_t *value, const json_t *type, ncztr_attrval *out)
{
    herr_t ret = SUCCEED;
    char what[300];
    ncztr_dtype dt;
    const json_t *bad;

    if (!name)
        name = "";
    snprintf(what, sizeof what, "attribute \"%s\"", name);
    if (!value || !out)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "%s: invalid arguments", what);
    *out = (ncztr_attrval){H5I_INVALID_HID, H5I_INVALID_HID, 0, NULL, 0};
    if (!type)
        return ncztr_attr_from_json(name, value, NULL, out);
    /* Errors: an entry that is no dtype says nothing about the value, and reading it as
     * its JSON could show a type the writer never had (a "<c8" complex pair as 2 reals). */
    if (!json_is_string(type))
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: its entry in \"_nczarr_attr.types\" is %s, not a dtype string",
                 what, kind_of(type));
    const char *dtype = json_string_value(type);
    const char *k = dtype + (dtype[0] == '<' || dtype[0] == '>' || dtype[0] == '|' || dtype[0] == '=');
    /* "|J0" (JSON) and netCDF-C's ">S1" (char text, or JSON it wrote as JSON) take any value. */
    if (!strcmp(k, "J0") || !strcmp(dtype, ">S1"))
        return ncztr_attr_from_json(name, value, dtype, out);
    {
        char twhat[340];
        snprintf(twhat, sizeof twhat, "%s (its type in \"_nczarr_attr.types\")", what);
        if (ncztr_dtype_parse(dtype, twhat, &dt) < 0)
            NCZ_GOTO_QUIET(FAIL);
    }
    /* An error too: a value of another kind than its dtype (a Zarr tool that edited the
     * value and left "types" as it was, or damage). Reading it as the type of its JSON would
     * hand the program another type than the one it was written with, and nothing it
     * checks would tell it so; so would a number of the right kind that the dtype cannot
     * hold (out of range, a fraction for an integer), below. */
    if ((bad = misfit(&dt, value)) != NULL)
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: \"_nczarr_attr.types\" gives dtype \"%s\" but the value %s%s", what,
                 dtype, bad == value ? "is " : "holds ", kind_of(bad));
    ret = ncztr_attr_from_json(name, value, dtype, out);
done:
    return ret;
}
