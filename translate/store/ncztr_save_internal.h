/* Shared by the two halves of writing the model back: ncztr_save.c (metadata objects) and
 * ncztr_saveattrs.c (an object's attributes in its .zattrs). */
#ifndef NCZTR_SAVE_INTERNAL_H
#define NCZTR_SAVE_INTERNAL_H

#include "ncztr_array_internal.h"
#include "ncztr_format.h"
#include "ncztr_store.h"

#include <stdbool.h>

/* jansson's setters fail on an allocation failure, or on a NULL value (a constructor that
 * failed) or container; they still take the value over. The builders add through these,
 * which keep the first failure in *ok, and report it once when the object is done. */
static inline void jset(bool *ok, json_t *obj, const char *key, json_t *v)
{
    if (json_object_set_new(obj, key, v) != 0)
        *ok = false;
}

static inline void jadd(bool *ok, json_t *arr, json_t *v)
{
    if (json_array_append_new(arr, v) != 0)
        *ok = false;
}

/* The application's attributes of o into .zattrs j: values, their dtypes in types, and
 * what NCZarr has no place for (*atypes made when first needed, ashapes, acsets) for
 * "_nczarr_attr.hdf5". */
herr_t ncztr_save_user_attrs(const ncztr_obj *o, json_t *j, json_t *types, json_t **atypes, json_t *ashapes,
                             json_t *acsets);

/* Does o have no attribute ncztr_save_user_attrs would write (none, or only those written
 * as dimensions)? */
bool ncztr_save_attrs_none(const ncztr_obj *o);

/* The last component of a dimension's full name. */
const char *ncztr_save_simple_name(const char *fqn);
/* Has the array a maximum dimension that is neither unlimited nor its current size? */
bool ncztr_save_finite_maxdims(const ncztr_array *a);
/* The .zattrs of a v2 array as text (malloc'ed) in *text, when the array has no attribute
 * of its own to write and no HDF5 settings kept in "_nczarr_attr.hdf5": the text the tree
 * of JSON values of ncztr_save.c's build_zattrs dumps to, without that tree. *text is NULL
 * when that tree must be built instead (it also reports a name that is not UTF-8). */
herr_t ncztr_save_array_zattrs_text(const ncztr_obj *o, char **text);

/* The same for a group other than the root, when it has no attribute or HDF5 setting of
 * its own and its members need nothing beyond NCZarr's lists of arrays and groups (no links
 * to other objects, no escaped or hidden names, the order a load gives). */
herr_t ncztr_save_group_zattrs_text(const ncztr_obj *g, char **text);
/* Where a load puts a child in its group's creation order (ncztr_save.c's creation_order):
 * visible arrays, hidden ones, groups, then the other links; -1 for a netCDF dimension's
 * stand-in, which has no place of its own. */
int ncztr_save_load_rank(const ncztr_obj *c);

/* Resolves every array's dimension references before a save (ncztr_savedims.c). */
herr_t ncztr_save_dims(ncztr_file *f);

#endif
