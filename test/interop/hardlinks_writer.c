/* Writes a file with extra hard links, among them a cycle: group /g (links in creation
 * order) with dataset g/data and group g/sub, then /data_alias -> g/data, g/sub2 -> g/sub
 * and g/self -> g; and soft links (/soft_data -> /g/data, g/soft_rel -> sub, relative to
 * g, and /dangling -> /nowhere) and an external link /ext -> other.h5:/x. Run natively (an
 * .h5 file) and through the connector (a store), so that hardlinks_readers.sh can compare
 * what h5dump shows of each. */
#include "connector_check.h"

#include <hdf5.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s FILE\n", argv[0]);
        return 2;
    }
    hsize_t n = 4;
    int v[4] = {1, 2, 3, 4};
    hid_t f = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0)
        return 1;
    ncz_expect_connector(f, argv[1]);
    hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
    H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED);
    hid_t g = H5Gcreate2(f, "g", H5P_DEFAULT, gcpl, H5P_DEFAULT);
    hid_t s = H5Screate_simple(1, &n, NULL);
    hid_t d = H5Dcreate2(g, "data", H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t sub = H5Gcreate2(g, "sub", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0 || g < 0 || d < 0 || sub < 0 ||
        H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0 ||
        H5Lcreate_hard(g, "data", f, "data_alias", H5P_DEFAULT, H5P_DEFAULT) < 0 ||
        H5Lcreate_hard(g, "sub", g, "sub2", H5P_DEFAULT, H5P_DEFAULT) < 0 ||
        H5Lcreate_hard(g, ".", g, "self", H5P_DEFAULT, H5P_DEFAULT) < 0 ||
        H5Lcreate_soft("/g/data", f, "soft_data", H5P_DEFAULT, H5P_DEFAULT) < 0 ||
        H5Lcreate_soft("sub", g, "soft_rel", H5P_DEFAULT, H5P_DEFAULT) < 0 ||
        H5Lcreate_soft("/nowhere", f, "dangling", H5P_DEFAULT, H5P_DEFAULT) < 0 ||
        H5Lcreate_external("other.h5", "/x", f, "ext", H5P_DEFAULT, H5P_DEFAULT) < 0)
        return 1;
    H5Gclose(sub);
    H5Dclose(d);
    H5Sclose(s);
    H5Gclose(g);
    H5Pclose(gcpl);
    return H5Fclose(f) < 0;
}
