/* Scratch buffers of an open file's chunk path: where fetched (still encoded) chunks land
 * and where workers decode chunks that go straight on to the caller's buffer. Memory
 * freshly taken from the system costs a page fault and a page clearing per 4 KiB, as much
 * as copying the bytes; a buffer malloc'ed and freed per chunk is such memory every time
 * (glibc hands large blocks back to the kernel), so these are kept between I/O calls, up
 * to NCZTR_SCRATCH_KEEP bytes in all. One I/O call runs at a time (HDF5 serialises VOL
 * calls), so a file's scratch has one user at a time.
 *
 * Each buffer starts NCZTR_SCRATCH_SKEW bytes into a page, and readers keep that distance
 * between where a byte lies in its object's page and where it lands (ncztr_scratch_stride,
 * ncztr_scratch_place). Large copies, the kernel's of read(2) and glibc's memcpy alike, use
 * `rep movsb`, which on AMD Zen (FSRM) runs about three times slower when the destination
 * lies 1 to 31 bytes past the source's offset in a page (ncztr_scratch_slow). Objects are
 * read from page-aligned offsets, and glibc puts a large block 16 bytes past a page start:
 * exactly that distance, in every process whose first large blocks come from mmap. */
#include "ncztr_checked.h"
#include "ncztr_chunkio_internal.h"

#include <stdint.h>
#include <stdlib.h>

/* Bytes of scratch a file keeps between calls; bigger buffers are freed after the call. */
#define NCZTR_SCRATCH_KEEP ((size_t)80 << 20)
/* Half a page: as far from the slow distances as can be, whichever way bytes then go. */
#define NCZTR_SCRATCH_SKEW ((size_t)2048)
/* Copies to a destination this many bytes past the source's place in a page, or fewer
 * (but not 0), are the slow ones. */
#define NCZTR_SLOW_SPAN ((size_t)32)

struct ncztr_scratch {
    unsigned char *buf[NCZTR_SCR_N];
    size_t cap[NCZTR_SCR_N];
};

static void *base_of(unsigned char *buf)
{
    return buf ? buf - NCZTR_SCRATCH_SKEW : NULL;
}

size_t ncztr_scratch_stride(size_t n)
{
    /* saturates, so that a product with it (ncztr_scratch_get) fails rather than wraps */
    return n > SIZE_MAX - NCZTR_PAGE ? SIZE_MAX : (n + NCZTR_PAGE - 1) / NCZTR_PAGE * NCZTR_PAGE;
}

static unsigned char *skewed_alloc(size_t bytes)
{
    size_t total = ncztr_scratch_stride(bytes + NCZTR_SCRATCH_SKEW);
    unsigned char *b = total > bytes ? aligned_alloc(NCZTR_PAGE, total) : NULL;
    return b ? b + NCZTR_SCRATCH_SKEW : NULL;
}

size_t ncztr_scratch_place(const unsigned char *base, size_t off, uint64_t src)
{
    size_t want = (size_t)((src + NCZTR_SCRATCH_SKEW) % NCZTR_PAGE);
    size_t at = (size_t)(((uintptr_t)base + off) % NCZTR_PAGE);
    return off + (want + NCZTR_PAGE - at) % NCZTR_PAGE;
}

bool ncztr_scratch_slow(const void *dst, uint64_t src)
{
    size_t d = (size_t)(((uintptr_t)dst - (uintptr_t)(src % NCZTR_PAGE)) % NCZTR_PAGE);
    return d > 0 && d < NCZTR_SLOW_SPAN;
}

static void scratch_free(struct ncztr_scratch *s)
{
    if (!s)
        return;
    for (int i = 0; i < NCZTR_SCR_N; i++)
        free(base_of(s->buf[i]));
    free(s);
}

unsigned char *ncztr_scratch_get(ncztr_file *f, int which, size_t n, size_t each)
{
    size_t bytes;
    if (!ncztr_mul_size(n, each, &bytes))
        return NULL; /* a size from the store times the threads: reported as out of memory */
    if (!f->scratch) {
        if (!(f->scratch = calloc(1, sizeof *f->scratch)))
            return NULL;
        f->scratch_free = scratch_free;
    }
    struct ncztr_scratch *s = f->scratch;
    if (s->cap[which] < bytes) {
        free(base_of(s->buf[which]));
        s->cap[which] = 0;
        if (!(s->buf[which] = skewed_alloc(bytes ? bytes : 1)))
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
        free(base_of(s->buf[i]));
        s->buf[i] = NULL;
        s->cap[i] = 0;
    }
}
