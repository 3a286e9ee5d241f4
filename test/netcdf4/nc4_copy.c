/* Copies a netCDF-4 file (classic model or not: groups, dimensions, variables of the
 * atomic types, attributes, chunking, fill settings, data) to OUTPUT through netCDF-C's
 * HDF5 layer, as nccopy does.
 *   nc4_copy [--through-connector] INPUT.nc OUTPUT
 * With HDF5_VOL_CONNECTOR=nczarr, OUTPUT is written through the connector while INPUT is
 * still read by native HDF5: HDF5 takes its default connector from the environment when
 * the library starts, so the program reads everything into memory with the variable
 * unset, shuts HDF5 down, puts the variable back and writes. With --through-connector
 * it reads INPUT through the connector too (which hands native HDF5 files to HDF5's native
 * connector), and keeps it open while it writes, as nccopy does. It exists for the
 * sanitizer builds, whose connector cannot be loaded into netCDF-C's uninstrumented tools:
 * built with the sanitizers, it runs the CDL corpus through the connector there. */
#include "nc4_util.h"

#include <hdf5.h>
#include <stdbool.h>
#include <string.h>

#define MAX_DIMIDS 4096

typedef struct {
    char name[NC_MAX_NAME + 1];
    nc_type type;
    size_t len;
    void *data;
} att_t;

typedef struct {
    char name[NC_MAX_NAME + 1];
    nc_type type;
    int ndims, dimids[NC_MAX_VAR_DIMS];
    int natts;
    att_t *atts;
    int storage, no_fill, shuffle, deflate, level;
    size_t chunks[NC_MAX_VAR_DIMS], count[NC_MAX_VAR_DIMS], nelems;
    void *data;
} var_t;

typedef struct grp {
    char name[NC_MAX_NAME + 1];
    int ndims, *dimids, *unlim;
    size_t *dimlens;
    char (*dimnames)[NC_MAX_NAME + 1];
    int nvars;
    var_t *vars;
    int natts;
    att_t *atts;
    int ngrps;
    struct grp *grps;
    int out_ncid, *out_varids; /* in OUTPUT, once defined */
} grp_t;

static int dimmap[MAX_DIMIDS];

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) {
        fprintf(stderr, "nc4_copy: out of memory\n");
        exit(1);
    }
    return p;
}

static size_t type_size(nc_type t)
{
    if (t < NC_BYTE || t > NC_STRING) {
        fprintf(stderr, "nc4_copy: type %d is not an atomic type (not supported)\n", (int)t);
        exit(1);
    }
    size_t size;
    NCT(nc_inq_type(NC_GLOBAL, t, NULL, &size));
    return size;
}

static void read_atts(int ncid, int varid, int natts, att_t **out)
{
    att_t *atts = xcalloc((size_t)natts, sizeof *atts);
    for (int i = 0; i < natts; i++) {
        att_t *a = &atts[i];
        NCT(nc_inq_attname(ncid, varid, i, a->name));
        NCT(nc_inq_att(ncid, varid, a->name, &a->type, &a->len));
        a->data = xcalloc(a->len, type_size(a->type));
        NCT(nc_get_att(ncid, varid, a->name, a->data));
    }
    *out = atts;
}

static void read_var(int ncid, int varid, var_t *v)
{
    NCT(nc_inq_var(ncid, varid, v->name, &v->type, &v->ndims, v->dimids, &v->natts));
    read_atts(ncid, varid, v->natts, &v->atts);
    NCT(nc_inq_var_chunking(ncid, varid, &v->storage, v->chunks));
    NCT(nc_inq_var_fill(ncid, varid, &v->no_fill, NULL));
    NCT(nc_inq_var_deflate(ncid, varid, &v->shuffle, &v->deflate, &v->level));
    v->nelems = 1;
    for (int d = 0; d < v->ndims; d++) {
        NCT(nc_inq_dimlen(ncid, v->dimids[d], &v->count[d]));
        v->nelems *= v->count[d];
    }
    if (v->nelems == 0)
        return;
    size_t start[NC_MAX_VAR_DIMS] = {0};
    v->data = xcalloc(v->nelems, type_size(v->type));
    NCT(nc_get_vara(ncid, varid, start, v->count, v->data));
}

