/* The .zattrs of an array or group with nothing of its own in it is written as text
 * (translate/store/ncztr_savetext.c), that of one with attributes from a tree of JSON values
 * (build_zattrs in ncztr_save.c). The two must say the same: for each kind of dataset and
 * for a group, one object is made without attributes and one alike with an attribute of
 * its own; with that attribute (and its entry in "_nczarr_attr.types") taken out, the second
 * .zattrs must be the first, key for key and in the same order. In the NCZarr mode, with
 * noxarray, and in the pure Zarr mode. */
#include "vol_test_util.h"

#include <hdf5_hl.h>
#include <jansson.h>
#include <sys/wait.h>

#define USER_ATTR "zz_user"

typedef hid_t (*maker)(hid_t loc, const char *name);

static hid_t space1(hsize_t n, hsize_t max)
{
    return H5Screate_simple(1, &n, &max);
}

/* The dataset name of type and space sp made with dcpl (or H5P_DEFAULT); sp, dcpl and, when
 * own_type, type are closed. */
static hid_t ds(hid_t loc, const char *name, hid_t type, bool own_type, hid_t sp, hid_t dcpl)
{
    hid_t d = H5Dcreate2(loc, name, type, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (dcpl != H5P_DEFAULT)
        H5Pclose(dcpl);
    if (own_type)
        H5Tclose(type);
    H5Sclose(sp);
    return d;
}

static hid_t mk_plain(hid_t loc, const char *name)
{
    return ds(loc, name, H5T_STD_I32LE, false, space1(10, 10), H5P_DEFAULT);
}

static hid_t mk_scalar(hid_t loc, const char *name)
{
    return ds(loc, name, H5T_IEEE_F64LE, false, H5Screate(H5S_SCALAR), H5P_DEFAULT);
}

static hid_t mk_null(hid_t loc, const char *name)
{
    return ds(loc, name, H5T_STD_U8LE, false, H5Screate(H5S_NULL), H5P_DEFAULT);
}

/* chunked, 2-D, a maximum beyond the shape, a fill value of zero set */
static hid_t mk_chunked(hid_t loc, const char *name)
{
    hsize_t dims[2] = {6, 8}, max[2] = {12, 8}, chunk[2] = {3, 4};
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    int zero = 0;
    H5Pset_chunk(dcpl, 2, chunk);
    H5Pset_fill_value(dcpl, H5T_NATIVE_INT, &zero);
    return ds(loc, name, H5T_STD_I16BE, false, H5Screate_simple(2, dims, max), dcpl);
}

static hid_t mk_compact(hid_t loc, const char *name)
{
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_layout(dcpl, H5D_COMPACT);
    return ds(loc, name, H5T_IEEE_F32LE, false, space1(4, 4), dcpl);
}

static hid_t mk_enum(hid_t loc, const char *name)
{
    hid_t t = H5Tenum_create(H5T_NATIVE_INT);
    int v = 0;
    H5Tenum_insert(t, "RED", &v);
    v = 1;
    H5Tenum_insert(t, "GREEN", &v);
    return ds(loc, name, t, true, space1(3, 3), H5P_DEFAULT);
}

/* fixed-length (size 7) or variable-length strings */
static hid_t mk_string(hid_t loc, const char *name, size_t size)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, size);
    return ds(loc, name, t, true, space1(2, 2), H5P_DEFAULT);
}

static hid_t mk_fixed_string(hid_t loc, const char *name)
{
    return mk_string(loc, name, 7);
}

static hid_t mk_vlen_string(hid_t loc, const char *name)
{
    return mk_string(loc, name, H5T_VARIABLE);
}

