/* zmap: a small process-wide pool of worker threads and a "parallel for" over it.
 *
 * Generic: it knows nothing of stores, HDF5 or JSON, so that every layer above (chunk
 * codecs in translate/data, the batches of the directory store) can share one set of
 * threads. The threads are created on first need and live until nczc_workers_shutdown
 * (the connector's terminate callback). The calling thread always takes part, so a call
 * with a cap of 1, or from inside a worker, or while another thread's call holds the
 * pool, simply runs every item on the caller.
 *
 * Work functions must be safe to run concurrently for different items and must not call
 * back into code that is not thread-safe (the HDF5 library): they record failures in
 * their own per-item state, which the caller examines afterwards.
 */
#ifndef NCZC_WORKERS_H
#define NCZC_WORKERS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The most threads (the caller included) a call may use. */
#define NCZC_WORKERS_MAX 64

/* One item: i in [0, n); slot in [0, nslots) names the thread running it (0 = the
 * caller), so that per-thread scratch state can be indexed by it. Returns 0, or nonzero
 * for a failure. */
typedef int (*nczc_work_fn)(void *arg, size_t i, unsigned slot);

/* Threads a call with this cap may use, the caller included: cap 0 means the default
 * (nczc_workers_default), and the result is at most NCZC_WORKERS_MAX. Size per-slot state
 * with it. */
unsigned nczc_workers_slots(unsigned cap);

/* Runs fn(arg, i, slot) for every i in [0, n), each exactly once, on at most
 * nczc_workers_slots(cap) threads, and returns when all have finished. Every item runs
 * even when some fail. Returns the lowest i whose fn failed, or n when none did. */
size_t nczc_parallel_for(size_t n, unsigned cap, nczc_work_fn fn, void *arg);

/* A job whose items are made ready one after another while pool threads already run the
 * ready ones, and the caller goes on making the rest (writing a store's metadata objects
 * while the later ones are still being built). The caller takes part only at the end. */
typedef struct nczc_stream nczc_stream;

/* Starts such a job of fn's items on at most nczc_workers_slots(cap) - 1 pool threads.
 * NULL (nothing started) when no pool thread can take it: a cap of 1 or one processor, the
 * pool busy (a call from inside an item), or no memory; the caller then runs the items
 * itself, e.g. by nczc_parallel_for. While the stream is open every other call of this
 * pool runs alone on its caller. */
nczc_stream *nczc_stream_start(unsigned cap, nczc_work_fn fn, void *arg);

/* Items [0, n) are ready (n never shrinks). */
void nczc_stream_ready(nczc_stream *s, size_t n);

/* The job has n items in all: the caller runs those no thread has taken, waits for the
 * rest, and frees s. Returns the lowest failed item, or n when none did. Must be called
 * once for every started stream. */
size_t nczc_stream_finish(nczc_stream *s, size_t n);

/* The default thread count: the number of online processors (at least 1). */
unsigned nczc_workers_default(void);

/* Stops and joins the pool's threads and frees it. A later call starts a fresh pool. Not
 * to be called while a nczc_parallel_for runs. */
void nczc_workers_shutdown(void);

#ifdef __cplusplus
}
#endif
#endif
