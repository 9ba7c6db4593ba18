/*
 * nocache.c -- no remote caching: the baseline of spec hmg.md 6 and its
 * open decision H11. An L2 caches only the lines whose home is its own
 * chiplet (GPM); every access to a line homed elsewhere, on this GPU or
 * another, goes to that home, which serves it from its L2 (allocating for
 * remote readers as HMG's home does, `home_alloc`) and performs atomics. As
 * each line lives in one L2, no L2 needs a directory, an invalidation or a
 * bulk operation. Stores are written through to memory by default (the
 * write-through L2s of the evaluated configuration, H16; `l2_write = back`
 * keeps them dirty at the home). Kernel boundaries (H10): at each launch
 * every L1 is invalidated in a command-processor round; a kernel's end
 * needs nothing more once its stores are acknowledged. Scoped acquires
 * invalidate the CU's L1 (the default hook); releases need nothing.
 */
#include <stdlib.h>

#include "coh.h"

struct nocache {
    const struct coh_machine *m;
    bool home_alloc, write_through;
    struct coh_l1_launch launch;
    struct {
        uint64_t l1_invalidates;
    } st;
};

static const struct cfg_key nocache_keys[] = {
    {"home_alloc", CFG_BOOL, "true", 0, 0,
     "the home allocates lines in its L2 for remote readers, as HMG's does (needs [l2] "
     "mshrs_remote > 0); false: it serves hits and relays misses from its L3 without allocating",
     NULL},
    {"l2_write", CFG_ENUM, "through", 0, 0,
     "through: every store written through its home's L2 to memory (the HMG paper's "
     "evaluated configuration); back: the home's L2 keeps it dirty", "through|back"},
    {"fault", CFG_ENUM, "none", 0, 0,
     "testing only: skip_l1_inv leaves the L1s valid at launches, so the checker must fire",
     "none|skip_l1_inv"},
    CFG_END,
};

/* Into the requester's L2 only for its own lines; a line homed elsewhere
 * passes it (no allocation, stores and atomics written through to the home). */
static struct coh_route nocache_l2_access(void *self, unsigned ch, struct req *r)
{
    struct nocache *n = self;
    static const struct coh_d4 none = {.read_alloc = false, .store_local = false};
    if (r->home != ch)
        return coh_d4_l2_access(&none, ch, r);
    bool store = r->kind == REQ_WRITE || r->kind == REQ_ATOMIC;
    return coh_route_to(COH_HOP_L2, store && n->write_through ? REQ_F_WT : 0);
}

/* At the home: its L2 serves and keeps the line (its own); atomics are
 * performed there. */
static struct coh_route nocache_remote_in(void *self, unsigned home, struct req *r)
{
    (void)home;
    struct nocache *n = self;
    unsigned set = REQ_F_REMOTE;
    if (r->kind == REQ_WRITEBACK)
        return coh_route_to(COH_HOP_L3, set);
    if (r->kind == REQ_READ && !n->home_alloc)
        set |= REQ_F_NOALLOC;
    if ((r->kind == REQ_WRITE || r->kind == REQ_ATOMIC) && n->write_through)
        set |= REQ_F_WT;
    return coh_route_to(COH_HOP_L2, set);
}

/* At the local CPs, a launch: every L1 invalidated. */
static void nocache_kernel_launch(void *self, const struct coh_kernel *k, coh_done_fn done,
                                  void *arg)
{
    coh_l1_launch(&((struct nocache *)self)->launch, k, done, arg);
}

static void nocache_kernel_end(void *self, const struct coh_kernel *k, coh_done_fn done,
                               void *arg)
{
    (void)k;
    struct nocache *n = self;
    done(n->m->s, arg);
}

static void *nocache_create(const struct coh_machine *m, const struct cfg_sec *sec,
                            struct err *e)
{
    bool home_alloc = cfg_bool(sec, "home_alloc");
    if (coh_home_alloc_check(m, sec, "home_alloc", home_alloc, e))
        return NULL;
    struct nocache *n = xcalloc(1, sizeof *n);
    *n = (struct nocache){.m = m, .home_alloc = home_alloc,
                          .write_through = cfg_enum(sec, "l2_write") == 0};
    coh_l1_launch_init(&n->launch, m, &n->st.l1_invalidates, cfg_enum(sec, "fault") == 1);
    return n;
}

static void nocache_destroy(void *self)
{
    free(self);
}

static const struct stat_desc nocache_desc[] = {
    STAT_DESC(__typeof__(((struct nocache *)0)->st), l1_invalidates,
              "kernel launches at which every L1 was invalidated"),
    {0},
};

static void nocache_reg_stats(void *self, struct stats *st)
{
    stats_reg_block(st, "coherence", nocache_desc, &((struct nocache *)self)->st);
}

const struct coh_ops coh_nocache = {
    .name = "nocache",
    /* spec hmg.md 6 (baseline), H11 */
    .desc = "no remote caching: an L2 keeps only lines homed on its chiplet, every other access "
            "goes to the home (the HMG study's baseline)",
    .keys = nocache_keys,
    .create = nocache_create,
    .destroy = nocache_destroy,
    .reg_stats = nocache_reg_stats,
    .kernel_launch = nocache_kernel_launch,
    .kernel_end = nocache_kernel_end,
    .l2_access = nocache_l2_access,
    .remote_in = nocache_remote_in,
};
