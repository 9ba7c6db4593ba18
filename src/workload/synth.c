/*
 * synth.c -- synthetic traffic generators (see synth.h).
 */
#include "synth.h"

#include <stdlib.h>

struct synth_cu {
    struct synth *g;
    unsigned id;
    uint64_t issued, inflight;
    uint64_t cursor;       /* stream offset / chase line */
    struct rng rng;
};

const struct cfg_key synth_keys[] = {
    {"pattern", CFG_ENUM, "stream", 0, 0, "address pattern", "stream|random|chase"},
    {"requests", CFG_INT, "2000", 1, 1e12, "requests issued by each active CU", NULL},
    {"footprint_kib", CFG_INT, "256", 1, 1 << 30,
     "bytes touched: per CU for stream, shared by all CUs for random and chase (KiB)", NULL},
    {"write_pct", CFG_INT, "0", 0, 100, "percentage of requests that are writes", NULL},
    {"outstanding", CFG_INT, "16", 1, 4096, "requests in flight per CU (chase: always 1)", NULL},
    {"req_b", CFG_INT, "64", 4, 128, "bytes per request (a power of two, at most one line)", NULL},
    {"active_cus", CFG_INT, "0", 0, 65535, "CUs that issue traffic (0 = all)", NULL},
    CFG_END,
};

int synth_params_from_cfg(const struct cfg_sec *sec, struct synth_params *p, struct err *e)
{
    *p = (struct synth_params){
        .pattern = (enum synth_pattern)cfg_enum(sec, "pattern"),
        .requests = cfg_uint(sec, "requests"),
        .footprint_b = cfg_uint(sec, "footprint_kib") * 1024,
        .write_pct = (unsigned)cfg_uint(sec, "write_pct"),
        .outstanding = (unsigned)cfg_uint(sec, "outstanding"),
        .req_b = (unsigned)cfg_uint(sec, "req_b"),
        .active_cus = (unsigned)cfg_uint(sec, "active_cus"),
    };
    if (!is_pow2(p->req_b))
        return cfg_err(e, sec, "req_b", "not a power of two");
    if (p->pattern == SYNTH_CHASE)
        p->outstanding = 1;
    return 0;
}

static addr_t next_addr(struct synth_cu *c)
{
    const struct synth_params *p = &c->g->p;
    uint64_t off;
    switch (p->pattern) {
    case SYNTH_STREAM:
        off = (uint64_t)c->id * p->footprint_b + c->cursor;
        c->cursor = (c->cursor + p->req_b) % p->footprint_b;
        return MEMSYS_HEAP_BASE + off;
    case SYNTH_RANDOM:
        return MEMSYS_HEAP_BASE + rng_below(&c->rng, p->footprint_b / p->req_b) * p->req_b;
    case SYNTH_CHASE:
        c->cursor = c->g->chain[c->cursor];
        return MEMSYS_HEAP_BASE + c->cursor * c->g->ms->line_b;
    }
    return 0;
}

static void issue(struct synth_cu *c);

static void done(struct sim *s, struct req *r, void *obj)
{
    struct synth_cu *c = obj;
    struct synth *g = c->g;
    g->st.completed++;
    g->st.latency_ps += s->now - r->issued;
    g->last_done = s->now;
    c->inflight--;
    req_free(s, r);
    sim_progress(s);
    issue(c);
}

static void issue(struct synth_cu *c)
{
    struct synth *g = c->g;
    while (c->issued < g->p.requests && c->inflight < g->p.outstanding) {
        struct req *r = req_alloc(g->s);
        r->addr = next_addr(c);
        r->size = g->p.req_b;
        bool wr = rng_below(&c->rng, 100) < g->p.write_pct;
        r->kind = wr ? REQ_WRITE : REQ_READ;
        if (wr)
            req_mask_range(r->mask, (unsigned)(r->addr % g->ms->line_b), r->size);
        r->src = (uint16_t)c->id;
        r->home = (uint16_t)memsys_home(g->ms, r->addr, c->id);
        req_on_done(r, done, c);
        c->issued++;
        c->inflight++;
        g->st.issued++;
        g->st.bytes += r->size;
        *(wr ? &g->st.writes : &g->st.reads) += 1;
        memsys_cu_access(g->ms, c->id, r);
    }
}

static uint64_t pending(void *obj)
{
    struct synth *g = obj;
    return g->st.issued - g->st.completed;
}

/* A single cycle through every line, in random order (Sattolo's algorithm). */
static void build_chain(struct synth *g)
{
    uint64_t n = g->p.footprint_b / g->ms->line_b;
    uint64_t *perm = xmalloc(n * sizeof *perm);
    g->chain = xmalloc(n * sizeof *g->chain);
    for (uint64_t i = 0; i < n; i++)
        perm[i] = i;
    for (uint64_t i = n - 1; i > 0; i--) {
        uint64_t j = rng_below(&g->s->rng, i);
        uint64_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (uint64_t i = 0; i < n; i++)
        g->chain[perm[i]] = perm[(i + 1) % n];
    free(perm);
}

void synth_init(struct synth *g, struct sim *s, struct memsys *ms, const struct synth_params *p)
{
    *g = (struct synth){.s = s, .ms = ms, .p = *p};
    g->ncu = p->active_cus && p->active_cus < memsys_ncus(ms) ? p->active_cus : memsys_ncus(ms);
    g->cu = xcalloc(g->ncu, sizeof *g->cu);
    for (unsigned i = 0; i < g->ncu; i++) {
        g->cu[i] = (struct synth_cu){.g = g, .id = i};
        rng_seed(&g->cu[i].rng, hash64(s->rng.s[0] + i));
    }
    if (p->pattern == SYNTH_CHASE)
        build_chain(g);
    sim_watch(s, "synth", pending, NULL, g);
}

void synth_free(struct synth *g)
{
    free(g->cu);
    free(g->chain);
}

static void start_ev(struct sim *s, void *obj, uint64_t arg)
{
    (void)s;
    (void)arg;
    issue(obj);
}

void synth_start(struct synth *g)
{
    g->first_issue = g->s->now;
    for (unsigned i = 0; i < g->ncu; i++)
        sim_at(g->s, g->s->now, start_ev, &g->cu[i], 0);
}

void synth_reg_stats(struct synth *g, struct stats *st, const char *prefix)
{
    stats_reg(st, prefix, "issued", &g->st.issued, "requests issued");
    stats_reg(st, prefix, "completed", &g->st.completed, "requests completed");
    stats_reg(st, prefix, "reads", &g->st.reads, "read requests");
    stats_reg(st, prefix, "writes", &g->st.writes, "write requests");
    stats_reg(st, prefix, "latency_ps", &g->st.latency_ps, "sum of request latencies, ps");
    stats_reg(st, prefix, "bytes", &g->st.bytes, "bytes requested");
}
