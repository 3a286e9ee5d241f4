/* HDF5 filter pipelines <-> Zarr codec JSON, on the calling thread.
 *
 * At create time the connector does what HDF5's pipeline would do in can_apply/set_local
 * (HDF5 runs neither for a dataset of another connector): shuffle's element size, blosc's
 * type size and chunk size, and the can_apply/set_local callbacks of other plugin filters;
 * the expanded parameters go back into the array's dcpl. */
#include "ncztr_codec_internal.h"
#include "ncztr_err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool builtin(H5Z_filter_t id)
{
    return id == H5Z_FILTER_DEFLATE || id == H5Z_FILTER_SHUFFLE || id == H5Z_FILTER_FLETCHER32 ||
           id == NCZTR_FILTER_LZ4 || id == NCZTR_FILTER_BZIP2 || id == NCZTR_FILTER_ZSTD ||
           id == NCZTR_FILTER_BLOSC;
}

/* Runs a plugin's can_apply and set_local as HDF5 would at H5Dcreate. Returns 1 when the
 * filter applies (dcpl possibly modified), 0 when can_apply says it cannot, -1 on failure. */
static int plugin_local(const H5Z_class2_t *cls, hid_t dcpl, hid_t type, int rank, const hsize_t *chunks)
{
    hid_t space = rank > 0 ? H5Screate_simple(rank, chunks, NULL) : H5Screate(H5S_SCALAR);
    int r = 1;
    if (space < 0)
        return -1;
    if (cls->can_apply) {
        htri_t a = cls->can_apply(dcpl, type, space);
        r = a < 0 ? -1 : a == 0 ? 0 : 1;
    }
    if (r == 1 && cls->set_local && cls->set_local(dcpl, type, space) < 0)
        r = -1;
    H5Sclose(space);
    return r;
}

/* Fills in what set_local would for the filters whose parameters the connector knows. */
static herr_t expand(ncztr_filt *f, size_t esz, size_t chunk_bytes)
{
    if (f->id == H5Z_FILTER_SHUFFLE) {
        f->ncd = 1;
        f->cd[0] = (unsigned)esz;
    } else if (f->id == NCZTR_FILTER_BLOSC) {
        /* H5Pset_filter(32001) with 0 to 7 values: clevel, shuffle and compressor in [4..6],
         * with hdf5-blosc's defaults where absent */
        unsigned clevel = f->ncd > 4 ? f->cd[4] : 5, shuf = f->ncd > 5 ? f->cd[5] : 1,
                 code = f->ncd > 6 ? f->cd[6] : 0;
        if (chunk_bytes > UINT32_MAX)
            return FAIL;
        f->ncd = 7;
        f->cd[0] = 2;
        f->cd[1] = 2;
        f->cd[2] = (unsigned)(esz > 255 || esz == 0 ? 1 : esz);
        f->cd[3] = (unsigned)chunk_bytes;
        f->cd[4] = clevel;
        f->cd[5] = shuf;
        f->cd[6] = code;
    }
    return SUCCEED;
}

static herr_t get_filter(hid_t dcpl, unsigned idx, ncztr_filt *f)
{
    unsigned cfg = 0;
    char name[64];
    f->ncd = NCZTR_MAX_CD;
    f->id = H5Pget_filter2(dcpl, idx, &f->flags, &f->ncd, f->cd, sizeof name, name, &cfg);
    if (f->id < 0)
        return FAIL;
    if (f->ncd > NCZTR_MAX_CD)
        f->ncd = NCZTR_MAX_CD;
    return SUCCEED;
}

