/* I/O of datasets of old-style object references (H5T_STD_REF_OBJ; see
 * translate/model/ncztr_refarray.c for how they are stored): each element is kept as the
 * absolute path of its object, text as the array's variable-length strings are, "" for the
 * null reference. The application's values are 8-byte hobj_ref_t holding the objects' ids
 * (ncztr_oref_get): HDF5 passes them to a connector as they are. A write stores for each id
 * the path its object has now ("" for 0, or for an id that names no object of the store:
 * another file's, or a deleted object's); a read gives for each stored path the id its
 * object has now (0 for "", or for a path that names nothing). The text goes through the
 * array's own string path (ncztr_array_read/write), so selections, chunks and codecs are
 * those of any string dataset. */
#include "ncztr_array_internal.h"
#include "ncztr_chunkio.h"

#include <stdlib.h>
#include <string.h>

/* The text of a null reference: not allocated, never freed. */
static char empty_text[] = "";

herr_t ncztr_refdata_text_io(ncztr_obj *o, hid_t file_space, size_t n, char **text, bool write)
{
    if (n == 0)
        return SUCCEED;
    hsize_t dim = n;
    hid_t mt = ncztr_vlen_string_type(H5T_CSET_ASCII), ms = H5Screate_simple(1, &dim, NULL);
    herr_t r = mt < 0 || ms < 0 ? NCZ_PUSH(NCZ_E_HDF5, "dataset \"%s\": cannot describe its paths", o->name)
               : write          ? ncztr_array_write(o, mt, ms, file_space, text)
                                : ncztr_array_read(o, mt, ms, file_space, text);
    hid_t es = ncz_err_save();
    if (mt >= 0)
        H5Tclose(mt);
    if (ms >= 0)
        H5Sclose(ms);
    ncz_err_restore(es);
    return r;
}

char *ncztr_refdata_path(ncztr_file *f, uint64_t id)
{
    ncztr_obj *t = ncztr_find_by_id(f, id);
    char *p = t ? ncztr_obj_path(t) : empty_text;
    if (!p)
        NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    return p;
}

uint64_t ncztr_refdata_id(ncztr_file *f, const char *path)
{
    ncztr_obj *t = path && path[0] == '/' ? ncztr_find(f->root, path) : NULL;
    return t ? t->id : 0;
}

size_t ncztr_refdata_width(const ncztr_obj *o)
{
    return o->arr->vlen_string ? o->arr->za.dtype.size : SIZE_MAX;
}

herr_t ncztr_refdata_check_width(const ncztr_obj *o, char *const *text, size_t n)
{
    size_t w = ncztr_refdata_width(o);
    for (size_t i = 0; w != SIZE_MAX && i < n; i++)
        if (text[i] && strlen(text[i]) > w)
            return NCZ_PUSH(
                NCZ_E_NOTREPR,
                "cannot write dataset \"%s\": the path \"%s\" of a referenced object is %zu bytes "
                "long, more than the %zu its elements hold (stored as fixed |S%zu text); create such "
                "datasets with a larger limit: the connector option maxstrlen=N, e.g. "
                "HDF5_VOL_CONNECTOR=\"nczarr maxstrlen=N\"",
                o->name, text[i], strlen(text[i]), w, w);
    return SUCCEED;
}

void ncztr_refdata_free_texts(char **text, size_t n)
{
    for (size_t i = 0; text && i < n; i++)
        if (text[i] != empty_text)
            free(text[i]);
    free(text);
}

/* Calls fn on each element of the selection of space, in selection order, with its offset
 * in a buffer of elements of esz bytes. */
static herr_t each_elem(hid_t space, size_t esz, const char *what,
                        herr_t (*fn)(void *ud, size_t i, size_t off), void *ud)
{
    hsize_t off[64];
    size_t len[64], nseq = 0, nbytes = 0, i = 0;
    herr_t ret = SUCCEED;
    hid_t it = H5Ssel_iter_create(space, esz, 0);
    if (it < 0)
        return NCZ_PUSH(NCZ_E_HDF5, "dataset \"%s\": cannot iterate over the memory selection", what);
    do {
        if (H5Ssel_iter_get_seq_list(it, 64, SIZE_MAX, &nseq, &nbytes, off, len) < 0) {
            ret = NCZ_PUSH(NCZ_E_HDF5, "dataset \"%s\": cannot iterate over the memory selection", what);
            break;
        }
        for (size_t s = 0; s < nseq && ret >= 0; s++)
            for (size_t b = 0; b < len[s] && ret >= 0; b += esz)
                ret = fn(ud, i++, (size_t)off[s] + b);
    } while (nseq > 0 && ret >= 0);
    hid_t es = ncz_err_save();
    H5Ssel_iter_close(it);
    ncz_err_restore(es);
    return ret;
}

typedef struct refio {
    ncztr_obj *o;
    unsigned char *buf;
    size_t esz; /* the application's element: a hobj_ref_t, or an H5R_ref_t */
    char **text;
    size_t made; /* H5R_ref_t made by a read so far */
} refio;

