/* Opening, creating, flushing and closing a store as a model. */
#include "ncztr_model_internal.h"
#include "ncztr_format.h"
#include "ncztr_par.h"
#include "ncztr_refsync.h"
#include "ncztr_store.h"
#include "ncztr_zmeta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* s3root is the connector's (a naming of stores); the others are the store kinds'. */
int ncztr_store_option(const char *name)
{
    if (!strcmp(name, "s3root"))
        return 1;
    int k = nczm_option_known(name);
    return k == NCZM_OPTION_SECRET ? -1 : k ? 1 : 0;
}

herr_t ncztr_store_option_check(const char *name, const char *value, char *why, size_t whylen)
{
    char emsg[NCZM_ERRLEN];
    if (!strcmp(name, "s3root") || nczm_option_check(name, value, emsg) == NCZM_OK)
        return SUCCEED;
    snprintf(why, whylen, "connector option %s: %s", name, emsg);
    return NCZ_PUSH(NCZ_E_ARGS, "%s", why);
}

void ncztr_store_option_names(char *buf, size_t len)
{
    int n = snprintf(buf, len, "s3root=URL; ");
    if (n > 0 && (size_t)n < len)
        nczm_option_names(buf + n, len - (size_t)n);
}

/* The store's name, parsed, with the store options of the connector info applied. */
/* The s3root option puts stores named by plain paths into a bucket: netCDF-C takes every
 * URL it is given for its own NCZarr, so an unmodified netCDF-4 program reaches S3 through
 * the connector only under a plain name. The name, less any leading "/" or "./", becomes
 * the key below the root. NULL when there is no such option or the name is a URL already
 * (or out of memory: then the name is used as it is and fails as a path). */
static char *s3root_name(const char *name, const ncztr_opts *opts)
{
    const char *r = opts ? strstr(opts->storeopts, "s3root=") : NULL;
    if (!r || (r != opts->storeopts && r[-1] != '\n') || strstr(name, "://"))
        return NULL;
    r += 7;
    size_t rl = strcspn(r, "\n");
    while (rl > 0 && r[rl - 1] == '/')
        rl--;
    while (*name == '/' || (name[0] == '.' && name[1] == '/'))
        name += name[0] == '/' ? 1 : 2;
    char *u = NULL;
    if (asprintf(&u, "%.*s/%s#mode=nczarr,s3", (int)rl, r, name) < 0)
        return NULL;
    return u;
}

/* With the option "zip" (netCDF-C's mode word for zip stores), a plain name is a zip
 * archive whatever its suffix (without it only "*.zip" is): programs that make their files
 * under .h5 or .nc names, and reopen them as regular files (PyTables refuses a directory),
 * get stores they can. A URL, a name that says its mode, and an existing directory (a
 * directory store, opened as such) are left as they are. */
static char *zip_name(const char *name, const ncztr_opts *opts)
{
    char *u = NULL;
    struct stat st;
    if (!opts || !opts->zip_names || strstr(name, "://") || strstr(name, "#mode=") ||
        (stat(name, &st) == 0 && S_ISDIR(st.st_mode)) || asprintf(&u, "%s#mode=nczarr,zip", name) < 0)
        return NULL;
    return u;
}

