/* Walking values whose types hold references: one recursive walk serves the four uses
 * (in, out, free, list ids), the element's bytes outside references copied as they are. */
#include "ncztr_refval.h"
#include "ncztr_err.h"
#include "ncztr_types.h"

#include <stdlib.h>
#include <string.h>

ncztr_refkind ncztr_ref_kind(hid_t type)
{
    if (H5Tget_class(type) != H5T_REFERENCE)
        return NCZTR_REF_NONE;
    size_t sz = H5Tget_size(type);
    return sz == sizeof(H5R_ref_t)    ? NCZTR_REF_NEW
           : sz == sizeof(hobj_ref_t) ? NCZTR_REF_OBJ
                                      : NCZTR_REF_REGION;
}

/* Whether type holds references of one of the kinds in mask (bit 1 << kind) anywhere. */
static bool has_ref_kind(hid_t type, unsigned mask)
{
    H5T_class_t c = H5Tget_class(type);
    if (c == H5T_REFERENCE)
        return (mask >> ncztr_ref_kind(type)) & 1u;
    if (c != H5T_VLEN && c != H5T_COMPOUND && c != H5T_ARRAY)
        return false;
    if (c == H5T_COMPOUND) {
        int nm = H5Tget_nmembers(type);
        for (int i = 0; i < nm; i++) {
            hid_t m = H5Tget_member_type(type, (unsigned)i);
            bool r = m >= 0 && has_ref_kind(m, mask);
            if (m >= 0)
                H5Tclose(m);
            if (r)
                return true;
        }
        return false;
    }
    hid_t s = H5Tget_super(type);
    bool r = s >= 0 && has_ref_kind(s, mask);
    if (s >= 0)
        H5Tclose(s);
    return r;
}

bool ncztr_type_has_ref(hid_t type)
{
    return has_ref_kind(type, 1u << NCZTR_REF_NEW);
}

bool ncztr_type_has_obj_ref(hid_t type)
{
    return has_ref_kind(type, 1u << NCZTR_REF_OBJ);
}

bool ncztr_type_has_region_ref(hid_t type)
{
    return has_ref_kind(type, 1u << NCZTR_REF_REGION);
}

bool ncztr_type_has_path_ref(hid_t type)
{
    return has_ref_kind(type, 1u << NCZTR_REF_NEW | 1u << NCZTR_REF_OBJ);
}

/* Whether values of t have parts the walk must visit: references, or variable-length
 * sequences (whose memory each form owns). */
static bool needs_walk(hid_t t)
{
    H5T_class_t c = H5Tget_class(t);
    if (c == H5T_REFERENCE)
        return H5Tget_size(t) == sizeof(H5R_ref_t);
    if (c == H5T_VLEN || c == H5T_STRING)
        return H5Tis_variable_str(t) > 0 || c == H5T_VLEN;
    if (c == H5T_COMPOUND) {
        int nm = H5Tget_nmembers(t);
        for (int i = 0; i < nm; i++) {
            hid_t m = H5Tget_member_type(t, (unsigned)i);
            bool r = m >= 0 && needs_walk(m);
            if (m >= 0)
                H5Tclose(m);
            if (r)
                return true;
        }
        return false;
    }
    if (c != H5T_ARRAY)
        return false;
    hid_t s = H5Tget_super(t);
    bool r = s >= 0 && needs_walk(s);
    if (s >= 0)
        H5Tclose(s);
    return r;
}

bool ncztr_type_has_parts(hid_t type)
{
    return needs_walk(type);
}

uint64_t ncztr_refval_slot_id(const void *slot)
{
    uint64_t id;
    memcpy(&id, slot, sizeof id);
    return id;
}

void ncztr_refval_slot_set(void *slot, uint64_t id)
{
    memset(slot, 0, sizeof(H5R_ref_t));
    memcpy(slot, &id, sizeof id);
}

uint64_t ncztr_oref_get(const void *slot)
{
    const unsigned char *b = slot;
    uint64_t id = 0;
    for (int i = 0; i < 8; i++)
        id |= (uint64_t)b[i] << (8 * i);
    return id;
}

void ncztr_oref_set(void *slot, uint64_t id)
{
    unsigned char *b = slot;
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(id >> (8 * i));
}