static herr_t id_to_text(void *ud, size_t i, size_t off)
{
    refio *x = ud;
    ncztr_file *f = x->o->file;
    unsigned char oref[sizeof(hobj_ref_t)];
    const unsigned char *src = x->buf + off;
    if (x->esz != sizeof(hobj_ref_t)) { /* an H5R_ref_t: its id through the connector */
        if (ncztr_orefs_from_refs((const H5R_ref_t *)(const void *)src, oref, 1, f->refs.in, f->refs.ctx,
                                  x->o->name) < 0)
            return FAIL;
        src = oref;
    }
    return (x->text[i] = ncztr_refdata_path(f, ncztr_oref_get(src))) ? SUCCEED : FAIL;
}

static herr_t text_to_id(void *ud, size_t i, size_t off)
{
    refio *x = ud;
    ncztr_file *f = x->o->file;
    uint64_t id = ncztr_refdata_id(f, x->text[i]);
    if (x->esz == sizeof(hobj_ref_t)) {
        ncztr_oref_set(x->buf + off, id);
        return SUCCEED;
    }
    unsigned char oref[sizeof(hobj_ref_t)];
    ncztr_oref_set(oref, id);
    if (ncztr_orefs_to_refs(oref, (H5R_ref_t *)(void *)(x->buf + off), 1, f->refs.out, f->refs.ctx, NULL,
                            NULL, x->o->name) < 0)
        return FAIL;
    x->made = i + 1;
    return SUCCEED;
}

/* A read as H5R_ref_t that failed: the references it made are destroyed. */
static herr_t destroy_made(void *ud, size_t i, size_t off)
{
    refio *x = ud;
    H5R_ref_t *r = (H5R_ref_t *)(void *)(x->buf + off);
    if (i < x->made && !ncztr_bytes_zero(r, sizeof *r))
        H5Rdestroy(r);
    if (i < x->made)
        memset(r, 0, sizeof *r);
    return SUCCEED;
}

herr_t ncztr_refdata_io(ncztr_obj *o, hid_t mem_type, hid_t mem_space, hid_t file_space, void *buf,
                        bool write)
{
    herr_t ret = SUCCEED;
    ncztr_refkind mk = ncztr_ref_kind(mem_type);
    refio x = {o, buf, mk == NCZTR_REF_NEW ? sizeof(H5R_ref_t) : sizeof(hobj_ref_t), NULL, 0};
    hssize_t nf = H5Sget_select_npoints(file_space), nm = H5Sget_select_npoints(mem_space);
    /* never H5Tconvert: HDF5's conversions of old-style references take the file for a
     * native one. H5R_ref_t (H5T_STD_REF: what h5dump and h5diff read references as) are
     * made and taken by the connector (the file's refs operations). */
    if (mk != NCZTR_REF_OBJ && mk != NCZTR_REF_NEW)
        NCZ_GOTO(FAIL, NCZ_E_ARGS,
                 "dataset \"%s\" holds object references (H5T_STD_REF_OBJ): it is read and written with that "
                 "type (or as H5T_STD_REF) only",
                 o->name);
    if (mk == NCZTR_REF_NEW && (write ? !o->file->refs.in : !o->file->refs.out))
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "dataset \"%s\": references cannot be made here", o->name);
    if (nf < 0 || nm < 0 || nf != nm)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "dataset \"%s\": the memory and file selections differ in size", o->name);
    if (write && o->file->par)
        NCZ_GOTO(FAIL, NCZ_E_UNSUPPORTED,
                 "dataset \"%s\" holds object references, which an MPI program cannot write to a store",
                 o->name);
    if (nf == 0)
        NCZ_GOTO_QUIET(SUCCEED);
    if (!buf)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "dataset \"%s\": no buffer", o->name);
    if (!(x.text = calloc((size_t)nf, sizeof *x.text)))
        NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory for the paths of dataset \"%s\"", o->name);
    if (write) {
        if (each_elem(mem_space, x.esz, o->name, id_to_text, &x) < 0 ||
            ncztr_refdata_check_width(o, x.text, (size_t)nf) < 0 ||
            ncztr_refdata_text_io(o, file_space, (size_t)nf, x.text, true) < 0)
            NCZ_GOTO_QUIET(FAIL);
    } else if (ncztr_refdata_text_io(o, file_space, (size_t)nf, x.text, false) < 0) {
        NCZ_GOTO_QUIET(FAIL);
    } else if (each_elem(mem_space, x.esz, o->name, text_to_id, &x) < 0) {
        hid_t es = ncz_err_save();
        if (x.made)
            each_elem(mem_space, x.esz, o->name, destroy_made, &x);
        ncz_err_restore(es);
        NCZ_GOTO_QUIET(FAIL);
    }
done:
    ncztr_refdata_free_texts(x.text, nf > 0 ? (size_t)nf : 0);
    return ret;
}
