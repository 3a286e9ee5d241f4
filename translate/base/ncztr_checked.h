/* translate/base: size arithmetic on numbers that come from a store (shapes, chunk and
 * shard sizes, counts of inner chunks, times the number of worker threads). A store may
 * declare anything: a product that wraps would size a buffer smaller than what is later
 * written into it, so every such product goes through these, which say whether it fits. */
#ifndef NCZTR_CHECKED_H
#define NCZTR_CHECKED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* *out = a * b; false (and *out unspecified) when the product does not fit. */
static inline bool ncztr_mul_size(size_t a, size_t b, size_t *out)
{
    return !__builtin_mul_overflow(a, b, out);
}

static inline bool ncztr_mul_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    return !__builtin_mul_overflow(a, b, out);
}

#endif
