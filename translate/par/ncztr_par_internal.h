/* Internals of translate/par, shared by ncztr_par.c (the communicator and its collective
 * steps) and ncztr_parwrite.c (pieces of chunks and their exchange). */
#ifndef NCZTR_PAR_INTERNAL_H
#define NCZTR_PAR_INTERNAL_H

#include "ncztr_par.h"
#include "ncztr_model_internal.h"

#ifdef H5_HAVE_PARALLEL
#include <mpi.h>

/* The part of a write that falls in a chunk another rank owns, waiting for an exchange. */
typedef struct ncztr_piece {
    char *path;         /* the array's path: the same object on every rank */
    uint64_t chunk;     /* linear index in the chunk grid; its owner is chunk % size */
    unsigned char *sel; /* H5Sencode2 of the file selection inside the chunk */
    size_t sellen;
    unsigned char *type; /* H5Tencode2 of the memory type */
    size_t typelen;
    unsigned char *data; /* the selected elements, in selection order */
    size_t datalen;
} ncztr_piece;

typedef struct ncztr_par {
    MPI_Comm comm; /* our duplicate: our messages never meet the application's */
    int rank, size;
    double timeout; /* seconds a collective step waits for every rank */
    bool broken;    /* a step timed out or the ranks disagreed: no more collective steps */
    uint64_t seq;   /* collective steps begun */
    ncztr_piece *pieces;
    size_t npieces, cap;
} ncztr_par;

/* Step kinds, compared between ranks at the start of each step. */
enum { NCZTR_STEP_STATUS = 1, NCZTR_STEP_AGREE, NCZTR_STEP_EXCHANGE };

/* Begins a collective step: every rank must be in the same kind of step with the same
 * value; *any_failed (when not NULL) tells whether a rank passed failed. */
herr_t ncztr_par_begin(ncztr_file *f, int kind, uint64_t value, bool failed, bool *any_failed,
                       const char *what);
/* Waits for a nonblocking collective, within the deadline. */
herr_t ncztr_par_wait(ncztr_par *p, MPI_Request *req, const char *what);
void ncztr_piece_clear(ncztr_piece *pc);
/* Frees the queued pieces (kept: the list itself). */
void ncztr_par_drop_pieces(ncztr_par *p);
#endif

#endif
