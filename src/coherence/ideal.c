/*
 * ideal.c -- an oracle upper bound for the kernel-boundary schemes: caches
 * keep data wherever the most generous scheme may keep it, and coherence
 * costs nothing.
 *
 * Request path (`caching = most`): the requester's L2 keeps the lines it
 * reads from other chiplets and keeps its stores to them dirty (the
 * artifact reading of spec cpelide D4, whatever the D4 keys say); the home
 * allocates lines for remote readers as HMG's does (D13; `home_alloc`);
 * atomics are performed at the home. `caching = d4` takes viper's path
 * instead (the D4 keys, no home allocation): only the boundaries differ,
 * which makes it the no-sync reference for reuse classification (D16). Kernel boundaries: every L1 is invalidated in a command-
 * processor round, as under every scheme (coh_round). Before it, at no cost
 * in time or traffic, the oracle takes from the coherence checker the lines
 * stored during the kernel that ended, moves their dirty words held on
 * chiplets other than the home to the home's path (its L2 copy, else its L3
 * copy, else memory), and drops exactly the copies (in any L2 or L3) that
 * hold a word older than the checker says the next kernel must see.
 * Nothing else is flushed or invalidated: every other copy stays, and dirty
 * lines stay dirty until evicted. Inside a kernel, a scoped release (GPU
 * scope or wider) moves the dirty remote words of the lines stored so far
 * home, and an acquire drops the acquirer's chiplet L2 copies that miss a
 * word's last store, then invalidates its L1 (both free but the L1's). The
 * oracle reads the checker's versions, so it needs `[check] enable = true`.
 */
#include <stdlib.h>

#include "checker.h"
#include "coh.h"
#include "coh_hier.h"

struct ideal {
    const struct coh_machine *m;
    struct coh_d4 d4;
    bool home_alloc;          /* caching = most: the home allocates for remote readers */
    bool write_through;       /* l2_write = through: every store written through (as HMG) */
    struct coh_hier x;        /* mode = hier: HMG's routes (spec hmg.md H12); flat: as before */
    enum { F_NONE, F_NO_MOVE, F_NO_DROP } fault;
    unsigned words;
    struct coh_l1_launch launch;
    struct {
        uint64_t l1_invalidates, lines_moved, lines_invalidated;
    } st;
};

static const struct cfg_key ideal_keys[] = {
    /* d4: the request path of spec cpelide D4; the no-sync reference of D16 */
    {"caching", CFG_ENUM, "most", 0, 0,
     "most: remote data cached wherever the most generous scheme caches it (the upper bound); "
     "d4: the request path of viper as [coherence] remote_read_alloc and remote_store set it, "
     "home not allocating, so that only the kernel boundaries differ from viper (the no-sync "
     "reference of reuse classification)", "most|d4"},
    {"l2_write", CFG_ENUM, "back", 0, 0,
     "with caching = most: stores stay in the L2s (back: remote ones dirty at the requester, "
     "moved home at the boundary) or are written through the requester's L2 and the home's to "
     "the L3, both keeping valid copies (through: HMG-WT's policy). Neither bounds every "
     "workload: the study runs both and takes the faster (docs/coherence.md)", "back|through"},
    /* HMG's home allocation: spec cpelide D13 */
    {"home_alloc", CFG_BOOL, "true", 0, 0,
     "with caching = most, the home allocates lines in its L2 for remote readers (as HMG's; "
     "needs [l2] mshrs_remote > 0); false: it serves hits and relays misses without "
     "allocating",
     NULL},
    {"mode", CFG_ENUM, "auto", 0, 0,
     "with caching = most: flat, the requester and the one home keep copies; hier, HMG's "
     "routes (the HMG paper's ideal caching): requests pass the GPU home, which keeps copies "
     "too, strong loads and atomics go to the home of their scope; auto: hier on a machine of "
     "several GPUs, flat on one", "auto|flat|hier"},
    {"fault", CFG_ENUM, "none", 0, 0,
     "testing only, so the checker must fire: no_move leaves remote dirty data away from its "
     "home, no_drop keeps stale copies", "none|no_move|no_drop"},
    CFG_END,
};

/* Copy the words of m from ver into line l of c, valid and dirty. */
static void merge_words(struct cache *c, int64_t l, const uint64_t m[2], const uint32_t *ver)
{
    cache_line_set_versions(c, l, ver, req_word_mask(m) & c->all_words);
    struct cache_mask va = cache_line_valid(c, l), di = cache_line_dirty(c, l);
    uint64_t valid[2] = {va.w[0] | m[0], va.w[1] | m[1]};
    uint64_t dirty[2] = {di.w[0] | m[0], di.w[1] | m[1]};
    cache_line_set_masks(c, l, valid, dirty);
}