/* Calls fn on each old-style object reference (its 8 bytes) in one element of t at p. */
static void each_oref(hid_t t, unsigned char *p, void (*fn)(void *ctx, unsigned char *ref), void *ctx)
{
    H5T_class_t c = H5Tget_class(t);
    if (ncztr_ref_kind(t) == NCZTR_REF_OBJ) {
        fn(ctx, p);
    } else if (c == H5T_COMPOUND) {
        int nm = H5Tget_nmembers(t);
        for (int i = 0; i < nm; i++) {
            hid_t m = H5Tget_member_type(t, (unsigned)i);
            if (m >= 0 && ncztr_type_has_obj_ref(m))
                each_oref(m, p + H5Tget_member_offset(t, (unsigned)i), fn, ctx);
            if (m >= 0)
                H5Tclose(m);
        }
    } else if (c == H5T_ARRAY || (c == H5T_VLEN && H5Tis_variable_str(t) <= 0)) {
        hid_t s = H5Tget_super(t);
        size_t ssz = s >= 0 ? H5Tget_size(s) : 0;
        hvl_t v = {0, NULL};
        if (c == H5T_VLEN)
            memcpy(&v, p, sizeof v);
        else if (ssz)
            v = (hvl_t){H5Tget_size(t) / ssz, p};
        for (size_t i = 0; ssz && v.p && i < v.len; i++)
            each_oref(s, (unsigned char *)v.p + i * ssz, fn, ctx);
        if (s >= 0)
            H5Tclose(s);
    }
}

static void each_oref_n(hid_t type, void *data, size_t n, void (*fn)(void *ctx, unsigned char *ref),
                        void *ctx)
{
    if (!data || !ncztr_type_has_obj_ref(type))
        return;
    size_t sz = H5Tget_size(type);
    for (size_t i = 0; i < n; i++)
        each_oref(type, (unsigned char *)data + i * sz, fn, ctx);
}

typedef struct liveness {
    bool (*live)(void *ctx, uint64_t id);
    void *ctx;
} liveness;

static void drop_if_dead(void *ud, unsigned char *ref)
{
    const liveness *l = ud;
    uint64_t id = ncztr_oref_get(ref);
    if (id && !l->live(l->ctx, id))
        ncztr_oref_set(ref, 0);
}

void ncztr_refval_drop_dead(hid_t type, void *data, size_t n, bool (*live)(void *ctx, uint64_t id), void *ctx)
{
    liveness l = {live, ctx};
    each_oref_n(type, data, n, drop_if_dead, &l);
}

herr_t ncztr_orefs_to_refs(const void *src, H5R_ref_t *dst, size_t n, ncztr_ref_out_fn fn, void *ctx,
                           bool (*live)(void *ctx, uint64_t id), void *live_ctx, const char *what)
{
    memset(dst, 0, n * sizeof *dst);
    for (size_t i = 0; i < n; i++) {
        uint64_t id = ncztr_oref_get((const unsigned char *)src + i * sizeof(hobj_ref_t));
        if (!id || (live && !live(live_ctx, id)))
            continue;
        if (!fn || fn(ctx, id, &dst[i]) < 0) {
            hid_t es = ncz_err_save();
            for (size_t j = 0; j < i; j++)
                if (!ncztr_bytes_zero(&dst[j], sizeof dst[j]))
                    H5Rdestroy(&dst[j]);
            memset(dst, 0, n * sizeof *dst);
            ncz_err_restore(es);
            return NCZ_PUSH(NCZ_E_ARGS, "%s: a stored reference cannot be made into an HDF5 reference", what);
        }
    }
    return SUCCEED;
}

herr_t ncztr_orefs_from_refs(const H5R_ref_t *src, void *dst, size_t n, ncztr_ref_in_fn fn, void *ctx,
                             const char *what)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t id = 0;
        if (!ncztr_bytes_zero(&src[i], sizeof src[i]) && (!fn || fn(ctx, &src[i], &id) < 0))
            return NCZ_PUSH(NCZ_E_ARGS, "%s: a reference cannot be stored", what);
        ncztr_oref_set((unsigned char *)dst + i * sizeof(hobj_ref_t), id);
    }
    return SUCCEED;
}

typedef enum { W_IN, W_OUT, W_FREE, W_IDS, W_COPY } wmode;

typedef struct walk {
    wmode mode;
    ncztr_ref_in_fn in;
    ncztr_ref_out_fn out;
    herr_t (*ids)(void *ctx, uint64_t id);
    void *ctx;
    const char *what;
} walk;

/* One element of type t at src -> dst (dst NULL for W_FREE/W_IDS, src the kept form). */
static herr_t walk_elem(const walk *w, hid_t t, const unsigned char *src, unsigned char *dst);

/* 1 for a variable-length sequence of values without parts of their own, 2 for a
 * variable-length string, else 0. */
