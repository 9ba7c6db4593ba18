/*
 * hmg.c -- HMG in its single-GPU multi-chiplet form (spec cpelide.md 5 and
 * D13; the protocol of spec hmg.md 4, NHCC, with chiplets as GPMs).
 *
 * Every chiplet's L2 caches local and remote data. The home chiplet of a
 * line (first-touch page owner) keeps a directory of the other chiplets
 * that may cache it: a set-associative array of `dir_entries` entries, each
 * covering `dir_lines` consecutive lines, with a sharer bit vector and two
 * states (V: tracked, I: absent), no transient states, no acks on the store
 * path. Stores are written through to the home and by the home on to the
 * L3 (HMG-WT, the default) and invalidate the other sharers; a store by the
 * home's own CUs invalidates every sharer; a directory eviction invalidates
 * every sharer of the victim. Invalidations are control messages on the
 * chiplet network; a sharer drops its clean copies of the entry's lines.
 * Atomics are performed at the home (in HMG-WT, below its L2, at the L3).
 * Kernel boundaries: L1s are invalidated at every launch (a command-
 * processor round, coh_round), no L2 is bulk invalidated; a release (kernel
 * end) waits until every invalidation sent has been delivered. HMG-WB
 * (`hmg_write_back = true`): L2s keep stores dirty; at each release every
 * L2 is flushed (a round too), remote lines going to their home, which then
 * invalidates the other sharers.
 *
 * The multi-GPU form (GPU homes and a system home, spec hmg.md 5) extends
 * this: the directory, the invalidation messages and the routing below are
 * per home node, so a second level of homes adds a lookup on the GPU-home
 * path without changing what is here.
 */
#include <stdlib.h>

#include "coh.h"
#include "hmg_dir.h"

struct hmg_ent {
    uint64_t region;          /* line address / (dir_lines * line size) */
    uint64_t sharers;         /* bit c: chiplet c may cache lines of the region */
    uint64_t stamp;           /* LRU */
    bool valid;
};

struct hmg_dir {
    struct hmg_ent *e;        /* sets x ways */
    uint64_t tick;
};

enum hmg_cause { INV_STORE, INV_EVICT, INV_CAUSES };

