/* The worker pool (nczc_workers.h). One job at a time: a call publishes its job, wakes up
 * to (slots - 1) threads and works on the items itself; items are handed out by an atomic
 * counter, so a slow item never holds up the others. Joining a job happens under the
 * mutex and the caller closes the job under it before waiting, so no thread can touch a
 * job (which lives on the caller's stack) after its call returned. A stream is such a job
 * on the heap whose items become ready over time: a thread that takes an item not ready
 * yet waits for it (or for the end of the stream), and the caller joins in at its end. */
#include "nczc_workers.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct job {
    nczc_work_fn fn;
    void *arg;
    size_t n;            /* a stream's: SIZE_MAX until it is finished */
    int stream;          /* items become ready over time (nczc_stream) */
    atomic_size_t avail; /* a stream's items below this are ready */
    int final;           /* under mu: a stream's n and avail are its last */
    atomic_size_t next;  /* the next item to hand out */
    atomic_size_t fail;  /* lowest failed item, n if none */
    unsigned want;       /* threads that may join */
    unsigned joined;     /* under mu */
    unsigned running;    /* under mu: joined threads not finished yet */
    int open;            /* under mu: joining allowed */
} job;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER; /* a job was posted, or quit */
static pthread_cond_t idle = PTHREAD_COND_INITIALIZER; /* a job's last thread finished */
static pthread_cond_t more = PTHREAD_COND_INITIALIZER; /* a stream's items became ready */
static pthread_t threads[NCZC_WORKERS_MAX];
static unsigned nthreads; /* under mu */
static int quit;          /* under mu */
static int busy;          /* under mu: a call owns the pool */
static job *cur;          /* under mu */

/* Whether a stream's item i (taken by this thread) is to be run: waits until it is ready,
 * or until the stream has ended below it. */
static int stream_wait(job *j, size_t i)
{
    if (i < atomic_load(&j->avail))
        return 1;
    pthread_mutex_lock(&mu);
    while (!j->final && i >= atomic_load(&j->avail))
        pthread_cond_wait(&more, &mu);
    int run = i < atomic_load(&j->avail);
    pthread_mutex_unlock(&mu);
    return run;
}

static void run_items(job *j, unsigned slot)
{
    for (;;) {
        size_t i = atomic_fetch_add(&j->next, 1);
        if (j->stream ? !stream_wait(j, i) : i >= j->n)
            return;
        if (j->fn(j->arg, i, slot) == 0)
            continue;
        size_t f = atomic_load(&j->fail);
        while (i < f && !atomic_compare_exchange_weak(&j->fail, &f, i))
            ;
    }
}

static void *worker_main(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&mu);
    for (;;) {
        while (!quit && !(cur && cur->open && cur->joined < cur->want))
            pthread_cond_wait(&wake, &mu);
        if (quit)
            break;
        job *j = cur;
        unsigned slot = ++j->joined;
        j->running++;
        pthread_mutex_unlock(&mu);
        run_items(j, slot);
        pthread_mutex_lock(&mu);
        if (--j->running == 0)
            pthread_cond_broadcast(&idle);
    }
    pthread_mutex_unlock(&mu);
    return NULL;
}

unsigned nczc_workers_default(void)
{
    /* asked once: glibc reads /sys/devices/system/cpu/online on every sysconf call, three
     * system calls that a batch of two small reads would pay each time */
    static atomic_uint cores;
    unsigned c = atomic_load_explicit(&cores, memory_order_relaxed);
    if (c == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        c = n < 1 ? 1 : n > NCZC_WORKERS_MAX ? NCZC_WORKERS_MAX : (unsigned)n;
        atomic_store_explicit(&cores, c, memory_order_relaxed);
    }
    return c;
}

unsigned nczc_workers_slots(unsigned cap)
{
    if (cap == 0)
        cap = nczc_workers_default();
    return cap > NCZC_WORKERS_MAX ? NCZC_WORKERS_MAX : cap;
}

/* Starts threads until there are want of them (fewer if the system refuses). Under mu.
 * Workers block every signal: the application's handlers run on its own threads. */
