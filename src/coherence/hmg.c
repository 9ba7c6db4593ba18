/*
 * hmg.c -- HMG (spec hmg.md 5) and NHCC (4), one directory protocol; on a
 * machine of one GPU the two are the same, the form CPElide compares
 * against (spec cpelide.md 5 and D13).
 *
 * Every L2 caches local and remote data. The homes of a line: its system
 * home (the first-touch page owner) and, on every GPU, the GPU home (the
 * GPM of that GPU with the system home's index; on the system home's GPU,
 * the system home). Each home keeps a directory of who may cache the
 * line: a set-associative array of `dir_entries` entries, each covering
 * `dir_lines` consecutive lines, with a sharer bit vector and two states
 * (V, I; spec hmg.md 4.2 as the table of hmg_dir.h), no transient states,
 * no acks on the store path. A GPU home tracks the GPMs of its GPU; the
 * system home tracks the GPMs of its own GPU and other GPUs as wholes
 * (mode = hier). A miss, a write-through or a write-back goes from the
 * requester's L2 to its GPU home, from there to the system home, from there
 * to memory, caching along the way. A strong access of GPU scope is served
 * at the GPU home, of system scope at the system home; atomics are
 * performed there (a weak one at the system home). Stores are written
 * through (HMG-WT, the default) and invalidate the other sharers at each
 * home they pass; a directory eviction invalidates every sharer of the
 * victim. An invalidation a GPU home receives from the system home is
 * passed on to its GPMs that share the lines. Invalidations are control
 * messages on the network; a sharer drops its clean copies of the entry's
 * lines. Under mode = flat (NHCC) every chiplet is a peer: one home per line,
 * every chiplet its own sharer bit. Kernel boundaries: L1s are invalidated
 * at every launch (a command-processor round, coh_round), no L2 is bulk
 * invalidated; a release (kernel end) waits until every invalidation sent
 * has been delivered. HMG-WB (`hmg_write_back = true`): L2s keep stores
 * dirty; at each release every L2 is flushed (a round too), remote lines
 * going to their home, which then invalidates the other sharers.
 */
#include <stdlib.h>

#include "coh.h"
#include "coh_hier.h"
#include "hmg.h"
#include "hmg_dir.h"

struct hmg_ent {
    uint64_t region;          /* line address / (dir_lines * line size) */
    uint64_t sharers;         /* bit i: sharer i may cache lines of the region (sharer_of) */
    uint64_t stamp;           /* LRU */
    bool valid;
};

struct hmg_dir {
    struct hmg_ent *e;        /* sets x ways */
    uint64_t tick;
};

enum hmg_cause { INV_STORE, INV_EVICT, INV_FWD, INV_CAUSES };

enum hmg_fault { F_NONE, F_NO_INVAL, F_NO_FORWARD, F_NO_RELEASE_WAIT };

/* An invalidation on its way from a home to a sharer. */
struct inv_msg {
    uint64_t region, group;
    unsigned home, target;
    bool fwd; /* to another GPU's home, which passes it on */
};

/* A scoped release (spec hmg.md H7): REL to every L2 in scope, each
 * acknowledging once the invalidations it sent before have arrived. */
struct rel_op {
    ps_t t;
    unsigned from, acks;
    coh_done_fn done;
    void *arg;
};

/* A REL on its way to (or waiting at) the L2 of chiplet node. */
struct rel_msg {
    struct rel_op *op;
    unsigned node;
};

struct hmg {
    const struct coh_machine *m;
    unsigned nch, ways, sets, dir_lines, line_b;
    struct coh_hier x;        /* mode = hier: GPU homes under system homes; flat: peers */
    bool write_back, home_alloc;
    enum hmg_fault fault;
    ps_t dir_ps;              /* directory lookup before invalidations leave */
    struct hmg_dir *dir;      /* [nch] */
    struct coh_l1_launch launch;
    struct coh_seq l2q;
    struct coh_round round; /* HMG-WB's flush at kernel ends */
    uint64_t all;
    uint64_t inv_in_flight;
    coh_done_fn rel_done;     /* a kernel's end waiting for invalidations */
    void *rel_arg;
    /* Invalidations in flight by the time they were sent: group g (from
     * grp_head to grp_tail, in a ring of grp_cap) counts those sent at
     * grp[g].t that are not yet delivered, with what they were passed on as
     * (spec hmg.md H7: a release waits for those sent before it). */
    struct inv_group {
        ps_t t;
        uint64_t left;
    } *grp;
    uint64_t grp_head, grp_tail, grp_cur; /* grp_cur: the group a forward joins, or ~0 */
    size_t grp_cap;
    struct pool invs, rels, relms; /* struct inv_msg, rel_op, rel_msg */
    struct rel_msg **waits;   /* RELs at an L2 waiting for older invalidations */
    size_t nwaits, waits_cap;
    struct {
        uint64_t dir_evictions, invals_store, invals_evict, invals_fwd, inval_events;
        uint64_t inval_sharers, lines_invalidated;
    } st;
};