/* an array on a dimension scale (DIMENSION_LIST), both arrays of a pair on the same one */
static hid_t mk_on_scale(hid_t loc, const char *name)
{
    hid_t ssp = space1(5, 5), s;
    H5E_BEGIN_TRY
    {
        s = H5Dopen2(loc, "xs", H5P_DEFAULT);
    }
    H5E_END_TRY
    if (s < 0) {
        s = H5Dcreate2(loc, "xs", H5T_IEEE_F32LE, ssp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        H5DSset_scale(s, "xs");
    }
    hid_t d = H5Dcreate2(loc, name, H5T_STD_I32LE, ssp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (s < 0 || d < 0 || H5DSattach_scale(d, s, 0) < 0) {
        fprintf(stderr, "cannot attach %s to the scale xs\n", name);
        exit(1);
    }
    H5Dclose(s);
    H5Sclose(ssp);
    return d;
}

/* a record of more than 1 MiB whose fill value is zero ("fill_zero"; the type in
 * "hdf5_type") */
static hid_t mk_big_record(hid_t loc, const char *name)
{
    hsize_t n = 300000;
    hid_t t = H5Tarray_create2(H5T_STD_I32LE, 1, &n), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    int *zeros = calloc(n, sizeof *zeros);
    H5Pset_fill_value(dcpl, t, zeros);
    free(zeros);
    return ds(loc, name, t, true, space1(1, 1), dcpl);
}

/* a committed datatype ("hdf5_datatype") */
static hid_t mk_named_type(hid_t loc, const char *name)
{
    hid_t t = H5Tcopy(H5T_STD_U16BE);
    if (H5Tcommit2(loc, name, t, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) < 0) {
        H5Tclose(t);
        return H5I_INVALID_HID;
    }
    return t;
}

#ifdef H5T_IEEE_F16LE
/* 16-bit floats, stored as float32 ("hdf5_dtype") */
static hid_t mk_half(hid_t loc, const char *name)
{
    return ds(loc, name, H5T_IEEE_F16LE, false, space1(4, 4), H5P_DEFAULT);
}
#endif

static const struct {
    const char *name;
    maker make;
} kinds[] = {
    {"plain", mk_plain},
    {"scalar", mk_scalar},
    {"null", mk_null},
    {"chunked", mk_chunked},
    {"compact", mk_compact},
    {"enum", mk_enum},
    {"fixedstr", mk_fixed_string},
    {"vlenstr", mk_vlen_string},
    {"onscale", mk_on_scale},
    {"bigrecord", mk_big_record},
    {"namedtype", mk_named_type},
#ifdef H5T_IEEE_F16LE
    {"half", mk_half},
#endif
};

/* The pure Zarr mode has no place for a committed datatype. */
static bool made_in(size_t k, const char *mode)
{
    return !(kinds[k].make == mk_named_type && strncmp(mode, "zarr", 4) == 0);
}

/* two numbers: stored as a list, of the shape a reader gives it (no "hdf5.ashapes") */
static void add_user_attr(hid_t obj)
{
    hid_t sp = space1(2, 2);
    int v[2] = {42, 43};
    hid_t a = H5Acreate2(obj, USER_ATTR, H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_INT, v);
    H5Aclose(a);
    H5Sclose(sp);
}

static json_t *load(const char *store, const char *key)
{
    char path[8192];
    json_error_t err;
    snprintf(path, sizeof path, "%s/%s/.zattrs", store, key);
    json_t *j = json_load_file(path, 0, &err);
    if (!j)
        fprintf(stderr, "%s: %s\n", path, err.text);
    return j;
}

/* The .zattrs of `with` (the attribute taken out) against that of `without`. */
static void compare(const char *store, const char *mode, const char *without, const char *with)
{
    json_t *a = load(store, without), *b = load(store, with);
    CHECK(a && b, "%s: the .zattrs of %s and %s read", mode, without, with);
    if (a && b) {
        CHECK(json_object_get(b, USER_ATTR) != NULL, "%s: %s has its attribute", mode, with);
        json_object_del(b, USER_ATTR);
        json_t *types = json_object_get(json_object_get(b, "_nczarr_attr"), "types");
        if (types)
            json_object_del(types, USER_ATTR);
        char *ta = json_dumps(a, JSON_COMPACT), *tb = json_dumps(b, JSON_COMPACT);
        CHECK(ta && tb && strcmp(ta, tb) == 0, "%s: %s and %s say the same:\n  %s\n  %s", mode, without, with,
              ta ? ta : "", tb ? tb : "");
        free(ta);
        free(tb);
    }
    json_decref(a);
    json_decref(b);
}

/* Writes the objects, in a child process: HDF5's H5DSattach_scale (1.14.6) leaks the
 * references it reads from an existing REFERENCE_LIST, which hold the file open until the
 * program exits and the connector writes it then (see test_vol_dimscales.c). */
static void write_store(const char *url, const char *mode)
{
    hid_t f = H5Fcreate(url, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    REQUIRE(f >= 0 && is_nczarr(f), "%s: create %s through the connector", mode, url);
    char name[64];
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        for (int with = 0; with < 2 && made_in(k, mode); with++) {
            snprintf(name, sizeof name, "%s_%s", kinds[k].name, with ? "attr" : "none");
            hid_t d = kinds[k].make(f, name);
            REQUIRE(d >= 0, "%s: create %s", mode, name);
            if (with)
                add_user_attr(d);
            H5Oclose(d);
        }
    /* groups: one with an array in it, one with a group in it */
    for (int with = 0; with < 2; with++) {
        snprintf(name, sizeof name, "grp_%s", with ? "attr" : "none");
        hid_t g = H5Gcreate2(f, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        REQUIRE(g >= 0, "%s: create %s", mode, name);
        hid_t d = mk_plain(g, "v"), s = H5Gcreate2(g, "sub", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (with)
            add_user_attr(g);
        H5Dclose(d);
        H5Gclose(s);
        H5Gclose(g);
    }
    REQUIRE(H5Fclose(f) >= 0, "%s: close", mode);
}

static void run_mode(const char *dir, const char *mode)
{
    char store[4200], url[4400];
    snprintf(store, sizeof store, "%s/%s.zarr", dir, mode);
    snprintf(url, sizeof url, "file://%s#mode=%s", store, mode);
    int failed = ncz_test_failed_;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        write_store(url, mode);
        exit(ncz_test_failed_ > failed ? 1 : 0);
    }
    int status = -1;
    REQUIRE(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
            "%s: the objects written (child status %d)", mode, status);
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        if (!made_in(k, mode))
            continue;
        char a[64], b[64];
        snprintf(a, sizeof a, "%s_none", kinds[k].name);
        snprintf(b, sizeof b, "%s_attr", kinds[k].name);
        compare(store, mode, a, b);
    }
    compare(store, mode, "grp_none", "grp_attr");
}

int main(void)
{
    char dir[4096];
    scratch_dir(dir, sizeof dir, "zattrs-text");
    run_mode(dir, "nczarr,file");
    run_mode(dir, "nczarr,file,noxarray");
    run_mode(dir, "zarr,file");
    scratch_done(dir, "zattrs-text");
    TEST_MAIN_END();
}
