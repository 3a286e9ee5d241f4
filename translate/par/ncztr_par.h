/* translate/par: many MPI ranks, one store. Above the chunk path (data/), below the files
 * (store/), which call it at create, open, flush and close.
 *
 * Every rank keeps the whole model: HDF5 asks every rank to make the same metadata calls
 * with the same arguments, so the trees stay equal without talking. Rank 0 alone writes
 * what they share (metadata, deletions, renames); at each flush the ranks first agree on a
 * hash of the metadata they would write, so that a rank that made a call the others did not
 * fails them all, naming the flush, instead of writing a store none of them described.
 *
 * Raw data: a rank stores the chunks it writes completely itself. A piece of a chunk that
 * other ranks may write too goes to the chunk's owner (its linear index modulo the number
 * of ranks), which merges the pieces of all ranks, encodes and stores the chunk once: at the
 * end of a collective H5Dwrite, or at the next collective step for independent ones
 * (a dataset's close, a flush, the file's close).
 *
 * Every collective step starts with a small all-reduce that compares what each rank is
 * doing (step kind, sequence number, a value such as the metadata hash) and is waited for
 * with a deadline (NCZARR_MPI_TIMEOUT seconds, 50 by default): a rank that never joins
 * makes the others fail in bounded time, and the file then refuses further collective
 * steps. Without H5_HAVE_PARALLEL everything here is a no-op for files of one process. */
#ifndef NCZTR_PAR_H
#define NCZTR_PAR_H

#include "ncztr_chunkio.h"

#include <stdbool.h>
#include <stdint.h>

/* Joins the file to opts' communicator when it has more than one rank (f->par, and
 * f->shared_skip on ranks other than 0); nothing otherwise. */
herr_t ncztr_par_attach(ncztr_file *f, const ncztr_opts *opts);
void ncztr_par_free(ncztr_file *f);
bool ncztr_par_active(const ncztr_file *f);
int ncztr_par_rank(const ncztr_file *f);

/* Every rank passes its own outcome; SUCCEED on all only when all succeeded. what names
 * the step in messages. */
herr_t ncztr_par_status(ncztr_file *f, herr_t mine, const char *what);
/* SUCCEED when every rank passed the same value (a hash of what it would write). */
herr_t ncztr_par_agree(ncztr_file *f, uint64_t value, const char *what);

/* A dataset write (spaces resolved, as for ncztr_array_write); collective: every rank is
 * in this call (H5FD_MPIO_COLLECTIVE), and the pieces are merged before it returns. */
herr_t ncztr_par_write(ncztr_obj *o, hid_t mem_type, hid_t mem_space, hid_t file_space, const void *buf,
                       bool collective);
/* Merges the pieces every rank holds for other ranks' chunks (collective). mine: this
 * rank's outcome so far; when a rank failed, nothing is exchanged and every rank fails. */
herr_t ncztr_par_exchange(ncztr_file *f, herr_t mine, const char *what);

#endif
