/*
 * net_rig.c -- see net_rig.h.
 */
#include "net_rig.h"

#include <criterion/criterion.h>
#include <string.h>

void rec_ev(struct sim *s, void *obj, uint64_t arg)
{
    struct rec *r = obj;
    cr_assert_lt(r->n, REC_MAX);
    r->t[r->n] = s->now;
    r->arg[r->n++] = arg;
}

void fakemem_access(struct sim *s, void *self, struct req *r)
{
    struct fakemem *m = self;
    m->n++;
    m->arrived = s->now;
    if (m->scribble)
        r->home = 999;
    sim_after(s, m->lat_ps, req_complete_ev, r, 0);
}

static void requester_done(struct sim *s, struct req *r, void *obj)
{
    struct requester *q = obj;
    q->done_at = s->now;
    q->done++;
    q->nret_at_done = r->nret;
    req_free(s, r);
}

struct req *new_req(struct sim *s, enum req_kind kind, uint32_t size, uint16_t home,
                    struct requester *q)
{
    struct req *r = req_alloc(s);
    r->kind = kind;
    r->size = size;
    r->home = home;
    req_on_done(r, requester_done, q);
    return r;
}

void net_rig_init(struct net_rig *g, unsigned gpus, unsigned chiplets, const struct net_params *p,
                  double mhz)
{
    g->s = (struct sim){0};
    sim_init(&g->s, 1);
    req_pool_init(&g->s, 16);
    clock_init(&g->c, "gpu", mhz);
    struct topo t = {.gpus = gpus, .chiplets = chiplets};
    net_init(&g->n, &g->s, &g->c, &t, p);
    g->r.n = 0;
}

void net_rig_free(struct net_rig *g)
{
    net_free(&g->n);
    sim_destroy(&g->s);
}

struct link *lk(struct net *n, const char *name)
{
    for (unsigned i = 0; i < n->nlinks; i++)
        if (!strcmp(n->lname[i], name))
            return &n->links[i];
    cr_assert_fail("no link %s", name);
    return NULL;
}

uint64_t fwd(const struct net *n, const char *name)
{
    int i = net_node_find(n, name);
    cr_assert_geq(i, 0, "no node %s", name);
    return n->nodes[i].forwarded;
}
