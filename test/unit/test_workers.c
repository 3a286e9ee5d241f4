/* The worker pool: every item runs exactly once whatever the cap, the lowest failed item
 * comes back, slots stay below nczc_workers_slots(cap), a call from inside a worker runs
 * on that worker, and the pool shuts down and starts again; a stream runs each item once,
 * made ready a few at a time while the caller goes on, refuses to start inside an item,
 * and leaves the pool usable (valgrind and TSan runs check that nothing leaks or races). */
#include "ncz_test.h"
#include "nczc_workers.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    atomic_int *count; /* per item: times run */
    size_t fail_from;  /* items >= this fail (every 3rd) */
    unsigned slots;
    atomic_int bad_slot;
    atomic_int nested_bad;
} ctx;

static int nested_item(void *arg, size_t i, unsigned slot)
{
    atomic_int *c = arg;
    (void)slot; /* on a worker, a nested call runs inline; on the caller it may use the pool */
    atomic_fetch_add(&c[i], 1);
    return 0;
}

static int item(void *arg, size_t i, unsigned slot)
{
    ctx *c = arg;
    atomic_fetch_add(&c->count[i], 1);
    if (slot >= c->slots)
        atomic_store(&c->bad_slot, 1);
    if (i % 97 == 5) {
        atomic_int inner[4] = {0};
        if (nczc_parallel_for(4, 0, nested_item, inner) != 4)
            atomic_store(&c->nested_bad, 1);
        for (int k = 0; k < 4; k++)
            if (atomic_load(&inner[k]) != 1)
                atomic_store(&c->nested_bad, 1);
    }
    return i >= c->fail_from && i % 3 == 0;
}

static void run(size_t n, unsigned cap, size_t fail_from)
{
    ctx c = {.fail_from = fail_from, .slots = nczc_workers_slots(cap)};
    c.count = calloc(n ? n : 1, sizeof *c.count);
    REQUIRE(c.count, "out of memory");
    atomic_init(&c.bad_slot, 0);
    atomic_init(&c.nested_bad, 0);
    size_t r = nczc_parallel_for(n, cap, item, &c);
    size_t want = n;
    for (size_t i = fail_from; i < n; i++)
        if (i % 3 == 0) {
            want = i;
            break;
        }
    CHECK(r == want, "n=%zu cap=%u: first failure %zu, expected %zu", n, cap, r, want);
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++)
        wrong += atomic_load(&c.count[i]) != 1;
    CHECK(wrong == 0, "n=%zu cap=%u: %zu items not run exactly once", n, cap, wrong);
    CHECK(!atomic_load(&c.bad_slot), "n=%zu cap=%u: a slot out of range", n, cap);
    CHECK(!atomic_load(&c.nested_bad), "n=%zu cap=%u: a nested call went wrong", n, cap);
    free(c.count);
}

/* A stream of n items made ready in steps of step (the caller writes each item's input
 * just before making it ready, as the metadata commit does), ended at n or, with
 * end_early, at n / 2 (the rest never runs). */
typedef struct {
    int *input; /* written by the caller before the item is ready */
    atomic_int *count;
    atomic_int bad;
} sctx;

static int stream_item(void *arg, size_t i, unsigned slot)
{
    sctx *c = arg;
    (void)slot;
    if (c->input[i] != (int)i + 1)
        atomic_store(&c->bad, 1);
    atomic_fetch_add(&c->count[i], 1);
    /* the pool is held by the stream: a nested call runs here, alone */
    atomic_int inner[3] = {0};
    if (i % 50 == 7 && nczc_parallel_for(3, 0, nested_item, inner) != 3)
        atomic_store(&c->bad, 1);
    return i % 41 == 40;
}

static void run_stream(size_t n, size_t step, unsigned cap, int end_early)
{
    sctx c = {.input = calloc(n + 1, sizeof(int)), .count = calloc(n + 1, sizeof(atomic_int))};
    REQUIRE(c.input && c.count, "out of memory");
    atomic_init(&c.bad, 0);
    nczc_stream *s = nczc_stream_start(cap, stream_item, &c);
    if (nczc_workers_slots(cap) < 2) {
        CHECK(!s, "cap %u: no stream on one thread", cap);
    } else {
        REQUIRE(s, "cap %u: a stream starts", cap);
        size_t last = end_early ? n / 2 : n;
        for (size_t i = 0; i < last; i++) {
            c.input[i] = (int)i + 1;
            if ((i + 1) % step == 0)
                nczc_stream_ready(s, i + 1);
        }
        size_t r = nczc_stream_finish(s, last);
        CHECK(r == (last > 40 ? 40 : last), "stream n=%zu: first failure %zu", last, r);
        size_t wrong = 0;
        for (size_t i = 0; i < n; i++)
            wrong += atomic_load(&c.count[i]) != (i < last);
        CHECK(wrong == 0, "stream n=%zu step=%zu cap=%u: %zu items run wrongly", last, step, cap, wrong);
        CHECK(!atomic_load(&c.bad), "stream n=%zu step=%zu cap=%u: an item ran before it was ready", last,
              step, cap);
    }
    free(c.input);
    free(c.count);
}

static int start_stream_inside(void *arg, size_t i, unsigned slot)
{
    (void)i;
    (void)slot;
    nczc_stream *s = nczc_stream_start(4, stream_item, NULL);
    if (s) {
        atomic_store((atomic_int *)arg, 1);
        nczc_stream_finish(s, 0);
    }
    return 0;
}

int main(void)
{
    CHECK(nczc_workers_default() >= 1, "default %u", nczc_workers_default());
    CHECK(nczc_workers_slots(1) == 1, "cap 1");
    CHECK(nczc_workers_slots(1000) == NCZC_WORKERS_MAX, "cap 1000");
    CHECK(nczc_workers_slots(0) == nczc_workers_default(), "cap 0");
    unsigned caps[] = {1, 2, 3, 8, 0};
    size_t sizes[] = {0, 1, 2, 7, 1000, 20000};
    for (int round = 0; round < 2; round++) {
        for (size_t a = 0; a < sizeof caps / sizeof *caps; a++)
            for (size_t b = 0; b < sizeof sizes / sizeof *sizes; b++) {
                run(sizes[b], caps[a], SIZE_MAX); /* no failure */
                run(sizes[b], caps[a], 0);        /* item 0 fails first */
                run(sizes[b], caps[a], sizes[b] / 2);
            }
        /* A fresh pool starts after a shutdown (the connector's terminate). */
        nczc_workers_shutdown();
    }
    size_t steps[] = {1, 7, 256};
    for (size_t a = 0; a < sizeof caps / sizeof *caps; a++)
        for (size_t b = 0; b < sizeof steps / sizeof *steps; b++) {
            run_stream(1000, steps[b], caps[a], 0);
            run_stream(1000, steps[b], caps[a], 1);
            run_stream(0, steps[b], caps[a], 0);
        }
    atomic_int started = 0;
    nczc_parallel_for(8, 4, start_stream_inside, &started);
    CHECK(!atomic_load(&started), "no stream starts while the pool runs a job");
    run(1000, 4, SIZE_MAX); /* the pool after streams */
    nczc_workers_shutdown();
    nczc_workers_shutdown(); /* twice is harmless */
    TEST_MAIN_END();
}
