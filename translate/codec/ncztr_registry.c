/* The codec registry: every codec class the connector knows, one line each (each class is
 * one file, ncztr_c_*.c), and the lookups by Zarr v2 id, Zarr v3 name and HDF5 filter id.
 * Adding a codec is one file and one line here. */
#include "ncztr_codec_internal.h"
#include "ncztr_err.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const ncztr_codec_class *const classes[] = {
    &ncztr_codec_zlib,     &ncztr_codec_gzip,      &ncztr_codec_shuffle,    &ncztr_codec_fletcher32,
    &ncztr_codec_lz4,      &ncztr_codec_bz2,       &ncztr_codec_zstd,       &ncztr_codec_blosc,
    &ncztr_codec_szip,     &ncztr_codec_bytes,     &ncztr_codec_transpose,  &ncztr_codec_crc32c,
    &ncztr_codec_sharding, &ncztr_codec_vlen_utf8, &ncztr_codec_vlen_bytes, &ncztr_codec_vlen_array,
};
#define NCLASSES (sizeof classes / sizeof classes[0])

const ncztr_codec_class *ncztr_codec_by_v2(const char *id)
{
    for (size_t i = 0; id && i < NCLASSES; i++)
        if (classes[i]->v2id && strcmp(classes[i]->v2id, id) == 0)
            return classes[i];
    return NULL;
}

const ncztr_codec_class *ncztr_codec_by_v3(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < NCLASSES; i++)
        if (classes[i]->v3name && strcmp(classes[i]->v3name, name) == 0)
            return classes[i];
    /* zarr-python 3 names the numcodecs codecs it runs in v3 "numcodecs.<id>" */
    if (strncmp(name, "numcodecs.", 10) == 0)
        return ncztr_codec_by_v2(name + 10);
    return NULL;
}

const ncztr_codec_class *ncztr_codec_by_filter(H5Z_filter_t id)
{
    /* the first class of a filter is the one its pipelines are stored as (deflate: zlib) */
    for (size_t i = 0; i < NCLASSES; i++)
        if (classes[i]->filter == id && classes[i]->from_filt)
            return classes[i];
    return NULL;
}

int ncztr_stage_parse(const json_t *codec, bool v3, const ncztr_cctx *cx, ncztr_stage *s, char *msg,
                      size_t msglen)
{
    memset(s, 0, sizeof *s);
    s->cx = *cx;
    if (!json_is_object(codec)) {
        NCZTR_CODEC_MSG("a codec is not a JSON object");
        return -1;
    }
    const char *name = json_string_value(json_object_get(codec, v3 ? "name" : "id"));
    if (!name) {
        NCZTR_CODEC_MSG("a codec has no string \"%s\"", v3 ? "name" : "id");
        return -1;
    }
    const json_t *conf = codec;
    if (v3) {
        conf = json_object_get(codec, "configuration");
        if (conf && !json_is_object(conf) && !json_is_null(conf)) {
            NCZTR_CODEC_MSG("codec \"%s\": \"configuration\" is not a JSON object", name);
            return -1;
        }
        if (json_is_null(conf))
            conf = NULL;
    }
    s->cls = v3 ? ncztr_codec_by_v3(name) : ncztr_codec_by_v2(name);
    if (!s->cls) {
        NCZTR_CODEC_MSG("codec \"%s\" is not known to the connector (no HDF5 filter id known for it)", name);
        return 0;
    }
    return s->cls->parse(conf, v3, cx, &s->state, msg, msglen);
}

void ncztr_stage_clear(ncztr_stage *s)
{
    if (s->cls && s->cls->free_state)
        s->cls->free_state(s->state);
    s->state = NULL;
    s->cls = NULL;
}

int ncztr_codec_to_filt(const json_t *codec, bool v3, const ncztr_cctx *cx, ncztr_filt *f, char *msg,
                        size_t msglen)
{
    ncztr_stage st;
    size_t mark = ncz_err_mark();
    int r = ncztr_stage_parse(codec, v3, cx, &st, msg, msglen);
    if (r < 0) {
        free(ncz_err_take_messages(mark)); /* a failed plugin lookup pushes */
    } else if (!st.cls || st.cls->kind != NCZTR_CK_B2B || !st.cls->to_filt) {
        if (st.cls)
            NCZTR_CODEC_MSG("codec \"%s\" has no HDF5 filter",
                            st.cls->v3name ? st.cls->v3name : st.cls->v2id);
        r = 0;
    } else {
        /* a codec that cannot run here (its plugin is missing) still has its filter */
        r = st.cls->to_filt(st.state, cx, f, msg, msglen);
    }
    ncztr_stage_clear(&st);
    return r;
}

