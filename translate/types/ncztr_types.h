/* translate/types: Zarr dtypes <-> HDF5 types, NCZarr's JSON attribute convention,
 * fill values, structured dtypes. Pure functions: no store access.
 * All failures push a message on the HDF5 error stack (ncztr_err.h) naming the
 * key/attribute/dtype involved, and return FAIL (or NULL).
 */
#ifndef NCZTR_TYPES_H
#define NCZTR_TYPES_H

#include "ncztr_b64.h"
#include "ncztr_err.h"
#include "ncztr_jsontext.h"

#include <hdf5.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#define NCZTR_DTYPE_MAX         32
#define NCZTR_MAX_RANK          32
#define NCZTR_DEFAULT_MAXSTRLEN 128

/* ---- dtypes ------------------------------------------------------------------------- */
typedef enum ncztr_tclass {
    NCZTR_T_INT = 1, /* signed integer */
    NCZTR_T_UINT,    /* unsigned integer (also |b1 bool, read as uint8) */
    NCZTR_T_FLOAT,
    NCZTR_T_CHAR,   /* ">S1" / "|S1": netCDF NC_CHAR, HDF5 1-byte fixed string */
    NCZTR_T_STRING, /* "|Sn" (n > 1): fixed bytes on disk; NC_STRING or HDF5 string */
    NCZTR_T_STRUCT, /* structured dtype (a JSON list of fields, see ncztr_zarray.structured):
                       packed records of `size` bytes; zarr text "|V<size>" for messages */
    NCZTR_T_VLEN    /* "|O" with numcodecs' "vlen-array" codec: each element a variable-length
                       sequence of numbers (ncztr_zarray.vlen_base); size is sizeof(hvl_t), the
                       element's size in memory, as chunks have no fixed element size */
} ncztr_tclass;

typedef struct ncztr_dtype {
    char zarr[NCZTR_DTYPE_MAX]; /* canonical text as written: "<i4", ">f8", ">S1", "|S128", "|u1" */
    ncztr_tclass tclass;
    size_t size;    /* bytes per element in a chunk */
    int big_endian; /* byte order of the chunk bytes (0 for 1-byte types) */
    int is_bool;    /* "|b1" */
} ncztr_dtype;

/* Parses a Zarr v2 dtype string. Accepts [<>|=]? + i1..i8, u1..u8, f4, f8, b1, S<n>.
 * Anything else ("<c8", "<M8[ns]", "<U5", "|O", "|V8", structured lists) fails with a
 * message naming the dtype and `what` (e.g. the .zarray key). "=" or no prefix means the
 * machine's order and is written out explicitly in out->zarr; "|" on a multi-byte number
 * is refused (its byte order would be unknown). Every "S1" ("<S1", "|S1", ">S1") is CHAR.
 * Fixed strings are limited to 64 MiB ("|S67108864"). */
herr_t ncztr_dtype_parse(const char *text, const char *what, ncztr_dtype *out);
/* The HDF5 type describing one chunk element exactly (e.g. H5T_STD_I32BE; CHAR -> 1-byte
 * H5T_C_S1, NULLTERM as netCDF-4 writes NC_CHAR; STRING -> fixed string of size n,
 * NULLPAD). Caller closes it. */
hid_t ncztr_dtype_to_hdf5(const ncztr_dtype *dt);
/* Maps an HDF5 dataset/attribute type to a dtype. Integers/floats keep their byte order;
 * a 1-byte fixed string is CHAR (">S1"); a fixed string of size n > 1 is "|Sn"; a vlen
 * string is "|S<maxstrlen>" (0 = NCZTR_DEFAULT_MAXSTRLEN; 1 is refused: "|S1" would read
 * back as CHAR). Other classes (compound, enum, array, vlen sequence,
 * reference, opaque, bitfield, time, 16-bit float...) fail with NCZ_E_NOTREPR naming the
 * class. */
herr_t ncztr_dtype_from_hdf5(hid_t type, size_t maxstrlen, const char *what, ncztr_dtype *out);

/* ---- attribute values --------------------------------------------------------------- */
/* An attribute value held in memory in the form HDF5 would hand it over:
 * type  : the attribute's HDF5 type (owned): integer/float types in the declared byte
 *         order, a fixed string type, or a variable-length string type;
 * space : H5S_SCALAR, or a 1-D simple dataspace (owned);
 * data  : nelem * H5Tget_size(type) bytes; for vlen strings an array of nelem char*
 *         (each malloc'ed, may be NULL). */
