/*
 * checker_sync.c -- the checker's view of synchronization inside a kernel
 * (checker.h): which agent (a work-group slot of a CU) made each version,
 * when each agent released and acquired at which scope, and the check of a
 * load against the stores released to its agent.
 */
#include "checker.h"

#include <stdlib.h>

void chk_sync_init(struct chk *c, unsigned ncu, unsigned cus_per_gpu, unsigned wgs_per_cu)
{
    c->sync.ncu = ncu;
    c->sync.cus_per_gpu = cus_per_gpu ? cus_per_gpu : ncu;
    /* writer[] holds agent + 1 in 16 bits */
    uint64_t n = (uint64_t)ncu * (wgs_per_cu ? wgs_per_cu : 1);
    c->sync.wgs = wgs_per_cu && n < UINT16_MAX ? wgs_per_cu : 1;
    c->sync.agent = xcalloc(ncu ? (size_t)ncu * c->sync.wgs : 1, sizeof *c->sync.agent);
}

static inline unsigned nagents(const struct chk *c)
{
    return c->sync.ncu * c->sync.wgs;
}

void chk_sync_free(struct chk *c)
{
    for (unsigned i = 0; i < nagents(c); i++)
        free(c->sync.agent[i].rel);
    free(c->sync.agent);
    free(c->sync.writer);
}

void chk_sync_kernel_begin(struct chk *c)
{
    for (unsigned i = 0; i < nagents(c); i++) {
        struct chk_cu_sync *u = &c->sync.agent[i];
        u->nrel = 0;
        for (unsigned s = 0; s < SCOPE_N; s++)
            u->acq[s] = 0;
    }
}

void chk_store_cu(struct chk *c, addr_t line, const uint64_t mask[2], uint32_t *ver, unsigned a)
{
    chk_store(c, line, mask, ver);
    if (!c->on || a >= nagents(c))
        return;
    size_t cap = c->sync.nwriter;
    if (c->seq >= cap) {
        size_t n = cap ? cap : 4096;
        while (n <= c->seq)
            n *= 2;
        c->sync.writer = xrealloc(c->sync.writer, n * sizeof *c->sync.writer);
        for (size_t i = cap; i < n; i++)
            c->sync.writer[i] = 0;
        c->sync.nwriter = n;
    }
    c->sync.writer[c->seq] = (uint16_t)(a + 1);
}

void chk_release(struct chk *c, unsigned a, enum mem_scope scope)
{
    if (!c->on || a >= nagents(c))
        return;
    struct chk_cu_sync *u = &c->sync.agent[a];
    u->rel = xgrow(u->rel, sizeof *u->rel, &u->cap, u->nrel + 1);
    u->rel[u->nrel++] = (struct chk_rel){c->seq, ++c->sync.epoch, (uint8_t)scope};
    c->st.releases++;
}

void chk_acquire(struct chk *c, unsigned a, enum mem_scope scope)
{
    if (!c->on || a >= nagents(c))
        return;
    c->sync.agent[a].acq[scope] = ++c->sync.epoch;
    c->st.acquires++;
}

/* The first release of u that follows version v (made it visible), or NULL. */
static const struct chk_rel *release_after(const struct chk_cu_sync *u, uint32_t v)
{
    size_t lo = 0, hi = u->nrel;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (u->rel[mid].seq >= v)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo < u->nrel ? &u->rel[lo] : NULL;
}

/* Does a release by agent `from` at rel_scope, then an acquire by agent
 * `to` at acq_scope, order the two (the smaller scope holds both)? */
static bool covers(const struct chk *c, unsigned from, unsigned to, unsigned rel_scope,
                   unsigned acq_scope)
{
    unsigned s = rel_scope < acq_scope ? rel_scope : acq_scope;
    if (s == SCOPE_SYS)
        return true;
    unsigned per_gpu = c->sync.cus_per_gpu * c->sync.wgs;
    return s == SCOPE_GPU && from / per_gpu == to / per_gpu;
}

/* Must the load by agent a see version v? */
static bool released_to(const struct chk *c, uint32_t v, unsigned a)
{
    if (!v || v >= c->sync.nwriter || !c->sync.writer[v])
        return false;
    unsigned from = c->sync.writer[v] - 1u;
    if (from == a)
        return false;
    const struct chk_rel *r = release_after(&c->sync.agent[from], v);
    if (!r || r->scope < SCOPE_GPU)
        return false;
    const struct chk_cu_sync *u = &c->sync.agent[a];
    for (unsigned s = SCOPE_GPU; s < SCOPE_N; s++)
        if (u->acq[s] > r->epoch && covers(c, from, a, r->scope, s))
            return true;
    return false;
}

uint32_t chk_sync_stale(struct chk *c, const struct chk_word *w, unsigned stride, uint32_t wm,
                        const uint32_t *ver, unsigned a, uint32_t *want)
{
    if (a >= nagents(c))
        return 0;
    uint32_t bad = 0;
    for (unsigned i = 0; i < c->words; i++) {
        uint32_t cur = w[i * stride].cur;
        if ((wm >> i & 1) && ver[i] < cur && released_to(c, cur, a)) {
            bad |= 1u << i;
            *want = cur;
        }
    }
    return bad;
}
