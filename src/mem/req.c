/*
 * req.c -- request pool set-up and the completion event adapter (the byte-mask
 * helpers are inline in req.h: they run on every cache access).
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