struct hmg {
    const struct coh_machine *m;
    unsigned nch, ways, sets, dir_lines, line_b;
    bool write_back, no_inval, home_alloc;
    ps_t dir_ps;              /* directory lookup before invalidations leave */
    struct hmg_dir *dir;      /* [nch] */
    struct coh_seq l1q, l2q;
    struct coh_round round;
    uint64_t all;
    uint64_t inv_in_flight;
    coh_done_fn rel_done;     /* a release waiting for invalidations */
    void *rel_arg;
    struct {
        uint64_t dir_evictions, invals_store, invals_evict, inval_events, inval_sharers;
        uint64_t lines_invalidated;
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
    {"fault", CFG_ENUM, "none", 0, 0,
     "testing only: no_inval drops the invalidations stores send, so the checker must fire",
     "none|no_inval"},
    CFG_END,
};

static inline unsigned src_chiplet(const struct hmg *h, const struct req *r)
{
    return r->src / h->m->cu_per_ch;
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

/* At the sharer: drop its clean copies of the region's lines (dirty bytes,
 * possible only in HMG-WB, stay until written back). */
static void inval_arrive(struct sim *s, void *obj, uint64_t arg)
{
    struct hmg *h = obj;
    unsigned c = (unsigned)(arg & 0xff);
    addr_t base = (arg >> 8) * (addr_t)h->dir_lines * h->line_b;
    struct cache *l2 = &h->m->l2[c];
    for (unsigned i = 0; i < h->dir_lines; i++)
        h->st.lines_invalidated += cache_inval_line(l2, base + (addr_t)i * h->line_b);
    h->inv_in_flight--;
    sim_progress(s);
    release_check(s, h);
}

/* The lookup is over: the invalidation leaves the home (arg: region, home, target). */
static void inval_send(struct sim *s, void *obj, uint64_t arg)
{
    (void)s;
    struct hmg *h = obj;
    unsigned home = (unsigned)(arg >> 8 & 0xff), c = (unsigned)(arg & 0xff);
    uint64_t region = arg >> 16;
    h->m->send(h->m->net, home, c, 8, TC_COH, inval_arrive, h, region << 8 | c);
}

static void invalidate(struct hmg *h, unsigned home, uint64_t region, uint64_t targets,
                       enum hmg_cause why)
{
    if (!targets)
        return;
    h->st.inval_events++;
    h->st.inval_sharers += popcount64(targets);
    *(why == INV_STORE ? &h->st.invals_store : &h->st.invals_evict) += popcount64(targets);
    for (unsigned c = 0; c < h->nch; c++) {
        if (!(targets >> c & 1))
            continue;
        h->inv_in_flight++;
        uint64_t arg = region << 16 | (uint64_t)home << 8 | c;
        if (h->dir_ps)
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

/* Event ev at home's entry for region, from sender chiplet s: Table 5.1's
 * step (hmg_dir.h), its invalidations sent; an entry the step keeps is
 * allocated if absent, and becomes the most recently used. */
static void dir_event(struct hmg *h, unsigned home, uint64_t region, enum hmg_devent ev,
                      unsigned s)
{
    struct hmg_ent *e = dir_find(h, home, region);
    struct hmg_dstep st = hmg_dir_step(e ? HMG_V : HMG_I, e ? e->sharers : 0, ev, s);
    if (st.inv && !h->no_inval)
        invalidate(h, home, region, st.inv, INV_STORE);
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

/* ---- the request path ------------------------------------------------------------ */

static struct coh_route hmg_l2_access(void *self, unsigned ch, struct req *r)
{
    struct hmg *h = self;
    if (coh_strong_remote(ch, r)) /* synchronizes at the home, not on a sharer's copy */
        return coh_route_to(COH_HOP_HOME, 0);
    bool store = r->kind == REQ_WRITE || r->kind == REQ_ATOMIC;
    if (store && r->home == ch)
        dir_event(h, ch, region_of(h, r->addr), HMG_LOCAL_ST, ch);
    unsigned set = 0;
    if (r->kind == REQ_ATOMIC && r->home != ch)
        set = REQ_F_NOALLOC | REQ_F_WT; /* performed at the home */
    else if (store && !h->write_back)
        set = REQ_F_WT;
    return coh_route_to(COH_HOP_L2, set);
}

static struct coh_route hmg_l2_miss(void *self, unsigned ch, struct req *r)
{
    struct hmg *h = self;
    if (r->kind == REQ_WRITEBACK)
        r->src = (uint16_t)(ch * h->m->cu_per_ch); /* the home learns who wrote it back */
    return coh_default_l2_miss(ch, r);
}

static struct coh_route hmg_remote_in(void *self, unsigned home, struct req *r)
{
    struct hmg *h = self;
    dir_event(h, home, region_of(h, r->addr), r->kind == REQ_READ ? HMG_REMOTE_LD : HMG_REMOTE_ST,
              src_chiplet(h, r));
    unsigned set = REQ_F_REMOTE;
    if (r->kind == REQ_READ && !h->home_alloc)
        set |= REQ_F_NOALLOC; /* the home serves or relays */
    if ((r->kind == REQ_WRITE || r->kind == REQ_ATOMIC) && !h->write_back)
        set |= REQ_F_WT; /* the home writes stores through to the L3 */
    return coh_route_to(COH_HOP_L2, set);
}

/* ---- kernel boundaries -------------------------------------------------------------- */

/* At the local CPs, a launch: every L1 invalidated. */
static void l1_ops(void *obj)
{
    struct hmg *h = obj;
    coh_all_l1(&h->l1q, COH_INVALIDATE, coh_round_ops_done, &h->round);
}

static void hmg_kernel_launch(void *self, const struct coh_kernel *k, coh_done_fn done, void *arg)
{
    struct hmg *h = self;
    h->l1q.kernel = k->id;
    coh_round(&h->round, h->m, h->m->s->now, h->nch, true, l1_ops, h, done, arg);
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
    if (home_alloc && !m->l2[0].p.mshrs_remote) {
        cfg_err(e, sec, "hmg_home_alloc",
                "needs MSHRs kept for remote requests ([l2] mshrs_remote > 0), or local and "
                "remote misses could deadlock over the L2's MSHRs");
        return NULL;
    }
    struct hmg *h = xcalloc(1, sizeof *h);
    *h = (struct hmg){.m = m, .nch = m->nch, .ways = ways, .sets = entries / ways,
                      .dir_lines = lines, .line_b = m->l2[0].p.line_b,
                      .write_back = cfg_bool(sec, "hmg_write_back"),
                      .no_inval = cfg_enum(sec, "fault") == 1, .home_alloc = home_alloc,
                      .dir_ps = cfg_uint(sec, "dir_lookup_cycles") * m->gpu_period_ps};
    h->all = low_bits(m->nch);
    h->dir = xcalloc(m->nch, sizeof *h->dir);
    for (unsigned c = 0; c < m->nch; c++)
        h->dir[c].e = xcalloc(entries, sizeof *h->dir[c].e);
    coh_seq_init(&h->l1q, m);
    coh_seq_init(&h->l2q, m);
    return h;
}

static void hmg_destroy(void *self)
{
    struct hmg *h = self;
    for (unsigned c = 0; c < h->nch; c++)
        free(h->dir[c].e);
    free(h->dir);
    free(h);
}

#define HMG_ST(f, d) STAT_DESC(__typeof__(((struct hmg *)0)->st), f, d)
static const struct stat_desc hmg_desc[] = {
    HMG_ST(dir_evictions, "directory entries evicted (their sharers invalidated)"),
    HMG_ST(invals_store, "invalidation messages caused by stores"),
    HMG_ST(invals_evict, "invalidation messages caused by directory evictions"),
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
    .desc = "HMG (MCM form): per-chiplet directories, write-through L2s, invalidations to "
            "sharers, no bulk L2 invalidation at kernel boundaries",
    .keys = hmg_keys,
    .create = hmg_create,
    .destroy = hmg_destroy,
    .reg_stats = hmg_reg_stats,
    .kernel_launch = hmg_kernel_launch,
    .kernel_end = hmg_kernel_end,
    .l2_access = hmg_l2_access,
    .l2_miss = hmg_l2_miss,
    .remote_in = hmg_remote_in,
};