typedef struct ncztr_attrval {
    hid_t type;
    hid_t space;
    size_t nelem;
    void *data;
    /* What the elements own, noted while the type is alive (ncztr_attrval_note_parts):
     * 0 unknown, 1 nothing, 2 a malloc'ed string each, 3 an hvl_t each whose p is a
     * plain block. Used to free them once HDF5 closed the type (a store closed while the
     * library shuts down). */
    int parts;
} ncztr_attrval;

void ncztr_attrval_note_parts(ncztr_attrval *val);

/* Encodes an attribute for .zattrs. Rules (NCZarr convention):
 *  - numbers: 1 element -> JSON scalar, else JSON array; dtype like "<i4";
 *  - fixed string of 1 element (char text): dtype ">S1" and a JSON string, or, when the
 *    text is a JSON object or array exactly as ncztr_json_dump prints it (so that every
 *    reader gets the same bytes back), that JSON (NCZarr's JSON convention, as netCDF-C
 *    writes it); any other text, JSON-looking or not, stays a string byte for byte;
 *  - fixed string of n > 1 elements: JSON array of strings, dtype "|S<size>";
 *  - vlen strings: JSON string (1 element) or array of strings, dtype "|S128" (or
 *    "|S<longest>" when a value is longer); a NULL string is written as "".
 * Char text is taken up to its first NUL (trailing blanks dropped for SPACEPAD); text
 * that is not valid UTF-8 fails with NCZ_E_NOTREPR (JSON cannot hold it). uint64 values
 * above INT64_MAX are exact (see ncztr_json_uint64), so dump with ncztr_json_dump.
 * *value is a new reference owned by the caller. */
herr_t ncztr_attr_to_json(const char *name, const ncztr_attrval *val, json_t **value,
                          char dtype[NCZTR_DTYPE_MAX]);
/* Decodes a .zattrs value. dtype may be NULL (pure Zarr, or no _nczarr_attr): then the
 * type is inferred from the first value (integer -> int64 unless all fit int32 -> "<i4",
 * real -> "<f8", string -> char text, bool -> uint8, [] -> "<f8"). JSON scalar ->
 * H5S_SCALAR, array -> 1-D, the empty array -> H5S_NULL (no elements). A JSON string with dtype ">S1"/"|J0"
 * or none becomes a fixed string of its length (scalar); "|Sn" strings become vlen strings; objects, nested
 * arrays and other shapes become char text holding their compact JSON. Integers are range-checked against the
 * dtype (error naming the attribute on overflow). Also: ">S1" is always char text (an
 * array under it becomes its JSON text), while "|S1" with an array of strings is vlen
 * strings (what ncztr_attr_to_json writes for arrays of 1-byte strings); an untyped array
 * of strings is vlen strings; JSON booleans are uint8 0/1; a numeric dtype with null
 * elements, objects or nested arrays is an error. *out is left empty on failure. */
herr_t ncztr_attr_from_json(const char *name, json_t *value, const char *dtype, ncztr_attrval *out);
/* Decodes a .zattrs value with its entry in "_nczarr_attr.types" (NULL: none), checking
 * the entry against the value first. Errors:
 *  - an entry that is no dtype at all (not a string, an unknown dtype, a size out of
 *    range): nothing says what the writer meant;
 *  - a value of another kind than its dtype (text under a numeric dtype; numbers,
 *    booleans, null, objects or lists under a string dtype; null, objects or nested lists
 *    under a numeric dtype): a Zarr tool edited it, or it is damaged;
 *  - a number the numeric dtype cannot hold (out of range, a fraction for an integer
 *    dtype).
 * ">S1" (netCDF-C's char text, JSON values included) and "|J0" take any value. Errors
 * push a message naming the attribute, the dtype and what the value is; *out is then
 * empty. */
herr_t ncztr_attr_decode(const char *name, json_t *value, const json_t *type, ncztr_attrval *out);
void ncztr_attrval_clear(ncztr_attrval *val);
/* An empty value (no type, no space, no data). */
void ncztr_attrval_init(ncztr_attrval *v);
/* Deep copy (vlen strings duplicated). */
herr_t ncztr_attrval_copy(const ncztr_attrval *src, ncztr_attrval *dst);

/* ---- fill values -------------------------------------------------------------------- */
/* Are all n bytes at p zero (HDF5's default fill; an unset reference)? */
bool ncztr_bytes_zero(const void *p, size_t n);
/* fill: dt->size bytes in the chunk's byte order, or NULL for "no fill" (-> json null).
 * Floats: NaN -> "NaN", +-inf -> "Infinity"/"-Infinity", else a number printed so that it
 * round-trips exactly. CHAR/STRING: all-zero -> "", else Base64 of the bytes without their
 * trailing NULs (as zarr-python writes). |b1 -> true/false. */