herr_t ncztr_codecs_from_dcpl(hid_t dcpl, hid_t type, int rank, const hsize_t *chunks, const char *path,
                              json_t **filters, json_t **compressor)
{
    herr_t ret = SUCCEED;
    json_t *list = NULL;
    char *dirs = NULL;
    char msg[400];
    *filters = *compressor = NULL;
    size_t esz = H5Tget_size(type), chunk_bytes = esz;
    for (int k = 0; k < rank; k++)
        chunk_bytes *= (size_t)chunks[k];
    int n = H5Pget_nfilters(dcpl);
    if (n < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "dataset \"%s\": cannot read the filters of its creation plist", path);
    if (n == 0)
        goto done;
    list = json_array();
    NCZ_CHECK_ALLOC(list, FAIL);
    for (int i = 0; i < n;) {
        ncztr_filt f;
        const H5Z_class2_t *cls = NULL;
        const char *why = NULL;
        if (get_filter(dcpl, (unsigned)i, &f) < 0)
            NCZ_GOTO(FAIL, NCZ_E_HDF5, "dataset \"%s\": cannot read filter %d of its creation plist", path,
                     i);
        const char *fname = ncztr_filter_name(f.id);
        free(dirs);
        dirs = NULL;
        if (f.id == H5Z_FILTER_SZIP) {
            /* its HDF5 parameters depend on the chunk shape, which a stored array's chain is
             * not given */
            why = "the connector does not run szip";
        } else if (!builtin(f.id)) {
            if (ncztr_plugin_find(f.id, &cls, &dirs) < 0)
                NCZ_GOTO_QUIET(FAIL);
            if (!cls) {
                snprintf(msg, sizeof msg, "no plugin for it in %s", *dirs ? dirs : "(no plugin directory)");
                why = msg;
            } else {
                int r = plugin_local(cls, dcpl, type, rank, chunks);
                if (r < 0)
                    NCZ_GOTO(FAIL, NCZ_E_HDF5, "dataset \"%s\": the set_local of HDF5 filter %d (%s) failed",
                             path, (int)f.id, fname);
                if (r == 0)
                    why = "its can_apply rejects the dataset's type or shape";
                else if (get_filter(dcpl, (unsigned)i, &f) < 0)
                    NCZ_GOTO(FAIL, NCZ_E_HDF5, "dataset \"%s\": cannot read filter %d of its creation plist",
                             path, i);
            }
        }
        json_t *codec = NULL;
        if (!why) {
            if (expand(&f, esz, chunk_bytes) < 0)
                NCZ_GOTO(FAIL, NCZ_E_NOTREPR, "dataset \"%s\": a chunk of %zu bytes is too large for blosc",
                         path, chunk_bytes);
            if (!(codec = ncztr_filt_to_codec(&f, msg, sizeof msg)))
                why = msg;
        }
        if (why) {
            if (!(f.flags & H5Z_FLAG_OPTIONAL))
                NCZ_GOTO(FAIL, NCZ_E_UNSUPPORTED, "dataset \"%s\": HDF5 filter %d%s%s%s is not available: %s",
                         path, (int)f.id, *fname ? " (" : "", fname, *fname ? ")" : "", why);
            /* an optional filter HDF5 would skip: it is dropped, as it cannot be stored */
            if (H5Premove_filter(dcpl, f.id) < 0)
                NCZ_GOTO(FAIL, NCZ_E_HDF5, "dataset \"%s\": cannot remove optional filter %d", path,
                         (int)f.id);
            n--;
            continue;
        }
        if (H5Pmodify_filter(dcpl, f.id, f.flags, f.ncd, f.cd) < 0) {
            json_decref(codec);
            NCZ_GOTO(FAIL, NCZ_E_HDF5, "dataset \"%s\": cannot update filter %d of its creation plist", path,
                     (int)f.id);
        }
        if (json_array_append_new(list, codec) < 0)
            NCZ_GOTO(FAIL, NCZ_E_NOMEM, "dataset \"%s\": out of memory building its codecs", path);
        i++;
    }
    size_t nc = json_array_size(list);
    if (nc > 0) {
        *compressor = json_incref(json_array_get(list, nc - 1));
        if (json_array_remove(list, nc - 1) < 0)
            NCZ_GOTO(FAIL, NCZ_E_NOMEM, "dataset \"%s\": out of memory building its codecs", path);
    }
    if (json_array_size(list) > 0) {
        *filters = list;
        list = NULL;
    }
done:
    free(dirs);
    json_decref(list);
    if (ret < 0) {
        json_decref(*compressor);
        *compressor = NULL;
    }
    return ret;
}

/* Adds the HDF5 filter of one stored codec to dcpl. A codec with no HDF5 filter id, or one
 * this function cannot read, is left out: the array still opens, and its data fails to read
 * with the chain's message. */
static herr_t add_codec(const json_t *codec, bool v3, const ncztr_cctx *cx, hid_t dcpl)
{
    ncztr_filt f;
    char msg[400];
    ncztr_cctx cx1 = *cx; /* a codec holding chains (sharding) builds them through these */
    cx1.chain_ops = ncztr_chain_operations();
    if (ncztr_codec_to_filt(codec, v3, &cx1, &f, msg, sizeof msg) <= 0)
        return SUCCEED;
    /* H5Pset_filter accepts an id that no library registers; HDF5 only checks availability
     * when it runs the filter */
    if (H5Pset_filter(dcpl, f.id, f.flags, f.ncd, f.cd) < 0)
        return NCZ_PUSH(NCZ_E_HDF5, "cannot add HDF5 filter %d to a creation plist", (int)f.id);
    return SUCCEED;
}

/* The bytes->bytes codecs of a v3 list, and those of the inner chunks of a shard (the chunks
 * HDF5 sees are the inner ones). */
static herr_t add_v3(const json_t *codecs, const ncztr_cctx *cx, hid_t dcpl)
{
    for (size_t k = 0; k < json_array_size(codecs); k++) {
        const json_t *c = json_array_get(codecs, k);
        const char *name = json_string_value(json_object_get(c, "name"));
        if (name && !strcmp(name, "sharding_indexed")) {
            if (add_v3(json_object_get(json_object_get(c, "configuration"), "codecs"), cx, dcpl) < 0)
                return FAIL;
        } else if (add_codec(c, true, cx, dcpl) < 0) {
            return FAIL;
        }
    }
    return SUCCEED;
}

herr_t ncztr_codecs_to_dcpl(const json_t *filters, const json_t *compressor, const json_t *v3codecs,
                            size_t esz, hid_t dcpl)
{
    ncztr_cctx cx = {.esz = esz, .chunk_bytes = esz, .path = ""};
    hsize_t cd[H5S_MAX_RANK];
    int rank = H5Pget_layout(dcpl) == H5D_CHUNKED ? H5Pget_chunk(dcpl, H5S_MAX_RANK, cd) : 0;
    cx.rank = rank > NCZTR_MAX_RANK ? NCZTR_MAX_RANK : rank;
    for (int k = 0; k < cx.rank; k++) {
        cx.shape[k] = cd[k];
        cx.chunk_bytes *= (size_t)cd[k];
    }
    if (v3codecs)
        return add_v3(v3codecs, &cx, dcpl);
    if (json_is_array(filters))
        for (size_t k = 0; k < json_array_size(filters); k++)
            if (add_codec(json_array_get(filters, k), false, &cx, dcpl) < 0)
                return FAIL;
    if (json_is_object(compressor) && add_codec(compressor, false, &cx, dcpl) < 0)
        return FAIL;
    return SUCCEED;
}
