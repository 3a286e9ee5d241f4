/* Object tokens and references through the connector:
 *  - tokens: the same object has the same token through every path and handle, one fileno
 *    per store, tokens survive H5Lmove and are the same after a reopen for an object at the
 *    same path; H5Oopen_by_token, H5Otoken_to_str/from_str, H5Ovisit3;
 *  - H5Rcreate_object, H5Ropen_object, H5Rget_obj_type3, H5Rget_obj_name (after H5Lmove);
 *  - attributes holding references (scalar, 1-D with a null, vlen of references, compound
 *    with a reference member, N-D, on groups and datasets) written, renamed objects
 *    followed, read back after a reopen; a reference to a deleted object reads as null; a
 *    stored path that names nothing makes that attribute (only) unreadable; pure Zarr
 *    refuses them;
 *  - the blob callbacks: H5VLget_file_type + H5Tconvert both ways on references and on a
 *    vlen of ints, null values (ISNULL/SETNULL) and overwritten ones (DELETE);
 *  - H5Gget_objinfo and the deprecated calls netCDF-C's NC4_isnetcdf4 walk makes.
 * With "--write STORE" it only writes the store of the attribute test, "--write-native FILE"
 * the same as a native HDF5 file (for the readers in test/interop/refs_readers.sh). */
#include "vol_test_util.h"

#include <H5VLconnector.h>
#include <stdint.h>

static char dir[4096];

typedef struct dimref {
    H5R_ref_t ref;
    unsigned dim;
} dimref;

static bool is_null_ref(const H5R_ref_t *r)
{
    static const H5R_ref_t zero;
    return memcmp(r, &zero, sizeof zero) == 0;
}

static H5O_token_t token_of(hid_t loc, const char *name)
{
    H5O_info2_t oi;
    memset(&oi, 0, sizeof oi);
    if (H5Oget_info_by_name3(loc, name, &oi, H5O_INFO_BASIC, H5P_DEFAULT) < 0)
        fprintf(stderr, "H5Oget_info_by_name3(%s) failed\n", name);
    return oi.token;
}

static bool tok_eq(hid_t loc, H5O_token_t a, H5O_token_t b)
{
    int cmp = 1;
    return H5Otoken_cmp(loc, &a, &b, &cmp) >= 0 && cmp == 0;
}

static bool tok_is_zero(H5O_token_t t)
{
    static const H5O_token_t zero;
    return memcmp(&t, &zero, sizeof t) == 0;
}

/* The name a reference leads to ("" on failure). */
static const char *ref_name(H5R_ref_t *r)
{
    static char buf[256];
    buf[0] = '\0';
    if (H5Rget_obj_name(r, H5P_DEFAULT, buf, sizeof buf) < 0)
        buf[0] = '\0';
    return buf;
}

static herr_t make_ref(hid_t loc, const char *name, H5R_ref_t *r)
{
    return H5Rcreate_object(loc, name, H5P_DEFAULT, r);
}

/* ---- tokens ---- */

typedef struct visited {
    char names[16][64];
    H5O_token_t toks[16];
    unsigned long fileno[16];
    int n;
} visited;

static herr_t visit_cb(hid_t o, const char *name, const H5O_info2_t *oi, void *ud)
{
    (void)o;
    visited *v = ud;
    if (v->n < 16) {
        snprintf(v->names[v->n], sizeof v->names[0], "%s", name);
        v->toks[v->n] = oi->token;
        v->fileno[v->n] = oi->fileno;
        v->n++;
    }
    return 0;
}