herr_t ncztr_store_name(const char *name, const ncztr_opts *opts, nczm_url *url)
{
    char emsg[NCZM_ERRLEN];
    char *mapped = s3root_name(name, opts);
    if (!mapped)
        mapped = zip_name(name, opts);
    nczm_status pst = nczm_url_parse(mapped ? mapped : name, url, emsg);
    free(mapped);
    if (pst != NCZM_OK)
        return NCZ_PUSH(NCZ_E_ARGS, "%s", emsg);
    /* what marks a store, and what to read first when one opens: the formats' keys */
    url->marks = ncztr_store_marks;
    url->prefetch = ncztr_store_prefetch;
    /* netCDF-C decides how to open a plain path from its first bytes, which a directory has
     * not, with one exception: a path that HDF5 finds accessible (the connector's
     * H5Fis_accessible) and whose extended attributes mention ".daos" is handed to HDF5, as
     * a DAOS container (libdispatch/dinfermodel.c, isdaoscontainer). The label on a new
     * store's root lets a netCDF program reopen its own output by name through the
     * connector (nc_open, NC_WRITE to append). */
    url->label_name = "user.nczarr";
    url->label_value = "Zarr store of the nczarr HDF5 VOL connector (netCDF-C opens it through HDF5 as a "
                       "container: .daos)";
    for (const char *p = opts ? opts->storeopts : ""; *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char word[sizeof opts->storeopts];
        snprintf(word, sizeof word, "%.*s", (int)len, p);
        p += len + (e ? 1 : 0);
        char *v = strchr(word, '=');
        if (!v || !strncmp(word, "s3root=", 7))
            continue;
        *v++ = '\0';
        if (nczm_url_set(url, word, v, emsg) != NCZM_OK) {
            nczm_url_clear(url);
            return NCZ_PUSH(NCZ_E_ARGS, "%s: %s", name, emsg);
        }
    }
    return SUCCEED;
}

static herr_t file_new(const char *name, const ncztr_opts *opts, ncztr_file **out)
{
    ncztr_file *f = calloc(1, sizeof *f);
    if (!f)
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory opening \"%s\"", name);
    if (ncztr_store_name(name, opts, &f->url) < 0) {
        free(f);
        return FAIL;
    }
    f->default_dcpl = H5I_INVALID_HID;
    if (opts)
        f->opts = *opts;
    /* The URL's mode list can ask for pure Zarr or no xarray too, as netCDF-C's does. */
    if (nczm_mode_has(f->url.mode, "zarr") && !nczm_mode_has(f->url.mode, "nczarr"))
        f->opts.pure_zarr = true;
    if (nczm_mode_has(f->url.mode, "noxarray"))
        f->opts.noxarray = true;
    if (nczm_mode_has(f->url.mode, "consolidated"))
        f->opts.consolidate = true;
    /* netCDF-C's word for Zarr v3 in a URL's mode list */
    if (nczm_mode_has(f->url.mode, "v3"))
        f->opts.v3 = true;
    f->zarr_format = 2; /* a store's own, once it is read */
    f->default_maxstrlen = NCZTR_DEFAULT_MAXSTRLEN;
    /* a delete (in the model) changes the paths datasets of references store */
    f->hooks.refs_before = ncztr_refsync_before;
    f->hooks.refs_after = ncztr_refsync_after;
    f->hooks.refs_drop = ncztr_refsync_drop;
    *out = f;
    return SUCCEED;
}

static void file_free(ncztr_file *f)
{
    if (!f)
        return;
    if (f->root) {
        /* Handles the application still holds keep their nodes alive, detached. */
        ncztr_obj_unref(f->root);
    }
    ncztr_ids_file_closing(f);
    for (size_t i = 0; i < f->ntypes; i++)
        if (H5Iis_valid(f->types[i].type) > 0) /* see ncztr_array_free */
            H5Tclose(f->types[i].type);
    if (f->default_dcpl >= 0 && H5Iis_valid(f->default_dcpl) > 0)
        H5Pclose(f->default_dcpl);
    nczm_url_clear(&f->url);
    ncztr_par_free(f);
    ncztr_zmeta_free(f->old_cons);
    if (f->scratch_free)
        f->scratch_free(f->scratch);
    free(f->ncproperties);
    free(f);
}

/* A zip archive is rewritten whole by the process that closes it: many ranks cannot write
 * one. */
static herr_t par_check_store(ncztr_file *f, const char *name)
{
    if (f->par && nczm_url_single_writer(&f->url))
        return NCZ_PUSH(
            NCZ_E_UNSUPPORTED,
            "\"%s\": a zip store cannot be written by many ranks; write a directory or S3 store (and "
            "zip it afterwards)",
            name);
    return SUCCEED;
}