static int flat_parts(hid_t t)
{
    H5T_class_t c = H5Tget_class(t);
    if (c == H5T_STRING && H5Tis_variable_str(t) > 0)
        return 2;
    if (c != H5T_VLEN || H5Tis_variable_str(t) > 0)
        return 0;
    hid_t s = H5Tget_super(t);
    bool plain = s >= 0 && !needs_walk(s);
    if (s >= 0)
        H5Tclose(s);
    return plain ? 1 : 0;
}

static herr_t walk_n(const walk *w, hid_t t, const unsigned char *src, unsigned char *dst, size_t n)
{
    size_t sz = H5Tget_size(t);
    /* Freeing many sequences of numbers or strings (an array type of millions of them): the
     * type is looked at once, not with HDF5 calls for each element. */
    int flat = w->mode == W_FREE && n > 1 ? flat_parts(t) : 0;
    for (size_t i = 0; flat && i < n; i++) {
        void *p;
        if (flat == 1) {
            hvl_t v;
            memcpy(&v, src + i * sz, sizeof v);
            p = v.p;
        } else {
            memcpy(&p, src + i * sz, sizeof p);
        }
        free(p);
    }
    if (flat)
        return SUCCEED;
    for (size_t i = 0; i < n; i++)
        if (walk_elem(w, t, src + i * sz, dst ? dst + i * sz : NULL) < 0)
            return FAIL;
    return SUCCEED;
}

static herr_t walk_ref(const walk *w, const unsigned char *src, unsigned char *dst)
{
    uint64_t id = 0;
    switch (w->mode) {
    case W_IN:
        if (!ncztr_bytes_zero(src, sizeof(H5R_ref_t)) &&
            w->in(w->ctx, (const H5R_ref_t *)(const void *)src, &id) < 0)
            return NCZ_PUSH(NCZ_E_ARGS, "%s: a reference cannot be stored", w->what);
        ncztr_refval_slot_set(dst, id);
        return SUCCEED;
    case W_OUT:
        memset(dst, 0, sizeof(H5R_ref_t));
        id = ncztr_refval_slot_id(src);
        if (id && w->out(w->ctx, id, (H5R_ref_t *)(void *)dst) < 0)
            return NCZ_PUSH(NCZ_E_ARGS, "%s: a stored reference cannot be made into an HDF5 reference",
                            w->what);
        return SUCCEED;
    case W_IDS:
        id = ncztr_refval_slot_id(src);
        return id ? w->ids(w->ctx, id) : SUCCEED;
    case W_COPY:
        memcpy(dst, src, sizeof(H5R_ref_t));
        return SUCCEED;
    case W_FREE:
        return SUCCEED;
    }
    return SUCCEED;
}

static herr_t walk_vlen(const walk *w, hid_t t, const unsigned char *src, unsigned char *dst)
{
    herr_t ret = SUCCEED;
    hvl_t v;
    memcpy(&v, src, sizeof v);
    hid_t s = H5Tget_super(t);
    if (s < 0)
        return NCZ_PUSH(NCZ_E_HDF5, "%s: cannot read a variable-length type", w->what);
    size_t ssz = H5Tget_size(s);
    if (w->mode == W_FREE || w->mode == W_IDS) {
        if (v.p && needs_walk(s))
            ret = walk_n(w, s, v.p, NULL, v.len);
        if (w->mode == W_FREE)
            free(v.p);
        H5Tclose(s);
        return ret;
    }
    hvl_t o = {0, NULL};
    if (v.len && v.p) {
        if (ssz && v.len > SIZE_MAX / ssz)
            NCZ_GOTO(FAIL, NCZ_E_ARGS, "%s: a variable-length element is too long", w->what);
        o.p = calloc(v.len, ssz ? ssz : 1);
        NCZ_CHECK_ALLOC(o.p, FAIL);
        o.len = v.len;
        if (walk_n(w, s, v.p, o.p, v.len) < 0) {
            walk fw = *w;
            fw.mode = W_FREE;
            if (w->mode == W_IN || w->mode == W_COPY) /* kept form: free its vlen parts */
                walk_n(&fw, s, o.p, NULL, v.len);
            free(o.p);
            o.p = NULL;
            o.len = 0;
            NCZ_GOTO_QUIET(FAIL);
        }
    }
done:
    memcpy(dst, &o, sizeof o);
    H5Tclose(s);
    return ret;
}

/* A variable-length string: freed, or copied (in every other mode that makes a value). */
static herr_t walk_str(const walk *w, const unsigned char *src, unsigned char *dst)
{
    char *s, *d = NULL;
    memcpy(&s, src, sizeof s);
    if (w->mode == W_FREE)
        free(s);
    if (w->mode == W_FREE || w->mode == W_IDS)
        return SUCCEED;
    if (s && !(d = strdup(s)))
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    memcpy(dst, &d, sizeof d);
    return SUCCEED;
}