static const struct cfg_key hmg_keys[] = {
    /* the directory of spec cpelide 5, D13: 12K entries, 4 lines each, 16 ways, LRU */
    {"dir_entries", CFG_INT, "12288", 1, 1 << 24, "directory entries per chiplet", NULL},
    {"dir_lines", CFG_INT, "4", 1, 1024,
     "consecutive lines one directory entry covers (a power of two)", NULL},
    {"dir_ways", CFG_INT, "16", 1, 1024, "directory associativity (LRU)", NULL},
    {"hmg_write_back", CFG_BOOL, "false", 0, 0,
     "HMG-WB: L2s keep stores dirty and write them to the home at releases and evictions",
     NULL},
    /* spec cpelide D13 */
    {"hmg_home_alloc", CFG_BOOL, "true", 0, 0,
     "the home allocates lines in its L2 for remote readers (needs [l2] mshrs_remote > 0); "
     "false: it serves hits and relays misses from its L3 without allocating",
     NULL},
    {"dir_lookup_cycles", CFG_INT, "0", 0, 1e6,
     "GPU cycles from a store or a directory eviction at the home to its invalidations "
     "leaving (the directory lookup); 0: looked up alongside the home L2's tags (no published "
     "figure; docs/hmg.md)", NULL},
    {"mode", CFG_ENUM, "hier", 0, 0,
     "hier (HMG): each GPU's home of an address tracks that GPU's GPMs and the system home "
     "tracks GPUs, requests pass the GPU home first; flat (NHCC): every chiplet a peer of every "
     "other, one home per address (the same on a machine of one GPU)", "hier|flat"},
    {"fault", CFG_ENUM, "none", 0, 0,
     "testing only, so the checker must fire: no_inval drops the invalidations stores send, "
     "no_forward drops those a GPU home should pass on to its GPMs, no_release_wait ends "
     "scoped releases without their acknowledgements", "none|no_inval|no_forward|no_release_wait"},
    CFG_END,
};

/* The sharer index of chiplet c in the directory of node n: under mode =
 * hier a GPM of n's GPU by its index there, another GPU by cpg + its number
 * (only a system home meets one, spec hmg.md 5.1); under flat the chiplet. */
static inline unsigned sharer_of(const struct hmg *h, unsigned n, unsigned c)
{
    const struct coh_hier *x = &h->x;
    if (!x->on)
        return c;
    return coh_hier_gpu(x, c) == coh_hier_gpu(x, n) ? c % x->cpg : x->cpg + coh_hier_gpu(x, c);
}

/* The chiplet that sharer i of node n's directory names: for another GPU,
 * that GPU's home of n's lines, which passes the invalidation on. */
static inline unsigned sharer_node(const struct hmg *h, unsigned n, unsigned i)
{
    const struct coh_hier *x = &h->x;
    if (!x->on)
        return i;
    return i < x->cpg ? coh_hier_gpu(x, n) * x->cpg + i : (i - x->cpg) * x->cpg + n % x->cpg;
}

static inline uint64_t region_of(const struct hmg *h, addr_t a)
{
    return a / ((addr_t)h->dir_lines * h->line_b);
}

/* ---- invalidations ----------------------------------------------------------- */

static void release_check(struct sim *s, struct hmg *h)
{
    if (h->inv_in_flight || !h->rel_done)
        return;
    coh_done_fn fn = h->rel_done;
    h->rel_done = NULL;
    fn(s, h->rel_arg);
}

static void dir_event(struct hmg *h, unsigned home, uint64_t region, enum hmg_devent ev,
                      unsigned s, enum hmg_cause why);

static void rel_waits_check(struct sim *s, struct hmg *h);