/* Dirty words m (versions ver) of `line` to the first holder on the home's
 * path: its L2, one of its L3 slices, or memory. */
static void to_home(struct ideal *o, addr_t line, unsigned home, const uint64_t m[2],
                    const uint32_t *ver)
{
    const struct coh_machine *cm = o->m;
    int64_t l = cache_find(&cm->l2[home], line);
    if (l >= 0) {
        merge_words(&cm->l2[home], l, m, ver);
        return;
    }
    for (unsigned k = 0; k < cm->l3_per_ch; k++) {
        struct cache *l3 = &cm->l3[home * cm->l3_per_ch + k];
        if ((l = cache_find(l3, line)) >= 0) {
            merge_words(l3, l, m, ver);
            return;
        }
    }
    shadow_write(cm->mem, line, o->words, m, ver);
}

/* Chiplets other than the home holding `line` dirty: their dirty words go
 * home and their copies stay, clean. */
static void move_home(struct ideal *o, addr_t line)
{
    for (unsigned c = 0; c < o->m->nch; c++) {
        struct cache *l2 = &o->m->l2[c];
        int64_t l = cache_find(l2, line);
        if (l < 0 || cache_line_home(l2, l) == c)
            continue;
        struct cache_mask dirty = cache_line_dirty(l2, l), valid = cache_line_valid(l2, l);
        if (!(dirty.w[0] | dirty.w[1]))
            continue;
        uint64_t none[2] = {0, 0};
        uint32_t ver[REQ_WORDS];
        cache_line_get_versions(l2, l, ver, l2->all_words);
        to_home(o, line, cache_line_home(l2, l), dirty.w, ver);
        cache_line_set_masks(l2, l, valid.w, none);
        o->st.lines_moved++;
    }
}

/* Drop c's copy of line if a word it holds is older than want[]. */
static void drop_if_stale(struct ideal *o, struct cache *c, addr_t line, const uint32_t *want)
{
    int64_t l = cache_find(c, line);
    if (l < 0)
        return;
    uint32_t wm = req_word_mask(cache_line_valid(c, l).w);
    for (unsigned w = 0; w < o->words; w++)
        if ((wm >> w & 1) && cache_line_version(c, l, w) < want[w]) {
            o->st.lines_invalidated += cache_inval_line(c, line);
            return;
        }
}

static void sync_stored_lines(struct ideal *o)
{
    const struct coh_machine *cm = o->m;
    struct chk *chk = cm->chk;
    uint32_t want[32];
    for (size_t i = 0; i < chk->stored.n && o->fault != F_NO_MOVE; i++)
        move_home(o, chk->stored.v[i]);
    for (size_t i = 0; i < chk->stored.n && o->fault != F_NO_DROP; i++) {
        addr_t line = chk->stored.v[i];
        chk_line_floor(chk, line, want);
        for (unsigned c = 0; c < cm->nch; c++)
            drop_if_stale(o, &cm->l2[c], line, want);
        for (unsigned k = 0; k < cm->nch * cm->l3_per_ch; k++)
            drop_if_stale(o, &cm->l3[k], line, want);
    }
    chk->stored.n = 0;
}

static void ideal_release(void *self, unsigned cu, enum mem_scope scope, coh_done_fn done,
                          void *arg)
{
    (void)cu;
    struct ideal *o = self;
    struct chk *chk = o->m->chk;
    for (size_t i = 0; scope >= SCOPE_GPU && o->fault != F_NO_MOVE && i < chk->stored.n; i++)
        move_home(o, chk->stored.v[i]);
    done(o->m->s, arg);
}

static void ideal_acquire(void *self, unsigned cu, enum mem_scope scope, coh_done_fn done,
                          void *arg)
{
    struct ideal *o = self;
    const struct coh_machine *cm = o->m;
    if (scope < SCOPE_GPU) {
        done(cm->s, arg);
        return;
    }
    /* the acquirer's L2; under hier its GPU's, which its GPU homes are among */
    uint32_t cur[32];
    unsigned ch = cu / cm->cu_per_ch, lo = ch, n = 1;
    if (o->x.on) {
        lo = coh_hier_gpu(&o->x, ch) * o->x.cpg;
        n = o->x.cpg;
    }
    for (size_t i = 0; o->fault != F_NO_DROP && i < cm->chk->stored.n; i++) {
        chk_line_cur(cm->chk, cm->chk->stored.v[i], cur);
        for (unsigned c = lo; c < lo + n; c++)
            drop_if_stale(o, &cm->l2[c], cm->chk->stored.v[i], cur);
    }
    coh_walkq_add(&cm->l1q[cu], COH_INVALIDATE, done, arg);
}

/* The oracle's work is immediate and free; the L1 invalidation takes a CP
 * round as under every scheme. */
