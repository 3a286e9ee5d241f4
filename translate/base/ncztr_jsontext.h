/* The JSON text layer (ncztr_jsontext.c): parse and dump with exact uint64 and shortest
 * reals. Pure functions; failures push a message naming the key on the HDF5 error stack. */
#ifndef NCZTR_JSONTEXT_H
#define NCZTR_JSONTEXT_H

#include <hdf5.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

/* Parses JSON text with a message naming `key` on failure (line/column from jansson).
 * Returns a new reference or NULL. Requires the top level to be an object. */
json_t *ncztr_json_parse_object(const char *key, const char *text, size_t len);
/* Dumps in insertion order, malloc'ed (free()). Spacing follows netCDF-C exactly
 * (`{"a": 1, "b": [1,2]}`: ", " and ": " in objects, "," in arrays) so that our objects
 * diff cleanly against netCDF-C's. Reals are printed in the shortest form that reads back
 * as the same double (jansson's own dump always uses %.17g: 0.1 -> 0.10000000000000001).
 * Any JSON value may be dumped, not only objects. */
char *ncztr_json_dump(const json_t *j);
/* JSON text written piece by piece, in ncztr_json_dump's spacing, for objects of a fixed
 * shape written many times (an array's .zarray): no tree of values to build and free.
 * Start from NCZTR_JTEXT_INIT; a failed allocation is remembered and reported by take. */
typedef struct ncztr_jtext {
    char *p;
    size_t len, cap;
    int oom;
} ncztr_jtext;
#define NCZTR_JTEXT_INIT                                                                                     \
    {                                                                                                        \
        NULL, 0, 0, 0                                                                                        \
    }
/* s as it is (punctuation, keys known to need no escape) */
void ncztr_jtext_raw(ncztr_jtext *t, const char *s);
/* s as a JSON string, escaped */
void ncztr_jtext_str(ncztr_jtext *t, const char *s);
/* v in decimal */
void ncztr_jtext_u64(ncztr_jtext *t, uint64_t v);
/* j as ncztr_json_dump writes it; -1 (nothing pushed) when it nests too deep */
int ncztr_jtext_value(ncztr_jtext *t, const json_t *j);
/* The text (malloc'ed, the caller's), or NULL with a message pushed when out of memory;
 * t is empty after either. */
char *ncztr_jtext_take(ncztr_jtext *t);
/* Is s (NUL-terminated) valid UTF-8, as jansson requires of every string it holds? */
bool ncztr_utf8_valid(const char *s);
/* The same JSON text with every non-ASCII character written as a \uXXXX escape (a
 * surrogate pair above U+FFFF), malloc'ed; NULL (message pushed) when out of memory or when
 * text is not valid UTF-8. For readers that take metadata as ASCII (zarr-python before
 * 2.14); netCDF-C does not decode \u escapes, so this is an option, not the default. */
char *ncztr_json_ascii(const char *text);

/* jansson holds integers as int64, so a literal above INT64_MAX (netCDF-C's default uint64
 * fill 18446744073709551614, uint64 attribute values) makes json_loads fail. The parse
 * functions here rewrite such literals into a private marker string and ncztr_json_dump
 * prints the marker back as the bare integer, so these values round-trip exactly. Trees
 * made or read by this module must therefore be dumped with ncztr_json_dump (json_dumps
 * would write the marker string). */
json_t *ncztr_json_uint64(uint64_t v);
/* Returns 1 and sets *v if j is a non-negative JSON integer or a large uint64 as above. */
int ncztr_json_get_uint64(const json_t *j, uint64_t *v);
/* A float value as JSON: NaN/+-inf -> "NaN"/"Infinity"/"-Infinity", else a real. With
 * single != 0 the real is the shortest decimal that reads back as the same float (0.1f ->
 * 0.1, not 0.10000000149011612). */
json_t *ncztr_json_real(double v, int single);
/* 1 if j is the private marker string of a large uint64 (above), with *v (may be NULL)
 * its value; 0 for any other value. */
int ncztr_json_marked_u64(const json_t *j, uint64_t *v);
/* json_loadb (jansson flags) after rewriting large uint64 literals into markers, without
 * the top-level object check. NULL on failure with err set ("out of memory" included). */
json_t *ncztr_json_parse_text(const char *text, size_t len, size_t flags, json_error_t *err);

#endif