/* The group of invalidations sent now (a forward joins its original's). */
static uint64_t inv_group(struct hmg *h)
{
    if (h->grp_cur != ~0ull)
        return h->grp_cur;
    ps_t now = h->m->s->now;
    if (h->grp_tail > h->grp_head && h->grp[(h->grp_tail - 1) % h->grp_cap].t == now)
        return h->grp_tail - 1;
    if (h->grp_tail - h->grp_head == h->grp_cap) { /* full: twice the ring, in order */
        size_t cap = h->grp_cap;
        struct inv_group *g = xcalloc(2 * cap, sizeof *g);
        for (uint64_t k = h->grp_head; k < h->grp_tail; k++)
            g[k % (2 * cap)] = h->grp[k % cap];
        free(h->grp);
        h->grp = g;
        h->grp_cap = 2 * cap;
    }
    h->grp[h->grp_tail % h->grp_cap] = (struct inv_group){.t = now};
    return h->grp_tail++;
}

/* One invalidation of group g delivered: the oldest groups done leave. */
static void inv_group_done(struct sim *s, struct hmg *h, uint64_t g)
{
    h->grp[g % h->grp_cap].left--;
    while (h->grp_head < h->grp_tail && !h->grp[h->grp_head % h->grp_cap].left)
        h->grp_head++;
    rel_waits_check(s, h);
}

/* At the sharer: drop its clean copies of the region's lines (dirty bytes,
 * possible only in HMG-WB, stay until written back); a GPU home told by the
 * system home passes it on to its GPMs that share the region. */
static void inval_arrive(struct sim *s, void *obj, uint64_t arg)
{
    struct hmg *h = obj;
    struct inv_msg *v = (struct inv_msg *)(uintptr_t)arg;
    addr_t base = v->region * (addr_t)h->dir_lines * h->line_b;
    struct cache *l2 = &h->m->l2[v->target];
    for (unsigned i = 0; i < h->dir_lines; i++)
        h->st.lines_invalidated += cache_inval_line(l2, base + (addr_t)i * h->line_b);
    if (v->fwd) {
        h->grp_cur = v->group;
        dir_event(h, v->target, v->region, HMG_INV, 0, INV_FWD);
        h->grp_cur = ~0ull;
    }
    uint64_t g = v->group;
    pool_put(&h->invs, v);
    h->inv_in_flight--;
    sim_progress(s);
    inv_group_done(s, h, g);
    release_check(s, h);
}

/* The lookup is over: the invalidation leaves the home. */
static void inval_send(struct sim *s, void *obj, uint64_t arg)
{
    (void)s;
    struct hmg *h = obj;
    struct inv_msg *v = (struct inv_msg *)(uintptr_t)arg;
    h->m->send(h->m->net, v->home, v->target, 8, TC_COH, inval_arrive, h, arg);
}

/* Node `home` invalidates the region at its sharers `targets` (sharer_of). */
static void invalidate(struct hmg *h, unsigned home, uint64_t region, uint64_t targets,
                       enum hmg_cause why)
{
    if (!targets)
        return;
    h->st.inval_events++;
    h->st.inval_sharers += popcount64(targets);
    uint64_t *count[INV_CAUSES] = {&h->st.invals_store, &h->st.invals_evict, &h->st.invals_fwd};
    *count[why] += popcount64(targets);
    uint64_t g = inv_group(h);
    for (uint64_t t = targets; t; t &= t - 1) {
        unsigned i = (unsigned)__builtin_ctzll(t);
        struct inv_msg *v = pool_get(&h->invs);
        *v = (struct inv_msg){.region = region, .group = g, .home = home,
                              .target = sharer_node(h, home, i),
                              .fwd = h->x.on && i >= h->x.cpg};
        h->inv_in_flight++;
        h->grp[g % h->grp_cap].left++;
        uint64_t arg = (uint64_t)(uintptr_t)v;
        if (h->dir_ps && !h->m->s->functional)
            sim_after(h->m->s, h->dir_ps, inval_send, h, arg);
        else
            inval_send(h->m->s, h, arg);
    }
}

/* ---- the directory ------------------------------------------------------------ */

static struct hmg_ent *dir_find(struct hmg *h, unsigned home, uint64_t region)
{
    struct hmg_ent *set = &h->dir[home].e[(region % h->sets) * h->ways];
    for (unsigned w = 0; w < h->ways; w++)
        if (set[w].valid && set[w].region == region)
            return &set[w];
    return NULL;
}

/* A new entry for region at home: a free way of its set, else the LRU
 * entry, replaced (Table 5.1: its sharers invalidated). */