static void grow(unsigned want)
{
    if (nthreads >= want)
        return;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    while (nthreads < want && pthread_create(&threads[nthreads], NULL, worker_main, NULL) == 0)
        nthreads++;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

size_t nczc_parallel_for(size_t n, unsigned cap, nczc_work_fn fn, void *arg)
{
    job j = {.fn = fn, .arg = arg, .n = n};
    atomic_init(&j.next, 0);
    atomic_init(&j.fail, n);
    atomic_init(&j.avail, n);
    if (n == 0)
        return n;
    unsigned slots = nczc_workers_slots(cap);
    if ((size_t)slots > n)
        slots = (unsigned)n;
    int shared = 0;
    /* A call made from inside an item (on a worker or on the caller) finds the pool busy
     * with the job that runs it and works alone. No thread-local flag says "on a worker":
     * this file is in a dlopen()ed library, where such a variable is dynamic TLS, and the
     * leak checker of clang 16's runtime misreads glibc's dynamic TLS blocks and crashes
     * (test/fuzz, fuzz_store, under libFuzzer's leak detection). */
    if (slots > 1) {
        pthread_mutex_lock(&mu);
        if (!busy) {
            busy = shared = 1;
            grow(slots - 1);
            j.want = nthreads < slots - 1 ? nthreads : slots - 1;
            j.open = 1;
            cur = &j;
            pthread_cond_broadcast(&wake);
        }
        pthread_mutex_unlock(&mu);
    }
    run_items(&j, 0);
    if (shared) {
        pthread_mutex_lock(&mu);
        j.open = 0;
        while (j.running)
            pthread_cond_wait(&idle, &mu);
        cur = NULL;
        busy = 0;
        pthread_mutex_unlock(&mu);
    }
    return atomic_load(&j.fail);
}

struct nczc_stream {
    job j;
};

nczc_stream *nczc_stream_start(unsigned cap, nczc_work_fn fn, void *arg)
{
    unsigned slots = nczc_workers_slots(cap);
    if (slots < 2)
        return NULL;
    nczc_stream *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->j.fn = fn;
    s->j.arg = arg;
    s->j.n = SIZE_MAX;
    s->j.stream = 1;
    atomic_init(&s->j.next, 0);
    atomic_init(&s->j.fail, SIZE_MAX);
    atomic_init(&s->j.avail, 0);
    pthread_mutex_lock(&mu);
    if (!busy) {
        grow(slots - 1);
        s->j.want = nthreads < slots - 1 ? nthreads : slots - 1;
    }
    if (busy || s->j.want == 0) {
        pthread_mutex_unlock(&mu);
        free(s);
        return NULL;
    }
    busy = 1;
    s->j.open = 1;
    cur = &s->j;
    pthread_cond_broadcast(&wake);
    pthread_mutex_unlock(&mu);
    return s;
}

void nczc_stream_ready(nczc_stream *s, size_t n)
{
    pthread_mutex_lock(&mu);
    if (n > atomic_load(&s->j.avail)) {
        atomic_store(&s->j.avail, n);
        pthread_cond_broadcast(&more);
    }
    pthread_mutex_unlock(&mu);
}

size_t nczc_stream_finish(nczc_stream *s, size_t n)
{
    job *j = &s->j;
    pthread_mutex_lock(&mu);
    atomic_store(&j->avail, n);
    j->final = 1;
    pthread_cond_broadcast(&more);
    pthread_mutex_unlock(&mu);
    run_items(j, 0);
    pthread_mutex_lock(&mu);
    j->open = 0;
    while (j->running)
        pthread_cond_wait(&idle, &mu);
    cur = NULL;
    busy = 0;
    pthread_mutex_unlock(&mu);
    size_t f = atomic_load(&j->fail);
    free(s);
    return f < n ? f : n;
}

void nczc_workers_shutdown(void)
{
    pthread_mutex_lock(&mu);
    quit = 1;
    pthread_cond_broadcast(&wake);
    unsigned n = nthreads;
    pthread_mutex_unlock(&mu);
    for (unsigned i = 0; i < n; i++)
        pthread_join(threads[i], NULL);
    pthread_mutex_lock(&mu);
    nthreads = 0;
    quit = 0;
    pthread_mutex_unlock(&mu);
}
