/* The communicator of a file opened by many ranks, and its collective steps: each begins
 * with one all-reduce comparing what every rank is doing, and every wait has a deadline. */
#include "ncztr_par_internal.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef H5_HAVE_PARALLEL

static const char *step_name(int kind)
{
    switch (kind) {
    case NCZTR_STEP_STATUS:
        return "a status check";
    case NCZTR_STEP_AGREE:
        return "a metadata comparison";
    case NCZTR_STEP_EXCHANGE:
        return "an exchange of chunk pieces";
    default:
        return "another step";
    }
}

void ncztr_piece_clear(ncztr_piece *pc)
{
    free(pc->path);
    free(pc->sel);
    free(pc->type);
    free(pc->data);
    memset(pc, 0, sizeof *pc);
}

void ncztr_par_drop_pieces(ncztr_par *p)
{
    for (size_t i = 0; i < p->npieces; i++)
        ncztr_piece_clear(&p->pieces[i]);
    p->npieces = 0;
}

herr_t ncztr_par_wait(ncztr_par *p, MPI_Request *req, const char *what)
{
    double t0 = MPI_Wtime();
    unsigned spins = 0;
    for (;;) {
        int done = 0;
        if (MPI_Test(req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
            p->broken = true;
            return NCZ_PUSH(NCZ_E_PARALLEL, "%s: an MPI call failed", what);
        }
        if (done)
            return SUCCEED;
        if (MPI_Wtime() - t0 > p->timeout) {
            /* The request stays pending (a collective cannot be cancelled): the file is
             * unusable for collective steps from here on. */
            p->broken = true;
            return NCZ_PUSH(
                NCZ_E_PARALLEL,
                "%s: not every rank joined within %g s (NCZARR_MPI_TIMEOUT): every rank must make "
                "each collective call (create, open, close, flush, set_extent, collective "
                "H5Dwrite) in the same order",
                what, p->timeout);
        }
        /* Spin briefly (steps are short when every rank is there), then yield the core. */
        if (++spins > 2000) {
            struct timespec ts = {0, 100000};
            nanosleep(&ts, NULL);
        }
    }
}

herr_t ncztr_par_begin(ncztr_file *f, int kind, uint64_t value, bool failed, bool *any_failed,
                       const char *what)
{
    ncztr_par *p = f->par;
    int fin = 0;
    if (!p->broken && (MPI_Finalized(&fin) != MPI_SUCCESS || fin)) {
        p->broken = true;
        return NCZ_PUSH(NCZ_E_PARALLEL, "%s: MPI was finalized before the file was closed", what);
    }
    if (p->broken)
        return NCZ_PUSH(NCZ_E_PARALLEL,
                        "%s: an earlier collective step of this file failed; the ranks are out of step",
                        what);
    uint64_t seq = ++p->seq;
    uint64_t v[7] = {(uint64_t)kind, ~(uint64_t)kind, seq, ~seq, value, ~value, failed};
    uint64_t r[7];
    MPI_Request req;
    if (MPI_Iallreduce(v, r, 7, MPI_UINT64_T, MPI_MAX, p->comm, &req) != MPI_SUCCESS) {
        p->broken = true;
        return NCZ_PUSH(NCZ_E_PARALLEL, "%s: MPI_Iallreduce failed", what);
    }
    if (ncztr_par_wait(p, &req, what) < 0)
        return FAIL;
    if (r[0] != ~r[1]) {
        p->broken = true;
        return NCZ_PUSH(
            NCZ_E_PARALLEL,
            "%s: the ranks are in different collective calls (this rank in %s, another in %s): every "
            "rank must make the same collective calls in the same order",
            what, step_name(kind), step_name((int)(kind == (int)r[0] ? ~r[1] : r[0])));
    }
    if (r[2] != ~r[3]) {
        p->broken = true;
        return NCZ_PUSH(
            NCZ_E_PARALLEL,
            "%s: the ranks have made different numbers of collective calls on this file (%llu here, "
            "between %llu and %llu): a rank made a collective call the others did not",
            what, (unsigned long long)seq, (unsigned long long)~r[3], (unsigned long long)r[2]);
    }
    if (r[4] != ~r[5]) {
        p->broken = true;
        return NCZ_PUSH(NCZ_E_PARALLEL,
                        "%s: the ranks would write different metadata: a rank created, changed or deleted an "
                        "object or attribute that the others did not (HDF5 needs every rank to make each "
                        "metadata call with the same arguments); nothing was written",
                        what);
    }
    if (any_failed)
        *any_failed = r[6] != 0;
    return SUCCEED;
}

herr_t ncztr_par_status(ncztr_file *f, herr_t mine, const char *what)
{
    if (!f->par)
        return mine;
    bool any = false;
    if (ncztr_par_begin(f, NCZTR_STEP_STATUS, 0, mine < 0, &any, what) < 0)
        return FAIL;
    if (mine < 0)
        return FAIL; /* this rank's own message is on its stack */
    if (any)
        return NCZ_PUSH(NCZ_E_PARALLEL,
                        "%s failed on another rank (its message is on that rank's error stack)", what);
    return SUCCEED;
}

herr_t ncztr_par_agree(ncztr_file *f, uint64_t value, const char *what)
{
    if (!f->par)
        return SUCCEED;
    return ncztr_par_begin(f, NCZTR_STEP_AGREE, value, false, NULL, what);
}

static double env_timeout(void)
{
    const char *s = getenv("NCZARR_MPI_TIMEOUT");
    char *end = NULL;
    double t = s ? strtod(s, &end) : 0;
    return s && end != s && t > 0 ? t : 50.0;
}

herr_t ncztr_par_attach(ncztr_file *f, const ncztr_opts *opts)
{
    int inited = 0, size = 1;
    if (!opts || !opts->has_comm || opts->comm == MPI_COMM_NULL)
        return SUCCEED;
    if (MPI_Initialized(&inited) != MPI_SUCCESS || !inited)
        return SUCCEED;
    if (MPI_Comm_size(opts->comm, &size) != MPI_SUCCESS)
        return NCZ_PUSH(NCZ_E_PARALLEL, "the file access list's communicator is not usable");
    if (size <= 1)
        return SUCCEED;
    ncztr_par *p = calloc(1, sizeof *p);
    if (!p)
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory joining the ranks");
    p->timeout = env_timeout();
    p->size = size;
    MPI_Comm_rank(opts->comm, &p->rank);
    MPI_Request req;
    if (MPI_Comm_idup(opts->comm, &p->comm, &req) != MPI_SUCCESS) {
        free(p);
        return NCZ_PUSH(NCZ_E_PARALLEL, "cannot duplicate the file access list's communicator");
    }
    if (ncztr_par_wait(p, &req, "opening the file on every rank") < 0) {
        free(p); /* the duplicate never completed: nothing to free */
        return FAIL;
    }
    f->par = p;
    f->shared_skip = p->rank != 0;
    return SUCCEED;
}

void ncztr_par_free(ncztr_file *f)
{
    ncztr_par *p = f->par;
    if (!p)
        return;
    ncztr_par_drop_pieces(p);
    free(p->pieces);
    if (!p->broken)
        MPI_Comm_free(&p->comm);
    free(p);
    f->par = NULL;
}

bool ncztr_par_active(const ncztr_file *f)
{
    return f->par != NULL;
}

int ncztr_par_rank(const ncztr_file *f)
{
    return f->par ? f->par->rank : 0;
}

#else /* !H5_HAVE_PARALLEL: files of one process */

herr_t ncztr_par_attach(ncztr_file *f, const ncztr_opts *opts)
{
    (void)f, (void)opts;
    return SUCCEED;
}

void ncztr_par_free(ncztr_file *f)
{
    (void)f;
}

bool ncztr_par_active(const ncztr_file *f)
{
    (void)f;
    return false;
}

int ncztr_par_rank(const ncztr_file *f)
{
    (void)f;
    return 0;
}

herr_t ncztr_par_status(ncztr_file *f, herr_t mine, const char *what)
{
    (void)f, (void)what;
    return mine;
}

herr_t ncztr_par_agree(ncztr_file *f, uint64_t value, const char *what)
{
    (void)f, (void)value, (void)what;
    return SUCCEED;
}

#endif