static struct hmg_ent *dir_alloc(struct hmg *h, unsigned home, uint64_t region)
{
    struct hmg_ent *set = &h->dir[home].e[(region % h->sets) * h->ways], *e = &set[0];
    for (unsigned w = 0; w < h->ways && e->valid; w++)
        if (!set[w].valid || set[w].stamp < e->stamp)
            e = &set[w];
    if (e->valid) {
        h->st.dir_evictions++;
        invalidate(h, home, e->region, hmg_dir_step(HMG_V, e->sharers, HMG_REPLACE, 0).inv,
                   INV_EVICT);
    }
    *e = (struct hmg_ent){.region = region, .valid = true};
    return e;
}

/* Event ev at home's entry for region, from sharer s (sharer_of): Table
 * 5.1's step (hmg_dir.h), its invalidations sent (counted as `why`); an
 * entry the step keeps is allocated if absent, and becomes the most
 * recently used. */
static void dir_event(struct hmg *h, unsigned home, uint64_t region, enum hmg_devent ev,
                      unsigned s, enum hmg_cause why)
{
    struct hmg_ent *e = dir_find(h, home, region);
    struct hmg_dstep st = hmg_dir_step(e ? HMG_V : HMG_I, e ? e->sharers : 0, ev, s);
    bool dropped = (why == INV_STORE && h->fault == F_NO_INVAL) ||
                   (why == INV_FWD && h->fault == F_NO_FORWARD);
    if (st.inv && !dropped)
        invalidate(h, home, region, st.inv, why);
    if (st.next == HMG_I) {
        if (e)
            e->valid = false;
        return;
    }
    if (!e)
        e = dir_alloc(h, home, region);
    e->sharers = st.sharers;
    e->stamp = ++h->dir[home].tick;
}

bool hmg_dir_lookup(const void *self, unsigned node, addr_t a, uint64_t *sharers)
{
    struct hmg *h = (struct hmg *)self;
    const struct hmg_ent *e = dir_find(h, node, region_of(h, a));
    *sharers = e ? e->sharers : 0;
    return e != NULL;
}

/* ---- the request path ------------------------------------------------------------ */

static struct coh_route hmg_l2_access(void *self, unsigned ch, struct req *r)
{
    struct hmg *h = self;
    bool store = r->kind == REQ_WRITE || r->kind == REQ_ATOMIC;
    unsigned gh = coh_hier_gpu_home(&h->x, r->home, coh_hier_gpu(&h->x, ch));
    if (store && (r->home == ch || gh == ch))
        dir_event(h, ch, region_of(h, r->addr), HMG_LOCAL_ST, 0, INV_STORE);
    return coh_hier_l2_access(&h->x, ch, r, !h->write_back);
}

static struct coh_route hmg_l2_miss(void *self, unsigned ch, struct req *r)
{
    struct hmg *h = self;
    if (r->kind == REQ_WRITEBACK)
        r->src = (uint16_t)(ch * h->m->cu_per_ch); /* the home learns who wrote it back */
    return coh_hier_miss(&h->x, ch, r);
}

/* A directory event for a request from another chiplet arriving at home n. */
static void home_event(struct hmg *h, unsigned n, const struct req *r)
{
    dir_event(h, n, region_of(h, r->addr), r->kind == REQ_READ ? HMG_REMOTE_LD : HMG_REMOTE_ST,
              sharer_of(h, n, coh_hier_src(&h->x, r)), INV_STORE);
}

/* At a GPU home from a GPM of its GPU (spec hmg.md 5.1, 5.2): its
 * directory records the GPM, its L2 serves (and keeps) the line; what it
 * cannot serve, and write-backs, go on to the system home. */
static struct coh_route hmg_gpu_home_in(void *self, unsigned n, struct req *r)
{
    struct hmg *h = self;
    home_event(h, n, r);
    return coh_hier_gpu_home_route(&h->x, n, r, h->home_alloc, h->write_back);
}

/* At the system home: its directory records the GPM of its GPU, or the
 * other GPU (never a GPM of another GPU). */
static struct coh_route hmg_remote_in(void *self, unsigned home, struct req *r)
{
    struct hmg *h = self;
    home_event(h, home, r);
    return coh_route_to(COH_HOP_L2,
                        coh_hier_home_flags(&h->x, home, r, h->home_alloc, h->write_back));
}

/* ---- kernel boundaries -------------------------------------------------------------- */

