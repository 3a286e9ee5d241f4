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

/* Resolves every array's dimension references before a save (ncztr_savedims.c). */
herr_t ncztr_save_dims(ncztr_file *f);

#endif
