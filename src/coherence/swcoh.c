/*
 * swcoh.c -- software coherence with scopes and bulk invalidation (spec
 * hmg.md 6: NH-SW and H-SW; open decisions H10, H11). No directory and no
 * invalidation message: L2s cache remote data (the requester's, and under
 * mode = hier its GPU's home of the line on the way, routed as HMG routes,
 * coh_hier.h); stores are written through to the home, so a release needs
 * nothing beyond its stores' acknowledgements (the CU drains them first);
 * an acquire of GPU or system scope bulk-invalidates the lines homed
 * elsewhere in the L2s between the CU and its scope's home
 * (cache_invalidate_foreign), then the CU's L1:
 *   flat (NH-SW): .gpu and .sys, the CU's chiplet L2 (flat routing reads
 *                 through no other GPM's L2);
 *   hier (H-SW):  .gpu, the CU's chiplet L2; .sys, every L2 of its GPU (any
 *                 of them may be the GPU home of some line).
 * A kernel's start is a .sys acquire everywhere (H10): every L1 and every
 * L2's foreign lines, in a command-processor round (coh_round); its end a
 * .sys release, nothing to do once the stores are acknowledged. Atomics are
 * performed where HMG performs them (a .gpu one at the GPU home).
 * With write_through = remote, a store is written through only to its
 * data's home, whose L2 keeps it write-back (the home serves every other
 * chiplet's access to the line, so no copy elsewhere can miss it, and each
 * launch drops the copies). On flat routes with write_through = remote this
 * is the dynamically shared L2 of spec ladm.md 8 and L9; `crb` adds its compiler-assisted remote-request bypassing: a kernel
 * whose followed buffer is intra-thread local (coh_kernel.itl) runs with
 * RONCE, the home not allocating for remote readers (L10: they still look
 * it up and hit; writes are not bypassed).
 */
#include <stdlib.h>

#include "coh.h"
#include "coh_hier.h"

struct swcoh {
    const struct coh_machine *m;
    struct coh_hier x;
    bool home_alloc, skip_bulk_inv;
    bool crb;         /* RONCE for the kernels that follow an intra-thread buffer */
    bool alloc;       /* the current kernel's homes allocate for remote readers */
    bool wt_all;      /* every store written through to memory (else only to its home) */
    bool flash;       /* bulk_inv = flash: a bulk invalidation takes one L2 access time */
    uint64_t all;
    unsigned parts;
    struct coh_seq l1q, l2q;
    struct coh_round round;
    struct pool acqs; /* struct sw_acq */
    struct {
        uint64_t l1_invalidates, l2_bulk_invalidates, ronce_kernels;
    } st;
};

/* An acquire under way: its L2 walks, then its L1's. */
struct sw_acq {
    struct swcoh *w;
    unsigned cu, walks;
    coh_done_fn done;
    void *arg;
};

static const struct cfg_key swcoh_keys[] = {
    {"mode", CFG_ENUM, "hier", 0, 0,
     "hier: GPU homes under system homes, a .sys acquire invalidating every L2 of the GPU "
     "(H-SW); flat: every chiplet a peer, an acquire invalidating its own L2 (NH-SW)",
     "hier|flat"},
    {"home_alloc", CFG_BOOL, "true", 0, 0,
     "the homes allocate lines in their L2 for remote readers, as HMG's do (needs [l2] "
     "mshrs_remote > 0)", NULL},
    {"write_through", CFG_ENUM, "all", 0, 0,
     "all: every store written through to memory (NH-SW, H-SW); remote: a store to data homed "
     "elsewhere written through to its home, whose L2 keeps it write-back, as each L2 keeps its "
     "own data (LADM's dynamically shared L2)", "all|remote"},
    {"crb", CFG_BOOL, "false", 0, 0,
     "with home_alloc: a kernel whose largest buffer LADM's analysis finds intra-thread local "
     "does not allocate for remote readers at the homes (LADM's CRB: RONCE for those kernels, "
     "RTWICE for the others)", NULL},
    {"bulk_inv", CFG_ENUM, "flash", 0, 0,
     "what a bulk invalidation of an L2 costs: flash, a flash clear of its remote lines taking "
     "one L2 access time; walk, a walk of its tags at [l2] walk_sets_per_cycle", "flash|walk"},
    {"fault", CFG_ENUM, "none", 0, 0,
     "testing only: skip_bulk_inv leaves the L2s' remote lines at acquires and launches, so "
     "the checker must fire", "none|skip_bulk_inv"},
    CFG_END,
};

