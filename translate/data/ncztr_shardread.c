/* Partial shard reads. A read that covers part of a shard (a sequential reader taking half
 * a shard per call, a slice across shards) needs only some of its inner chunks. Where the
 * store reads byte ranges for the price of their bytes (a directory store), such a shard is
 * read in part: its index first (one range per shard, for a batch of shards at once), then
 * one range per shard spanning the inner chunks the block touches, which decode on the
 * worker pool straight into the user's buffer. The whole-shard path would read the shard
 * once, decode all of it into a shard-sized buffer and copy from there, call after call:
 * one copy more per element and a shard-sized buffer per cached shard.
 *
 * Only for blocks that cover each inner chunk they touch whole: a block cutting through
 * inner chunks (a row at a time) would decode the same inner chunk again on every call,
 * where the chunk cache keeps the decoded shard. */
#include "ncztr_chunkio_internal.h"
#include "ncztr_codec.h"
#include "nczc_workers.h"

#include <stdlib.h>
#include <string.h>

#define RMAX NCZTR_MAX_RANK
#define NONE UINT64_MAX

void ncztr_shard_partial_setup(ncztr_ioctx *x)
{
    x->partial = false;
    /* reads only where a byte range costs its bytes; writes anywhere (a shard is stored whole) */
    if (!x->box || x->g.transpose || x->a->dimonly || (!x->write && !nczm_map_ranges_cheap(x->o->file->map)))
        return;
    size_t mark = ncz_err_mark();
    ncztr_chain *chain = ncztr_array_chain(x->o);
    uint64_t ishape[RMAX];
    bool at_start;
    if (!chain) { /* the chunk path reports it */
        free(ncz_err_take_messages(mark));
        return;
    }
    if (!ncztr_chain_inner_shape(chain, x->g.rank, ishape) ||
        ncztr_chain_shard_index_span(chain, &at_start) == 0)
        return;
    x->ninner = 1;
    for (int k = 0; k < x->g.rank; k++) {
        x->inner[k] = (hsize_t)ishape[k];
        x->ninner *= (size_t)(x->g.chunks[k] / x->inner[k]);
    }
    x->partial = true;
}

bool ncztr_shard_partial_fits(const ncztr_ioctx *x, const uint64_t *coord)
{
    uint64_t lo[RMAX], hi[RMAX];
    return x->partial && ncztr_box_inner_range(x, coord, x->inner, lo, hi);
}

/* One inner chunk to decode and place: its shard's job, its number in the shard, its
 * stored bytes (NULL: never written, all fill). */
typedef struct inner_item {
    size_t job;
    size_t inner;
    bool stored;
    /* stored raw, read by the store straight into its runs of the user's buffer (runs of
     * them): nothing to decode or copy */
    bool direct;
    size_t runs;
    uint64_t off; /* stored: its place in the shard object */
    const unsigned char *in;
    size_t inlen;
} inner_item;

typedef struct part_arg {
    const ncztr_ioctx *x;
    const ncztr_chain *chain;
    const ncztr_cjob *jobs;
    const inner_item *items;
    unsigned char *slots; /* one inner chunk per thread */
    size_t ibytes;
    ncztr_slot_errs *se;
} part_arg;

static int decode_one(void *arg, size_t i, unsigned slot)
{
    const part_arg *p = arg;
    const inner_item *it = &p->items[i];
    ncztr_cerr e;
    if (it->direct)
        return 0;
    const unsigned char *raw =
        ncztr_chain_inner_decode(p->chain, it->in, it->inlen, p->slots + (size_t)slot * p->ibytes, &e);
    if (!raw) {
        ncztr_slot_errs_note(p->se, slot, i, &e);
        return 1;
    }
    ncztr_box_copy_inner(p->x, p->jobs[it->job].coord, p->x->inner, it->inner, raw);
    return 0;
}

/* The items of inner chunks nums[0..n) of a shard whose index is pairs (job j). Where vec
 * (raw inner chunks, a store that scatters), a stored inner chunk of its raw size that
 * lies whole in the block as at most NCZTR_IOV_MAX_RUNS runs is direct; *runs grows by
 * theirs. */
static void add_items(const ncztr_ioctx *x, const ncztr_cjob *jb, inner_item *items, const size_t *nums,
                      size_t n, size_t j, const uint64_t *pairs, bool vec, size_t ibytes, size_t *runs)
{
    for (size_t t = 0; t < n; t++) {
        uint64_t off = pairs[2 * nums[t]], len = pairs[2 * nums[t] + 1];
        items[t] = (inner_item){.job = j, .inner = nums[t]};
        if (off == NONE && len == NONE)
            continue;
        items[t] = (inner_item){.job = j, .inner = nums[t], .stored = true, .off = off, .inlen = (size_t)len};
        size_t r = vec && len == ibytes ? ncztr_box_iov_inner(x, jb->coord, x->inner, nums[t], NULL, 0) : 0;
        if (r > 0 && r <= NCZTR_IOV_MAX_RUNS) {
            items[t].direct = true;
            items[t].runs = r;
            *runs += r;
        }
    }
}

