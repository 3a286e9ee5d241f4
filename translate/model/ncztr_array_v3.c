/* Arrays of Zarr v3 stores: what a new array becomes when its store is v3. */
#include "ncztr_array_internal.h"
#include "ncztr_codecs.h"
#include "ncztr_format.h"

#include <stdlib.h>
#include <string.h>

/* An array of a Zarr v3 store: its codecs in v3's spelling, "c/" chunk keys and, with the
 * shards option, shards of N x N x ... HDF5 chunks (fewer where the array is smaller): the
 * HDF5 chunks are then the shards' inner chunks. */
herr_t ncztr_array_to_v3(const ncztr_file *f, ncztr_array *a, const char *name)
{
    ncztr_zarray *za = &a->za;
    if (za->dtype.tclass == NCZTR_T_VLEN && za->vlen_kind == 'a')
        return NCZ_PUSH(
            NCZ_E_NOTREPR,
            "dataset \"%s\": variable-length sequences of numbers have no Zarr v3 data type (numbers, "
            "bool, complex, strings and compounds of numbers and strings have)",
            name);
    if (ncztr_zarr3_check_dtype(name, za) < 0)
        return FAIL;
    uint64_t inner[NCZTR_MAX_RANK];
    bool shard = f->opts.shards > 1;
    for (int k = 0; shard && k < za->rank; k++) {
        inner[k] = za->chunks[k];
        uint64_t need = za->shape[k] ? (za->shape[k] + inner[k] - 1) / inner[k] : 1;
        za->chunks[k] = inner[k] * (need < f->opts.shards ? need : f->opts.shards);
    }
    bool vlen = za->dtype.tclass == NCZTR_T_VLEN; /* codecs after "vlen-utf8" see bytes */
    json_t *c = ncztr_codecs_to_v3(za->filters, za->compressor, za->dtype.big_endian,
                                   vlen ? 1 : za->dtype.size, za->rank, shard ? inner : NULL);
    if (!c)
        return NCZ_PUSH(NCZ_E_NOMEM, "dataset \"%s\": out of memory", name);
    json_decref(za->filters);
    json_decref(za->compressor);
    za->filters = za->compressor = NULL;
    za->codecs = c;
    za->chunk_c = true;
    za->dimsep = '/';
    return SUCCEED;
}

void ncztr_array_inner_chunks(const ncztr_zarray *za, hsize_t *cd)
{
    const json_t *c0 = json_array_get(za->codecs, 0);
    const json_t *ics = json_object_get(json_object_get(c0, "configuration"), "chunk_shape");
    const char *name = json_string_value(json_object_get(c0, "name"));
    if (!name || strcmp(name, "sharding_indexed") != 0 || (int)json_array_size(ics) != za->rank)
        return;
    for (int k = 0; k < za->rank; k++)
        if (json_integer_value(json_array_get(ics, (size_t)k)) > 0)
            cd[k] = (hsize_t)json_integer_value(json_array_get(ics, (size_t)k));
}