static void read_grp(int ncid, grp_t *g)
{
    NCT(nc_inq_grpname(ncid, g->name));
    NCT(nc_inq_dimids(ncid, &g->ndims, NULL, 0));
    g->dimids = xcalloc((size_t)g->ndims, sizeof(int));
    g->unlim = xcalloc((size_t)g->ndims, sizeof(int));
    g->dimlens = xcalloc((size_t)g->ndims, sizeof(size_t));
    g->dimnames = xcalloc((size_t)g->ndims, sizeof *g->dimnames);
    NCT(nc_inq_dimids(ncid, NULL, g->dimids, 0));
    int nunlim;
    NCT(nc_inq_unlimdims(ncid, &nunlim, NULL));
    int *unlimids = xcalloc((size_t)nunlim, sizeof(int));
    NCT(nc_inq_unlimdims(ncid, NULL, unlimids));
    for (int d = 0; d < g->ndims; d++) {
        NCT(nc_inq_dim(ncid, g->dimids[d], g->dimnames[d], &g->dimlens[d]));
        for (int u = 0; u < nunlim; u++)
            g->unlim[d] |= unlimids[u] == g->dimids[d];
    }
    free(unlimids);
    NCT(nc_inq_nvars(ncid, &g->nvars));
    int *varids = xcalloc((size_t)g->nvars, sizeof(int));
    NCT(nc_inq_varids(ncid, NULL, varids));
    g->vars = xcalloc((size_t)g->nvars, sizeof *g->vars);
    for (int v = 0; v < g->nvars; v++)
        read_var(ncid, varids[v], &g->vars[v]);
    free(varids);
    NCT(nc_inq_natts(ncid, &g->natts));
    read_atts(ncid, NC_GLOBAL, g->natts, &g->atts);
    NCT(nc_inq_grps(ncid, &g->ngrps, NULL));
    int *grpids = xcalloc((size_t)g->ngrps, sizeof(int));
    NCT(nc_inq_grps(ncid, NULL, grpids));
    g->grps = xcalloc((size_t)g->ngrps, sizeof *g->grps);
    for (int i = 0; i < g->ngrps; i++)
        read_grp(grpids[i], &g->grps[i]);
    free(grpids);
}

static void write_atts(int ncid, int varid, int natts, const att_t *atts)
{
    for (int i = 0; i < natts; i++)
        NCT(nc_put_att(ncid, varid, atts[i].name, atts[i].type, atts[i].len, atts[i].data));
}

static int new_dimid(int old)
{
    if (old < 0 || old >= MAX_DIMIDS || dimmap[old] < 0) {
        fprintf(stderr, "nc4_copy: dimension %d is used before its group was copied\n", old);
        exit(1);
    }
    return dimmap[old];
}

/* Definitions first, in the input's order (dimension, variable and attribute ids stay the
 * same), for every group; the data once all is defined (a classic-model file must leave
 * define mode explicitly). */
static void define_grp(int ncid, grp_t *g)
{
    g->out_ncid = ncid;
    g->out_varids = xcalloc((size_t)g->nvars, sizeof(int));
    for (int d = 0; d < g->ndims; d++) {
        if (g->dimids[d] < 0 || g->dimids[d] >= MAX_DIMIDS) {
            fprintf(stderr, "nc4_copy: dimension id %d out of range\n", g->dimids[d]);
            exit(1);
        }
        NCT(nc_def_dim(ncid, g->dimnames[d], g->unlim[d] ? NC_UNLIMITED : g->dimlens[d],
                       &dimmap[g->dimids[d]]));
    }
    for (int i = 0; i < g->nvars; i++) {
        const var_t *v = &g->vars[i];
        int dims[NC_MAX_VAR_DIMS], *id = &g->out_varids[i];
        for (int d = 0; d < v->ndims; d++)
            dims[d] = new_dimid(v->dimids[d]);
        NCT(nc_def_var(ncid, v->name, v->type, v->ndims, dims, id));
        if (v->ndims > 0)
            NCT(nc_def_var_chunking(ncid, *id, v->storage, v->storage == NC_CHUNKED ? v->chunks : NULL));
        if (v->shuffle || v->deflate)
            NCT(nc_def_var_deflate(ncid, *id, v->shuffle, v->deflate, v->level));
        if (v->no_fill)
            NCT(nc_def_var_fill(ncid, *id, NC_NOFILL, NULL));
        write_atts(ncid, *id, v->natts, v->atts);
    }
    write_atts(ncid, NC_GLOBAL, g->natts, g->atts);
    for (int i = 0; i < g->ngrps; i++) {
        int child;
        NCT(nc_def_grp(ncid, g->grps[i].name, &child));
        define_grp(child, &g->grps[i]);
    }
}

