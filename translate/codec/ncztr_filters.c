/* HDF5 filter pipelines <-> Zarr codec JSON (stub until the codecs land). */
#include "ncztr_codecs.h"
#include "ncztr_err.h"

herr_t ncztr_codecs_from_dcpl(hid_t dcpl, hid_t type, int rank, const hsize_t *chunks, const char *path,
                              json_t **filters, json_t **compressor)
{
    (void)type;
    (void)rank;
    (void)chunks;
    *filters = *compressor = NULL;
    int n = H5Pget_nfilters(dcpl);
    if (n > 0)
        return NCZ_PUSH(NCZ_E_UNSUPPORTED,
                        "dataset \"%s\": HDF5 filters are not supported by the connector yet", path);
    return SUCCEED;
}

herr_t ncztr_codecs_to_dcpl(const json_t *filters, const json_t *compressor, size_t esz, hid_t dcpl)
{
    (void)filters;
    (void)compressor;
    (void)esz;
    (void)dcpl;
    return SUCCEED;
}
