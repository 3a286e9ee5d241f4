/* An array's chunk buffer pool (translate/data/ncztr_bufpool.c): buffers come back in the
 * order they went, a call that ran short keeps everything it gave back (up to one batch
 * worth), a call that used fewer gives the rest back, never below NCZTR_POOL_KEEP_BYTES
 * worth (two buffers for big chunks), and a pool that cannot keep a buffer frees it. */
#include "ncz_test.h"
#include "ncztr_chunkio_internal.h"

#include <stdlib.h>

enum { MIB = 1 << 20 };

/* Takes n buffers (of the pool's size) and gives them all back. */
static void use(ncztr_bufpool *p, size_t n)
{
    unsigned char **b = calloc(n, sizeof *b);
    REQUIRE(b != NULL, "out of memory");
    for (size_t i = 0; i < n; i++)
        REQUIRE((b[i] = ncztr_pool_take(p, p->chunk_bytes)) != NULL, "take %zu", i);
    for (size_t i = 0; i < n; i++)
        ncztr_pool_give(p, b[i]);
    free(b);
}

/* A call that uses n buffers, then the trim at its end; what the pool keeps after it. */
static size_t call(ncztr_bufpool *p, size_t n)
{
    use(p, n);
    ncztr_pool_trim(p);
    return p->n;
}

static void wide_calls(void)
{
    ncztr_bufpool p;
    ncztr_pool_init(&p, MIB);
    size_t batch = NCZTR_BATCH_BYTES / MIB + 1, floor = NCZTR_POOL_KEEP_BYTES / MIB;
    CHECK(p.max == batch, "one batch worth: %zu buffers, expected %zu", p.max, batch);
    /* a call of 32 chunks, each a fresh buffer: all 32 kept for the next call */
    CHECK(call(&p, 32) == 32, "after a call that ran short: %zu kept, expected 32", p.n);
    unsigned char *top = p.v[p.n - 1];
    unsigned char *b = ncztr_pool_take(&p, MIB);
    CHECK(b == top, "the last buffer given is the first taken");
    ncztr_pool_give(&p, b);
    /* the same call again is served from the pool and keeps what it used */
    CHECK(call(&p, 32) == 32, "after a call served from the pool: %zu kept, expected 32", p.n);
    /* calls shrink: what the last one used, no less than the floor */
    CHECK(call(&p, 12) == 12, "after a call of 12: %zu kept, expected 12", p.n);
    CHECK(call(&p, 3) == floor, "after a call of 3: %zu kept, expected the floor %zu", p.n, floor);
    /* a call wider than a batch: the pool keeps a batch worth, frees the rest at once */
    use(&p, batch + 5);
    CHECK(p.n == batch, "during a call: %zu kept, at most %zu", p.n, batch);
    ncztr_pool_trim(&p);
    CHECK(p.n == batch, "after a call wider than a batch: %zu kept, expected %zu", p.n, batch);
    /* an idle call (nothing taken) gives back all but the floor */
    ncztr_pool_trim(&p);
    CHECK(p.n == floor, "after an idle call: %zu kept, expected %zu", p.n, floor);
    ncztr_pool_clear(&p);
    CHECK(p.n == 0 && p.v == NULL, "a cleared pool keeps nothing");
    CHECK(call(&p, 2) == 2, "a cleared pool starts again: %zu kept", p.n);
    ncztr_pool_clear(&p);
}

static void big_chunks(void)
{
    ncztr_bufpool p;
    ncztr_pool_init(&p, 16 * MIB); /* more than NCZTR_POOL_KEEP_BYTES */
    CHECK(p.max == 3, "a batch of 16 MiB chunks: %zu buffers, expected 3", p.max);
    CHECK(call(&p, 1) == 1, "one used, one kept: %zu", p.n);
    call(&p, 3);
    ncztr_pool_trim(&p);
    CHECK(p.n == 2, "idle: two big buffers kept, %zu", p.n);
    ncztr_pool_clear(&p);
    /* a buffer too small for the size asked is not handed out */
    ncztr_pool_init(&p, 64);
    use(&p, 1);
    unsigned char *b = ncztr_pool_take(&p, 128);
    CHECK(b != NULL && p.n == 1, "a bigger size is malloc'ed, the kept buffer stays");
    free(b);
    ncztr_pool_clear(&p);
    /* no pool: give frees, take mallocs */
    ncztr_pool_give(NULL, malloc(8));
    b = ncztr_pool_take(NULL, 8);
    CHECK(b != NULL, "take without a pool");
    free(b);
}

int main(void)
{
    wide_calls();
    big_chunks();
    TEST_MAIN_END();
}
