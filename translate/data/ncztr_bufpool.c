/* The buffer pool of an array's chunks (see ncztr_chunkio_internal.h for why). */
#include "ncztr_chunkio_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ncztr_pool_init(ncztr_bufpool *p, size_t chunk_bytes)
{
    memset(p, 0, sizeof *p);
    p->chunk_bytes = chunk_bytes;
    /* One batch's worth: what a batch takes, the next one's evictions and stores give
     * back. Small chunks come cheap from malloc's free lists anyway. */
    size_t max = chunk_bytes ? NCZTR_BATCH_BYTES / chunk_bytes + 1 : 1;
    p->max = max < NCZTR_BATCH_CHUNKS ? max : NCZTR_BATCH_CHUNKS;
}

unsigned char *ncztr_pool_take(ncztr_bufpool *p, size_t chunk_bytes)
{
    if (p && p->n && p->chunk_bytes >= chunk_bytes) {
        unsigned char *b = p->v[--p->n];
        if (p->n < p->low)
            p->low = p->n;
        return b;
    }
    if (p)
        p->short_of = true;
    return malloc(chunk_bytes ? chunk_bytes : 1);
}

void ncztr_pool_give(ncztr_bufpool *p, unsigned char *buf)
{
    if (!buf)
        return;
    if (p && !p->v && p->max)
        p->v = malloc(p->max * sizeof *p->v);
    if (!p || !p->v || p->n == p->max) {
        free(buf);
        return;
    }
    p->v[p->n++] = buf;
}

void ncztr_pool_trim(ncztr_bufpool *p)
{
    /* What the call used: all that came back when it ran short, else all but those it
     * never took. Two at least: a call that fills a chunk and stores another (shards
     * written half by half) finds both again in the next call rather than in fresh memory. */
    size_t used = p->short_of ? p->n : p->n - (p->low < p->n ? p->low : p->n);
    size_t keep = p->chunk_bytes ? NCZTR_POOL_KEEP_BYTES / p->chunk_bytes : 2;
    if (keep < 2)
        keep = 2;
    if (keep < used)
        keep = used;
    while (p->n > keep)
        free(p->v[--p->n]);
    p->low = p->n;
    p->short_of = false;
}

void ncztr_pool_clear(ncztr_bufpool *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->v[i]);
    free(p->v);
    p->v = NULL;
    p->n = p->low = 0;
    p->short_of = false;
}