json_t *ncztr_fill_to_json(const ncztr_dtype *dt, const void *fill);
/* Decodes fill_value. *has_fill = 0 for null. fill_out gets dt->size bytes (chunk byte
 * order). Accepts numbers (ints for float dtypes too), the three special strings, "" and
 * Base64 for strings, true/false for bool. Out-of-range values fail naming `what`.
 * Lenient: integral reals for integer dtypes; for CHAR/STRING, text that is not Base64 is
 * taken as the bytes themselves when it fits; a short Base64 value is NUL-padded. */
herr_t ncztr_fill_from_json(const ncztr_dtype *dt, json_t *value, const char *what, void *fill_out,
                            int *has_fill);

/* One numeric element <-> JSON. elem is dt->size bytes in dt's byte order; dt is INT, UINT
 * (|b1 -> true/false) or FLOAT. to_elem accepts integers, reals with an integral value for
 * integer dtypes, true/false, and for floats "NaN"/"Infinity"/"-Infinity"; a value out of
 * the dtype's range fails naming `what`. */
json_t *ncztr_json_from_elem(const ncztr_dtype *dt, const void *elem, const char *what);
herr_t ncztr_json_to_elem(const ncztr_dtype *dt, const json_t *j, const char *what, void *elem);

/* ---- structured dtypes and exact HDF5 types (ncztr_ctype.c) ---------------------------
 * HDF5 compound and array types are stored as Zarr v2 structured dtypes: a JSON list of
 * [name, dtype] / [name, dtype, shape] fields, packed (no padding) in member order. Field
 * dtypes: "<i4"-style numbers (enum members: their base integer, 16-bit floats "<f2"),
 * "|Sn" fixed strings, nested lists for compounds; an HDF5 array member is the base dtype
 * with its dims as shape. A top-level HDF5 array type is the one field "value". */
#define NCZTR_ARRAY_FIELD "value"
/* The structured dtype of an HDF5 compound or array type (variable-length members, references
 * and other classes fail with NCZ_E_NOTREPR naming `what`). New reference. */
json_t *ncztr_struct_from_hdf5(hid_t type, const char *what);
/* Parses and validates a structured dtype list into the packed HDF5 compound type whose
 * memory layout equals the chunk bytes. Fails with a message naming `what`. */
hid_t ncztr_struct_to_hdf5(const json_t *list, const char *what);
/* The packed storage type of an HDF5 type: compounds packed in member order (recursively),
 * arrays of packed bases; other types copied. Its layout is the chunk/record bytes. */
hid_t ncztr_ctype_storage(hid_t type, const char *what);
/* True for the classes kept with their exact HDF5 type (enum, compound, array). */
bool ncztr_ctype_is_special(hid_t type);
/* The same for attributes, which also keep 16-bit floats this way (values as "<f4"). */
bool ncztr_cattr_is_special(hid_t type);
/* The dataspace a one-element attribute of this type reads as when nothing beside its value
 * says (true: H5S_SCALAR, false: 1-D of one element), json_list telling whether its JSON is
 * a list: char text (fixed-length strings) is scalar, as netCDF-4 writes text; values whose
 * JSON tells an element from a list of one (compounds, arrays, sequences, references) are
 * what their JSON says; everything else (numbers, enums, variable-length strings) is 1-D,
 * as netCDF-4 writes every other single value (NCZarr stores a single value bare, so the
 * JSON alone cannot tell). */
bool ncztr_attr_default_scalar(hid_t type, bool json_list);
/* The unsigned integer type of a bitfield's (or an opaque type's) size and byte order: the
 * dtype it is stored as (its bytes are the same); 1, 2, 4 or 8 bytes. */
hid_t ncztr_bits_base(hid_t type);
/* H5Tencode as Base64 text (malloc'ed), and back (the type is checked to be decodable and
 * of a supported class; a clear error naming `what` otherwise). */
char *ncztr_type_encode(hid_t type, const char *what);
hid_t ncztr_type_decode(const char *b64, const char *what);
/* Attribute values of enum/compound/array types as JSON: an enum is its integers (dtype =
 * base dtype, same rules as numbers); compounds are objects {member: value}, arrays nested
 * lists; a scalar value is one element, otherwise a list of elements (dtype ">S1", which
 * netCDF-C reads as the JSON's text). */
herr_t ncztr_cattr_to_json(const char *name, const ncztr_attrval *val, json_t **value,
                           char dtype[NCZTR_DTYPE_MAX]);