json_t *ncztr_filt_to_codec(const ncztr_filt *f, char *msg, size_t msglen)
{
    const ncztr_codec_class *cls = ncztr_codec_by_filter(f->id);
    if (!cls) {
        const char *name = ncztr_filter_name(f->id);
        NCZTR_CODEC_MSG("HDF5 filter %d%s%s%s has no Zarr codec", (int)f->id, *name ? " (" : "", name,
                        *name ? ")" : "");
        return NULL;
    }
    return cls->from_filt(f, msg, msglen);
}

/* One v2 codec object as Zarr v3 spells it: its v3 name and parameters where v3 has the
 * codec ("gzip", "zstd", "blosc"), else "numcodecs.<id>" with the numcodecs parameters, as
 * zarr-python 3 reads them. NULL when out of memory. */
static json_t *v2_to_v3(const json_t *c, size_t esz)
{
    const char *id = json_string_value(json_object_get(c, "id"));
    const ncztr_codec_class *cls = ncztr_codec_by_v2(id);
    json_t *conf = json_copy((json_t *)c);
    if (!conf || !id)
        return NULL;
    json_object_del(conf, "id");
    char name[96];
    if (cls && cls->v3name) {
        snprintf(name, sizeof name, "%s", cls->v3name);
        if (!strcmp(id, "zstd") && !json_object_get(conf, "checksum"))
            json_object_set_new(conf, "checksum", json_false());
        if (!strcmp(id, "blosc")) {
            static const char *const shuffles[] = {"noshuffle", "shuffle", "bitshuffle"};
            json_int_t sh = json_integer_value(json_object_get(conf, "shuffle"));
            json_object_set_new(conf, "shuffle", json_string(shuffles[sh >= 0 && sh <= 2 ? sh : 1]));
            json_object_set_new(conf, "typesize", json_integer((json_int_t)esz));
            if (!json_object_get(conf, "blocksize"))
                json_object_set_new(conf, "blocksize", json_integer(0));
        }
    } else {
        snprintf(name, sizeof name, "numcodecs.%s", id);
    }
    return json_pack("{s:s, s:o}", "name", name, "configuration", conf);
}

json_t *ncztr_codecs_to_v3(const json_t *filters, const json_t *compressor, bool big_endian, size_t esz,
                           int rank, const uint64_t *inner)
{
    /* an object array's first filter is its array->bytes codec ("vlen-utf8"), in place of
     * "bytes" */
    const ncztr_codec_class *first =
        ncztr_codec_by_v2(json_string_value(json_object_get(json_array_get(filters, 0), "id")));
    bool vlen = first && first->vlen;
    json_t *list = vlen ? json_array()
                        : json_pack("[{s:s, s:{s:s}}]", "name", "bytes", "configuration", "endian",
                                    big_endian ? "big" : "little");
    bool ok = list != NULL;
    for (size_t k = 0; ok && k < json_array_size(filters); k++)
        ok = json_array_append_new(list, v2_to_v3(json_array_get(filters, k), esz)) == 0;
    if (ok && json_is_object(compressor))
        ok = json_array_append_new(list, v2_to_v3(compressor, esz)) == 0;
    if (ok && inner) {
        json_t *cs = json_array();
        for (int k = 0; cs && k < rank; k++)
            if (json_array_append_new(cs, json_integer((json_int_t)inner[k])) < 0)
                ok = false;
        json_t *sh = cs ? json_pack("[{s:s, s:{s:o, s:o, s:[{s:s, s:{s:s}}, {s:s}], s:s}}]", "name",
                                    "sharding_indexed", "configuration", "chunk_shape", cs, "codecs", list,
                                    "index_codecs", "name", "bytes", "configuration", "endian", "little",
                                    "name", "crc32c", "index_location", "end")
                        : NULL;
        list = sh;
        ok = ok && sh != NULL;
    }
    if (!ok) {
        json_decref(list);
        return NULL;
    }
    return list;
}