static herr_t walk_elem(const walk *w, hid_t t, const unsigned char *src, unsigned char *dst)
{
    herr_t ret = SUCCEED;
    H5T_class_t c = H5Tget_class(t);
    if (c == H5T_STRING && H5Tis_variable_str(t) > 0)
        return walk_str(w, src, dst);
    if (c == H5T_REFERENCE && H5Tget_size(t) == sizeof(H5R_ref_t))
        return walk_ref(w, src, dst);
    if (c == H5T_VLEN && H5Tis_variable_str(t) <= 0)
        return walk_vlen(w, t, src, dst);
    if (c == H5T_COMPOUND) {
        int nm = H5Tget_nmembers(t);
        if (dst) {
            /* padding and plain members as they are; the members walked below start
             * zeroed, so that freeing after a failure half-way frees only what was made */
            memcpy(dst, src, H5Tget_size(t));
            for (int i = 0; i < nm; i++) {
                hid_t m = H5Tget_member_type(t, (unsigned)i);
                if (m >= 0 && needs_walk(m))
                    memset(dst + H5Tget_member_offset(t, (unsigned)i), 0, H5Tget_size(m));
                if (m >= 0)
                    H5Tclose(m);
            }
        }
        for (int i = 0; i < nm && ret >= 0; i++) {
            hid_t m = H5Tget_member_type(t, (unsigned)i);
            size_t off = H5Tget_member_offset(t, (unsigned)i);
            if (m < 0)
                return NCZ_PUSH(NCZ_E_HDF5, "%s: cannot read a compound member", w->what);
            if (needs_walk(m))
                ret = walk_elem(w, m, src + off, dst ? dst + off : NULL);
            H5Tclose(m);
        }
        return ret;
    }
    if (c == H5T_ARRAY) {
        hid_t s = H5Tget_super(t);
        if (s < 0)
            return NCZ_PUSH(NCZ_E_HDF5, "%s: cannot read an array type", w->what);
        size_t n = H5Tget_size(t) / (H5Tget_size(s) ? H5Tget_size(s) : 1);
        if (needs_walk(s))
            ret = walk_n(w, s, src, dst, n);
        else if (dst)
            memcpy(dst, src, H5Tget_size(t));
        H5Tclose(s);
        return ret;
    }
    if (dst)
        memcpy(dst, src, H5Tget_size(t));
    return SUCCEED;
}

herr_t ncztr_refval_in(hid_t type, const void *src, void *dst, size_t n, ncztr_ref_in_fn fn, void *ctx,
                       const char *what)
{
    walk w = {W_IN, fn, NULL, NULL, ctx, what};
    if (walk_n(&w, type, src, dst, n) < 0) {
        ncztr_refval_free(type, dst, n);
        memset(dst, 0, n * H5Tget_size(type));
        return FAIL;
    }
    return SUCCEED;
}

herr_t ncztr_refval_out(hid_t type, const void *src, void *dst, size_t n, ncztr_ref_out_fn fn, void *ctx,
                        const char *what)
{
    walk w = {W_OUT, NULL, fn, NULL, ctx, what};
    if (walk_n(&w, type, src, dst, n) < 0) {
        /* release what was made: H5Treclaim frees vlen parts and destroys references */
        hid_t sp = H5Screate_simple(1, (hsize_t[]){n ? n : 1}, NULL);
        if (sp >= 0) {
            H5Treclaim(type, sp, H5P_DEFAULT, dst);
            H5Sclose(sp);
        }
        memset(dst, 0, n * H5Tget_size(type));
        return FAIL;
    }
    return SUCCEED;
}

void ncztr_refval_free(hid_t type, void *data, size_t n)
{
    if (!data)
        return;
    walk w = {W_FREE, NULL, NULL, NULL, NULL, ""};
    walk_n(&w, type, data, NULL, n);
}

herr_t ncztr_refval_ids(hid_t type, const void *data, size_t n, herr_t (*fn)(void *ctx, uint64_t id),
                        void *ctx)
{
    walk w = {W_IDS, NULL, NULL, fn, ctx, ""};
    return walk_n(&w, type, data, NULL, n);
}

herr_t ncztr_refval_copy(hid_t type, const void *src, void *dst, size_t n, const char *what)
{
    walk w = {W_COPY, NULL, NULL, NULL, NULL, what};
    if (walk_n(&w, type, src, dst, n) < 0) {
        ncztr_refval_free(type, dst, n);
        memset(dst, 0, n * H5Tget_size(type));
        return FAIL;
    }
    return SUCCEED;
}