/* Decodes a value written by ncztr_cattr_to_json for the exact type `type` (copied);
 * scalar: the store says the value is one element (its shape kept as []), else a list is
 * a list of elements unless its nesting says it is one element. */
herr_t ncztr_cattr_from_json(const char *name, json_t *value, hid_t type, bool scalar, ncztr_attrval *out);
/* Whether every value of type has a JSON form (numbers, strings fixed or variable-length,
 * enums, bitfields, opaque and raw bytes, compounds, arrays, variable-length sequences);
 * NCZ_E_NOTREPR naming `what` and the class otherwise. */
herr_t ncztr_cvalue_check(hid_t type, const char *what);
/* n values of src_t -> dst_t through their JSON form (members matched by name, numbers
 * range-checked), for types with variable-length parts, whose HDF5 conversion would share
 * or free memory that belongs to the other side. dst's parts are malloc'ed; on failure
 * they are freed and dst zeroed. */
herr_t ncztr_cvalue_convert(hid_t src_t, const void *src, hid_t dst_t, void *dst, size_t n, const char *what);
/* A number or bit pattern no Zarr dtype describes: floats other than IEEE binary16/32/64
 * (x87 long double, IBM or VAX formats), integers not of 1, 2, 4 or 8 bytes or in VAX
 * byte order, opaque types and bitfields not of 1, 2, 4 or 8 bytes. Stored as its bytes
 * (a "|V<n>" field; in JSON the Base64 of the bytes), the exact type kept. */
bool ncztr_type_is_raw(hid_t type);
/* IEEE binary16 in either byte order. */
bool ncztr_is_half_float(hid_t type);
/* One element of a number, enum, string, compound, array or sequence type as that JSON,
 * and back (elem: H5Tget_size(type) bytes, zeroed before a decode; the variable-length
 * parts a decode makes are malloc'ed: ncztr_refval_free or H5Treclaim frees them). A
 * variable-length string is a JSON string (NULL: null), a sequence a list. */
json_t *ncztr_celem_to_json(hid_t type, const void *elem, const char *what);
herr_t ncztr_celem_from_json(hid_t type, const json_t *j, void *elem, const char *what);

/* ---- attribute values holding object references (ncztr_refjson.c) ---------------------
 * Types with H5T_STD_REF or H5T_STD_REF_OBJ inside (itself, in vlen sequences, compounds,
 * arrays; see ncztr_refval.h for the kept form, an object id per reference). In .zattrs each
 * reference is the absolute path of its object as a JSON string, a null reference JSON
 * null; a vlen sequence is a list, a compound an object {member: value}, an array type
 * nested lists, other members as ncztr_celem_to_json. A scalar value is one element,
 * anything else a list of elements. The dtype in "_nczarr_attr.types" is "|S<n>" for
 * plain references none of which is null (netCDF-C shows strings), else ">S1" (netCDF-C
 * shows the JSON as text); the exact type goes to "_nczarr_attr.hdf5.atypes". */
/* id -> *path (malloc'ed), or *path NULL when the id names no object (a null in JSON). */
typedef herr_t (*ncztr_ref_path_fn)(void *ctx, uint64_t id, char **path);
/* path -> id; pushes why and fails when the path names nothing. */
typedef herr_t (*ncztr_ref_id_fn)(void *ctx, const char *path, uint64_t *id);
/* Whether every part of type has a JSON form here (NCZ_E_NOTREPR naming what if not). */
herr_t ncztr_reftype_check(hid_t type, const char *what);
/* A copy of type built from HDF5's constructors (H5T_STD_REF, H5Tvlen_create, ...): a type
 * H5Tdecode made compares unequal to the application's (its references inside a vlen are
 * not in memory form), and reading needs the application's own type. */
hid_t ncztr_reftype_rebuild(hid_t type);
herr_t ncztr_refattr_to_json(const char *name, const ncztr_attrval *val, ncztr_ref_path_fn fn, void *ctx,
                             json_t **value, char dtype[NCZTR_DTYPE_MAX]);
/* Whether one element of type is a JSON list (a vlen sequence or an array type): then a
 * scalar value cannot be told from a list of elements by its JSON, and the writer keeps
 * the shape [] for it in "_nczarr_attr.hdf5.ashapes". */
bool ncztr_reftype_elem_is_list(hid_t type);
/* A .zattrs value (one element when scalar, else a list of nelem) as nelem elements of
 * type in the kept form (object ids): *data malloc'ed (free the vlen parts with
 * ncztr_refval_free). */
herr_t ncztr_refattr_from_json(const char *name, const json_t *value, bool scalar, hid_t type, size_t nelem,
                               ncztr_ref_id_fn fn, void *ctx, void **data);

#endif