/* At the local CPs, a launch: every L1 invalidated. */
static void hmg_kernel_launch(void *self, const struct coh_kernel *k, coh_done_fn done, void *arg)
{
    coh_l1_launch(&((struct hmg *)self)->launch, k, done, arg);
}

static void released(struct sim *s, void *obj)
{
    release_check(s, obj);
}

/* HMG-WB at the local CPs: every L2 flushed. */
static void flush_ops(void *obj)
{
    struct hmg *h = obj;
    coh_l2s(&h->l2q, h->all, COH_FLUSH, coh_round_ops_done, &h->round);
}

/* Release: (HMG-WB) write every dirty line back, in a CP round, then wait
 * for every invalidation in flight to be delivered. */
static void hmg_kernel_end(void *self, const struct coh_kernel *k, coh_done_fn done, void *arg)
{
    struct hmg *h = self;
    h->rel_done = done;
    h->rel_arg = arg;
    h->l2q.kernel = k->id;
    if (h->write_back)
        coh_round(&h->round, h->m, h->m->s->now, h->nch, false, flush_ops, h, released, h);
    else
        release_check(h->m->s, h);
}

/* ---- scoped releases (spec hmg.md 4.3, 5.2, H7) ------------------------------------------- */

/* Every invalidation sent by time t has arrived (those passed on too). */
static bool invs_before_done(const struct hmg *h, ps_t t)
{
    return h->grp_head == h->grp_tail || h->grp[h->grp_head % h->grp_cap].t > t;
}

static void rel_ack_arrive(struct sim *s, void *obj, uint64_t arg)
{
    struct hmg *h = obj;
    struct rel_op *op = (struct rel_op *)(uintptr_t)arg;
    if (--op->acks)
        return;
    coh_done_fn done = op->done;
    void *a = op->arg;
    pool_put(&h->rels, op);
    done(s, a);
}

/* The REL-ACK leaves the L2 for the releaser's. */
static void rel_ack(struct hmg *h, struct rel_msg *m)
{
    h->m->send(h->m->net, m->node, m->op->from, 8, TC_COH, rel_ack_arrive, h,
               (uint64_t)(uintptr_t)m->op);
    pool_put(&h->relms, m);
}

/* A REL at an L2: acknowledged once the invalidations sent before the
 * release have arrived (a machine-wide cut: at least what H7 asks, those
 * this L2 sent before the REL arrived). */
static void rel_arrive(struct sim *s, void *obj, uint64_t arg)
{
    (void)s;
    struct hmg *h = obj;
    struct rel_msg *m = (struct rel_msg *)(uintptr_t)arg;
    if (invs_before_done(h, m->op->t)) {
        rel_ack(h, m);
        return;
    }
    h->waits = xgrow(h->waits, sizeof *h->waits, &h->waits_cap, h->nwaits + 1);
    h->waits[h->nwaits++] = m;
}

static void rel_waits_check(struct sim *s, struct hmg *h)
{
    (void)s;
    size_t k = 0;
    for (size_t i = 0; i < h->nwaits; i++) {
        if (invs_before_done(h, h->waits[i]->op->t))
            rel_ack(h, h->waits[i]);
        else
            h->waits[k++] = h->waits[i];
    }
    h->nwaits = k;
}

/* A release of GPU or system scope by CU cu, its stores acknowledged: a REL
 * from its chiplet's L2 to every L2 in scope (under hmg a GPU release to
 * its GPU's, else all), done when every one has acknowledged. */
static void hmg_release(void *self, unsigned cu, enum mem_scope scope, coh_done_fn done,
                        void *arg)
{
    struct hmg *h = self;
    if (scope < SCOPE_GPU || h->fault == F_NO_RELEASE_WAIT) {
        done(h->m->s, arg);
        return;
    }
    unsigned from = cu / h->m->cu_per_ch, lo = 0, n = h->nch;
    if (scope == SCOPE_GPU && h->x.on) {
        lo = coh_hier_gpu(&h->x, from) * h->x.cpg;
        n = h->x.cpg;
    }
    struct rel_op *op = pool_get(&h->rels);
    *op = (struct rel_op){.t = h->m->s->now, .from = from, .acks = n, .done = done, .arg = arg};
    for (unsigned k = lo; k < lo + n; k++) {
        struct rel_msg *m = pool_get(&h->relms);
        *m = (struct rel_msg){op, k};
        h->m->send(h->m->net, from, k, 8, TC_COH, rel_arrive, h, (uint64_t)(uintptr_t)m);
    }
}