static void test_tokens(void)
{
    char p[4200];
    hid_t f = create_store_in(dir, "tokens", p, sizeof p);
    hid_t g = H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t s = H5Screate_simple(1, (hsize_t[]){4}, NULL);
    hid_t d = H5Dcreate2(g, "d", H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t top = H5Dcreate2(f, "top", H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    REQUIRE(g >= 0 && d >= 0 && top >= 0, "create objects");
    unsigned long fno = 0;
    CHECK(H5Fget_fileno(f, &fno) >= 0 && fno != 0, "H5Fget_fileno");

    /* the same object through every path and handle */
    H5O_info2_t oi;
    H5O_token_t td = token_of(f, "/g/d");
    CHECK(!tok_is_zero(td), "a token is never all zero (the null reference)");
    CHECK(tok_eq(f, td, token_of(g, "d")), "token by a relative path");
    CHECK(tok_eq(f, td, token_of(d, ".")), "token through the dataset's own id");
    CHECK(H5Oget_info3(d, &oi, H5O_INFO_BASIC) >= 0 && tok_eq(f, td, oi.token) && oi.fileno == fno &&
              oi.type == H5O_TYPE_DATASET && oi.rc == 1,
          "H5Oget_info3 on the dataset");
    CHECK(H5Oget_info3(f, &oi, H5O_INFO_BASIC) >= 0 && oi.fileno == fno && oi.type == H5O_TYPE_GROUP,
          "H5Oget_info3 on the file: one fileno per store");
    hid_t f2 = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
    CHECK(f2 >= 0 && tok_eq(f, td, token_of(f2, "/g/d")), "token through a second open");
    CHECK(H5Oget_info3(f2, &oi, H5O_INFO_BASIC) >= 0 && oi.fileno == fno, "fileno through a second open");
    H5Fclose(f2);
    H5O_token_t tg = token_of(f, "/g"), tt = token_of(f, "/top"), troot = token_of(f, "/");
    CHECK(!tok_eq(f, td, tg) && !tok_eq(f, td, tt) && !tok_eq(f, tg, troot),
          "different objects, different tokens");

    /* strings */
    char *str = NULL;
    H5O_token_t back;
    CHECK(H5Otoken_to_str(f, &td, &str) >= 0 && str && *str, "H5Otoken_to_str");
    CHECK(str && H5Otoken_from_str(f, str, &back) >= 0 && tok_eq(f, td, back), "H5Otoken_from_str(%s)",
          str ? str : "");
    H5free_memory(str);

    /* open by token, also after a rename */
    CHECK(H5Lmove(f, "g", f, "h", H5P_DEFAULT, H5P_DEFAULT) >= 0, "H5Lmove g -> h");
    CHECK(tok_eq(f, td, token_of(f, "/h/d")), "the token survives the rename");
    hid_t o = H5Oopen_by_token(f, td);
    char nm[64] = "";
    CHECK(o >= 0 && H5Iget_name(o, nm, sizeof nm) > 0 && strcmp(nm, "/h/d") == 0,
          "H5Oopen_by_token after the rename: \"%s\"", nm);
    if (o >= 0)
        H5Oclose(o);

    /* H5Ovisit3: every object once, the tokens H5Oget_info gives */
    visited v = {.n = 0};
    CHECK(H5Ovisit3(f, H5_INDEX_NAME, H5_ITER_INC, visit_cb, &v, H5O_INFO_BASIC) >= 0, "H5Ovisit3");
    CHECK(v.n == 4, "H5Ovisit3 visits 4 objects, not %d", v.n);
    for (int i = 0; i < v.n; i++) {
        CHECK(v.fileno[i] == fno, "H5Ovisit3: fileno of %s", v.names[i]);
        CHECK(tok_eq(f, v.toks[i], token_of(f, v.names[i])), "H5Ovisit3: token of %s", v.names[i]);
        for (int j = 0; j < i; j++)
            CHECK(!tok_eq(f, v.toks[i], v.toks[j]), "H5Ovisit3: %s and %s share a token", v.names[i],
                  v.names[j]);
    }
    H5Dclose(d);
    H5Dclose(top);
    H5Gclose(g);
    H5Sclose(s);
    H5Fclose(f);

    /* a reopen: the same token for an object at the same path */
    f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0, "reopen");
    CHECK(tok_eq(f, tt, token_of(f, "/top")), "the token of /top is the same after a reopen");
    CHECK(tok_eq(f, troot, token_of(f, "/")), "the token of the root is the same after a reopen");
    H5O_token_t th = token_of(f, "/h/d");
    H5Fclose(f);
    f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0 && tok_eq(f, th, token_of(f, "/h/d")), "the token of the moved /h/d is stable from now on");
    H5Fclose(f);
}

/* Unlimited dimensions without scales get names of their own ("_Anonymous_UDim_<n>", the
 * first n free), which later opens keep and do not hand out again. */
static void add_unlimited(hid_t f, const char *name)
{
    hid_t s = H5Screate_simple(1, (hsize_t[]){2}, (hsize_t[]){H5S_UNLIMITED});
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, (hsize_t[]){4});
    hid_t d = H5Dcreate2(f, name, H5T_NATIVE_INT, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CHECK(d >= 0, "create %s", name);
    if (d >= 0)
        H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(s);
}

static void test_udim_names(void)
{
    char p[4200], k[4300];
    hid_t f = create_store_in(dir, "udims", p, sizeof p);
    add_unlimited(f, "u1");
    add_unlimited(f, "u2");
    H5Fclose(f);
    snprintf(k, sizeof k, "%s/u2/.zattrs", p);
    CHECK(strstr(slurp(k), "\"/_Anonymous_UDim_2\""), "u2's dimension:\n%s", slurp(k));
    f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(f >= 0, "reopen");
    add_unlimited(f, "u3");
    H5Fclose(f);
    snprintf(k, sizeof k, "%s/u3/.zattrs", p);
    CHECK(strstr(slurp(k), "\"/_Anonymous_UDim_3\""), "u3's dimension:\n%s", slurp(k));
    snprintf(k, sizeof k, "%s/u1/.zattrs", p);
    CHECK(strstr(slurp(k), "\"/_Anonymous_UDim_1\""), "u1 keeps its dimension:\n%s", slurp(k));
}

