/* Reading metadata objects for the loader (ncztr_load.c): many keys in one batch from the
 * store, or from the consolidated .zmetadata when the store has one. */
#include "ncztr_format.h"
#include "ncztr_model_internal.h"
#include "ncztr_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads keys (NULL ones skipped) from the store itself: see get_json_many. An object the
 * store refuses or cannot read whole (a link out of the store, a damaged zip entry) is as
 * unusable as one that does not parse; a failure of the whole batch is fatal. */
static herr_t get_json_store(ncztr_file *f, size_t n, char **keys, json_t **out, char **errs)
{
    herr_t ret = SUCCEED;
    nczm_get *reqs = calloc(n ? n : 1, sizeof *reqs);
    size_t *slot = calloc(n ? n : 1, sizeof *slot), nr = 0;
    NCZ_CHECK_ALLOC(reqs, FAIL);
    NCZ_CHECK_ALLOC(slot, FAIL);
    for (size_t i = 0; i < n; i++)
        if (keys[i]) {
            slot[nr] = i;
            reqs[nr++].key = keys[i];
        }
    nczm_status st = nczm_get_many(f->map, nr, reqs);
    bool first = true; /* the map's message is the first failed request's */
    for (size_t r = 0; r < nr; r++) {
        size_t i = slot[r];
        nczm_status rs = reqs[r].status;
        if (rs == NCZM_OK || rs == NCZM_NOTFOUND)
            continue;
        const char *why = nczm_status_str(rs);
        if (first) {
            why = nczm_errmsg(f->map);
        } else {
            /* the batch kept only the first message: ask again for this one's */
            void *b = NULL;
            size_t bl = 0;
            if (nczm_read_all(f->map, keys[i], &b, &bl) != NCZM_OK)
                why = nczm_errmsg(f->map);
            free(b);
        }
        if (!errs || rs == NCZM_NOMEM)
            NCZ_GOTO(FAIL, NCZ_E_STORE, "reading \"%s\" failed: %s", keys[i], why);
        if (asprintf(&errs[i], "reading \"%s\" failed: %s", keys[i], why) < 0) {
            errs[i] = NULL;
            NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory");
        }
        first = false;
        st = NCZM_OK;
    }
    if (st != NCZM_OK && st != NCZM_NOTFOUND) /* the batch as a whole failed */
        NCZ_GOTO(FAIL, NCZ_E_STORE, "reading metadata failed: %s", nczm_errmsg(f->map));
    for (size_t r = 0; r < nr; r++) {
        size_t i = slot[r];
        if (reqs[r].status != NCZM_OK)
            continue;
        size_t mark = ncz_err_mark();
        out[i] = ncztr_json_parse_object(keys[i], reqs[r].buf, reqs[r].len);
        if (!out[i]) {
            if (!errs)
                NCZ_GOTO_QUIET(FAIL);
            errs[i] = ncz_err_take_messages(mark);
            if (!errs[i] && !(errs[i] = strdup(keys[i])))
                NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory");
        }
    }
done:
    if (reqs)
        for (size_t r = 0; r < nr; r++)
            free(reqs[r].buf);
    free(reqs);
    free(slot);
    return ret;
}

/* Fetches several JSON objects at once (NULL keys are skipped). out[i] = new reference or
 * NULL when absent. A present object that does not parse (or a consolidated entry that is
 * not an object) is an error; with errs != NULL it is not fatal: errs[i] gets its message
 * (malloc'ed) and out[i] stays NULL, so that one damaged object does not make the whole
 * store unreadable. Store failures are always fatal. With .zmetadata its entries replace
 * the reads; an entry that does not parse is passed over, as a .zmetadata that does not
 * parse is: the key is read from the store. */
herr_t ncztr_load_json_many(ncztr_file *f, ncztr_zmeta *cons, size_t n, char **keys, json_t **out,
                            char **errs)
{
    herr_t ret = SUCCEED;
    char **redo = NULL;
    size_t nredo = 0;
    for (size_t i = 0; i < n; i++) {
        out[i] = NULL;
        if (errs)
            errs[i] = NULL;
    }
    if (!cons)
        return get_json_store(f, n, keys, out, errs);
    for (size_t i = 0; i < n; i++) {
        if (!keys[i])
            continue;
        json_t *j = NULL;
        switch (ncztr_zmeta_get(cons, keys[i], &j)) {
        case NCZTR_ZMETA_ABSENT:
            break;
        case NCZTR_ZMETA_FOUND:
            out[i] = j;
            break;
        case NCZTR_ZMETA_NOTOBJ:
            json_decref(j);
            if (!errs)
                NCZ_GOTO(FAIL, NCZ_E_FORMAT, "consolidated metadata: entry \"%s\" is not a JSON object",
                         keys[i]);
            if (asprintf(&errs[i], "consolidated metadata: entry \"%s\" is not a JSON object", keys[i]) < 0) {
                errs[i] = NULL;
                NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory");
            }
            break;
        case NCZTR_ZMETA_BROKEN:
            if (!redo && !(redo = calloc(n, sizeof *redo)))
                NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory");
            redo[i] = keys[i];
            nredo++;
            break;
        }
    }
    if (nredo && get_json_store(f, n, redo, out, errs) < 0)
        NCZ_GOTO_QUIET(FAIL);
done:
    free(redo);
    if (ret < 0)
        for (size_t i = 0; i < n; i++) {
            json_decref(out[i]);
            out[i] = NULL;
            if (errs) {
                free(errs[i]);
                errs[i] = NULL;
            }
        }
    return ret;
}