/* ---- the request path (HMG's, without a directory) ------------------------------ */

static struct coh_route swcoh_l2_access(void *self, unsigned ch, struct req *r)
{
    struct swcoh *w = self;
    return coh_hier_l2_access(&w->x, ch, r, w->wt_all || r->home != ch);
}

static struct coh_route swcoh_l2_miss(void *self, unsigned ch, struct req *r)
{
    return coh_hier_miss(&((struct swcoh *)self)->x, ch, r);
}

static struct coh_route swcoh_gpu_home_in(void *self, unsigned n, struct req *r)
{
    struct swcoh *w = self;
    return coh_hier_gpu_home_route(&w->x, n, r, w->alloc, false);
}

static struct coh_route swcoh_remote_in(void *self, unsigned home, struct req *r)
{
    struct swcoh *w = self;
    return coh_route_to(COH_HOP_L2, coh_hier_home_flags(&w->x, home, r, w->alloc, !w->wt_all));
}

/* ---- acquires ---------------------------------------------------------------------- */

static void acq_l2_done(struct sim *s, void *obj)
{
    (void)s;
    struct sw_acq *a = obj;
    if (--a->walks)
        return;
    struct sw_acq st = *a;
    pool_put(&st.w->acqs, a);
    coh_walkq_add(&st.w->m->l1q[st.cu], COH_INVALIDATE, st.done, st.arg);
}

/* A flash clear of the remote lines of the L2s of chiplets lo .. lo + n - 1
 * (spec hmg.md H11's default cost: one L2 access time, flash_ps); scoped:
 * an acquire's, counted with the walks asked inside kernels (coh_walkq). */
static void flash(struct swcoh *w, unsigned lo, unsigned n, bool scoped)
{
    for (unsigned c = lo; c < lo + n; c++) {
        cache_flash_invalidate_foreign(&w->m->l2[c]);
        w->m->l2q[c].invalidates += scoped;
    }
}

static ps_t flash_ps(const struct swcoh *w)
{
    const struct cache *l2 = &w->m->l2[0];
    return (ps_t)l2->p.hit_lat * l2->clk->period;
}

static void acq_flash_ev(struct sim *s, void *obj, uint64_t arg)
{
    (void)arg;
    acq_l2_done(s, obj);
}

static void swcoh_acquire(void *self, unsigned cu, enum mem_scope scope, coh_done_fn done,
                          void *arg)
{
    struct swcoh *w = self;
    if (scope < SCOPE_GPU) {
        done(w->m->s, arg);
        return;
    }
    unsigned ch = cu / w->m->cu_per_ch, lo = ch, n = 1;
    if (scope == SCOPE_SYS && w->x.on) {
        lo = coh_hier_gpu(&w->x, ch) * w->x.cpg;
        n = w->x.cpg;
    }
    if (w->skip_bulk_inv) {
        coh_walkq_add(&w->m->l1q[cu], COH_INVALIDATE, done, arg);
        return;
    }
    struct sw_acq *a = pool_get(&w->acqs);
    *a = (struct sw_acq){.w = w, .cu = cu, .walks = w->flash ? 1 : n, .done = done, .arg = arg};
    w->st.l2_bulk_invalidates += n;
    if (w->flash) {
        flash(w, lo, n, true);
        sim_after(w->m->s, flash_ps(w), acq_flash_ev, a, 0);
        return;
    }
    for (unsigned c = lo; c < lo + n; c++)
        coh_walkq_add(&w->m->l2q[c], COH_INVALIDATE_FOREIGN, acq_l2_done, a);
}

/* ---- kernel boundaries --------------------------------------------------------------- */

static void part_done(struct sim *s, void *obj)
{
    struct swcoh *w = obj;
    if (--w->parts == 0)
        coh_round_ops_done(s, &w->round);
}

static void part_done_ev(struct sim *s, void *obj, uint64_t arg)
{
    (void)arg;
    part_done(s, obj);
}

/* At the local CPs, a launch (a .sys acquire everywhere): every L1, and every
 * L2's lines homed elsewhere (the guard part ends last). */