static void ideal_kernel_launch(void *self, const struct coh_kernel *k, coh_done_fn done,
                                void *arg)
{
    struct ideal *o = self;
    sync_stored_lines(o);
    coh_l1_launch(&o->launch, k, done, arg); /* the L1 invalidation every scheme makes */
}

static struct coh_route ideal_l2_access(void *self, unsigned ch, struct req *r)
{
    struct ideal *o = self;
    if (o->x.on)
        return coh_hier_l2_access(&o->x, ch, r, o->write_through);
    struct coh_route rt = coh_d4_l2_access(&o->d4, ch, r);
    if (o->write_through && r->kind == REQ_WRITE)
        rt.set |= REQ_F_WT;
    return rt;
}

static struct coh_route ideal_l2_miss(void *self, unsigned ch, struct req *r)
{
    struct ideal *o = self;
    return o->x.on ? coh_hier_miss(&o->x, ch, r) : coh_default_l2_miss(ch, r);
}

static struct coh_route ideal_gpu_home_in(void *self, unsigned n, struct req *r)
{
    struct ideal *o = self;
    return coh_hier_gpu_home_route(&o->x, n, r, o->home_alloc, !o->write_through);
}

static struct coh_route ideal_remote_in(void *self, unsigned home, struct req *r)
{
    struct ideal *o = self;
    if (o->x.on)
        return coh_route_to(COH_HOP_L2, coh_hier_home_flags(&o->x, home, r, o->home_alloc,
                                                            !o->write_through));
    bool keep = r->kind == REQ_READ ? o->home_alloc : r->kind == REQ_WRITE && o->write_through;
    if (!keep)
        return coh_default_remote_in(r);
    /* the home keeps a copy; a store goes on to the L3 */
    return coh_route_to(COH_HOP_L2, REQ_F_REMOTE | (r->kind == REQ_WRITE ? REQ_F_WT : 0));
}

/* mode: 0 auto, 1 flat, 2 hier. */
static bool mode_hier(const struct coh_machine *m, int mode)
{
    return mode == 2 || (mode == 0 && m->t->gpus > 1);
}

static void *ideal_create(const struct coh_machine *m, const struct cfg_sec *sec, struct err *e)
{
    if (!m->chk || !m->chk->on) {
        cfg_err(e, sec, "scheme", "ideal is an oracle that reads the coherence checker's data "
                "versions: it needs [check] enable = true");
        return NULL;
    }
    bool most = cfg_enum(sec, "caching") == 0;
    bool home_alloc = most && cfg_bool(sec, "home_alloc");
    if (coh_home_alloc_check(m, sec, "home_alloc", home_alloc, e))
        return NULL;
    struct ideal *o = xcalloc(1, sizeof *o);
    *o = (struct ideal){.m = m, .d4 = {.read_alloc = true, .store_local = true},
                        .home_alloc = home_alloc, .words = m->l2[0].words,
                        .fault = cfg_enum(sec, "fault"),
                        .write_through = most && cfg_enum(sec, "l2_write") == 1,
                        .x = {.cpg = m->t->chiplets, .cu_per_ch = m->cu_per_ch,
                              .on = most && mode_hier(m, cfg_enum(sec, "mode"))}};
    if (!most)
        coh_d4_from_cfg(sec, &o->d4);
    chk_track_lines(m->chk);
    coh_l1_launch_init(&o->launch, m, &o->st.l1_invalidates, false);
    return o;
}

static void ideal_destroy(void *self) { free(self); }

#define IDEAL_ST(f, d) STAT_DESC(__typeof__(((struct ideal *)0)->st), f, d)
static const struct stat_desc ideal_desc[] = {
    IDEAL_ST(l1_invalidates, "kernel boundaries at which every L1 was invalidated"),
    IDEAL_ST(lines_moved, "dirty lines away from their home whose words the oracle moved "
                          "home at a boundary (no cost)"),
    IDEAL_ST(lines_invalidated, "stale L2 and L3 copies the oracle dropped at a boundary "
                                "(no cost)"),
    {0},
};

static void ideal_reg_stats(void *self, struct stats *st)
{
    stats_reg_block(st, "coherence", ideal_desc, &((struct ideal *)self)->st);
}

const struct coh_ops coh_ideal = {
    .name = "ideal",
    .desc = "oracle upper bound: remote data cached at requester and home; at each boundary "
            "exactly the stale copies dropped and remote dirty data moved home, at no cost",
    .keys = ideal_keys,
    .create = ideal_create,
    .destroy = ideal_destroy,
    .reg_stats = ideal_reg_stats,
    .kernel_launch = ideal_kernel_launch,
    .l2_access = ideal_l2_access,
    .l2_miss = ideal_l2_miss,
    .gpu_home_in = ideal_gpu_home_in,
    .remote_in = ideal_remote_in,
    .release = ideal_release,
    .acquire = ideal_acquire,
};
