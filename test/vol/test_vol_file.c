/* File-level behaviour through the connector: create/open/close, TRUNC and EXCL, flush,
 * H5Fdelete, H5Fis_accessible on paths that are not ours, the file queries, the root
 * group as netCDF-C writes it, and clear errors for bad stores. */
#include "vol_test_util.h"

#include <sys/stat.h>

static char dir[4096];

static void path_in(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", dir, name);
}

static void test_create_open(void)
{
    char p[4200], k[4300];
    path_in(p, sizeof p, "a.zarr");
    hid_t f = H5Fcreate(p, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    REQUIRE(f >= 0, "H5Fcreate %s", p);
    CHECK(is_nczarr(f), "file id is not served by the nczarr connector");

    /* the root is written at once, as netCDF-C writes it */
    snprintf(k, sizeof k, "%s/.zgroup", p);
    CHECK(strstr(slurp(k), "\"zarr_format\"") != NULL, ".zgroup missing or wrong: %s", slurp(k));
    snprintf(k, sizeof k, "%s/.zattrs", p);
    const char *za = slurp(k);
    CHECK(strstr(za, "_nczarr_superblock") && strstr(za, "_nczarr_group") && strstr(za, "_nczarr_attr"),
          "root .zattrs lacks NCZarr keys: %s", za);
    CHECK(strstr(za, "2.0.0") != NULL, "superblock version missing: %s", za);

    unsigned intent = 0;
    CHECK(H5Fget_intent(f, &intent) >= 0 && (intent & H5F_ACC_RDWR), "intent after create");
    char name[4200];
    CHECK(H5Fget_name(f, name, sizeof name) > 0 && strcmp(name, p) == 0, "H5Fget_name gave %s", name);
    unsigned long fno = 0;
    CHECK(H5Fget_fileno(f, &fno) >= 0 && fno != 0, "fileno");
    hid_t fcpl = H5Fget_create_plist(f), fapl = H5Fget_access_plist(f);
    CHECK(fcpl >= 0 && fapl >= 0, "fcpl/fapl");
    H5Pclose(fcpl);
    H5Pclose(fapl);
    hid_t g = H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(g >= 0, "group create");
    CHECK(H5Fget_obj_count(f, H5F_OBJ_ALL) == 2, "obj count %zd", H5Fget_obj_count(f, H5F_OBJ_ALL));
    CHECK(H5Fget_obj_count(f, H5F_OBJ_GROUP) == 1, "group count");
    hid_t ids[4];
    CHECK(H5Fget_obj_ids(f, H5F_OBJ_GROUP, 4, ids) == 1 && ids[0] == g, "obj ids");
    CHECK(H5Fflush(f, H5F_SCOPE_GLOBAL) >= 0, "flush");
    /* the file id closes before the group: the group keeps the store alive */
    CHECK(H5Fclose(f) >= 0, "close file");
    hid_t g2 = H5Gcreate2(g, "inner", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(g2 >= 0, "group create after file close");
    hid_t f3 = H5Iget_file_id(g2);
    CHECK(f3 >= 0 && is_nczarr(f3), "H5Iget_file_id after close");
    H5Fclose(f3);
    H5Gclose(g2);
    H5Gclose(g);

    /* EXCL fails on an existing store; TRUNC replaces it */
    H5E_BEGIN_TRY
    {
        f = H5Fcreate(p, H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
    }
    H5E_END_TRY
    CHECK(f < 0, "H5F_ACC_EXCL on an existing store must fail");
    f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0 && is_nczarr(f), "reopen read-only");
    CHECK(H5Lexists(f, "g", H5P_DEFAULT) > 0, "group g persisted");
    CHECK(H5Lexists(f, "g/inner", H5P_DEFAULT) > 0, "group g/inner persisted");
    CHECK(H5Fget_intent(f, &intent) >= 0 && intent == H5F_ACC_RDONLY, "intent read-only");
    H5E_BEGIN_TRY
    {
        g = H5Gcreate2(f, "nope", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    }
    H5E_END_TRY
    CHECK(g < 0, "creating in a read-only store must fail");
    H5Fclose(f);
    f = H5Fcreate(p, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(f >= 0, "TRUNC create");
    CHECK(H5Lexists(f, "g", H5P_DEFAULT) == 0, "TRUNC replaced the store");
    H5Fclose(f);
    f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
    CHECK(f >= 0, "open RDWR");
    hid_t f2 = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f2 >= 0, "open twice");
    H5Fclose(f2);
    H5Fclose(f);

    /* H5Fdelete removes the store */
    CHECK(H5Fdelete(p, H5P_DEFAULT) >= 0, "H5Fdelete");
    struct stat sb;
    CHECK(stat(p, &sb) != 0, "store still exists after H5Fdelete");
}

static void test_url_names(void)
{
    char p[4200], url[4400];
    path_in(p, sizeof p, "url.zarr");
    snprintf(url, sizeof url, "file://%s#mode=nczarr,file", p);
    hid_t f = H5Fcreate(url, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(f >= 0 && is_nczarr(f), "create by URL %s", url);
    H5Fclose(f);
    CHECK(H5Fis_accessible(url, H5P_DEFAULT) > 0, "is_accessible(URL)");
    CHECK(H5Fis_accessible(p, H5P_DEFAULT) > 0, "is_accessible(path)");
    f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0, "open the URL-created store by path");
    H5Fclose(f);
}

static void test_not_ours(void)
{
    char p[4200], h5[4200];
    path_in(p, sizeof p, "missing.zarr");
    htri_t r;
    H5E_BEGIN_TRY
    {
        r = H5Fis_accessible(p, H5P_DEFAULT);
    }
    H5E_END_TRY
    CHECK(r <= 0, "missing path is not accessible");
    path_in(h5, sizeof h5, "plain.h5");
    FILE *fp = fopen(h5, "wb");
    fputs("\x89HDF\r\n\x1a\n not really", fp);
    fclose(fp);
    /* Files with HDF5's signature go to HDF5's native connector (test_vol_native.c): the
     * answer is native HDF5's, and this one's superblock is garbage. */
    hid_t nfapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_vol(nfapl, H5VL_NATIVE, NULL);
    htri_t rn;
    hid_t f;
    H5E_BEGIN_TRY
    {
        r = H5Fis_accessible(h5, H5P_DEFAULT);
        rn = H5Fis_accessible(h5, nfapl);
        f = H5Fopen(h5, H5F_ACC_RDONLY, H5P_DEFAULT);
    }
    H5E_END_TRY
    H5Pclose(nfapl);
    CHECK(r == rn, "an HDF5 file is accessible as native HDF5 says (%d, native %d)", (int)r, (int)rn);
    CHECK(f < 0, "a damaged HDF5 file does not open");
    if (f >= 0)
        H5Fclose(f);
    H5E_BEGIN_TRY
    {
        r = H5Fis_accessible("https://example.invalid/x#mode=bytes", H5P_DEFAULT);
    }
    H5E_END_TRY
    CHECK(r <= 0, "another URL is not ours");
    H5E_BEGIN_TRY
    {
        r = H5Fis_accessible(dir, H5P_DEFAULT);
    }
    H5E_END_TRY
    CHECK(r <= 0, "a plain directory is not a store");
}

/* Run by ncz_run_unprivileged: a read-only store cannot be opened RDWR, and still opens
 * read-only. */
static void open_read_only_store(void *path)
{
    expect_open_error(path, H5F_ACC_RDWR, "ro.zarr", "read-only store opened RDWR");
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0, "a read-only store still opens read-only");
    if (f >= 0)
        H5Fclose(f);
}

static void test_bad_stores(void)
{
    char p[4200], k[4300];
    /* a directory that is not a store */
    path_in(p, sizeof p, "notastore");
    mkdir(p, 0755);
    snprintf(k, sizeof k, "%s/readme.txt", p);
    FILE *fp = fopen(k, "w");
    fputs("hello", fp);
    fclose(fp);
    expect_open_error(p, H5F_ACC_RDONLY, "notastore", "directory that is not a store");

    /* corrupt .zattrs */
    path_in(p, sizeof p, "corrupt.zarr");
    hid_t f = H5Fcreate(p, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    H5Fclose(f);
    snprintf(k, sizeof k, "%s/.zattrs", p);
    fp = fopen(k, "w");
    fputs("{\"_nczarr_group\": {\"dimensions\": {}, ", fp);
    fclose(fp);
    expect_open_error(p, H5F_ACC_RDONLY, ".zattrs", "corrupt .zattrs");

    /* a store under a missing parent */
    path_in(p, sizeof p, "no/such/parent/x.zarr");
    errtext_t et;
    H5E_BEGIN_TRY
    {
        f = H5Fcreate(p, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(f < 0, "create under a missing parent must fail");
    CHECK(nczarr_error_has(&et, "parent"), "missing parent error should say so:\n%s", et.text);

    /* a read-only store opened RDWR, as a user without privileges (root may write anywhere) */
    path_in(p, sizeof p, "ro.zarr");
    f = H5Fcreate(p, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    H5Fclose(f);
    chmod(p, 0555);
    chmod(dir, 0755);
    ncz_run_unprivileged("read-only store opened RDWR", open_read_only_store, p);
    chmod(p, 0755);
}

/* The store's directory removed while a group of it is open (a test harness deleting its
 * temporary directory before the program closes its ids, as h5py's suite does): closing
 * the group succeeds and its id is gone (a failed close used to free the handle and leave
 * the id, and the next close read freed memory); the store, which cannot be written, stays
 * open with a warning on the stack and is given up at exit with a message. */
static void test_store_removed(void)
{
    char p[4200];
    hid_t f = create_store_in(dir, "removed", p, sizeof p);
    REQUIRE(f >= 0, "create");
    hid_t g = H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t g2 = H5Gcreate2(g, "sub", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(g >= 0 && g2 >= 0 && H5Fclose(f) >= 0, "groups of a store whose file id is closed");
    rm_rf(p);
    herr_t r;
    errtext_t et;
    H5E_BEGIN_TRY
    {
        r = H5Gclose(g2) < 0 ? -1 : H5Gclose(g);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(r >= 0 && nczarr_error_has(&et, "stays open"), "closing the groups of a removed store:\n%s",
          et.text);
    H5E_BEGIN_TRY
    {
        r = H5Idec_ref(g);
    }
    H5E_END_TRY
    CHECK(r < 0, "the group's id is gone");
}

int main(void)
{
    scratch_dir(dir, sizeof dir, "file");
    chmod(dir, 0755);
    test_create_open();
    test_url_names();
    test_not_ours();
    test_bad_stores();
    test_store_removed();
    rm_rf(dir);
    TEST_MAIN_END();
}