/* The span of the stored inner chunks of items[0, n) that are not direct (empty: lo > hi). */
static void items_span(const inner_item *items, size_t n, uint64_t *lo, uint64_t *hi)
{
    *lo = 1;
    *hi = 0;
    for (size_t t = 0; t < n; t++) {
        if (!items[t].stored || items[t].direct)
            continue;
        uint64_t off = items[t].off, end = off + items[t].inlen;
        if (*lo > *hi)
            *lo = off, *hi = end;
        *lo = off < *lo ? off : *lo;
        *hi = end > *hi ? end : *hi;
    }
}

herr_t ncztr_shard_read_partial(ncztr_ioctx *x, ncztr_cjob *jobs, size_t njobs)
{
    herr_t ret = SUCCEED;
    nczm_map *map = x->o->file->map;
    const char *path = x->g.path;
    const ncztr_chain *chain = x->a->chain;
    size_t m = 0, nitems = 0, ninner = x->ninner;
    for (size_t j = 0; j < njobs; j++)
        m += jobs[j].partial;
    if (m == 0)
        return SUCCEED;
    bool at_start;
    size_t ib = ncztr_chain_shard_index_span(chain, &at_start), ibytes = x->g.chunk_bytes / ninner;
    unsigned ns = nczc_workers_slots(x->workers);
    size_t *which = calloc(m, sizeof *which), *first = calloc(m, sizeof *first),
           *nums = malloc(ninner * sizeof *nums);
    uint64_t *pairs = malloc(m * ninner * 2 * sizeof *pairs), *span = calloc(m, sizeof *span);
    unsigned char *ibuf = malloc(m * ib);
    nczm_range *rg = calloc(m, sizeof *rg);
    inner_item *items = NULL;
    struct iovec *iovs = NULL;
    ncztr_slot_errs se = {0};
    if (!which || !first || !nums || !pairs || !span || !ibuf || !rg)
        NCZ_GOTO(FAIL, NCZ_E_NOMEM, "dataset \"%s\": out of memory reading shards", path);
    m = 0;
    for (size_t j = 0; j < njobs; j++)
        if (jobs[j].partial)
            which[m++] = j;
    /* 1. the indexes */
    for (size_t i = 0; i < m; i++)
        rg[i] = (nczm_range){.key = jobs[which[i]].key, .count = ib, .tail = !at_start, .buf = ibuf + i * ib};
    nczm_read_ranges(map, m, rg); /* per-request statuses are examined below */
    size_t maxitems = 0;
    for (size_t i = 0; i < m; i++) {
        ncztr_cjob *jb = &jobs[which[i]];
        maxitems += ncztr_box_inner_list(x, jb->coord, x->inner, NULL);
        uint64_t *pi = pairs + i * ninner * 2;
        if (rg[i].status == NCZM_NOTFOUND) { /* a shard never written: all fill */
            for (size_t k = 0; k < 2 * ninner; k++)
                pi[k] = NONE;
            continue;
        }
        if (rg[i].status != NCZM_OK)
            NCZ_GOTO(FAIL, NCZ_E_STORE, "dataset \"%s\": cannot read the index of shard \"%s\": %s", path,
                     jb->key, nczm_errmsg(map));
        ncztr_cerr e;
        if (ncztr_chain_shard_index(chain, ibuf + i * ib, rg[i].objlen, pi, &e) < 0)
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "dataset \"%s\": shard \"%s\": %s", path, jb->key, e.msg);
    }
    /* 2. the inner chunks the block touches: one span of each shard for those decoded or
     * copied from memory, one range straight into the user's buffer for each raw one
     * lying whole in it (one copy per byte, the kernel's, as an unsharded chunk's) */
    bool vec = ncztr_chain_inner_raw(chain) && nczm_map_vectored(map);
    if (!(items = malloc((maxitems ? maxitems : 1) * sizeof *items)))
        NCZ_GOTO(FAIL, NCZ_E_NOMEM, "dataset \"%s\": out of memory reading shards", path);
    size_t total = 0, nr = 0, ndirect = 0, nruns = 0;
    for (size_t i = 0; i < m; i++) {
        uint64_t lo, hi;
        const ncztr_cjob *jb = &jobs[which[i]];
        size_t k = ncztr_box_inner_list(x, jb->coord, x->inner, nums);
        add_items(x, jb, items + nitems, nums, k, which[i], pairs + i * ninner * 2, vec, ibytes, &nruns);
        /* An inner chunk stored with no bytes decodes to nothing; left in, it would give its
         * shard no byte range while the ranges below are handed out per shard with any
         * stored inner chunk, shifting every later shard's bytes. */
        for (size_t t = nitems; t < nitems + k; t++) {
            if (items[t].stored && items[t].inlen == 0)
                NCZ_GOTO(FAIL, NCZ_E_FORMAT,
                         "dataset \"%s\": shard \"%s\": its index gives inner chunk %zu a length of 0 bytes",
                         path, jb->key, items[t].inner);
            ndirect += items[t].direct;
        }
        items_span(items + nitems, k, &lo, &hi);
        first[i] = nitems;
        nitems += k;
        span[i] = NONE; /* no byte range: nothing stored to decode that the block touches */
        if (lo < hi) {
            span[i] = lo;
            rg[nr++] = (nczm_range){.key = jb->key, .start = lo, .count = (size_t)(hi - lo)};
            total += (size_t)(hi - lo) + NCZTR_PAGE; /* its place keeps the scratch's skew */
        }
    }
    if (ndirect) {
        nczm_range *more = realloc(rg, (m + ndirect) * sizeof *rg);
        if (more)
            rg = more;
        if (!more || !(iovs = malloc(nruns * sizeof *iovs)))
            NCZ_GOTO(FAIL, NCZ_E_NOMEM, "dataset \"%s\": out of memory reading shards", path);
    }
    for (size_t t = 0, d = nr, v = 0; t < nitems; t++) {
        const inner_item *it = &items[t];
        if (!it->direct)
            continue;
        ncztr_box_iov_inner(x, jobs[it->job].coord, x->inner, it->inner, iovs + v, it->runs);
        rg[d++] = (nczm_range){.key = jobs[it->job].key,
                               .start = it->off,
                               .count = ibytes,
                               .iov = iovs + v,
                               .iovcnt = (int)it->runs};
        v += it->runs;
    }
    unsigned char *data = total ? ncztr_scratch_get(x->o->file, NCZTR_SCR_FETCH, 1, total) : NULL;
    if (total && !data)
        NCZ_GOTO(FAIL, NCZ_E_NOMEM, "dataset \"%s\": out of memory reading shards", path);
    for (size_t r = 0, off = 0; r < nr; r++) {
        off = ncztr_scratch_place(data, off, rg[r].start);
        rg[r].buf = data + off;
        off += rg[r].count;
    }
    nczm_read_ranges(map, nr + ndirect, rg);
    for (size_t t = 0, d = nr; t < nitems; t++) {
        if (!items[t].direct)
            continue;
        if (rg[d].status != NCZM_OK)
            NCZ_GOTO(FAIL, NCZ_E_STORE, "dataset \"%s\": cannot read inner chunk %zu of shard \"%s\": %s",
                     path, items[t].inner, jobs[items[t].job].key, nczm_errmsg(map));
        d++;
    }
    for (size_t i = 0, r = 0; i < m; i++) {
        size_t end = i + 1 < m ? first[i + 1] : nitems;
        if (span[i] == NONE)
            continue;
        if (rg[r].status != NCZM_OK)
            NCZ_GOTO(FAIL, NCZ_E_STORE, "dataset \"%s\": cannot read the inner chunks of shard \"%s\": %s",
                     path, jobs[which[i]].key, nczm_errmsg(map));
        for (size_t t = first[i]; t < end; t++)
            if (items[t].stored && !items[t].direct)
                items[t].in = (const unsigned char *)rg[r].buf + (items[t].off - span[i]);
        r++;
    }
    /* 3. decoded on the worker pool, each inner chunk straight to the user */
    unsigned char *slots = ncztr_scratch_get(x->o->file, NCZTR_SCR_SLOTS, ns, ibytes);
    if (!slots || ncztr_slot_errs_init(&se, ns) < 0)
        NCZ_GOTO(FAIL, NCZ_E_NOMEM, "dataset \"%s\": out of memory decoding shards", path);
    part_arg pa = {x, chain, jobs, items, slots, ibytes, &se};
    if (nczc_parallel_for(nitems, x->workers, decode_one, &pa) < nitems) {
        const char *why;
        const inner_item *it = &items[ncztr_slot_errs_first(&se, &why)];
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "dataset \"%s\": shard \"%s\": inner chunk %zu: %s", path,
                 jobs[it->job].key, it->inner, why);
    }
    for (size_t i = 0; i < m; i++)
        jobs[which[i]].copied = true;
done:
    free(which);
    free(first);
    free(pairs);
    free(span);
    free(ibuf);
    free(rg);
    free(items);
    free(iovs);
    free(nums);
    ncztr_slot_errs_clear(&se);
    return ret;
}
