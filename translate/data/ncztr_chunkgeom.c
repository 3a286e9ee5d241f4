/* Geometry of an array's chunks: shapes, keys, Fortran order, fill. */
#include "ncztr_chunkio_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ncztr_geom_clear(ncztr_cgeom *g)
{
    free(g->prefix);
    free(g->path);
    g->prefix = g->path = NULL;
}

herr_t ncztr_geom_init(const ncztr_obj *o, ncztr_cgeom *g)
{
    const ncztr_zarray *za = &o->arr->za;
    memset(g, 0, sizeof *g);
    g->rank = za->rank > 0 ? za->rank : 1;
    g->esz = za->dtype.size;
    g->chunk_elems = 1;
    int big = 0;
    for (int k = 0; k < g->rank; k++) {
        g->chunks[k] = za->rank > 0 ? za->chunks[k] : 1;
        g->chunk_elems *= (size_t)g->chunks[k];
        big += g->chunks[k] > 1;
    }
    g->chunk_bytes = g->chunk_elems * g->esz;
    g->transpose = za->order == 'F' && big > 1;
    g->dimsep = za->dimsep == '/' ? '/' : '.';
    g->chunk_c = za->chunk_c;
    g->rank0 = za->rank == 0;
    g->prefix = ncztr_obj_key(o);
    g->path = ncztr_obj_path(o);
    if (!g->prefix || !g->path) {
        ncztr_geom_clear(g);
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory preparing dataset I/O");
    }
    return SUCCEED;
}

/* "<prefix>/i.j.k" (or without "<prefix>/" at the store root). A Zarr rank-0 array has
 * the single chunk index [0], hence the key "0". */
char *ncztr_chunk_key(const ncztr_cgeom *g, const uint64_t *coord)
{
    char *s = ncztr_chunk_key_at(g->prefix, g->rank0 ? 0 : g->rank, g->dimsep, g->chunk_c, coord);
    if (!s)
        NCZ_PUSH(NCZ_E_NOMEM, "out of memory building a chunk key of \"%s\"", g->path);
    return s;
}

/* Moves a chunk between C order (last index fastest) and Fortran order (first index
 * fastest), element by element: Fortran-ordered stores are rare enough not to need more. */
void ncztr_transpose(const ncztr_cgeom *g, const unsigned char *src, unsigned char *dst, bool c_to_f)
{
    size_t fstride[NCZTR_MAX_RANK], idx[NCZTR_MAX_RANK] = {0}, foff = 0, esz = g->esz;
    fstride[0] = 1;
    for (int k = 1; k < g->rank; k++)
        fstride[k] = fstride[k - 1] * (size_t)g->chunks[k - 1];
    for (size_t i = 0; i < g->chunk_elems; i++) {
        if (c_to_f)
            memcpy(dst + foff * esz, src + i * esz, esz);
        else
            memcpy(dst + i * esz, src + foff * esz, esz);
        for (int k = g->rank - 1; k >= 0; k--) {
            foff += fstride[k];
            if (++idx[k] < g->chunks[k])
                break;
            foff -= idx[k] * fstride[k];
            idx[k] = 0;
        }
    }
}

/* Fills nelem elements with the array's fill value (zeros without one). */
void ncztr_fill_elems(const ncztr_zarray *za, void *buf, size_t nelem)
{
    size_t esz = za->dtype.size, total = nelem * esz;
    bool zero = !za->has_fill || !za->fill;
    for (size_t i = 0; !zero && i < esz && za->fill[i] == 0; i++)
        zero = i + 1 == esz;
    if (zero || total == 0) {
        memset(buf, 0, total);
        return;
    }
    unsigned char *b = buf;
    memcpy(b, za->fill, esz);
    for (size_t done = esz; done < total;) {
        size_t n = done < total - done ? done : total - done;
        memcpy(b + done, b, n);
        done += n;
    }
}

uint64_t ncztr_coord_hash(const uint64_t *coord, int rank)
{
    return nczc_hash_u64(nczc_hash_bytes(NCZC_HASH_SEED, coord, (size_t)rank * sizeof *coord));
}
