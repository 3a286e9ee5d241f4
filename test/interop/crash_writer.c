/* An ordinary HDF5 program that rewrites the metadata of many objects and flushes, again
 * and again, until it is killed (crash_flush.sh kills it with SIGKILL inside a flush).
 * Generation g: every group and dataset gets attribute "gen" = g and a long text attribute
 * naming g, so each flush rewrites every .zattrs. Before each flush it prints "flush g",
 * after it g.
 *   crash_writer STORE [max_generations [ngroups [nnew]]]
 * A store that exists is opened and continued from its root's "gen". ngroups (default 20)
 * groups of 10 datasets: 221 objects per flush, or few enough (2: 23) for the directory
 * store's per-object syncs instead of its whole-file-system ones. nnew (default 0): each
 * generation g also makes a new group "new<g>" of nnew datasets, which the directory store
 * writes as a new subtree renamed into place once. */
#include "connector_check.h"

#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NARRAYS 10

static int set_gen(hid_t obj, int g)
{
    char text[4096];
    int n = snprintf(text, sizeof text, "generation %d:", g);
    while (n < (int)sizeof text - 16)
        n += snprintf(text + n, sizeof text - (size_t)n, " %d", g);
    hid_t s = H5Screate(H5S_SCALAR), t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, strlen(text) + 1);
    int rc = 0;
    for (int k = 0; k < 2; k++) {
        const char *name = k ? "text" : "gen";
        hid_t mt = k ? t : H5T_NATIVE_INT, ft = k ? t : H5T_STD_I32LE;
        const void *v = k ? (const void *)text : (const void *)&g;
        if (H5Aexists(obj, name) > 0)
            H5Adelete(obj, name);
        hid_t a = H5Acreate2(obj, name, ft, s, H5P_DEFAULT, H5P_DEFAULT);
        if (a < 0 || H5Awrite(a, mt, v) < 0)
            rc = -1;
        if (a >= 0)
            H5Aclose(a);
    }
    H5Tclose(t);
    H5Sclose(s);
    return rc;
}

/* Group "new<g>" with nnew one-element datasets, all at generation g (a run killed after
 * its flush renamed the group into place may find it: it is then left as it is). */
static int new_group(hid_t f, int g, int nnew)
{
    char name[32];
    snprintf(name, sizeof name, "new%06d", g);
    if (H5Lexists(f, name, H5P_DEFAULT) > 0)
        return 0;
    hsize_t d = 1;
    hid_t sp = H5Screate_simple(1, &d, NULL), gr = H5Gcreate2(f, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int rc = sp < 0 || gr < 0 || set_gen(gr, g) < 0 ? -1 : 0;
    for (int j = 0; j < nnew && rc == 0; j++) {
        snprintf(name, sizeof name, "v%03d", j);
        hid_t ds = H5Dcreate2(gr, name, H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        rc = ds < 0 || set_gen(ds, g) < 0 ? -1 : 0;
        if (ds >= 0)
            H5Dclose(ds);
    }
    if (gr >= 0)
        H5Gclose(gr);
    if (sp >= 0)
        H5Sclose(sp);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: crash_writer STORE [max_generations [ngroups]]\n");
        return 2;
    }
    int max = argc > 2 ? atoi(argv[2]) : 1000000;
    int ngroups = argc > 3 ? atoi(argv[3]) : 20;
    int nnew = argc > 4 ? atoi(argv[4]) : 0;
    hid_t f = H5Fopen(argv[1], H5F_ACC_RDWR, H5P_DEFAULT);
    int g = 0;
    if (f < 0) {
        f = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        if (f < 0)
            return 1;
        ncz_expect_connector(f, argv[1]);
        hsize_t d = 4;
        hid_t sp = H5Screate_simple(1, &d, NULL);
        for (int i = 0; i < ngroups; i++) {
            char name[32];
            snprintf(name, sizeof name, "g%02d", i);
            hid_t gr = H5Gcreate2(f, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
            for (int j = 0; j < NARRAYS; j++) {
                snprintf(name, sizeof name, "v%02d", j);
                hid_t ds = H5Dcreate2(gr, name, H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
                H5Dclose(ds);
            }
            H5Gclose(gr);
        }
        H5Sclose(sp);
    } else {
        ncz_expect_connector(f, argv[1]);
        hid_t a = H5Aopen(f, "gen", H5P_DEFAULT);
        if (a < 0 || H5Aread(a, H5T_NATIVE_INT, &g) < 0)
            return 1;
        H5Aclose(a);
    }
    for (int n = 0; n < max; n++) {
        g++;
        if (set_gen(f, g) < 0)
            return 1;
        for (int i = 0; i < ngroups; i++) {
            char name[32];
            snprintf(name, sizeof name, "g%02d", i);
            hid_t gr = H5Gopen2(f, name, H5P_DEFAULT);
            if (gr < 0 || set_gen(gr, g) < 0)
                return 1;
            for (int j = 0; j < NARRAYS; j++) {
                snprintf(name, sizeof name, "v%02d", j);
                hid_t ds = H5Dopen2(gr, name, H5P_DEFAULT);
                if (ds < 0 || set_gen(ds, g) < 0)
                    return 1;
                H5Dclose(ds);
            }
            H5Gclose(gr);
        }
        if (nnew > 0 && new_group(f, g, nnew) < 0)
            return 1;
        /* "flush G" then "G": a kill between the two landed inside the flush */
        printf("flush %d\n", g);
        fflush(stdout);
        if (H5Fflush(f, H5F_SCOPE_GLOBAL) < 0)
            return 1;
        printf("%d\n", g);
        fflush(stdout);
    }
    return H5Fclose(f) < 0;
}