/* ---- H5R calls ---- */

static void test_refs_api(void)
{
    char p[4200];
    hid_t f = create_store_in(dir, "refapi", p, sizeof p);
    hid_t g = H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t d = H5Dcreate2(g, "d", H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    REQUIRE(g >= 0 && d >= 0, "create objects");
    H5R_ref_t rd, rd2, rg;
    REQUIRE(make_ref(f, "/g/d", &rd) >= 0 && make_ref(d, ".", &rd2) >= 0 && make_ref(g, ".", &rg) >= 0,
            "H5Rcreate_object");
    CHECK(H5Requal(&rd, &rd2) > 0, "references to one object by two paths are equal");
    CHECK(H5Requal(&rd, &rg) == 0, "references to two objects differ");
    H5O_type_t t = H5O_TYPE_UNKNOWN;
    CHECK(H5Rget_obj_type3(&rd, H5P_DEFAULT, &t) >= 0 && t == H5O_TYPE_DATASET, "H5Rget_obj_type3 dataset");
    CHECK(H5Rget_obj_type3(&rg, H5P_DEFAULT, &t) >= 0 && t == H5O_TYPE_GROUP, "H5Rget_obj_type3 group");
    CHECK(strcmp(ref_name(&rd), "/g/d") == 0, "H5Rget_obj_name: %s", ref_name(&rd));
    hid_t o = H5Ropen_object(&rd, H5P_DEFAULT, H5P_DEFAULT);
    H5O_info2_t oi;
    CHECK(o >= 0 && H5Iget_type(o) == H5I_DATASET && H5Oget_info3(o, &oi, H5O_INFO_BASIC) >= 0 &&
              tok_eq(f, oi.token, token_of(f, "/g/d")),
          "H5Ropen_object opens the dataset");
    if (o >= 0)
        H5Oclose(o);
    CHECK(H5Lmove(g, "d", f, "e", H5P_DEFAULT, H5P_DEFAULT) >= 0, "H5Lmove /g/d -> /e");
    CHECK(strcmp(ref_name(&rd), "/e") == 0, "H5Rget_obj_name after H5Lmove: %s", ref_name(&rd));
    o = H5Ropen_object(&rd, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(o >= 0, "H5Ropen_object after H5Lmove");
    if (o >= 0)
        H5Oclose(o);
    H5Rdestroy(&rd);
    H5Rdestroy(&rd2);
    H5Rdestroy(&rg);
    H5Dclose(d);
    H5Gclose(g);
    H5Sclose(s);
    H5Fclose(f);
}

/* ---- attributes holding references ---- */

static hid_t vlen_ref_type(void)
{
    return H5Tvlen_create(H5T_STD_REF);
}

static hid_t dimref_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(dimref));
    H5Tinsert(t, "dataset", HOFFSET(dimref, ref), H5T_STD_REF);
    H5Tinsert(t, "dimension", HOFFSET(dimref, dim), H5T_NATIVE_UINT);
    return t;
}

static herr_t put_attr(hid_t loc, const char *name, hid_t type, hid_t space, const void *buf)
{
    hid_t a = H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    herr_t r = a >= 0 ? H5Awrite(a, type, buf) : -1;
    if (a >= 0)
        H5Aclose(a);
    return r;
}

/* Writes the store the attribute test reads: /g/d (int), /top (int), /g/sub; attributes
 * on the root: scalar -> /g/d, list -> [/g, /g/d, null], vl -> [[/g/d, /top], []],
 * cmp -> [{/g/d, 0}, {/top, 1}], grid (2 x 2) -> /g, /top, /g/d, /; on /g: svl (scalar vlen)
 * -> [/top]; on /top: back -> /. Then /g/d is renamed /g/dd. */
