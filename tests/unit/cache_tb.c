/*
 * cache_tb.c -- the cache tests' bench (cache_tb.h).
 */
#include "cache_tb.h"

#include <criterion/criterion.h>
#include <stdlib.h>

static void lower_access(struct sim *s, void *self, struct req *r)
{
    struct lower *l = self;
    cr_assert_lt(l->n, NREC);
    l->rec[l->n++] = (struct rec){r->kind,    r->flags,           r->addr, r->size,
                                  {r->mask[0], r->mask[1]}, r->home, s->now, r->site};
    if (r->kind == REQ_READ)
        for (unsigned w = 0; w < REQ_WORDS; w++)
            r->ver[w] = (uint32_t)l->version;
    if (l->hold)
        return;
    bool slow = l->slow_delay && r->addr == l->slow_addr;
    sim_at(s, s->now + (slow ? l->slow_delay : l->delay), req_complete_ev, r, 0);
}

struct tb *tb_new(const struct cache_params *p)
{
    struct tb *t = calloc(1, sizeof *t);
    sim_init(&t->s, 1);
    req_pool_init(&t->s, 64);
    clock_init(&t->clk, "gpu", 1000.0);
    t->low.delay = 10 * CY;
    cache_init(&t->c, &t->s, "l1", &t->clk, p, (struct mem_port){lower_access, &t->low});
    return t;
}

void tb_free(struct tb *t)
{
    cr_expect_eq(t->s.req_pool.in_use, 0, "requests leaked: %llu",
                 (unsigned long long)t->s.req_pool.in_use);
    cache_free(&t->c);
    sim_destroy(&t->s);
    free(t);
}

static void on_done(struct sim *s, struct req *r, void *obj)
{
    struct tb *t = obj;
    cr_assert_lt(t->ndone, NREC);
    t->done_tag[t->ndone] = r->tag;
    t->done_version[t->ndone] = r->ver[(r->addr & (t->c.p.line_b - 1)) / 4];
    t->done_word1[t->ndone] = r->ver[1];
    t->done_t[t->ndone++] = s->now;
    req_free(s, r);
}

static void issue_ev(struct sim *s, void *obj, uint64_t arg)
{
    cache_access(s, &((struct tb *)obj)->c, (struct req *)(uintptr_t)arg);
}

struct req *tb_issue(struct tb *t, ps_t when, uint8_t kind, addr_t addr, uint32_t len,
                     uint64_t tag)
{
    struct req *r = req_alloc(&t->s);
    r->kind = kind;
    r->addr = addr;
    r->size = len;
    r->tag = tag;
    if (kind != REQ_READ)
        req_mask_range(r->mask, (unsigned)(addr & (t->c.p.line_b - 1)), len);
    req_on_done(r, on_done, t);
    sim_at(&t->s, when, issue_ev, t, (uint64_t)(uintptr_t)r);
    return r;
}
