/* Scratch buffers of an open file's chunk path: where fetched (still encoded) chunks land
 * and where workers decode chunks that go straight on to the caller's buffer. Memory
 * freshly taken from the system costs a page fault and a page clearing per 4 KiB, as much
 * as copying the bytes; a buffer malloc'ed and freed per chunk is such memory every time
 * (glibc hands large blocks back to the kernel), so these are kept between I/O calls, up
 * to NCZTR_SCRATCH_KEEP bytes in all. One I/O call runs at a time (HDF5 serialises VOL
 * calls), so a file's scratch has one user at a time. */
#include "ncztr_chunkio_internal.h"

#include <stdlib.h>

/* Bytes of scratch a file keeps between calls; bigger buffers are freed after the call. */
#define NCZTR_SCRATCH_KEEP ((size_t)80 << 20)

struct ncztr_scratch {
    unsigned char *buf[NCZTR_SCR_N];
    size_t cap[NCZTR_SCR_N];
};

static void scratch_free(struct ncztr_scratch *s)
{
    if (!s)
        return;
    for (int i = 0; i < NCZTR_SCR_N; i++)
        free(s->buf[i]);
    free(s);
}

unsigned char *ncztr_scratch_get(ncztr_file *f, int which, size_t bytes)
{
    if (!f->scratch) {
        if (!(f->scratch = calloc(1, sizeof *f->scratch)))
            return NULL;
        f->scratch_free = scratch_free;
    }
    struct ncztr_scratch *s = f->scratch;
    if (s->cap[which] < bytes) {
        free(s->buf[which]);
        s->cap[which] = 0;
        if (!(s->buf[which] = malloc(bytes ? bytes : 1)))
            return NULL;
        s->cap[which] = bytes;
    }
    return s->buf[which];
}

void ncztr_scratch_trim(ncztr_file *f)
{
    struct ncztr_scratch *s = f->scratch;
    if (!s)
        return;
    size_t total = 0;
    for (int i = 0; i < NCZTR_SCR_N; i++)
        total += s->cap[i];
    if (total <= NCZTR_SCRATCH_KEEP)
        return;
    for (int i = 0; i < NCZTR_SCR_N; i++) {
        free(s->buf[i]);
        s->buf[i] = NULL;
        s->cap[i] = 0;
    }
}