/* The model of an empty store: its root group. */
static herr_t new_root(ncztr_file *f)
{
    f->root = ncztr_obj_new(f, NCZTR_GROUP, "");
    if (!f->root || ncztr_ids_assign_tree(f) < 0)
        return FAIL;
    f->root->is_new = f->root->meta_dirty = f->root->attrs_dirty = true;
    f->superblock = !f->opts.pure_zarr;
    f->zarr_format = f->opts.v3 ? 3 : 2;
    return SUCCEED;
}

static herr_t create_root(ncztr_file *f, const char *name, unsigned mflags, char *emsg)
{
    nczm_status st = nczm_open(&f->url, mflags, &f->map, emsg);
    if (st != NCZM_OK)
        return NCZ_PUSH(st == NCZM_NOTFOUND || st == NCZM_EXISTS || st == NCZM_PERM ? NCZ_E_STORE
                                                                                    : NCZ_E_ARGS,
                        "cannot create store \"%s\": %s", name, emsg);
    /* Write the root now: a created store is a valid (empty) store at once. */
    if (new_root(f) < 0 || ncztr_save_tree(f) < 0)
        return FAIL;
    return SUCCEED;
}

herr_t ncztr_file_create(const char *name, unsigned flags, const ncztr_opts *opts, ncztr_file **out)
{
    herr_t ret = SUCCEED;
    ncztr_file *f = NULL;
    char emsg[NCZM_ERRLEN];
    if (file_new(name, opts, &f) < 0)
        return FAIL;
    unsigned mflags = NCZM_CREATE | (flags & (NCZM_TRUNC | NCZM_EXCL));
    if (f->opts.zip_root)
        mflags |= NCZM_ZIP_ROOT;
    if (ncztr_par_attach(f, opts) < 0 || par_check_store(f, name) < 0)
        NCZ_GOTO_QUIET(FAIL);
    /* Many ranks: rank 0 alone creates the store and writes its root (as one process
     * would: par set aside meanwhile); the others then open it and hold the same root. */
    herr_t made = SUCCEED;
    if (!f->shared_skip) {
        struct ncztr_par *par = f->par;
        f->par = NULL;
        made = create_root(f, name, mflags, emsg);
        f->par = par;
    }
    if (ncztr_par_status(f, made, "creating the store") < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (f->shared_skip) {
        nczm_status st = nczm_open(&f->url, 0, &f->map, emsg);
        if (st != NCZM_OK)
            made = NCZ_PUSH(NCZ_E_STORE, "cannot open store \"%s\" that rank 0 created: %s", name, emsg);
        else if ((made = new_root(f)) == SUCCEED)
            f->root->is_new = f->root->meta_dirty = f->root->attrs_dirty = false;
        if (ncztr_par_status(f, made, "opening the store rank 0 created") < 0)
            NCZ_GOTO_QUIET(FAIL);
    } else if (f->par && ncztr_par_status(f, made, "opening the store rank 0 created") < 0) {
        NCZ_GOTO_QUIET(FAIL);
    }
    *out = f;
    f = NULL;
done:
    if (f) {
        if (f->map)
            nczm_close(f->map);
        file_free(f);
    }
    return ret;
}

herr_t ncztr_file_open(const char *name, bool readonly, const ncztr_opts *opts, ncztr_file **out)
{
    herr_t ret = SUCCEED;
    ncztr_file *f = NULL;
    char emsg[NCZM_ERRLEN];
    if (file_new(name, opts, &f) < 0)
        return FAIL;
    f->readonly = readonly;
    if (ncztr_par_attach(f, opts) < 0 || (!readonly && par_check_store(f, name) < 0))
        NCZ_GOTO_QUIET(FAIL);
    nczm_status st = nczm_open(&f->url, readonly ? NCZM_READONLY : 0, &f->map, emsg);
    if (st != NCZM_OK)
        NCZ_GOTO(FAIL, NCZ_E_STORE, "cannot open store \"%s\"%s: %s", name, readonly ? "" : " for writing",
                 emsg);
    if (ncztr_load_tree(f) < 0)
        NCZ_GOTO_QUIET(FAIL);
    *out = f;
    f = NULL;
done:
    if (f) {
        if (f->map)
            nczm_close(f->map);
        file_free(f);
    }
    return ret;
}

herr_t ncztr_file_flush(ncztr_file *f)
{
    if (f->readonly)
        return SUCCEED;
    return ncztr_save_tree(f);
}

void ncztr_file_detach(ncztr_file *f)
{
    f->readonly = true;
    nczm_map_set_readonly(f->map);
}

herr_t ncztr_file_close(ncztr_file *f)
{
    return ncztr_file_close2(f, true);
}

herr_t ncztr_file_close2(ncztr_file *f, bool save)
{
    herr_t ret = SUCCEED;
    if (!f)
        return SUCCEED;
    if (save && !f->readonly && ncztr_save_tree(f) < 0)
        ret = FAIL;
    if (f->map) {
        /* What a remote store cost: for users weighing an open against netCDF-C's, and for
         * bench/. URLs are printed without credentials (a name never carries any). */
        const char *stats = getenv("NCZARR_STATS");
        if (stats && *stats && strcmp(stats, "0") != 0)
            fprintf(stderr, "nczarr: %s: %llu requests\n", f->url.location,
                    (unsigned long long)nczm_map_requests(f->map));
        char emsg[NCZM_ERRLEN] = "";
        nczm_status st = nczm_close_err(f->map, emsg);
        if (st != NCZM_OK && ret == SUCCEED)
            ret = NCZ_PUSH(NCZ_E_STORE, "closing store \"%s\" failed: %s", f->url.location,
                           emsg[0] ? emsg : nczm_status_str(st));
        f->map = NULL;
    }
    /* Nodes still referenced by open handles must not reach the freed store. */
    file_free(f);
    return ret;
}

bool ncztr_is_store(const char *name, const ncztr_opts *opts)
{
    nczm_url url;
    if (!name || ncztr_store_name(name, opts, &url) < 0) {
        H5Eclear2(H5E_DEFAULT);
        return false;
    }
    bool r = nczm_probe(&url) == 1;
    nczm_url_clear(&url);
    return r;
}

herr_t ncztr_delete_store(const char *name, const ncztr_opts *opts)
{
    nczm_url url;
    char emsg[NCZM_ERRLEN];
    if (ncztr_store_name(name, opts, &url) < 0)
        return FAIL;
    nczm_status st = nczm_destroy(&url, emsg);
    nczm_url_clear(&url);
    if (st != NCZM_OK)
        return NCZ_PUSH(NCZ_E_STORE, "cannot delete store \"%s\": %s", name, emsg);
    return SUCCEED;
}

herr_t ncztr_file_create_hdf5(const char *name, unsigned h5f_acc_flags, const ncztr_opts *opts,
                              ncztr_file **out)
{
    return ncztr_file_create(name, (h5f_acc_flags & H5F_ACC_TRUNC) ? NCZM_TRUNC : NCZM_EXCL, opts, out);
}

/* Sums the objects below key; a key is an object (a leaf) or a prefix, never both. */
herr_t ncztr_file_stored_bytes(ncztr_file *f, uint64_t *out)
{
    *out = 0;
    if (!f->readonly && ncztr_file_flush(f) < 0)
        return FAIL;
    if (nczm_tree_bytes(f->map, "", out) != NCZM_OK)
        return NCZ_PUSH(NCZ_E_STORE, "cannot list the store: %s", nczm_errmsg(f->map));
    return SUCCEED;
}