static void write_grp(const grp_t *g)
{
    size_t start[NC_MAX_VAR_DIMS] = {0};
    for (int i = 0; i < g->nvars; i++)
        if (g->vars[i].data)
            NCT(nc_put_vara(g->out_ncid, g->out_varids[i], start, g->vars[i].count, g->vars[i].data));
    for (int i = 0; i < g->ngrps; i++)
        write_grp(&g->grps[i]);
}

static void free_atts(int natts, att_t *atts)
{
    for (int i = 0; i < natts; i++) {
        if (atts[i].type == NC_STRING)
            NCT(nc_free_string(atts[i].len, atts[i].data));
        free(atts[i].data);
    }
    free(atts);
}

static void free_grp(grp_t *g)
{
    for (int i = 0; i < g->nvars; i++) {
        var_t *v = &g->vars[i];
        free_atts(v->natts, v->atts);
        if (v->data && v->type == NC_STRING)
            NCT(nc_free_string(v->nelems, v->data));
        free(v->data);
    }
    free(g->vars);
    free_atts(g->natts, g->atts);
    for (int i = 0; i < g->ngrps; i++)
        free_grp(&g->grps[i]);
    free(g->grps);
    free(g->dimids);
    free(g->unlim);
    free(g->dimlens);
    free(g->dimnames);
    free(g->out_varids);
}

int main(int argc, char **argv)
{
    bool through = argc == 4 && strcmp(argv[1], "--through-connector") == 0;
    if (argc != 3 && !through) {
        fprintf(stderr, "usage: nc4_copy [--through-connector] INPUT.nc OUTPUT\n");
        return 2;
    }
    if (through)
        argv++;
    char *vol = getenv("HDF5_VOL_CONNECTOR");
    vol = vol ? strdup(vol) : NULL;
    if (!through)
        unsetenv("HDF5_VOL_CONNECTOR");

    int in, out, format;
    grp_t root;
    memset(&root, 0, sizeof root);
    NCT(nc_open(argv[1], NC_NOWRITE, &in));
    NCT(nc_inq_format(in, &format));
    if (format != NC_FORMAT_NETCDF4 && format != NC_FORMAT_NETCDF4_CLASSIC) {
        fprintf(stderr, "nc4_copy: %s is not a netCDF-4 file\n", argv[1]);
        return 1;
    }
    read_grp(in, &root);
    if (!through) {
        NCT(nc_close(in));
        /* A new start of HDF5, which then takes the connector from the environment.
         * netCDF-C keeps running (nc_finalize would lose _NCProperties: netCDF-C 4.10.1
         * does not build it again). HDF5's error printing is on (nc4_show_hdf5_errors),
         * and starts HDF5. */
        if (H5close() < 0) {
            fprintf(stderr, "nc4_copy: H5close failed\n");
            return 1;
        }
        if (vol && setenv("HDF5_VOL_CONNECTOR", vol, 1) != 0) {
            perror("setenv");
            return 1;
        }
        if (H5Eset_auto2(H5E_DEFAULT, (H5E_auto2_t)H5Eprint2, stderr) < 0) {
            fprintf(stderr, "nc4_copy: cannot start HDF5 again\n");
            return 1;
        }
    }
    for (int i = 0; i < MAX_DIMIDS; i++)
        dimmap[i] = -1;
    int cmode = NC_NETCDF4 | NC_CLOBBER | (format == NC_FORMAT_NETCDF4_CLASSIC ? NC_CLASSIC_MODEL : 0);
    NCT(nc_create(argv[2], cmode, &out));
    define_grp(out, &root);
    NCT(nc_enddef(out));
    write_grp(&root);
    NCT(nc_close(out));
    if (through)
        NCT(nc_close(in));
    free_grp(&root);
    free(vol);
    return 0;
}