/* ---- set-up ---------------------------------------------------------------------------- */

static void *hmg_create(const struct coh_machine *m, const struct cfg_sec *sec, struct err *e)
{
    unsigned entries = (unsigned)cfg_uint(sec, "dir_entries");
    unsigned ways = (unsigned)cfg_uint(sec, "dir_ways");
    unsigned lines = (unsigned)cfg_uint(sec, "dir_lines");
    if (entries % ways) {
        cfg_err(e, sec, "dir_entries", "not a multiple of dir_ways (%u)", ways);
        return NULL;
    }
    if (!is_pow2(lines)) {
        cfg_err(e, sec, "dir_lines", "not a power of two");
        return NULL;
    }
    bool home_alloc = cfg_bool(sec, "hmg_home_alloc");
    if (coh_home_alloc_check(m, sec, "hmg_home_alloc", home_alloc, e))
        return NULL;
    struct hmg *h = xcalloc(1, sizeof *h);
    *h = (struct hmg){.m = m, .nch = m->nch, .ways = ways, .sets = entries / ways,
                      .dir_lines = lines, .line_b = m->l2[0].p.line_b,
                      .write_back = cfg_bool(sec, "hmg_write_back"),
                      .fault = (enum hmg_fault)cfg_enum(sec, "fault"),
                      .home_alloc = home_alloc,
                      .x = {.cpg = m->t->chiplets, .cu_per_ch = m->cu_per_ch,
                            .on = cfg_enum(sec, "mode") == 0},
                      .dir_ps = cfg_uint(sec, "dir_lookup_cycles") * m->gpu_period_ps};
    h->all = low_bits(m->nch);
    h->grp_cap = 64;
    h->grp = xcalloc(h->grp_cap, sizeof *h->grp);
    h->grp_cur = ~0ull;
    pool_init(&h->invs, sizeof(struct inv_msg), 1024);
    pool_init(&h->rels, sizeof(struct rel_op), 64);
    pool_init(&h->relms, sizeof(struct rel_msg), 256);
    h->dir = xcalloc(m->nch, sizeof *h->dir);
    for (unsigned c = 0; c < m->nch; c++)
        h->dir[c].e = xcalloc(entries, sizeof *h->dir[c].e);
    coh_l1_launch_init(&h->launch, m, NULL, false);
    coh_seq_init(&h->l2q, m);
    return h;
}

static void hmg_destroy(void *self)
{
    struct hmg *h = self;
    for (unsigned c = 0; c < h->nch; c++)
        free(h->dir[c].e);
    free(h->dir);
    free(h->grp);
    free(h->waits);
    pool_destroy(&h->invs);
    pool_destroy(&h->rels);
    pool_destroy(&h->relms);
    free(h);
}

#define HMG_ST(f, d) STAT_DESC(__typeof__(((struct hmg *)0)->st), f, d)
static const struct stat_desc hmg_desc[] = {
    HMG_ST(dir_evictions, "directory entries evicted (their sharers invalidated)"),
    HMG_ST(invals_store, "invalidation messages caused by stores"),
    HMG_ST(invals_evict, "invalidation messages caused by directory evictions"),
    HMG_ST(invals_fwd, "invalidation messages a GPU home passed on to its GPMs"),
    HMG_ST(inval_events, "stores or evictions that sent invalidations"),
    HMG_ST(inval_sharers, "sharers invalidated, summed over those events"),
    HMG_ST(lines_invalidated, "L2 lines dropped by invalidations"),
    {0},
};

static void hmg_reg_stats(void *self, struct stats *st)
{
    stats_reg_block(st, "coherence", hmg_desc, &((struct hmg *)self)->st);
}

const struct coh_ops coh_hmg = {
    .name = "hmg",
    /* spec cpelide 5, hmg 4 */
    .desc = "HMG: directories at GPU homes and system homes (NHCC: flat), write-through L2s, "
            "invalidations to sharers, no bulk L2 invalidation at kernel boundaries",
    .keys = hmg_keys,
    .create = hmg_create,
    .destroy = hmg_destroy,
    .reg_stats = hmg_reg_stats,
    .kernel_launch = hmg_kernel_launch,
    .kernel_end = hmg_kernel_end,
    .l2_access = hmg_l2_access,
    .l2_miss = hmg_l2_miss,
    .gpu_home_in = hmg_gpu_home_in,
    .remote_in = hmg_remote_in,
    .release = hmg_release,
};
