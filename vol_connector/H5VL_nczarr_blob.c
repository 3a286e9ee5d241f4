/* Blob callbacks: where HDF5 keeps the sequences of variable-length values (and the encoded
 * references that need a blob) converted to a "file" type of this connector
 * (H5VLget_file_type + H5Tconvert). The connector itself never converts to such a type:
 * attribute values and datasets keep their values in the model. So a blob only lives as
 * long as a conversion result in the application's hands: it is kept in memory, in a
 * table of the open store, until the library deletes it (H5VL_BLOB_DELETE, when such a
 * value is overwritten) or the store is closed, which frees what is left.
 *
 * A blob id is H5VL_NCZARR_BLOB_ID_SIZE bytes: a little-endian number, 0 for the null blob,
 * EMPTY for a sequence of no elements that is not null (nothing to keep, nothing to
 * delete), else TAG plus a count. HDF5 also asks to delete the bytes of an old object
 * reference as if they were a blob id: those are token bytes followed by zeros, never
 * with TAG's top byte. */
#include "H5VL_nczarr.h"

#include <stdlib.h>
#include <string.h>

#define EMPTY UINT64_MAX
#define TAG   0xb10b000000000000u

typedef struct blob {
    uint64_t id;
    size_t size;
    unsigned char data[];
} blob;

struct H5VL_nczarr_blobs_t {
    nczc_hindex ix;
    uint64_t next; /* the id the next blob gets */
};

static void id_put(void *blob_id, uint64_t id)
{
    unsigned char *p = blob_id;
    for (int i = 0; i < H5VL_NCZARR_BLOB_ID_SIZE; i++)
        p[i] = (unsigned char)(id >> (8 * i));
}

static uint64_t id_get(const void *blob_id)
{
    const unsigned char *p = blob_id;
    uint64_t id = 0;
    for (int i = 0; i < H5VL_NCZARR_BLOB_ID_SIZE; i++)
        id |= (uint64_t)p[i] << (8 * i);
    return id;
}

static int id_match(const void *item, const void *key, size_t len)
{
    (void)len;
    return ((const blob *)item)->id == *(const uint64_t *)key;
}

static H5VL_nczarr_store_t *store_of(void *obj)
{
    H5VL_nczarr_obj_t *o = obj;
    if (!o || !o->file || !o->file->store) {
        NCZ_PUSH(NCZ_E_ARGS, "blob operation on an invalid file");
        return NULL;
    }
    return o->file->store;
}

static blob *find(const H5VL_nczarr_store_t *st, uint64_t id)
{
    return st->blobs ? nczc_hindex_find(&st->blobs->ix, nczc_hash_u64(id), id_match, &id, 0) : NULL;
}

void H5VL_nczarr_blobs_free(H5VL_nczarr_store_t *st)
{
    if (!st->blobs)
        return;
    for (size_t i = 0; i < st->blobs->ix.cap; i++)
        free(st->blobs->ix.slots[i].item);
    nczc_hindex_clear(&st->blobs->ix);
    free(st->blobs);
    st->blobs = NULL;
}

herr_t H5VL_nczarr_blob_put(void *obj, const void *buf, size_t size, void *blob_id, void *ctx)
{
    (void)ctx;
    H5VL_nczarr_store_t *st = store_of(obj);
    if (!st)
        return FAIL;
    if (!blob_id || (size && !buf))
        return NCZ_PUSH(NCZ_E_ARGS, "blob put: missing argument");
    if (size == 0) {
        id_put(blob_id, EMPTY);
        return SUCCEED;
    }
    if (size > SIZE_MAX - sizeof(blob))
        return NCZ_PUSH(NCZ_E_ARGS, "blob put: %zu bytes is too large", size);
    if (!st->blobs && !(st->blobs = calloc(1, sizeof *st->blobs)))
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory keeping a variable-length value");
    blob *b = malloc(sizeof *b + size);
    if (!b)
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory keeping a variable-length value of %zu bytes", size);
    /* ids are never reused while the store is open: a stale id finds nothing */
    b->id = TAG | ++st->blobs->next;
    b->size = size;
    memcpy(b->data, buf, size);
    if (b->id == EMPTY || nczc_hindex_add(&st->blobs->ix, nczc_hash_u64(b->id), b) != 0) {
        free(b);
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory keeping a variable-length value");
    }
    id_put(blob_id, b->id);
    return SUCCEED;
}

herr_t H5VL_nczarr_blob_get(void *obj, const void *blob_id, void *buf, size_t size, void *ctx)
{
    (void)ctx;
    H5VL_nczarr_store_t *st = store_of(obj);
    if (!st)
        return FAIL;
    if (!blob_id || (size && !buf))
        return NCZ_PUSH(NCZ_E_ARGS, "blob get: missing argument");
    uint64_t id = id_get(blob_id);
    if (size == 0)
        return SUCCEED;
    blob *b = id && id != EMPTY ? find(st, id) : NULL;
    if (!b)
        return NCZ_PUSH(NCZ_E_NOTFOUND,
                        "variable-length value %llu of \"%s\" does not exist (deleted, or from another open)",
                        (unsigned long long)id, st->name);
    if (size > b->size)
        return NCZ_PUSH(NCZ_E_ARGS, "variable-length value %llu has %zu bytes, not %zu",
                        (unsigned long long)id, b->size, size);
    memcpy(buf, b->data, size);
    return SUCCEED;
}

herr_t H5VL_nczarr_blob_specific(void *obj, void *blob_id, H5VL_blob_specific_args_t *args)
{
    H5VL_nczarr_store_t *st = store_of(obj);
    if (!st)
        return FAIL;
    if (!blob_id || !args)
        return NCZ_PUSH(NCZ_E_ARGS, "blob operation: missing argument");
    switch (args->op_type) {
    case H5VL_BLOB_ISNULL:
        *args->args.is_null.isnull = id_get(blob_id) == 0;
        return SUCCEED;
    case H5VL_BLOB_SETNULL:
        id_put(blob_id, 0);
        return SUCCEED;
    case H5VL_BLOB_DELETE: {
        /* HDF5 also deletes what an old reference value held in its blob place (for an
         * object reference, token bytes): an id that names no blob has nothing to free. */
        uint64_t id = id_get(blob_id);
        blob *b = id && id != EMPTY ? find(st, id) : NULL;
        if (b) {
            nczc_hindex_remove(&st->blobs->ix, nczc_hash_u64(id), b);
            free(b);
        }
        return SUCCEED;
    }
    default:
        return NCZ_PUSH(NCZ_E_UNSUPPORTED, "blob operation %d is not supported", (int)args->op_type);
    }
}
