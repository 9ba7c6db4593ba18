/*
 * req.c -- request pool set-up and byte-mask helpers.
 */
#include "req.h"

void req_pool_init(struct sim *s, size_t initial)
{
    if (!s->req_pool.nchunks)
        pool_init(&s->req_pool, sizeof(struct req), initial);
}

void req_complete_ev(struct sim *s, void *req, uint64_t unused)
{
    (void)unused;
    req_complete(s, req);
}

/* Bits [lo, hi) of a 64-bit word, for 0 <= lo <= hi <= 64. */
static inline uint64_t bits(unsigned lo, unsigned hi)
{
    if (lo >= hi)
        return 0;
    uint64_t ones = hi - lo == 64 ? ~0ull : (1ull << (hi - lo)) - 1;
    return ones << lo;
}

void req_mask_range(uint64_t mask[2], unsigned off, unsigned len)
{
    unsigned end = off + len > 128 ? 128 : off + len;
    mask[0] = bits(off < 64 ? off : 64, end < 64 ? end : 64);
    mask[1] = bits(off > 64 ? off - 64 : 0, end > 64 ? end - 64 : 0);
}
