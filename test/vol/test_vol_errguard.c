/* HDF5 1.14's deprecated H5Rcreate refuses an object of a store with an error entry whose
 * clearing drops a reference to H5E_VOL that it never took (ncztr_h5compat.h). Many
 * refusals in a row, more than the references the connector gives H5E_VOL when it starts,
 * with a connector call between batches of them (where it tops them up): the error stack
 * still prints and clears, the message still has its text, and the store still works.
 * Not under valgrind (a million refusals). */
#include "vol_test_util.h"

static char dir[4096];

static herr_t count_walk(unsigned n, const H5E_error2_t *e, void *ud)
{
    (void)n;
    char msg[128] = "";
    if (e->min_num == H5E_VOL && H5Eget_msg(e->min_num, NULL, msg, sizeof msg) > 0 &&
        strstr(msg, "Virtual Object Layer"))
        (*(int *)ud)++;
    return 0;
}

static void run(void)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/g.zarr", dir);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    REQUIRE(f >= 0 && is_nczarr(f), "create a store through the connector");
    hid_t g = H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    REQUIRE(g >= 0, "create a group");
    /* 4 batches of 100000: 400000 refusals, beyond what H5E_VOL is given at the start */
    for (int batch = 0; batch < 4; batch++) {
        for (int i = 0; i < 100000; i++) {
            hobj_ref_t r;
            H5E_BEGIN_TRY
            {
                H5Rcreate(&r, f, "g", H5R_OBJECT, -1);
            }
            H5E_END_TRY
        }
        H5O_info2_t oi;
        CHECK(H5Oget_info_by_name3(f, "g", &oi, H5O_INFO_BASIC, H5P_DEFAULT) >= 0,
              "batch %d: the store works", batch);
    }
    /* one more refusal: its entry names H5E_VOL, whose message is still there */
    hobj_ref_t r;
    herr_t rr;
    H5E_BEGIN_TRY
    {
        rr = H5Rcreate(&r, f, "g", H5R_OBJECT, -1);
    }
    H5E_END_TRY
    CHECK(rr < 0, "H5Rcreate of a store's group is refused");
    int named = 0;
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, count_walk, &named);
    CHECK(named > 0, "the refusal's entry still names H5E_VOL's message");
    FILE *null = fopen("/dev/null", "w");
    CHECK(null && H5Eprint2(H5E_DEFAULT, null) >= 0, "the error stack prints");
    if (null)
        fclose(null);
    CHECK(H5Eclear2(H5E_DEFAULT) >= 0, "and clears");
    CHECK(H5Gclose(g) >= 0 && H5Fclose(f) >= 0, "close");
}

int main(void)
{
    scratch_dir(dir, sizeof dir, "errguard");
    run();
    rm_rf(dir);
    TEST_MAIN_END();
}
