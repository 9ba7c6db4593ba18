/*
 * req.c -- request pool set-up and the completion event adapter (the byte-mask
 * helpers are inline in req.h: they run on every cache access).
 */
#include "req.h"

/* The hint of a completion: that of the handler on top of the return stack
 * (its object, the request), e.g. a cache's fill. */
static void complete_hint(const struct sim *s, const void *req, uint64_t unused)
{
    (void)unused;
    const struct req *r = req;
    if (!r->nret)
        return;
    const struct req_ret *top = &r->ret[r->nret - 1];
    ev_hint_fn h = sim_hint_of(s, (const void *)top->fn);
    if (h)
        h(s, top->obj, (uint64_t)(uintptr_t)r);
}

void req_pool_init(struct sim *s, size_t initial)
{
    if (!s->req_pool.nchunks)
        pool_init(&s->req_pool, sizeof(struct req), initial);
    sim_hint(s, (const void *)req_complete_ev, complete_hint);
}

void req_complete_ev(struct sim *s, void *req, uint64_t unused)
{
    (void)unused;
    req_complete(s, req);
}