static void launch_ops(void *obj)
{
    struct swcoh *w = obj;
    w->parts = 3;
    w->st.l1_invalidates++;
    coh_all_l1(&w->l1q, COH_INVALIDATE, part_done, w);
    if (w->skip_bulk_inv) {
        part_done(w->m->s, w);
    } else if (w->flash) {
        w->st.l2_bulk_invalidates += w->m->nch;
        flash(w, 0, w->m->nch, false);
        sim_after(w->m->s, flash_ps(w), part_done_ev, w, 0);
    } else {
        w->st.l2_bulk_invalidates += w->m->nch;
        coh_l2s(&w->l2q, w->all, COH_INVALIDATE_FOREIGN, part_done, w);
    }
    part_done(w->m->s, w);
}

static void swcoh_kernel_launch(void *self, const struct coh_kernel *k, coh_done_fn done,
                                void *arg)
{
    struct swcoh *w = self;
    w->l1q.kernel = w->l2q.kernel = k->id;
    w->alloc = w->home_alloc && !(w->crb && k->itl);
    w->st.ronce_kernels += w->home_alloc && !w->alloc;
    coh_round(&w->round, w->m, w->m->s->now, w->m->nch, true, launch_ops, w, done, arg);
}

static void swcoh_kernel_end(void *self, const struct coh_kernel *k, coh_done_fn done, void *arg)
{
    (void)k;
    struct swcoh *w = self;
    done(w->m->s, arg);
}

/* ---- set-up ---------------------------------------------------------------------------- */

static void *swcoh_create(const struct coh_machine *m, const struct cfg_sec *sec, struct err *e)
{
    bool home_alloc = cfg_bool(sec, "home_alloc");
    if (coh_home_alloc_check(m, sec, "home_alloc", home_alloc, e))
        return NULL;
    struct swcoh *w = xcalloc(1, sizeof *w);
    *w = (struct swcoh){.m = m, .home_alloc = home_alloc, .alloc = home_alloc,
                        .crb = cfg_bool(sec, "crb"), .wt_all = cfg_enum(sec, "write_through") == 0,
                        .all = low_bits(m->nch),
                        .skip_bulk_inv = cfg_enum(sec, "fault") == 1,
                        .flash = cfg_enum(sec, "bulk_inv") == 0,
                        .x = {.cpg = m->t->chiplets, .cu_per_ch = m->cu_per_ch,
                              .on = cfg_enum(sec, "mode") == 0}};
    coh_seq_init(&w->l1q, m);
    coh_seq_init(&w->l2q, m);
    pool_init(&w->acqs, sizeof(struct sw_acq), 64);
    return w;
}

static void swcoh_destroy(void *self)
{
    struct swcoh *w = self;
    pool_destroy(&w->acqs);
    free(w);
}

#define SW_ST(f, d) STAT_DESC(__typeof__(((struct swcoh *)0)->st), f, d)
static const struct stat_desc swcoh_desc[] = {
    SW_ST(l1_invalidates, "kernel launches at which every L1 was invalidated"),
    SW_ST(l2_bulk_invalidates, "L2 walks dropping the lines homed elsewhere (launches and "
                               "acquires)"),
    SW_ST(ronce_kernels, "kernels run with RONCE under crb: no allocation at the homes for "
                         "remote readers"),
    {0},
};

static void swcoh_reg_stats(void *self, struct stats *st)
{
    stats_reg_block(st, "coherence", swcoh_desc, &((struct swcoh *)self)->st);
}

const struct coh_ops coh_swcoh = {
    .name = "swcoh",
    /* spec hmg.md 6: NH-SW and H-SW */
    .desc = "software coherence: remote data cached, stores written through, acquires "
            "bulk-invalidate the L2s' remote lines (hierarchical or flat)",
    .keys = swcoh_keys,
    .create = swcoh_create,
    .destroy = swcoh_destroy,
    .reg_stats = swcoh_reg_stats,
    .kernel_launch = swcoh_kernel_launch,
    .kernel_end = swcoh_kernel_end,
    .l2_access = swcoh_l2_access,
    .l2_miss = swcoh_l2_miss,
    .gpu_home_in = swcoh_gpu_home_in,
    .remote_in = swcoh_remote_in,
    .acquire = swcoh_acquire,
};