static int write_store(const char *p, bool native)
{
    hid_t f = H5Fcreate(p, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0 || is_nczarr(f) == native)
        return -1;
    hid_t g = H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t sub = H5Gcreate2(g, "sub", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t s1 = H5Screate_simple(1, (hsize_t[]){3}, NULL), sc = H5Screate(H5S_SCALAR);
    hid_t d = H5Dcreate2(g, "d", H5T_NATIVE_INT, s1, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t top = H5Dcreate2(f, "top", H5T_NATIVE_INT, s1, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int ok = g >= 0 && sub >= 0 && d >= 0 && top >= 0;
    H5R_ref_t r1, list[3], v0[2], grid[4];
    memset(list, 0, sizeof list);
    ok = ok && make_ref(f, "/g/d", &r1) >= 0 && make_ref(f, "/g", &list[0]) >= 0 &&
         make_ref(f, "/g/d", &list[1]) >= 0 && make_ref(f, "/g/d", &v0[0]) >= 0 &&
         make_ref(f, "/top", &v0[1]) >= 0;
    ok = ok && make_ref(f, "/g", &grid[0]) >= 0 && make_ref(f, "/top", &grid[1]) >= 0 &&
         make_ref(d, ".", &grid[2]) >= 0 && make_ref(f, "/", &grid[3]) >= 0;
    if (!ok)
        return -1;
    hvl_t vl[2] = {{2, v0}, {0, NULL}};
    dimref cmp[2];
    memset(cmp, 0, sizeof cmp);
    make_ref(f, "/g/d", &cmp[0].ref);
    make_ref(top, ".", &cmp[1].ref);
    cmp[1].dim = 1;
    hid_t s2 = H5Screate_simple(1, (hsize_t[]){2}, NULL), sg = H5Screate_simple(2, (hsize_t[]){2, 2}, NULL);
    hid_t vt = vlen_ref_type(), ct = dimref_type();
    H5R_ref_t vs[1];
    make_ref(f, "/top", &vs[0]);
    hvl_t svl = {1, vs};
    H5R_ref_t back;
    make_ref(f, "/", &back);
    ok = put_attr(f, "scalar", H5T_STD_REF, sc, &r1) >= 0 &&
         put_attr(f, "list", H5T_STD_REF, s1, list) >= 0 && put_attr(f, "vl", vt, s2, vl) >= 0 &&
         put_attr(f, "cmp", ct, s2, cmp) >= 0 && put_attr(f, "grid", H5T_STD_REF, sg, grid) >= 0 &&
         put_attr(g, "svl", vt, sc, &svl) >= 0 && put_attr(top, "back", H5T_STD_REF, sc, &back) >= 0;
    /* renamed after the write: the store names it by its new path */
    ok = ok && H5Lmove(g, "d", g, "dd", H5P_DEFAULT, H5P_DEFAULT) >= 0;
    H5Rdestroy(&r1);
    for (int i = 0; i < 2; i++) {
        H5Rdestroy(&list[i]);
        H5Rdestroy(&v0[i]);
        H5Rdestroy(&cmp[i].ref);
    }
    for (int i = 0; i < 4; i++)
        H5Rdestroy(&grid[i]);
    H5Rdestroy(&vs[0]);
    H5Rdestroy(&back);
    H5Tclose(vt);
    H5Tclose(ct);
    H5Sclose(s1);
    H5Sclose(s2);
    H5Sclose(sg);
    H5Sclose(sc);
    H5Dclose(d);
    H5Dclose(top);
    H5Gclose(sub);
    H5Gclose(g);
    return H5Fclose(f) >= 0 && ok ? 0 : -1;
}

/* Reads attribute `name` of loc with `type` into buf (n elements); its own type must equal it. */
static bool get_attr(hid_t loc, const char *name, hid_t type, void *buf)
{
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    if (a < 0)
        return false;
    hid_t at = H5Aget_type(a);
    bool ok = at >= 0 && H5Tequal(at, type) > 0 && H5Aread(a, type, buf) >= 0;
    if (at >= 0)
        H5Tclose(at);
    H5Aclose(a);
    return ok;
}

static void reclaim(hid_t type, hsize_t n, void *buf)
{
    hid_t s = H5Screate_simple(1, &n, NULL);
    H5Treclaim(type, s, H5P_DEFAULT, buf);
    H5Sclose(s);
}

static void check_attrs(hid_t f, const char *when)
{
    H5R_ref_t r, list[3], grid[4];
    hvl_t vl[2], svl;
    dimref cmp[2];
    hid_t vt = vlen_ref_type(), ct = dimref_type();
    /* zeros (null references, empty sequences) are what a failed read leaves to reclaim */
    memset(&r, 0, sizeof r);
    memset(list, 0, sizeof list);
    memset(grid, 0, sizeof grid);
    memset(vl, 0, sizeof vl);
    memset(&svl, 0, sizeof svl);
    memset(cmp, 0, sizeof cmp);
    CHECK(get_attr(f, "scalar", H5T_STD_REF, &r) && strcmp(ref_name(&r), "/g/dd") == 0, "%s: scalar -> %s",
          when, ref_name(&r));
    reclaim(H5T_STD_REF, 1, &r);
    if (get_attr(f, "list", H5T_STD_REF, list)) {
        CHECK(strcmp(ref_name(&list[0]), "/g") == 0 && strcmp(ref_name(&list[1]), "/g/dd") == 0 &&
                  is_null_ref(&list[2]),
              "%s: list", when);
        H5O_type_t t;
        CHECK(H5Rget_obj_type3(&list[1], H5P_DEFAULT, &t) >= 0 && t == H5O_TYPE_DATASET, "%s: list[1] type",
              when);
        reclaim(H5T_STD_REF, 3, list);
    } else {
        CHECK(0, "%s: read list", when);
    }
    if (get_attr(f, "vl", vt, vl)) {
        CHECK(vl[0].len == 2 && strcmp(ref_name(&((H5R_ref_t *)vl[0].p)[0]), "/g/dd") == 0 &&
                  strcmp(ref_name(&((H5R_ref_t *)vl[0].p)[1]), "/top") == 0 && vl[1].len == 0,
              "%s: vl", when);
        reclaim(vt, 2, vl);
    } else {
        CHECK(0, "%s: read vl", when);
    }
    if (get_attr(f, "cmp", ct, cmp)) {
        CHECK(strcmp(ref_name(&cmp[0].ref), "/g/dd") == 0 && cmp[0].dim == 0 &&
                  strcmp(ref_name(&cmp[1].ref), "/top") == 0 && cmp[1].dim == 1,
              "%s: cmp", when);
        reclaim(ct, 2, cmp);
    } else {
        CHECK(0, "%s: read cmp", when);
    }
    hid_t a = H5Aopen(f, "grid", H5P_DEFAULT), sp = a >= 0 ? H5Aget_space(a) : -1;
    hsize_t dims[2] = {0, 0};
    CHECK(sp >= 0 && H5Sget_simple_extent_ndims(sp) == 2 && H5Sget_simple_extent_dims(sp, dims, NULL) == 2 &&
              dims[0] == 2 && dims[1] == 2,
          "%s: grid is 2 x 2", when);
    if (sp >= 0)
        H5Sclose(sp);
    if (a >= 0 && H5Aread(a, H5T_STD_REF, grid) >= 0) {
        CHECK(strcmp(ref_name(&grid[0]), "/g") == 0 && strcmp(ref_name(&grid[1]), "/top") == 0 &&
                  strcmp(ref_name(&grid[2]), "/g/dd") == 0 && strcmp(ref_name(&grid[3]), "/") == 0,
              "%s: grid", when);
        reclaim(H5T_STD_REF, 4, grid);
    } else {
        CHECK(0, "%s: read grid", when);
    }
    if (a >= 0)
        H5Aclose(a);
    hid_t g = H5Gopen2(f, "g", H5P_DEFAULT);
    a = g >= 0 ? H5Aopen(g, "svl", H5P_DEFAULT) : -1;
    sp = a >= 0 ? H5Aget_space(a) : -1;
    CHECK(sp >= 0 && H5Sget_simple_extent_type(sp) == H5S_SCALAR, "%s: svl is scalar", when);
    if (sp >= 0)
        H5Sclose(sp);
    if (a >= 0 && H5Aread(a, vt, &svl) >= 0) {
        CHECK(svl.len == 1 && strcmp(ref_name(&((H5R_ref_t *)svl.p)[0]), "/top") == 0, "%s: svl", when);
        reclaim(vt, 1, &svl);
    } else {
        CHECK(0, "%s: read svl", when);
    }
    if (a >= 0)
        H5Aclose(a);
    if (g >= 0)
        H5Gclose(g);
    hid_t top = H5Dopen2(f, "top", H5P_DEFAULT);
    memset(&r, 0, sizeof r);
    CHECK(top >= 0 && get_attr(top, "back", H5T_STD_REF, &r) && strcmp(ref_name(&r), "/") == 0, "%s: back",
          when);
    if (top >= 0) {
        reclaim(H5T_STD_REF, 1, &r);
        H5Dclose(top);
    }
    H5Tclose(vt);
    H5Tclose(ct);
}

static void test_ref_attrs(void)
{
    char p[4200], q[4300];
    snprintf(p, sizeof p, "%s/refattrs.zarr", dir);
    REQUIRE(write_store(p, false) == 0, "write the store with reference attributes");
    snprintf(q, sizeof q, "%s/.zattrs", p);
    const char *za = slurp(q);
    CHECK(strstr(za, "\"scalar\": \"/g/dd\"") && strstr(za, "\"list\": [\"/g\",\"/g/dd\",null]"),
          "paths in .zattrs:\n%s", za);
    CHECK(strstr(za, "\"atypes\""), "the exact types are kept:\n%s", za);

    hid_t f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(f >= 0, "reopen");
    check_attrs(f, "after a reopen");
    /* the dataset's attribute is read on first use: objects renamed before still match */
    CHECK(H5Lmove(f, "top", f, "top2", H5P_DEFAULT, H5P_DEFAULT) >= 0 &&
              H5Lmove(f, "top2", f, "top", H5P_DEFAULT, H5P_DEFAULT) >= 0,
          "rename /top and back");
    H5Fclose(f);
    f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(f >= 0, "reopen");
    hid_t g = H5Gopen2(f, "g", H5P_DEFAULT);
    CHECK(H5Lmove(g, "dd", f, "moved", H5P_DEFAULT, H5P_DEFAULT) >= 0, "move /g/dd -> /moved");
    H5R_ref_t r;
    memset(&r, 0, sizeof r);
    CHECK(get_attr(f, "scalar", H5T_STD_REF, &r) && strcmp(ref_name(&r), "/moved") == 0,
          "a reference follows a move: %s", ref_name(&r));
    reclaim(H5T_STD_REF, 1, &r);
    /* a reference to a deleted object reads as null, here and after a reopen */
    CHECK(H5Ldelete(f, "moved", H5P_DEFAULT) >= 0, "delete /moved");
    CHECK(get_attr(f, "scalar", H5T_STD_REF, &r) && is_null_ref(&r),
          "a reference to a deleted object is null");
    H5Gclose(g);
    H5Fclose(f);
    CHECK(strstr(slurp(q), "\"scalar\": null"), "a deleted object's reference is stored as null:\n%s",
          slurp(q));
    f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0 && get_attr(f, "scalar", H5T_STD_REF, &r) && is_null_ref(&r), "null after a reopen");
    H5Fclose(f);

    /* a stored path naming nothing: that attribute cannot be opened, the rest can */
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "sed -i 's#\"list\": \\[\"/g\"#\"list\": [\"/nothere\"#' '%s'", q);
    REQUIRE(system(cmd) == 0, "edit .zattrs");
    f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(f >= 0, "open the edited store");
    errtext_t et;
    hid_t a;
    H5E_BEGIN_TRY
    {
        a = H5Aopen(f, "list", H5P_DEFAULT);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(a < 0 && nczarr_error_has(&et, "/nothere"), "a path naming nothing: %s", et.text);
    if (a >= 0)
        H5Aclose(a);
    hid_t vt = vlen_ref_type();
    hvl_t vl[2];
    memset(vl, 0, sizeof vl);
    CHECK(get_attr(f, "vl", vt, vl) && vl[0].len == 2, "the other attributes stay readable");
    reclaim(vt, 2, vl);
    H5Tclose(vt);
    H5Fclose(f); /* written back as it was */
    CHECK(strstr(slurp(q), "\"/nothere\""), "the unreadable attribute is kept:\n%s", slurp(q));
}

static void test_ref_attr_refusals(void)
{
    char p[4200];
    /* pure Zarr has no place for the type */
    snprintf(p, sizeof p, "file://%s/pure.zarr#mode=zarr,file", dir);
    hid_t f = H5Fcreate(p, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    REQUIRE(f >= 0 && is_nczarr(f), "create a pure Zarr store");
    hid_t s = H5Screate(H5S_SCALAR), a;
    errtext_t et;
    H5E_BEGIN_TRY
    {
        a = H5Acreate2(f, "r", H5T_STD_REF, s, H5P_DEFAULT, H5P_DEFAULT);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(a < 0 && nczarr_error_has(&et, "pure Zarr"), "pure Zarr refuses references: %s", et.text);
    if (a >= 0)
        H5Aclose(a);
    H5Fclose(f);
    f = create_store_in(dir, "oldref", p, sizeof p);
    uint64_t caps = 0;
    hid_t fapl = H5Fget_access_plist(f);
    CHECK(H5Pget_vol_cap_flags(fapl, &caps) >= 0 && (caps & H5VL_CAP_FLAG_OBJ_REF) &&
              (caps & H5VL_CAP_FLAG_REF_BASIC) && (caps & H5VL_CAP_FLAG_REF_MORE) &&
              !(caps & H5VL_CAP_FLAG_REG_REF),
          "the connector claims object references, not region references");
    H5Pclose(fapl);
    /* datasets of references have no Zarr dtype */
    hid_t d;
    H5E_BEGIN_TRY
    {
        d = H5Dcreate2(f, "refs", H5T_STD_REF, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(d < 0 && nczarr_error_has(&et, "refs"), "a dataset of references is refused: %s", et.text);
    if (d >= 0)
        H5Dclose(d);
    /* old-style object references are stored (test_vol_oldrefs.c), region references not */
    H5E_BEGIN_TRY
    {
        a = H5Acreate2(f, "r", H5T_STD_REF_DSETREG, s, H5P_DEFAULT, H5P_DEFAULT);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(a < 0 && nczarr_error_has(&et, "region references"), "region references are refused: %s", et.text);
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(s);
    H5Fclose(f);
}

/* ---- blobs ---- */

/* Three values in memory (hvl_t) or in the file type (smaller), converted in place. */
typedef union vbuf {
    hvl_t v[3];
    unsigned char raw[3 * 16];
} vbuf;

static void test_blobs(void)
{
    char p[4200];
    hid_t f = create_store_in(dir, "blobs", p, sizeof p);
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t d = H5Dcreate2(f, "d", H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t vol = H5VLget_connector_id(f);
    void *fobj = H5VLobject(f);
    REQUIRE(d >= 0 && vol >= 0 && fobj, "setup");

    /* references: an object reference and a null one, to the file type and back */
    hid_t fref = H5VLget_file_type(fobj, vol, H5T_STD_REF);
    REQUIRE(fref >= 0, "H5VLget_file_type(H5T_STD_REF)");
    size_t fsz = H5Tget_size(fref);
    CHECK(fsz > 0 && fsz < sizeof(H5R_ref_t), "the file reference type has %zu bytes", fsz);
    H5R_ref_t orig[2], work[2];
    memset(orig, 0, sizeof orig);
    REQUIRE(make_ref(f, "/d", &orig[0]) >= 0, "H5Rcreate_object");
    memcpy(work, orig, sizeof work);
    CHECK(H5Tconvert(H5T_STD_REF, fref, 2, work, NULL, H5P_DEFAULT) >= 0, "references -> file type");
    CHECK(H5Tconvert(fref, H5T_STD_REF, 2, work, NULL, H5P_DEFAULT) >= 0, "file type -> references");
    CHECK(H5Requal(&work[0], &orig[0]) > 0 && strcmp(ref_name(&work[0]), "/d") == 0,
          "a reference comes back: %s", ref_name(&work[0]));
    CHECK(is_null_ref(&work[1]), "a null reference comes back null");
    H5Rdestroy(&work[0]);
    H5Rdestroy(&orig[0]);
    H5Tclose(fref);

    /* a vlen of ints: two sequences, an empty (null) one; then overwritten */
    hid_t vt = H5Tvlen_create(H5T_NATIVE_INT), fvt = H5VLget_file_type(fobj, vol, vt);
    REQUIRE(fvt >= 0, "H5VLget_file_type(vlen of int)");
    size_t vsz = H5Tget_size(fvt);
    CHECK(vsz == 4 + 8, "the file vlen type has %zu bytes", vsz);
    int a0[3] = {1, 2, 3}, a1[1] = {42}, b0[2] = {7, 8};
    vbuf buf, disk1, bkg, old;
    memset(&buf, 0, sizeof buf);
    buf.v[0] = (hvl_t){3, a0};
    buf.v[1] = (hvl_t){0, NULL};
    buf.v[2] = (hvl_t){1, a1};
    CHECK(H5Tconvert(vt, fvt, 3, buf.raw, NULL, H5P_DEFAULT) >= 0, "vlen -> file type (put, SETNULL)");
    disk1 = buf;
    CHECK(H5Tconvert(fvt, vt, 3, buf.raw, NULL, H5P_DEFAULT) >= 0, "file type -> vlen (get, ISNULL)");
    CHECK(buf.v[0].len == 3 && buf.v[0].p && memcmp(buf.v[0].p, a0, sizeof a0) == 0 && buf.v[1].len == 0 &&
              buf.v[1].p == NULL && buf.v[2].len == 1 && buf.v[2].p && ((int *)buf.v[2].p)[0] == 42,
          "vlen values come back");
    reclaim(vt, 3, buf.raw);
    /* overwriting the stored values deletes their blobs: the old file values are gone */
    memset(&buf, 0, sizeof buf);
    buf.v[0] = (hvl_t){2, b0};
    buf.v[1] = (hvl_t){0, NULL};
    buf.v[2] = (hvl_t){0, NULL};
    bkg = disk1;
    CHECK(H5Tconvert(vt, fvt, 3, buf.raw, bkg.raw, H5P_DEFAULT) >= 0, "overwrite (DELETE of the old blobs)");
    old = disk1;
    herr_t r;
    H5E_BEGIN_TRY
    {
        r = H5Tconvert(fvt, vt, 3, old.raw, NULL, H5P_DEFAULT);
    }
    H5E_END_TRY
    CHECK(r < 0, "a deleted blob cannot be read");
    CHECK(H5Tconvert(fvt, vt, 3, buf.raw, NULL, H5P_DEFAULT) >= 0 && buf.v[0].len == 2 &&
              ((int *)buf.v[0].p)[1] == 8 && buf.v[1].p == NULL && buf.v[2].p == NULL,
          "the new values come back");
    reclaim(vt, 3, buf.raw);
    H5Tclose(fvt);
    H5Tclose(vt);
    H5VLclose(vol);
    H5Dclose(d);
    H5Sclose(s);
    H5Fclose(f);
}

/* ---- what netCDF-C asks: H5Gget_objinfo and the deprecated walk of NC4_isnetcdf4 ---- */

static void test_deprecated(void)
{
    char p[4200];
    hid_t f = create_store_in(dir, "deprec", p, sizeof p);
    hid_t g = H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t d = H5Dcreate2(f, "v", H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int one = 1;
    put_attr(d, "long_name", H5T_NATIVE_INT, s, &one);
    put_attr(d, "units", H5T_NATIVE_INT, s, &one);
    H5Dclose(d);
    H5Gclose(g);
    H5Fclose(f);
    f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0, "reopen");
    unsigned long fno = 0;
    H5Fget_fileno(f, &fno);

    H5G_stat_t st;
    memset(&st, 0, sizeof st);
    CHECK(H5Gget_objinfo(f, "v", 1, &st) >= 0 && st.type == H5G_DATASET && st.fileno[0] == fno,
          "H5Gget_objinfo of a dataset");
    H5O_token_t tv = token_of(f, "v");
    uint64_t id = 0;
    memcpy(&id, &tv, sizeof id);
    CHECK(st.objno[0] == (unsigned long)id, "H5Gget_objinfo's objno is the token");
    CHECK(H5Gget_objinfo(f, "g", 1, &st) >= 0 && st.type == H5G_GROUP, "H5Gget_objinfo of a group");
    herr_t r;
    H5E_BEGIN_TRY
    {
        r = H5Gget_objinfo(f, "nothere", 1, &st);
    }
    H5E_END_TRY
    CHECK(r < 0, "H5Gget_objinfo of nothing fails");

    hsize_t n = 0;
    CHECK(H5Gget_num_objs(f, &n) >= 0 && n == 2, "H5Gget_num_objs: %llu", (unsigned long long)n);
    int datasets = 0, groups = 0, attrs = 0;
    for (hsize_t i = 0; i < n; i++) {
        char name[64] = "";
        ssize_t len = H5Gget_objname_by_idx(f, i, name, sizeof name);
        int ot = H5Gget_objtype_by_idx(f, i);
        CHECK(len > 0 && (ot == H5G_GROUP || ot == H5G_DATASET), "object %llu: %s", (unsigned long long)i,
              name);
        if (ot == H5G_GROUP) {
            hid_t gi = H5Gopen1(f, name);
            groups += gi >= 0;
            if (gi >= 0)
                H5Gclose(gi);
        } else if (ot == H5G_DATASET) {
            hid_t di = H5Dopen1(f, name);
            datasets += di >= 0;
            int na = di >= 0 ? H5Aget_num_attrs(di) : -1;
            CHECK(na == 2, "H5Aget_num_attrs: %d", na);
            for (int j = 0; j < na; j++) {
                hid_t ai = H5Aopen_idx(di, (unsigned)j);
                char an[64] = "";
                if (ai >= 0 && H5Aget_name(ai, sizeof an, an) > 0)
                    attrs += strcmp(an, j == 0 ? "long_name" : "units") == 0;
                if (ai >= 0)
                    H5Aclose(ai);
            }
            if (di >= 0)
                H5Dclose(di);
        }
    }
    CHECK(groups == 1 && datasets == 1 && attrs == 2, "the walk: %d groups, %d datasets, %d attributes",
          groups, datasets, attrs);
    H5Sclose(s);
    H5Fclose(f);
}

int main(int argc, char **argv)
{
    if (argc == 3 && (strcmp(argv[1], "--write") == 0 || strcmp(argv[1], "--write-native") == 0))
        return write_store(argv[2], strcmp(argv[1], "--write-native") == 0) == 0 ? EXIT_SUCCESS
                                                                                 : EXIT_FAILURE;
    scratch_dir(dir, sizeof dir, "refs");
    test_tokens();
    test_udim_names();
    test_refs_api();
    test_ref_attrs();
    test_ref_attr_refusals();
    test_blobs();
    test_deprecated();
    rm_rf(dir);
    TEST_MAIN_END();
}
