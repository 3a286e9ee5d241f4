/* Contexts a codec keeps for reuse between chunks (zstd's, libdeflate's): a context is
 * hundreds of KiB that a fresh allocation would fault in page by page for every chunk.
 * Each is used by one thread at a time; the pool is shared under its lock. */
#include "ncztr_codec_internal.h"

int ncztr_ctxpool_init(ncztr_ctxpool *p, void (*destroy)(void *))
{
    p->n = 0;
    p->destroy = destroy;
    return pthread_mutex_init(&p->lock, NULL) == 0 ? 0 : -1;
}

void *ncztr_ctxpool_take(ncztr_ctxpool *p)
{
    void *c = NULL;
    pthread_mutex_lock(&p->lock);
    if (p->n)
        c = p->v[--p->n];
    pthread_mutex_unlock(&p->lock);
    return c;
}

void ncztr_ctxpool_give(ncztr_ctxpool *p, void *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&p->lock);
    if (p->n < NCZTR_CTXPOOL_KEEP) {
        p->v[p->n++] = c;
        c = NULL;
    }
    pthread_mutex_unlock(&p->lock);
    if (c)
        p->destroy(c);
}

void ncztr_ctxpool_clear(ncztr_ctxpool *p)
{
    for (int i = 0; i < p->n; i++)
        p->destroy(p->v[i]);
    p->n = 0;
    pthread_mutex_destroy(&p->lock);
}
