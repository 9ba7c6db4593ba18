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

void req_mask_range(uint64_t mask[2], unsigned off, unsigned len)
{
    mask[0] = mask[1] = 0;
    for (unsigned b = off; b < off + len && b < 128; b++)
        mask[b >> 6] |= 1ull << (b & 63);
}
